// SPDX-License-Identifier: GPL-2.0
/*
 * Host tests of LinnOS's model core (examples/linnos): feature encoding,
 * the weight-file parser, integer inference against a float reference,
 * every CPU path against the scalar one, and the host device's build of
 * linnos.cu against the CPU.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <unistd.h>

#include <lake/kernel_abi.h>
#include "linnos_util.h"
#include "file_util.h"

static const enum linnos_variant variants[] = { LINNOS_NN, LINNOS_NN1, LINNOS_NN2 };

static struct linnos_model *parse_ok(const u8 *f, size_t len)
{
	struct linnos_model *m;
	const char *why = NULL;

	assert_int_equal(linnos_model_parse(f, len, &m, &why), 0);
	assert_non_null(m);
	return m;
}

static struct linnos_model *random_model(enum linnos_variant v, double wscale,
					 u64 seed, struct lt_model **fm)
{
	struct lt_model *r = lt_model_random(v, wscale, seed);
	struct linnos_model *m;
	size_t len;
	u8 *f = lt_model_file(r, 1500, &len);

	m = parse_ok(f, len);
	free(f);
	if (fm)
		*fm = r;
	else
		lt_model_free(r);
	return m;
}

/* ---- encoding --------------------------------------------------------- */

static void expect_digits(const u8 *in, const char *want)
{
	char got[LINNOS_INPUTS + 1];
	int i;

	for (i = 0; i < LINNOS_INPUTS; i++)
		got[i] = '0' + in[i];
	got[LINNOS_INPUTS] = 0;
	assert_string_equal(got, want);
}

static void test_encode_exact(void **state)
{
	struct linnos_history h = {
		.latency_us = { 1234, 5, 9999, 10000 },
		.pending_at_issue = { 56, 999, 1000, 0 },
	};
	u8 in[LINNOS_INPUTS];

	(void)state;
	/*            pnd lat0pnd lat1pnd lat2pnd lat3pnd */
	linnos_encode(&h, 7, in);
	expect_digits(in, "007" "1234056" "0005999" "9999999" "9999000");
	linnos_encode(&h, 999, in);
	expect_digits(in, "999" "1234056" "0005999" "9999999" "9999000");
	linnos_encode(&h, 1000, in);
	expect_digits(in, "999" "1234056" "0005999" "9999999" "9999000");

	h = (struct linnos_history){
		.latency_us = { 0, 10, 998, 0xffffffffu },
		.pending_at_issue = { 1, 20, 300, 0xffffffffu },
	};
	linnos_encode(&h, 0xffffffffu, in);
	expect_digits(in, "999" "0000001" "0010020" "0998300" "9999999");
	linnos_encode(&h, 0, in);
	expect_digits(in, "000" "0000001" "0010020" "0998300" "9999999");
}

/* ---- the parser ------------------------------------------------------- */

static void test_parse_roundtrip(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < 3; i++) {
		struct lt_model *r = lt_model_random(variants[i], 1.0, 11 + i);
		struct linnos_model *m;
		size_t len, need, off = 64, l;
		u8 *f = lt_model_file(r, 777 + i, &len), *ex;

		m = parse_ok(f, len);
		assert_int_equal(linnos_model_variant(m), variants[i]);
		assert_int_equal(linnos_model_threshold_us(m), 777 + i);
		need = linnos_model_export(m, NULL, 0);
		assert_int_equal(need, len - 64);
		ex = malloc(need);
		assert_int_equal(linnos_model_export(m, ex, need - 1), 0);
		assert_int_equal(linnos_model_export(m, ex, need), need);
		assert_memory_equal(ex, f + 64, need);
		/* Each layer starts where the offsets say. */
		for (l = 0; l < r->nl; l++) {
			assert_int_equal(linnos_export_offset(variants[i], l) * 4 + 64, off);
			off += 4 * (r->in[l] * r->out[l] + r->out[l]);
		}
		assert_int_equal(linnos_export_offset(variants[i], r->nl) * 4 + 64, len);
		free(ex);
		free(f);
		linnos_model_free(m);
		lt_model_free(r);
	}
}

