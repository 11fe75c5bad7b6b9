// SPDX-License-Identifier: GPL-2.0
/*
 * One valid request and one successful reply per API, built through the
 * public structs. The unit tests start from them and the fuzzer's seed
 * generator encodes them, so seeds are real encoder output.
 */
#include "tests/unit/wire_examples.h"

u8 wire_pattern[LAKE_WIRE_INLINE_MAX];
const char wire_module_path[] = "/var/lib/lake/linnos.cubin";
const char wire_func_name[] = "linnos_infer";
const char wire_device_name[] = "NVIDIA H200";

void wire_examples_init(void)
{
	u32 i;

	for (i = 0; i < sizeof(wire_pattern); i++)
		wire_pattern[i] = (u8)(i * 7 + 1);
}

/* A valid request for @api, exercising its tail when it has one. */
void wire_example_req(u16 api, struct lake_wire_req *r)
{
	const struct lake_wire_api_desc *d = lake_wire_api(api);
	union lake_wire_req_args *a = &r->args;

	memset(r, 0, sizeof(*r));
	r->api = api;
	r->req_id = 0x100000000ULL + api;
	r->ctx = d->flags & LAKE_WIRE_CTX ? 0xc0c0 : 0;
	r->stream = d->flags & LAKE_WIRE_STREAM ? 0x5757 : 0;
	switch (api) {
	case LAKE_API_DEVICE_GET:
	case LAKE_API_DEVICE_GET_NAME:
	case LAKE_API_DEVICE_TOTAL_MEM:
		a->device.dev = 1;
		break;
	case LAKE_API_DEVICE_GET_ATTRIBUTE:
		a->attribute.attrib = 16;
		a->attribute.dev = 1;
		break;
	case LAKE_API_CTX_CREATE:
		a->ctx_create.flags = 4;
		a->ctx_create.dev = 1;
		break;
	case LAKE_API_MODULE_LOAD:
		r->tail = wire_module_path;
		r->tail_len = sizeof(wire_module_path);
		break;
	case LAKE_API_MODULE_GET_FUNCTION:
		a->handle.handle = 0x30d;
		r->tail = wire_func_name;
		r->tail_len = sizeof(wire_func_name);
		break;
	case LAKE_API_CTX_DESTROY:
	case LAKE_API_MODULE_UNLOAD:
	case LAKE_API_MEM_FREE:
	case LAKE_API_EVENT_RECORD:
	case LAKE_API_EVENT_SYNCHRONIZE:
	case LAKE_API_EVENT_DESTROY:
		a->handle.handle = 0xabc000 + api;
		break;
	case LAKE_API_LAUNCH_KERNEL:
		a->launch.func = 0xf00;
		a->launch.grid[0] = 4;
		a->launch.grid[1] = 2;
		a->launch.grid[2] = 1;
		a->launch.block[0] = 256;
		a->launch.block[1] = 1;
		a->launch.block[2] = 1;
		a->launch.shared_mem_bytes = 1024;
		r->tail = wire_pattern;
		r->tail_len = 20;
		break;
	case LAKE_API_MEM_ALLOC:
		a->size.bytes = 1 << 20;
		break;
	case LAKE_API_MEM_ALLOC_PITCH:
		a->mem_alloc_pitch.width = 1000;
		a->mem_alloc_pitch.height = 10;
		a->mem_alloc_pitch.elem_size = 4;
		break;
	case LAKE_API_MEMCPY_HTOD:
	case LAKE_API_MEMCPY_HTOD_ASYNC:
		a->memcpy.dptr = 0xd000;
		a->memcpy.bytes = 61;
		a->memcpy.where = LAKE_WIRE_INLINE;
		r->tail = wire_pattern;
		r->tail_len = 61;
		break;
	case LAKE_API_MEMCPY_DTOH:
		a->memcpy.dptr = 0xd000;
		a->memcpy.bytes = 1 << 16;
		a->memcpy.shm_off = 8192;
		a->memcpy.where = LAKE_WIRE_SHM;
		break;
	case LAKE_API_MEMCPY_DTOH_ASYNC:
		a->memcpy.dptr = 0xd000;
		a->memcpy.bytes = 128;
		a->memcpy.where = LAKE_WIRE_INLINE;
		break;
	case LAKE_API_MEMSET_D8:
	case LAKE_API_MEMSET_D8_ASYNC:
	case LAKE_API_MEMSET_D32:
	case LAKE_API_MEMSET_D32_ASYNC:
		a->memset.dptr = 0xd000;
		a->memset.count = 100;
		a->memset.value = api == LAKE_API_MEMSET_D8 ||
				  api == LAKE_API_MEMSET_D8_ASYNC ? 0x5a : 0xdeadbeef;
		break;
	case LAKE_API_INIT:
	case LAKE_API_STREAM_CREATE:
	case LAKE_API_EVENT_CREATE:
		a->flags.flags = api == LAKE_API_INIT ? 0 : 1;
		break;
	case LAKE_API_EVENT_ELAPSED_TIME:
		a->elapsed.start = 0xe1;
		a->elapsed.end = 0xe2;
		break;
	}
}

