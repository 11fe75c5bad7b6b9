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

# The SIMD files' instruction sets, for host builds of the model core
# (tests/unit/linnos.mk, tests/fuzz/linnos_model.mk, bench/linnos.mk), as
# Kbuild gives them.
LINNOS_SIMD_infer_avx2 := -mavx2
LINNOS_SIMD_infer_avx512 := -mavx2 -mavx512f
