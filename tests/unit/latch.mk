# Host test of the async error latch (lakelib/latch_core.c).
UNIT_TESTS += latch
UNIT_SRCS_latch := lakelib/latch_core.c
