/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * The records carried in LAKE_A_RECORDS: the one definition of the wire
 * format, compiled unchanged into lakelib.ko and into laked.
 *
 * A blob is a sequence of records, each a multiple of 8 bytes long:
 *
 *	header | fixed part (per API) | tail (0..tail max bytes) | zero padding
 *
 * The header names the API; the API's descriptor (lake_wire_api()) gives the
 * exact size of the fixed part and the kind and bound of the tail. Requests
 * travel kernel -> daemon in LAKE_CMD_CALL, replies daemon -> kernel in
 * LAKE_CMD_REPLY. A failed call's reply is a header alone: no fixed part and
 * no tail. Handles (contexts, modules, functions, streams, events, device
 * pointers) are u64 values issued by the daemon; 0 is never a live handle.
 *
 * Neither side trusts the other: the iterators validate every record fully
 * before handing it out, and the encoders run the same checks, so anything
 * an encoder accepts the peer's iterator accepts too. Integers are in host
 * byte order; padding and pad fields are zero.
 */
#ifndef LAKE_WIRE_H
#define LAKE_WIRE_H

#include <lake/port.h>
#include <lake/genl.h>
#include <lake/kernel_sig.h>

/*
 * Bounds. A host buffer outside the shared region travels inline only up to
 * LAKE_WIRE_INLINE_MAX bytes (one page): enough for control-sized copies
 * such as one batch of LinnOS features, small enough that several records
 * share a message. Larger ones are staged by lakelib through bounce chunks
 * in the region (LAKE_WIRE_REQ_F_STAGED): bulk data never rides in a
 * message (design decision 4).
 */
#define LAKE_WIRE_INLINE_MAX		4096	/* copy bytes carried in a record */
#define LAKE_WIRE_MAX_PARAMS		32	/* kernel parameters per function */
#define LAKE_WIRE_MAX_PARAM_BYTES	4096	/* packed parameters (CUDA limit) */
#define LAKE_WIRE_PATH_MAX		512	/* cuModuleLoad path, NUL included */
#define LAKE_WIRE_FUNC_NAME_MAX		512	/* cuModuleGetFunction name, NUL included */
#define LAKE_WIRE_DEVICE_NAME_MAX	256	/* cuDeviceGetName reply, NUL included */
#define LAKE_WIRE_ALIGN			8	/* record lengths are multiples of this */
/* Largest single record: a request header, launch arguments, full parameters. */
#define LAKE_WIRE_RECORD_MAX		4224

/* API ids. Values are ABI: append only. */
enum lake_wire_api {
	LAKE_API_NONE			= 0,	/* never valid on the wire */
	LAKE_API_INIT			= 1,
	LAKE_API_DRIVER_GET_VERSION	= 2,
	LAKE_API_DEVICE_GET		= 3,
	LAKE_API_DEVICE_GET_COUNT	= 4,
	LAKE_API_DEVICE_GET_NAME	= 5,
	LAKE_API_DEVICE_GET_ATTRIBUTE	= 6,
	LAKE_API_DEVICE_TOTAL_MEM	= 7,
	LAKE_API_CTX_CREATE		= 8,
	LAKE_API_CTX_DESTROY		= 9,
	LAKE_API_CTX_SYNCHRONIZE	= 10,
	LAKE_API_MODULE_LOAD		= 11,
	LAKE_API_MODULE_UNLOAD		= 12,
	LAKE_API_MODULE_GET_FUNCTION	= 13,
	LAKE_API_LAUNCH_KERNEL		= 14,
	LAKE_API_MEM_ALLOC		= 15,
	LAKE_API_MEM_ALLOC_PITCH	= 16,
	LAKE_API_MEM_FREE		= 17,
	LAKE_API_MEMCPY_HTOD		= 18,
	LAKE_API_MEMCPY_DTOH		= 19,
	LAKE_API_MEMCPY_HTOD_ASYNC	= 20,
	LAKE_API_MEMCPY_DTOH_ASYNC	= 21,
	LAKE_API_MEMSET_D8		= 22,
	LAKE_API_MEMSET_D32		= 23,
	LAKE_API_MEMSET_D8_ASYNC	= 24,
	LAKE_API_MEMSET_D32_ASYNC	= 25,
	LAKE_API_MEM_GET_INFO		= 26,
	LAKE_API_STREAM_CREATE		= 27,
	LAKE_API_STREAM_SYNCHRONIZE	= 28,
	LAKE_API_STREAM_DESTROY		= 29,
	LAKE_API_STREAM_QUERY		= 30,
	LAKE_API_EVENT_CREATE		= 31,
	LAKE_API_EVENT_RECORD		= 32,
	LAKE_API_EVENT_SYNCHRONIZE	= 33,
	LAKE_API_EVENT_ELAPSED_TIME	= 34,
	LAKE_API_EVENT_DESTROY		= 35,
	LAKE_API_COUNT,
};

