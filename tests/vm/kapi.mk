# The LAKE-style module tests/kapi/hello, built for each kernel by the
# README's commands (tests/kapi/build) beside that kernel's modules, so the
# guest image carries it. It needs this kernel's lakelib and lakeshm built
# first (their Module.symvers), and their exports' types (the headers) and
# names (the kapi.c files).
KAPI_DEPS := $(wildcard tests/kapi/hello/*) tests/kapi/build README.md \
	$(wildcard include/kapi/*.h include/kapi/host/*.h) include/kapi/symbols \
	$(wildcard include/lake/*.h) lakelib/kapi.c lakeshm/kapi.c
.PRECIOUS: $(BUILD)/kmod/%/kapi/.built
$(BUILD)/kmod/%/kapi/.built: $(KAPI_DEPS) | $(BUILD)/kmod/%/.built
	tests/kapi/build $* $(@D) > $(@D).log 2>&1 || { tail -n 30 $(@D).log; exit 1; }
	@touch $@

# Its kernels for the host device, by the README's g++ line, for the guest
# and for gpu_check (tests/gpu).
HOST_KERNELS += $(BUILD)/kernels/kapi_hello.so
$(BUILD)/kernels/kapi_hello.so: tests/kapi/hello/kapi_hello.cu include/lake/cuda_host.h \
		include/lake/kernel_abi.h include/kapi/host/cuda_runtime.h
	@mkdir -p $(@D)
	g++ -x c++ -std=gnu++17 -O2 -fPIC -shared -Iinclude -Iinclude/kapi/host \
		-include lake/cuda_host.h $< -o $@