static void le32(u8 *p, u32 v)
{
	p[0] = v;
	p[1] = v >> 8;
	p[2] = v >> 16;
	p[3] = v >> 24;
}

static void expect_reject(const u8 *f, size_t len, const char *reason)
{
	struct linnos_model *m = (struct linnos_model *)f;
	const char *why = NULL;

	assert_int_equal(linnos_model_parse(f, len, &m, &why), -EINVAL);
	assert_null(m);
	assert_non_null(why);
	assert_string_equal(why, reason);
}

/* Copy, edit a 32-bit field, optionally fix the CRC, expect refusal. */
static void reject_field(const u8 *f, size_t len, size_t off, u32 v, bool fix,
			 const char *reason)
{
	u8 *g = malloc(len);

	memcpy(g, f, len);
	le32(g + off, v);
	if (fix)
		lt_file_fix_crc(g, len);
	expect_reject(g, len, reason);
	free(g);
}

static void test_parse_rejects(void **state)
{
	struct lt_model *r = lt_model_random(LINNOS_NN, 1.0, 5);
	struct lt_model *r1 = lt_model_random(LINNOS_NN1, 1.0, 6);
	size_t len, len1;
	u8 *f = lt_model_file(r, 900, &len), *f1 = lt_model_file(r1, 900, &len1), *g;
	struct linnos_model *m;

	(void)state;
	expect_reject(f, 0, "truncated header");
	expect_reject(f, 63, "truncated header");
	expect_reject(f, len - 1, "truncated payload");
	expect_reject(f, 64, "truncated payload");

	g = calloc(1, len + 1);
	memcpy(g, f, len);
	expect_reject(g, len + 1, "trailing bytes after the payload");
	free(g);
	/* NN+1's payload under NN's header: too long for what it names. */
	g = malloc(len1);
	memcpy(g, f, 64);
	memcpy(g + 64, f1 + 64, len1 - 64);
	expect_reject(g, len1, "trailing bytes after the payload");
	free(g);

	reject_field(f, len, 0, 0x534f4e4d, true, "bad magic, not a LinnOS weight file");
	reject_field(f, len, 4, 2 | (LINNOS_NN << 16), true, "unsupported format version");
	/* Wrong variant: NN's header and payload, named NN+1 or NN+2 or 3. */
	reject_field(f, len, 4, 1 | (LINNOS_NN1 << 16), true,
		     "layer count does not match the variant");
	reject_field(f, len, 4, 1 | (3 << 16), true, "unknown variant");
	/* NN+1 named NN with NN's layer count: the sizes give it away. */
	g = malloc(len1);
	memcpy(g, f1, len1);
	le32(g + 4, 1 | (LINNOS_NN << 16));
	le32(g + 8, 2);
	lt_file_fix_crc(g, len1);
	expect_reject(g, len1, "layer sizes do not match the variant");
	free(g);
	reject_field(f, len, 12, 1024, true, "unsupported scale (want 1000)");
	reject_field(f, len, 16, 0, true, "no slow threshold");
	reject_field(f, len, 20, 32, true, "layer sizes do not match the variant");
	reject_field(f, len, 24, 128, true, "layer sizes do not match the variant");
	reject_field(f, len, 32, 2, true, "layer sizes do not match the variant");
	reject_field(f, len, 44, (u32)len - 68, true,
		     "payload size does not match the layer sizes");
	reject_field(f, len, 52, 1, true, "reserved header fields not zero");

	/* Bad checksum: one flipped bit anywhere, in the header or the payload. */
	reject_field(f, len, 60, lt_crc32(f, 60) ^ 1, false, "bad checksum");
	g = malloc(len);
	memcpy(g, f, len);
	g[64 + 1000] ^= 0x10;
	expect_reject(g, len, "bad checksum");
	memcpy(g, f, len);
	g[len - 1] ^= 0x80;
	expect_reject(g, len, "bad checksum");
	memcpy(g, f, len);
	g[16] ^= 1;
	expect_reject(g, len, "bad checksum");

	/* A value beyond LINNOS_PARAM_MAX, in a weight and in a bias. */
	reject_field(f, len, 64 + 4 * 100, LINNOS_PARAM_MAX + 1, true,
		     "weight or bias out of range");
	reject_field(f, len, 64 + 4 * (31 * 256 + 3), (u32)-(LINNOS_PARAM_MAX + 1), true,
		     "weight or bias out of range");
	reject_field(f, len, 64 + 4 * 7, LINNOS_PARAM_MAX, false, "bad checksum");
	free(g);

	/*
	 * Every value in range, but 31 digits of 9 times 8e6 exceed s32: the
	 * overflow proof refuses it, at layer 0 and in a later layer.
	 */
	g = malloc(len);
	memcpy(g, f, len);
	for (size_t i = 0; i < 31; i++)
		le32(g + 64 + 4 * (5 * 31 + i), 8000000);
	lt_file_fix_crc(g, len);
	expect_reject(g, len, "weights could overflow 32-bit activations");
	memcpy(g, f, len);
	for (size_t i = 0; i < 31; i++)
		le32(g + 64 + 4 * (5 * 31 + i), 7000000);	/* 1.95e9: fits */
	lt_file_fix_crc(g, len);
	m = parse_ok(g, len);
	linnos_model_free(m);
	/* ... but a 2 x 256 layer reading that activation with 8e6 does not. */
	le32(g + 64 + 4 * (31 * 256 + 256 + 5), 8000000);
	le32(g + 64 + 4 * (31 * 256 + 256 + 256 + 5), 8000000);
	lt_file_fix_crc(g, len);
	expect_reject(g, len, "weights could overflow 32-bit activations");
	free(g);

	free(f);
	free(f1);
	lt_model_free(r);
	lt_model_free(r1);
}