/* struct lake_wire_req_hdr.flags */
/* The caller does not wait: reply only if the call fails. Async APIs only. */
#define LAKE_WIRE_REQ_F_NOREPLY	(1U << 0)
/*
 * The copy's region range is one of lakelib's bounce chunks (lakelib/
 * stage.c), reused as soon as the reply arrives: laked must be done with it
 * by then. An async host-to-device copy reads it before replying (laked
 * stages the data, or finishes the copy); an async device-to-host copy has
 * landed in it. Memcpy APIs with LAKE_WIRE_SHM only, never with NOREPLY.
 */
#define LAKE_WIRE_REQ_F_STAGED	(1U << 1)
#define LAKE_WIRE_REQ_F_ALL	(LAKE_WIRE_REQ_F_NOREPLY | LAKE_WIRE_REQ_F_STAGED)

struct lake_wire_req_hdr {
	u16 api;		/* enum lake_wire_api */
	u16 flags;		/* LAKE_WIRE_REQ_F_* */
	u32 len;		/* whole record, padding included */
	u32 tail_len;		/* bytes of tail after the fixed part */
	u32 pad;
	u64 req_id;		/* echoed in the reply */
	u64 ctx;		/* current context; 0 unless the API has LAKE_WIRE_CTX */
	u64 stream;		/* 0 unless the API has LAKE_WIRE_STREAM; 0 = default */
};

struct lake_wire_rep_hdr {
	u16 api;		/* the request's api */
	u16 pad;
	u32 len;
	u32 tail_len;
	u32 result;		/* CUresult */
	u64 req_id;
};

/* Fixed parts of requests. */

struct lake_wire_flags_args {		/* cuInit, cuStreamCreate, cuEventCreate */
	u32 flags;
	u32 pad;
};

struct lake_wire_device_args {		/* cuDeviceGet (ordinal), GetName, TotalMem */
	s32 dev;
	u32 pad;
};

struct lake_wire_attribute_args {
	s32 attrib;			/* CUdevice_attribute */
	s32 dev;
};

struct lake_wire_ctx_create_args {
	u32 flags;
	s32 dev;
};

struct lake_wire_handle_args {		/* the object a call acts on */
	u64 handle;
};

struct lake_wire_size_args {		/* cuMemAlloc */
	u64 bytes;
};

struct lake_wire_mem_alloc_pitch_args {
	u64 width;
	u64 height;
	u32 elem_size;
	u32 pad;
};

/* Where a memcpy's host buffer is. */
enum lake_wire_where {
	LAKE_WIRE_SHM		= 1,	/* in the shared region at shm_off */
	LAKE_WIRE_INLINE	= 2,	/* HtoD: request tail; DtoH: reply tail */
};

struct lake_wire_memcpy_args {
	u64 dptr;
	u64 bytes;
	u64 shm_off;		/* LAKE_WIRE_SHM only; 0 for INLINE */
	u32 where;		/* enum lake_wire_where */
	u32 pad;
};

struct lake_wire_memset_args {		/* D8 and D32: count in elements */
	u64 dptr;
	u64 count;
	u32 value;		/* <= 0xff for D8 */
	u32 pad;
};

/* The tail holds the packed parameter buffer. */
struct lake_wire_launch_args {
	u64 func;
	u32 grid[3];
	u32 block[3];
	u32 shared_mem_bytes;
	u32 pad;
};

