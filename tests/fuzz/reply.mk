# lakelib's pairing of laked's replies with its requests (tests/fuzz/fuzz_reply.c).
FUZZERS += reply
FUZZ_SRCS_reply := common/wire.c common/wire_api.c

# Seeds in tests/fuzz/corpus/reply/ are each API's request and reply from the
# wire corpus, back to back:
#   for r in tests/fuzz/corpus/wire/req-*; do a=$${r##*/req-}; \
#     cat $$r tests/fuzz/corpus/wire/rep-$$a > tests/fuzz/corpus/reply/$$a; done
