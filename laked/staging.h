/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Host buffers that async copies read from later: inline host-to-device
 * data, which arrives in a CALL message that is gone once the message is
 * handled. An async copy may read its source when it runs (the host device
 * does; CUDA stages pageable memory itself), so each buffer is kept until its
 * stream is known to be done with it: a synchronize of the stream or its
 * context, or its destruction. The total is capped; past it such calls fail
 * with CUDA_ERROR_OUT_OF_MEMORY until the kernel synchronizes.
 */
#ifndef LAKED_STAGING_H
#define LAKED_STAGING_H

#include <lake/port.h>

#define LAKED_STAGING_MAX	(64ULL << 20)
#define LAKED_ALL_STREAMS	UINT64_MAX

struct laked_staging {
	struct laked_staging *next;
	u64 ctx, stream;	/* handles; stream 0 is the default stream */
	u32 bytes;
	u8 data[];
};

struct laked_stagings {
	struct laked_staging *head;
	u64 bytes;
};

/* @bytes for the caller to fill, kept for (@ctx, @stream); NULL: over the cap, no memory. */
void *laked_stage(struct laked_stagings *s, u64 ctx, u64 stream, u32 bytes);
/* Release the copies of (@ctx, @stream); LAKED_ALL_STREAMS: of every stream of @ctx. */
void laked_unstage(struct laked_stagings *s, u64 ctx, u64 stream);
void laked_stagings_fini(struct laked_stagings *s);

#endif /* LAKED_STAGING_H */
