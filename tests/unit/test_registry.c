// SPDX-License-Identifier: GPL-2.0
/* Host tests of the feature registry core (common/registry_core.c). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <lake/registry.h>

/* LinnOS-like: two histories of 4 and the current pending count. */
static const struct lake_feature_desc linnos[] = {
	{ "pending_io", 2, 4 },
	{ "latency_us", 2, 4 },
	{ "cur_pending", 2, 1 },
};

enum { PENDING, LATENCY, CUR };

static struct lake_reg *create(u32 capacity, u32 max_open)
{
	struct lake_reg *reg = NULL;

	assert_int_equal(lake_reg_create("linnos", linnos, 3, capacity,
					 max_open, &reg), 0);
	assert_non_null(reg);
	return reg;
}

static void capture16(struct lake_reg *reg, struct lake_reg_vec *vec,
		      u32 idx, u16 v)
{
	assert_int_equal(lake_reg_capture(reg, vec, idx, &v, sizeof(v)), 0);
}

/* One vector whose cur_pending is v, committed at ts. */
static void commit_one(struct lake_reg *reg, u16 v, u64 ts)
{
	struct lake_reg_vec *vec = lake_reg_begin(reg, ts - 1);

	assert_non_null(vec);
	capture16(reg, vec, CUR, v);
	assert_int_equal(lake_reg_commit(reg, vec, ts), 0);
}

static u16 field16(struct lake_reg *reg, const struct lake_reg_record *rec,
		   u32 idx, u32 entry)
{
	const u8 *p = lake_reg_record_feature(reg, rec, idx, entry);
	u16 v;

	assert_non_null(p);
	memcpy(&v, p, sizeof(v));
	return v;
}

static const struct lake_reg_record *rec_at(struct lake_reg *reg,
					    const void *buf, int i)
{
	return (const void *)((const u8 *)buf + i * lake_reg_record_size(reg));
}

static int fetch(struct lake_reg *reg, u64 since, u8 *buf, u32 max)
{
	return lake_reg_fetch(reg, since, buf, 64 * lake_reg_record_size(reg),
			      max);
}

static void test_layout(void **state)
{
	struct lake_reg *reg = create(8, 2);

	(void)state;
	assert_string_equal(lake_reg_name(reg), "linnos");
	assert_int_equal(lake_reg_nr_features(reg), 3);
	assert_int_equal(lake_reg_vector_bytes(reg), 18);
	assert_int_equal(lake_reg_record_size(reg) % 8, 0);
	assert_true(lake_reg_record_size(reg) >=
		    sizeof(struct lake_reg_record) + 18);
	assert_int_equal(lake_reg_feature_index(reg, "latency_us"), LATENCY);
	assert_int_equal(lake_reg_feature_index(reg, "cur_pending"), CUR);
	assert_int_equal(lake_reg_feature_index(reg, "latency"), -ENOENT);
	lake_reg_destroy(reg);
}

static void test_order(void **state)
{
	struct lake_reg *reg = create(8, 2);
	u8 buf[64 * 64];
	int i, n;

	(void)state;
	assert_int_equal(fetch(reg, 0, buf, 64), 0);
	for (i = 0; i < 5; i++)
		commit_one(reg, 100 + i, 10 * (i + 1));
	n = fetch(reg, 0, buf, 64);
	assert_int_equal(n, 5);
	for (i = 0; i < n; i++) {
		const struct lake_reg_record *r = rec_at(reg, buf, i);

		assert_int_equal(r->seq, i + 1);
		assert_int_equal(r->ts_begin, 10 * (i + 1) - 1);
		assert_int_equal(r->ts_end, 10 * (i + 1));
		assert_int_equal(field16(reg, r, CUR, 0), 100 + i);
	}
	/* Fetching removes nothing. */
	assert_int_equal(fetch(reg, 0, buf, 64), 5);
	lake_reg_destroy(reg);
}

