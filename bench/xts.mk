# examples/crypto's XTS-AES kernel on the host device, natively: the
# table-free cipher against AES-NI (bench_xts.c). Recursive: laked.mk,
# read later, defines the driver's sources.
BENCHES += xts
BENCH_SRCS_xts = $(LAKED_DRIVER_SRCS)
BENCH_LIBS_xts = -lpthread -ldl $(LAKED_HOST_LIBS)