struct lake_wire_event_elapsed_args {
	u64 start;
	u64 end;
};

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

/* Fixed parts of successful replies. */

struct lake_wire_value_res {		/* version, device, count, attribute */
	s32 value;
	u32 pad;
};

struct lake_wire_handle_res {		/* a new handle or device pointer */
	u64 handle;
};

struct lake_wire_size_res {		/* cuDeviceTotalMem */
	u64 bytes;
};

struct lake_wire_pair_res {		/* AllocPitch: dptr, pitch; GetInfo: free, total */
	u64 first;
	u64 second;
};

struct lake_wire_elapsed_res {
	u32 ms_bits;		/* IEEE-754 binary32: no floats in the codec */
	u32 pad;
};

/*
 * A function's parameter layout, as cuFuncGetParamInfo reports it: entries
 * in ascending, non-overlapping order, each non-empty and ending within
 * LAKE_WIRE_MAX_PARAM_BYTES; entries past count are zero.
 */
struct lake_wire_param {
	u32 offset;
	u32 size;
};

struct lake_wire_get_function_res {
	u64 func;
	struct lake_wire_param param[LAKE_WIRE_MAX_PARAMS];
	u32 count;
	u32 pad;
};

union lake_wire_rep_res {
	struct lake_wire_value_res value;
	struct lake_wire_handle_res handle;
	struct lake_wire_size_res size;
	struct lake_wire_pair_res pair;
	struct lake_wire_elapsed_res elapsed;
	struct lake_wire_get_function_res get_function;
};

_Static_assert(sizeof(struct lake_wire_req_hdr) == 40, "wire ABI");
_Static_assert(sizeof(struct lake_wire_rep_hdr) == 24, "wire ABI");
_Static_assert(sizeof(struct lake_wire_flags_args) == 8, "wire ABI");
_Static_assert(sizeof(struct lake_wire_device_args) == 8, "wire ABI");
_Static_assert(sizeof(struct lake_wire_attribute_args) == 8, "wire ABI");
_Static_assert(sizeof(struct lake_wire_ctx_create_args) == 8, "wire ABI");
_Static_assert(sizeof(struct lake_wire_handle_args) == 8, "wire ABI");
_Static_assert(sizeof(struct lake_wire_size_args) == 8, "wire ABI");
_Static_assert(sizeof(struct lake_wire_mem_alloc_pitch_args) == 24, "wire ABI");
_Static_assert(sizeof(struct lake_wire_memcpy_args) == 32, "wire ABI");
_Static_assert(sizeof(struct lake_wire_memset_args) == 24, "wire ABI");
_Static_assert(sizeof(struct lake_wire_launch_args) == 40, "wire ABI");
_Static_assert(sizeof(struct lake_wire_event_elapsed_args) == 16, "wire ABI");
_Static_assert(sizeof(struct lake_wire_value_res) == 8, "wire ABI");
_Static_assert(sizeof(struct lake_wire_handle_res) == 8, "wire ABI");
_Static_assert(sizeof(struct lake_wire_size_res) == 8, "wire ABI");
_Static_assert(sizeof(struct lake_wire_pair_res) == 16, "wire ABI");
_Static_assert(sizeof(struct lake_wire_elapsed_res) == 8, "wire ABI");
_Static_assert(sizeof(struct lake_wire_get_function_res) == 272, "wire ABI");
_Static_assert(sizeof(struct lake_wire_req_hdr) + sizeof(struct lake_wire_launch_args) +
	       LAKE_WIRE_MAX_PARAM_BYTES <= LAKE_WIRE_RECORD_MAX, "largest request fits");
_Static_assert(sizeof(struct lake_wire_req_hdr) + sizeof(struct lake_wire_memcpy_args) +
	       LAKE_WIRE_INLINE_MAX <= LAKE_WIRE_RECORD_MAX, "inline HtoD fits");
_Static_assert(LAKE_WIRE_RECORD_MAX % LAKE_WIRE_ALIGN == 0, "records are aligned");

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
