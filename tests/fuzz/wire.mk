FUZZERS += wire
FUZZ_SRCS_wire := common/wire.c common/wire_api.c

# Seeds in tests/fuzz/corpus/wire/ are encoder output; to regenerate them:
#   cc -std=gnu11 -Iinclude -I. tests/fuzz/gen_wire_corpus.c tests/unit/wire_examples.c \
#      common/wire.c common/wire_api.c -o build/gen_wire_corpus &&
#   build/gen_wire_corpus tests/fuzz/corpus/wire
