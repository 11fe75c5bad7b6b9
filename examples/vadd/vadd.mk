# The host device's build of the example's kernel. It is named example_vadd
# so that it cannot collide with tests/kernels/vadd.cu; the module asks for
# example_vadd.cubin, which the host device serves with this .so.
HOST_KERNELS += $(BUILD)/kernels/example_vadd.so

$(BUILD)/kernels/example_vadd.so: examples/vadd/vadd.cu examples/vadd/vadd_kernel.h \
		include/lake/kernel.h include/lake/kernel_abi.h include/lake/kernel_sig.h
	@mkdir -p $(@D)
	$(CC) -std=gnu11 -Wall -Wextra -Werror -x c -shared -fPIC -O2 -Iinclude $< -o $@
