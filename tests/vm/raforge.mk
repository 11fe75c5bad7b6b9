# A hostile laked for the readahead VM case (tests only): readahead.cu built
# for the host device with every class forged to 255, out of any model's
# range. The case serves it as readahead.so from a module directory of its
# own; lake_readahead must refuse the reply and decide on the CPU.
HOST_KERNELS += $(BUILD)/kernels/readahead_forge.so

$(BUILD)/kernels/readahead_forge.so: examples/readahead/readahead.cu examples/readahead/ra_kernel.h \
		include/lake/kernel.h include/lake/kernel_abi.h include/lake/kernel_sig.h
	@mkdir -p $(@D)
	$(CC) -std=gnu11 -Wall -Wextra -Werror -x c -shared -fPIC -O2 -Iinclude -DRA_FORGE_CLASS=255 \
		$< -o $@
