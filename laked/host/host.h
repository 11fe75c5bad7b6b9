/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The host device: the CUDA driver API subset of laked/driver.h, run on the
 * CPU. Internal header shared by the files of laked/host/.
 *
 * Concurrency: one lock (hd.lock) guards every table and object field below.
 * API calls hold it to validate and to change state, and drop it only to
 * wait (on hd.done, broadcast whenever a stream finishes an operation) or to
 * copy memory. Stream workers drop it while they copy or run a kernel. An
 * object pointer kept across a dropped lock holds a reference (streams,
 * events) or is looked up again by handle afterwards (contexts).
 *
 * Handles are never pointers: a handle is a slot index and a generation
 * (handle.c), so a forged or stale one is refused without being dereferenced.
 */
#ifndef LAKED_HOST_H
#define LAKED_HOST_H

#include <pthread.h>
#include <lake/port.h>
#include <lake/kernel_abi.h>
#include "lakeshm/alloc.h"
#include "laked/driver.h"

enum hd_type {
	HD_CTX = 1,
	HD_MODULE,
	HD_FUNCTION,
	HD_STREAM,
	HD_EVENT,
};

/* Embedded first in every object that has a handle. */
struct hd_obj {
	enum hd_type type;
	void *handle;		/* NULL until hd_handle_add(); NULL stream: always */
	void *ctx;		/* owning context's handle (contexts: their own) */
};

struct hd_list {
	struct hd_list *next, *prev;
};

#define hd_list_for_each(pos, head) \
	for ((pos) = (head)->next; (pos) != (head); (pos) = (pos)->next)

static inline void hd_list_init(struct hd_list *l)
{
	l->next = l;
	l->prev = l;
}

static inline void hd_list_add(struct hd_list *n, struct hd_list *head)
{
	n->next = head;
	n->prev = head->prev;
	head->prev->next = n;
	head->prev = n;
}

static inline void hd_list_del(struct hd_list *n)
{
	n->prev->next = n->next;
	n->next->prev = n->prev;
	hd_list_init(n);
}

struct hd_ctx {
	struct hd_obj obj;
	unsigned int flags;
	struct hd_stream *null_stream;
	CUresult err;		/* latched by streams destroyed with an error */
};

struct hd_stream {
	struct hd_obj obj;
	struct hd_list node;	/* in hd.streams */
	unsigned int flags;	/* CU_STREAM_* */
	bool is_null;		/* the context's NULL (legacy default) stream */
	bool stop;
	unsigned int refs;
	pthread_t thread;
	pthread_cond_t wake;	/* work queued, or stop */
	struct hd_op *head, **tail;
	u64 running;		/* seq of the operation being run, 0 if none */
	CUresult err;		/* first async failure, until a synchronize reports it */
};

struct hd_event {
	struct hd_obj obj;
	unsigned int flags;
	unsigned int refs;
	u64 seq;		/* bumped by each cuEventRecord */
	bool recorded, done;
	u64 ts_ns;
};

#define HD_MAX_THREADS	1024U		/* per block */

/*
 * A function's kernel as launches see it: its parameter layout and how to
 * run one block. A C kernel (lake/kernel.h) takes both from its module's
 * descriptor; a C++ kernel (lake/cuda_host.h) from cxx.c, which reads the
 * parameters from the mangled name and runs the block on fibers.
 */
struct hd_kernel {
	const char *name;		/* as cuModuleGetFunction was asked */
	unsigned int nparams;
	const struct lake_kernel_param *params;
	size_t arg_bytes;		/* end of the last parameter */
	/* 0, or LAKE_KERNEL_TRAPPED: the launch fails */
	int (*run_block)(const struct hd_kernel *k, const struct lake_kernel_launch *l,
			 void **args);
	const struct lake_kernel_desc *desc;	/* a C kernel's */
};

struct hd_function {
	struct hd_obj obj;
	struct hd_module *mod;
	struct hd_function *next;	/* in mod->fns */
	struct hd_kernel *kernel;	/* &c, or cxx.c's */
	struct hd_kernel c;
};

struct hd_module {
	struct hd_obj obj;
	void *dl;
	struct hd_function *fns;
};

enum hd_op_kind {
	HD_OP_COPY,
	HD_OP_MEMSET,
	HD_OP_LAUNCH,
	HD_OP_RECORD,
};

/*
 * seq orders every operation of the device: one counter for all streams.
 * Waits are "until no operation with seq <= S is pending on the streams that
 * match", so they need no snapshot of streams and can never form a cycle.
 */