static void test_wrap_and_drops(void **state)
{
	struct lake_reg *reg = create(4, 1);
	struct lake_reg_stats st;
	u8 buf[64 * 64];
	int i, n;

	(void)state;
	for (i = 1; i <= 10; i++)
		commit_one(reg, i, i);
	lake_reg_get_stats(reg, &st);
	assert_int_equal(st.count, 4);
	assert_int_equal(st.committed, 10);
	assert_int_equal(st.dropped, 6);

	n = fetch(reg, 0, buf, 64);
	assert_int_equal(n, 4);
	for (i = 0; i < n; i++) {
		assert_int_equal(rec_at(reg, buf, i)->seq, 7 + i);
		assert_int_equal(field16(reg, rec_at(reg, buf, i), CUR, 0),
				 7 + i);
	}
	/* A range that starts inside the wrapped part. */
	n = fetch(reg, 9, buf, 64);
	assert_int_equal(n, 2);
	assert_int_equal(rec_at(reg, buf, 0)->seq, 9);
	assert_int_equal(rec_at(reg, buf, 1)->seq, 10);
	lake_reg_destroy(reg);
}

static void test_history(void **state)
{
	struct lake_reg *reg = create(8, 2);
	struct lake_reg_vec *vec;
	u8 buf[64 * 64];
	const struct lake_reg_record *r;
	static const u16 want1[] = { 4, 3, 2, 1 };
	static const u16 want2[] = { 5, 4, 3, 2 };
	u32 e;

	(void)state;
	/* Completions push latencies with no vector open. */
	capture16(reg, NULL, LATENCY, 1);
	capture16(reg, NULL, LATENCY, 2);
	capture16(reg, NULL, LATENCY, 3);

	vec = lake_reg_begin(reg, 1);
	assert_non_null(vec);
	capture16(reg, vec, LATENCY, 4);
	/* Pushed after this vector's last capture: not in it. */
	capture16(reg, NULL, LATENCY, 5);
	capture16(reg, vec, CUR, 7);
	assert_int_equal(lake_reg_commit(reg, vec, 2), 0);

	vec = lake_reg_begin(reg, 3);
	assert_non_null(vec);
	assert_int_equal(lake_reg_commit(reg, vec, 4), 0);

	assert_int_equal(fetch(reg, 0, buf, 64), 2);
	r = rec_at(reg, buf, 0);
	for (e = 0; e < 4; e++)
		assert_int_equal(field16(reg, r, LATENCY, e), want1[e]);
	assert_int_equal(field16(reg, r, CUR, 0), 7);
	/* Never captured: all zero. */
	for (e = 0; e < 4; e++)
		assert_int_equal(field16(reg, r, PENDING, e), 0);

	/* The second vector snapshots the current histories at begin. */
	r = rec_at(reg, buf, 1);
	for (e = 0; e < 4; e++)
		assert_int_equal(field16(reg, r, LATENCY, e), want2[e]);
	assert_int_equal(field16(reg, r, CUR, 0), 7);

	assert_null(lake_reg_record_feature(reg, r, LATENCY, 4));
	assert_null(lake_reg_record_feature(reg, r, CUR, 1));
	assert_null(lake_reg_record_feature(reg, r, 3, 0));
	lake_reg_destroy(reg);
}

/* Every history length shifts by one entry of its own size, newest first. */
static void test_history_lengths(void **state)
{
	static const struct lake_feature_desc desc[] = {
		{ "two", 4, 2 }, { "three", 1, 3 }, { "one", 8, 1 }, { "five", 2, 5 },
	};
	struct lake_reg *reg = NULL;
	struct lake_reg_vec *vec;
	const struct lake_reg_record *r;
	u8 buf[64 * 64];
	u32 i, e, f, k;

	(void)state;
	assert_int_equal(lake_reg_create("lengths", desc, 4, 8, 1, &reg), 0);
	for (i = 1; i <= 7; i++) {
		vec = lake_reg_begin(reg, 2 * i);
		assert_non_null(vec);
		for (f = 0; f < 4; f++) {
			u8 v[8];

			memset(v, 0, sizeof(v));
			v[0] = (u8)(16 * f + i);
			assert_int_equal(lake_reg_capture(reg, vec, f, v, desc[f].size), 0);
		}
		assert_int_equal(lake_reg_commit(reg, vec, 2 * i + 1), 0);
	}
	assert_int_equal(fetch(reg, 0, buf, 64), 7);
	for (i = 1; i <= 7; i++) {
		r = rec_at(reg, buf, i - 1);
		for (f = 0; f < 4; f++) {
			for (e = 0; e < desc[f].entries; e++) {
				const u8 *p = lake_reg_record_feature(reg, r, f, e);
				u8 want = e < i ? (u8)(16 * f + i - e) : 0;

				assert_non_null(p);
				if (p[0] != want)
					fail_msg("vector %u, %s[%u]: %u, want %u", i, desc[f].name,
						 e, p[0], want);
				for (k = 1; k < desc[f].size; k++)
					assert_int_equal(p[k], 0);
			}
			assert_null(lake_reg_record_feature(reg, r, f, desc[f].entries));
		}
	}
	lake_reg_destroy(reg);
}

