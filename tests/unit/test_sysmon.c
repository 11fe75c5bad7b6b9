// SPDX-License-Identifier: GPL-2.0
/*
 * examples/sysmon's portable core, the very files the module builds
 * (ref.c, knn.h), and the host device's build of its kernels (knn.cu):
 *   - the integer square root and the k-nearest score against brute force;
 *   - counts to features (the Hellinger scaling) and system calls to classes;
 *   - the reference parser: a file train.py's format accepts, and each bound
 *     refused with its reason (truncated header or payload, trailing bytes,
 *     wrong magic, version, dims or encoding, a count of 0 or a huge one, k,
 *     threshold, a reserved field, the checksum, a feature out of range);
 *   - the CPU batch against brute force, and sysmon_dist + sysmon_topk from
 *     sysmon_knn.so, launched as laked launches them, against the CPU batch;
 *   - the shipped reference (examples/sysmon/ref/sysmon.skr) parses, each of
 *     its windows is the C features of a recorded window (train.py and ref.c
 *     agree), and the recorded windows, each scored without its own row
 *     (leave one out, as train.py), mostly score below its threshold.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <lake/kernel_abi.h>
#include "examples/sysmon/ref.h"
#include "file_util.h"

static u64 rnd(u64 *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void test_isqrt(void **state)
{
	u64 s = 42, x;
	u32 i;

	(void)state;
	assert_int_equal(sysmon_isqrt(0), 0);
	assert_int_equal(sysmon_isqrt(1), 1);
	assert_int_equal(sysmon_isqrt(3), 1);
	assert_int_equal(sysmon_isqrt(4), 2);
	assert_int_equal(sysmon_isqrt(1ull << 30), 1u << 15);
	assert_int_equal(sysmon_isqrt((1ull << 24) - 1), 4095);
	assert_int_equal(sysmon_isqrt(1ull << 24), 4096);
	assert_int_equal(sysmon_isqrt(~0ull), 0xffffffffu);
	for (i = 0; i < 100000; i++) {
		u64 r;

		x = rnd(&s) >> (rnd(&s) % 40);
		r = sysmon_isqrt(x);
		assert_true(r * r <= x);
		assert_true((r + 1) * (r + 1) > x);
	}
}

static int cmp_u32(const void *a, const void *b)
{
	u32 x = *(const u32 *)a, y = *(const u32 *)b;

	return x < y ? -1 : x > y;
}

static u32 brute_score(const u32 *d2, u32 count, u32 k)
{
	u32 *c = malloc(count * sizeof(u32)), i, sum = 0;

	memcpy(c, d2, count * sizeof(u32));
	qsort(c, count, sizeof(u32), cmp_u32);
	for (i = 0; i < k; i++)
		sum += (u32)floor(sqrt((double)c[i]));
	free(c);
	return sum / k;
}

static void test_score_row(void **state)
{
	static const u32 ks[] = { 1, 2, 3, 5, 16 };
	u32 d2[300], t, i, j, k, count;
	u64 s = 7;

	(void)state;
	/* The 3 nearest of 9, 1, 4, 100, 16: 1, 2, 3. */
	memcpy(d2, (u32[]){ 9, 1, 4, 100, 16 }, 5 * sizeof(u32));
	assert_int_equal(sysmon_score_row(d2, 5, 3), 2);
	assert_int_equal(sysmon_score_row(d2, 5, 1), 1);
	for (t = 0; t < 2000; t++) {
		k = ks[t % 5];
		count = k + rnd(&s) % 280;
		for (i = 0; i < count; i++)
			d2[i] = rnd(&s) % (t % 3 ? 1u << 30 : 50);	/* many ties too */
		assert_int_equal(sysmon_score_row(d2, count, k), brute_score(d2, count, k));
		for (j = 0; j < count; j++)
			d2[j] = 1u << 30;
		assert_int_equal(sysmon_score_row(d2, count, k), 1u << 15);
	}
}

