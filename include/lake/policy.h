/* SPDX-License-Identifier: GPL-2.0 */
/*
 * CPU fallback policy: for one model of one consumer, answer "CPU or GPU
 * for this batch?" and say why.
 *
 * The core is pure arithmetic over state the caller feeds it: times it
 * observed on each path, load reports from laked, daemon liveness and GPU
 * errors. It takes no locks and reads no clock; every function that needs
 * the time takes now_ns (one monotonic clock, e.g. ktime_get_ns()).
 *
 * Locking: the caller owns one lock per policy and holds it around every
 * call except create and destroy. Nothing but create allocates or sleeps,
 * so with an irq-safe spinlock every other call may run in any context,
 * hard irq included.
 */
#ifndef LAKE_POLICY_H
#define LAKE_POLICY_H

#include <lake/port.h>

#define LAKE_POLICY_NAME_MAX	32
/* Largest max_batch; times are kept per power-of-two bucket of batch size. */
#define LAKE_POLICY_MAX_BATCH	(1u << 16)
#define LAKE_POLICY_NR_BUCKETS	17
/* Crossover value meaning "the GPU never wins". */
#define LAKE_POLICY_NEVER	0xffffffffu
/* Reported times are clamped to this (~68 s) so the integer maths cannot overflow. */
#define LAKE_POLICY_MAX_NS	(1ull << 36)

enum lake_policy_mode {
	LAKE_POLICY_AUTO,
	LAKE_POLICY_CPU,	/* forced */
	LAKE_POLICY_GPU,	/* forced, unless laked or its device is gone or it tripped */
	LAKE_POLICY_NR_MODES
};

enum lake_target {
	LAKE_TARGET_CPU,
	LAKE_TARGET_GPU
};

/*
 * Why the last answer was given, in order of precedence. One table is the
 * source of the enum and of the strings that sysfs/debugfs print.
 */
#define LAKE_POLICY_REASONS(X)						\
	X(NONE,			"none")		/* no decision yet */	\
	X(FORCED_CPU,		"forced_cpu")				\
	X(NO_DAEMON,		"no_daemon")				\
	X(NO_DEVICE,		"no_device")				\
	X(FORCED_GPU,		"forced_gpu")				\
	X(STALE_LOAD,		"stale_load")	/* laked unresponsive */ \
	X(TRIPPED,		"tripped")	/* GPU failed, backing off */ \
	X(PROBE_WAIT,		"probe_wait")	/* a probe is in flight */ \
	X(UNCALIBRATED,		"uncalibrated")				\
	X(BELOW_CROSSOVER,	"below_crossover")			\
	X(CONTENDED,		"contended")				\
	X(PROBE,		"probe")	/* GPU, to test recovery */ \
	X(GPU_WINS,		"gpu_wins")

#define LAKE_POLICY_REASON_ENUM(id, str) LAKE_REASON_##id,
enum lake_policy_reason {
	LAKE_POLICY_REASONS(LAKE_POLICY_REASON_ENUM)
	LAKE_REASON_NR
};
#undef LAKE_POLICY_REASON_ENUM

/* One report from laked about the GPU (NVML, or the host device's own load). */
struct lake_load {
	u32 util_pct;		/* GPU utilization, 0..100 */
	u32 nr_procs;		/* compute processes on the GPU, laked included */
	u32 queue;		/* requests waiting in laked */
	u64 ts_ns;		/* when laked sampled it, on the caller's clock */
};

struct lake_policy_config {
	/* Contended when util_pct > util_max_pct and nr_procs > procs_max ... */
	u32 util_max_pct;
	u32 procs_max;
	/* ... or when queue > queue_max; 0 disables the queue rule. */
	u32 queue_max;
	/* A load report older than this means laked is unresponsive. */
	u64 load_max_age_ns;
	/* Back-off after a GPU failure: starts at min, doubles per failed probe. */
	u64 backoff_min_ns;
	u64 backoff_max_ns;
	/* A probe with no report after this long counts as failed. */
	u64 probe_timeout_ns;
	/* EWMA weight of a new time is 1 / 2^ewma_shift (1..8). */
	u32 ewma_shift;
};

