# Hot-path cost of the policy decision and of one feature vector.
BENCHES += policy
BENCH_SRCS_policy := lakelib/policy_core.c lakelib/registry_core.c
