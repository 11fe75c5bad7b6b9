# The host device's build of the kernels the policy VM case runs
# (tests/kernels/policy.cu); the rule is in tests/unit/laked.mk.
HOST_KERNELS += $(BUILD)/kernels/policy.so
