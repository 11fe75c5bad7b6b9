# Programs that run in the test guest (tests/vm/progs).
GUEST_PROGS += shm_test shm_peek memcpy_bench netns_release aead_cmp sysmon_work
GUEST_BINS += $(BUILD)/guest/genl_probe

$(BUILD)/guest/genl_probe: tests/vm/progs/genl_probe.c tests/vm/progs/vmtest.h include/uapi/lake/genl.h
	@mkdir -p $(@D)
	$(CC) -O2 $(HOST_CFLAGS) $(NL_CFLAGS) $< -o $@ $(shell pkg-config --libs libnl-genl-3.0)

GUEST_BINS += $(BUILD)/guest/portid_spin
$(BUILD)/guest/portid_spin: tests/vm/progs/portid_spin.c tests/vm/progs/vmtest.h include/uapi/lake/genl.h
	@mkdir -p $(@D)
	$(CC) -O2 $(HOST_CFLAGS) $(NL_CFLAGS) $< -o $@ $(shell pkg-config --libs libnl-genl-3.0)

# The in-guest fuzzer encodes and decodes records with the wire codec itself.
GUEST_BINS += $(BUILD)/guest/genl_fuzz
$(BUILD)/guest/genl_fuzz: tests/vm/progs/genl_fuzz.c tests/vm/progs/vmtest.h common/wire.c \
		common/wire_api.c common/ring.c $(wildcard include/lake/*.h include/uapi/lake/*.h)
	@mkdir -p $(@D)
	$(CC) -O2 $(HOST_CFLAGS) $(NL_CFLAGS) $< common/wire.c common/wire_api.c common/ring.c -o $@ \
		$(shell pkg-config --libs libnl-genl-3.0)

# make fuzz-guest: the gfuzz case's long run (tests/vm/cases/27-gfuzz.sh), one
# boot per kernel: GFUZZ_COUNT messages as root and nobody, GFUZZ_ROUNDS
# rounds against the fake daemon, GFUZZ_SEED to replay a run.
GFUZZ_COUNT ?= 100000
GFUZZ_ROUNDS ?= 2000
FUZZ_GUEST_SMP ?= 2
.PHONY: fuzz-guest after-deps-fuzz-guest
fuzz-guest: deps
	@$(MAKE) --no-print-directory after-deps-fuzz-guest
after-deps-fuzz-guest:
	@$(MAKE) --no-print-directory vm-images
	@rc=0; for k in $(KVERS); do \
		GFUZZ_COUNT=$(GFUZZ_COUNT) GFUZZ_ROUNDS=$(GFUZZ_ROUNDS) GFUZZ_SEED=$(GFUZZ_SEED) \
			VM_TIMEOUT=$${VM_TIMEOUT:-1200} BUILD=$(BUILD) \
			tests/vm/run $$k $(FUZZ_GUEST_SMP) gfuzz || rc=1; \
		grep '^# gfuzz' $(BUILD)/vm/$$k-smp$(FUZZ_GUEST_SMP).log.txt; \
	done; exit $$rc

# make fuzz-crypto: the crypto case with its request-shape fuzzer's long
# run (tests/vm/cases/45-crypto.sh, examples/crypto/fuzz.c), one 1-CPU boot
# per kernel: CFUZZ_COUNT requests per algorithm and side, CFUZZ_SEED to
# replay one.
CFUZZ_COUNT ?= 400
.PHONY: fuzz-crypto after-deps-fuzz-crypto
fuzz-crypto: deps
	@$(MAKE) --no-print-directory after-deps-fuzz-crypto
after-deps-fuzz-crypto:
	@$(MAKE) --no-print-directory vm-images
	@rc=0; for k in $(KVERS); do \
		CFUZZ_COUNT=$(CFUZZ_COUNT) CFUZZ_SEED=$(CFUZZ_SEED) \
			VM_TIMEOUT=$${VM_TIMEOUT:-1800} BUILD=$(BUILD) \
			tests/vm/run $$k 1 crypto || rc=1; \
		grep '^# fuzz\|crypto.fuzz\|aead_cmp and fuzz seed' $(BUILD)/vm/$$k-smp1.log.txt; \
	done; exit $$rc

# make soak: the soak case's long run (tests/vm/cases/55-soak.sh), one 2-CPU
# boot per kernel: SOAK_SECONDS of calls through laked's kills under
# stress-ng, SOAK_SEED to replay a schedule.
SOAK_SECONDS ?= 600
.PHONY: soak after-deps-soak
soak: deps
	@$(MAKE) --no-print-directory after-deps-soak
after-deps-soak:
	@$(MAKE) --no-print-directory vm-images
	@rc=0; for k in $(KVERS); do \
		SOAK_SECONDS=$(SOAK_SECONDS) SOAK_SEED=$(SOAK_SEED) \
			VM_TIMEOUT=$$(($(SOAK_SECONDS) + 300)) BUILD=$(BUILD) \
			tests/vm/run $$k 2 soak || rc=1; \
		grep '^# soak' $(BUILD)/vm/$$k-smp2.log.txt; \
	done; exit $$rc
