/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Feature registry: named schemas of model inputs, feature vectors captured
 * on hot paths (block I/O submission and completion), and a bounded ring of
 * committed vectors from which a consumer builds its batches.
 *
 * Histories. Every feature is a history of `entries` values of `size` bytes,
 * entry 0 the newest (entries = 1: just the latest value). The registry keeps
 * the current history of each feature. Capturing a value pushes it in at
 * entry 0 and shifts the older ones towards the end, the oldest falling off.
 * A vector is a private copy of all histories: begin() copies the current
 * ones, and capturing through a vector pushes into the registry's history
 * and then refreshes that feature in the vector. So each feature of a
 * vector is the registry's history as it stood at the vector's last capture
 * of it, or at begin(). Capturing with no vector (e.g. a latency seen at
 * completion) only pushes.
 *
 * Vector layout (in open vectors and in records): features in schema order,
 * each entries * size bytes, entry 0 first.
 *
 * Time. Records are stamped ts_begin (begin()) and ts_end (commit()) from the
 * caller's now_ns. The ring is in commit order and ts_end is clamped to be
 * non-decreasing, so commit order is time order even when callers on other
 * CPUs read the clock before taking the lock.
 *
 * Memory and locking. All memory is allocated by create(). The caller owns
 * one lock per registry and holds it around every call marked "lock"; with
 * an irq-safe spinlock those calls may run in any context, hard irq
 * included. Each costs O(bytes it copies): begin and commit one vector,
 * capture one feature, fetch what it returns, format what it prints. Calls
 * marked "no lock" read only the schema, which never changes.
 */
#ifndef LAKE_REGISTRY_H
#define LAKE_REGISTRY_H

#include <lake/port.h>

#define LAKE_REG_NAME_MAX	32	/* registry and feature names, with NUL */
#define LAKE_REG_MAX_FEATURES	64
#define LAKE_REG_MAX_VECTOR	(64u * 1024)	/* bytes of one vector */
#define LAKE_REG_MAX_TOTAL	(64u << 20)	/* bytes of ring + open vectors */
/* format() prints at most this many data bytes per vector. */
#define LAKE_REG_FORMAT_BYTES	32

struct lake_feature_desc {
	const char *name;
	u32 size;	/* bytes per entry */
	u32 entries;	/* history length, >= 1 */
};

/* One committed vector as fetch() returns it; records are 8-byte aligned. */
struct lake_reg_record {
	u64 seq;	/* 1, 2, ... in commit order */
	u64 ts_begin;
	u64 ts_end;
	u8 data[];	/* lake_reg_vector_bytes() bytes */
};

struct lake_reg_stats {
	u32 capacity;
	u32 count;		/* records in the ring */
	u32 max_open;
	u32 open;		/* begun, not yet committed or aborted */
	u64 committed;
	u64 dropped;		/* pushed out of a full ring */
	u64 truncated;
	u64 aborted;
	u64 begin_failed;	/* no free vector */
};

struct lake_reg;
struct lake_reg_vec;

/*
 * Process context (allocates). -EINVAL for a bad name or schema (empty or
 * duplicate names, zero size or entries, totals over the limits above),
 * capacity or max_open 0; -ENOMEM. max_open bounds vectors open at once.
 */
int lake_reg_create(const char *name, const struct lake_feature_desc *schema,
		    u32 nr_features, u32 capacity, u32 max_open,
		    struct lake_reg **regp);
/* Process context; no other call may be running on reg. */
void lake_reg_destroy(struct lake_reg *reg);

/* No lock. */
const char *lake_reg_name(const struct lake_reg *reg);
u32 lake_reg_nr_features(const struct lake_reg *reg);
u32 lake_reg_vector_bytes(const struct lake_reg *reg);
/* No lock. Name, size and entries of feature @idx; NULL past the last. */
const char *lake_reg_feature(const struct lake_reg *reg, u32 idx, u32 *size, u32 *entries);
size_t lake_reg_record_size(const struct lake_reg *reg);
/* No lock. Index of a feature, or -ENOENT. Look up once, capture by index. */
int lake_reg_feature_index(const struct lake_reg *reg, const char *name);
/* No lock. Entry of a feature in a record; NULL if idx or entry is out of range. */
const u8 *lake_reg_record_feature(const struct lake_reg *reg,
				  const struct lake_reg_record *rec,
				  u32 idx, u32 entry);

/* Lock. NULL when max_open vectors are already open (counted). */
struct lake_reg_vec *lake_reg_begin(struct lake_reg *reg, u64 now_ns);
/*
 * Lock. Push a value (len == the feature's size) into the feature's history
 * and refresh it in vec; vec may be NULL. -ENOENT for an unknown feature,
 * -EINVAL for a wrong length or a vec that is not open in reg.
 */
int lake_reg_capture(struct lake_reg *reg, struct lake_reg_vec *vec,
		     u32 idx, const void *val, u32 len);
/* Lock. As capture(), O(features) lookup first. */
int lake_reg_capture_name(struct lake_reg *reg, struct lake_reg_vec *vec,
			  const char *name, const void *val, u32 len);
/* Lock. Append vec to the ring (dropping the oldest when full); -EINVAL. */
int lake_reg_commit(struct lake_reg *reg, struct lake_reg_vec *vec,
		    u64 now_ns);
/* Lock. Release vec unrecorded; -EINVAL. */
int lake_reg_abort(struct lake_reg *reg, struct lake_reg_vec *vec);

/*
 * Lock. Copy out, oldest first, up to max records with ts_end >= since_ns,
 * each lake_reg_record_size() bytes. Returns how many, or -EINVAL when buf
 * cannot hold one record. Nothing is removed.
 */
int lake_reg_fetch(struct lake_reg *reg, u64 since_ns, void *buf,
		   size_t buf_len, u32 max);
/* Lock. Remove records with ts_end < before_ns; returns how many. */
u32 lake_reg_truncate(struct lake_reg *reg, u64 before_ns);

/* Lock. */
void lake_reg_get_stats(const struct lake_reg *reg, struct lake_reg_stats *st);
/*
 * Lock. The debugfs view: schema, counters, the newest `newest` records,
 * newest first. Writes at most len bytes, NUL-terminated when len > 0, and
 * returns the full length (without NUL) as snprintf() does.
 */
size_t lake_reg_format(const struct lake_reg *reg, char *buf, size_t len,
		       u32 newest);

#endif /* LAKE_REGISTRY_H */
