/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The readahead model, portable: a window's features from the counts the
 * probes keep, the weight-file parser and integer inference. Includes only
 * lake/port.h, so the host unit test runs the very code the module builds.
 * readahead.c (the module), readahead.cu (the GPU side) and train.py agree
 * on everything here; change them together.
 */
#ifndef RA_MODEL_H
#define RA_MODEL_H

#include <lake/port.h>

/* Inputs, each 0..RA_ONE (a fraction in permille, or a log scaled to it). */
enum ra_feature {
	RA_F_SEQ,	/* pages in runs longer than the readahead (struct ra_window) */
	RA_F_STRIDE,	/* jumps whose gap repeats the previous one */
	RA_F_GAP_MEAN,	/* mean of log2 |gap| (pages), 32 = RA_ONE */
	RA_F_GAP_STD,	/* its standard deviation, 16 = RA_ONE */
	RA_F_RUN_LEN,	/* log2 of the mean run (pages added in a row), 16 = RA_ONE */
	RA_F_RATE,	/* log2 of pages added per second, 32 = RA_ONE */
	RA_F_INFLIGHT,	/* mean reads in flight when one is queued, 64 = RA_ONE */
	RA_F_RA,	/* log2 of the current readahead (pages), 16 = RA_ONE */
	RA_F_RECENT,	/* the largest RA_F_SEQ of the last RA_HISTORY windows that added pages */
	RA_INPUTS
};

#define RA_ONE		1000	/* inputs and weights are fixed point, x 1000 */
/*
 * Windows RA_F_RECENT looks back over: a device whose readers alternate
 * between streams and random reads within this span keeps a readahead for
 * its streams (a file takes the readahead at open, so a stream that starts
 * under a random spell's small value would read with it to its end).
 */
#define RA_HISTORY	8
#define RA_MAX_HIDDEN	64
#define RA_MAX_CLASSES	8
#define RA_PARAM_MAX	(1 << 20)	/* |weight|, |bias| */
#define RA_KIB_MIN	4
#define RA_KIB_MAX	16384
#define RA_FILE_MAX	(64 + 4 * (RA_MAX_HIDDEN * RA_INPUTS + RA_MAX_HIDDEN + \
				   RA_MAX_CLASSES * RA_MAX_HIDDEN + RA_MAX_CLASSES))

/*
 * One device's window, as the probes count it. A run is a stretch of page
 * indexes added to the page cache one after another; a jump starts the
 * next one, its gap where it lands minus where the run before it ended. A
 * run longer than the readahead window is a sequential stream (the
 * kernel's readahead batches of one stream land end to end); a random
 * read, even read around by a fault, adds at most one window's pages.
 */
struct ra_window {
	u64 pages;		/* pages added */
	u64 runs;		/* runs ended (or cut by the window's end) */
	u64 seq_pages;		/* pages in runs longer than ra_pages */
	u64 jumps;
	u64 stride_jumps;	/* gap == the previous jump's gap */
	u64 gap_log_sum;	/* sum over jumps of ra_log16(|gap|) */
	u64 gap_log_sq;		/* sum of their squares */
	u64 queued;		/* reads queued to the device */
	u64 inflight_sum;	/* reads in flight at each, that one included */
	u64 ns;			/* the window's length */
	u32 ra_pages;		/* the readahead during the window */
	u16 seq_recent;		/* RA_F_RECENT, set by ra_stream_close */
};

/* A device's stream of page-cache adds: the window so far and the run it is in. */
struct ra_stream {
	struct ra_window w;
	u64 last_end;		/* index after the last page added */
	s64 last_gap;
	u64 run_len;
	bool have_prev;
	u16 seq_hist[RA_HISTORY];	/* RA_F_SEQ of the last windows closed */
	u32 hist_next;
};

/* Pages index..index+nr-1 were added; ra_pages is the readahead now. */
void ra_stream_add(struct ra_stream *s, u64 index, u32 nr, u32 ra_pages);
/* A read was queued with @inflight reads in flight (itself included). */
void ra_stream_queued(struct ra_stream *s, u32 inflight);
/*
 * End the window: *out gets it (ns, ra_pages and seq_recent set), and a
 * new one starts; the run in progress goes on into it.
 */
void ra_stream_close(struct ra_stream *s, u64 ns, u32 ra_pages, struct ra_window *out);

/* 16 * log2(v) rounded down to 1/16 (0 for 0 and 1), for the sums above. */
u32 ra_log16(u64 v);

/* The inputs of a window; an empty window gives zeros but RA_F_RA and RA_F_RECENT. */
void ra_features(const struct ra_window *w, u16 in[RA_INPUTS]);

struct ra_model {
	u32 hidden, classes;
	u32 kib[RA_MAX_CLASSES];	/* readahead of each class, increasing */
	/* The file's payload as it is: W1 [hidden][in], b1, W2 [classes][hidden], b2. */
	s32 *params;
	u32 nr_params;
};

/*
 * Parse and validate a weight file (format in model.c). 0 and a new model,
 * or -EINVAL/-ENOMEM with *why a static reason.
 */
int ra_model_parse(const void *buf, size_t len, struct ra_model **out, const char **why);
void ra_model_free(struct ra_model *m);

/* The class (0..classes-1) a model picks for one input; ties: the lower. */
u32 ra_infer(const struct ra_model *m, const u16 in[RA_INPUTS]);
void ra_infer_batch(const struct ra_model *m, const u16 *in, u32 n, u8 *out);

/* Offsets (in s32) of the payload's parts, as the GPU kernel takes them. */
static inline u32 ra_off_b1(const struct ra_model *m)
{
	return m->hidden * RA_INPUTS;
}

static inline u32 ra_off_w2(const struct ra_model *m)
{
	return ra_off_b1(m) + m->hidden;
}

static inline u32 ra_off_b2(const struct ra_model *m)
{
	return ra_off_w2(m) + m->classes * m->hidden;
}

#endif /* RA_MODEL_H */
