// SPDX-License-Identifier: GPL-2.0
/*
 * examples/readahead/model.c, the file lake_readahead.ko links:
 *   - the window's counts from page-cache adds (runs, jumps, gaps, the
 *     sequential share) and the nine inputs made of them, for streams
 *     whose answer is known: sequential, random, strided, idle; the
 *     recent-stream input over RA_HISTORY windows;
 *   - the LKRA parser: a well-formed file taken, every field's bound
 *     refused with its reason (magic, version, sizes, classes, payload,
 *     reserved, length, CRC, weight range), truncation at every length;
 *   - inference: a hand-made network's classes, ties to the lower class,
 *     the extreme weights and inputs exact; the shipped weights (examples/readahead/weights) agree
 *     with train.py's integer model on its check vectors, pick a larger
 *     readahead for a sequential window than for a random one.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "examples/readahead/model.h"
#include "file_util.h"

#define WEIGHTS	"examples/readahead/weights/"

/* --- features --------------------------------------------------------------- */

static void test_log16(void **state)
{
	(void)state;
	assert_int_equal(ra_log16(0), 0);
	assert_int_equal(ra_log16(1), 0);
	assert_int_equal(ra_log16(2), 16);
	assert_int_equal(ra_log16(3), 24);
	assert_int_equal(ra_log16(1024), 160);
	assert_int_equal(ra_log16(1ull << 40), 640);
}

static void test_sequential(void **state)
{
	struct ra_stream s = { 0 };
	struct ra_window w;
	u16 in[RA_INPUTS];
	u64 i;

	(void)state;
	/* Readahead batches of 32 pages, end to end: one run of 3200 pages. */
	for (i = 0; i < 100; i++)
		ra_stream_add(&s, 1000 + 32 * i, 32, 32);
	for (i = 0; i < 10; i++)
		ra_stream_queued(&s, 2);
	ra_stream_close(&s, 1000000000ull, 32, &w);
	assert_int_equal(w.pages, 3200);
	assert_int_equal(w.runs, 1);
	assert_int_equal(w.jumps, 0);
	assert_int_equal(w.seq_pages, 3200);
	ra_features(&w, in);
	assert_int_equal(in[RA_F_SEQ], RA_ONE);
	assert_int_equal(in[RA_F_STRIDE], 0);
	assert_int_equal(in[RA_F_GAP_MEAN], 0);
	assert_int_equal(in[RA_F_INFLIGHT], 2 * RA_ONE / 64);
	/* 3200 = 2^11 * 1.5625: 16 * 11 + 9 = 185 of 256. */
	assert_int_equal(in[RA_F_RUN_LEN], 185 * RA_ONE / 256);
	assert_int_equal(in[RA_F_RATE], ra_log16(3200) * RA_ONE / 512);
	assert_int_equal(in[RA_F_RA], 80 * RA_ONE / 256);
	/* The stream goes on into the next window: still no jump. */
	ra_stream_add(&s, 1000 + 3200, 8, 32);
	ra_stream_close(&s, 1000000000ull, 32, &w);
	assert_int_equal(w.jumps, 0);
	assert_int_equal(w.pages, 8);
	assert_int_equal(w.seq_pages, 0);	/* 8 pages: not longer than the readahead */
}

static void test_random(void **state)
{
	struct ra_stream s = { 0 };
	struct ra_window w;
	u16 in[RA_INPUTS];
	u64 x = 12345, i;

	(void)state;
	/* Faults read around 32 pages at random places of a 4 GiB disk. */
	for (i = 0; i < 200; i++) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		ra_stream_add(&s, (x >> 20) % (1u << 20), 32, 32);
	}
	ra_stream_close(&s, 1000000000ull, 32, &w);
	assert_int_equal(w.runs, 200);
	assert_int_equal(w.jumps, 199);
	assert_int_equal(w.seq_pages, 0);
	ra_features(&w, in);
	assert_int_equal(in[RA_F_SEQ], 0);
	assert_true(in[RA_F_STRIDE] < 20);
	/* Gaps of ~2^18 pages: log2 ~ 17 of 32. */
	assert_true(in[RA_F_GAP_MEAN] > 450 && in[RA_F_GAP_MEAN] < 600);
	assert_true(in[RA_F_GAP_STD] > 0);
	assert_int_equal(in[RA_F_RUN_LEN], 80 * RA_ONE / 256);
}

