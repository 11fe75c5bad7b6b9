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

# The worker pool (workers.c): contexts in parallel; and again under ThreadSanitizer.
UNIT_TESTS += pool pool_tsan
UNIT_SRCS_pool = $(LAKED_CORE_SRCS) laked/workers.c tests/unit/dispatch_util.c
UNIT_LIBS_pool := -ldl -lpthread $(LAKED_HOST_LIBS)
UNIT_MAIN_pool_tsan := tests/unit/test_pool.c
UNIT_SRCS_pool_tsan = $(UNIT_SRCS_pool)
UNIT_CC_pool_tsan = $(CLANG)
UNIT_SAN_pool_tsan := -O1 -fsanitize=thread -fno-omit-frame-pointer
UNIT_LIBS_pool_tsan := -ldl -lpthread $(LAKED_HOST_LIBS)

# The command ring's daemon end serving the pool, against a stand-in kernel end.
UNIT_TESTS += ring_pool ring_pool_tsan
UNIT_SRCS_ring_pool = $(LAKED_CORE_SRCS) laked/workers.c laked/ring.c common/ring.c \
	tests/unit/dispatch_util.c
UNIT_LIBS_ring_pool := -ldl -lpthread $(LAKED_HOST_LIBS)
UNIT_MAIN_ring_pool_tsan := tests/unit/test_ring_pool.c
UNIT_SRCS_ring_pool_tsan = $(UNIT_SRCS_ring_pool)
UNIT_CC_ring_pool_tsan = $(CLANG)
UNIT_SAN_ring_pool_tsan := -O1 -fsanitize=thread -fno-omit-frame-pointer
UNIT_LIBS_ring_pool_tsan := -ldl -lpthread $(LAKED_HOST_LIBS)

UNIT_TESTS += sandbox
UNIT_SRCS_sandbox = $(LAKED_CORE_SRCS) laked/sandbox.c tests/unit/dispatch_util.c
UNIT_LIBS_sandbox := -lseccomp -ldl -lpthread $(LAKED_HOST_LIBS)
