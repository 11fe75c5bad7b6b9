# LinnOS's GPU kernels: the host device's build (linnos.so) always, and
# where nvcc is installed the GPU's (linnos.fatbin: sm_80 and sm_90). The
# module asks for linnos.fatbin; the host device serves linnos.so for it.
NVCC ?= /usr/local/cuda/bin/nvcc
HOST_KERNELS += $(BUILD)/kernels/linnos.so
ifneq ($(wildcard $(NVCC)),)
HOST_KERNELS += $(BUILD)/kernels/linnos.fatbin
endif

$(BUILD)/kernels/linnos.so: examples/linnos/linnos.cu include/lake/kernel.h \
		include/lake/kernel_abi.h
	@mkdir -p $(@D)
	$(CC) -std=gnu11 -Wall -Wextra -Werror -x c -shared -fPIC -O2 -Iinclude $< -o $@

$(BUILD)/kernels/linnos.fatbin: examples/linnos/linnos.cu include/lake/kernel.h
	@mkdir -p $(@D)
	$(NVCC) -fatbin -gencode arch=compute_80,code=sm_80 \
		-gencode arch=compute_90,code=sm_90 -Iinclude $< -o $@

# The model core's objects for host programs. The SIMD files get their
# instruction sets here as Kbuild gives them theirs; LINNOS_KFLAGS are the
# kernel's code-generation flags (arch/x86/Makefile), for the benchmark.
LINNOS_DIR := examples/linnos
LINNOS_HDRS := $(wildcard $(LINNOS_DIR)/*.h) include/lake/port.h
LINNOS_SIMD_avx2 := -mavx2
LINNOS_SIMD_avx512 := -mavx2 -mavx512f
LINNOS_KFLAGS := -mno-sse -mno-mmx -mno-sse2 -mno-3dnow -mno-avx -mno-80387 \
	-mno-fp-ret-in-387 -mpreferred-stack-boundary=3 -mno-red-zone -fno-pic \
	-fno-strict-aliasing -fno-common -fno-omit-frame-pointer -fno-tree-vectorize