static void test_features(void **state)
{
	u32 c[SYSMON_DIMS] = { 0 };
	u16 f[SYSMON_DIMS];
	u64 s = 99, sq;
	u32 i, t;

	(void)state;
	sysmon_features(c, f);
	for (i = 0; i < SYSMON_DIMS; i++)
		assert_int_equal(f[i], 0);
	c[19] = 7;	/* only renames: a share of 1 */
	sysmon_features(c, f);
	assert_int_equal(f[19], SYSMON_FEAT_MAX);
	assert_int_equal(f[1], 0);
	assert_int_equal(f[SYSMON_UNI], 0);	/* no bigrams: zeros */
	c[2] = 7;
	c[SYSMON_UNI + 3] = 5;
	sysmon_features(c, f);
	assert_int_equal(f[19], 2896);		/* isqrt(2^23) */
	assert_int_equal(f[2], 2896);
	assert_int_equal(f[SYSMON_UNI + 3], SYSMON_FEAT_MAX);
	/* Volume is not a feature: ten times the calls, the same window. */
	for (t = 0; t < 200; t++) {
		u16 g[SYSMON_DIMS];

		for (i = 0; i < SYSMON_DIMS; i++)
			c[i] = rnd(&s) % 3 ? 0 : rnd(&s) % 100000;
		c[0] += 1;
		c[SYSMON_UNI] += 1;
		sysmon_features(c, f);
		for (i = 0, sq = 0; i < SYSMON_UNI; i++) {
			assert_true(f[i] <= SYSMON_FEAT_MAX);
			sq += (u64)f[i] * f[i];
		}
		/* Sum of squares is 2^24 less the rounding: at most 2 * 4096 per class. */
		assert_true(sq <= 1u << 24);
		assert_true(sq >= (1u << 24) - SYSMON_UNI * 2 * SYSMON_FEAT_MAX);
		for (i = 0; i < SYSMON_DIMS; i++)
			c[i] *= 10;
		sysmon_features(c, g);
		for (i = 0; i < SYSMON_DIMS; i++)
			assert_true(abs((int)f[i] - (int)g[i]) <= 1);
	}
}

static void test_classes(void **state)
{
	long nr;

	(void)state;
	assert_int_equal(sysmon_class(0), 1);		/* read */
	assert_int_equal(sysmon_class(1), 2);		/* write */
	assert_int_equal(sysmon_class(257), 3);	/* openat */
	assert_int_equal(sysmon_class(82), 19);	/* rename */
	assert_int_equal(sysmon_class(316), 19);	/* renameat2 */
	assert_int_equal(sysmon_class(87), 20);	/* unlink */
	assert_int_equal(sysmon_class(41), 27);	/* socket */
	assert_int_equal(sysmon_class(42), 28);	/* connect */
	assert_int_equal(sysmon_class(56), 33);	/* clone */
	assert_int_equal(sysmon_class(435), 33);	/* clone3 */
	assert_int_equal(sysmon_class(61), 36);	/* wait4 */
	assert_int_equal(sysmon_class(59), 34);	/* execve */
	assert_int_equal(sysmon_class(-1), 0);
	assert_int_equal(sysmon_class(SYSMON_NR_MAX), 0);
	assert_int_equal(sysmon_class(1L << 40), 0);
	for (nr = -5; nr < SYSMON_NR_MAX + 5; nr++)
		assert_true(sysmon_class(nr) < SYSMON_UNI);
	for (nr = 0; nr < SYSMON_UNI * SYSMON_UNI; nr++) {
		u32 b = sysmon_bigram(nr / SYSMON_UNI, nr % SYSMON_UNI);

		assert_true(b >= SYSMON_UNI && b < SYSMON_DIMS);
	}
}

/* ---- the reference file ------------------------------------------------ */

static struct sysmon_ref *make_ref(u32 count, u32 k, u32 thr, u64 seed)
{
	struct sysmon_ref *r = calloc(1, sizeof(*r));
	u32 i;

	r->count = count;
	r->k = k;
	r->threshold = thr;
	r->rows = calloc((size_t)count * SYSMON_DIMS, sizeof(u16));
	for (i = 0; i < count * SYSMON_DIMS; i++)
		r->rows[i] = rnd(&seed) % (SYSMON_FEAT_MAX + 1);
	return r;
}

