# A CUDA C++ kernel's block on the host device against a C kernel's
# (bench/bench_cxx.c); it loads build/kernels/vadd.so and cxx/bench.so.
BENCHES += cxx
BENCH_SRCS_cxx = $(LAKED_DRIVER_SRCS)
BENCH_LIBS_cxx = -ldl -lpthread $(LAKED_HOST_LIBS)