/* Every cut of a valid file is refused, whatever its length. */
static void test_parse_truncations(void **state)
{
	struct lt_model *r = lt_model_random(LINNOS_NN, 1.0, 9);
	size_t len, cut;
	u8 *f = lt_model_file(r, 900, &len);

	(void)state;
	for (cut = 0; cut < 64; cut++)
		expect_reject(f, cut, "truncated header");
	for (cut = 64; cut < len; cut += 97)
		expect_reject(f, cut, "truncated payload");
	expect_reject(f, len - 4, "truncated payload");
	free(f);
	lt_model_free(r);
}

/* ---- integer inference against a float reference ---------------------- */

/*
 * The float reference: the file's model in doubles (weights w = W / 1000,
 * as stored), ReLU, no truncation. The integer model truncates each sum
 * after layer 0 to 1/1000 (error < 0.001) and is exact in layer 0; ReLU
 * does not grow an error, and none passes a ReLU whose input is below -E.
 * So for neuron j of layer l, with E_i its inputs' bounds:
 *	layer 0:  E_j = 0
 *	layer l:  E_j = 0.001 + sum_i |w_ji| * E_i  (0 past ReLU if z_j + E_j <= 0)
 * and the integer scores must be within E of the reference's. The stated
 * tolerance: classes must agree wherever the reference's margin
 * |z1 - z0| exceeds E_0 + E_1 (0.002 for NN).
 *
 * Rounding the trained (unquantized) weights to 1/1000 is a separate
 * error, the trainer's to report: the test also counts how often the
 * class differs from the unquantized model's and expects under 1%.
 */
