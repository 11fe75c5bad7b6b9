// SPDX-License-Identifier: GPL-2.0
/* Helpers of the dispatcher tests: see dispatch_util.h. */
#include "tests/unit/dispatch_util.h"

struct lake_driver *drv;
struct laked *dd;
u8 *region;
struct collect sink;
struct got got[MAX_REPLIES];
unsigned int ngot;
static u64 next_id;

static int collect_flush(struct laked_reply_sink *s, const void *blob, u32 len)
{
	struct collect *c = (struct collect *)s;

	assert_true(len > 0 && len <= LAKE_GENL_RECORDS_MAX);
	assert_true(len <= sizeof(c->data) - c->len);
	memcpy(c->data + c->len, blob, len);
	c->len += len;
	c->flushes++;
	return 0;
}

/* Absolute, as laked makes --module-dir: dlopen of a relative path calls getcwd. */
int open_laked(struct laked **out, u32 tag, bool with_region)
{
	static char dir[PATH_MAX];
	const char *env = getenv("LAKE_KERNEL_DIR");
	struct laked_config cfg = {
		.drv = drv,
		.module_dir = dir,
		.region = with_region ? region : NULL,
		.region_size = with_region ? REGION_SIZE : 0,
		.tag = tag,
	};

	if (!realpath(env ? env : "build/kernels", dir))
		return -errno;
	return laked_init(out, &cfg);
}

int setup(void **state)
{
	struct lake_host_opts opts = { .mem_bytes = TEST_MEM, .workers = 2 };

	(void)state;
	if (!getenv("LAKE_VERBOSE"))
		laked_log_set_level(LOG_EMERG - 1);
	region = calloc(1, REGION_SIZE);
	if (!region || lake_driver_open_host(&drv, &opts))
		return -1;
	return open_laked(&dd, TAG_A, true);
}

int teardown(void **state)
{
	(void)state;
	laked_fini(dd);
	dd = NULL;
	lake_driver_close(drv);
	drv = NULL;
	free(region);
	region = NULL;
	return 0;
}

void batch_init(struct batch *b)
{
	b->buf.data = b->data;
	b->buf.size = sizeof(b->data);
	b->buf.len = 0;
}

struct lake_wire_req req_new(u16 api, u64 ctx)
{
	struct lake_wire_req r = { .api = api, .req_id = ++next_id, .ctx = ctx };

	return r;
}

void batch_add(struct batch *b, const struct lake_wire_req *r)
{
	const char *why = "";

	if (lake_wire_put_req(&b->buf, r, &why))
		fail_msg("cannot encode a %s request: %s", lake_wire_api(r->api)->name, why);
}

void run_bytes(struct laked *d, const void *data, u32 len)
{
	struct lake_wire_iter it;
	struct lake_wire_rep rep;
	u8 *blob = malloc(len ? len : 1);
	int ret;

	assert_non_null(blob);
	memcpy(blob, data, len);
	sink.sink.flush = collect_flush;
	sink.len = 0;
	sink.flushes = 0;
	assert_int_equal(laked_dispatch_blob(d, blob, len, &sink.sink), 0);
	/* Later handling must not read the message: fill it with junk. */
	memset(blob, 0xa5, len);
	free(blob);
	ngot = 0;
	lake_wire_iter_init(&it, sink.data, sink.len);
	while ((ret = lake_wire_next_rep(&it, &rep)) == 1) {
		assert_true(ngot < MAX_REPLIES);
		got[ngot].rep = rep;
		if (rep.tail_len)
			memcpy(got[ngot].tail, rep.tail, rep.tail_len);
		got[ngot].rep.tail = got[ngot].tail;
		ngot++;
	}
	if (ret)
		fail_msg("laked sent a malformed reply: %s", it.why);
}

void run_batch(struct batch *b)
{
	run_bytes(dd, b->data, b->buf.len);
}

struct lake_wire_rep *call(const struct lake_wire_req *r)
{
	struct batch b;

	batch_init(&b);
	batch_add(&b, r);
	run_batch(&b);
	assert_int_equal(ngot, 1);
	assert_int_equal(got[0].rep.api, r->api);
	assert_int_equal(got[0].rep.req_id, r->req_id);
	return &got[0].rep;
}

