// SPDX-License-Identifier: GPL-2.0
/*
 * Feature registry core: schema, histories, open vectors and the ring of
 * committed records. See include/lake/registry.h for the model.
 *
 * One allocation at create time holds everything, laid out as
 *
 *   struct lake_reg | features | free-vector stack | current histories |
 *   open vectors (max_open slots) | ring (capacity records)
 *
 * The current histories use the vector layout, so begin() is one memcpy and
 * a capture moves bytes inside a single feature. Open vectors come from a
 * stack of free slot indices: O(1), no search, nothing to allocate when the
 * caller is in irq context. The ring stores records in the exact form
 * fetch() returns, so fetching is at most two memcpys, and it is sorted by
 * ts_end, so fetch and truncate find their start by binary search.
 */
#include <lake/port.h>
#include <lake/registry.h>

struct feature {
	char name[LAKE_REG_NAME_MAX];
	u32 size;
	u32 entries;
	u32 offset;		/* of entry 0 in a vector */
	u32 bytes;		/* size * entries */
};

struct lake_reg_vec {
	u64 ts_begin;
	u32 index;		/* slot number, fixed at create */
	u32 open;
	u8 data[];
};

struct lake_reg {
	char name[LAKE_REG_NAME_MAX];
	u32 nr_features;
	u32 vector_bytes;
	u32 capacity;
	u32 max_open;
	size_t rec_size;
	size_t slot_size;

	struct feature *feat;
	u32 *free_slot;
	u32 nr_free;
	u8 *live;		/* current histories */
	u8 *pool;		/* open vectors */
	u8 *ring;

	u32 head;		/* slot of the oldest record */
	u32 count;
	u64 last_ts_end;

	u64 committed;		/* also the last seq */
	u64 dropped;
	u64 truncated;
	u64 aborted;
	u64 begin_failed;
};

static bool name_ok(const char *name)
{
	size_t len;

	if (!name)
		return false;
	len = strnlen(name, LAKE_REG_NAME_MAX);
	return len && len < LAKE_REG_NAME_MAX;
}

/* Returns the vector size, or 0 if the schema is invalid. */
static u32 schema_bytes(const struct lake_feature_desc *schema, u32 nr)
{
	u64 total = 0;
	u32 i, j;

	if (!schema || nr == 0 || nr > LAKE_REG_MAX_FEATURES)
		return 0;
	for (i = 0; i < nr; i++) {
		const struct lake_feature_desc *d = &schema[i];

		if (!name_ok(d->name) || !d->size || !d->entries)
			return 0;
		for (j = 0; j < i; j++)
			if (!strcmp(schema[j].name, d->name))
				return 0;
		total += (u64)d->size * d->entries;
		if (total > LAKE_REG_MAX_VECTOR)
			return 0;
	}
	return (u32)total;
}

static struct lake_reg_vec *slot(const struct lake_reg *reg, u32 i)
{
	return (struct lake_reg_vec *)(reg->pool + i * reg->slot_size);
}

static struct lake_reg_record *record(const struct lake_reg *reg, u32 i)
{
	return (struct lake_reg_record *)(reg->ring + i * reg->rec_size);
}

/* Ring slot of the i-th oldest record, i < capacity. */
static u32 ring_slot(const struct lake_reg *reg, u32 i)
{
	u32 s = reg->head + i;

	return s >= reg->capacity ? s - reg->capacity : s;
}

int lake_reg_create(const char *name, const struct lake_feature_desc *schema,
		    u32 nr_features, u32 capacity, u32 max_open,
		    struct lake_reg **regp)
{
	size_t off_feat, off_free, off_live, off_pool, off_ring, size;
	size_t rec_size, slot_size;
	struct lake_reg *reg;
	u32 vbytes, off, i;

	vbytes = schema_bytes(schema, nr_features);
	if (!vbytes || !name_ok(name) || !capacity || !max_open)
		return -EINVAL;
	rec_size = LAKE_ALIGN_UP(sizeof(struct lake_reg_record) + vbytes, 8);
	slot_size = LAKE_ALIGN_UP(sizeof(struct lake_reg_vec) + vbytes, 8);
	if ((u64)capacity * rec_size + (u64)max_open * slot_size >
	    LAKE_REG_MAX_TOTAL)
		return -EINVAL;

	off_feat = LAKE_ALIGN_UP(sizeof(*reg), 8);
	off_free = off_feat + nr_features * sizeof(struct feature);
	off_live = LAKE_ALIGN_UP(off_free + max_open * sizeof(u32), 8);
	off_pool = LAKE_ALIGN_UP(off_live + vbytes, 8);
	off_ring = off_pool + max_open * slot_size;
	size = off_ring + capacity * rec_size;

