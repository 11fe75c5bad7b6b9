# lake: top-level build. `make help` lists the targets.
#
# Modules are built with kbuild for every kernel under /lib/modules that has
# headers (or for KVER=..., or against KDIR=...). Each kernel gets its own
# copy of the sources under build/kmod/, since kbuild writes objects next to
# them. User-space programs, tests and benchmarks build on the host.
#
# The kernel list is read when make reads this file, so the targets that
# need deps (which may install kernels) do their work in a sub-make started
# after deps: it reads the list again (see "after deps" below).

SHELL	:= /bin/bash
.DEFAULT_GOAL := all
BUILD	?= build
# Where kernels are looked up, and what installs packages: tests/first-run
# points them at an empty directory and a stand-in that fills it.
MODULES_DIR ?= /lib/modules
DEPS	?= scripts/deps
ALL_KVERS := $(shell for k in $$(ls $(MODULES_DIR) 2>/dev/null | sort -V); do \
		[ -e $(MODULES_DIR)/$$k/build/Makefile ] && echo $$k; done)
ifdef KDIR
KVERS	:= custom
else
KVERS	:= $(if $(KVER),$(KVER),$(ALL_KVERS))
endif
kdir	= $(if $(KDIR),$(KDIR),$(MODULES_DIR)/$(1)/build)

CC	?= cc
CLANG	?= clang
WARN	:= -Wall -Wextra -Werror
HOST_CFLAGS := -std=gnu11 -g $(WARN) -Iinclude -I.
SAN_FLAGS := -O1 -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
NL_CFLAGS = $(shell pkg-config --cflags libnl-genl-3.0 2>/dev/null)
NL_LIBS	= $(shell pkg-config --libs --static libnl-genl-3.0 2>/dev/null)

# Sources kbuild needs, copied per kernel.
KSRC	:= Kbuild include common lakeshm lakelib examples tests/vm/modules tests/kernels bench/vm

UNIT_TESTS :=
BENCHES :=
FUZZERS :=
GUEST_PROGS :=
GUEST_BINS :=
HOST_KERNELS :=
-include tests/unit/*.mk bench/*.mk bench/vm/*.mk tests/fuzz/*.mk laked/*.mk tests/vm/*.mk \
	tests/gpu/*.mk examples/*/*.mk
