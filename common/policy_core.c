// SPDX-License-Identifier: GPL-2.0
/*
 * CPU fallback policy core.
 *
 * A kernel consumer batches work for a model and must decide, per batch,
 * whether the GPU (through laked) or its own CPU code runs it. The GPU is
 * only worth it when the batch is large enough to amortise the round trip,
 * nobody else is saturating the device, and the path actually works. Like
 * sched_ext reverting to the default scheduler, the policy falls back to the
 * CPU whenever anything is in doubt and records why.
 *
 * choose() applies these rules in order; the first that fires gives the
 * answer and its reason:
 *
 *   mode cpu                         -> CPU  forced_cpu
 *   laked down / no usable device    -> CPU  no_daemon / no_device
 *   no load report, or one older
 *   than load_max_age_ns (not gpu)   -> CPU  stale_load (laked unresponsive)
 *   tripped, back-off not over       -> CPU  tripped
 *   tripped, probe in flight         -> CPU  probe_wait
 *   mode gpu                         -> GPU  forced_gpu, or probe if tripped
 *   batch < crossover                -> CPU  uncalibrated / below_crossover
 *   contended                        -> CPU  contended
 *   tripped, back-off over           -> GPU  probe (at most one in flight)
 *   otherwise                        -> GPU  gpu_wins
 *
 * Mode gpu skips the load, crossover and contention rules but not the trip:
 * a GPU side that fails or is wedged sends a forced policy to the CPU too,
 * and it comes back through the same probe and back-off as auto.
 *
 * Contention is LAKE's rule: utilization above util_max_pct with more than
 * procs_max compute processes (70% and 1 by default); optionally laked's
 * queue above queue_max.
 *
 * Failures: the first reported GPU error trips the policy and starts a
 * back-off of backoff_min_ns. When it ends, the next eligible batch is the
 * probe. A GPU success while the probe is in flight heals the policy; an
 * error, or no report within probe_timeout_ns, doubles the back-off (capped
 * at backoff_max_ns). Reports cannot name the batch they belong to, so while
 * a probe is in flight any GPU result counts as its result, and results of
 * batches sent before the trip neither heal nor extend the back-off.
 *
 * Crossover: times are smoothed per power-of-two bucket of batch size
 * (bucket k holds batches 2^k .. 2^(k+1)-1) with an integer EWMA of the time
 * and of the batch size, per path. The GPU wins a bucket when its time per
 * item is lower: gpu_ns * cpu_batch < cpu_ns * gpu_batch, which needs no
 * division. The crossover is 2^k for the smallest measured bucket k from
 * which the GPU wins every measured bucket up to max_batch; a bucket where
 * the CPU wins above a GPU win cancels the lower win, since a crossover must
 * hold for all larger batches. Buckets with no sample on either path are
 * skipped. With no bucket measured on both paths the policy is uncalibrated
 * and answers CPU. An operator override replaces the calibrated value.
 *
 * Reports only arrive from the path a batch took, so the EWMAs follow drift
 * on that path; a consumer that wants the other side re-measured calls
 * reset_calibration() and calibrates again (the operator knob).
 */
#include <lake/port.h>
#include <lake/policy.h>

/* Fixed-point fraction bits of the EWMAs. */
#define EWMA_FRAC	4

struct lake_policy {
	char name[LAKE_POLICY_NAME_MAX];
	u32 max_batch;
	u64 window_ns;
	enum lake_policy_mode mode;
	struct lake_policy_config cfg;

	/* crossover is what choose() compares with: override, else calibrated. */
	u32 crossover;
	u32 crossover_cal;
	u32 crossover_override;
	bool calibrated;

	bool daemon_up;
	bool device_ok;
	bool has_load;
	struct lake_load load;

	bool tripped;
	bool probe_pending;
	u64 backoff_ns;
	u64 retry_at_ns;
	u64 probe_at_ns;

	enum lake_policy_reason last_reason;
	struct lake_policy_counters cnt;

	u32 nr_buckets;
	/* Fixed point, EWMA_FRAC bits; 0 means "no sample yet". */
	struct lake_policy_bucket bucket[LAKE_POLICY_NR_BUCKETS];
};

