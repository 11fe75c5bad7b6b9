# examples/readahead's GPU kernel: the host device's build (readahead.so)
# always, and where nvcc is installed the GPU's (readahead.fatbin: sm_80 and
# sm_90). The module asks for readahead.fatbin; the host device serves
# readahead.so for it.
HOST_KERNELS += $(BUILD)/kernels/readahead.so
ifneq ($(wildcard $(NVCC)),)
HOST_KERNELS += $(BUILD)/kernels/readahead.fatbin
endif

$(BUILD)/kernels/readahead.so: examples/readahead/readahead.cu examples/readahead/ra_kernel.h \
		include/lake/kernel.h include/lake/kernel_abi.h include/lake/kernel_sig.h
	@mkdir -p $(@D)
	$(CC) -std=gnu11 -Wall -Wextra -Werror -x c -shared -fPIC -O2 -Iinclude $< -o $@

$(BUILD)/kernels/readahead.fatbin: examples/readahead/readahead.cu examples/readahead/ra_kernel.h \
		include/lake/kernel.h
	@mkdir -p $(@D)
	$(NVCC) -fatbin -gencode arch=compute_80,code=sm_80 \
		-gencode arch=compute_90,code=sm_90 -Iinclude $< -o $@