struct lake_policy_counters {
	u64 cpu;			/* decisions */
	u64 gpu;
	u64 reason[LAKE_REASON_NR];	/* decisions per reason */
	u64 trips;			/* healthy -> tripped */
	u64 probes;
	u64 probe_failures;		/* reported or timed out */
	u64 gpu_errors;			/* every reported GPU error */
	u64 cpu_reports;
	u64 gpu_reports;
};

/* Smoothed times of one power-of-two bucket; 0 when the path has no sample. */
struct lake_policy_bucket {
	u64 cpu_ns;
	u64 gpu_ns;
	u32 cpu_batch;		/* smoothed batch size the times were taken at */
	u32 gpu_batch;
};

struct lake_policy_snapshot {
	char name[LAKE_POLICY_NAME_MAX];
	enum lake_policy_mode mode;
	u32 max_batch;
	u64 window_ns;
	u32 crossover;		/* in force: override, else calibrated */
	u32 crossover_calibrated;
	u32 crossover_override;	/* 0: none */
	bool daemon_up;
	bool device_ok;
	bool has_load;
	struct lake_load load;
	bool tripped;
	bool probe_pending;
	u64 backoff_ns;		/* current back-off; 0 when healthy */
	u64 retry_at_ns;	/* when tripped: first time a probe may go */
	enum lake_policy_reason last_reason;
	u32 nr_buckets;		/* buckets [0, nr_buckets) cover 1..max_batch */
	struct lake_policy_bucket bucket[LAKE_POLICY_NR_BUCKETS];
	struct lake_policy_config config;
	struct lake_policy_counters counters;
};

struct lake_policy;

/* Process context (allocates). NULL on bad arguments or no memory. */
struct lake_policy *lake_policy_create(const char *name, u32 max_batch,
				       u64 window_ns);
/* Process context; no other call may be running on p. */
void lake_policy_destroy(struct lake_policy *p);

void lake_policy_default_config(struct lake_policy_config *cfg);
/* Policy lock; any context. -EINVAL leaves the old config in place. */
int lake_policy_set_config(struct lake_policy *p,
			   const struct lake_policy_config *cfg);
/* Policy lock; any context. -EINVAL for an unknown mode. */
int lake_policy_set_mode(struct lake_policy *p, enum lake_policy_mode mode);
/* Policy lock; any context. 0 returns to the calibrated crossover. */
int lake_policy_set_crossover(struct lake_policy *p, u32 batch);
/* Policy lock; any context. Forget all timings (crossover: uncalibrated). */
void lake_policy_reset_calibration(struct lake_policy *p);

/* Policy lock; any context. laked registered / its device opened. */
void lake_policy_set_daemon(struct lake_policy *p, bool up, bool device_ok);
/* Policy lock; any context. */
void lake_policy_report_load(struct lake_policy *p,
			     const struct lake_load *load);

/* Policy lock; any context. The decision for one batch, counted. */
enum lake_target lake_policy_choose(struct lake_policy *p, u32 batch,
				    u64 now_ns);

/*
 * Policy lock; any context. Times of completed batches (1..max_batch,
 * else -EINVAL). A GPU report is also a success: it ends a probe.
 * To calibrate, time both paths at batch 1, 2, 4, ... up to max_batch.
 */
int lake_policy_report_cpu(struct lake_policy *p, u32 batch, u64 ns);
int lake_policy_report_gpu(struct lake_policy *p, u32 batch, u64 ns);
/* Policy lock; any context. A GPU call failed or timed out. */
void lake_policy_report_gpu_error(struct lake_policy *p, u64 now_ns);

/* Policy lock; any context. */
enum lake_policy_reason lake_policy_last_reason(const struct lake_policy *p);
/* Policy lock; any context. The snapshot is ~750 bytes: not on an irq stack. */
void lake_policy_snapshot(const struct lake_policy *p,
			  struct lake_policy_snapshot *snap);

/* No lock; any context. */
const char *lake_policy_reason_str(enum lake_policy_reason reason);
const char *lake_policy_mode_str(enum lake_policy_mode mode);
/* Accepts "auto", "cpu", "gpu", with one trailing newline (sysfs). */
int lake_policy_mode_parse(const char *s, enum lake_policy_mode *mode);

#endif /* LAKE_POLICY_H */
