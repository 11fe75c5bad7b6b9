# examples/readahead's GPU kernel: the host device's build (readahead.so)
# always, and where nvcc is installed the GPU's (readahead.fatbin: sm_80 and
# sm_90). The module asks for readahead.fatbin; the host device serves
# readahead.so for it.
HOST_KERNELS += $(BUILD)/kernels/readahead.so
ifneq ($(wildcard $(NVCC)),)
HOST_KERNELS += $(BUILD)/kernels/readahead.fatbin
endif

$(BUILD)/kernels/readahead.so: examples/readahead/readahead.cu examples/readahead/ra_kernel.h \
		include/lake/kernel.h include/lake/kernel_abi.h include/lake/kernel_sig.h
	@mkdir -p $(@D)
	$(CC) -std=gnu11 -Wall -Wextra -Werror -x c -shared -fPIC -O2 -Iinclude $< -o $@

$(BUILD)/kernels/readahead.fatbin: examples/readahead/readahead.cu examples/readahead/ra_kernel.h \
		include/lake/kernel.h
	@mkdir -p $(@D)
	$(NVCC) -fatbin -gencode arch=compute_80,code=sm_80 \
		-gencode arch=compute_90,code=sm_90 -Iinclude $< -o $@

# The collect-train-deploy loop and the demo (one guest boot each, newest kernel, 1 CPU):
#   make readahead-trace    the sweep and the exporter's windows:
#                           build/readahead/{sweep.txt,trace.csv}
#   make readahead-weights  train.py on them: examples/readahead/weights/
#                           (readahead.lkra, and the recording it came from)
#   make demo-readahead     default vs best fixed vs model per phase (a table, and its
#                           figures in build/bench/readahead.csv)
RA_KVER := $(lastword $(KVERS))
RA_WEIGHTS := examples/readahead/weights

.PHONY: readahead-trace readahead-weights demo-readahead
readahead-trace: deps
	@$(MAKE) --no-print-directory vm-images KVERS=$(RA_KVER)
	@mkdir -p $(BUILD)/readahead
	@VM_MEM=1G VM_TIMEOUT=900 VM_MODE=ratrace tests/vm/run $(RA_KVER) 1 >/dev/null; rc=$$?; \
		log=$(BUILD)/vm/$(RA_KVER)-smp1-ratrace.log.txt; \
		sed -n 's/^ra-sweep //p' $$log > $(BUILD)/readahead/sweep.txt; \
		sed -n 's/^ra-trace: //p' $$log > $(BUILD)/readahead/trace.csv; \
		cat $(BUILD)/readahead/sweep.txt; \
		echo "readahead-trace: $$(($$(wc -l < $(BUILD)/readahead/trace.csv) - 1)) windows"; \
		exit $$rc

readahead-weights: deps
	cp $(BUILD)/readahead/sweep.txt $(BUILD)/readahead/trace.csv $(RA_WEIGHTS)/
	/usr/bin/python3 examples/readahead/train.py $(RA_WEIGHTS)/trace.csv \
		--sweep $(RA_WEIGHTS)/sweep.txt -o $(RA_WEIGHTS)/readahead.lkra \
		--check-out $(RA_WEIGHTS)/check.txt

demo-readahead: deps
	@$(MAKE) --no-print-directory vm-images KVERS=$(RA_KVER)
	@VM_MEM=1G VM_TIMEOUT=1200 VM_MODE=rademo tests/vm/run $(RA_KVER) 1 >/dev/null; rc=$$?; \
		log=$(BUILD)/vm/$(RA_KVER)-smp1-rademo.log.txt; \
		grep -E '^(demo:|ra-demo)' $$log; \
		mkdir -p $(BUILD)/demo && sed -n 's/^ra-demo //p' $$log > $(BUILD)/demo/readahead.txt && \
		examples/readahead/table.sh $(BUILD)/demo/readahead.txt > $(BUILD)/demo/readahead-table.txt || rc=1; \
		cat $(BUILD)/demo/readahead-table.txt; \
		mkdir -p $(BUILD)/bench && grep '^bench' $(BUILD)/demo/readahead-table.txt | \
		scripts/bench-csv $(BUILD)/bench/readahead.csv && \
		echo "demo: rows in $(BUILD)/bench/readahead.csv"; exit $$rc