static void float_ref(const struct lt_model *r, const u8 *x, bool quantized,
		      double z[2], double e[2])
{
	double a[LINNOS_HIDDEN], ea[LINNOS_HIDDEN], na[LINNOS_HIDDEN], nea[LINNOS_HIDDEN];
	u32 l, i, j;

	for (j = 0; j < LINNOS_HIDDEN; j++) {
		double s = quantized ? r->bq[0][j] / 1000.0 : r->b[0][j];

		for (i = 0; i < LINNOS_INPUTS; i++)
			s += (quantized ? r->wq[0][j * LINNOS_INPUTS + i] / 1000.0 :
			      r->w[0][j * LINNOS_INPUTS + i]) * x[i];
		a[j] = s > 0 ? s : 0;
		ea[j] = 0;
	}
	for (l = 1; l < r->nl; l++) {
		for (j = 0; j < r->out[l]; j++) {
			double s = quantized ? r->bq[l][j] / 1000.0 : r->b[l][j];
			double err = 0.001 + 1e-9;

			for (i = 0; i < LINNOS_HIDDEN; i++) {
				double w = quantized ? r->wq[l][j * LINNOS_HIDDEN + i] / 1000.0 :
					   r->w[l][j * LINNOS_HIDDEN + i];

				s += w * a[i];
				err += fabs(w) * ea[i];
			}
			if (l + 1 == r->nl) {
				z[j] = s;
				e[j] = err;
			} else {
				na[j] = s > 0 ? s : 0;
				nea[j] = s + err <= 0 ? 0 : err;
			}
		}
		memcpy(a, na, sizeof(a));
		memcpy(ea, nea, sizeof(ea));
	}
}

static void test_float_reference(void **state)
{
	size_t vi;

	(void)state;
	for (vi = 0; vi < 3; vi++) {
		struct lt_model *r;
		struct linnos_model *m = random_model(variants[vi], 1.0, 100 + vi, &r);
		u64 s = 12345 + vi;
		u32 n, ties = 0, slow = 0, unq_diff = 0;
		double worst = 0, bound = 0;

		for (n = 0; n < 1000; n++) {
			u8 x[LINNOS_INPUTS];
			double z[2], e[2], zu[2], eu[2];
			s32 zi[2];

			lt_random_input(x, &s);
			float_ref(r, x, true, z, e);
			linnos_infer_scores(m, LINNOS_PATH_SCALAR, x, zi);
			if (fabs(zi[0] / 1000.0 - z[0]) > e[0] || fabs(zi[1] / 1000.0 - z[1]) > e[1])
				fail_msg("input %u: integer %d %d, float %.4f %.4f, bound %.4f %.4f",
					 n, zi[0], zi[1], z[0], z[1], e[0], e[1]);
			worst = fmax(worst, fabs(zi[0] / 1000.0 - z[0]));
			bound = fmax(bound, e[0]);
			assert_int_equal(linnos_infer_scalar(m, x), zi[1] > zi[0]);
			float_ref(r, x, false, zu, eu);
			unq_diff += (zu[1] > zu[0]) != (zi[1] > zi[0]);
			if (fabs(z[1] - z[0]) <= e[0] + e[1]) {
				ties++;
				continue;
			}
			assert_int_equal(zi[1] > zi[0], z[1] > z[0]);
			slow += z[1] > z[0];
		}
		print_message("NN+%zu: 1000 inputs, %u slow, %u within a tie's bound, "
			      "largest error %.4f (bound up to %.4f), %u differ from "
			      "the unquantized model\n", vi, slow, ties, worst, bound, unq_diff);
		/* Not vacuous: both classes occur and few inputs are near ties. */
		assert_true(ties < 100);
		assert_true(slow > 50 && slow < 950);
		assert_true(unq_diff < 20);
		linnos_model_free(m);
		lt_model_free(r);
	}
}

/* ---- every CPU path against the scalar one ---------------------------- */

static u32 paths_checked;

