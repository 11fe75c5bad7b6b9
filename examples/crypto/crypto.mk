# The host device's build of the example's kernel: the module asks for
# example_xts.cubin, which the host device serves with this .so. Built with
# the same flags as the other host kernels; AES-NI comes from a target
# attribute in the source, chosen at run time, so no -m flag is needed.
HOST_KERNELS += $(BUILD)/kernels/example_xts.so

$(BUILD)/kernels/example_xts.so: examples/crypto/xts_aes.cu examples/crypto/xts_kernel.h examples/crypto/aes_device.h \
		include/lake/kernel.h include/lake/kernel_abi.h include/lake/kernel_sig.h
	@mkdir -p $(@D)
	$(CC) -std=gnu11 -Wall -Wextra -Werror -x c -shared -fPIC -O2 -Iinclude $< -o $@

# The GCM kernel, the same way: example_gcm.cubin on the host device.
# AES-NI and PCLMULQDQ come from target attributes, chosen at run time.
HOST_KERNELS += $(BUILD)/kernels/example_gcm.so

$(BUILD)/kernels/example_gcm.so: examples/crypto/gcm_aes.cu examples/crypto/gcm_kernel.h \
		examples/crypto/aes_device.h include/lake/kernel.h include/lake/kernel_abi.h \
		include/lake/kernel_sig.h
	@mkdir -p $(@D)
	$(CC) -std=gnu11 -Wall -Wextra -Werror -x c -shared -fPIC -O2 -Iinclude $< -o $@