#define LAKE_POLICY_REASON_STR(id, str) [LAKE_REASON_##id] = str,
static const char *const reason_names[LAKE_REASON_NR] = {
	LAKE_POLICY_REASONS(LAKE_POLICY_REASON_STR)
};
#undef LAKE_POLICY_REASON_STR

static const char *const mode_names[LAKE_POLICY_NR_MODES] = {
	[LAKE_POLICY_AUTO] = "auto",
	[LAKE_POLICY_CPU] = "cpu",
	[LAKE_POLICY_GPU] = "gpu",
};

const char *lake_policy_reason_str(enum lake_policy_reason reason)
{
	if ((unsigned int)reason >= LAKE_REASON_NR)
		return "invalid";
	return reason_names[reason];
}

const char *lake_policy_mode_str(enum lake_policy_mode mode)
{
	if ((unsigned int)mode >= LAKE_POLICY_NR_MODES)
		return "invalid";
	return mode_names[mode];
}

int lake_policy_mode_parse(const char *s, enum lake_policy_mode *mode)
{
	size_t len = strlen(s);
	unsigned int i;

	if (len && s[len - 1] == '\n')
		len--;
	for (i = 0; i < LAKE_POLICY_NR_MODES; i++) {
		if (strlen(mode_names[i]) == len &&
		    !strncmp(s, mode_names[i], len)) {
			*mode = i;
			return 0;
		}
	}
	return -EINVAL;
}

static u32 bucket_of(u32 batch)
{
	return 31 - __builtin_clz(batch);
}

void lake_policy_default_config(struct lake_policy_config *cfg)
{
	cfg->util_max_pct = 70;
	cfg->procs_max = 1;
	cfg->queue_max = 0;
	/* laked samples every few ms; a few missed reports mean trouble. */
	cfg->load_max_age_ns = 100ull * 1000 * 1000;
	cfg->backoff_min_ns = 1ull * 1000 * 1000;
	cfg->backoff_max_ns = 1000ull * 1000 * 1000;
	cfg->probe_timeout_ns = 100ull * 1000 * 1000;
	cfg->ewma_shift = 3;
}

static bool config_valid(const struct lake_policy_config *cfg)
{
	return cfg->util_max_pct <= 100 && cfg->load_max_age_ns &&
	       cfg->backoff_min_ns && cfg->backoff_max_ns >= cfg->backoff_min_ns &&
	       cfg->probe_timeout_ns &&
	       cfg->ewma_shift >= 1 && cfg->ewma_shift <= 8;
}

struct lake_policy *lake_policy_create(const char *name, u32 max_batch,
				       u64 window_ns)
{
	struct lake_policy *p;
	size_t len;

	if (!name || max_batch == 0 || max_batch > LAKE_POLICY_MAX_BATCH)
		return NULL;
	len = strnlen(name, LAKE_POLICY_NAME_MAX);
	if (len == 0 || len == LAKE_POLICY_NAME_MAX)
		return NULL;

	p = lake_port_malloc(sizeof(*p));
	if (!p)
		return NULL;
	memset(p, 0, sizeof(*p));
	memcpy(p->name, name, len);
	p->max_batch = max_batch;
	p->window_ns = window_ns;
	p->mode = LAKE_POLICY_AUTO;
	lake_policy_default_config(&p->cfg);
	p->nr_buckets = bucket_of(max_batch) + 1;
	p->crossover = LAKE_POLICY_NEVER;
	p->crossover_cal = LAKE_POLICY_NEVER;
	p->last_reason = LAKE_REASON_NONE;
	return p;
}

void lake_policy_destroy(struct lake_policy *p)
{
	lake_port_free(p);
}

int lake_policy_set_config(struct lake_policy *p,
			   const struct lake_policy_config *cfg)
{
	if (!config_valid(cfg))
		return -EINVAL;
	p->cfg = *cfg;
	return 0;
}

int lake_policy_set_mode(struct lake_policy *p, enum lake_policy_mode mode)
{
	if ((unsigned int)mode >= LAKE_POLICY_NR_MODES)
		return -EINVAL;
	p->mode = mode;
	return 0;
}

int lake_policy_set_crossover(struct lake_policy *p, u32 batch)
{
	if (batch > p->max_batch)
		return -EINVAL;
	p->crossover_override = batch;
	p->crossover = batch ? batch : p->crossover_cal;
	return 0;
}