/* A successful reply to make_req(@api). */
void wire_example_rep(u16 api, struct lake_wire_rep *r)
{
	union lake_wire_rep_res *s = &r->res;

	memset(r, 0, sizeof(*r));
	r->api = api;
	r->req_id = 0x100000000ULL + api;
	switch (api) {
	case LAKE_API_DRIVER_GET_VERSION:
	case LAKE_API_DEVICE_GET:
	case LAKE_API_DEVICE_GET_COUNT:
	case LAKE_API_DEVICE_GET_ATTRIBUTE:
		s->value.value = 12000 + api;
		break;
	case LAKE_API_DEVICE_GET_NAME:
		r->tail = wire_device_name;
		r->tail_len = sizeof(wire_device_name);
		break;
	case LAKE_API_DEVICE_TOTAL_MEM:
		s->size.bytes = 141ULL << 30;
		break;
	case LAKE_API_CTX_CREATE:
	case LAKE_API_MODULE_LOAD:
	case LAKE_API_MEM_ALLOC:
	case LAKE_API_STREAM_CREATE:
	case LAKE_API_EVENT_CREATE:
		s->handle.handle = 0x7000 + api;
		break;
	case LAKE_API_MEM_ALLOC_PITCH:
	case LAKE_API_MEM_GET_INFO:
		s->pair.first = 0xd000;
		s->pair.second = 1024;
		break;
	case LAKE_API_MODULE_GET_FUNCTION:
		s->get_function.func = 0xf00;
		s->get_function.count = 3;
		s->get_function.param[0] = (struct lake_wire_param){ 0, 8 };
		s->get_function.param[1] = (struct lake_wire_param){ 8, 4 };
		s->get_function.param[2] = (struct lake_wire_param){ 16, 4 };
		break;
	case LAKE_API_MEMCPY_DTOH_ASYNC:
		r->tail = wire_pattern;
		r->tail_len = 128;
		break;
	case LAKE_API_EVENT_ELAPSED_TIME:
		s->elapsed.ms_bits = 0x3fc00000;	/* 1.5f */
		break;
	}
}

static u8 scratch[2 * LAKE_WIRE_RECORD_MAX];

/* A failure must say why: one without a reason reads as -ENOMSG. */
int wire_put_req(const struct lake_wire_req *r)
{
	struct lake_wire_buf b = { .data = scratch, .size = sizeof(scratch) };
	const char *why = NULL;
	int ret = lake_wire_put_req(&b, r, &why);

	return ret && !why ? -ENOMSG : ret;
}

int wire_put_rep(const struct lake_wire_rep *r)
{
	struct lake_wire_buf b = { .data = scratch, .size = sizeof(scratch) };
	const char *why = NULL;
	int ret = lake_wire_put_rep(&b, r, &why);

	return ret && !why ? -ENOMSG : ret;
}
