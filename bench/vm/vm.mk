# The guest half of `make bench` (bench/vm/run.sh): a host-device copy probe.
GUEST_BINS += $(BUILD)/guest/devcopy

$(BUILD)/guest/devcopy: bench/vm/devcopy.c $(LAKED_DRIVER_SRCS) laked/driver.h
	@mkdir -p $(@D)
	$(CC) $(HOST_CFLAGS) -O2 $< $(LAKED_DRIVER_SRCS) -o $@ -ldl -lpthread $(LAKED_HOST_LIBS)