struct hd_op {
	struct hd_op *next;
	u64 seq;
	enum hd_op_kind kind;
	union {
		struct {
			void *dst;
			const void *src;
			size_t bytes;
		} copy;
		struct {
			void *dst;
			size_t count;
			unsigned int value;
			bool d32;
		} memset;
		struct {
			const struct hd_kernel *kernel;
			struct lake_dim3 grid, block;
		} launch;		/* packed arguments in data[] */
		struct {
			struct hd_event *ev;	/* holds a reference */
			u64 seq;
		} record;
	};
	unsigned char data[] __attribute__((aligned(16)));
};

struct hd_device {
	pthread_mutex_t lock;
	pthread_cond_t done;
	bool open, initialized;
	size_t mem_bytes;		/* arena size, page aligned */
	unsigned int workers;		/* kernel thread pool size */
	unsigned int copy_ms;		/* lake_host_opts.copy_ms */
	void (*warn)(const char *line);	/* lake_host_opts.warn */
	struct hd_list streams;		/* every stream of every context */
	u64 seq;			/* last operation submitted */
	unsigned int pending;		/* operations queued or running */
};

extern struct hd_device hd;

static inline void hd_lock(void)
{
	pthread_mutex_lock(&hd.lock);
}

static inline void hd_unlock(void)
{
	pthread_mutex_unlock(&hd.lock);
}

u64 hd_now_ns(void);
/* A line for laked's log (lake_host_opts.warn), from any thread. */
void hd_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* handle.c */
int hd_handle_add(struct hd_obj *obj);
struct hd_obj *hd_handle_get(const void *handle, enum hd_type type);
/* hd_handle_get for an API call: NOT_INITIALIZED, INVALID_HANDLE or *obj set. */
CUresult hd_lookup(const void *handle, enum hd_type type, struct hd_obj **obj);
void hd_handle_del(struct hd_obj *obj);
/* Live objects in slot order, from *cursor (start at 0); NULL at the end. */
struct hd_obj *hd_handle_next(unsigned int *cursor);
void hd_handles_fini(void);

/* ctx.c: validated current context, or NOT_INITIALIZED / INVALID_CONTEXT */
CUresult hd_current(struct hd_ctx **ctx);
CUresult hd_initialized(void);
void hd_ctx_fini(void);

/* mem.c */
int hd_mem_init(size_t bytes);
void hd_mem_fini(void);
void hd_mem_release_ctx(void *ctx);
/* @count bytes, or 32-bit words at a 4-byte aligned @dst, of @value */
void hd_mem_fill(void *dst, unsigned int value, size_t count, bool d32);

/* stream.c */
/* NULL: the current context's NULL stream */
CUresult hd_stream_resolve(CUstream handle, struct hd_stream **s);
CUresult hd_stream_new(struct hd_ctx *ctx, unsigned int flags, bool is_null,
		       struct hd_stream **out);
void hd_stream_release(struct hd_stream *s);
struct hd_op *hd_op_new(enum hd_op_kind kind, size_t data_bytes);
void hd_submit(struct hd_stream *s, struct hd_op *op);
/* Wait for the work queued so far on @ctx's NULL stream and blocking streams. */
void hd_wait_legacy(const void *ctx);
/* Wait for the work queued so far on every stream of @ctx, or of all (NULL). */
void hd_drain(const void *ctx);
/* Sleep on hd.done once, after waking held work. */
void hd_wait_done(void);
/* The calling thread's submissions wake no worker until hd_batch_end(). */
void hd_batch_begin(void);
void hd_batch_end(void);

/* event.c */
void hd_event_put(struct hd_event *ev);
void hd_event_reached(struct hd_event *ev, u64 seq);
void hd_event_release(struct hd_event *ev);

/* module.c */
void hd_module_release(struct hd_module *mod);

/* cxx.c: the C++ kernel @name of module @dl, or NOT_FOUND, NOT_SUPPORTED, ... */
CUresult hd_cxx_kernel(void *dl, const char *name, struct hd_kernel **out);
void hd_cxx_kernel_free(struct hd_kernel *k);

/*
 * fiber.c: one block, its CUDA threads as fibers: @run(@arg) once per
 * thread, with *@slot pointing at the thread's lake_cxx_thread whenever it
 * runs. 0, or LAKE_KERNEL_TRAPPED after a __trap(), a barrier that not
 * every thread reaches, or no memory for a fiber (each logged as @name's).
 */
int hd_fiber_block(const char *name, const struct lake_kernel_launch *l,
		   struct lake_cxx_thread **slot, void (*run)(void *arg), void *arg);

