# LinnOS's shipped weights as a slow-read classifier (behaviour, held-out
# accuracy) and the offline evaluation (examples/linnos/evaluate.c).
UNIT_TESTS += linnos_weights
UNIT_SRCS_linnos_weights := examples/linnos/model.c examples/linnos/infer_scalar.c \
	examples/linnos/evaluate.c tests/unit/linnos_util.c \
	$(BUILD)/unit/linnos/infer_avx2.o $(BUILD)/unit/linnos/infer_avx512.o
UNIT_LIBS_linnos_weights := -lm
