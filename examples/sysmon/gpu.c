// SPDX-License-Identifier: GPL-2.0
/*
 * lake_sysmon's GPU side (sysmon.c's essay has the policy): the context,
 * knn.cu's kernels and the reference on laked, a batch's round trip,
 * calibration's runs and the bench. All under sm_lock.
 */
#define pr_fmt(fmt) "lake_sysmon: " fmt

#include <linux/ktime.h>
#include <linux/minmax.h>
#include <linux/sched.h>
#include <lake/cuda.h>
#include <lake/lakelib.h>
#include <lake/shm.h>
#include "sysmon.h"

#define BENCH_ROUNDS	5
#define BLOCK		256

LAKE_KERNEL_SIG(sysmon_dist, SYSMON_DIST_PARAMS);
LAKE_KERNEL_SIG(sysmon_topk, SYSMON_TOPK_PARAMS);

static struct {
	bool ready;
	u32 gen;		/* the reference uploaded */
	CUcontext ctx;
	CUmodule mod;
	CUfunction dist, topk;
	CUstream stream;
	CUdeviceptr refs, q, d2, score;
	u16 *hq;		/* lakeshm: max_batch windows, then max_batch scores */
	u32 *hscore;
} gpu;

/* The bench's rows, read from lake/sysmon/bench; the GPU side's scores. */
char bench_text[2048];
static u32 bench_gpu[1024];			/* max_batch at most */

static void gpu_free_ref(void)
{
	if (gpu.refs)
		cuMemFree(gpu.refs);
	if (gpu.d2)
		cuMemFree(gpu.d2);
	gpu.refs = 0;
	gpu.d2 = 0;
	gpu.gen = 0;
}

static CUresult gpu_setup(void)
{
	CUdevice dev;
	CUresult r;

	/* Left by a failure: a live laked frees it, a new one refuses it. */
	if (gpu.ctx)
		cuCtxDestroy(gpu.ctx);
	/* Everything below was the old context's (gone with it, or with laked). */
	gpu.ctx = NULL;
	gpu.stream = NULL;
	gpu.refs = gpu.q = gpu.d2 = gpu.score = 0;
	gpu.gen = 0;
	r = cuInit(0);
	if (!r)
		r = cuDeviceGet(&dev, 0);
	if (!r)
		r = cuCtxCreate(&gpu.ctx, 0, dev);
	if (!r)
		r = cuModuleLoad(&gpu.mod, "sysmon_knn.fatbin");
	if (!r)
		r = lake_module_get_function(&gpu.dist, gpu.mod, &lake_sig_sysmon_dist);
	if (!r)
		r = lake_module_get_function(&gpu.topk, gpu.mod, &lake_sig_sysmon_topk);
	if (!r)
		r = cuMemAlloc(&gpu.q, (size_t)max_batch * SYSMON_DIMS * sizeof(u16));
	if (!r)
		r = cuMemAlloc(&gpu.score, (size_t)max_batch * sizeof(u32));
	if (!r)
		r = cuStreamCreate(&gpu.stream, CU_STREAM_NON_BLOCKING);
	return r;
}

/* The reference on the device, once per file. */
static CUresult gpu_upload(const struct sysmon_ref *rf)
{

	size_t bytes = (size_t)rf->count * SYSMON_DIMS * sizeof(u16);
	void *host;
	CUresult r;

	/* Through lakeshm, by offset: no bounce chunk for a one-off copy. */
	host = lake_shm_alloc(bytes);
	if (!host)
		return CUDA_ERROR_OUT_OF_MEMORY;
	memcpy(host, rf->rows, bytes);
	gpu_free_ref();
	r = cuMemAlloc(&gpu.refs, bytes);
	if (!r)
		r = cuMemAlloc(&gpu.d2, (size_t)max_batch * rf->count * sizeof(u32));
	if (!r)
		r = cuMemcpyHtoD(gpu.refs, host, bytes);
	lake_shm_free(host);
	if (!r) {
		gpu.gen = ref_gen;
	}
	return r;
}

static CUresult gpu_exec(const struct sysmon_ref *rf, const u16 *q, u32 nq, u32 *out)
{
	int inq = nq, cnt = rf->count, k = rf->k;
	void *pd[] = { &gpu.q, &gpu.refs, &gpu.d2, &inq, &cnt };
	void *pt[] = { &gpu.d2, &gpu.score, &inq, &cnt, &k };
	u64 threads = (u64)nq * rf->count;
	CUresult r, sync;

	memcpy(gpu.hq, q, (size_t)nq * SYSMON_DIMS * sizeof(u16));
	r = cuMemcpyHtoDAsync(gpu.q, gpu.hq, (size_t)nq * SYSMON_DIMS * sizeof(u16), gpu.stream);
	if (!r)
		r = cuLaunchKernel(gpu.dist, DIV_ROUND_UP(threads, BLOCK), 1, 1, BLOCK, 1, 1,
				   0, gpu.stream, pd, NULL);
	if (!r)
		r = cuLaunchKernel(gpu.topk, DIV_ROUND_UP(nq, 64), 1, 1, 64, 1, 1,
				   0, gpu.stream, pt, NULL);
	if (!r)
		r = cuMemcpyDtoHAsync(gpu.hscore, gpu.score, nq * sizeof(u32), gpu.stream);
	/* Even after a failure: nothing queued may outlive the batch. */
	sync = cuStreamSynchronize(gpu.stream);
	if (!r)
		r = sync;
	if (!r)
		memcpy(out, gpu.hscore, nq * sizeof(u32));
	return r;
}

