# Host test of the async error latch (common/latch_core.c).
UNIT_TESTS += latch
UNIT_SRCS_latch := common/latch_core.c
UNIT_CFLAGS_latch := -Dlake_port_malloc_atomic=latch_test_malloc
