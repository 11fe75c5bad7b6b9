# Host unit tests of the policy and registry cores (see tests/unit/test_*.c).
UNIT_TESTS += policy registry
UNIT_SRCS_policy := common/policy_core.c
UNIT_SRCS_registry := common/registry_core.c
