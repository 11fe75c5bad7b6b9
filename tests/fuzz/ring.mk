# The kernel's reader of the completion ring (lakelib/ring.c's reap) over
# ring memory a hostile laked wrote (tests/fuzz/fuzz_ring.c).
FUZZERS += ring
FUZZ_SRCS_ring := common/ring.c common/wire.c common/wire_api.c
