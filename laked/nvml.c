// SPDX-License-Identifier: GPL-2.0
/*
 * The four NVML calls the load hook needs. NVML's types are declared here
 * from its documented ABI, so laked builds without the NVML headers.
 *
 * The device is NVML index 0, which is CUDA ordinal 0 unless
 * CUDA_VISIBLE_DEVICES or CUDA_DEVICE_ORDER reorders devices. Process ids
 * are compared with getpid(), which is right unless laked runs in a PID
 * namespace that NVML does not see into; it then counts itself as foreign.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>
#include "nvml.h"

#define NVML_LIB			"libnvidia-ml.so.1"
#define NVML_SUCCESS			0
#define NVML_ERROR_INSUFFICIENT_SIZE	7
#define PROCS_INLINE			64

typedef int nvml_return;
typedef struct nvml_device *nvml_device;

struct nvml_utilization {
	unsigned int gpu;	/* percent of the last sample period with a kernel running */
	unsigned int memory;
};

struct nvml_process_info {	/* nvmlProcessInfo_t, as _v2 and _v3 fill it */
	unsigned int pid;
	unsigned long long used_gpu_memory;
	unsigned int gpu_instance_id;
	unsigned int compute_instance_id;
};

struct lake_nvml {
	void *lib;
	nvml_device dev;
	nvml_return (*shutdown)(void);
	nvml_return (*utilization)(nvml_device dev, struct nvml_utilization *util);
	nvml_return (*procs)(nvml_device dev, unsigned int *count,
			     struct nvml_process_info *infos);
};

int lake_nvml_open(struct lake_nvml **out, const char *lib, unsigned int index)
{
	nvml_return (*get_handle)(unsigned int index, nvml_device *dev);
	nvml_return (*init)(void);
	struct lake_nvml *nv;
	int ret = -ENOMEM;

	nv = calloc(1, sizeof(*nv));
	if (!nv)
		return ret;
	ret = -ENOENT;
	nv->lib = dlopen(lib ? lib : NVML_LIB, RTLD_NOW | RTLD_LOCAL);
	if (!nv->lib)
		goto err_free;
	ret = -ENOSYS;
	init = (nvml_return (*)(void))dlsym(nv->lib, "nvmlInit_v2");
	get_handle = (nvml_return (*)(unsigned int, nvml_device *))
		dlsym(nv->lib, "nvmlDeviceGetHandleByIndex_v2");
	nv->shutdown = (nvml_return (*)(void))dlsym(nv->lib, "nvmlShutdown");
	nv->utilization = (nvml_return (*)(nvml_device, struct nvml_utilization *))
		dlsym(nv->lib, "nvmlDeviceGetUtilizationRates");
	nv->procs = (nvml_return (*)(nvml_device, unsigned int *, struct nvml_process_info *))
		dlsym(nv->lib, "nvmlDeviceGetComputeRunningProcesses_v3");
	if (!init || !get_handle || !nv->shutdown || !nv->utilization || !nv->procs)
		goto err_close;
	ret = -ENODEV;
	if (init() != NVML_SUCCESS)
		goto err_close;
	if (get_handle(index, &nv->dev) != NVML_SUCCESS)
		goto err_shutdown;
	*out = nv;
	return 0;

err_shutdown:
	nv->shutdown();
err_close:
	dlclose(nv->lib);
err_free:
	free(nv);
	return ret;
}

/* Compute processes other than this one, or -1 when NVML does not say. */
static int foreign_procs(struct lake_nvml *nv)
{
	struct nvml_process_info inline_infos[PROCS_INLINE], *infos = inline_infos;
	unsigned int count = PROCS_INLINE, i;
	nvml_return r;
	int n = 0;

	r = nv->procs(nv->dev, &count, infos);
	if (r == NVML_ERROR_INSUFFICIENT_SIZE) {
		/* Room for processes that start between the two calls. */
		count += 16;
		infos = calloc(count, sizeof(*infos));
		if (!infos)
			return -1;
		r = nv->procs(nv->dev, &count, infos);
	}
	if (r == NVML_SUCCESS) {
		for (i = 0; i < count; i++)
			n += infos[i].pid != (unsigned int)getpid();
	} else {
		n = -1;
	}
	if (infos != inline_infos)
		free(infos);
	return n;
}

void lake_nvml_sample(struct lake_nvml *nv, struct lake_device_load *out)
{
	struct nvml_utilization util;
	int procs;

	if (nv->utilization(nv->dev, &util) == NVML_SUCCESS) {
		out->util_percent = util.gpu > 100 ? 100 : util.gpu;
		out->flags |= LAKE_DEVICE_LOAD_UTIL;
	}
	procs = foreign_procs(nv);
	if (procs >= 0) {
		out->foreign_procs = (unsigned int)procs;
		out->flags |= LAKE_DEVICE_LOAD_PROCS;
	}
}

void lake_nvml_close(struct lake_nvml *nv)
{
	if (!nv)
		return;
	nv->shutdown();
	dlclose(nv->lib);
	free(nv);
}
