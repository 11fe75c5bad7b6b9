# examples/crypto's XTS-AES kernel on the host device, through its CUDA API
# (IEEE 1619 vectors, both CPU paths). Recursive: laked.mk, read after this
# file, defines the driver's sources.
UNIT_TESTS += crypto_xts
UNIT_SRCS_crypto_xts = $(LAKED_DRIVER_SRCS)
UNIT_LIBS_crypto_xts = -lpthread -ldl $(LAKED_HOST_LIBS)

# The GPU's table cipher built by cc, for these tests alone (no GPU here).
HOST_KERNELS += $(BUILD)/kernels/example_xts_tables.so
$(BUILD)/kernels/example_xts_tables.so: examples/crypto/xts_aes.cu examples/crypto/xts_kernel.h examples/crypto/aes_device.h \
		include/lake/kernel.h include/lake/kernel_abi.h include/lake/kernel_sig.h
	@mkdir -p $(@D)
	$(CC) -std=gnu11 -Wall -Wextra -Werror -x c -shared -fPIC -O2 -Iinclude -DAES_TABLE_CIPHER \
		$< -o $@

# examples/crypto's AES-GCM kernel the same way (the GCM specification's
# test cases with 96-bit IVs, both CPU paths and the GPU's table cipher).
UNIT_TESTS += crypto_gcm
UNIT_SRCS_crypto_gcm = $(LAKED_DRIVER_SRCS)
UNIT_LIBS_crypto_gcm = -lpthread -ldl $(LAKED_HOST_LIBS)

HOST_KERNELS += $(BUILD)/kernels/example_gcm_tables.so
$(BUILD)/kernels/example_gcm_tables.so: examples/crypto/gcm_aes.cu examples/crypto/gcm_kernel.h \
		examples/crypto/aes_device.h include/lake/kernel.h include/lake/kernel_abi.h \
		include/lake/kernel_sig.h
	@mkdir -p $(@D)
	$(CC) -std=gnu11 -Wall -Wextra -Werror -x c -shared -fPIC -O2 -Iinclude -DAES_TABLE_CIPHER \
		$< -o $@
