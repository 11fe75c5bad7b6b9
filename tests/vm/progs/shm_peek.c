// SPDX-License-Identifier: GPL-2.0
/* shm_peek OFF LEN: map /dev/lake_shm as laked does and hex-dump a buffer. */
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <uapi/lake/shm.h>
#include "vmtest.h"

int main(int argc, char **argv)
{
	struct lake_shm_info info;
	unsigned long long off, len, i;
	unsigned char *map;
	int fd;

	if (argc != 3) {
		fprintf(stderr, "usage: shm_peek OFF LEN\n");
		return 2;
	}
	off = strtoull(argv[1], NULL, 0);
	len = strtoull(argv[2], NULL, 0);
	fd = open("/dev/" LAKE_SHM_DEVICE, O_RDWR);
	if (fd < 0 || ioctl(fd, LAKE_SHM_IOC_INFO, &info)) {
		perror("shm_peek: /dev/" LAKE_SHM_DEVICE);
		return 1;
	}
	if (off >= info.size || len > info.size - off) {
		fprintf(stderr, "shm_peek: %llu+%llu outside the %llu-byte region\n",
			off, len, (unsigned long long)info.size);
		return 1;
	}
	map = mmap(NULL, info.size, PROT_READ, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED) {
		perror("shm_peek: mmap");
		return 1;
	}
	printf("region %llu MiB mapped at %p; bytes at offset %#llx:\n",
	       (unsigned long long)info.size >> 20, (void *)map, off);
	for (i = 0; i < len; i++)
		printf("%02x%s", map[off + i], i % 16 == 15 || i + 1 == len ? "\n" : " ");
	return 0;
}
