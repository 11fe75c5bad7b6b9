# Programs that run in the test guest (tests/vm/progs).
GUEST_PROGS += shm_test shm_peek memcpy_bench netns_release
GUEST_BINS += $(BUILD)/guest/genl_probe

$(BUILD)/guest/genl_probe: tests/vm/progs/genl_probe.c tests/vm/progs/vmtest.h include/lake/genl.h
	@mkdir -p $(@D)
	$(CC) -O2 $(HOST_CFLAGS) $(NL_CFLAGS) $< -o $@ $(shell pkg-config --libs libnl-genl-3.0)