static void free_made(struct sysmon_ref *r)
{
	free(r->rows);
	free(r);
}

static u8 *file_of(const struct sysmon_ref *r, size_t *len)
{
	u8 *buf;

	*len = sysmon_ref_write(r, NULL, 0);
	buf = malloc(*len + 64);
	assert_int_equal(sysmon_ref_write(r, buf, *len), *len);
	return buf;
}

static void put32(u8 *p, u32 v)
{
	p[0] = v;
	p[1] = v >> 8;
	p[2] = v >> 16;
	p[3] = v >> 24;
}

/* zlib's CRC-32 over header and payload, as train.py computes it. */
static void fix_crc(u8 *p, size_t len)
{
	u32 crc = ~0u, k;
	size_t i;

	for (i = 0; i < len; i++) {
		if (i >= 28 && i < 32)
			continue;
		crc ^= p[i];
		for (k = 0; k < 8; k++)
			crc = crc & 1 ? 0xedb88320u ^ (crc >> 1) : crc >> 1;
	}
	put32(p + 28, ~crc);
}

static void refused(const u8 *buf, size_t len, const char *want)
{
	struct sysmon_ref *r = (void *)1;
	const char *why = NULL;

	assert_int_equal(sysmon_ref_parse(buf, len, &r, &why), -EINVAL);
	assert_null(r);
	assert_non_null(why);
	if (!strstr(why, want))
		fail_msg("refused for \"%s\", not \"%s\"", why, want);
}

static void test_parse(void **state)
{
	struct sysmon_ref *m = make_ref(10, 3, 500, 1), *r;
	const char *why;
	size_t len;
	u8 *f = file_of(m, &len), *g;

	(void)state;
	assert_int_equal(len, 32 + 10 * 64 * 2);
	assert_memory_equal(f, "SMKN", 4);
	assert_int_equal(sysmon_ref_parse(f, len, &r, &why), 0);
	assert_int_equal(r->count, 10);
	assert_int_equal(r->k, 3);
	assert_int_equal(r->threshold, 500);
	assert_memory_equal(r->rows, m->rows, 10 * 64 * 2);
	sysmon_ref_free(r);
	sysmon_ref_free(NULL);

	g = malloc(len + 64);
#define MUTATE(stmt, want) do {				\
		memcpy(g, f, len);			\
		stmt;					\
		fix_crc(g, len);			\
		refused(g, len, want);			\
	} while (0)
	refused(f, 0, "truncated header");
	refused(f, 31, "truncated header");
	refused(f, len - 1, "truncated payload");
	refused(f, 40, "truncated payload");
	memcpy(g, f, len);
	memset(g + len, 0, 64);
	refused(g, len + 2, "trailing bytes");
	MUTATE(g[0] = 'X', "bad magic");
	MUTATE(g[4] = 2, "version");
	MUTATE(g[6] = 32, "dims mismatch");
	MUTATE(put32(g + 8, 0), "count out of range");
	MUTATE(put32(g + 8, 0xffffffffu), "count out of range");
	MUTATE(put32(g + 8, SYSMON_REF_MAX + 1), "count out of range");
	MUTATE(put32(g + 8, 11), "truncated payload");
	MUTATE(put32(g + 8, 9), "trailing bytes");
	MUTATE(put32(g + 12, 0), "k out of range");
	MUTATE(put32(g + 12, 10), "k out of range");
	MUTATE(put32(g + 12, SYSMON_K_MAX + 1), "k out of range");
	MUTATE(put32(g + 16, 0), "threshold out of range");
	MUTATE(put32(g + 16, SYSMON_SCORE_MAX + 1), "threshold out of range");
	MUTATE(put32(g + 20, 2), "feature encoding");
	MUTATE(put32(g + 24, 1), "reserved");
	MUTATE(g[32 + 2 * 77] = 0x01; g[32 + 2 * 77 + 1] = 0x10, "feature out of range");
	/* Every byte matters to the checksum. */
	memcpy(g, f, len);
	g[len - 1] ^= 1;
	refused(g, len, "bad checksum");
	memcpy(g, f, len);
	g[17] ^= 1;
	refused(g, len, "bad checksum");
	/* The bounds themselves are accepted: k = count - 1, a feature of 4096. */
	memcpy(g, f, len);
	put32(g + 12, 9);
	g[32] = 0x00;
	g[33] = 0x10;
	fix_crc(g, len);
	assert_int_equal(sysmon_ref_parse(g, len, &r, &why), 0);
	assert_int_equal(r->k, 9);
	assert_int_equal(r->rows[0], SYSMON_FEAT_MAX);
	sysmon_ref_free(r);