static void compare_paths(const struct linnos_model *m, u32 count, u64 seed, bool wild)
{
	enum linnos_path p;
	u64 s = seed;
	u32 n, b;
	u8 *in = malloc(64 * LINNOS_INPUTS), want[64], got[64];
	s32 zs[64][2];

	for (n = 0; n < count; n += 64) {
		for (b = 0; b < 64; b++) {
			u8 *x = in + b * LINNOS_INPUTS;

			lt_random_input(x, &s);
			if (wild && b % 4 == 0)	/* bytes above 9 count as 9 */
				x[lt_rand(&s) % LINNOS_INPUTS] = lt_rand(&s);
			if (wild && b % 8 == 1)	/* the largest activations */
				memset(x, 9, LINNOS_INPUTS);
			linnos_infer_scores(m, LINNOS_PATH_SCALAR, x, zs[b]);
			want[b] = zs[b][1] > zs[b][0];
		}
		for (p = LINNOS_PATH_SCALAR; p < LINNOS_PATH_COUNT; p++) {
			if (!linnos_path_supported(p))
				continue;
			for (b = 0; b < 64 && p != LINNOS_PATH_SCALAR; b++) {
				s32 z[2];

				linnos_infer_scores(m, p, in + b * LINNOS_INPUTS, z);
				if (z[0] != zs[b][0] || z[1] != zs[b][1])
					fail_msg("%s: input %u: %d %d, scalar %d %d", linnos_path_name(p),
						 n + b, z[0], z[1], zs[b][0], zs[b][1]);
			}
			paths_checked |= 1u << p;
			if (n % 1024)
				continue;
			/* The batch entry points, on one batch in 16. */
			memset(got, 0xee, sizeof(got));
			linnos_infer_batch_on(m, p, in, 64, got);
			assert_memory_equal(got, want, 64);
		}
		if (n % 1024 == 0) {
			linnos_infer_batch(m, in, 64, got);
			assert_memory_equal(got, want, 64);
		}
	}
	free(in);
}

static void test_paths_identical(void **state)
{
	static const u32 count[] = { 100000, 10048, 5056 };
	enum linnos_path p;
	size_t vi;

	(void)state;
	for (vi = 0; vi < 3; vi++) {
		struct linnos_model *m = random_model(variants[vi], 1.0, 200 + vi, NULL);

		compare_paths(m, count[vi], 777 + vi, vi == 0);
		linnos_model_free(m);
	}
	for (p = LINNOS_PATH_SCALAR; p < LINNOS_PATH_COUNT; p++)
		print_message("path %s: %s\n", linnos_path_name(p),
			      paths_checked & (1u << p) ? "identical to scalar" :
			      "not supported by this CPU");
	assert_true(paths_checked & (1u << LINNOS_PATH_SCALAR));
	assert_int_equal(linnos_path_best() == LINNOS_PATH_SCALAR ||
			 (paths_checked & (1u << linnos_path_best())), 1);
}

/*
 * Weights near the overflow proof's edge: layer 0 sums near 2^31 and
 * products of 2^23 and activations near 2^31 in the later layers. A path
 * that summed in the wrong width would differ here (and UBSan would stop
 * the scalar one).
 */
static void test_paths_extreme(void **state)
{
	size_t vi;

	(void)state;
	for (vi = 0; vi < 3; vi++) {
		struct lt_model *r = lt_model_random(variants[vi], 1.0, 300 + vi);
		struct linnos_model *m;
		u64 s = 99;
		u32 l, i, j;
		size_t len;
		u8 *f;

		/*
		 * Layer 0: |w| 7e6, 31 * 9 * 7e6 = 1.95e9; random signs, but
		 * all positive for the first 64 outputs, which all-9 inputs
		 * drive to 1.95e9.
		 */
		for (i = 0; i < 31 * 256; i++)
			r->wq[0][i] = i < 64 * 31 || lt_rand(&s) & 1 ? 7000000 : -7000000;
		for (i = 0; i < 256; i++)
			r->bq[0][i] = 0;
		/*
		 * Later layers: weights up to 2 (3 at the output) times
		 * activations up to 1.95e9: products and sums beyond 32 bits.
		 */
		for (l = 1; l < r->nl; l++)
			for (j = 0; j < r->out[l]; j++) {
				for (i = 0; i < 256; i++)
					r->wq[l][j * 256 + i] = (lt_rand(&s) % 3 == 0 ? 1 : -1) *
						(s32)(lt_rand(&s) % (l + 1 == r->nl ? 4 : 3));
				r->bq[l][j] = 0;
			}
		f = lt_model_file(r, 900, &len);
		m = parse_ok(f, len);
		compare_paths(m, 2048, 4242 + vi, true);
		free(f);
		linnos_model_free(m);
		lt_model_free(r);
	}
}

/* ---- the host device's build of linnos.cu ----------------------------- */

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

