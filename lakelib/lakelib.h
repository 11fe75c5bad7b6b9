/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lakelib's internals, shared by its files. Other modules see only
 * include/lake/cuda.h (the exported API) and the policy/registry headers.
 *
 * A call's life: api.c fills a struct lake_wire_req, rpc.c encodes it into
 * the send queue (async calls stop there; a delayed flush or the next sync
 * call sends them), sends one LAKE_CMD_CALL message over the "lake" genl
 * family (netlink.c), and a sync caller sleeps on its struct lake_call until
 * netlink.c hands it the matching reply, the daemon goes away, the timeout
 * expires or the caller is killed.
 */
#ifndef LAKELIB_H
#define LAKELIB_H

#include <linux/completion.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <lake/cuda.h>
#include <uapi/lake/genl.h>
#include <lake/policy.h>
#include <lake/wire.h>

struct genl_info;
struct netlink_callback;
struct sk_buff;

/* CUresults lakelib itself produces (documented in README). */
#define LAKE_ERR_NO_DAEMON	CUDA_ERROR_NO_DEVICE		/* no laked registered */
#define LAKE_ERR_DAEMON_LOST	CUDA_ERROR_DEVICE_UNAVAILABLE	/* laked died mid-call */
#define LAKE_ERR_TIMEOUT	CUDA_ERROR_TIMEOUT		/* no reply in time */
#define LAKE_ERR_KILLED		CUDA_ERROR_OPERATING_SYSTEM	/* caller got a fatal signal */

/* One synchronous call in flight; lives on the caller's stack. */
struct lake_call {
	struct hlist_node node;		/* in the in-flight table while waiting */
	u64 id;
	struct completion done;
	const struct lake_wire_req *req;
	u32 result;			/* CUresult */
	union lake_wire_rep_res res;
	void *tail;			/* reply tail goes here (inline DtoH, names) */
	u32 tail_cap;
	u32 tail_len;
	/* lake_rpc_submit()'s state for lake_rpc_wait() */
	unsigned long deadline;
	u64 gen, t0;
	u32 early;			/* CUresult of the submit */
	bool sent, tracked;
	bool slot;			/* holds a sync slot of its context's window */
};

/* rpc.c */
int lake_rpc_init(void);
void lake_rpc_exit(void);
CUresult lake_rpc_sync(struct lake_wire_req *req, struct lake_call *call);
CUresult lake_rpc_async(struct lake_wire_req *req);
/* lake_rpc_sync() in two halves; every submit is followed by one wait. */
void lake_rpc_submit(struct lake_wire_req *req, struct lake_call *call, unsigned long deadline);
CUresult lake_rpc_wait(struct lake_call *call);
void lake_rpc_deliver(const struct lake_wire_rep *rep);
/* The daemon's portid is cleared: fail what is in flight, drop what is queued. */
void lake_rpc_daemon_gone(void);
/* Take (and clear) the first error latched for (@ctx, @stream), or the whole context. */
CUresult lake_rpc_take_latched(u64 ctx, u64 stream, bool whole_ctx);
void lake_rpc_flush(void);
/* Jiffies until @deadline, at least 1; a killable mutex wait bounded by it. */
long lake_jiffies_left(unsigned long deadline);
int lake_mutex_lock_until(struct mutex *m, wait_queue_head_t *wq, unsigned long deadline);

/* netlink.c */
int lake_nl_init(void);
void lake_nl_exit(void);
/* The registered daemon's portid, 0 when there is none. */
u32 lake_nl_daemon(void);
/* The registered daemon's generation (one per registration), 0 when there is none. */
u64 lake_nl_gen(void);
/* Send one CALL message before @deadline (jiffies); @gen: the daemon it went to. */
int lake_nl_send_call(const void *blob, u32 len, unsigned long deadline, u64 *gen);
/* Make daemon @gen unable to run or write anything more; returns once it cannot. */
void lake_nl_fence(u64 gen);
bool lake_nl_load(struct lake_genl_load *out, u64 *age_ns);

/* stage.c: copies of kernel memory outside lakeshm, through bounce chunks */
/* @tmpl: the copy's request (api, ctx, stream, dptr); @host: any kernel buffer. */
CUresult lake_stage_copy(const struct lake_wire_req *tmpl, void *host, size_t bytes, bool htod);
void lake_stage_exit(void);

/* ctx.c: CUDA's "current context" per calling thread */
/* Forget every thread's context: the daemon that issued them is gone. */
void lake_ctx_reset(void);
u64 lake_ctx_current(void);
int lake_ctx_set_current(u64 ctx);
void lake_ctx_forget(u64 ctx);
/* Threads with a context, after dropping those that exited. */
unsigned int lake_ctx_count(void);

/* funcs.c: parameter layouts of looked-up functions */
int lake_funcs_add(u64 ctx, u64 module, const struct lake_wire_get_function_res *res,
		   bool declared);
bool lake_funcs_layout(u64 func, struct lake_wire_get_function_res *out);
unsigned int lake_funcs_count(void);
void lake_funcs_forget_module(u64 module);
void lake_funcs_forget_ctx(u64 ctx);
void lake_funcs_reset(void);

/* fallback.c, features.c: the policy and registry glue */
void lake_fallback_init(void);
void lake_fallback_exit(void);
/* laked registered, went or reported load: tell every policy. Sleepless. */
void lake_fallback_notify(void);
void lake_features_init(void);
void lake_features_exit(void);
/* For lakectl (ctl.c): policies and registries by position in their list. */
struct lake_policy_snapshot;
struct lake_reg;
struct lake_reg_stats;
/* The @idx-th policy's state; -ENOENT past the last. Process context. */
int lake_fallback_snapshot_nth(u32 idx, struct lake_policy_snapshot *snap);
/* Set the mode and/or crossover (NULL: leave) of the policy @name; -ENOENT, -EINVAL. */
int lake_fallback_set_by_name(const char *name, const enum lake_policy_mode *mode,
			      const u32 *crossover);