#undef MUTATE
	free(g);
	free(f);
	free_made(m);
}

/* ---- scoring: the CPU batch, and the host device's kernels ------------- */

static void test_batch(void **state)
{
	struct sysmon_ref *m = make_ref(200, 3, 1, 5);
	u16 q[20 * SYSMON_DIMS];
	u32 d2[200], sc[20], want[20], v, r;
	u64 s = 11;

	(void)state;
	for (v = 0; v < 20 * SYSMON_DIMS; v++)
		q[v] = rnd(&s) % (SYSMON_FEAT_MAX + 1);
	/* Window 3 is reference window 17: its nearest is itself, at 0. */
	memcpy(q + 3 * SYSMON_DIMS, m->rows + 17 * SYSMON_DIMS, SYSMON_DIMS * 2);
	sysmon_score_batch(m, q, 20, d2, sc);
	for (v = 0; v < 20; v++) {
		u32 all[200];

		for (r = 0; r < 200; r++) {
			u64 sum = 0;
			u32 i;

			for (i = 0; i < SYSMON_DIMS; i++) {
				s64 d = (s64)q[v * SYSMON_DIMS + i] - m->rows[r * SYSMON_DIMS + i];

				sum += d * d;
			}
			all[r] = (u32)sum;
		}
		want[v] = brute_score(all, 200, 3);
		assert_int_equal(sc[v], want[v]);
	}
	assert_true(sc[3] < sc[4]);
	free_made(m);
}

static const struct lake_kernel_desc *kfunc(void *so, const char *name)
{
	char sym[64];
	const struct lake_kernel_desc *d;

	snprintf(sym, sizeof(sym), "%s%s", LAKE_KERNEL_SYMBOL_PREFIX, name);
	d = dlsym(so, sym);
	assert_non_null(d);
	assert_int_equal(d->abi, LAKE_KERNEL_ABI);
	return d;
}

static void launch(const struct lake_kernel_desc *d, u64 threads, u32 block, void **args)
{
	struct lake_kernel_launch l = {
		.grid = { (u32)((threads + block - 1) / block), 1, 1 },
		.block = { block, 1, 1 },
	};

	for (l.block_idx.x = 0; l.block_idx.x < l.grid.x; l.block_idx.x++)
		assert_int_equal(d->run_block(&l, args), 0);
}

static void test_host_kernels(void **state)
{
	static const u32 sizes[] = { 1, 8, 33 };
	const char *dir = getenv("LAKE_KERNEL_DIR");
	const struct lake_kernel_desc *kd, *kt;
	struct sysmon_ref *m = make_ref(300, 3, 1, 9);
	char path[512];
	void *so;
	u32 i;

	(void)state;
	snprintf(path, sizeof(path), "%s/sysmon_knn.so", dir ? dir : "build/kernels");
	so = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!so)
		fail_msg("%s", dlerror());
	kd = kfunc(so, "sysmon_dist");
	kt = kfunc(so, "sysmon_topk");
	for (i = 0; i < 3; i++) {
		int nq = sizes[i], count = m->count, k = i + 1;
		u16 *q = malloc(nq * SYSMON_DIMS * 2);
		u32 *d2 = malloc((size_t)nq * count * 4), *sc = malloc(nq * 4);
		u32 *want = malloc(nq * 4), cd2[300];
		u64 s = 3 + i;
		const u16 *qp = q, *rp = m->rows;
		int v;

		for (v = 0; v < nq * SYSMON_DIMS; v++)
			q[v] = rnd(&s) % (SYSMON_FEAT_MAX + 1);
		m->k = k;
		launch(kd, (u64)nq * count, 256, (void *[]){ &qp, &rp, &d2, &nq, &count });
		launch(kt, nq, 64, (void *[]){ &d2, &sc, &nq, &count, &k });
		sysmon_score_batch(m, q, nq, cd2, want);
		for (v = 0; v < nq; v++)
			assert_int_equal(sc[v], want[v]);
		free(q);
		free(d2);
		free(sc);
		free(want);
	}
	free_made(m);
	dlclose(so);
}

