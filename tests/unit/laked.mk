# laked's device layer: the host device, the CUDA backend and lake/cuda.h.
# Included by the top-level Makefile (UNIT_TESTS, UNIT_SRCS_*, UNIT_LIBS_*,
# HOST_KERNELS, BUILD). The tests find kernels in $LAKE_KERNEL_DIR, default
# build/kernels, so they need $(HOST_KERNELS) built first.

# The host device reuses lakeshm's allocator and common/'s error table; its
# C++ kernels need libffi (the calls) and libstdc++ (the demangler), so
# whatever links it links $(LAKED_HOST_LIBS).
LAKED_HOST_SRCS := laked/host/ctx.c laked/host/device.c laked/host/errors.c \
	laked/host/event.c laked/host/handle.c laked/host/mem.c laked/host/module.c \
	laked/host/pool.c laked/host/stream.c laked/host/cxx.c laked/host/fiber.c \
	common/cu_errors.c lakeshm/alloc.c lakeshm/avl.c lakeshm/index.c
LAKED_HOST_LIBS := -lffi -lstdc++
LAKED_DRIVER_SRCS := $(LAKED_HOST_SRCS) laked/driver.c laked/cuda.c laked/nvml.c

UNIT_TESTS += hostdev hostdev_exec hostdev_stream cuda_drv cuda_h
UNIT_SRCS_hostdev := $(LAKED_DRIVER_SRCS)
UNIT_LIBS_hostdev := -lpthread -ldl $(LAKED_HOST_LIBS)
UNIT_SRCS_hostdev_exec := $(LAKED_DRIVER_SRCS)
UNIT_LIBS_hostdev_exec := -lpthread -ldl $(LAKED_HOST_LIBS)
UNIT_SRCS_hostdev_stream := $(LAKED_DRIVER_SRCS)
UNIT_LIBS_hostdev_stream := -lpthread -ldl $(LAKED_HOST_LIBS)
UNIT_SRCS_cuda_drv := $(LAKED_DRIVER_SRCS)
UNIT_LIBS_cuda_drv := -lpthread -ldl $(LAKED_HOST_LIBS)
UNIT_SRCS_cuda_h := tests/unit/cuda_h_lake.c
UNIT_TESTS += cxx_kernels
UNIT_SRCS_cxx_kernels := $(LAKED_DRIVER_SRCS)
UNIT_LIBS_cxx_kernels := -lpthread -ldl $(LAKED_HOST_LIBS)

# Kernels for the host device: the same sources nvcc builds into cubins.
HOST_KERNELS += $(BUILD)/kernels/vadd.so $(BUILD)/kernels/selftest.so
# CUDA C++ kernels, built as the README says a user builds them: this very
# command, with the header doing the rest (nvcc takes the same sources).
CXX_KERNELS := $(patsubst tests/kernels/cxx/%.cu,$(BUILD)/kernels/cxx/%.so,\
	$(wildcard tests/kernels/cxx/*.cu))
HOST_KERNELS += $(CXX_KERNELS)
$(BUILD)/kernels/cxx/%.so: tests/kernels/cxx/%.cu include/lake/cuda_host.h include/lake/kernel_abi.h
	@mkdir -p $(@D)
	g++ -x c++ -std=gnu++17 -O2 -fPIC -shared -Iinclude -include lake/cuda_host.h $< -o $@

# Fake libcuda.so.1 builds that record which entry point each op reached.
CUDA_STUBS := libcuda_stub libcuda_stub_old libcuda_stub_future
HOST_KERNELS += $(CUDA_STUBS:%=$(BUILD)/kernels/%.so)

$(BUILD)/kernels/%.so: tests/kernels/%.cu tests/kernels/%.h include/lake/kernel.h \
		include/lake/kernel_abi.h include/lake/kernel_sig.h
	@mkdir -p $(@D)
	$(CC) -std=gnu11 -Wall -Wextra -Werror -x c -shared -fPIC -O2 -Iinclude $< -o $@

STUB_CFLAGS := -std=gnu11 -Wall -Wextra -Werror -Wno-unused-parameter -shared -fPIC -O1 -Iinclude
$(BUILD)/kernels/libcuda_stub.so: tests/unit/cuda_stub.c include/lake/cuda.h
	@mkdir -p $(@D)
	$(CC) $(STUB_CFLAGS) $< -o $@
$(BUILD)/kernels/libcuda_stub_old.so: tests/unit/cuda_stub.c include/lake/cuda.h
	@mkdir -p $(@D)
	$(CC) $(STUB_CFLAGS) -DSTUB_OLD_DRIVER $< -o $@
$(BUILD)/kernels/libcuda_stub_future.so: tests/unit/cuda_stub.c include/lake/cuda.h
	@mkdir -p $(@D)
	$(CC) $(STUB_CFLAGS) -DSTUB_NO_CTX_CREATE_V2 $< -o $@
