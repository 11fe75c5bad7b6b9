// SPDX-License-Identifier: GPL-2.0
/*
 * LinnOS's weight file, feature encoding and the choice of CPU path.
 *
 * The weight file (little-endian, written by train.py):
 *
 *	offset	size	field
 *	0	4	magic "LNOS"
 *	4	2	version, 1
 *	6	2	variant: 0 NN, 1 NN+1, 2 NN+2
 *	8	4	layers: variant + 2
 *	12	4	scale: 1000 (weights are float x scale)
 *	16	4	slow threshold in us the model was trained for (> 0)
 *	20	24	layer sizes: 31, 256 [, 256 [, 256]], 2, then zeros
 *	44	4	payload bytes: sum over layers of 4 * (out * in + out)
 *	48	12	reserved, zero
 *	60	4	CRC-32 (zlib's) of bytes 0..59 and the payload
 *	64	...	payload: per layer, s32 weights [out][in] then s32 biases [out]
 *
 * A file is taken whole or not at all: every field is checked against the
 * variant it names, the length must be exactly header + payload, the CRC
 * must match, every value must be within +-LINNOS_PARAM_MAX, and the
 * weights must pass the overflow proof in infer.h. Layouts in memory are
 * [in][out] (an input's weights contiguous, for the broadcast-and-add form
 * of every CPU path); the export gives the GPU the file's [out][in].
 */
#include <lake/filefmt.h>
#include "infer.h"
#include "fpu.h"

#define HDR_BYTES	64
#define HDR_CRC		60
#define FORMAT_VERSION	1
#define S32_MAX_		0x7fffffffLL
#define S32_MIN_		(-0x7fffffffLL - 1)

static const u8 magic[4] = { 'L', 'N', 'O', 'S' };

static u32 layer_in(u32 l)
{
	return l == 0 ? LINNOS_INPUTS : LINNOS_HIDDEN;
}

static u32 layer_out(enum linnos_variant v, u32 l)
{
	return l + 1 == linnos_layers(v) ? LINNOS_OUTPUTS : LINNOS_HIDDEN;
}

size_t linnos_export_offset(enum linnos_variant v, u32 layer)
{
	size_t off = 0;
	u32 l;

	for (l = 0; l < layer && l < linnos_layers(v); l++)
		off += (size_t)layer_out(v, l) * layer_in(l) + layer_out(v, l);
	return off;
}

/* Elements of a layer's w and b in memory, each padded to 16 (64 bytes). */
static size_t padded(size_t n)
{
	return (n + 15) & ~(size_t)15;
}

/*
 * The overflow proof (infer.h): bound every z over all inputs of digits
 * 0..9. hi[] carries each activation's upper bound to the next layer.
 */
static const char *check_bounds(const struct linnos_model *m)
{
	s64 *hi_a, *next;
	const char *why = NULL;
	u32 l, i, j;

	hi_a = lake_port_malloc(2 * LINNOS_HIDDEN * sizeof(s64));
	if (!hi_a)
		return "out of memory";
	next = hi_a + LINNOS_HIDDEN;
	for (i = 0; i < LINNOS_INPUTS; i++)
		hi_a[i] = 9;
	for (l = 0; l < m->nlayers; l++) {
		const struct linnos_layer *ly = &m->layer[l];

		for (j = 0; j < ly->out; j++) {
			s64 lo = 0, hi = 0;

			for (i = 0; i < ly->in; i++) {
				s64 w = ly->w[(size_t)i * ly->out + j];

				if (w > 0)
					hi += w * hi_a[i];
				else
					lo += w * hi_a[i];
			}
			if (l == 0) {
				lo += ly->b[j];
				hi += ly->b[j];
			} else {
				lo = ly->b[j] + lo / LINNOS_SCALE;
				hi = ly->b[j] + hi / LINNOS_SCALE;
			}
			if (lo < S32_MIN_ || hi > S32_MAX_) {
				why = "weights could overflow 32-bit activations";
				goto out;
			}
			next[j] = hi > 0 ? hi : 0;
		}
		memcpy(hi_a, next, sizeof(s64) * ly->out);
	}
out:
	lake_port_free(hi_a);
	return why;
}

