# laked's genl message handling (tests/fuzz/fuzz_netlink.c), on libnl.
FUZZERS += netlink
FUZZ_SRCS_netlink := laked/log.c common/cu_errors.c
FUZZ_CFLAGS_netlink = $(NL_CFLAGS)
FUZZ_LIBS_netlink = $(NL_LIBS)
# The harness includes netlink.c, to reach its static callbacks.
FUZZ_DEPS_netlink := laked/netlink.c laked/daemon.h laked/laked.h

# Seeds in tests/fuzz/corpus/netlink/ come from gen_netlink_corpus.c:
#   make build/fuzz/gen_netlink_corpus && build/fuzz/gen_netlink_corpus tests/fuzz/corpus/netlink
$(BUILD)/fuzz/gen_netlink_corpus: tests/fuzz/gen_netlink_corpus.c include/uapi/lake/genl.h
	@mkdir -p $(@D)
	$(CC) $(HOST_CFLAGS) $(NL_CFLAGS) $< $(NL_LIBS) -o $@