-include lakectl/*.mk dist/install.mk

.PHONY: all modules user help deps test test-unit test-vm test-vm-rt test-fuzz test-gpu test-system \
	mutate bench \
	demo clean FORCE no-kernel fuzz \
	$(addprefix after-deps-,test test-unit test-fuzz test-vm test-gpu bench demo fuzz)
all: modules user

help:
	@echo "make            modules for every installed kernel (or KVER=/KDIR=) and user programs"
	@echo "make test       every test: unit (ASan/UBSan), fuzz, VM on each kernel, smp1+smp2"
	@echo "make test-unit  host unit tests only (UNIT=name for one)"
	@echo "make test-vm    VM tests only (KVER=, CASE=shm, SMP=1|2)"
	@echo "make test-vm-rt VM tests on Debian's PREEMPT_RT kernel, fetched into build/rt (CASE=, SMP=)"
	@echo "make test-fuzz  fuzzers for FUZZ_SECONDS each"
	@echo "make fuzz       fuzzers for FUZZ_SECONDS (300) or FUZZ_RUNS executions each (FUZZ=names)"
	@echo "make fuzz-guest the in-guest genl fuzzer, 100,000 messages per kernel (GFUZZ_COUNT=, GFUZZ_SEED=)"
	@echo "make fuzz-crypto the crypto case with its request-shape fuzzer long, per kernel (CFUZZ_COUNT=400, CFUZZ_SEED=)"
	@echo "make soak       the soak through laked kills under stress-ng, 600 s per kernel (SOAK_SECONDS=, SOAK_SEED=)"
	@echo "make test-gpu   the GPU check (skipped without an NVIDIA driver)"
	@echo "make test-system the packages on a booted Debian 12: install, reboot, upgrade, purge"
	@echo "make mutate     break the code on purpose: each test must catch its bug (MUTATION=a,b)"
	@echo "make bench      benchmarks"
	@echo "make demo       boot the guest and show lake at work"
	@echo "make deps       install missing Debian packages"

deps:
	@$(DEPS)

# --- kernel modules ------------------------------------------------------

KMOD_STAMPS := $(KVERS:%=$(BUILD)/kmod/%/.built)
modules: $(KMOD_STAMPS)

$(BUILD)/kmod/%/.built: FORCE
	@mkdir -p $(@D)
	@tar -c $(KSRC) | tar -x -C $(@D)
	$(MAKE) -C $(call kdir,$*) M=$(abspath $(@D)) modules 2>&1 | \
		grep -v 'Skipping BTF generation' ; exit $${PIPESTATUS[0]}
	@touch $@

# --- user-space programs -------------------------------------------------

user: $(GUEST_PROGS:%=$(BUILD)/guest/%) $(GUEST_BINS) $(HOST_KERNELS)

# Guest programs are static: the initramfs has no libc.
$(BUILD)/guest/%: tests/vm/progs/%.c tests/vm/progs/vmtest.h
	@mkdir -p $(@D)
	$(CC) -static -O2 $(HOST_CFLAGS) $< -o $@

# --- tests ---------------------------------------------------------------

unit_bin = $(BUILD)/unit/test_$(1)
# A test may name its main file (UNIT_MAIN_x), compiler (UNIT_CC_x) and
# sanitizers (UNIT_SAN_x): the pool test is built again for ThreadSanitizer.
# Every unit build checks laked's lock assertions (laked/lockcheck.h).
define unit_rule
$(call unit_bin,$(1)): $$(or $$(UNIT_MAIN_$(1)),tests/unit/test_$(1).c) $$(UNIT_SRCS_$(1)) \
		$$(wildcard include/lake/*.h include/uapi/lake/*.h laked/*.h)
	@mkdir -p $$(@D)
	$$(or $$(UNIT_CC_$(1)),$$(CC)) $$(HOST_CFLAGS) -DLAKED_LOCK_CHECKS \
		$$(or $$(UNIT_SAN_$(1)),$$(SAN_FLAGS)) \
		$$(UNIT_CFLAGS_$(1)) $$< $$(UNIT_SRCS_$(1)) -lcmocka $$(UNIT_LIBS_$(1)) -o $$@
endef
$(foreach t,$(UNIT_TESTS),$(eval $(call unit_rule,$(t))))

define fuzz_rule
$(BUILD)/fuzz/fuzz_$(1): tests/fuzz/fuzz_$(1).c $$(FUZZ_SRCS_$(1)) $$(FUZZ_DEPS_$(1)) \
		$$(wildcard include/lake/*.h include/uapi/lake/*.h)
	@mkdir -p $$(@D)
	$$(CLANG) -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all $(WARN) \
		-Iinclude -I. $$(FUZZ_CFLAGS_$(1)) \
		$$< $$(FUZZ_SRCS_$(1)) $$(FUZZ_LIBS_$(1)) -o $$@
endef
$(foreach f,$(FUZZERS),$(eval $(call fuzz_rule,$(f))))

define bench_rule
$(BUILD)/bench/bench_$(1): bench/bench_$(1).c $$(BENCH_SRCS_$(1)) \
		$$(wildcard include/lake/*.h include/uapi/lake/*.h)
	@mkdir -p $$(@D)
	$$(CC) -std=gnu11 -O2 $(WARN) -Iinclude -I. $$< $$(BENCH_SRCS_$(1)) $$(BENCH_LIBS_$(1)) -o $$@
endef
$(foreach b,$(BENCHES),$(eval $(call bench_rule,$(b))))

UNIT	?= $(UNIT_TESTS)
unit-bins: $(foreach t,$(UNIT),$(call unit_bin,$(t))) $(HOST_KERNELS)
FUZZ	?= $(FUZZERS)
fuzz-bins: $(FUZZ:%=$(BUILD)/fuzz/fuzz_%)

$(BUILD)/vm/vmlinux-%: /boot/vmlinuz-%
	@mkdir -p $(@D)
	scripts/extract-vmlinux $< $@

$(BUILD)/vm/initramfs-%.cpio: $(BUILD)/kmod/%/.built $(BUILD)/kmod/%/kapi/.built user tests/vm/init tests/vm/vmlib.sh \
		tests/vm/demo.sh $(wildcard tests/vm/cases/*.sh) FORCE
	tests/vm/mkinitramfs $@ $(BUILD)/kmod/$* $(BUILD)/guest $(BUILD)/kernels

vm-images: $(foreach k,$(KVERS),$(BUILD)/vm/vmlinux-$(k) $(BUILD)/vm/initramfs-$(k).cpio)

RUN_ENV = UNIT="$(UNIT)" FUZZ="$(FUZZ)" KVERS="$(KVERS)" SMP="$(SMP)" CASE="$(CASE)" BUILD=$(BUILD)

# --- after deps: a sub-make, which sees the kernels deps just installed ---

test test-unit test-fuzz test-vm test-gpu bench demo fuzz: deps
	@$(MAKE) --no-print-directory after-deps-$@

after-deps-test-unit:
	@$(MAKE) --no-print-directory unit-bins
	@$(RUN_ENV) tests/run unit

after-deps-test-fuzz:
	@$(MAKE) --no-print-directory fuzz-bins
	@$(RUN_ENV) tests/run fuzz

# The long campaign: the same checks, longer, or to a number of executions.
after-deps-fuzz:
	@$(MAKE) --no-print-directory fuzz-bins
	@$(RUN_ENV) FUZZ_SECONDS=$${FUZZ_SECONDS:-300} tests/run fuzz

after-deps-test-vm:
	@$(MAKE) --no-print-directory vm-images
	@$(RUN_ENV) tests/run vm

# Not part of `make test`: it downloads ~80 MB and builds one more kernel's modules.
test-vm-rt: deps
	@$(RUN_ENV) tests/vm/rt

after-deps-test-gpu:
	@$(MAKE) --no-print-directory $(BUILD)/gpu/gpu_check $(BUILD)/gpu/linnos_curve \
		$(BUILD)/gpu/crypto_gpu $(BUILD)/gpu/sysmon_knn $(BUILD)/gpu/readahead_gpu $(HOST_KERNELS)
	@$(RUN_ENV) tests/run gpu

after-deps-test:
	@$(MAKE) --no-print-directory unit-bins fuzz-bins vm-images $(BUILD)/gpu/gpu_check \
		$(BUILD)/gpu/linnos_curve $(BUILD)/gpu/crypto_gpu $(BUILD)/gpu/sysmon_knn $(BUILD)/gpu/readahead_gpu
	@$(RUN_ENV) tests/run all

# No kernel: the guest cannot boot, and saying so is the only honest result.
NEWEST	:= $(lastword $(KVERS))
no-kernel:
	@echo "not ok - vm: no kernel to boot (no headers under $(MODULES_DIR))"; exit 1

# Not part of `make test` (its time budget): .ci/run runs it after. The
# packages installed and used on a Debian 12 system booted under QEMU.
test-system: deps
	@BUILD=$(BUILD) tests/run system

# Each mutation in tests/mutate/mutations must make its test fail (not in `make test`).
mutate: deps
	@tests/mutate/run $(MUTATION)

# Host benchmarks, then lakelib's in one guest boot (newest kernel, 1 CPU),
# and the transport's again on 2 CPUs; every figure in build/bench/results.csv.
after-deps-bench: $(if $(NEWEST),,no-kernel)
	@$(MAKE) --no-print-directory $(BENCHES:%=$(BUILD)/bench/bench_%) \
		vm-images KVERS=$(NEWEST)
	@mkdir -p $(BUILD)/bench
	@for b in $(BENCHES); do $(BUILD)/bench/bench_$$b || exit 1; done | tee $(BUILD)/bench/host.txt
	@VM_MODE=bench tests/vm/run $(NEWEST) 1 >/dev/null; \
		rc=$$?; log=$(BUILD)/vm/$(NEWEST)-smp1-bench.log.txt; grep -E '^bench' $$log; \
		mkdir -p $(BUILD)/linnos && examples/linnos/plot.sh $$log $(BUILD)/linnos/bench.png && \
		echo "bench: LinnOS plot in $(BUILD)/linnos/bench.png"; \
		VM_MODE=bench tests/vm/run $(NEWEST) 2 >/dev/null || rc=1; \
		log2=$(BUILD)/vm/$(NEWEST)-smp2-bench.log.txt; grep -E '^bench' $$log2; \
		scripts/bench-csv $(BUILD)/bench/results.csv $(BUILD)/bench/host.txt $$log $$log2; \
		exit $$rc

after-deps-demo: $(if $(NEWEST),,no-kernel)
	@$(MAKE) --no-print-directory vm-images KVERS=$(NEWEST)
	@VM_MODE=demo tests/vm/run $(NEWEST) 1 >/dev/null; \
		rc=$$?; log=$(BUILD)/vm/$(NEWEST)-smp1-demo.log.txt; grep -E '^(demo:|LAKE_VM)' $$log; \
		mkdir -p $(BUILD)/demo && sed -n 's/^demo-csv: //p' $$log > $(BUILD)/demo/linnos.csv && \
		echo "demo: one row per run in $(BUILD)/demo/linnos.csv"; \
		$(MAKE) --no-print-directory after-deps-demo-sysmon || rc=1; \
		echo "demo: readahead sized by a model (examples/readahead) takes 7 minutes of its own: make demo-readahead"; \
		exit $$rc

clean:
	rm -rf $(BUILD)
