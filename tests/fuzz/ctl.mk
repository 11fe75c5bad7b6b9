# lakectl's decoding of the kernel's answers (tests/fuzz/fuzz_ctl.c), on libnl.
FUZZERS += ctl
FUZZ_SRCS_ctl :=
FUZZ_CFLAGS_ctl = $(NL_CFLAGS)
FUZZ_LIBS_ctl = $(NL_LIBS)
# The harness includes lakectl's sources, to reach their static callbacks.
FUZZ_DEPS_ctl := lakectl/lakectl.c lakectl/ipc.c lakectl/ipc.h

# Seeds in tests/fuzz/corpus/ctl/ come from gen_ctl_corpus.c:
#   make build/fuzz/gen_ctl_corpus && build/fuzz/gen_ctl_corpus tests/fuzz/corpus/ctl
$(BUILD)/fuzz/gen_ctl_corpus: tests/fuzz/gen_ctl_corpus.c include/uapi/lake/genl.h
	@mkdir -p $(@D)
	$(CC) $(HOST_CFLAGS) $(NL_CFLAGS) $< $(NL_LIBS) -o $@