typedef int (*lake_features_visit_t)(const struct lake_reg *reg,
				     const struct lake_reg_stats *st, void *arg);
/* @fn on the @idx-th registry, which stays alive meanwhile; its result, or -ENOENT. */
int lake_features_visit_nth(u32 idx, lake_features_visit_t fn, void *arg);

/* ctl.c: lakectl's commands of the genl family (netlink.c lists them). */
int lake_ctl_status(struct sk_buff *skb, struct genl_info *info);
int lake_ctl_stats(struct sk_buff *skb, struct genl_info *info);
int lake_ctl_policy_dump(struct sk_buff *skb, struct netlink_callback *cb);
int lake_ctl_policy_set(struct sk_buff *skb, struct genl_info *info);
int lake_ctl_registry_dump(struct sk_buff *skb, struct netlink_callback *cb);
/* netlink.c: who registered, for lakectl; false when no daemon is. */
bool lake_nl_daemon_info(u32 *portid, u32 *pid, char *device, size_t size);
const struct genl_family *lake_nl_family(void);

/* ring.c: the command ring (uapi/lake/ring.h); queue_lock held where noted. */
bool lake_ring_live(void);
int lake_ring_start(u64 gen, int sq_fd, int cq_fd, int watch_fd, u64 *off);	/* queue_lock */
void lake_ring_stop(void);					/* queue_lock */
int lake_ring_send(u64 gen, const void *blob, u32 len, unsigned long deadline); /* queue_lock */
void lake_ring_spin(struct completion *done);
void lake_ring_exit(void);
/* rpc.c: lake_ring_start() under queue_lock, for daemon @gen. */
int lake_rpc_ring_start(u64 gen, int sq_fd, int cq_fd, int watch_fd, u64 *off);
void lake_rpc_ring_stop(void);

/* stats.c */
struct lake_stats {
	atomic64_t calls[LAKE_API_COUNT];
	atomic64_t api_errors[LAKE_API_COUNT];	/* failed calls, per API */
	atomic64_t errors;
	atomic64_t timeouts;
	atomic64_t killed;
	atomic64_t no_daemon;
	atomic64_t in_flight;
	atomic64_t bytes_inline;
	atomic64_t bytes_shm;
	atomic64_t messages;
	atomic64_t async_queued;
	atomic64_t async_errors;
	atomic64_t async_dropped;	/* not sent: latched as errors */
	atomic64_t latched;		/* errors waiting for a synchronizing call */
	atomic64_t fences;
	atomic64_t forged_replies;	/* daemon commands from another portid */
	atomic64_t refused_registrations;	/* while another laked is registered */
	atomic64_t stray_replies;
	atomic64_t bad_records;
	atomic64_t stage_chunks_in_use;	/* bounce chunks taken (stage.c) */
	atomic64_t stage_bytes;		/* bytes staged through them */
	atomic64_t stage_waits;		/* calls that waited for a chunk */
	atomic64_t stage_pool_failures;	/* lakeshm could not supply the pool */
	atomic64_t window_waits;	/* sync calls that waited for their context's window */
	atomic64_t async_barriers;	/* async calls that waited for theirs */
	atomic64_t async_pending;	/* async records unretired, in all windows */
	atomic64_t alloc_faults;	/* allocations failed on purpose */
	atomic64_t unregistered_mapped;	/* a laked unregistered while it mapped the region */
	atomic64_t send_retries;	/* sends retried: laked's receive buffer was full */
	atomic64_t ring_submissions;	/* CALL blobs put in the submission ring */
	atomic64_t ring_completions;	/* REPLY blobs taken from the completion ring */
	atomic64_t ring_kicks;		/* eventfd signals to a sleeping laked */
	atomic64_t ring_wakeups;	/* laked's eventfd writes: the kernel's consumer slept */
	atomic64_t ring_spins;		/* callers that spun for their reply */
	atomic64_t ring_spin_hits;	/* ... and got it while spinning */
	atomic64_t ring_full;		/* sends that waited for a submission slot */
	atomic64_t ring_violations;	/* impossible indices, lengths or records from laked */
};
extern struct lake_stats lake_stats;
/* The named counters, in one table for debugfs and lakectl alike. */
struct lake_stat_desc {
	const char *name;
	atomic64_t *v;		/* or, when NULL: */
	u64 (*get)(void);
};
extern const struct lake_stat_desc lake_stat_list[];
extern const size_t lake_stat_count;
u64 lake_stat_value(const struct lake_stat_desc *d);
int lake_stats_init(void);
void lake_stats_exit(void);

extern unsigned int lake_timeout_ms;
/* Fault injection (debugfs): fail the next N sends; keep async records queued. */
extern atomic_t lake_fail_sends;
extern bool lake_hold_queue;
/*
 * Allocation-failure injection (debugfs lakelib_fail_allocs = N: every Nth
 * allocation on a call's path fails; 0, the default, none): Debian's
 * kernels have no CONFIG_FAILSLAB. True when this allocation must fail.
 */
bool lake_alloc_fault(void);
/* Sleep debugfs lakelib_release_delay_ms (at most 5 s) in laked's socket release. */
void lake_test_release_delay(void);

#endif /* LAKELIB_H */