/* Open vectors are private: each keeps the value it captured. */
static void test_concurrent_vectors(void **state)
{
	struct lake_reg *reg = create(8, 2);
	struct lake_reg_vec *a, *b;
	struct lake_reg_stats st;
	u8 buf[64 * 64];

	(void)state;
	a = lake_reg_begin(reg, 1);
	b = lake_reg_begin(reg, 2);
	assert_non_null(a);
	assert_non_null(b);
	assert_ptr_not_equal(a, b);
	assert_null(lake_reg_begin(reg, 3));
	lake_reg_get_stats(reg, &st);
	assert_int_equal(st.open, 2);
	assert_int_equal(st.begin_failed, 1);

	capture16(reg, a, CUR, 5);
	capture16(reg, b, CUR, 7);
	capture16(reg, a, PENDING, 1);
	capture16(reg, b, PENDING, 2);
	assert_int_equal(lake_reg_commit(reg, b, 5), 0);
	assert_int_equal(lake_reg_commit(reg, a, 6), 0);

	assert_int_equal(fetch(reg, 0, buf, 64), 2);
	assert_int_equal(field16(reg, rec_at(reg, buf, 0), CUR, 0), 7);
	assert_int_equal(field16(reg, rec_at(reg, buf, 0), PENDING, 0), 2);
	assert_int_equal(field16(reg, rec_at(reg, buf, 0), PENDING, 1), 1);
	assert_int_equal(field16(reg, rec_at(reg, buf, 1), CUR, 0), 5);
	assert_int_equal(field16(reg, rec_at(reg, buf, 1), PENDING, 0), 1);
	assert_int_equal(field16(reg, rec_at(reg, buf, 1), PENDING, 1), 0);
	assert_int_equal(rec_at(reg, buf, 1)->ts_begin, 1);

	/* Abort frees the slot; the ring does not see the vector. */
	a = lake_reg_begin(reg, 7);
	assert_non_null(a);
	assert_int_equal(lake_reg_abort(reg, a), 0);
	assert_int_equal(lake_reg_abort(reg, a), -EINVAL);
	lake_reg_get_stats(reg, &st);
	assert_int_equal(st.open, 0);
	assert_int_equal(st.aborted, 1);
	assert_int_equal(st.count, 2);
	lake_reg_destroy(reg);
}

