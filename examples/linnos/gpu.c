// SPDX-License-Identifier: GPL-2.0
/*
 * The GPU side of a batch: feature vectors in a lakeshm buffer, the layer
 * kernels of linnos.cu, one round trip per batch.
 *
 * Setup (first GPU batch, or the first after a failure): a context, the
 * module linnos.fatbin (laked's host device serves linnos.so for it), the
 * three kernels, a stream, device arrays for LINNOS_MAX_VECTORS vectors,
 * and one lakeshm buffer for inputs and results. The weights go to device
 * memory once per model: a batch run with another model than the loaded
 * one first copies that model's linnos_model_export() in (a synchronous
 * copy, once per swap). The GPU side holds a reference to the model it
 * loaded, so "another model" is a pointer compare that no freed and
 * reallocated model can fool.
 *
 * A batch: the inputs are copied into the lakeshm buffer, then one
 * cuMemcpyHtoDAsync, the launches (layer0, 0..2 hidden, output), one
 * cuMemcpyDtoHAsync of the verdicts and one cuStreamSynchronize: lakelib
 * sends the asynchronous calls with the synchronize, one message there and
 * one back. Any failure returns -EIO and drops the setup (the context is
 * destroyed; a laked that died refuses its stale handle, which is fine), so
 * the next GPU batch starts afresh; the caller predicts on the CPU.
 *
 * Everything here runs under the target's gpu_lock (the worker's GPU job,
 * calibration, the bench and compare files): one GPU batch per target at a
 * time, and the context is current only while it runs.
 *
 * Every call into lake runs in a NOIO scope (memalloc_noio_save): lakelib
 * allocates with GFP_KERNEL (call records, netlink messages, packed
 * parameters), and reclaim entered from here must not issue I/O, which
 * may be I/O to this very target, whose reads wait for this batch. The
 * scope makes those allocations GFP_NOIO: they still reclaim clean memory
 * and wait for it, and fail only where a NOIO one would, which lakelib
 * returns as an error (-EIO here: the reads are predicted on the CPU).
 */
#include <linux/sched/mm.h>
#include <lake/shm.h>
#include "target.h"

#define BLOCK		256
#define LINNOS_CUBIN	"linnos.fatbin"

static CUresult gpu_setup(struct linnos_gpu *g)
{
	CUdevice dev;
	CUresult r;
	int i;

	r = cuInit(0);
	if (!r)
		r = cuDeviceGet(&dev, 0);
	if (!r)
		r = cuCtxCreate(&g->ctx, 0, dev);
	if (!r)
		r = cuModuleLoad(&g->mod, LINNOS_CUBIN);
	if (!r)
		r = cuModuleGetFunction(&g->first, g->mod, "linnos_layer0");
	if (!r)
		r = cuModuleGetFunction(&g->hidden, g->mod, "linnos_hidden");
	if (!r)
		r = cuModuleGetFunction(&g->last, g->mod, "linnos_output");
	if (!r)
		r = cuStreamCreate(&g->stream, CU_STREAM_NON_BLOCKING);
	if (!r)
		r = cuMemAlloc(&g->in, LINNOS_MAX_VECTORS * LINNOS_INPUTS);
	for (i = 0; i < 2 && !r; i++)
		r = cuMemAlloc(&g->act[i], LINNOS_MAX_VECTORS * LINNOS_HIDDEN * sizeof(s32));
	if (!r)
		r = cuMemAlloc(&g->z, LINNOS_MAX_VECTORS * LINNOS_OUTPUTS * sizeof(s32));
	if (!r)
		r = cuMemAlloc(&g->slow, LINNOS_MAX_VECTORS);
	return r;
}

/* The model's weights into device memory; 0 or a CUresult. */
static CUresult gpu_load(struct linnos_gpu *g, struct linnos_model *m)
{
	size_t bytes = linnos_model_export(m, NULL, 0);
	CUresult r;
	void *buf;

	if (g->weights)
		cuMemFree(g->weights);
	g->weights = 0;
	linnos_model_free(g->loaded);
	g->loaded = NULL;
	buf = lake_shm_alloc(bytes);
	if (!buf)
		return CUDA_ERROR_OUT_OF_MEMORY;
	linnos_model_export(m, buf, bytes);
	r = cuMemAlloc(&g->weights, bytes);
	if (!r)
		r = cuMemcpyHtoD(g->weights, buf, bytes);
	lake_shm_free(buf);
	if (!r) {
		linnos_model_get(m);
		g->loaded = m;
	}
	return r;
}