void lake_policy_set_daemon(struct lake_policy *p, bool up, bool device_ok)
{
	p->daemon_up = up;
	p->device_ok = device_ok;
}

void lake_policy_report_load(struct lake_policy *p,
			     const struct lake_load *load)
{
	p->load = *load;
	p->has_load = true;
}

static bool gpu_wins(const struct lake_policy_bucket *b)
{
	return b->gpu_ns * b->cpu_batch < b->cpu_ns * b->gpu_batch;
}

static void update_crossover(struct lake_policy *p)
{
	u32 cross = LAKE_POLICY_NEVER;
	bool measured = false;
	u32 k;

	/* Walk down from the largest batches while the GPU keeps winning. */
	for (k = p->nr_buckets; k-- > 0; ) {
		const struct lake_policy_bucket *b = &p->bucket[k];

		if (!b->cpu_ns || !b->gpu_ns)
			continue;
		measured = true;
		if (!gpu_wins(b))
			break;
		cross = 1u << k;
	}
	p->calibrated = measured;
	p->crossover_cal = cross;
	if (!p->crossover_override)
		p->crossover = cross;
}

void lake_policy_reset_calibration(struct lake_policy *p)
{
	memset(p->bucket, 0, sizeof(p->bucket));
	update_crossover(p);
}

/* Never returns 0 for a nonzero sample, so 0 can mean "no sample". */
static u64 ewma(u64 avg, u64 sample, u32 shift)
{
	sample <<= EWMA_FRAC;
	if (!avg)
		return sample;
	return (avg * ((1u << shift) - 1) + sample) >> shift;
}

static int report(struct lake_policy *p, u32 batch, u64 ns, bool gpu)
{
	struct lake_policy_bucket *b;
	u32 shift = p->cfg.ewma_shift;

	if (batch == 0 || batch > p->max_batch)
		return -EINVAL;
	if (ns == 0)
		ns = 1;
	else if (ns > LAKE_POLICY_MAX_NS)
		ns = LAKE_POLICY_MAX_NS;

	b = &p->bucket[bucket_of(batch)];
	if (gpu) {
		b->gpu_ns = ewma(b->gpu_ns, ns, shift);
		b->gpu_batch = (u32)ewma(b->gpu_batch, batch, shift);
	} else {
		b->cpu_ns = ewma(b->cpu_ns, ns, shift);
		b->cpu_batch = (u32)ewma(b->cpu_batch, batch, shift);
	}
	update_crossover(p);
	return 0;
}

int lake_policy_report_cpu(struct lake_policy *p, u32 batch, u64 ns)
{
	int ret = report(p, batch, ns, false);

	if (!ret)
		p->cnt.cpu_reports++;
	return ret;
}

int lake_policy_report_gpu(struct lake_policy *p, u32 batch, u64 ns)
{
	int ret = report(p, batch, ns, true);

	if (ret)
		return ret;
	p->cnt.gpu_reports++;
	if (p->probe_pending) {
		p->tripped = false;
		p->probe_pending = false;
		p->backoff_ns = 0;
		p->retry_at_ns = 0;
	}
	return 0;
}

static void probe_failed(struct lake_policy *p, u64 now_ns)
{
	p->cnt.probe_failures++;
	p->probe_pending = false;
	if (p->backoff_ns > p->cfg.backoff_max_ns / 2)
		p->backoff_ns = p->cfg.backoff_max_ns;
	else
		p->backoff_ns *= 2;
	p->retry_at_ns = now_ns + p->backoff_ns;
}

void lake_policy_report_gpu_error(struct lake_policy *p, u64 now_ns)
{
	p->cnt.gpu_errors++;
	if (!p->tripped) {
		p->tripped = true;
		p->cnt.trips++;
		p->backoff_ns = p->cfg.backoff_min_ns;
		p->retry_at_ns = now_ns + p->backoff_ns;
	} else if (p->probe_pending) {
		probe_failed(p, now_ns);
	}
}

static bool load_stale(const struct lake_policy *p, u64 now_ns)
{
	return !p->has_load ||
	       (now_ns > p->load.ts_ns &&
		now_ns - p->load.ts_ns > p->cfg.load_max_age_ns);
}

