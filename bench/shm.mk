BENCHES += alloc
BENCH_SRCS_alloc := lakeshm/alloc.c lakeshm/alloc_check.c lakeshm/avl.c lakeshm/index.c
