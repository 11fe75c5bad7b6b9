// SPDX-License-Identifier: GPL-2.0
/*
 * The readahead model's features, weight file and inference (model.h).
 *
 * The weight file (little-endian, written by train.py):
 *
 *	offset	size	field
 *	0	4	magic "LKRA"
 *	4	2	version, 1
 *	6	2	inputs: RA_INPUTS (9)
 *	8	2	hidden units: 1..RA_MAX_HIDDEN
 *	10	2	classes: 2..RA_MAX_CLASSES
 *	12	4	scale: RA_ONE (1000)
 *	16	32	readahead of each class in KiB, increasing, each a multiple
 *			of 4 in RA_KIB_MIN..RA_KIB_MAX; zeros past the classes
 *	48	4	payload bytes: 4 * (hidden * (inputs + 1) + classes * (hidden + 1))
 *	52	8	reserved, zero
 *	60	4	CRC-32 (zlib's) of bytes 0..59 and the payload
 *	64	...	payload: s32 W1 [hidden][inputs], b1 [hidden],
 *			W2 [classes][hidden], b2 [classes]
 *
 * Taken whole or not at all: every field checked, the length exactly
 * header + payload, the CRC matching, every value within +-RA_PARAM_MAX.
 *
 * Inference, in integers (the GPU kernel does the same sums): h_j =
 * max(0, b1_j + (sum_i W1_ji x_i) / 1000), z_k = b2_k + (sum_j W2_kj h_j)
 * / 1000, the class the largest z (the lower on a tie), divisions
 * truncating. The sums are s64 and cannot overflow: |x_i| <= 1000 and
 * |W|, |b| <= 2^20 give |h_j| <= 10 * 2^20 < 2^24, and the 64 terms of a
 * z at most 2^50, so every order of summation gives the same integers.
 */
#include <lake/filefmt.h>
#include "model.h"

#define HDR_BYTES	64
#define HDR_CRC		60
#define FORMAT_VERSION	1

static const u8 magic[4] = { 'L', 'K', 'R', 'A' };

u32 ra_log16(u64 v)
{
	u32 k;

	if (v < 2)
		return 0;
	k = 63 - __builtin_clzll(v);
	return 16 * k + (u32)((k >= 4 ? v >> (k - 4) : v << (4 - k)) & 15);
}

static u64 isqrt64(u64 v)
{
	u64 r = 0, bit = 1ull << 62;

	while (bit > v)
		bit >>= 2;
	while (bit) {
		if (v >= r + bit) {
			v -= r + bit;
			r = (r >> 1) + bit;
		} else {
			r >>= 1;
		}
		bit >>= 2;
	}
	return r;
}

static u16 cap(u64 v)
{
	return v > RA_ONE ? RA_ONE : (u16)v;
}

static void end_run(struct ra_window *w, u64 len, u32 ra_pages)
{
	if (!len)
		return;
	w->runs++;
	if (len > ra_pages)
		w->seq_pages += len;
}

void ra_stream_add(struct ra_stream *s, u64 index, u32 nr, u32 ra_pages)
{
	struct ra_window *w = &s->w;

	if (!s->have_prev || index != s->last_end) {
		end_run(w, s->run_len, ra_pages);
		s->run_len = 0;
		if (s->have_prev) {
			s64 gap = (s64)(index - s->last_end);
			u64 lg = ra_log16(gap < 0 ? -(u64)gap : (u64)gap);

			w->jumps++;
			w->gap_log_sum += lg;
			w->gap_log_sq += lg * lg;
			if (gap == s->last_gap)
				w->stride_jumps++;
			s->last_gap = gap;
		}
	}
	s->run_len += nr;
	w->pages += nr;
	s->last_end = index + nr;
	s->have_prev = true;
}

void ra_stream_queued(struct ra_stream *s, u32 inflight)
{
	s->w.queued++;
	s->w.inflight_sum += inflight;
}

void ra_stream_close(struct ra_stream *s, u64 ns, u32 ra_pages, struct ra_window *out)
{
	u16 recent = 0;
	u32 i;

	end_run(&s->w, s->run_len, ra_pages);
	s->run_len = 0;
	/* A window that added nothing says nothing of the readers: not kept. */
	if (s->w.pages) {
		s->seq_hist[s->hist_next] = cap(s->w.seq_pages * RA_ONE / s->w.pages);
		s->hist_next = (s->hist_next + 1) % RA_HISTORY;
	}
	for (i = 0; i < RA_HISTORY; i++)
		recent = s->seq_hist[i] > recent ? s->seq_hist[i] : recent;
	*out = s->w;
	out->ns = ns;
	out->ra_pages = ra_pages;
	out->seq_recent = recent;
	memset(&s->w, 0, sizeof(s->w));
}

void ra_features(const struct ra_window *w, u16 in[RA_INPUTS])
{
	u64 mean, sq;
	u32 i;

	for (i = 0; i < RA_INPUTS; i++)
		in[i] = 0;
	in[RA_F_RA] = cap((u64)ra_log16(w->ra_pages) * RA_ONE / 256);
	in[RA_F_RECENT] = w->seq_recent > RA_ONE ? RA_ONE : w->seq_recent;
	if (w->ns)
		in[RA_F_RATE] = cap((u64)ra_log16(w->pages * 1000000000ull / w->ns) * RA_ONE / 512);
	if (w->queued)
		in[RA_F_INFLIGHT] = cap(w->inflight_sum * RA_ONE / (w->queued * 64));
	if (w->pages)
		in[RA_F_SEQ] = cap(w->seq_pages * RA_ONE / w->pages);
	if (w->runs)
		in[RA_F_RUN_LEN] = cap((u64)ra_log16(w->pages / w->runs) * RA_ONE / 256);
	if (!w->jumps)
		return;
	in[RA_F_STRIDE] = cap(w->stride_jumps * RA_ONE / w->jumps);
	mean = w->gap_log_sum / w->jumps;
	in[RA_F_GAP_MEAN] = cap(mean * RA_ONE / 512);
	sq = w->gap_log_sq / w->jumps;
	in[RA_F_GAP_STD] = cap(isqrt64(sq > mean * mean ? sq - mean * mean : 0) * RA_ONE / 256);
}

