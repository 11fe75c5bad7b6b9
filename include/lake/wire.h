/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The wire codec's view of the records of uapi/lake/wire.h, compiled
 * unchanged into lakelib.ko and into laked (common/wire.c, wire_api.c).
 *
 * Neither side trusts the other: the iterators validate every record fully
 * before handing it out, and the encoders run the same checks, so anything
 * an encoder accepts the peer's iterator accepts too.
 */
#ifndef LAKE_WIRE_H
#define LAKE_WIRE_H

#include <lake/port.h>
#include <uapi/lake/genl.h>
#include <uapi/lake/wire.h>
#include <lake/kernel_sig.h>

/* The fixed part of a request or reply, by API (lake_wire_api()). */
union lake_wire_req_args {
	struct lake_wire_flags_args flags;
	struct lake_wire_device_args device;
	struct lake_wire_attribute_args attribute;
	struct lake_wire_ctx_create_args ctx_create;
	struct lake_wire_handle_args handle;
	struct lake_wire_size_args size;
	struct lake_wire_mem_alloc_pitch_args mem_alloc_pitch;
	struct lake_wire_memcpy_args memcpy;
	struct lake_wire_memset_args memset;
	struct lake_wire_launch_args launch;
	struct lake_wire_event_elapsed_args elapsed;
};

union lake_wire_rep_res {
	struct lake_wire_value_res value;
	struct lake_wire_handle_res handle;
	struct lake_wire_size_res size;
	struct lake_wire_pair_res pair;
	struct lake_wire_elapsed_res elapsed;
	struct lake_wire_get_function_res get_function;
};

/*
 * A decoded record, or one to encode. The fixed part is a copy, because
 * netlink only aligns attributes to 4 bytes; the tail points into the blob.
 */
struct lake_wire_req {
	u16 api;
	u16 flags;
	u64 req_id;
	u64 ctx;
	u64 stream;
	union lake_wire_req_args args;
	const void *tail;
	u32 tail_len;
};

struct lake_wire_rep {
	u16 api;
	u32 result;
	u64 req_id;
	union lake_wire_rep_res res;
	const void *tail;
	u32 tail_len;
};

enum lake_wire_tail {
	LAKE_WIRE_TAIL_NONE,
	LAKE_WIRE_TAIL_BYTES,	/* 0..max bytes */
	LAKE_WIRE_TAIL_CSTRING,	/* 2..max bytes, one NUL, at the end */
};

/* struct lake_wire_api_desc.flags */
#define LAKE_WIRE_ASYNC		(1U << 0)	/* caller need not wait; may coalesce */
#define LAKE_WIRE_CTX		(1U << 1)	/* runs in the header's ctx */
#define LAKE_WIRE_STREAM	(1U << 2)	/* runs on the header's stream */

/*
 * One row per API. A row's size fields are its fixed structs' sizeof; pad
 * offsets name the struct's trailing u32 pad (0: none). The check hooks add
 * what the generic rules cannot express; they return 0 or -errno and set why.
 */
struct lake_wire_api_desc {
	const char *name;		/* CUDA's name, for logs */
	u16 flags;			/* LAKE_WIRE_ASYNC, _CTX, _STREAM */
	u16 req_size;
	u16 req_pad;
	u8 req_tail;			/* enum lake_wire_tail */
	u16 req_tail_max;
	u16 rep_size;
	u16 rep_pad;
	u8 rep_tail;
	u16 rep_tail_max;
	int (*check_req)(const struct lake_wire_req *req, const char **why);
	int (*check_rep)(const struct lake_wire_rep *rep, const char **why);
};

/* The descriptor of @api, or NULL when out of range. */
const struct lake_wire_api_desc *lake_wire_api(u32 api);

/*
 * The context a valid request belongs to: the header's for LAKE_WIRE_CTX
 * APIs, the one it destroys for cuCtxDestroy, else 0. laked runs the
 * requests of one context in order, on one thread, and only those, so
 * lakelib counts its per-context windows, and retires async requests, by it.
 */
static inline u64 lake_wire_req_ctx(const struct lake_wire_req *req)
{
	if (req->api == LAKE_API_CTX_DESTROY)
		return req->args.handle.handle;
	return lake_wire_api(req->api)->flags & LAKE_WIRE_CTX ? req->ctx : 0;
}

/* An output buffer: records are appended at len, never past size. */
struct lake_wire_buf {
	void *data;
	u32 size;
	u32 len;
};

/*
 * Append one record. Returns 0, -EMSGSIZE when the record does not fit in
 * what is left of @buf (nothing is written: flush and retry), or the error
 * the peer's iterator would return for it (-EINVAL, -EPROTO, -EMSGSIZE) with
 * *why set. Pad fields in the view must be zero (initialise it with {}).
 */
int lake_wire_put_req(struct lake_wire_buf *buf, const struct lake_wire_req *req,
		      const char **why);
int lake_wire_put_rep(struct lake_wire_buf *buf, const struct lake_wire_rep *rep,
		      const char **why);

/*
 * Walk a received blob. next returns 1 with a fully validated record, 0 at
 * the end of the blob, or a negative errno with it->why set; after an error
 * it keeps returning that error. Records handed out before it were valid.
 * -EMSGSIZE: a length runs past the blob or past a bound; -EPROTO: framing
 * (alignment, api id, sizes, flags, padding); -EINVAL: inconsistent arguments.
 */
struct lake_wire_iter {
	const u8 *data;
	u32 size;
	u32 pos;		/* offset of the next record */
	int err;
	const char *why;
};

void lake_wire_iter_init(struct lake_wire_iter *it, const void *data, u32 size);
int lake_wire_next_req(struct lake_wire_iter *it, struct lake_wire_req *req);
int lake_wire_next_rep(struct lake_wire_iter *it, struct lake_wire_rep *rep);

/* Validate a view as the iterator would; used by the encoders. */
int lake_wire_check_req(const struct lake_wire_req *req, const char **why);
int lake_wire_check_rep(const struct lake_wire_rep *rep, const char **why);

/*
 * Does @rep answer @req? Same api and req_id, and the data a DtoH copy asked
 * to be inline is exactly there. 0 or -EPROTO with *why set.
 */
int lake_wire_rep_matches(const struct lake_wire_req *req, const struct lake_wire_rep *rep,
			  const char **why);

/*
 * Does @res, laked's layout for a function (a validated cuModuleGetFunction
 * reply), equal @sig, the signature its caller declared? The count decides
 * how many kernelParams pointers lakelib follows and the sizes how far it
 * reads through each, so only an exact match is adopted. 0, or -EPROTO with
 * *why set; -EINVAL when @sig itself is malformed.
 */
int lake_wire_check_layout(const struct lake_wire_get_function_res *res,
			   const struct lake_kernel_sig *sig, const char **why);

/*
 * Marshal cuLaunchKernel's kernelParams into @out with @res's layout (from a
 * validated cuModuleGetFunction reply): it reads res->count pointers from
 * @params, so @res must be one the caller's array matches (a declared
 * signature, lake_wire_check_layout). Gaps are zeroed. Returns the packed
 * length (end of the last parameter), or -EINVAL for a NULL parameter
 * pointer, or -EMSGSIZE when @out_size is too small.
 */
int lake_wire_pack_params(const struct lake_wire_get_function_res *res,
			  void *const *params, void *out, u32 out_size);

/* Validate a LAKE_A_LOAD report. 0, -EPROTO or -EINVAL with *why set. */
int lake_wire_check_load(const struct lake_genl_load *load, const char **why);

#endif /* LAKE_WIRE_H */
