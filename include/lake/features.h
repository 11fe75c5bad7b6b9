/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The feature registry (lake/registry.h, which explains schemas, histories,
 * vectors and records) as kernel modules use it: named registries in
 * lakelib, stamped with ktime_get_ns(), each shown in debugfs
 * lake/registry/<name> (schema, counters, the newest records).
 *
 * Context: create and destroy sleep (process context). Every other call
 * takes the registry's irq-safe raw spinlock, or no lock at all, and never
 * sleeps, PREEMPT_RT included: begin, capture and commit are safe from
 * block I/O completion, softirq or hard irq. Each costs O(bytes it copies); fetch copies what it
 * returns with interrupts off, so fetch in modest chunks.
 */
#ifndef LAKE_FEATURES_H
#define LAKE_FEATURES_H

#include <lake/registry.h>

struct lake_features;

/*
 * Name: 1..LAKE_REG_NAME_MAX-1 characters, no '/'. ERR_PTR(-EINVAL) for a
 * bad name, schema or size (see lake_reg_create()), (-EEXIST) for a name
 * in use, or (-ENOMEM).
 */
struct lake_features *lake_features_create(const char *name,
					   const struct lake_feature_desc *schema,
					   u32 nr_features, u32 capacity,
					   u32 max_open);
/* No other call on fr may be running or follow. NULL is ignored. */
void lake_features_destroy(struct lake_features *fr);

/* No lock: the schema never changes. */
int lake_features_index(const struct lake_features *fr, const char *name);
size_t lake_features_record_size(const struct lake_features *fr);
const u8 *lake_features_record_feature(const struct lake_features *fr,
				       const struct lake_reg_record *rec,
				       u32 idx, u32 entry);

/* NULL when max_open vectors are open (counted as begin_failed). */
struct lake_reg_vec *lake_features_begin(struct lake_features *fr);
/* Push a value into feature idx's history and refresh it in vec (may be NULL). */
int lake_features_capture(struct lake_features *fr, struct lake_reg_vec *vec,
			  u32 idx, const void *val, u32 len);
int lake_features_commit(struct lake_features *fr, struct lake_reg_vec *vec);
int lake_features_abort(struct lake_features *fr, struct lake_reg_vec *vec);

/* Up to max records with ts_end >= since_ns, oldest first; see lake_reg_fetch(). */
int lake_features_fetch(struct lake_features *fr, u64 since_ns, void *buf,
			size_t buf_len, u32 max);
/* Drop records with ts_end < before_ns; returns how many. */
u32 lake_features_truncate(struct lake_features *fr, u64 before_ns);
void lake_features_get_stats(struct lake_features *fr, struct lake_reg_stats *st);

#endif /* LAKE_FEATURES_H */