/*
 * Under sm_lock: 0 and in *ns the batch's own time (not the context's
 * setup or the reference's upload, which a first batch also does), or
 * -EIO, logged and counted. The caller tells the policy: calibration
 * reports its failures itself.
 */
int sm_gpu_score(const struct sysmon_ref *rf, const u16 *q, u32 nq, u32 *out, u64 *ns)
{
	const char *name = "?";
	CUresult r;
	u64 t0;

	r = gpu.ready ? cuCtxSetCurrent(gpu.ctx) : gpu_setup();
	if (!r && gpu.gen != ref_gen)
		r = gpu_upload(rf);
	t0 = ktime_get_ns();
	if (!r)
		r = gpu_exec(rf, q, nq, out);
	*ns = ktime_get_ns() - t0;
	gpu.ready = !r;
	cuCtxSetCurrent(NULL);
	if (r) {
		cuGetErrorName(r, &name);
		pr_warn_ratelimited("GPU batch failed: %s\n", name);
		atomic64_inc(&sm_st.gpu_errors);
		return -EIO;
	}
	return 0;
}

/* The host buffer for a batch's windows and scores, in lakeshm. */
int sm_gpu_init(void)
{
	gpu.hq = lake_shm_alloc((size_t)max_batch * (SYSMON_DIMS * sizeof(u16) + sizeof(u32)));
	if (!gpu.hq)
		return -ENOMEM;
	gpu.hscore = (u32 *)(gpu.hq + (size_t)max_batch * SYSMON_DIMS);
	return 0;
}

void sm_gpu_teardown(void)
{
	if (gpu.ctx) {
		/* Frees everything of ours in laked, if laked is still there. */
		cuCtxDestroy(gpu.ctx);
		gpu.ctx = NULL;
	}
	if (gpu.hq)
		lake_shm_free(gpu.hq);
	gpu.hq = NULL;
}

/* A made-up batch: reference windows, shifted so no score is 0. */
static void fake_batch(const struct sysmon_ref *rf, u32 nq)
{
	u32 i, j;

	for (i = 0; i < nq; i++) {
		const u16 *r = rf->rows + (size_t)((i * 7u) % rf->count) * SYSMON_DIMS;
		u16 *f = feat + (size_t)i * SYSMON_DIMS;

		for (j = 0; j < SYSMON_DIMS; j++)
			f[j] = min_t(u32, r[j] + ((i + j) % 5) * 37, SYSMON_FEAT_MAX);
	}
}

/* lake_fallback_calibrate() times this and reports a failure itself. */
int sm_calib_run(void *arg, enum lake_target side, u32 nq)
{
	u64 ns;

	fake_batch(cur_ref, nq);
	if (side == LAKE_TARGET_GPU)
		return sm_gpu_score(cur_ref, feat, nq, score, &ns);
	sm_cpu_score(cur_ref, feat, nq, score);
	return 0;
}

/* Under sm_lock: the best of BENCH_ROUNDS on each side, and whether they agree. */
int sm_bench(const u32 *sizes, u32 n)
{
	const struct sysmon_ref *rf = cur_ref;
	size_t len = 0;
	u32 i, crossover = 0;
	int ret = 0;

	len += scnprintf(bench_text + len, sizeof(bench_text) - len,
			 "refs %u k %u dims %u\n", rf->count, rf->k, SYSMON_DIMS);
	for (i = 0; i < n && !ret; i++) {
		u64 cpu_ns = U64_MAX, gpu_ns = U64_MAX, t, ns;
		u32 nq = sizes[i], r, j, mism = 0;

		for (r = 0; r < BENCH_ROUNDS; r++) {
			fake_batch(rf, nq);
			t = ktime_get_ns();
			sm_cpu_score(rf, feat, nq, score);
			cpu_ns = min(cpu_ns, ktime_get_ns() - t);
		}
		/* score[] holds the CPU side's; the GPU side's land in its own buffer. */
		for (r = 0; r < BENCH_ROUNDS && !ret; r++) {
			t = ktime_get_ns();
			ret = sm_gpu_score(rf, feat, nq, bench_gpu, &ns);
			gpu_ns = min(gpu_ns, ktime_get_ns() - t);
		}
		if (ret)
			break;
		for (j = 0; j < nq; j++)
			mism += score[j] != bench_gpu[j];
		if (!crossover && gpu_ns < cpu_ns)
			crossover = nq;
		len += scnprintf(bench_text + len, sizeof(bench_text) - len,
				 "batch %u cpu_ns %llu gpu_ns %llu mismatches %u\n",
				 nq, cpu_ns, gpu_ns, mism);
	}
	if (!ret && crossover)
		scnprintf(bench_text + len, sizeof(bench_text) - len, "crossover %u\n", crossover);
	else if (!ret)
		scnprintf(bench_text + len, sizeof(bench_text) - len, "crossover never\n");
	return ret;
}
