# LinnOS's model core (examples/linnos): encoding, parser, float reference,
# every CPU path against the scalar one, and the host device's linnos.so.
UNIT_TESTS += linnos
UNIT_SRCS_linnos := examples/linnos/model.c examples/linnos/infer_scalar.c \
	tests/unit/linnos_util.c \
	$(BUILD)/unit/linnos/infer_avx2.o $(BUILD)/unit/linnos/infer_avx512.o
UNIT_LIBS_linnos := -ldl -lm

$(BUILD)/unit/linnos/%.o: examples/linnos/%.c $(wildcard examples/linnos/*.h) include/lake/port.h
	@mkdir -p $(@D)
	$(CC) $(HOST_CFLAGS) $(SAN_FLAGS) $(LINNOS_SIMD_$*) -c $< -o $@
