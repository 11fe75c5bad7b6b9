/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * The "lake" Generic Netlink family: the commands and attributes that lakelib
 * and laked exchange. The call and reply records inside LAKE_A_RECORDS are
 * described in uapi/lake/wire.h. Every size that bounds an attribute is a
 * #define here so that the kernel policy and the daemon's checks use the
 * same number.
 *
 * All integers are in host byte order: both ends run on the same machine.
 */
#ifndef LAKE_UAPI_GENL_H
#define LAKE_UAPI_GENL_H

#include <linux/types.h>

#define LAKE_GENL_NAME		"lake"
#define LAKE_GENL_VERSION	1

/*
 * Direction and attributes of each command; each command accepts only the
 * attributes named here (its own policy). LAKE_CMD_REGISTER needs
 * GENL_ADMIN_PERM; laked's other commands need no capability but must come
 * from the socket that registered. The *_GET commands are lakectl's, open
 * to any user; LAKE_CMD_POLICY_SET needs GENL_ADMIN_PERM. spec/lake.yaml
 * describes the whole family in the kernel's spec format; scripts/check-spec
 * (make test) keeps this header and lakelib/netlink.c's policies and ops in
 * step.
 */
enum lake_genl_cmd {
	LAKE_CMD_UNSPEC,
	/* daemon -> kernel: LAKE_A_DEVICE; pins the sender as the daemon */
	LAKE_CMD_REGISTER,
	/* daemon -> kernel: no attributes; fails every call in flight */
	LAKE_CMD_UNREGISTER,
	/* kernel -> daemon: LAKE_A_RECORDS holding one or more requests */
	LAKE_CMD_CALL,
	/* daemon -> kernel: LAKE_A_RECORDS holding one or more replies */
	LAKE_CMD_REPLY,
	/* daemon -> kernel: LAKE_A_LOAD, sent every sampling period */
	LAKE_CMD_LOAD,
	/*
	 * any user -> kernel: LAKE_A_VALUE echoed back; kernel -> daemon: laked
	 * sends the same command and value back. A bare round trip either way.
	 */
	LAKE_CMD_PING,
	/* any user -> kernel: no attributes; reply: daemon and region */
	LAKE_CMD_STATUS_GET,
	/* any user -> kernel: no attributes; reply: LAKE_A_STAT, LAKE_A_API_CALLS,
	 * LAKE_A_API_ERRORS */
	LAKE_CMD_STATS_GET,
	/* any user -> kernel, dump: one LAKE_A_POLICY per policy */
	LAKE_CMD_POLICY_GET,
	/* admin -> kernel: LAKE_A_POLICY with a name and a mode or crossover */
	LAKE_CMD_POLICY_SET,
	/* any user -> kernel, dump: one LAKE_A_REGISTRY per feature registry */
	LAKE_CMD_REGISTRY_GET,
	/*
	 * daemon -> kernel: LAKE_A_RING; the kernel answers with the ring's
	 * offset in the region (LAKE_A_VALUE) and carries calls and replies
	 * there from then on (uapi/lake/ring.h)
	 */
	LAKE_CMD_RING_SETUP,
	__LAKE_CMD_MAX,
};
#define LAKE_CMD_MAX	(__LAKE_CMD_MAX - 1)

