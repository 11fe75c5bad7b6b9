GUEST_PROGS += shm_test shm_peek
