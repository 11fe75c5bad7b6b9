# LinnOS's collect-train-deploy loop on the project's own tools.
#   make linnos-trace    record a trace in the guest (build/linnos/trace.csv)
#   make linnos-weights  train NN, NN+1 and NN+2 on it into examples/linnos/weights/
LINNOS_KVER := $(lastword $(KVERS))
LINNOS_TRACE := $(BUILD)/linnos/trace.csv

.PHONY: linnos-trace linnos-weights
linnos-trace: deps
	@$(MAKE) --no-print-directory vm-images KVERS=$(LINNOS_KVER)
	@mkdir -p $(dir $(LINNOS_TRACE))
	@VM_MODE=trace tests/vm/run $(LINNOS_KVER) 1 >/dev/null; rc=$$?; \
		log=$(BUILD)/vm/$(LINNOS_KVER)-smp1-trace.log.txt; \
		sed -n 's/^trace: //p' $$log | { IFS= read -r head; echo "$$head"; sort -t, -k1,1n; } \
			> $(LINNOS_TRACE); \
		grep '^trace-status' $$log; \
		echo "linnos-trace: $$(($$(wc -l < $(LINNOS_TRACE)) - 1)) reads in $(LINNOS_TRACE)"; exit $$rc

linnos-weights: deps
	/usr/bin/python3 examples/linnos/train.py $(LINNOS_TRACE) -o examples/linnos/weights
