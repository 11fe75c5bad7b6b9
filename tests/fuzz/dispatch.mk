# laked's dispatcher on the host device (tests/fuzz/fuzz_dispatch.c). Its
# sources are laked/daemon.mk's, which the top Makefile includes later:
# hence the recursive assignment.
FUZZERS += dispatch
FUZZ_SRCS_dispatch = $(LAKED_CORE_SRCS)
FUZZ_LIBS_dispatch = $(LAKED_HOST_LIBS)

# Seeds in tests/fuzz/corpus/dispatch/ are encoder output; to regenerate them:
#   cc -std=gnu11 -Iinclude -I. tests/fuzz/gen_dispatch_corpus.c common/wire.c \
#      common/wire_api.c -o build/gen_dispatch_corpus &&
#   build/gen_dispatch_corpus tests/fuzz/corpus/dispatch
