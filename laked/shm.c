// SPDX-License-Identifier: GPL-2.0
/*
 * The shared region (uapi/lake/shm.h). laked maps all of it once; copies
 * name their host buffers by offset into it (DESIGN.md, decision 4). On the
 * CUDA driver the pages are pinned with cuMemHostRegister, so the GPU copies
 * straight from them instead of through a staging buffer (decision 5).
 * Pinning needs a context: laked keeps one of its own for that, created
 * before any of the kernel's and never shown to it. PORTABLE makes the
 * pinning count in every context.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>
#include <uapi/lake/shm.h>
#include "daemon.h"
#include "log.h"

#define SHM_PATH	"/dev/" LAKE_SHM_DEVICE

int laked_shm_open(struct laked_shm *shm)
{
	struct lake_shm_info info;
	void *map;
	int fd, ret;

	memset(shm, 0, sizeof(*shm));
	fd = open(SHM_PATH, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (ioctl(fd, LAKE_SHM_IOC_INFO, &info)) {
		ret = -errno;
		laked_log(LOG_ERR, "%s: LAKE_SHM_IOC_INFO: %s", SHM_PATH, strerrorname_np(-ret));
		goto out;
	}
	ret = -EPROTO;
	if (info.version != LAKE_SHM_VERSION || !info.size || info.size > SIZE_MAX) {
		laked_log(LOG_ERR, "%s: version %u, %llu bytes: not a region laked can use",
			  SHM_PATH, info.version, (unsigned long long)info.size);
		goto out;
	}
	map = mmap(NULL, info.size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED) {
		ret = -errno;
		laked_log(LOG_ERR, "%s: mmap of %llu bytes: %s", SHM_PATH,
			  (unsigned long long)info.size, strerrorname_np(-ret));
		goto out;
	}
	shm->map = map;
	shm->size = info.size;
	ret = 0;
out:
	/* The mapping keeps the region; the descriptor is not needed. */
	close(fd);
	return ret;
}

void laked_shm_pin(struct laked_shm *shm, struct lake_driver *drv)
{
	CUcontext ctx;
	CUdevice dev;
	CUresult r;

	/* The host device copies with memcpy: there is no DMA to pin for. */
	if (!shm->map || strcmp(drv->name, "cuda"))
		return;
	r = drv->cuDeviceGet(&dev, 0);
	if (!r)
		r = drv->cuCtxCreate(&ctx, 0, dev);
	if (r) {
		laked_log(LOG_WARNING, "region not pinned: no context for it: %s",
			  laked_cu_name(r));
		return;
	}
	r = drv->cuMemHostRegister(shm->map, shm->size, CU_MEMHOSTREGISTER_PORTABLE);
	if (r) {
		laked_log(LOG_WARNING, "region not pinned: cuMemHostRegister: %s; copies will be staged",
			  laked_cu_name(r));
		drv->cuCtxDestroy(ctx);
		return;
	}
	shm->pin_ctx = ctx;
	shm->pinned_by = drv;
	laked_log(LOG_INFO, "region pinned for DMA");
}

void laked_shm_close(struct laked_shm *shm)
{
	struct lake_driver *drv = shm->pinned_by;

	if (drv) {
		drv->cuCtxSetCurrent(shm->pin_ctx);
		drv->cuMemHostUnregister(shm->map);
		drv->cuCtxDestroy(shm->pin_ctx);
	}
	if (shm->map)
		munmap(shm->map, shm->size);
	memset(shm, 0, sizeof(*shm));
}
