// SPDX-License-Identifier: GPL-2.0
/*
 * The GPU side of a batch: the windows' inputs in a lakeshm buffer, one
 * launch of readahead.cu's kernel (one thread per window), the classes
 * back, one round trip (lakelib sends the asynchronous calls with the
 * synchronize). Setup, on the first GPU batch or the first after a failure:
 * a context, readahead.fatbin (laked's host device serves readahead.so for
 * it), the function looked up against ra_kernel.h's signature, a stream,
 * device arrays for RA_MAX_DEVS windows. The weights are copied to device
 * memory once per model (model_gen). Any failure returns -EIO and drops the
 * setup (a laked that died refuses the stale context, which is fine); the
 * caller infers that batch on the CPU. So does a class out of the model's
 * range: laked's reply is checked before it indexes anything.
 */
#include <linux/random.h>
#include <lake/fallback.h>
#include <lake/lakelib.h>
#include <lake/shm.h>
#include "readahead.h"
#include "ra_kernel.h"

#define RA_CUBIN	"readahead.fatbin"
#define BLOCK		64
#define CALIB_ROUNDS	8

LAKE_KERNEL_SIG(readahead_infer, RA_KERNEL_PARAMS);

static CUresult gpu_setup(struct ra_gpu *g)
{
	CUdevice dev;
	CUresult r;

	r = cuInit(0);
	if (!r)
		r = cuDeviceGet(&dev, 0);
	if (!r)
		r = cuCtxCreate(&g->ctx, 0, dev);
	if (!r)
		r = cuModuleLoad(&g->mod, RA_CUBIN);
	if (!r)
		r = lake_module_get_function(&g->fn, g->mod, &lake_sig_readahead_infer);
	if (!r)
		r = cuStreamCreate(&g->stream, CU_STREAM_NON_BLOCKING);
	if (!r)
		r = cuMemAlloc(&g->in, RA_MAX_DEVS * RA_INPUTS * sizeof(u16));
	if (!r)
		r = cuMemAlloc(&g->cls, RA_MAX_DEVS);
	if (!r) {
		g->in_shm = lake_shm_alloc(RA_MAX_DEVS * RA_INPUTS * sizeof(u16));
		g->cls_shm = lake_shm_alloc(RA_MAX_DEVS);
		if (!g->in_shm || !g->cls_shm)
			r = CUDA_ERROR_OUT_OF_MEMORY;
	}
	return r;
}

static CUresult gpu_load(struct ra_gpu *g, const struct ra_model *m, u64 gen)
{
	size_t bytes = m->nr_params * sizeof(s32);
	CUresult r;
	void *buf;

	if (g->wb)
		cuMemFree(g->wb);
	g->wb = 0;
	g->model_gen = 0;
	buf = lake_shm_alloc(bytes);
	if (!buf)
		return CUDA_ERROR_OUT_OF_MEMORY;
	memcpy(buf, m->params, bytes);
	r = cuMemAlloc(&g->wb, bytes);
	if (!r)
		r = cuMemcpyHtoD(g->wb, buf, bytes);
	lake_shm_free(buf);
	if (!r)
		g->model_gen = gen;
	return r;
}

static CUresult gpu_exec(struct ra_gpu *g, const struct ra_model *m, u32 n)
{
	int hidden = m->hidden, classes = m->classes, nn = n;
	void *params[] = { &g->wb, &hidden, &classes, &g->in, &g->cls, &nn };
	CUresult r, sync;

	r = cuMemcpyHtoDAsync(g->in, g->in_shm, n * RA_INPUTS * sizeof(u16), g->stream);
	if (!r)
		r = cuLaunchKernel(g->fn, DIV_ROUND_UP(n, BLOCK), 1, 1, BLOCK, 1, 1, 0,
				   g->stream, params, NULL);
	if (!r)
		r = cuMemcpyDtoHAsync(g->cls_shm, g->cls, n, g->stream);
	/* Even after a failure: nothing queued may outlive the batch. */
	sync = cuStreamSynchronize(g->stream);
	return r ? r : sync;
}

void ra_gpu_release(void)
{
	struct ra_gpu *g = &ra.gpu;

	/* The context owns the module, stream and device memory. */
	if (g->ctx)
		cuCtxDestroy(g->ctx);
	if (g->in_shm)
		lake_shm_free(g->in_shm);
	if (g->cls_shm)
		lake_shm_free(g->cls_shm);
	memset(g, 0, sizeof(*g));
}

/* Under gpu_lock; @gen names @m's weights. */
static int gpu_infer_locked(const struct ra_model *m, u64 gen, const u16 *in, u32 n, u8 *cls)
{
	struct ra_gpu *g = &ra.gpu;
	const char *name = "?";
	CUresult r;
	u32 i;

	if (!n || n > RA_MAX_DEVS)
		return -EINVAL;
	if (!g->ready) {
		ra_gpu_release();
		r = gpu_setup(g);
	} else {
		r = cuCtxSetCurrent(g->ctx);
	}
	if (!r && g->model_gen != gen)
		r = gpu_load(g, m, gen);
	if (!r) {
		memcpy(g->in_shm, in, n * RA_INPUTS * sizeof(u16));
		r = gpu_exec(g, m, n);
	}
	g->ready = !r;
	cuCtxSetCurrent(NULL);
	if (r) {
		cuGetErrorName(r, &name);
		pr_warn_ratelimited("lake_readahead: GPU batch failed: %s\n", name);
		return -EIO;
	}
	memcpy(cls, g->cls_shm, n);
	/* laked is not trusted: a class indexes m->kib[]. */
	for (i = 0; i < n; i++) {
		if (cls[i] >= m->classes) {
			pr_warn_ratelimited("lake_readahead: GPU batch refused: class %u of %u\n",
					    cls[i], m->classes);
			g->ready = false;
			return -EIO;
		}
	}
	return 0;
}

/* The caller holds work_lock: ra.model and ra.model_gen stand still. */
int ra_gpu_infer(const struct ra_model *m, const u16 *in, u32 n, u8 *cls)
{
	int ret;

	mutex_lock(&ra.gpu_lock);
	ret = gpu_infer_locked(m, ra.model_gen, in, n, cls);
	mutex_unlock(&ra.gpu_lock);
	return ret;
}

/*
 * lake_fallback_calibrate()'s made-up batches: random inputs in range,
 * drawn once per calibration (under work_lock), so that the timed calls
 * are inference alone.
 */
static u16 calib_in[RA_MAX_DEVS * RA_INPUTS];

static int calib_run(void *arg, enum lake_target side, u32 n)
{
	const struct ra_model *m = arg;
	u8 cls[RA_MAX_DEVS];

	if (side == LAKE_TARGET_GPU)
		return ra_gpu_infer(m, calib_in, n, cls);
	ra_infer_batch(m, calib_in, n, cls);
	return 0;
}

/* Under ctl_lock: time both sides at batch 1..RA_MAX_DEVS. */
int ra_calibrate(void)
{
	int ret = -ENOENT;
	u32 i;

	mutex_lock(&ra.work_lock);
	if (ra.model) {
		lake_fallback_set_crossover(ra.fb, 0);
		for (i = 0; i < ARRAY_SIZE(calib_in); i++)
			calib_in[i] = get_random_u32_below(RA_ONE + 1);
		ret = lake_fallback_calibrate(ra.fb, CALIB_ROUNDS, calib_run, ra.model);
		if (ret)
			lake_fallback_set_crossover(ra.fb, RA_MAX_DEVS);
	}
	mutex_unlock(&ra.work_lock);
	if (ret)
		pr_err("lake_readahead: calibration failed: %d\n", ret);
	return ret;
}
