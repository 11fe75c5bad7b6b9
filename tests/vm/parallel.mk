# The host device's build of the kernel the parallel VM case and make bench
# run (tests/kernels/timed.cu); the rule is in tests/unit/laked.mk.
HOST_KERNELS += $(BUILD)/kernels/timed.so