enum lake_genl_attr {
	LAKE_A_UNSPEC,
	LAKE_A_RECORDS,	/* binary, 1..LAKE_GENL_RECORDS_MAX bytes */
	LAKE_A_LOAD,	/* struct lake_genl_load, exact length */
	LAKE_A_DEVICE,	/* NUL-terminated, at most LAKE_GENL_DEVICE_MAX bytes */
	LAKE_A_VALUE,	/* u64 */
	LAKE_A_PAD,	/* alignment padding for 64-bit attributes */
	/* lakectl's, kernel -> user only but LAKE_A_POLICY */
	LAKE_A_PORTID,		/* u32: the registered daemon's socket; 0: none */
	LAKE_A_PID,		/* u32: the process that registered it */
	LAKE_A_REGION_SIZE,	/* u64: bytes of the shared region; absent: no lakeshm region */
	LAKE_A_REGION_USED,	/* u64: bytes allocated in it */
	LAKE_A_IN_FLIGHT,	/* u64: calls waiting for laked */
	LAKE_A_TIMEOUT_MS,	/* u32: lakelib's timeout_ms */
	LAKE_A_STAT,		/* nest, repeated: lake_ctr_attr, one lakelib counter */
	LAKE_A_API_CALLS,	/* nest, repeated: lake_ctr_attr, calls of one API */
	LAKE_A_POLICY,		/* nest: lake_policy_attr */
	LAKE_A_REGISTRY,	/* nest: lake_registry_attr */
	LAKE_A_API_ERRORS,	/* nest, repeated: lake_ctr_attr, failed calls of one API */
	LAKE_A_RING,		/* struct lake_genl_ring, exact length */
	LAKE_A_TRANSPORT,	/* u32: LAKE_GENL_TRANSPORT_*, what carries calls now */
	__LAKE_A_MAX,
};
#define LAKE_A_MAX	(__LAKE_A_MAX - 1)

/* A named counter. */
enum lake_ctr_attr {
	LAKE_CTR_A_UNSPEC,
	LAKE_CTR_A_NAME,	/* string */
	LAKE_CTR_A_VALUE,	/* u64 */
	LAKE_CTR_A_PAD,
	__LAKE_CTR_A_MAX,
};
#define LAKE_CTR_A_MAX	(__LAKE_CTR_A_MAX - 1)

/*
 * A CPU-fallback policy. POLICY_SET takes NAME and MODE and/or CROSSOVER;
 * everything else comes only from the kernel.
 */
enum lake_policy_attr {
	LAKE_POLICY_A_UNSPEC,
	LAKE_POLICY_A_NAME,		/* string, < LAKE_GENL_NAME_MAX bytes */
	LAKE_POLICY_A_MODE,		/* u32: LAKE_GENL_MODE_* */
	LAKE_POLICY_A_CROSSOVER,	/* u32: batch size from which the GPU runs; SET: 0 = calibrated */
	LAKE_POLICY_A_CROSSOVER_CALIBRATED,	/* u32 */
	LAKE_POLICY_A_MAX_BATCH,	/* u32 */
	LAKE_POLICY_A_LAST_REASON,	/* string */
	LAKE_POLICY_A_DECISIONS_CPU,	/* u64 */
	LAKE_POLICY_A_DECISIONS_GPU,	/* u64 */
	LAKE_POLICY_A_TRIPS,		/* u64 */
	LAKE_POLICY_A_GPU_ERRORS,	/* u64 */
	LAKE_POLICY_A_REASON,		/* nest, repeated: lake_ctr_attr, decisions for one reason */
	LAKE_POLICY_A_PAD,
	__LAKE_POLICY_A_MAX,
};
#define LAKE_POLICY_A_MAX	(__LAKE_POLICY_A_MAX - 1)

/* LAKE_POLICY_A_MODE: the values of enum lake_policy_mode. */
#define LAKE_GENL_MODE_AUTO	0
#define LAKE_GENL_MODE_CPU	1
#define LAKE_GENL_MODE_GPU	2
/* LAKE_POLICY_A_CROSSOVER when the GPU never wins (uncalibrated). */
#define LAKE_GENL_CROSSOVER_NEVER	0xffffffffu
/* Policy and registry names, with the NUL. */
#define LAKE_GENL_NAME_MAX	32