int ra_model_parse(const void *buf, size_t len, struct ra_model **out, const char **why)
{
	const u8 *p = buf;
	struct ra_model *m;
	u32 hidden, classes, payload, nr, i, crc;

	*out = NULL;
	*why = "truncated header";
	if (!p || len < HDR_BYTES)
		return -EINVAL;
	*why = "bad magic";
	if (memcmp(p, magic, 4))
		return -EINVAL;
	*why = "unsupported version";
	if (lake_get_le16(p + 4) != FORMAT_VERSION)
		return -EINVAL;
	*why = "input count is not the module's";
	if (lake_get_le16(p + 6) != RA_INPUTS)
		return -EINVAL;
	hidden = lake_get_le16(p + 8);
	classes = lake_get_le16(p + 10);
	*why = "hidden units out of range";
	if (hidden < 1 || hidden > RA_MAX_HIDDEN)
		return -EINVAL;
	*why = "class count out of range";
	if (classes < 2 || classes > RA_MAX_CLASSES)
		return -EINVAL;
	*why = "scale is not 1000";
	if (lake_get_le32(p + 12) != RA_ONE)
		return -EINVAL;
	*why = "class readahead sizes not increasing multiples of 4 KiB in range";
	for (i = 0; i < RA_MAX_CLASSES; i++) {
		u32 kib = lake_get_le32(p + 16 + 4 * i);

		if (i >= classes ? kib != 0 :
		    kib < RA_KIB_MIN || kib > RA_KIB_MAX || kib % 4 ||
		    (i && kib <= lake_get_le32(p + 12 + 4 * i)))
			return -EINVAL;
	}
	nr = hidden * (RA_INPUTS + 1) + classes * (hidden + 1);
	payload = lake_get_le32(p + 48);
	*why = "payload size does not match the layer sizes";
	if (payload != 4 * nr)
		return -EINVAL;
	*why = "reserved bytes not zero";
	if (lake_get_le32(p + 52) || lake_get_le32(p + 56))
		return -EINVAL;
	*why = "length is not header + payload";
	if (len != HDR_BYTES + (size_t)payload)
		return -EINVAL;
	crc = lake_crc32(0xffffffffu, p, HDR_CRC);
	crc = lake_crc32(crc, p + HDR_BYTES, payload) ^ 0xffffffffu;
	*why = "bad checksum";
	if (crc != lake_get_le32(p + HDR_CRC))
		return -EINVAL;
	*why = "weight or bias out of range";
	for (i = 0; i < nr; i++) {
		s32 v = (s32)lake_get_le32(p + HDR_BYTES + 4 * i);

		if (v > RA_PARAM_MAX || v < -RA_PARAM_MAX)
			return -EINVAL;
	}
	*why = "out of memory";
	m = lake_port_malloc(sizeof(*m));
	if (!m)
		return -ENOMEM;
	m->params = lake_port_malloc(4 * (size_t)nr);
	if (!m->params) {
		lake_port_free(m);
		return -ENOMEM;
	}
	m->hidden = hidden;
	m->classes = classes;
	m->nr_params = nr;
	for (i = 0; i < RA_MAX_CLASSES; i++)
		m->kib[i] = lake_get_le32(p + 16 + 4 * i);
	for (i = 0; i < nr; i++)
		m->params[i] = (s32)lake_get_le32(p + HDR_BYTES + 4 * i);
	*why = NULL;
	*out = m;
	return 0;
}

void ra_model_free(struct ra_model *m)
{
	if (!m)
		return;
	lake_port_free(m->params);
	lake_port_free(m);
}

u32 ra_infer(const struct ra_model *m, const u16 in[RA_INPUTS])
{
	const s32 *w1 = m->params, *b1 = w1 + ra_off_b1(m);
	const s32 *w2 = w1 + ra_off_w2(m), *b2 = w1 + ra_off_b2(m);
	s64 h[RA_MAX_HIDDEN], best = 0;
	u32 i, j, k, cls = 0;

	for (j = 0; j < m->hidden; j++) {
		s64 s = 0;

		for (i = 0; i < RA_INPUTS; i++)
			s += (s64)w1[j * RA_INPUTS + i] * in[i];
		s = b1[j] + s / RA_ONE;
		h[j] = s < 0 ? 0 : s;
	}
	for (k = 0; k < m->classes; k++) {
		s64 s = 0;

		for (j = 0; j < m->hidden; j++)
			s += (s64)w2[k * m->hidden + j] * h[j];
		s = b2[k] + s / RA_ONE;
		if (!k || s > best) {
			best = s;
			cls = k;
		}
	}
	return cls;
}

void ra_infer_batch(const struct ra_model *m, const u16 *in, u32 n, u8 *out)
{
	u32 v;

	for (v = 0; v < n; v++)
		out[v] = (u8)ra_infer(m, in + v * RA_INPUTS);
}
