// SPDX-License-Identifier: GPL-2.0
#include <math.h>
#include "linnos_util.h"

u64 lt_rand(u64 *s)
{
	u64 x = *s;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	*s = x;
	return x * 0x2545f4914f6cdd1dull;
}

static double uniform(u64 *s)
{
	return ((lt_rand(s) >> 11) + 0.5) / 9007199254740992.0;
}

double lt_gauss(u64 *s)
{
	return sqrt(-2 * log(uniform(s))) * cos(2 * M_PI * uniform(s));
}

void lt_model_quantize(struct lt_model *m)
{
	u32 l, i;

	for (l = 0; l < m->nl; l++) {
		for (i = 0; i < m->in[l] * m->out[l]; i++)
			m->wq[l][i] = (s32)lround(m->w[l][i] * LINNOS_SCALE);
		for (i = 0; i < m->out[l]; i++)
			m->bq[l][i] = (s32)lround(m->b[l][i] * LINNOS_SCALE);
	}
}

struct lt_model *lt_model_random(enum linnos_variant v, double wscale, u64 seed)
{
	struct lt_model *m = calloc(1, sizeof(*m));
	u64 s = seed | 1;
	u32 l, i;

	m->variant = v;
	m->nl = linnos_layers(v);
	for (l = 0; l < m->nl; l++) {
		m->in[l] = l ? LINNOS_HIDDEN : LINNOS_INPUTS;
		m->out[l] = l + 1 == m->nl ? LINNOS_OUTPUTS : LINNOS_HIDDEN;
		m->w[l] = calloc(m->in[l] * m->out[l], sizeof(double));
		m->b[l] = calloc(m->out[l], sizeof(double));
		m->wq[l] = calloc(m->in[l] * m->out[l], sizeof(s32));
		m->bq[l] = calloc(m->out[l], sizeof(s32));
		for (i = 0; i < m->in[l] * m->out[l]; i++)
			m->w[l][i] = lt_gauss(&s) * wscale / sqrt(m->in[l]);
		for (i = 0; i < m->out[l]; i++)
			m->b[l][i] = lt_gauss(&s) * 0.1;
	}
	lt_model_quantize(m);
	return m;
}

void lt_model_free(struct lt_model *m)
{
	u32 l;

	for (l = 0; l < m->nl; l++) {
		free(m->w[l]);
		free(m->b[l]);
		free(m->wq[l]);
		free(m->bq[l]);
	}
	free(m);
}

static void le32(u8 *p, u32 v)
{
	p[0] = v;
	p[1] = v >> 8;
	p[2] = v >> 16;
	p[3] = v >> 24;
}

/* Bit by bit, unlike model.c's table: the two must still agree. */
static u32 crc_bits(u32 crc, const u8 *p, size_t len)
{
	int k;

	while (len--) {
		crc ^= *p++;
		for (k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0xedb88320u & -(crc & 1));
	}
	return crc;
}

u32 lt_crc32(const u8 *p, size_t len)
{
	return ~crc_bits(~0u, p, len);
}

void lt_file_fix_crc(u8 *f, size_t len)
{
	u32 crc = ~crc_bits(crc_bits(~0u, f, 60), f + 64, len - 64);

	le32(f + 60, crc);
}

u8 *lt_model_file(const struct lt_model *m, u32 threshold_us, size_t *len)
{
	size_t payload = 0, at = 64;
	u32 l, i;
	u8 *f;

	for (l = 0; l < m->nl; l++)
		payload += 4 * (m->in[l] * m->out[l] + m->out[l]);
	f = calloc(1, 64 + payload);
	memcpy(f, "LNOS", 4);
	f[4] = 1;
	f[6] = m->variant;
	le32(f + 8, m->nl);
	le32(f + 12, LINNOS_SCALE);
	le32(f + 16, threshold_us);
	le32(f + 20, m->in[0]);
	for (l = 0; l < m->nl; l++)
		le32(f + 24 + 4 * l, m->out[l]);
	le32(f + 44, payload);
	for (l = 0; l < m->nl; l++) {
		for (i = 0; i < m->in[l] * m->out[l]; i++, at += 4)
			le32(f + at, m->wq[l][i]);
		for (i = 0; i < m->out[l]; i++, at += 4)
			le32(f + at, m->bq[l][i]);
	}
	*len = 64 + payload;
	lt_file_fix_crc(f, *len);
	return f;
}

void lt_random_input(u8 in[LINNOS_INPUTS], u64 *s)
{
	struct linnos_history h;
	u32 k, i;

	if (lt_rand(s) % 8 == 0) {
		for (i = 0; i < LINNOS_INPUTS; i++)
			in[i] = lt_rand(s) % 10;
		return;
	}
	for (k = 0; k < LINNOS_HISTORY; k++) {
		/* Mostly fast reads, some slow ones, an occasional huge one. */
		u32 r = lt_rand(s) % 100;

		h.latency_us[k] = r < 80 ? 50 + lt_rand(s) % 400 :
				  r < 98 ? 500 + lt_rand(s) % 5000 : lt_rand(s) % 40000;
		h.pending_at_issue[k] = lt_rand(s) % (r < 95 ? 64 : 2000);
	}
	linnos_encode(&h, lt_rand(s) % 128, in);
}
