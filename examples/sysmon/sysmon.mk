# examples/sysmon's kNN kernels: the host device's build (sysmon_knn.so)
# always, and where nvcc is installed the GPU's (sysmon_knn.fatbin: sm_80
# and sm_90). The module asks for sysmon_knn.fatbin; the host device serves
# sysmon_knn.so for it.
NVCC ?= /usr/local/cuda/bin/nvcc
HOST_KERNELS += $(BUILD)/kernels/sysmon_knn.so
ifneq ($(wildcard $(NVCC)),)
HOST_KERNELS += $(BUILD)/kernels/sysmon_knn.fatbin
endif

$(BUILD)/kernels/sysmon_knn.so: examples/sysmon/knn.cu examples/sysmon/knn.h \
		include/lake/kernel.h include/lake/kernel_abi.h include/lake/kernel_sig.h
	@mkdir -p $(@D)
	$(CC) -std=gnu11 -Wall -Wextra -Werror -x c -shared -fPIC -O2 -Iinclude $< -o $@

$(BUILD)/kernels/sysmon_knn.fatbin: examples/sysmon/knn.cu examples/sysmon/knn.h include/lake/kernel.h
	@mkdir -p $(@D)
	$(NVCC) -fatbin -gencode arch=compute_80,code=sm_80 \
		-gencode arch=compute_90,code=sm_90 -Iinclude $< -o $@

# The reference's loop on the project's own tools (examples/sysmon/train.py):
#   make sysmon-trace   record the reference's workloads in the guest (the sysmon
#                       case with lake_sysmon_record=1): examples/sysmon/ref/windows.csv
#   make sysmon-ref     build examples/sysmon/ref/sysmon.skr from it (k, threshold)
SYSMON_KVER := $(lastword $(KVERS))
.PHONY: sysmon-trace sysmon-ref
sysmon-trace: deps
	@$(MAKE) --no-print-directory vm-images KVERS=$(SYSMON_KVER)
	@SYSMON_RECORD=1 tests/vm/run $(SYSMON_KVER) 1 sysmon >/dev/null; \
		log=$(BUILD)/vm/$(SYSMON_KVER)-smp1.log.txt; \
		sed -n 's/^sysmon-window: //p' $$log > examples/sysmon/ref/windows.csv; \
		echo "sysmon-trace: $$(($$(wc -l < examples/sysmon/ref/windows.csv) - 1)) windows in examples/sysmon/ref/windows.csv"
sysmon-ref:
	/usr/bin/python3 examples/sysmon/train.py examples/sysmon/ref/windows.csv \
		-o examples/sysmon/ref/sysmon.skr

# make demo-sysmon: the sysmon case once (newest kernel, 1 CPU), and what it
# measured: windows flagged per workload (anomalous, reference, never seen),
# the per-batch timing curve on each side and its crossover.
.PHONY: demo-sysmon after-deps-demo-sysmon
demo-sysmon: deps
	@$(MAKE) --no-print-directory after-deps-demo-sysmon
after-deps-demo-sysmon: $(if $(SYSMON_KVER),,no-kernel)
	@$(MAKE) --no-print-directory vm-images KVERS=$(SYSMON_KVER)
	@tests/vm/run $(SYSMON_KVER) 1 sysmon > /dev/null; rc=$$?; \
		log=$(BUILD)/vm/$(SYSMON_KVER)-smp1.log.txt; \
		echo "demo-sysmon: windows scored, flagged, highest score per workload; threshold from the reference:"; \
		sed -n 's/^# sysmon /demo-sysmon: /p' $$log; \
		echo "demo-sysmon: $$(grep -c '^ok - sysmon' $$log) checks passed, $$(grep -c '^not ok - sysmon' $$log) failed"; \
		exit $$rc
