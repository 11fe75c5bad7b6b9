# examples/crypto's XTS-AES kernel on the host device, through its CUDA API
# (IEEE 1619 vectors, both CPU paths). Recursive: laked.mk, read after this
# file, defines the driver's sources.
UNIT_TESTS += crypto_xts
UNIT_SRCS_crypto_xts = $(LAKED_DRIVER_SRCS)
UNIT_LIBS_crypto_xts := -lpthread -ldl