static void test_time_ranges(void **state)
{
	struct lake_reg *reg = create(8, 1);
	struct lake_reg_stats st;
	u8 buf[64 * 64];
	int i;

	(void)state;
	for (i = 1; i <= 5; i++)
		commit_one(reg, i, 10 * i);
	assert_int_equal(fetch(reg, 30, buf, 64), 3);
	assert_int_equal(rec_at(reg, buf, 0)->ts_end, 30);
	assert_int_equal(fetch(reg, 31, buf, 64), 2);
	assert_int_equal(rec_at(reg, buf, 0)->ts_end, 40);
	assert_int_equal(fetch(reg, 51, buf, 64), 0);
	assert_int_equal(fetch(reg, 0, buf, 2), 2);
	assert_int_equal(rec_at(reg, buf, 1)->ts_end, 20);
	assert_int_equal(fetch(reg, 0, buf, 0), 0);
	/* The buffer bounds the count too. */
	assert_int_equal(lake_reg_fetch(reg, 0, buf,
					2 * lake_reg_record_size(reg) + 7, 64),
			 2);
	assert_int_equal(lake_reg_fetch(reg, 0, buf,
					lake_reg_record_size(reg) - 1, 64),
			 -EINVAL);

	assert_int_equal(lake_reg_truncate(reg, 30), 2);
	assert_int_equal(lake_reg_truncate(reg, 30), 0);
	assert_int_equal(fetch(reg, 0, buf, 64), 3);
	assert_int_equal(rec_at(reg, buf, 0)->ts_end, 30);
	assert_int_equal(lake_reg_truncate(reg, 1000), 3);
	assert_int_equal(fetch(reg, 0, buf, 64), 0);
	lake_reg_get_stats(reg, &st);
	assert_int_equal(st.truncated, 5);
	assert_int_equal(st.count, 0);
	assert_int_equal(st.dropped, 0);

	/* The ring keeps going after it was emptied, across the wrap. */
	for (i = 6; i <= 15; i++)
		commit_one(reg, i, 10 * i);
	assert_int_equal(lake_reg_truncate(reg, 125), 5);
	assert_int_equal(fetch(reg, 0, buf, 64), 3);
	assert_int_equal(rec_at(reg, buf, 0)->ts_end, 130);
	assert_int_equal(rec_at(reg, buf, 2)->seq, 15);
	lake_reg_destroy(reg);
}

/* A commit that read the clock before a later one still sorts in time. */
static void test_ts_end_never_goes_back(void **state)
{
	struct lake_reg *reg = create(8, 1);
	u8 buf[64 * 64];

	(void)state;
	commit_one(reg, 1, 100);
	commit_one(reg, 2, 90);
	assert_int_equal(fetch(reg, 0, buf, 64), 2);
	assert_int_equal(rec_at(reg, buf, 1)->ts_end, 100);
	assert_int_equal(rec_at(reg, buf, 1)->ts_begin, 89);
	assert_int_equal(fetch(reg, 100, buf, 64), 2);
	lake_reg_destroy(reg);
}

static void test_capture_errors(void **state)
{
	struct lake_reg *reg = create(8, 2), *other = create(8, 2);
	struct lake_reg_vec *vec, *foreign;
	u8 buf[64 * 64];
	u32 four = 4;
	u8 one = 1;
	u16 v = 9;

	(void)state;
	vec = lake_reg_begin(reg, 1);
	foreign = lake_reg_begin(other, 1);
	assert_non_null(vec);
	assert_non_null(foreign);

	assert_int_equal(lake_reg_capture(reg, vec, 3, &v, 2), -ENOENT);
	assert_int_equal(lake_reg_capture(reg, vec, ~0u, &v, 2), -ENOENT);
	assert_int_equal(lake_reg_capture_name(reg, vec, "nope", &v, 2),
			 -ENOENT);
	assert_int_equal(lake_reg_capture(reg, vec, CUR, &four, 4), -EINVAL);
	assert_int_equal(lake_reg_capture(reg, vec, CUR, &one, 1), -EINVAL);
	assert_int_equal(lake_reg_capture(reg, vec, CUR, NULL, 2), -EINVAL);
	assert_int_equal(lake_reg_capture(reg, foreign, CUR, &v, 2), -EINVAL);
	assert_int_equal(lake_reg_capture(reg, (void *)((u8 *)vec + 8), CUR,
					  &v, 2), -EINVAL);
	assert_int_equal(lake_reg_commit(reg, foreign, 2), -EINVAL);

	assert_int_equal(lake_reg_capture_name(reg, vec, "cur_pending", &v, 2),
			 0);
	assert_int_equal(lake_reg_commit(reg, vec, 2), 0);
	/* Committed: the handle is dead. */
	assert_int_equal(lake_reg_commit(reg, vec, 3), -EINVAL);
	assert_int_equal(lake_reg_capture(reg, vec, CUR, &v, 2), -EINVAL);

	/* Failed captures changed nothing. */
	vec = lake_reg_begin(reg, 4);
	assert_int_equal(lake_reg_commit(reg, vec, 5), 0);
	assert_int_equal(fetch(reg, 0, buf, 64), 2);
	assert_int_equal(field16(reg, rec_at(reg, buf, 0), CUR, 0), 9);
	assert_int_equal(field16(reg, rec_at(reg, buf, 1), CUR, 0), 9);
	assert_int_equal(lake_reg_abort(other, foreign), 0);
	lake_reg_destroy(other);
	lake_reg_destroy(reg);
}

