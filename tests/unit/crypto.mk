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