static void launch(const struct lake_kernel_desc *d, u32 threads, void **args)
{
	struct lake_kernel_launch l = {
		.grid = { (threads + 255) / 256, 1, 1 },
		.block = { 256, 1, 1 },
	};

	for (l.block_idx.x = 0; l.block_idx.x < l.grid.x; l.block_idx.x++)
		assert_int_equal(d->run_block(&l, args), 0);
}

/* The layer kernels over a batch, as a GPU batch runs them, against the CPU. */
static void test_host_kernels(void **state)
{
	const char *dir = getenv("LAKE_KERNEL_DIR");
	const struct lake_kernel_desc *k0, *kh, *ko;
	char path[512];
	void *so;
	size_t vi;

	(void)state;
	snprintf(path, sizeof(path), "%s/linnos.so", dir ? dir : "build/kernels");
	so = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!so)
		fail_msg("%s", dlerror());
	k0 = kfunc(so, "linnos_layer0");
	kh = kfunc(so, "linnos_hidden");
	ko = kfunc(so, "linnos_output");
	for (vi = 0; vi < 3; vi++) {
		struct linnos_model *m = random_model(variants[vi], 1.0, 400 + vi, NULL);
		int n = 100;
		int *wb = malloc(linnos_model_export(m, NULL, 0));
		int *a = malloc(n * 256 * sizeof(int)), *t = malloc(n * 256 * sizeof(int));
		int z[2 * 100];
		u8 *x = malloc(n * LINNOS_INPUTS), slow[100];
		const int *w;
		u64 s = 31 + vi;
		u32 l, v;

		linnos_model_export(m, wb, linnos_model_export(m, NULL, 0));
		for (v = 0; v < (u32)n; v++) {
			lt_random_input(x + v * LINNOS_INPUTS, &s);
			if (v % 10 == 0)
				x[v * LINNOS_INPUTS + v % 31] = 200;
		}
		w = wb;
		launch(k0, n * 256, (void *[]){ &w, &x, &a, &n });
		for (l = 1; l + 1 < linnos_layers(variants[vi]); l++) {
			int *tmp;

			w = wb + linnos_export_offset(variants[vi], l);
			launch(kh, n * 256, (void *[]){ &w, &a, &t, &n });
			tmp = a;
			a = t;
			t = tmp;
		}
		w = wb + linnos_export_offset(variants[vi], l);
		{
			int *zp = z;
			u8 *sp = slow;

			launch(ko, n, (void *[]){ &w, &a, &zp, &sp, &n });
		}
		for (v = 0; v < (u32)n; v++) {
			s32 want[2];

			linnos_infer_scores(m, LINNOS_PATH_SCALAR, x + v * LINNOS_INPUTS, want);
			assert_int_equal(z[2 * v], want[0]);
			assert_int_equal(z[2 * v + 1], want[1]);
			assert_int_equal(slow[v], want[1] > want[0]);
		}
		free(wb);
		free(a);
		free(t);
		free(x);
		linnos_model_free(m);
	}
	dlclose(so);
}

/* ---- the shipped weights against the trainer's own integer model ------ */

/*
 * weights/check.txt holds, per variant, held-out reads with the scores
 * train.py's integer model gave them: the kernel's encoding and every CPU
 * path must give the same, or the trainer and the kernel disagree about
 * the model (digit order, truncation, layout).
 */