struct schema_case {
	const char *what;
	const char *name;
	struct lake_feature_desc f[3];
	u32 nr;
	u32 capacity;
	u32 max_open;
};

#define LONG_NAME "feature_name_of_thirty_two_chars"

static const struct schema_case bad_schemas[] = {
	{ "empty feature name", "r", { { "", 1, 1 } }, 1, 8, 1 },
	{ "no feature name", "r", { { NULL, 1, 1 } }, 1, 8, 1 },
	{ "long feature name", "r", { { LONG_NAME, 1, 1 } }, 1, 8, 1 },
	{ "duplicate", "r", { { "a", 1, 1 }, { "b", 1, 1 }, { "a", 2, 1 } },
	  3, 8, 1 },
	{ "zero size", "r", { { "a", 1, 1 }, { "b", 0, 1 } }, 2, 8, 1 },
	{ "zero entries", "r", { { "a", 1, 0 } }, 1, 8, 1 },
	{ "no features", "r", { { "a", 1, 1 } }, 0, 8, 1 },
	{ "too many features", "r", { { "a", 1, 1 } },
	  LAKE_REG_MAX_FEATURES + 1, 8, 1 },
	{ "vector too big", "r", { { "a", 40000, 1 }, { "b", 20000, 2 } },
	  2, 8, 1 },
	{ "size x entries overflows", "r", { { "a", 0xffffffffu, 0xffffffffu } },
	  1, 8, 1 },
	{ "ring too big", "r", { { "a", 1000, 1 } }, 1, 1u << 20, 1 },
	{ "open vectors too big", "r", { { "a", 1000, 1 } }, 1, 1, 1u << 20 },
	{ "zero capacity", "r", { { "a", 1, 1 } }, 1, 0, 1 },
	{ "zero max_open", "r", { { "a", 1, 1 } }, 1, 8, 0 },
	{ "empty registry name", "", { { "a", 1, 1 } }, 1, 8, 1 },
	{ "long registry name", LONG_NAME, { { "a", 1, 1 } }, 1, 8, 1 },
};

static void test_schema_errors(void **state)
{
	struct lake_feature_desc many[LAKE_REG_MAX_FEATURES + 1];
	char names[LAKE_REG_MAX_FEATURES + 1][8];
	struct lake_reg *reg;
	size_t i;

	(void)state;
	for (i = 0; i < LAKE_REG_MAX_FEATURES + 1; i++) {
		snprintf(names[i], sizeof(names[i]), "f%zu", i);
		many[i] = (struct lake_feature_desc){ names[i], 1, 1 };
	}
	for (i = 0; i < sizeof(bad_schemas) / sizeof(bad_schemas[0]); i++) {
		const struct schema_case *c = &bad_schemas[i];
		const struct lake_feature_desc *f =
			c->nr > 3 ? many : c->f;
		int ret;

		reg = NULL;
		ret = lake_reg_create(c->name, f, c->nr, c->capacity,
				      c->max_open, &reg);
		if (ret != -EINVAL)
			fail_msg("%s: %d, expected -EINVAL", c->what, ret);
		assert_null(reg);
	}
	/* The limits themselves are allowed. */
	assert_int_equal(lake_reg_create("r", many, LAKE_REG_MAX_FEATURES, 8, 1,
					 &reg), 0);
	lake_reg_destroy(reg);
	many[0] = (struct lake_feature_desc){ "a", LAKE_REG_MAX_VECTOR, 1 };
	assert_int_equal(lake_reg_create("r", many, 1, 8, 1, &reg), 0);
	lake_reg_destroy(reg);
	assert_int_equal(lake_reg_create("r", NULL, 1, 8, 1, &reg), -EINVAL);
}

