# laked's configuration file parser (tests/fuzz/fuzz_config.c).
FUZZERS += config
FUZZ_SRCS_config := laked/service.c

# Seeds in tests/fuzz/corpus/config/ are hand-written files: the shipped
# one (dist/), and one of each kind of line service.c refuses.
