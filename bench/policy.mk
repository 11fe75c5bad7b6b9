# Hot-path cost of the policy decision and of one feature vector.
BENCHES += policy
BENCH_SRCS_policy := common/policy_core.c common/registry_core.c
