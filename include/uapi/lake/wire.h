/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * The records carried in LAKE_A_RECORDS (uapi/lake/genl.h): their layout,
 * the one definition of the wire format between lakelib.ko and laked.
 *
 * A blob is a sequence of records, each a multiple of 8 bytes long:
 *
 *	header | fixed part (per API) | tail (0..tail max bytes) | zero padding
 *
 * The header names the API; the API's descriptor (lake_wire_api() in
 * lake/wire.h) gives the exact size of the fixed part, the kind and bound
 * of the tail, and whether the header's ctx and stream are used
 * (LAKE_WIRE_CTX, LAKE_WIRE_STREAM). Requests travel kernel -> daemon in
 * LAKE_CMD_CALL, replies daemon -> kernel in LAKE_CMD_REPLY. A failed
 * call's reply is a header alone: no fixed part and no tail. Handles
 * (contexts, modules, functions, streams, events, device pointers) are
 * __u64 values issued by the daemon; 0 is never a live handle. Integers are
 * in host byte order; padding and pad fields are zero.
 */
#ifndef LAKE_UAPI_WIRE_H
#define LAKE_UAPI_WIRE_H

#include <linux/types.h>

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
	__u16 api;		/* enum lake_wire_api */
	__u16 flags;		/* LAKE_WIRE_REQ_F_* */
	__u32 len;		/* whole record, padding included */
	__u32 tail_len;		/* bytes of tail after the fixed part */
	__u32 pad;
	__u64 req_id;		/* echoed in the reply */
	__u64 ctx;		/* current context; 0 unless the API has LAKE_WIRE_CTX */
	__u64 stream;		/* 0 unless the API has LAKE_WIRE_STREAM; 0 = default */
};

struct lake_wire_rep_hdr {
	__u16 api;		/* the request's api */
	__u16 pad;
	__u32 len;
	__u32 tail_len;
	__u32 result;		/* CUresult */
	__u64 req_id;
};

/* Fixed parts of requests. */

struct lake_wire_flags_args {		/* cuInit, cuStreamCreate, cuEventCreate */
	__u32 flags;
	__u32 pad;
};

struct lake_wire_device_args {		/* cuDeviceGet (ordinal), GetName, TotalMem */
	__s32 dev;
	__u32 pad;
};

struct lake_wire_attribute_args {
	__s32 attrib;			/* CUdevice_attribute */
	__s32 dev;
};

struct lake_wire_ctx_create_args {
	__u32 flags;
	__s32 dev;
};

struct lake_wire_handle_args {		/* the object a call acts on */
	__u64 handle;
};

struct lake_wire_size_args {		/* cuMemAlloc */
	__u64 bytes;
};

struct lake_wire_mem_alloc_pitch_args {
	__u64 width;
	__u64 height;
	__u32 elem_size;
	__u32 pad;
};

/* Where a memcpy's host buffer is. */
enum lake_wire_where {
	LAKE_WIRE_SHM		= 1,	/* in the shared region at shm_off */
	LAKE_WIRE_INLINE	= 2,	/* HtoD: request tail; DtoH: reply tail */
};

struct lake_wire_memcpy_args {
	__u64 dptr;
	__u64 bytes;
	__u64 shm_off;		/* LAKE_WIRE_SHM only; 0 for INLINE */
	__u32 where;		/* enum lake_wire_where */
	__u32 pad;
};

struct lake_wire_memset_args {		/* D8 and D32: count in elements */
	__u64 dptr;
	__u64 count;
	__u32 value;		/* <= 0xff for D8 */
	__u32 pad;
};

/* The tail holds the packed parameter buffer. */
struct lake_wire_launch_args {
	__u64 func;
	__u32 grid[3];
	__u32 block[3];
	__u32 shared_mem_bytes;
	__u32 pad;
};

struct lake_wire_event_elapsed_args {
	__u64 start;
	__u64 end;
};

/* Fixed parts of successful replies. */

struct lake_wire_value_res {		/* version, device, count, attribute */
	__s32 value;
	__u32 pad;
};

struct lake_wire_handle_res {		/* a new handle or device pointer */
	__u64 handle;
};

struct lake_wire_size_res {		/* cuDeviceTotalMem */
	__u64 bytes;
};

struct lake_wire_pair_res {		/* AllocPitch: dptr, pitch; GetInfo: free, total */
	__u64 first;
	__u64 second;
};

struct lake_wire_elapsed_res {
	__u32 ms_bits;		/* IEEE-754 binary32: no floats in the codec */
	__u32 pad;
};

/*
 * A function's parameter layout, as cuFuncGetParamInfo reports it: entries
 * in ascending, non-overlapping order, each non-empty and ending within
 * LAKE_WIRE_MAX_PARAM_BYTES; entries past count are zero.
 */
struct lake_wire_param {
	__u32 offset;
	__u32 size;
};

struct lake_wire_get_function_res {
	__u64 func;
	struct lake_wire_param param[LAKE_WIRE_MAX_PARAMS];
	__u32 count;
	__u32 pad;
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

#endif /* LAKE_UAPI_WIRE_H */