/* pool.c: runs every block of a grid; 0, or LAKE_KERNEL_TRAPPED */
int hd_pool_create(unsigned int workers);
void hd_pool_destroy(void);
int hd_pool_run(const struct hd_kernel *k, struct lake_dim3 grid, struct lake_dim3 block,
		void **args);
/*
 * Percent of the pool's capacity that was busy since the previous call,
 * blocks still running counted up to now.
 */
unsigned int hd_pool_utilization(void);

/* errors.c */
CUresult hd_cuGetErrorName(CUresult error, const char **str);
CUresult hd_cuGetErrorString(CUresult error, const char **str);

/* The ops, one file per area. */
CUresult hd_cuInit(unsigned int flags);
CUresult hd_cuDriverGetVersion(int *version);
CUresult hd_cuDeviceGet(CUdevice *dev, int ordinal);
CUresult hd_cuDeviceGetCount(int *count);
CUresult hd_cuDeviceGetName(char *name, int len, CUdevice dev);
CUresult hd_cuDeviceGetAttribute(int *pi, CUdevice_attribute attrib, CUdevice dev);
CUresult hd_cuDeviceTotalMem(size_t *bytes, CUdevice dev);

CUresult hd_cuCtxCreate(CUcontext *pctx, unsigned int flags, CUdevice dev);
CUresult hd_cuCtxDestroy(CUcontext ctx);
CUresult hd_cuCtxGetCurrent(CUcontext *pctx);
CUresult hd_cuCtxSetCurrent(CUcontext ctx);
CUresult hd_cuCtxSynchronize(void);

CUresult hd_cuModuleLoad(CUmodule *mod, const char *fname);
int hd_module_file(const char *name, char *out, size_t size);
CUresult hd_cuModuleUnload(CUmodule mod);
CUresult hd_cuModuleGetFunction(CUfunction *fn, CUmodule mod, const char *name);
CUresult hd_cuFuncGetParamInfo(CUfunction fn, size_t index, size_t *offset, size_t *size);
CUresult hd_cuLaunchKernel(CUfunction fn, unsigned int gx, unsigned int gy, unsigned int gz,
			   unsigned int bx, unsigned int by, unsigned int bz,
			   unsigned int shared_bytes, CUstream stream,
			   void **params, void **extra);

CUresult hd_cuMemAlloc(CUdeviceptr *dptr, size_t bytes);
CUresult hd_cuMemAllocPitch(CUdeviceptr *dptr, size_t *pitch, size_t width,
			    size_t height, unsigned int elem_bytes);
CUresult hd_cuMemFree(CUdeviceptr dptr);
CUresult hd_cuMemcpyHtoD(CUdeviceptr dst, const void *src, size_t bytes);
CUresult hd_cuMemcpyDtoH(void *dst, CUdeviceptr src, size_t bytes);
CUresult hd_cuMemcpyHtoDAsync(CUdeviceptr dst, const void *src, size_t bytes, CUstream stream);
CUresult hd_cuMemcpyDtoHAsync(void *dst, CUdeviceptr src, size_t bytes, CUstream stream);
CUresult hd_cuMemsetD8(CUdeviceptr dst, unsigned char value, size_t count);
CUresult hd_cuMemsetD32(CUdeviceptr dst, unsigned int value, size_t count);
CUresult hd_cuMemsetD8Async(CUdeviceptr dst, unsigned char value, size_t count,
			    CUstream stream);
CUresult hd_cuMemsetD32Async(CUdeviceptr dst, unsigned int value, size_t count,
			     CUstream stream);
CUresult hd_cuMemGetInfo(size_t *free, size_t *total);
CUresult hd_cuMemHostRegister(void *p, size_t bytes, unsigned int flags);
CUresult hd_cuMemHostUnregister(void *p);

CUresult hd_cuStreamCreate(CUstream *stream, unsigned int flags);
CUresult hd_cuStreamSynchronize(CUstream stream);
CUresult hd_cuStreamDestroy(CUstream stream);
CUresult hd_cuStreamQuery(CUstream stream);

CUresult hd_cuEventCreate(CUevent *event, unsigned int flags);
CUresult hd_cuEventRecord(CUevent event, CUstream stream);
CUresult hd_cuEventSynchronize(CUevent event);
CUresult hd_cuEventElapsedTime(float *ms, CUevent start, CUevent end);
CUresult hd_cuEventDestroy(CUevent event);

#endif /* LAKED_HOST_H */
