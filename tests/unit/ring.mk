# Host tests of the command ring's core (common/ring.c), the file lakelib.ko
# and laked both build; and a producer/consumer stress under ThreadSanitizer,
# which sees a missing acquire/release as a race on the slot.
UNIT_TESTS += ring ring_tsan
UNIT_SRCS_ring := common/ring.c
UNIT_LIBS_ring := -lpthread
UNIT_MAIN_ring_tsan := tests/unit/test_ring.c
UNIT_SRCS_ring_tsan := common/ring.c
UNIT_CC_ring_tsan = $(CLANG)
UNIT_SAN_ring_tsan := -O1 -fsanitize=thread -fno-omit-frame-pointer
UNIT_LIBS_ring_tsan := -lpthread
