// SPDX-License-Identifier: GPL-2.0
/*
 * The per-API half of the wire format: one descriptor row per remoted call
 * and the checks that only make sense for that call. The generic rules
 * (framing, sizes, tails, pads, ctx/stream use) live in wire.c and are
 * driven by these rows, so adding an API is a row plus its structs.
 */
#include <lake/wire.h>

static int fail(const char **why, const char *reason, int err)
{
	*why = reason;
	return err;
}

static int check_copy(const struct lake_wire_req *req, bool to_device, const char **why)
{
	const struct lake_wire_memcpy_args *a = &req->args.memcpy;

	if (req->flags & LAKE_WIRE_REQ_F_STAGED) {
		if (a->where != LAKE_WIRE_SHM)
			return fail(why, "staged copy not in the shared region", -EINVAL);
		if (req->flags & LAKE_WIRE_REQ_F_NOREPLY)
			return fail(why, "staged copy without a reply", -EINVAL);
	}
	switch (a->where) {
	case LAKE_WIRE_SHM:
		if (req->tail_len)
			return fail(why, "shared-region copy with inline data", -EINVAL);
		if (a->shm_off + a->bytes < a->shm_off)
			return fail(why, "shared-region range wraps", -EINVAL);
		return 0;
	case LAKE_WIRE_INLINE:
		if (a->bytes > LAKE_WIRE_INLINE_MAX)
			return fail(why, "inline copy over LAKE_WIRE_INLINE_MAX", -EMSGSIZE);
		if (a->shm_off)
			return fail(why, "inline copy with a region offset", -EINVAL);
		if (to_device && req->tail_len != a->bytes)
			return fail(why, "inline data length differs from byte count", -EINVAL);
		/* The data comes back in the reply, so someone must take it. */
		if (!to_device && (req->flags & LAKE_WIRE_REQ_F_NOREPLY))
			return fail(why, "inline device-to-host copy without a reply", -EINVAL);
		return 0;
	default:
		return fail(why, "unknown copy location", -EINVAL);
	}
}

static int check_htod(const struct lake_wire_req *req, const char **why)
{
	return check_copy(req, true, why);
}

static int check_dtoh(const struct lake_wire_req *req, const char **why)
{
	return check_copy(req, false, why);
}

static int check_memset_d8(const struct lake_wire_req *req, const char **why)
{
	if (req->args.memset.value > 0xff)
		return fail(why, "cuMemsetD8 value over 0xff", -EINVAL);
	return 0;
}

static int check_launch(const struct lake_wire_req *req, const char **why)
{
	const struct lake_wire_launch_args *a = &req->args.launch;
	int i;

	for (i = 0; i < 3; i++) {
		if (!a->grid[i] || !a->block[i])
			return fail(why, "zero launch dimension", -EINVAL);
	}
	return 0;
}

/* Ascending and disjoint makes the overlap test linear, and matches CUDA's layouts. */
static int check_get_function(const struct lake_wire_rep *rep, const char **why)
{
	const struct lake_wire_get_function_res *r = &rep->res.get_function;
	u32 end = 0, i;

	if (r->count > LAKE_WIRE_MAX_PARAMS)
		return fail(why, "parameter count over LAKE_WIRE_MAX_PARAMS", -EMSGSIZE);
	for (i = 0; i < r->count; i++) {
		const struct lake_wire_param *p = &r->param[i];

		if (!p->size)
			return fail(why, "empty kernel parameter", -EINVAL);
		if (p->offset > LAKE_WIRE_MAX_PARAM_BYTES ||
		    p->size > LAKE_WIRE_MAX_PARAM_BYTES - p->offset)
			return fail(why, "kernel parameter past LAKE_WIRE_MAX_PARAM_BYTES",
				    -EMSGSIZE);
		if (p->offset < end)
			return fail(why, "kernel parameters overlap or are out of order",
				    -EINVAL);
		end = p->offset + p->size;
	}
	for (; i < LAKE_WIRE_MAX_PARAMS; i++) {
		if (r->param[i].offset || r->param[i].size)
			return fail(why, "parameter entry past count is not zero", -EPROTO);
	}
	return 0;
}

#define REQ(type)		.req_size = sizeof(type)
#define REQ_PAD(type)		.req_size = sizeof(type), .req_pad = offsetof(type, pad)
#define REQ_TAIL(kind, max)	.req_tail = LAKE_WIRE_TAIL_##kind, .req_tail_max = (max)
#define REP(type)		.rep_size = sizeof(type)
#define REP_PAD(type)		.rep_size = sizeof(type), .rep_pad = offsetof(type, pad)
#define REP_TAIL(kind, max)	.rep_tail = LAKE_WIRE_TAIL_##kind, .rep_tail_max = (max)

