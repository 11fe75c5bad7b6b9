UNIT_TESTS += shm_alloc
UNIT_SRCS_shm_alloc := lakeshm/alloc.c lakeshm/alloc_check.c lakeshm/avl.c lakeshm/index.c