/* Everything format() prints for one small registry, built by hand. */
static void test_format_content(void **state)
{
	static const struct lake_feature_desc wide[] = {
		{ "h", 1, 2 }, { "blob", 40, 1 },
	};
	struct lake_reg *reg = create(4, 2), *w;
	struct lake_reg_vec *vec;
	char out[1024], want[1024];
	u8 blob[40];
	size_t n;
	int i;

	(void)state;
	commit_one(reg, 0x1234, 10);
	commit_one(reg, 0xabcd, 20);
	n = lake_reg_format(reg, out, sizeof(out), 5);
	snprintf(want, sizeof(want),
		 "registry linnos capacity 4 count 2 open 0/2 vector_bytes 18\n"
		 "committed 2 dropped 0 truncated 0 aborted 0 begin_failed 0\n"
		 "feature 0 pending_io size 2 entries 4\n"
		 "feature 1 latency_us size 2 entries 4\n"
		 "feature 2 cur_pending size 2 entries 1\n"
		 "record seq 2 ts_begin 19 ts_end 20 data "
		 "0000000000000000" "0000000000000000" "cdab\n"
		 "record seq 1 ts_begin 9 ts_end 10 data "
		 "0000000000000000" "0000000000000000" "3412\n");
	assert_string_equal(out, want);
	assert_int_equal(n, strlen(want));

	/* newest bounds the records; 0 prints none. */
	n = lake_reg_format(reg, out, sizeof(out), 1);
	assert_non_null(strstr(out, "record seq 2 "));
	assert_null(strstr(out, "record seq 1 "));
	n = lake_reg_format(reg, out, sizeof(out), 0);
	assert_null(strstr(out, "record"));
	assert_int_equal(n, strlen(out));

	/* Only the first LAKE_REG_FORMAT_BYTES bytes of a vector are shown. */
	assert_int_equal(lake_reg_create("wide", wide, 2, 2, 1, &w), 0);
	for (i = 0; i < 40; i++)
		blob[i] = i;
	vec = lake_reg_begin(w, 1);
	assert_int_equal(lake_reg_capture(w, vec, 1, blob, 40), 0);
	assert_int_equal(lake_reg_commit(w, vec, 2), 0);
	lake_reg_format(w, out, sizeof(out), 1);
	assert_non_null(strstr(out, "data 0000000102030405060708090a0b0c0d0e0f"
				    "101112131415161718191a1b1c1d...\n"));
	lake_reg_destroy(w);
	lake_reg_destroy(reg);
}

/* Every buffer length gives an exact, NUL-terminated prefix and no overrun. */
static void test_format_bounds(void **state)
{
	struct lake_reg *reg = create(4, 2);
	char full[2048], buf[2048 + 16];
	size_t len, n, i;

	(void)state;
	for (i = 0; i < 6; i++)
		commit_one(reg, i, i + 1);
	n = lake_reg_format(reg, full, sizeof(full), 4);
	assert_int_equal(n, strlen(full));
	assert_true(n > 300 && n < sizeof(full) - 1);
	assert_int_equal(lake_reg_format(reg, NULL, 0, 4), n);

	for (len = 0; len <= n + 2; len++) {
		memset(buf, 0x5a, sizeof(buf));
		assert_int_equal(lake_reg_format(reg, buf, len, 4), n);
		for (i = len; i < len + 16; i++)
			assert_int_equal((u8)buf[i], 0x5a);
		if (!len)
			continue;
		i = len - 1 < n ? len - 1 : n;
		assert_int_equal(strlen(buf), i);
		assert_memory_equal(buf, full, i);
	}
	lake_reg_destroy(reg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_layout),
		cmocka_unit_test(test_order),
		cmocka_unit_test(test_wrap_and_drops),
		cmocka_unit_test(test_history),
		cmocka_unit_test(test_history_lengths),
		cmocka_unit_test(test_concurrent_vectors),
		cmocka_unit_test(test_time_ranges),
		cmocka_unit_test(test_ts_end_never_goes_back),
		cmocka_unit_test(test_capture_errors),
		cmocka_unit_test(test_schema_errors),
		cmocka_unit_test(test_format_content),
		cmocka_unit_test(test_format_bounds),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
