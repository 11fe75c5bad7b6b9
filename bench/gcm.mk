# examples/crypto's AES-GCM kernel on the host device, natively: the
# table-free AES and GHASH against AES-NI + PCLMULQDQ (bench_gcm.c).
# Recursive: laked.mk, read later, defines the driver's sources.
BENCHES += gcm
BENCH_SRCS_gcm = $(LAKED_DRIVER_SRCS)
BENCH_LIBS_gcm = -lpthread -ldl $(LAKED_HOST_LIBS)