static const char *check_header(const u8 *p, size_t len, enum linnos_variant *variant)
{
	u32 v, l, nl;
	size_t payload = 0;

	if (len < HDR_BYTES)
		return "truncated header";
	if (memcmp(p, magic, sizeof(magic)))
		return "bad magic, not a LinnOS weight file";
	if (lake_get_le16(p + 4) != FORMAT_VERSION)
		return "unsupported format version";
	v = lake_get_le16(p + 6);
	if (v > LINNOS_NN2)
		return "unknown variant";
	nl = lake_get_le32(p + 8);
	if (nl != linnos_layers(v))
		return "layer count does not match the variant";
	if (lake_get_le32(p + 12) != LINNOS_SCALE)
		return "unsupported scale (want 1000)";
	if (lake_get_le32(p + 16) == 0)
		return "no slow threshold";
	for (l = 0; l < 6; l++) {
		u32 want = l == 0 ? LINNOS_INPUTS : l < nl ? LINNOS_HIDDEN :
			   l == nl ? LINNOS_OUTPUTS : 0;

		if (lake_get_le32(p + 20 + 4 * l) != want)
			return "layer sizes do not match the variant";
	}
	for (l = 0; l < nl; l++)
		payload += 4 * ((size_t)layer_out(v, l) * layer_in(l) + layer_out(v, l));
	if (lake_get_le32(p + 44) != payload)
		return "payload size does not match the layer sizes";
	if (lake_get_le32(p + 48) || lake_get_le32(p + 52) || lake_get_le32(p + 56))
		return "reserved header fields not zero";
	if (len - HDR_BYTES < payload)
		return "truncated payload";
	if (len - HDR_BYTES > payload)
		return "trailing bytes after the payload";
	*variant = v;
	return NULL;
}

int linnos_model_parse(const void *buf, size_t len, struct linnos_model **out,
		       const char **why)
{
	const u8 *p = buf;
	enum linnos_variant v;
	struct linnos_model *m;
	size_t elems = 0, at = 0;
	u32 crc, l, i, j;

	*out = NULL;
	*why = check_header(p, len, &v);
	if (*why)
		return -EINVAL;
	crc = lake_crc32(~0u, p, HDR_CRC);
	crc = ~lake_crc32(crc, p + HDR_BYTES, len - HDR_BYTES);
	if (crc != lake_get_le32(p + HDR_CRC)) {
		*why = "bad checksum";
		return -EINVAL;
	}

	for (l = 0; l < linnos_layers(v); l++)
		elems += padded((size_t)layer_in(l) * layer_out(v, l)) +
			 padded(layer_out(v, l));
	m = lake_port_kvzalloc(sizeof(*m) + elems * sizeof(s32));
	if (!m) {
		*why = "out of memory";
		return -ENOMEM;
	}
	lake_port_ref_init(&m->ref);
	m->variant = v;
	m->nlayers = linnos_layers(v);
	m->threshold_us = lake_get_le32(p + 16);

	p += HDR_BYTES;
	for (l = 0; l < m->nlayers; l++) {
		struct linnos_layer *ly = &m->layer[l];
		s32 *w = m->data + at, *b;

		ly->in = layer_in(l);
		ly->out = layer_out(v, l);
		at += padded((size_t)ly->in * ly->out);
		b = m->data + at;
		at += padded(ly->out);
		ly->w = w;
		ly->b = b;
		for (j = 0; j < ly->out; j++)
			for (i = 0; i < ly->in; i++, p += 4)
				w[(size_t)i * ly->out + j] = (s32)lake_get_le32(p);
		for (j = 0; j < ly->out; j++, p += 4)
			b[j] = (s32)lake_get_le32(p);
		for (i = 0; i < ly->in * ly->out; i++)
			if (w[i] > LINNOS_PARAM_MAX || w[i] < -LINNOS_PARAM_MAX)
				goto range;
		for (j = 0; j < ly->out; j++)
			if (b[j] > LINNOS_PARAM_MAX || b[j] < -LINNOS_PARAM_MAX)
				goto range;
	}
	for (i = 0; i <= LINNOS_INPUTS; i++)
		for (j = 0; j < LINNOS_HIDDEN / 2; j++) {
			const s32 *row = i < LINNOS_INPUTS ?
					 m->layer[0].w + i * LINNOS_HIDDEN : m->layer[0].b;

			m->l0_pairs[i][j] = (u64)(s64)row[2 * j] + ((u64)(u32)row[2 * j + 1] << 32);
		}
	*why = check_bounds(m);
	if (*why) {
		lake_port_kvfree(m);
		return -EINVAL;
	}
	*out = m;
	return 0;

range:
	lake_port_kvfree(m);
	*why = "weight or bias out of range";
	return -EINVAL;
}