static void test_strided(void **state)
{
	struct ra_stream s = { 0 };
	struct ra_window w;
	u16 in[RA_INPUTS];
	u64 i;

	(void)state;
	/* One page in every 16: gap 15 each time. */
	for (i = 0; i < 101; i++)
		ra_stream_add(&s, 16 * i, 1, 4);
	ra_stream_close(&s, 500000000ull, 4, &w);
	assert_int_equal(w.jumps, 100);
	assert_int_equal(w.stride_jumps, 99);	/* the first gap has none before it */
	ra_features(&w, in);
	assert_int_equal(in[RA_F_STRIDE], 990);
	assert_int_equal(in[RA_F_SEQ], 0);
	/* log2(15) = 3.9: 16 * 3 + 14 = 62, no spread. */
	assert_int_equal(in[RA_F_GAP_MEAN], 62 * RA_ONE / 512);
	assert_int_equal(in[RA_F_GAP_STD], 0);
	assert_int_equal(in[RA_F_RUN_LEN], 0);
	/* Backwards strides count too: |gap| */
	memset(&s, 0, sizeof(s));
	for (i = 0; i < 11; i++)
		ra_stream_add(&s, 1000 - 16 * i, 1, 4);
	ra_stream_close(&s, 1, 4, &w);
	assert_int_equal(w.stride_jumps, 9);
	assert_int_equal(w.gap_log_sum, 10 * ra_log16(17));
}

static void test_idle(void **state)
{
	struct ra_stream s = { 0 };
	struct ra_window w;
	u16 in[RA_INPUTS];
	int i;

	(void)state;
	ra_stream_close(&s, 1000000000ull, 512, &w);
	ra_features(&w, in);
	for (i = 0; i < RA_INPUTS; i++)
		assert_int_equal(in[i], i == RA_F_RA ? 144 * RA_ONE / 256 : 0);
}

/* A stream's window: 8 runs of 64 pages, end to end, under a readahead of 32. */
static void close_stream(struct ra_stream *s, u64 base, struct ra_window *w)
{
	u64 i;

	for (i = 0; i < 8; i++)
		ra_stream_add(s, base + 64 * i, 64, 32);
	ra_stream_close(s, 1000000000ull, 32, w);
}

/* Random 4-page reads: no run longer than the readahead. */
static void close_random(struct ra_stream *s, u64 base, struct ra_window *w)
{
	u64 i;

	for (i = 0; i < 20; i++)
		ra_stream_add(s, base + 977 * i * i, 4, 32);
	ra_stream_close(s, 1000000000ull, 32, w);
}

static void test_recent(void **state)
{
	struct ra_stream s = { 0 };
	struct ra_window w;
	u16 in[RA_INPUTS];
	int i;

	(void)state;
	close_random(&s, 1 << 20, &w);
	ra_features(&w, in);
	assert_int_equal(in[RA_F_SEQ], 0);
	assert_int_equal(in[RA_F_RECENT], 0);
	close_stream(&s, 0, &w);
	ra_features(&w, in);
	assert_int_equal(in[RA_F_SEQ], RA_ONE);
	assert_int_equal(in[RA_F_RECENT], RA_ONE);
	/* The stream is remembered for RA_HISTORY windows, its own included. */
	for (i = 1; i < RA_HISTORY; i++) {
		close_random(&s, (u64)i << 24, &w);
		ra_features(&w, in);
		assert_int_equal(in[RA_F_SEQ], 0);
		assert_int_equal(in[RA_F_RECENT], RA_ONE);
	}
	close_random(&s, 1ull << 32, &w);
	ra_features(&w, in);
	assert_int_equal(in[RA_F_RECENT], 0);
	/* Idle windows (a reader starting, a pause) neither age it nor reset it. */
	close_stream(&s, 1ull << 36, &w);
	for (i = 0; i < 2 * RA_HISTORY; i++) {
		ra_stream_close(&s, 1000000000ull, 32, &w);
		ra_features(&w, in);
		assert_int_equal(in[RA_F_SEQ], 0);
		assert_int_equal(in[RA_F_RECENT], RA_ONE);
	}
}