CUresult result_of(const struct lake_wire_req *r)
{
	return call(r)->result;
}

void noreply(const struct lake_wire_req *r)
{
	struct batch b;

	batch_init(&b);
	batch_add(&b, r);
	run_batch(&b);
	assert_int_equal(ngot, 0);
}

u64 new_ctx(void)
{
	struct lake_wire_req r = req_new(LAKE_API_INIT, 0);
	struct lake_wire_rep *rep;

	assert_int_equal(result_of(&r), CUDA_SUCCESS);
	r = req_new(LAKE_API_CTX_CREATE, 0);
	rep = call(&r);
	assert_int_equal(rep->result, CUDA_SUCCESS);
	assert_true(rep->res.handle.handle != 0);
	return rep->res.handle.handle;
}

u64 new_handle(u16 api, u64 ctx, u32 flags)
{
	struct lake_wire_req r = req_new(api, ctx);
	struct lake_wire_rep *rep;

	r.args.flags.flags = flags;
	rep = call(&r);
	assert_int_equal(rep->result, CUDA_SUCCESS);
	return rep->res.handle.handle;
}

u64 mem_alloc(u64 ctx, u64 bytes)
{
	struct lake_wire_req r = req_new(LAKE_API_MEM_ALLOC, ctx);
	struct lake_wire_rep *rep;

	r.args.size.bytes = bytes;
	rep = call(&r);
	assert_int_equal(rep->result, CUDA_SUCCESS);
	return rep->res.handle.handle;
}

struct lake_wire_req copy_req(u16 api, u64 ctx, u64 dptr, u64 bytes, u32 where,
				     u64 shm_off, const void *tail)
{
	struct lake_wire_req r = req_new(api, ctx);

	r.args.memcpy.dptr = dptr;
	r.args.memcpy.bytes = bytes;
	r.args.memcpy.where = where;
	r.args.memcpy.shm_off = shm_off;
	if (tail) {
		r.tail = tail;
		r.tail_len = (u32)bytes;
	}
	return r;
}

CUresult put_inline(u64 ctx, u64 dptr, const void *data, u64 bytes)
{
	struct lake_wire_req r = copy_req(LAKE_API_MEMCPY_HTOD, ctx, dptr, bytes,
					  LAKE_WIRE_INLINE, 0, data);

	return result_of(&r);
}

struct lake_wire_rep *get_inline(u64 ctx, u64 dptr, u64 bytes)
{
	struct lake_wire_req r = copy_req(LAKE_API_MEMCPY_DTOH, ctx, dptr, bytes,
					  LAKE_WIRE_INLINE, 0, NULL);

	return call(&r);
}

u64 module_load(u64 ctx, const char *path, CUresult want)
{
	struct lake_wire_req r = req_new(LAKE_API_MODULE_LOAD, ctx);
	struct lake_wire_rep *rep;

	r.tail = path;
	r.tail_len = (u32)strlen(path) + 1;
	rep = call(&r);
	assert_int_equal(rep->result, want);
	return rep->result ? 0 : rep->res.handle.handle;
}

struct lake_wire_rep *get_function(u64 ctx, u64 mod, const char *name)
{
	struct lake_wire_req r = req_new(LAKE_API_MODULE_GET_FUNCTION, ctx);

	r.args.handle.handle = mod;
	r.tail = name;
	r.tail_len = (u32)strlen(name) + 1;
	return call(&r);
}

struct lake_wire_req launch_req(u64 ctx, u64 fn, const void *params, u32 len, u32 n)
{
	struct lake_wire_req r = req_new(LAKE_API_LAUNCH_KERNEL, ctx);

	r.flags = LAKE_WIRE_REQ_F_NOREPLY;
	r.args.launch.func = fn;
	r.args.launch.grid[0] = (n + 127) / 128;
	r.args.launch.grid[1] = r.args.launch.grid[2] = 1;
	r.args.launch.block[0] = 128;
	r.args.launch.block[1] = r.args.launch.block[2] = 1;
	r.tail = params;
	r.tail_len = len;
	return r;
}