void linnos_model_get(struct linnos_model *m)
{
	lake_port_ref_get(&m->ref);
}

void linnos_model_free(struct linnos_model *m)
{
	if (m && lake_port_ref_put(&m->ref))
		lake_port_kvfree(m);
}

enum linnos_variant linnos_model_variant(const struct linnos_model *m)
{
	return m->variant;
}

u32 linnos_model_threshold_us(const struct linnos_model *m)
{
	return m->threshold_us;
}

size_t linnos_model_export(const struct linnos_model *m, void *dst, size_t cap)
{
	size_t need = linnos_export_offset(m->variant, m->nlayers) * sizeof(s32);
	u8 *p = dst;
	u32 l, i, j;

	if (!dst)
		return need;
	if (cap < need)
		return 0;
	for (l = 0; l < m->nlayers; l++) {
		const struct linnos_layer *ly = &m->layer[l];

		for (j = 0; j < ly->out; j++)
			for (i = 0; i < ly->in; i++, p += 4)
				memcpy(p, &ly->w[(size_t)i * ly->out + j], 4);
		memcpy(p, ly->b, 4 * ly->out);
		p += 4 * ly->out;
	}
	return need;
}

/* @ndigits decimal digits of min(@v, @cap), most significant first. */
static void put_digits(u8 *d, u32 ndigits, u32 v, u32 cap)
{
	if (v > cap)
		v = cap;
	while (ndigits--) {
		d[ndigits] = v % 10;
		v /= 10;
	}
}

void linnos_encode(const struct linnos_history *h, u32 pending, u8 in[LINNOS_INPUTS])
{
	u32 k;

	put_digits(in, 3, pending, LINNOS_PENDING_CAP);
	for (k = 0; k < LINNOS_HISTORY; k++) {
		put_digits(in + 3 + 7 * k, 4, h->latency_us[k], LINNOS_LATENCY_CAP);
		put_digits(in + 3 + 7 * k + 4, 3, h->pending_at_issue[k], LINNOS_PENDING_CAP);
	}
}

int linnos_infer_scalar(const struct linnos_model *m, const u8 in[LINNOS_INPUTS])
{
	s32 z[LINNOS_OUTPUTS];

	linnos_scores_scalar(m, in, z);
	return z[1] > z[0];
}

typedef void (*scores_fn)(const struct linnos_model *, const u8 *, s32 *);

static const scores_fn path_fn[LINNOS_PATH_COUNT] = {
	[LINNOS_PATH_SCALAR] = linnos_scores_scalar,
#ifdef LINNOS_X86_SIMD
	[LINNOS_PATH_AVX2] = linnos_scores_avx2,
	[LINNOS_PATH_AVX512] = linnos_scores_avx512,
#endif
};

