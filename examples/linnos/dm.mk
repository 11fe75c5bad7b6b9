# LinnOS's collect-train-deploy loop on the project's own tools.
#   make linnos-trace    record traces in the guest: build/linnos/trace-S.csv per seed S
#                        (LINNOS_SEEDS: 101..104 train, 201 is held out)
#   make linnos-weights  train NN, NN+1 and NN+2 on them into examples/linnos/weights/
#   make linnos-eval     false submits and revokes of each model on a held-out trace
#                        (TRACE=, default the shipped one; MODEL= one .lnw, default all three)
LINNOS_KVER := $(lastword $(KVERS))
LINNOS_TRAIN_SEEDS := 101 102 103 104
LINNOS_HELD_SEED := 201
LINNOS_SEEDS := $(LINNOS_TRAIN_SEEDS) $(LINNOS_HELD_SEED)
LINNOS_SECS := 16
LINNOS_HELDOUT := tests/unit/data/linnos-heldout.csv
# The held-out file shipped for the unit test: this many reads of trace-201.
LINNOS_HELDOUT_ROWS := 12000
LINNOS_TRACE_HEAD := ts_ns,dev,pending,lat_us,hist_lat0,hist_lat1,hist_lat2,hist_lat3,$\
	hist_pend0,hist_pend1,hist_pend2,hist_pend3

.PHONY: linnos-trace linnos-weights linnos-eval
linnos-trace: deps
	@$(MAKE) --no-print-directory vm-images KVERS=$(LINNOS_KVER)
	@mkdir -p $(BUILD)/linnos
	@TRACE_SECS=$(LINNOS_SECS) TRACE_SEEDS=$(shell echo $(LINNOS_SEEDS) | tr ' ' ,) \
		VM_TIMEOUT=600 VM_MODE=trace tests/vm/run $(LINNOS_KVER) 1 >/dev/null; rc=$$?; \
		log=$(BUILD)/vm/$(LINNOS_KVER)-smp1-trace.log.txt; \
		for s in $(LINNOS_SEEDS); do \
			f=$(BUILD)/linnos/trace-$$s.csv; \
			{ echo $(LINNOS_TRACE_HEAD); \
			  sed -n "s/^trace $$s: //p" $$log | sort -t, -k1,1n; } > $$f; \
			grep "^trace-s[a-z]* $$s:" $$log; \
			echo "linnos-trace: $$(($$(wc -l < $$f) - 1)) reads in $$f"; \
		done; exit $$rc

# Trains on the training seeds, reports on the held-out one (all of it);
# the shipped held-out file, which the unit test judges the weights by, is
# its first LINNOS_HELDOUT_ROWS reads, and weights/heldout.txt train.py's
# counts on it. The threshold: examples/linnos/README.md, "Training".
# NN+2 on a smaller sample, one epoch: its 256x256 layers take the most time.
LINNOS_TRAIN = /usr/bin/python3 examples/linnos/train.py \
	$(foreach s,$(LINNOS_TRAIN_SEEDS),$(BUILD)/linnos/trace-$(s).csv) \
	--held-out $(BUILD)/linnos/trace-$(LINNOS_HELD_SEED).csv --threshold-us 1000 \
	-o examples/linnos/weights --eval $(LINNOS_HELDOUT)
linnos-weights: deps
	@mkdir -p $(dir $(LINNOS_HELDOUT))
	head -n $$(($(LINNOS_HELDOUT_ROWS) + 1)) $(BUILD)/linnos/trace-$(LINNOS_HELD_SEED).csv \
		> $(LINNOS_HELDOUT)
	$(LINNOS_TRAIN) --variants 0,1 --check-out $(BUILD)/linnos/check01.txt \
		--eval-out $(BUILD)/linnos/heldout01.txt
	$(LINNOS_TRAIN) --variants 2 --max-train 20000 --epochs 10,3,1 \
		--check-out $(BUILD)/linnos/check2.txt --eval-out $(BUILD)/linnos/heldout2.txt
	cat $(BUILD)/linnos/check01.txt > examples/linnos/weights/check.txt
	grep -v '^#' $(BUILD)/linnos/check2.txt >> examples/linnos/weights/check.txt
	cat $(BUILD)/linnos/heldout01.txt > examples/linnos/weights/heldout.txt
	grep '^2' $(BUILD)/linnos/heldout2.txt >> examples/linnos/weights/heldout.txt

TRACE ?= $(LINNOS_HELDOUT)
MODEL ?= $(wildcard examples/linnos/weights/*.lnw)
linnos-eval: $(BUILD)/linnos/linnos_eval
	$(BUILD)/linnos/linnos_eval $(TRACE) $(MODEL)

LINNOS_EVAL_SRCS := examples/linnos/eval.c examples/linnos/evaluate.c examples/linnos/model.c \
	examples/linnos/infer_scalar.c
$(BUILD)/linnos/linnos_eval: $(LINNOS_EVAL_SRCS) $(BUILD)/linnos/infer_avx2.o \
		$(BUILD)/linnos/infer_avx512.o $(wildcard examples/linnos/*.h) include/lake/port.h
	@mkdir -p $(@D)
	$(CC) $(HOST_CFLAGS) -O2 -o $@ $(LINNOS_EVAL_SRCS) $(BUILD)/linnos/infer_avx2.o \
		$(BUILD)/linnos/infer_avx512.o

$(BUILD)/linnos/%.o: examples/linnos/%.c $(wildcard examples/linnos/*.h) include/lake/port.h
	@mkdir -p $(@D)
	$(CC) $(HOST_CFLAGS) -O2 $(LINNOS_SIMD_$*) -c $< -o $@