static bool contended(const struct lake_policy *p)
{
	const struct lake_load *l = &p->load;

	if (l->util_pct > p->cfg.util_max_pct && l->nr_procs > p->cfg.procs_max)
		return true;
	return p->cfg.queue_max && l->queue > p->cfg.queue_max;
}

/* The one batch that tests a tripped GPU side. */
static enum lake_policy_reason start_probe(struct lake_policy *p, u64 now_ns)
{
	p->probe_pending = true;
	p->probe_at_ns = now_ns;
	p->cnt.probes++;
	return LAKE_REASON_PROBE;
}

static enum lake_policy_reason decide(struct lake_policy *p, u32 batch,
				      u64 now_ns)
{
	bool forced = p->mode == LAKE_POLICY_GPU;

	if (p->mode == LAKE_POLICY_CPU)
		return LAKE_REASON_FORCED_CPU;
	if (!p->daemon_up)
		return LAKE_REASON_NO_DAEMON;
	if (!p->device_ok)
		return LAKE_REASON_NO_DEVICE;
	if (!forced && load_stale(p, now_ns))
		return LAKE_REASON_STALE_LOAD;
	if (p->tripped) {
		if (p->probe_pending) {
			if (now_ns < p->probe_at_ns + p->cfg.probe_timeout_ns)
				return LAKE_REASON_PROBE_WAIT;
			probe_failed(p, now_ns);
		}
		if (now_ns < p->retry_at_ns)
			return LAKE_REASON_TRIPPED;
	}
	if (forced)
		return p->tripped ? start_probe(p, now_ns) : LAKE_REASON_FORCED_GPU;
	if (batch < p->crossover)
		return p->calibrated || p->crossover_override ?
		       LAKE_REASON_BELOW_CROSSOVER : LAKE_REASON_UNCALIBRATED;
	if (contended(p))
		return LAKE_REASON_CONTENDED;
	if (p->tripped)
		return start_probe(p, now_ns);
	return LAKE_REASON_GPU_WINS;
}

enum lake_target lake_policy_choose(struct lake_policy *p, u32 batch,
				    u64 now_ns)
{
	enum lake_policy_reason r = decide(p, batch, now_ns);
	bool gpu = r == LAKE_REASON_FORCED_GPU || r == LAKE_REASON_PROBE ||
		   r == LAKE_REASON_GPU_WINS;

	p->last_reason = r;
	p->cnt.reason[r]++;
	if (gpu) {
		p->cnt.gpu++;
		return LAKE_TARGET_GPU;
	}
	p->cnt.cpu++;
	return LAKE_TARGET_CPU;
}

enum lake_policy_reason lake_policy_last_reason(const struct lake_policy *p)
{
	return p->last_reason;
}

void lake_policy_snapshot(const struct lake_policy *p,
			  struct lake_policy_snapshot *s)
{
	u32 k;

	memset(s, 0, sizeof(*s));
	memcpy(s->name, p->name, sizeof(s->name));
	s->mode = p->mode;
	s->max_batch = p->max_batch;
	s->window_ns = p->window_ns;
	s->crossover = p->crossover;
	s->crossover_calibrated = p->crossover_cal;
	s->crossover_override = p->crossover_override;
	s->daemon_up = p->daemon_up;
	s->device_ok = p->device_ok;
	s->has_load = p->has_load;
	s->load = p->load;
	s->tripped = p->tripped;
	s->probe_pending = p->probe_pending;
	s->backoff_ns = p->backoff_ns;
	s->retry_at_ns = p->tripped ? p->retry_at_ns : 0;
	s->last_reason = p->last_reason;
	s->nr_buckets = p->nr_buckets;
	for (k = 0; k < p->nr_buckets; k++) {
		const struct lake_policy_bucket *b = &p->bucket[k];

		s->bucket[k].cpu_ns = b->cpu_ns >> EWMA_FRAC;
		s->bucket[k].gpu_ns = b->gpu_ns >> EWMA_FRAC;
		s->bucket[k].cpu_batch = b->cpu_batch >> EWMA_FRAC;
		s->bucket[k].gpu_batch = b->gpu_batch >> EWMA_FRAC;
	}
	s->config = p->cfg;
	s->counters = p->cnt;
}