/* A feature registry: its schema, fill and losses. */
enum lake_registry_attr {
	LAKE_REGISTRY_A_UNSPEC,
	LAKE_REGISTRY_A_NAME,		/* string */
	LAKE_REGISTRY_A_CAPACITY,	/* u32: records the ring holds */
	LAKE_REGISTRY_A_COUNT,		/* u32: records in it now */
	LAKE_REGISTRY_A_OPEN,		/* u32: vectors begun, not committed */
	LAKE_REGISTRY_A_MAX_OPEN,	/* u32 */
	LAKE_REGISTRY_A_VECTOR_BYTES,	/* u32 */
	LAKE_REGISTRY_A_COMMITTED,	/* u64 */
	LAKE_REGISTRY_A_DROPPED,	/* u64: overwritten before being fetched */
	LAKE_REGISTRY_A_TRUNCATED,	/* u64 */
	LAKE_REGISTRY_A_ABORTED,	/* u64 */
	LAKE_REGISTRY_A_BEGIN_FAILED,	/* u64 */
	LAKE_REGISTRY_A_FEATURE,	/* nest, repeated: lake_feature_attr */
	LAKE_REGISTRY_A_PAD,
	__LAKE_REGISTRY_A_MAX,
};
#define LAKE_REGISTRY_A_MAX	(__LAKE_REGISTRY_A_MAX - 1)

enum lake_feature_attr {
	LAKE_FEATURE_A_UNSPEC,
	LAKE_FEATURE_A_NAME,		/* string */
	LAKE_FEATURE_A_SIZE,		/* u32: bytes per entry */
	LAKE_FEATURE_A_ENTRIES,		/* u32: history length */
	__LAKE_FEATURE_A_MAX,
};
#define LAKE_FEATURE_A_MAX	(__LAKE_FEATURE_A_MAX - 1)

/*
 * Largest LAKE_A_RECORDS blob. Room for a few records with inline data
 * (LAKE_WIRE_RECORD_MAX each) so async calls coalesce, while one message
 * stays a small contiguous allocation. Policy:
 * NLA_POLICY_MAX_LEN(LAKE_GENL_RECORDS_MAX).
 */
#define LAKE_GENL_RECORDS_MAX	16384

/*
 * Device description sent at registration, e.g. "cuda:NVIDIA H200" or "host",
 * including the NUL. Policy: NLA_NUL_STRING with .len = LAKE_GENL_DEVICE_MAX - 1.
 */
#define LAKE_GENL_DEVICE_MAX	128

/* Which fields of struct lake_genl_load the device could measure. */
#define LAKE_LOAD_F_UTIL	(1U << 0)
#define LAKE_LOAD_F_PROCS	(1U << 1)
#define LAKE_LOAD_F_MEM		(1U << 2)
#define LAKE_LOAD_F_QUEUE	(1U << 3)
#define LAKE_LOAD_F_ALL		(LAKE_LOAD_F_UTIL | LAKE_LOAD_F_PROCS | LAKE_LOAD_F_MEM | \
				 LAKE_LOAD_F_QUEUE)

/*
 * Device load over the last sampling period. Fields whose flag is clear are
 * zero (NVML missing, or a host device that has no such notion).
 * Policy: NLA_POLICY_EXACT_LEN(sizeof(struct lake_genl_load)).
 */
struct lake_genl_load {
	__u32 flags;		/* LAKE_LOAD_F_* */
	__u32 util_pct;		/* compute busy time, 0..100 */
	__u32 procs;		/* compute processes on the device, laked included */
	__u32 period_ms;	/* length of the sampling period, > 0 */
	__u64 mem_used;		/* bytes */
	__u64 mem_total;	/* bytes */
	__u32 queued;		/* host device: async operations not yet finished */
	__u32 pad;
};
_Static_assert(sizeof(struct lake_genl_load) == 40, "lake_genl_load is ABI");

/* LAKE_A_TRANSPORT */
#define LAKE_GENL_TRANSPORT_GENL	0
#define LAKE_GENL_TRANSPORT_RING	1

/*
 * LAKE_CMD_RING_SETUP: three distinct eventfds of the sending laked. The
 * kernel signals sq_fd when it puts a call and laked sleeps, watch_fd
 * instead while a worker watches (LAKE_RING_WATCHED); laked writes cq_fd
 * when it puts a reply and the kernel sleeps.
 * Policy: NLA_POLICY_EXACT_LEN(sizeof(struct lake_genl_ring)).
 */
struct lake_genl_ring {
	__s32 sq_fd;
	__s32 cq_fd;
	__s32 watch_fd;
};
_Static_assert(sizeof(struct lake_genl_ring) == 12, "lake_genl_ring is ABI");

#endif /* LAKE_UAPI_GENL_H */
