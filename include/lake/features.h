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

/*
 * The exporter: a file's read() giving each open the registry's records as
 * text, once each, oldest first: a header line, then one line per record
 * committed after the previous read's last one (an empty read: nothing
 * new). Open one per struct file (in .open; release in .release) and call
 * read from .read. Per open: a cursor (the last record's ts_end and seq:
 * ties on ts_end are told apart by seq), a mutex (concurrent reads of one
 * open take turns: each byte goes to exactly one of them, and a read of a
 * chunk's size or more gets whole lines), records fetched
 * LAKE_FEATURES_READER_CHUNK at a time (fetch runs with interrupts off).
 * Records overwritten before a reader gets to them are not seen.
 *
 * fmt writes @r's line, newline included, into buf (len bytes:
 * LAKE_FEATURES_LINE_MAX) and returns what snprintf() would: the whole
 * line's length. A line of len bytes or more is never cut: the read that
 * meets it fails with -EOVERFLOW (logged) and the record is skipped.
 * header (may be NULL) is copied, newline included, and given to each open
 * once; at most LAKE_FEATURES_LINE_MAX - 1 bytes.
 */
#define LAKE_FEATURES_READER_CHUNK	32
#define LAKE_FEATURES_LINE_MAX		1024	/* sysmon's lines, 64 counts: up to 776 */

struct lake_features_reader;
typedef size_t (*lake_features_fmt_t)(const struct lake_features *fr,
				      const struct lake_reg_record *r,
				      char *buf, size_t len, void *arg);

/* ERR_PTR(-EINVAL) for a header too long or no fmt, (-ENOMEM). Sleeps. */
struct lake_features_reader *lake_features_reader_open(struct lake_features *fr,
						       const char *header,
						       lake_features_fmt_t fmt,
						       void *arg);
/* A file's .read: the next bytes; 0 when nothing is new. Sleeps. */
ssize_t lake_features_reader_read(struct lake_features_reader *rd,
				  char __user *ubuf, size_t len, loff_t *ppos);
/* NULL is ignored. */
void lake_features_reader_release(struct lake_features_reader *rd);

#endif /* LAKE_FEATURES_H */