/* ---- the shipped reference and its recording --------------------------- */

static void test_shipped(void **state)
{
	const char *why;
	struct sysmon_ref *r;
	size_t len, flen, i;
	u8 *f = test_read_file("examples/sysmon/ref/sysmon.skr", &flen);
	char *csv = test_read_file("examples/sysmon/ref/windows.csv", &len), *line, *save;
	u32 *d2, windows = 0, above = 0, found = 0, above_rows;
	bool *seen;

	(void)state;
	if (sysmon_ref_parse(f, flen, &r, &why))
		fail_msg("examples/sysmon/ref/sysmon.skr refused: %s", why);
	free(f);
	d2 = malloc(r->count * sizeof(u32));
	seen = calloc(r->count, sizeof(bool));
	line = strtok_r(csv, "\n", &save);	/* the header */
	while ((line = strtok_r(NULL, "\n", &save))) {
		u32 c[SYSMON_DIMS], sc, j, calls = 0;
		u16 feat[SYSMON_DIMS];
		char *p = line;

		for (j = 0; j < 5; j++)
			p = strchr(p, ',') + 1;
		for (j = 0; j < SYSMON_DIMS; j++) {
			c[j] = strtoul(p, &p, 10);
			p++;
			if (j < SYSMON_UNI)
				calls += c[j];
		}
		if (calls < 16)
			continue;
		windows++;
		sysmon_features(c, feat);
		/*
		 * Leave one out, as train.py picks the threshold: the window's
		 * own reference row (distance 0) is not its neighbour.
		 */
		for (i = 0; i < r->count; i++) {
			d2[i] = sysmon_dist2(feat, r->rows + i * SYSMON_DIMS);
			if (d2[i])
				continue;
			d2[i] = UINT32_MAX;
			if (!seen[i]) {
				seen[i] = true;
				found++;
			}
		}
		sc = sysmon_score_row(d2, r->count, r->k);
		above += sc > r->threshold;
	}
	print_message("shipped reference: %u windows, k %u, threshold %u; recorded windows %u, above %u\n",
		      r->count, r->k, r->threshold, windows, above);
	assert_int_equal(found, r->count);
	assert_true(windows >= r->count);
	/*
	 * The threshold is 1.25 x the 95th percentile of the distinct rows'
	 * leave-one-out scores: at most 5% of the rows pass it; recorded
	 * windows repeat the common rows, the rare ones a little less.
	 */
	for (i = 0, above_rows = 0; i < r->count; i++) {
		u32 j, sc;

		for (j = 0; j < r->count; j++)
			d2[j] = j == i ? UINT32_MAX :
				sysmon_dist2(r->rows + i * SYSMON_DIMS, r->rows + j * SYSMON_DIMS);
		sc = sysmon_score_row(d2, r->count, r->k);
		above_rows += sc > r->threshold;
	}
	print_message("shipped reference: rows above the threshold, leave one out: %u\n", above_rows);
	assert_true(above_rows * 20 <= r->count);
	assert_true(above * 10 <= windows);
	free(seen);
	free(d2);
	free(csv);
	sysmon_ref_free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_isqrt),
		cmocka_unit_test(test_score_row),
		cmocka_unit_test(test_features),
		cmocka_unit_test(test_classes),
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_batch),
		cmocka_unit_test(test_host_kernels),
		cmocka_unit_test(test_shipped),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
