# dm-linnos's table and message arguments (tests/fuzz/fuzz_dm_args.c), from
# the module's own examples/linnos/args.c.
FUZZERS += dm_args
FUZZ_SRCS_dm_args := examples/linnos/args.c
FUZZ_DEPS_dm_args := examples/linnos/args.h

# Seeds in tests/fuzz/corpus/dm_args/ are table lines' options, one argument
# per NUL-separated string (printf 'mode=gpu\0threshold=500\0' > ...).
