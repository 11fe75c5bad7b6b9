# tests/gpu/run builds this on a machine with a GPU; it links no CUDA library.
$(BUILD)/gpu/gpu_check: tests/gpu/gpu_check.c $(LAKED_CORE_SRCS) $(wildcard laked/*.h include/lake/*.h)
	@mkdir -p $(@D)
	$(CC) $(HOST_CFLAGS) -O2 $< $(LAKED_CORE_SRCS) -o $@ -ldl -lpthread