/* --- the parser ------------------------------------------------------------- */

static void put32(u8 *p, u32 v)
{
	p[0] = v;
	p[1] = v >> 8;
	p[2] = v >> 16;
	p[3] = v >> 24;
}

static u32 crc32(u32 crc, const u8 *p, size_t n)
{
	int k;

	crc = ~crc;
	while (n--) {
		crc ^= *p++;
		for (k = 0; k < 8; k++)
			crc = crc & 1 ? 0xedb88320u ^ (crc >> 1) : crc >> 1;
	}
	return ~crc;
}

static void seal(u8 *f, size_t len)
{
	put32(f + 60, crc32(crc32(0, f, 60), f + 64, len - 64));
}

/* A network: hidden unit j copies input j, class k scores hidden k. */
static size_t make_file(u8 *f, u32 hidden, u32 classes, const u32 *kib)
{
	u32 nr = hidden * (RA_INPUTS + 1) + classes * (hidden + 1), i;
	s32 *p = calloc(nr, 4);
	size_t len = 64 + 4 * nr;

	memset(f, 0, len);
	memcpy(f, "LKRA", 4);
	f[4] = 1;
	f[6] = RA_INPUTS;
	f[8] = hidden;
	f[10] = classes;
	put32(f + 12, 1000);
	for (i = 0; i < classes; i++)
		put32(f + 16 + 4 * i, kib[i]);
	put32(f + 48, 4 * nr);
	for (i = 0; i < hidden && i < RA_INPUTS; i++)
		p[i * RA_INPUTS + i] = 1000;
	for (i = 0; i < classes && i < hidden; i++)
		p[hidden * (RA_INPUTS + 1) + i * hidden + i] = 1000;
	for (i = 0; i < nr; i++)
		put32(f + 64 + 4 * i, (u32)p[i]);
	free(p);
	seal(f, len);
	return len;
}

static const u32 kib4[4] = { 16, 128, 512, 2048 };

static void expect_refused(const u8 *f, size_t len, const char *reason)
{
	struct ra_model *m = (struct ra_model *)1;
	const char *why = NULL;

	assert_int_equal(ra_model_parse(f, len, &m, &why), -EINVAL);
	assert_null(m);
	assert_non_null(why);
	if (reason && !strstr(why, reason))
		fail_msg("refused for '%s', expected '%s'", why, reason);
}

static void test_parse_good(void **state)
{
	static u8 f[RA_FILE_MAX];
	struct ra_model *m;
	const char *why;
	size_t len = make_file(f, 8, 4, kib4);

	(void)state;
	assert_int_equal(ra_model_parse(f, len, &m, &why), 0);
	assert_int_equal(m->hidden, 8);
	assert_int_equal(m->classes, 4);
	assert_int_equal(m->kib[3], 2048);
	assert_int_equal(m->kib[4], 0);
	ra_model_free(m);
	/* The largest network the format allows. */
	len = make_file(f, RA_MAX_HIDDEN, RA_MAX_CLASSES,
			(const u32[]){ 4, 8, 16, 64, 256, 1024, 4096, 16384 });
	assert_int_equal(len, RA_FILE_MAX);
	assert_int_equal(ra_model_parse(f, len, &m, &why), 0);
	ra_model_free(m);
}

