# tests/gpu/run builds this on a machine with a GPU; it links no CUDA library.
$(BUILD)/gpu/gpu_check: tests/gpu/gpu_check.c $(LAKED_CORE_SRCS) \
		$(wildcard laked/*.h include/lake/*.h include/uapi/lake/*.h)
	@mkdir -p $(@D)
	$(CC) $(HOST_CFLAGS) -O2 $< $(LAKED_CORE_SRCS) -o $@ -ldl -lpthread $(LAKED_HOST_LIBS)

# LinnOS's per-batch curve on the real driver (tests/gpu/run), or the host device (--host).
LINNOS_CURVE_OBJS := $(addprefix $(BUILD)/gpu/linnos/,model.o infer_scalar.o infer_avx2.o \
	infer_avx512.o)
$(BUILD)/gpu/linnos/%.o: examples/linnos/%.c $(wildcard examples/linnos/*.h) include/lake/port.h
	@mkdir -p $(@D)
	$(CC) $(HOST_CFLAGS) -O2 $(LINNOS_SIMD_$*) -c $< -o $@

$(BUILD)/gpu/linnos_curve: tests/gpu/linnos_curve.c $(LINNOS_CURVE_OBJS) $(LAKED_CORE_SRCS) \
		$(wildcard laked/*.h examples/linnos/*.h include/lake/*.h include/uapi/lake/*.h)
	$(CC) $(HOST_CFLAGS) -O2 $< $(LINNOS_CURVE_OBJS) $(LAKED_CORE_SRCS) -o $@ -ldl -lpthread $(LAKED_HOST_LIBS)

# examples/crypto's kernels on the real driver (tests/gpu/run), or the host device (--host).
$(BUILD)/gpu/crypto_gpu: tests/gpu/crypto_gpu.c $(LAKED_CORE_SRCS) examples/crypto/gcm_kernel.h \
		examples/crypto/xts_kernel.h $(wildcard laked/*.h include/lake/*.h include/uapi/lake/*.h)
	@mkdir -p $(@D)
	$(CC) $(HOST_CFLAGS) -O2 $< $(LAKED_CORE_SRCS) -o $@ -ldl -lpthread $(LAKED_HOST_LIBS)

# examples/sysmon's kNN kernels on the real driver (tests/gpu/run), or the host device (--host).
$(BUILD)/gpu/sysmon_knn: tests/gpu/sysmon_knn.c examples/sysmon/ref.c $(LAKED_CORE_SRCS) \
		$(wildcard laked/*.h examples/sysmon/*.h include/lake/*.h include/uapi/lake/*.h)
	@mkdir -p $(@D)
	$(CC) $(HOST_CFLAGS) -O2 $< examples/sysmon/ref.c $(LAKED_CORE_SRCS) -o $@ -ldl -lpthread $(LAKED_HOST_LIBS)
# examples/readahead's kernel on the real driver (tests/gpu/run), or the host device (--host).
$(BUILD)/gpu/readahead_gpu: tests/gpu/readahead_gpu.c examples/readahead/model.c $(LAKED_CORE_SRCS) \
		$(wildcard laked/*.h examples/readahead/*.h include/lake/*.h include/uapi/lake/*.h)
	@mkdir -p $(@D)
	$(CC) $(HOST_CFLAGS) -O2 $< examples/readahead/model.c $(LAKED_CORE_SRCS) -o $@ -ldl \
		-lpthread $(LAKED_HOST_LIBS)