bool linnos_path_supported(enum linnos_path p)
{
	switch (p) {
	case LINNOS_PATH_SCALAR:
		return true;
#ifdef LINNOS_X86_SIMD
	case LINNOS_PATH_AVX2:
		return linnos_cpu_avx2();
	case LINNOS_PATH_AVX512:
		return linnos_cpu_avx512();
#endif
	default:
		return false;
	}
}

enum linnos_path linnos_path_best(void)
{
	if (linnos_path_supported(LINNOS_PATH_AVX512))
		return LINNOS_PATH_AVX512;
	if (linnos_path_supported(LINNOS_PATH_AVX2))
		return LINNOS_PATH_AVX2;
	return LINNOS_PATH_SCALAR;
}

const char *linnos_path_name(enum linnos_path p)
{
	static const char *const names[LINNOS_PATH_COUNT] = {
		[LINNOS_PATH_SCALAR] = "scalar",
		[LINNOS_PATH_AVX2] = "avx2",
		[LINNOS_PATH_AVX512] = "avx512",
	};

	return (unsigned int)p < LINNOS_PATH_COUNT ? names[p] : "?";
}

/*
 * Inputs per FPU section: kernel_fpu_begin() disables preemption, so a
 * section holds about 128K multiply-adds (tens of us) at most: 15 NN
 * inputs, one NN+1 or NN+2.
 */
static u32 fpu_chunk(const struct linnos_model *m)
{
	u32 macs = LINNOS_INPUTS * LINNOS_HIDDEN + LINNOS_HIDDEN * LINNOS_OUTPUTS +
		   (m->nlayers - 2) * LINNOS_HIDDEN * LINNOS_HIDDEN;

	return macs >= (128u << 10) ? 1 : (128u << 10) / macs;
}

static void run_path(const struct linnos_model *m, enum linnos_path p,
		     const u8 *in, u32 n, void (*emit)(void *, u32, const s32 *), void *arg)
{
	u32 i = 0, end;
	s32 z[LINNOS_OUTPUTS];
	scores_fn fn = path_fn[p];
	bool fpu;

	if (p == LINNOS_PATH_SCALAR || !fn) {
		for (; i < n; i++) {
			linnos_scores_scalar(m, in + (size_t)i * LINNOS_INPUTS, z);
			emit(arg, i, z);
		}
		return;
	}
	while (i < n) {
		end = n - i > fpu_chunk(m) ? i + fpu_chunk(m) : n;
#ifdef LINNOS_X86_SIMD
		fpu = linnos_fpu_begin();
#else
		fpu = false;
#endif
		for (; i < end; i++) {
			(fpu ? fn : linnos_scores_scalar)(m, in + (size_t)i * LINNOS_INPUTS, z);
			emit(arg, i, z);
		}
#ifdef LINNOS_X86_SIMD
		if (fpu)
			linnos_fpu_end();
#endif
	}
}

static void emit_class(void *arg, u32 i, const s32 *z)
{
	((u8 *)arg)[i] = z[1] > z[0];
}

static void emit_scores(void *arg, u32 i, const s32 *z)
{
	(void)i;	/* one input only */
	memcpy(arg, z, sizeof(s32) * LINNOS_OUTPUTS);
}

void linnos_infer_batch_on(const struct linnos_model *m, enum linnos_path p,
			   const u8 *in, u32 n, u8 *out)
{
	run_path(m, p, in, n, emit_class, out);
}

void linnos_infer_scores(const struct linnos_model *m, enum linnos_path p,
			 const u8 in[LINNOS_INPUTS], s32 z[LINNOS_OUTPUTS])
{
	run_path(m, p, in, 1, emit_scores, z);
}

void linnos_infer_batch(const struct linnos_model *m, const u8 *in, u32 n, u8 *out)
{
	linnos_infer_batch_on(m, linnos_path_best(), in, n, out);
}
