# LinnOS's weight-file parser (tests/fuzz/fuzz_linnos_model.c); the SIMD
# paths get their instruction sets as in Kbuild.
FUZZERS += linnos_model
FUZZ_SRCS_linnos_model := examples/linnos/model.c examples/linnos/infer_scalar.c \
	tests/unit/linnos_util.c \
	$(BUILD)/fuzz/linnos/infer_avx2.o $(BUILD)/fuzz/linnos/infer_avx512.o

$(BUILD)/fuzz/linnos/%.o: examples/linnos/%.c $(wildcard examples/linnos/*.h)
	@mkdir -p $(@D)
	$(CLANG) -g -O1 -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all $(WARN) -Iinclude -I. \
		$(LINNOS_SIMD_$*) -c $< -o $@

# Seeds in tests/fuzz/corpus/linnos_model/ come from gen_linnos_corpus.c:
#   make build/fuzz/gen_linnos_corpus && build/fuzz/gen_linnos_corpus tests/fuzz/corpus/linnos_model
$(BUILD)/fuzz/gen_linnos_corpus: tests/fuzz/gen_linnos_corpus.c $(UNIT_SRCS_linnos)
	@mkdir -p $(@D)
	$(CC) $(HOST_CFLAGS) $(SAN_FLAGS) $^ -lm -o $@