static CUresult gpu_exec(struct linnos_gpu *g, const struct linnos_model *m, u32 n)
{
	enum linnos_variant v = linnos_model_variant(m);
	CUdeviceptr w, a = g->act[0], b = g->act[1], t;
	int nn = n;
	void *p0[] = { &w, &g->in, &a, &nn };
	void *ph[] = { &w, &a, &b, &nn };
	void *po[] = { &w, &a, &g->z, &g->slow, &nn };
	CUresult r, sync;
	u32 l, layers = linnos_layers(v);

	r = cuMemcpyHtoDAsync(g->in, g->in_shm, n * LINNOS_INPUTS, g->stream);
	w = g->weights;
	if (!r)
		r = cuLaunchKernel(g->first, DIV_ROUND_UP(n * LINNOS_HIDDEN, BLOCK), 1, 1,
				   BLOCK, 1, 1, 0, g->stream, p0, NULL);
	for (l = 1; l + 1 < layers && !r; l++) {
		/* Parameters are packed at launch: the swap below is safe. */
		w = g->weights + linnos_export_offset(v, l) * sizeof(s32);
		r = cuLaunchKernel(g->hidden, DIV_ROUND_UP(n * LINNOS_HIDDEN, BLOCK), 1, 1,
				   BLOCK, 1, 1, 0, g->stream, ph, NULL);
		t = a;
		a = b;
		b = t;
	}
	w = g->weights + linnos_export_offset(v, layers - 1) * sizeof(s32);
	if (!r)
		r = cuLaunchKernel(g->last, DIV_ROUND_UP(n, BLOCK), 1, 1, BLOCK, 1, 1, 0,
				   g->stream, po, NULL);
	if (!r)
		r = cuMemcpyDtoHAsync(g->slow_shm, g->slow, n, g->stream);
	/* Even after a failure: nothing queued may outlive the batch. */
	sync = cuStreamSynchronize(g->stream);
	return r ? r : sync;
}

static void gpu_release(struct linnos_gpu *g)
{
	/* The context owns the module, stream and device memory. */
	if (g->ctx)
		cuCtxDestroy(g->ctx);
	if (g->in_shm)
		lake_shm_free(g->in_shm);
	linnos_model_free(g->loaded);
	memset(g, 0, sizeof(*g));
}

void linnos_gpu_release(struct linnos_target *lt)
{
	unsigned int noio = memalloc_noio_save();

	lockdep_assert_held(&lt->gpu_lock);
	gpu_release(&lt->gpu);
	memalloc_noio_restore(noio);
}

int linnos_gpu_infer(struct linnos_target *lt, struct linnos_model *m,
		     const u8 *in, u32 n, u8 *out)
{
	struct linnos_gpu *g = &lt->gpu;
	const char *name = "?";
	CUresult r = CUDA_SUCCESS;
	unsigned int noio;

	lockdep_assert_held(&lt->gpu_lock);
	if (!n || n > LINNOS_MAX_VECTORS)
		return -EINVAL;
	noio = memalloc_noio_save();
	if (!g->ready) {
		gpu_release(g);
		g->in_shm = lake_shm_alloc(LINNOS_MAX_VECTORS * (LINNOS_INPUTS + 1));
		if (!g->in_shm) {
			memalloc_noio_restore(noio);
			return -ENOMEM;
		}
		g->slow_shm = g->in_shm + LINNOS_MAX_VECTORS * LINNOS_INPUTS;
		r = gpu_setup(g);
	} else {
		r = cuCtxSetCurrent(g->ctx);
	}
	if (!r && g->loaded != m)
		r = gpu_load(g, m);
	if (!r) {
		memcpy(g->in_shm, in, n * LINNOS_INPUTS);
		r = gpu_exec(g, m, n);
	}
	g->ready = !r;
	cuCtxSetCurrent(NULL);
	memalloc_noio_restore(noio);
	if (r) {
		cuGetErrorName(r, &name);
		pr_warn_ratelimited("linnos: %s: GPU batch failed: %s\n", lt->fb_name, name);
		return -EIO;
	}
	memcpy(out, g->slow_shm, n);
	return 0;
}
