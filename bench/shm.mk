BENCHES += alloc
BENCH_SRCS_alloc := lakeshm/alloc.c lakeshm/avl.c lakeshm/index.c