static void check_vectors(const char *dir, const char *check, u32 min_rows)
{
	static const char *const names[] = {
		"linnos_nn.lnw", "linnos_nn1.lnw", "linnos_nn2.lnw",
	};
	struct linnos_model *m[3] = { NULL };
	u32 rows[3] = { 0 }, k;
	char line[256], path[512];
	FILE *f;
	size_t i;

	for (i = 0; i < 3; i++) {
		size_t len;
		u8 *buf;

		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		if (access(path, R_OK))
			continue;
		buf = test_read_file(path, &len);
		m[i] = parse_ok(buf, len);
		assert_int_equal(linnos_model_variant(m[i]), variants[i]);
		free(buf);
	}
	f = fopen(check, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		struct linnos_history h;
		unsigned int v, pend, lat[4], hp[4];
		int z[2];
		s32 got[2];
		u8 in[LINNOS_INPUTS];
		enum linnos_path p;

		if (line[0] == '#')
			continue;
		assert_int_equal(sscanf(line, "%u %u %u %u %u %u %u %u %u %u %d %d", &v, &pend,
					&lat[0], &lat[1], &lat[2], &lat[3],
					&hp[0], &hp[1], &hp[2], &hp[3], &z[0], &z[1]), 12);
		assert_true(v < 3);
		assert_non_null(m[v]);
		for (k = 0; k < 4; k++) {
			h.latency_us[k] = lat[k];
			h.pending_at_issue[k] = hp[k];
		}
		linnos_encode(&h, pend, in);
		for (p = LINNOS_PATH_SCALAR; p < LINNOS_PATH_COUNT; p++) {
			if (!linnos_path_supported(p))
				continue;
			linnos_infer_scores(m[v], p, in, got);
			if (got[0] != z[0] || got[1] != z[1])
				fail_msg("%s/%s, %s: %s: %d %d, train.py %d %d", dir, names[v],
					 linnos_path_name(p), line, got[0], got[1], z[0], z[1]);
		}
		rows[v]++;
	}
	fclose(f);
	for (i = 0; i < 3; i++) {
		if (!m[i])
			continue;
		assert_true(rows[i] >= min_rows);
		linnos_model_free(m[i]);
	}
}

/*
 * weights/check.txt holds, per variant, held-out reads with the scores
 * train.py's integer model gave them: the kernel's encoding and every CPU
 * path must give the same, or the trainer and the kernel disagree about
 * the model (digit order, truncation, layout).
 */
static void test_shipped_weights(void **state)
{
	(void)state;
	assert_int_equal(access("examples/linnos/weights/linnos_nn2.lnw", R_OK), 0);
	check_vectors("examples/linnos/weights", "examples/linnos/weights/check.txt", 200);
}

/*
 * The training loop end to end, small: a synthetic trace, NN trained on
 * it, its weight file parsed by the kernel's parser and its check vectors
 * met; and the model must beat "always fast" on the held-out reads.
 */
static void test_trainer(void **state)
{
	char dir[] = "/tmp/linnos-train-XXXXXX", cmd[1024], line[256];
	double base = -1, acc = -1;
	FILE *p;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(cmd, sizeof(cmd),
		 "/usr/bin/python3 examples/linnos/synth.py --reads 8000 --seed 3 -o %s/t.csv && "
		 "/usr/bin/python3 examples/linnos/train.py %s/t.csv -o %s --variants 0 "
		 "--epochs 4 --check-out %s/check.txt", dir, dir, dir, dir);
	p = popen(cmd, "r");
	assert_non_null(p);
	while (fgets(line, sizeof(line), p)) {
		print_message("%s", line);
		if (!strncmp(line, "fast! accuracy", 14))
			base = atof(line + 14);
		if (!strncmp(line, "NN    accuracy", 14))
			acc = atof(line + 14);
	}
	assert_int_equal(pclose(p), 0);
	assert_true(base > 50 && acc > base + 5);
	snprintf(cmd, sizeof(cmd), "%s/check.txt", dir);
	check_vectors(dir, cmd, 100);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_encode_exact),
		cmocka_unit_test(test_parse_roundtrip),
		cmocka_unit_test(test_parse_rejects),
		cmocka_unit_test(test_parse_truncations),
		cmocka_unit_test(test_float_reference),
		cmocka_unit_test(test_paths_identical),
		cmocka_unit_test(test_paths_extreme),
		cmocka_unit_test(test_host_kernels),
		cmocka_unit_test(test_shipped_weights),
		cmocka_unit_test(test_trainer),
	};

	/* LINNOS_TEST=test_paths* runs a subset. */
	if (getenv("LINNOS_TEST"))
		cmocka_set_test_filter(getenv("LINNOS_TEST"));
	return cmocka_run_group_tests(tests, NULL, NULL);
}
