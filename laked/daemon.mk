# laked, the daemon: its dispatcher (testable without netlink), the netlink
# loop, the shared region and the sandbox. Included by the top Makefile
# after tests/unit/laked.mk, whose LAKED_DRIVER_SRCS (the device layer) it
# builds on. See laked/laked.h.

LAKED_CORE_SRCS = laked/dispatch.c laked/handles.c laked/allocs.c laked/staging.c \
	laked/calls_device.c laked/calls_module.c laked/calls_mem.c laked/calls_stream.c \
	laked/log.c common/wire.c common/wire_api.c $(LAKED_DRIVER_SRCS)
LAKED_SRCS = laked/main.c laked/netlink.c laked/ring.c common/ring.c laked/workers.c laked/shm.c laked/sandbox.c laked/load.c laked/service.c \
	$(LAKED_CORE_SRCS)

UNIT_TESTS += dispatch
UNIT_SRCS_dispatch = $(LAKED_CORE_SRCS) tests/unit/dispatch_util.c tests/unit/dispatch_mem.c
UNIT_LIBS_dispatch := -ldl -lpthread $(LAKED_HOST_LIBS)
# The dispatcher on a shim that fails any out-of-range call reaching the device.
UNIT_TESTS += laked_bounds
UNIT_SRCS_laked_bounds = $(LAKED_CORE_SRCS) tests/unit/dispatch_util.c
UNIT_LIBS_laked_bounds := -ldl -lpthread $(LAKED_HOST_LIBS)

# Linked dynamically: the initramfs carries its shared libraries.
GUEST_BINS += $(BUILD)/guest/laked
$(BUILD)/guest/laked: $(LAKED_SRCS) $(wildcard laked/*.h laked/host/*.h include/lake/*.h include/uapi/lake/*.h)
	@mkdir -p $(@D)
	$(CC) $(HOST_CFLAGS) -O2 $(NL_CFLAGS) $(LAKED_SRCS) -o $@ $(NL_LIBS) -lseccomp -ldl -lpthread $(LAKED_HOST_LIBS)

# A test of laked's threads, $(1), on sources $(2): built as every unit is
# and again under ThreadSanitizer as $(1)_tsan, which checks every access
# the threads share.
define laked_threads_test
UNIT_TESTS += $(1) $(1)_tsan
UNIT_SRCS_$(1) = $(2)
UNIT_LIBS_$(1) := -ldl -lpthread $$(LAKED_HOST_LIBS)
UNIT_MAIN_$(1)_tsan := tests/unit/test_$(1).c
UNIT_SRCS_$(1)_tsan = $(2)
UNIT_CC_$(1)_tsan = $$(CLANG)
UNIT_SAN_$(1)_tsan := -O1 -fsanitize=thread -fno-omit-frame-pointer
UNIT_LIBS_$(1)_tsan := -ldl -lpthread $$(LAKED_HOST_LIBS)
endef
# The worker pool (workers.c): contexts in parallel.
$(eval $(call laked_threads_test,pool,$$(LAKED_CORE_SRCS) laked/workers.c tests/unit/dispatch_util.c))
# The command ring's daemon end serving the pool, against a stand-in kernel end.
$(eval $(call laked_threads_test,ring_pool,$$(LAKED_CORE_SRCS) laked/workers.c laked/ring.c \
	common/ring.c tests/unit/dispatch_util.c))

UNIT_TESTS += sandbox
UNIT_SRCS_sandbox = $(LAKED_CORE_SRCS) laked/sandbox.c tests/unit/dispatch_util.c
UNIT_LIBS_sandbox := -lseccomp -ldl -lpthread $(LAKED_HOST_LIBS)