static void test_parse_bounds(void **state)
{
	static u8 f[RA_FILE_MAX], g[RA_FILE_MAX + 4];
	size_t len = make_file(f, 8, 4, kib4), i;

	(void)state;
	/* Every truncation, and one byte more. */
	for (i = 0; i < len; i++)
		expect_refused(f, i, NULL);
	memcpy(g, f, len);
	expect_refused(g, len + 1, "length");
	expect_refused(NULL, 0, "truncated");

#define MUTATE(off, val, reason) do {			\
		memcpy(g, f, len);			\
		put32(g + (off), (val));		\
		seal(g, len);				\
		expect_refused(g, len, reason);		\
	} while (0)
	memcpy(g, f, len);
	g[0] = 'X';
	expect_refused(g, len, "magic");
	memcpy(g, f, len);
	g[4] = 2;
	seal(g, len);
	expect_refused(g, len, "version");
	memcpy(g, f, len);
	g[6] = RA_INPUTS + 1;
	seal(g, len);
	expect_refused(g, len, "input count");
	memcpy(g, f, len);
	g[8] = 0;
	seal(g, len);
	expect_refused(g, len, "hidden");
	memcpy(g, f, len);
	g[8] = RA_MAX_HIDDEN + 1;
	seal(g, len);
	expect_refused(g, len, "hidden");
	memcpy(g, f, len);
	g[10] = 1;
	seal(g, len);
	expect_refused(g, len, "class count");
	memcpy(g, f, len);
	g[10] = RA_MAX_CLASSES + 1;
	seal(g, len);
	expect_refused(g, len, "class count");
	MUTATE(12, 999, "scale");
	MUTATE(16, 0, "class readahead");		/* below RA_KIB_MIN */
	MUTATE(16, 6, "class readahead");		/* not a multiple of 4 */
	MUTATE(28, RA_KIB_MAX + 4, "class readahead");
	MUTATE(20, 16, "class readahead");		/* not increasing */
	MUTATE(32, 4096, "class readahead");		/* past the classes */
	MUTATE(48, 4 * 8, "payload");
	MUTATE(52, 1, "reserved");
	MUTATE(56, 1, "reserved");
	MUTATE(64, RA_PARAM_MAX + 1, "out of range");
	MUTATE(len - 4, (u32)-RA_PARAM_MAX - 1, "out of range");
	memcpy(g, f, len);
	put32(g + 64, RA_PARAM_MAX);
	seal(g, len);
	{
		struct ra_model *m;
		const char *why;

		assert_int_equal(ra_model_parse(g, len, &m, &why), 0);	/* the bound itself: taken */
		ra_model_free(m);
	}
	memcpy(g, f, len);
	g[100] ^= 1;
	expect_refused(g, len, "checksum");
#undef MUTATE
}

/* --- inference -------------------------------------------------------------- */

static void test_infer(void **state)
{
	static u8 f[RA_FILE_MAX];
	u16 in[RA_INPUTS] = { 0 }, batch[3 * RA_INPUTS] = { 0 };
	struct ra_model *m;
	const char *why;
	size_t len = make_file(f, 8, 4, kib4);
	u8 out[3];

	(void)state;
	assert_int_equal(ra_model_parse(f, len, &m, &why), 0);
	/* Class k scores input k. */
	in[2] = 700;
	in[1] = 300;
	assert_int_equal(ra_infer(m, in), 2);
	in[3] = 701;
	assert_int_equal(ra_infer(m, in), 3);
	/* A tie goes to the lower class; all zero is class 0. */
	in[1] = 701;
	assert_int_equal(ra_infer(m, in), 1);
	memset(in, 0, sizeof(in));
	assert_int_equal(ra_infer(m, in), 0);
	batch[0 * RA_INPUTS + 3] = 5;
	batch[1 * RA_INPUTS + 0] = 5;
	batch[2 * RA_INPUTS + 1] = 5;
	ra_infer_batch(m, batch, 3, out);
	assert_int_equal(out[0], 3);
	assert_int_equal(out[1], 0);
	assert_int_equal(out[2], 1);
	/* Negative hidden sums are cut at 0: a large negative weight loses. */
	m->params[0] = -RA_PARAM_MAX;
	memset(in, 0, sizeof(in));
	in[0] = 1000;
	in[1] = 1;
	assert_int_equal(ra_infer(m, in), 1);
	/* The largest weights and inputs: no overflow, the order kept. */
	m->params[0] = RA_PARAM_MAX;
	m->params[ra_off_b1(m)] = RA_PARAM_MAX;
	m->params[ra_off_w2(m)] = RA_PARAM_MAX;
	in[0] = RA_ONE;
	assert_int_equal(ra_infer(m, in), 0);
	ra_model_free(m);
}

