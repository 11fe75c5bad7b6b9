/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * The "lake" Generic Netlink family: the commands and attributes that lakelib
 * and laked exchange. The call and reply records inside LAKE_A_RECORDS are
 * described in lake/wire.h. Every size that bounds an attribute is a #define
 * here so that the kernel policy and the daemon's checks use the same number.
 *
 * All integers are in host byte order: both ends run on the same machine.
 */
#ifndef LAKE_GENL_H
#define LAKE_GENL_H

#include <lake/port.h>

#define LAKE_GENL_NAME		"lake"
#define LAKE_GENL_VERSION	1

/*
 * Direction and attributes of each command. Commands sent by laked need
 * GENL_ADMIN_PERM; only the registered daemon's portid may send any but
 * LAKE_CMD_REGISTER.
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
	__LAKE_A_MAX,
};
#define LAKE_A_MAX	(__LAKE_A_MAX - 1)

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
	u32 flags;		/* LAKE_LOAD_F_* */
	u32 util_pct;		/* compute busy time, 0..100 */
	u32 procs;		/* compute processes on the device, laked included */
	u32 period_ms;		/* length of the sampling period, > 0 */
	u64 mem_used;		/* bytes */
	u64 mem_total;		/* bytes */
	u32 queued;		/* host device: async operations not yet finished */
	u32 pad;
};
_Static_assert(sizeof(struct lake_genl_load) == 40, "lake_genl_load is ABI");

#endif /* LAKE_GENL_H */
