# The LAKE-style module tests/kapi/hello, built for each kernel by the
# README's commands (tests/kapi/build) beside that kernel's modules, so the
# guest image carries it; its host-device .so joins the other kernels. It
# needs this kernel's lakelib and lakeshm built first (their Module.symvers),
# and their exports' types (the headers) and names (the kapi.c files).
KAPI_DEPS := $(wildcard tests/kapi/hello/*) tests/kapi/build README.md \
	$(wildcard include/kapi/*) $(wildcard include/lake/*.h) lakelib/kapi.c lakeshm/kapi.c
$(BUILD)/kmod/%/kapi/.built: $(KAPI_DEPS) | $(BUILD)/kmod/%/.built
	tests/kapi/build $* $(@D) > $(@D).log 2>&1 || { tail -n 30 $(@D).log; exit 1; }
	@mkdir -p $(BUILD)/kernels
	cp $(@D)/kapi_hello.so $(BUILD)/kernels/
	@touch $@