	reg = lake_port_kvzalloc(size);
	if (!reg)
		return -ENOMEM;
	memcpy(reg->name, name, strlen(name));
	reg->nr_features = nr_features;
	reg->vector_bytes = vbytes;
	reg->capacity = capacity;
	reg->max_open = max_open;
	reg->rec_size = rec_size;
	reg->slot_size = slot_size;
	reg->feat = (struct feature *)((u8 *)reg + off_feat);
	reg->free_slot = (u32 *)((u8 *)reg + off_free);
	reg->live = (u8 *)reg + off_live;
	reg->pool = (u8 *)reg + off_pool;
	reg->ring = (u8 *)reg + off_ring;

	for (i = 0, off = 0; i < nr_features; i++) {
		struct feature *f = &reg->feat[i];

		memcpy(f->name, schema[i].name, strlen(schema[i].name));
		f->size = schema[i].size;
		f->entries = schema[i].entries;
		f->offset = off;
		f->bytes = f->size * f->entries;
		off += f->bytes;
	}
	/* Pop order 0, 1, 2, ...: the stack holds max_open - 1 at the bottom. */
	for (i = 0; i < max_open; i++) {
		reg->free_slot[i] = max_open - 1 - i;
		slot(reg, i)->index = i;
	}
	reg->nr_free = max_open;
	*regp = reg;
	return 0;
}

void lake_reg_destroy(struct lake_reg *reg)
{
	lake_port_kvfree(reg);
}

const char *lake_reg_name(const struct lake_reg *reg)
{
	return reg->name;
}

u32 lake_reg_nr_features(const struct lake_reg *reg)
{
	return reg->nr_features;
}

const char *lake_reg_feature(const struct lake_reg *reg, u32 idx, u32 *size, u32 *entries)
{
	if (idx >= reg->nr_features)
		return NULL;
	*size = reg->feat[idx].size;
	*entries = reg->feat[idx].entries;
	return reg->feat[idx].name;
}

u32 lake_reg_vector_bytes(const struct lake_reg *reg)
{
	return reg->vector_bytes;
}

size_t lake_reg_record_size(const struct lake_reg *reg)
{
	return reg->rec_size;
}

int lake_reg_feature_index(const struct lake_reg *reg, const char *name)
{
	u32 i;

	for (i = 0; i < reg->nr_features; i++)
		if (!strcmp(reg->feat[i].name, name))
			return i;
	return -ENOENT;
}

const u8 *lake_reg_record_feature(const struct lake_reg *reg,
				  const struct lake_reg_record *rec,
				  u32 idx, u32 entry)
{
	const struct feature *f;

	if (idx >= reg->nr_features)
		return NULL;
	f = &reg->feat[idx];
	if (entry >= f->entries)
		return NULL;
	return rec->data + f->offset + entry * f->size;
}

static bool vec_open(const struct lake_reg *reg, const struct lake_reg_vec *vec)
{
	const u8 *p = (const u8 *)vec;

	if (p < reg->pool || p >= reg->pool + reg->max_open * reg->slot_size)
		return false;
	if ((size_t)(p - reg->pool) % reg->slot_size)
		return false;
	return vec->open;
}

static void vec_release(struct lake_reg *reg, struct lake_reg_vec *vec)
{
	vec->open = 0;
	reg->free_slot[reg->nr_free++] = vec->index;
}

struct lake_reg_vec *lake_reg_begin(struct lake_reg *reg, u64 now_ns)
{
	struct lake_reg_vec *vec;

	if (unlikely(!reg->nr_free)) {
		reg->begin_failed++;
		return NULL;
	}
	vec = slot(reg, reg->free_slot[--reg->nr_free]);
	vec->open = 1;
	vec->ts_begin = now_ns;
	memcpy(vec->data, reg->live, reg->vector_bytes);
	return vec;
}

int lake_reg_capture(struct lake_reg *reg, struct lake_reg_vec *vec,
		     u32 idx, const void *val, u32 len)
{
	const struct feature *f;
	u8 *h;

	if (unlikely(idx >= reg->nr_features))
		return -ENOENT;
	f = &reg->feat[idx];
	if (unlikely(!val || len != f->size || (vec && !vec_open(reg, vec))))
		return -EINVAL;

	h = reg->live + f->offset;
	if (f->entries > 1)
		memmove(h + f->size, h, f->bytes - f->size);
	memcpy(h, val, len);
	if (vec)
		memcpy(vec->data + f->offset, h, f->bytes);
	return 0;
}

int lake_reg_capture_name(struct lake_reg *reg, struct lake_reg_vec *vec,
			  const char *name, const void *val, u32 len)
{
	int idx = lake_reg_feature_index(reg, name);

	if (idx < 0)
		return idx;
	return lake_reg_capture(reg, vec, idx, val, len);
}

int lake_reg_commit(struct lake_reg *reg, struct lake_reg_vec *vec,
		    u64 now_ns)
{
	struct lake_reg_record *rec;

	if (unlikely(!vec_open(reg, vec)))
		return -EINVAL;
	if (now_ns < reg->last_ts_end)
		now_ns = reg->last_ts_end;
	reg->last_ts_end = now_ns;

	if (reg->count == reg->capacity) {
		reg->head = ring_slot(reg, 1);
		reg->count--;
		reg->dropped++;
	}
	rec = record(reg, ring_slot(reg, reg->count));
	rec->seq = ++reg->committed;
	rec->ts_begin = vec->ts_begin;
	rec->ts_end = now_ns;
	memcpy(rec->data, vec->data, reg->vector_bytes);
	reg->count++;
	vec_release(reg, vec);
	return 0;
}