#define ASYNC_ON_STREAM		(LAKE_WIRE_ASYNC | LAKE_WIRE_CTX | LAKE_WIRE_STREAM)

static const struct lake_wire_api_desc apis[LAKE_API_COUNT] = {
	[LAKE_API_INIT] = {
		.name = "cuInit",
		REQ_PAD(struct lake_wire_flags_args),
	},
	[LAKE_API_DRIVER_GET_VERSION] = {
		.name = "cuDriverGetVersion",
		REP_PAD(struct lake_wire_value_res),
	},
	[LAKE_API_DEVICE_GET] = {
		.name = "cuDeviceGet",
		REQ_PAD(struct lake_wire_device_args),
		REP_PAD(struct lake_wire_value_res),
	},
	[LAKE_API_DEVICE_GET_COUNT] = {
		.name = "cuDeviceGetCount",
		REP_PAD(struct lake_wire_value_res),
	},
	[LAKE_API_DEVICE_GET_NAME] = {
		.name = "cuDeviceGetName",
		REQ_PAD(struct lake_wire_device_args),
		REP_TAIL(CSTRING, LAKE_WIRE_DEVICE_NAME_MAX),
	},
	[LAKE_API_DEVICE_GET_ATTRIBUTE] = {
		.name = "cuDeviceGetAttribute",
		REQ(struct lake_wire_attribute_args),
		REP_PAD(struct lake_wire_value_res),
	},
	[LAKE_API_DEVICE_TOTAL_MEM] = {
		.name = "cuDeviceTotalMem",
		REQ_PAD(struct lake_wire_device_args),
		REP(struct lake_wire_size_res),
	},
	[LAKE_API_CTX_CREATE] = {
		.name = "cuCtxCreate",
		REQ(struct lake_wire_ctx_create_args),
		REP(struct lake_wire_handle_res),
	},
	[LAKE_API_CTX_DESTROY] = {
		.name = "cuCtxDestroy",
		REQ(struct lake_wire_handle_args),
	},
	[LAKE_API_CTX_SYNCHRONIZE] = {
		.name = "cuCtxSynchronize",
		.flags = LAKE_WIRE_CTX,
	},
	[LAKE_API_MODULE_LOAD] = {
		.name = "cuModuleLoad",
		.flags = LAKE_WIRE_CTX,
		REQ_TAIL(CSTRING, LAKE_WIRE_PATH_MAX),
		REP(struct lake_wire_handle_res),
	},
	[LAKE_API_MODULE_UNLOAD] = {
		.name = "cuModuleUnload",
		.flags = LAKE_WIRE_CTX,
		REQ(struct lake_wire_handle_args),
	},
	[LAKE_API_MODULE_GET_FUNCTION] = {
		.name = "cuModuleGetFunction",
		.flags = LAKE_WIRE_CTX,
		REQ(struct lake_wire_handle_args),
		REQ_TAIL(CSTRING, LAKE_WIRE_FUNC_NAME_MAX),
		REP_PAD(struct lake_wire_get_function_res),
		.check_rep = check_get_function,
	},
	[LAKE_API_LAUNCH_KERNEL] = {
		.name = "cuLaunchKernel",
		.flags = ASYNC_ON_STREAM,
		REQ_PAD(struct lake_wire_launch_args),
		REQ_TAIL(BYTES, LAKE_WIRE_MAX_PARAM_BYTES),
		.check_req = check_launch,
	},
	[LAKE_API_MEM_ALLOC] = {
		.name = "cuMemAlloc",
		.flags = LAKE_WIRE_CTX,
		REQ(struct lake_wire_size_args),
		REP(struct lake_wire_handle_res),
	},
	[LAKE_API_MEM_ALLOC_PITCH] = {
		.name = "cuMemAllocPitch",
		.flags = LAKE_WIRE_CTX,
		REQ_PAD(struct lake_wire_mem_alloc_pitch_args),
		REP(struct lake_wire_pair_res),
	},
	[LAKE_API_MEM_FREE] = {
		.name = "cuMemFree",
		.flags = LAKE_WIRE_CTX,
		REQ(struct lake_wire_handle_args),
	},
	[LAKE_API_MEMCPY_HTOD] = {
		.name = "cuMemcpyHtoD",
		.flags = LAKE_WIRE_CTX,
		REQ_PAD(struct lake_wire_memcpy_args),
		REQ_TAIL(BYTES, LAKE_WIRE_INLINE_MAX),
		.check_req = check_htod,
	},
	[LAKE_API_MEMCPY_DTOH] = {
		.name = "cuMemcpyDtoH",
		.flags = LAKE_WIRE_CTX,
		REQ_PAD(struct lake_wire_memcpy_args),
		REP_TAIL(BYTES, LAKE_WIRE_INLINE_MAX),
		.check_req = check_dtoh,
	},
	[LAKE_API_MEMCPY_HTOD_ASYNC] = {
		.name = "cuMemcpyHtoDAsync",
		.flags = ASYNC_ON_STREAM,
		REQ_PAD(struct lake_wire_memcpy_args),
		REQ_TAIL(BYTES, LAKE_WIRE_INLINE_MAX),
		.check_req = check_htod,
	},
	[LAKE_API_MEMCPY_DTOH_ASYNC] = {
		.name = "cuMemcpyDtoHAsync",
		.flags = ASYNC_ON_STREAM,
		REQ_PAD(struct lake_wire_memcpy_args),
		REP_TAIL(BYTES, LAKE_WIRE_INLINE_MAX),
		.check_req = check_dtoh,
	},
	[LAKE_API_MEMSET_D8] = {
		.name = "cuMemsetD8",
		.flags = LAKE_WIRE_CTX,
		REQ_PAD(struct lake_wire_memset_args),
		.check_req = check_memset_d8,
	},
	[LAKE_API_MEMSET_D32] = {
		.name = "cuMemsetD32",
		.flags = LAKE_WIRE_CTX,
		REQ_PAD(struct lake_wire_memset_args),
	},
	[LAKE_API_MEMSET_D8_ASYNC] = {
		.name = "cuMemsetD8Async",
		.flags = ASYNC_ON_STREAM,
		REQ_PAD(struct lake_wire_memset_args),
		.check_req = check_memset_d8,
	},
	[LAKE_API_MEMSET_D32_ASYNC] = {
		.name = "cuMemsetD32Async",
		.flags = ASYNC_ON_STREAM,
		REQ_PAD(struct lake_wire_memset_args),
	},
	[LAKE_API_MEM_GET_INFO] = {
		.name = "cuMemGetInfo",
		.flags = LAKE_WIRE_CTX,
		REP(struct lake_wire_pair_res),
	},
	[LAKE_API_STREAM_CREATE] = {
		.name = "cuStreamCreate",
		.flags = LAKE_WIRE_CTX,
		REQ_PAD(struct lake_wire_flags_args),
		REP(struct lake_wire_handle_res),
	},
	[LAKE_API_STREAM_SYNCHRONIZE] = {
		.name = "cuStreamSynchronize",
		.flags = LAKE_WIRE_CTX | LAKE_WIRE_STREAM,
	},
	[LAKE_API_STREAM_DESTROY] = {
		.name = "cuStreamDestroy",
		.flags = LAKE_WIRE_CTX | LAKE_WIRE_STREAM,
	},
	[LAKE_API_STREAM_QUERY] = {
		.name = "cuStreamQuery",
		.flags = LAKE_WIRE_CTX | LAKE_WIRE_STREAM,
	},
	[LAKE_API_EVENT_CREATE] = {
		.name = "cuEventCreate",
		.flags = LAKE_WIRE_CTX,
		REQ_PAD(struct lake_wire_flags_args),
		REP(struct lake_wire_handle_res),
	},
	[LAKE_API_EVENT_RECORD] = {
		.name = "cuEventRecord",
		.flags = ASYNC_ON_STREAM,
		REQ(struct lake_wire_handle_args),
	},
	[LAKE_API_EVENT_SYNCHRONIZE] = {
		.name = "cuEventSynchronize",
		.flags = LAKE_WIRE_CTX,
		REQ(struct lake_wire_handle_args),
	},
	[LAKE_API_EVENT_ELAPSED_TIME] = {
		.name = "cuEventElapsedTime",
		.flags = LAKE_WIRE_CTX,
		REQ(struct lake_wire_event_elapsed_args),
		REP_PAD(struct lake_wire_elapsed_res),
	},
	[LAKE_API_EVENT_DESTROY] = {
		.name = "cuEventDestroy",
		.flags = LAKE_WIRE_CTX,
		REQ(struct lake_wire_handle_args),
	},
};

const struct lake_wire_api_desc *lake_wire_api(u32 api)
{
	if (api == LAKE_API_NONE || api >= LAKE_API_COUNT)
		return NULL;
	return &apis[api];
}