static void test_shipped(void **state)
{
	struct ra_model *m;
	const char *why;
	size_t len;
	void *buf = test_read_file(WEIGHTS "readahead.lkra", &len);
	FILE *fp = fopen(WEIGHTS "check.txt", "r");
	char line[256];
	int rows = 0, bad = 0;
	struct ra_stream s = { 0 }, s2 = { 0 };
	struct ra_window w;
	u16 seq[RA_INPUTS], rnd[RA_INPUTS], mix[RA_INPUTS];
	u64 x = 7, i;

	(void)state;
	if (ra_model_parse(buf, len, &m, &why))
		fail_msg("shipped weights refused: %s", why);
	free(buf);
	assert_non_null(fp);
	while (fgets(line, sizeof(line), fp)) {
		u32 v[RA_INPUTS + 1];
		u16 in[RA_INPUTS];
		int k;

		if (line[0] == '#')
			continue;
		if (sscanf(line, "%u %u %u %u %u %u %u %u %u %u", &v[0], &v[1], &v[2], &v[3], &v[4],
			   &v[5], &v[6], &v[7], &v[8], &v[9]) != RA_INPUTS + 1)
			fail_msg("bad check line: %s", line);
		for (k = 0; k < RA_INPUTS; k++)
			in[k] = v[k];
		bad += ra_infer(m, in) != v[RA_INPUTS];
		rows++;
	}
	fclose(fp);
	assert_true(rows >= 10);
	assert_int_equal(bad, 0);
	/*
	 * A sequential window and a random one, both at the default 128 KiB, on
	 * two devices (on one, the random window would remember the stream);
	 * then the random one after the stream: the mixed phase's readahead.
	 */
	for (i = 0; i < 400; i++)
		ra_stream_add(&s, 32 * i, 32, 32);
	ra_stream_close(&s, 1000000000ull, 32, &w);
	ra_features(&w, seq);
	for (i = 0; i < 300; i++) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		ra_stream_add(&s2, (x >> 20) % (1u << 20), 32, 32);
		ra_stream_add(&s, (x >> 20) % (1u << 20), 32, 32);
	}
	ra_stream_close(&s2, 1000000000ull, 32, &w);
	ra_features(&w, rnd);
	ra_stream_close(&s, 1000000000ull, 32, &w);
	ra_features(&w, mix);
	if (m->kib[ra_infer(m, seq)] <= m->kib[ra_infer(m, rnd)])
		fail_msg("sequential gets %u KiB, random %u KiB", m->kib[ra_infer(m, seq)],
			 m->kib[ra_infer(m, rnd)]);
	if (m->kib[ra_infer(m, mix)] != m->kib[ra_infer(m, seq)])
		fail_msg("random after a stream gets %u KiB, the stream %u KiB",
			 m->kib[ra_infer(m, mix)], m->kib[ra_infer(m, seq)]);
	ra_model_free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_log16),
		cmocka_unit_test(test_sequential),
		cmocka_unit_test(test_random),
		cmocka_unit_test(test_strided),
		cmocka_unit_test(test_idle),
		cmocka_unit_test(test_recent),
		cmocka_unit_test(test_parse_good),
		cmocka_unit_test(test_parse_bounds),
		cmocka_unit_test(test_infer),
		cmocka_unit_test(test_shipped),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