int lake_reg_abort(struct lake_reg *reg, struct lake_reg_vec *vec)
{
	if (!vec_open(reg, vec))
		return -EINVAL;
	reg->aborted++;
	vec_release(reg, vec);
	return 0;
}

/* Number of records, oldest first, with ts_end < ts. */
static u32 count_before(const struct lake_reg *reg, u64 ts)
{
	u32 lo = 0, hi = reg->count;

	while (lo < hi) {
		u32 mid = lo + (hi - lo) / 2;

		if (record(reg, ring_slot(reg, mid))->ts_end < ts)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int lake_reg_fetch(struct lake_reg *reg, u64 since_ns, void *buf,
		   size_t buf_len, u32 max)
{
	u32 first, n, chunk;

	if (buf_len < reg->rec_size)
		return -EINVAL;
	first = count_before(reg, since_ns);
	n = reg->count - first;
	if (n > max)
		n = max;
	if (n > buf_len / reg->rec_size)
		n = buf_len / reg->rec_size;

	first = ring_slot(reg, first);
	chunk = reg->capacity - first;
	if (chunk > n)
		chunk = n;
	memcpy(buf, record(reg, first), chunk * reg->rec_size);
	memcpy((u8 *)buf + chunk * reg->rec_size, reg->ring,
	       (n - chunk) * reg->rec_size);
	return n;
}

u32 lake_reg_truncate(struct lake_reg *reg, u64 before_ns)
{
	u32 n = count_before(reg, before_ns);

	reg->head = ring_slot(reg, n);
	reg->count -= n;
	reg->truncated += n;
	return n;
}

void lake_reg_get_stats(const struct lake_reg *reg, struct lake_reg_stats *st)
{
	st->capacity = reg->capacity;
	st->count = reg->count;
	st->max_open = reg->max_open;
	st->open = reg->max_open - reg->nr_free;
	st->committed = reg->committed;
	st->dropped = reg->dropped;
	st->truncated = reg->truncated;
	st->aborted = reg->aborted;
	st->begin_failed = reg->begin_failed;
}

/*
 * Bounded output that keeps counting past the end, so the result is an
 * exact prefix of the full text and the return value its full length.
 */
struct out {
	char *buf;
	size_t len;
	size_t pos;
};

static char *out_ptr(const struct out *o)
{
	return o->pos < o->len ? o->buf + o->pos : NULL;
}

static size_t out_room(const struct out *o)
{
	return o->pos < o->len ? o->len - o->pos : 0;
}

static void out_add(struct out *o, int n)
{
	if (n > 0)
		o->pos += n;
}

#define OUT(o, ...) out_add(o, snprintf(out_ptr(o), out_room(o), __VA_ARGS__))

static void format_record(const struct lake_reg *reg, struct out *o,
			  const struct lake_reg_record *rec)
{
	u32 i, n = reg->vector_bytes;

	OUT(o, "record seq %llu ts_begin %llu ts_end %llu data ",
	    (unsigned long long)rec->seq, (unsigned long long)rec->ts_begin,
	    (unsigned long long)rec->ts_end);
	if (n > LAKE_REG_FORMAT_BYTES)
		n = LAKE_REG_FORMAT_BYTES;
	for (i = 0; i < n; i++)
		OUT(o, "%02x", rec->data[i]);
	OUT(o, "%s\n", n < reg->vector_bytes ? "..." : "");
}

size_t lake_reg_format(const struct lake_reg *reg, char *buf, size_t len,
		       u32 newest)
{
	struct out o = { .buf = buf, .len = len };
	struct lake_reg_stats st;
	u32 i;

	lake_reg_get_stats(reg, &st);
	OUT(&o, "registry %s capacity %u count %u open %u/%u vector_bytes %u\n",
	    reg->name, st.capacity, st.count, st.open, st.max_open,
	    reg->vector_bytes);
	OUT(&o, "committed %llu dropped %llu truncated %llu aborted %llu begin_failed %llu\n",
	    (unsigned long long)st.committed, (unsigned long long)st.dropped,
	    (unsigned long long)st.truncated, (unsigned long long)st.aborted,
	    (unsigned long long)st.begin_failed);
	for (i = 0; i < reg->nr_features; i++)
		OUT(&o, "feature %u %s size %u entries %u\n", i,
		    reg->feat[i].name, reg->feat[i].size, reg->feat[i].entries);
	if (newest > reg->count)
		newest = reg->count;
	for (i = 0; i < newest; i++)
		format_record(reg, &o,
			      record(reg, ring_slot(reg, reg->count - 1 - i)));
	return o.pos;
}
