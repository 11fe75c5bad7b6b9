// SPDX-License-Identifier: GPL-2.0
/* Sources of async copies, kept until their stream is done (staging.h). */
#include "staging.h"

void *laked_stage(struct laked_stagings *s, u64 ctx, u64 stream, u32 bytes)
{
	struct laked_staging *st;

	if (bytes > LAKED_STAGING_MAX - s->bytes)
		return NULL;
	st = malloc(sizeof(*st) + bytes);
	if (!st)
		return NULL;
	st->ctx = ctx;
	st->stream = stream;
	st->bytes = bytes;
	st->next = s->head;
	s->head = st;
	s->bytes += bytes;
	return st->data;
}

void laked_unstage(struct laked_stagings *s, u64 ctx, u64 stream)
{
	struct laked_staging **pp = &s->head, *st;

	while ((st = *pp)) {
		if (st->ctx == ctx && (stream == LAKED_ALL_STREAMS || st->stream == stream)) {
			*pp = st->next;
			s->bytes -= st->bytes;
			free(st);
		} else {
			pp = &st->next;
		}
	}
}

void laked_stagings_fini(struct laked_stagings *s)
{
	struct laked_staging *st;

	while ((st = s->head)) {
		s->head = st->next;
		free(st);
	}
	s->bytes = 0;
}
