// SPDX-License-Identifier: GPL-2.0
/*
 * Device memory. One arena of the configured size is reserved with mmap
 * (pages are committed on first touch) and placed by lakeshm's best-fit
 * allocator. A CUdeviceptr is the arena address of a block: host kernels
 * dereference device pointers, so they must be addresses in this process,
 * but never heap pointers. Nothing trusts a CUdeviceptr: every copy, memset
 * and free first looks the range up in a tree of live allocations (exact
 * requested sizes, not the allocator's rounded ones) and refuses it with
 * CUDA_ERROR_INVALID_VALUE unless [ptr, ptr + len) lies inside one of them.
 *
 * cuMemHostRegister is bookkeeping only: there is no DMA to pin for.
 */
#include <sys/mman.h>
#include <unistd.h>
#include "host.h"

#define ALLOC_ALIGN		256	/* what cuMemAlloc guarantees */
#define PITCH_ALIGN		512
#define RELEASE_PAGES_MIN	(1UL << 20)
#define HOST_REGISTER_FLAGS	(CU_MEMHOSTREGISTER_PORTABLE | CU_MEMHOSTREGISTER_DEVICEMAP | \
				 CU_MEMHOSTREGISTER_IOMEMORY | CU_MEMHOSTREGISTER_READ_ONLY)

struct hd_alloc {
	struct lake_avl_node node;	/* in allocs, by off */
	u64 off;
	size_t size;
	void *ctx;
};

struct hd_hostreg {
	struct hd_hostreg *next;
	uintptr_t start;
	size_t bytes;
	void *ctx;
};

static unsigned char *arena;
static size_t arena_bytes;
static struct lake_alloc placer;
static struct lake_avl_root allocs;
static struct hd_hostreg *hostregs;

#define alloc_of(n) container_of(n, struct hd_alloc, node)

int hd_mem_init(size_t bytes)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	int ret;

	if (!bytes || bytes > SIZE_MAX - page)
		return -EINVAL;
	bytes = LAKE_ALIGN_UP(bytes, page);
	arena = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (arena == MAP_FAILED) {
		arena = NULL;
		return -errno;
	}
	ret = lake_alloc_init(&placer, bytes);
	if (ret) {
		munmap(arena, bytes);
		arena = NULL;
		return ret;
	}
	arena_bytes = bytes;
	hd.mem_bytes = bytes;
	allocs.node = NULL;
	return 0;
}

static void alloc_insert(struct hd_alloc *a)
{
	struct lake_avl_node **link = &allocs.node, *parent = NULL;

	while (*link) {
		parent = *link;
		link = a->off < alloc_of(parent)->off ? &parent->left : &parent->right;
	}
	lake_avl_link(&a->node, parent, link);
	lake_avl_insert_fixup(&allocs, &a->node);
}

/* The live allocation with the greatest offset <= @off, or NULL. */
static struct hd_alloc *alloc_floor(u64 off)
{
	struct lake_avl_node *n = allocs.node;
	struct hd_alloc *best = NULL;

	while (n) {
		if (alloc_of(n)->off <= off) {
			best = alloc_of(n);
			n = n->right;
		} else {
			n = n->left;
		}
	}
	return best;
}

static bool in_arena(CUdeviceptr dptr)
{
	return dptr >= (uintptr_t)arena && dptr - (uintptr_t)arena < arena_bytes;
}

/* [dptr, dptr + bytes) inside one live allocation: its host address, or NULL */
static void *mem_map(CUdeviceptr dptr, size_t bytes)
{
	struct hd_alloc *a;
	u64 off;

	if (!in_arena(dptr))
		return NULL;
	off = dptr - (uintptr_t)arena;
	a = alloc_floor(off);
	if (!a || off - a->off >= a->size || bytes > a->size - (off - a->off))
		return NULL;
	return arena + off;
}

/* Placement and record are gone: the caller made sure no queued work uses it. */
static void alloc_free(struct hd_alloc *a)
{
	if (a->size >= RELEASE_PAGES_MIN) {
		size_t page = (size_t)sysconf(_SC_PAGESIZE);
		uintptr_t from = LAKE_ALIGN_UP((uintptr_t)arena + a->off, page);
		uintptr_t to = ((uintptr_t)arena + a->off + a->size) & ~(page - 1);

		/* Give the pages back so RSS follows live allocations. */
		if (to > from)
			madvise((void *)from, to - from, MADV_DONTNEED);
	}
	lake_alloc_free(&placer, a->off);
	free(a);
}

static CUresult mem_alloc(void *ctx, size_t bytes, CUdeviceptr *dptr)
{
	struct hd_alloc *a = malloc(sizeof(*a));
	u64 off;

	if (!a)
		return CUDA_ERROR_OUT_OF_MEMORY;
	if (lake_alloc_alloc(&placer, bytes, ALLOC_ALIGN, &off)) {
		free(a);
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	a->off = off;
	a->size = bytes;
	a->ctx = ctx;
	alloc_insert(a);
	*dptr = (uintptr_t)arena + off;
	return CUDA_SUCCESS;
}

CUresult hd_cuMemAlloc(CUdeviceptr *dptr, size_t bytes)
{
	struct hd_ctx *ctx;
	CUresult ret;

	hd_lock();
	ret = hd_current(&ctx);
	if (!ret && (!dptr || !bytes))
		ret = CUDA_ERROR_INVALID_VALUE;
	if (!ret)
		ret = mem_alloc(ctx->obj.handle, bytes, dptr);
	hd_unlock();
	return ret;
}

CUresult hd_cuMemAllocPitch(CUdeviceptr *dptr, size_t *pitch, size_t width,
			    size_t height, unsigned int elem_bytes)
{
	struct hd_ctx *ctx;
	size_t p;
	CUresult ret;

	hd_lock();
	ret = hd_current(&ctx);
	if (ret)
		goto out;
	ret = CUDA_ERROR_INVALID_VALUE;
	if (!dptr || !pitch || !width || !height || width > INT32_MAX)
		goto out;
	if (elem_bytes != 4 && elem_bytes != 8 && elem_bytes != 16)
		goto out;
	p = LAKE_ALIGN_UP(width, PITCH_ALIGN);
	ret = CUDA_ERROR_OUT_OF_MEMORY;
	if (height > SIZE_MAX / p)
		goto out;
	ret = mem_alloc(ctx->obj.handle, p * height, dptr);
	if (!ret)
		*pitch = p;
out:
	hd_unlock();
	return ret;
}

/* Like CUDA's, cuMemFree waits for the device: nothing queued may still use it. */
CUresult hd_cuMemFree(CUdeviceptr dptr)
{
	struct hd_alloc *a;
	struct hd_ctx *ctx;
	CUresult ret;

	hd_lock();
	ret = hd_current(&ctx);
	if (ret)
		goto out;
	a = in_arena(dptr) ? alloc_floor(dptr - (uintptr_t)arena) : NULL;
	if (!a || (uintptr_t)arena + a->off != dptr) {
		ret = CUDA_ERROR_INVALID_VALUE;
		goto out;
	}
	/* Out of the tree first, so no new work can refer to it while we wait. */
	lake_avl_erase(&allocs, &a->node);
	hd_drain(NULL);
	alloc_free(a);
out:
	hd_unlock();
	return ret;
}

void hd_mem_release_ctx(void *ctx)
{
	struct lake_avl_node *n = lake_avl_first(&allocs);
	struct hd_hostreg **pp = &hostregs;

	while (n) {
		struct hd_alloc *a = alloc_of(n);

		n = lake_avl_next(n);
		if (a->ctx != ctx)
			continue;
		lake_avl_erase(&allocs, &a->node);
		alloc_free(a);
	}
	while (*pp) {
		struct hd_hostreg *r = *pp;

		if (r->ctx == ctx) {
			*pp = r->next;
			free(r);
		} else {
			pp = &r->next;
		}
	}
}

void hd_mem_fini(void)
{
	struct lake_avl_node *n;

	while ((n = lake_avl_first(&allocs))) {
		lake_avl_erase(&allocs, n);
		free(alloc_of(n));
	}
	while (hostregs) {
		struct hd_hostreg *r = hostregs;

		hostregs = r->next;
		free(r);
	}
	lake_alloc_destroy(&placer);
	if (arena)
		munmap(arena, arena_bytes);
	arena = NULL;
	arena_bytes = 0;
}

CUresult hd_cuMemGetInfo(size_t *free_bytes, size_t *total)
{
	struct hd_ctx *ctx;
	CUresult ret;

	hd_lock();
	ret = hd_current(&ctx);
	if (!ret && (!free_bytes || !total))
		ret = CUDA_ERROR_INVALID_VALUE;
	if (!ret) {
		struct lake_alloc_stats st;

		lake_alloc_get_stats(&placer, &st);
		*free_bytes = st.free;
		*total = arena_bytes;
	}
	hd_unlock();
	return ret;
}

/*
 * Synchronous copies: validate, wait for the legacy stream set (they order
 * as NULL-stream work), then run in the calling thread.
 */
static CUresult sync_begin(void *dev, const void *host, size_t bytes, void **mapped)
{
	struct hd_ctx *ctx;
	CUresult ret;

	ret = hd_current(&ctx);
	if (ret)
		return ret;
	if (!bytes) {
		*mapped = NULL;
		return CUDA_SUCCESS;
	}
	*mapped = mem_map((uintptr_t)dev, bytes);
	if (!*mapped || !host)
		return CUDA_ERROR_INVALID_VALUE;
	hd_wait_legacy(ctx->obj.handle);
	return CUDA_SUCCESS;
}

CUresult hd_cuMemcpyHtoD(CUdeviceptr dst, const void *src, size_t bytes)
{
	CUresult ret;
	void *d;

	hd_lock();
	ret = sync_begin((void *)(uintptr_t)dst, src, bytes, &d);
	hd_unlock();
	if (!ret && bytes)
		memcpy(d, src, bytes);
	return ret;
}

CUresult hd_cuMemcpyDtoH(void *dst, CUdeviceptr src, size_t bytes)
{
	CUresult ret;
	void *s;

	hd_lock();
	ret = sync_begin((void *)(uintptr_t)src, dst, bytes, &s);
	hd_unlock();
	if (!ret && bytes) {
		memcpy(dst, s, bytes);
		if (hd.copy_ms) {
			usleep(hd.copy_ms * 1000);
			memcpy(dst, s, bytes);
		}
	}
	return ret;
}

void hd_mem_fill(void *dst, unsigned int value, size_t count, bool d32)
{
	u32 *words = dst;
	size_t i;

	if (!d32) {
		memset(dst, (unsigned char)value, count);
		return;
	}
	for (i = 0; i < count; i++)
		words[i] = value;
}

/* The checks of every memset, synchronous or not; *mapped stays NULL for none. */
static CUresult memset_range(CUdeviceptr dst, size_t count, bool d32, void **mapped)
{
	*mapped = NULL;
	if (d32 && (dst % 4 || count > SIZE_MAX / 4))
		return CUDA_ERROR_INVALID_VALUE;
	if (!count)
		return CUDA_SUCCESS;
	*mapped = mem_map(dst, d32 ? count * 4 : count);
	return *mapped ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

/* Like the synchronous copies, NULL-stream work run by the calling thread. */
static CUresult memset_sync(CUdeviceptr dst, unsigned int value, size_t count, bool d32)
{
	struct hd_ctx *ctx;
	void *d = NULL;
	CUresult ret;

	hd_lock();
	ret = hd_current(&ctx);
	if (!ret)
		ret = memset_range(dst, count, d32, &d);
	if (d)
		hd_wait_legacy(ctx->obj.handle);
	hd_unlock();
	if (d)
		hd_mem_fill(d, value, count, d32);
	return ret;
}

CUresult hd_cuMemsetD8(CUdeviceptr dst, unsigned char value, size_t count)
{
	return memset_sync(dst, value, count, false);
}

CUresult hd_cuMemsetD32(CUdeviceptr dst, unsigned int value, size_t count)
{
	return memset_sync(dst, value, count, true);
}

static CUresult memset_async(CUdeviceptr dst, unsigned int value, size_t count, bool d32,
			     CUstream stream)
{
	struct hd_stream *s;
	struct hd_op *op;
	void *d = NULL;
	CUresult ret;

	hd_lock();
	ret = hd_stream_resolve(stream, &s);
	if (!ret)
		ret = memset_range(dst, count, d32, &d);
	if (ret || !d)
		goto out;
	ret = CUDA_ERROR_OUT_OF_MEMORY;
	op = hd_op_new(HD_OP_MEMSET, 0);
	if (!op)
		goto out;
	op->memset.dst = d;
	op->memset.count = count;
	op->memset.value = value;
	op->memset.d32 = d32;
	hd_submit(s, op);
	ret = CUDA_SUCCESS;
out:
	hd_unlock();
	return ret;
}

CUresult hd_cuMemsetD8Async(CUdeviceptr dst, unsigned char value, size_t count,
			    CUstream stream)
{
	return memset_async(dst, value, count, false, stream);
}

CUresult hd_cuMemsetD32Async(CUdeviceptr dst, unsigned int value, size_t count,
			     CUstream stream)
{
	return memset_async(dst, value, count, true, stream);
}

static CUresult copy_async(void *dst, const void *src, size_t bytes, CUstream stream)
{
	struct hd_stream *s;
	struct hd_op *op;
	CUresult ret;

	ret = hd_stream_resolve(stream, &s);
	if (ret || !bytes)
		return ret;
	if (!dst || !src)
		return CUDA_ERROR_INVALID_VALUE;
	op = hd_op_new(HD_OP_COPY, 0);
	if (!op)
		return CUDA_ERROR_OUT_OF_MEMORY;
	op->copy.dst = dst;
	op->copy.src = src;
	op->copy.bytes = bytes;
	hd_submit(s, op);
	return CUDA_SUCCESS;
}

CUresult hd_cuMemcpyHtoDAsync(CUdeviceptr dst, const void *src, size_t bytes, CUstream stream)
{
	CUresult ret;

	hd_lock();
	ret = copy_async(bytes ? mem_map(dst, bytes) : NULL, src, bytes, stream);
	hd_unlock();
	return ret;
}

CUresult hd_cuMemcpyDtoHAsync(void *dst, CUdeviceptr src, size_t bytes, CUstream stream)
{
	CUresult ret;

	hd_lock();
	ret = copy_async(dst, bytes ? mem_map(src, bytes) : NULL, bytes, stream);
	hd_unlock();
	return ret;
}

CUresult hd_cuMemHostRegister(void *p, size_t bytes, unsigned int flags)
{
	uintptr_t start = (uintptr_t)p;
	struct hd_hostreg *r;
	struct hd_ctx *ctx;
	CUresult ret;

	hd_lock();
	ret = hd_current(&ctx);
	if (ret)
		goto out;
	ret = CUDA_ERROR_INVALID_VALUE;
	if (!p || !bytes || (flags & ~HOST_REGISTER_FLAGS) || bytes > UINTPTR_MAX - start)
		goto out;
	/* Mapping device I/O memory means nothing without a device. */
	ret = CUDA_ERROR_NOT_SUPPORTED;
	if (flags & CU_MEMHOSTREGISTER_IOMEMORY)
		goto out;
	ret = CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED;
	for (r = hostregs; r; r = r->next)
		if (start < r->start + r->bytes && r->start < start + bytes)
			goto out;
	ret = CUDA_ERROR_OUT_OF_MEMORY;
	r = malloc(sizeof(*r));
	if (!r)
		goto out;
	r->start = start;
	r->bytes = bytes;
	r->ctx = ctx->obj.handle;
	r->next = hostregs;
	hostregs = r;
	ret = CUDA_SUCCESS;
out:
	hd_unlock();
	return ret;
}

CUresult hd_cuMemHostUnregister(void *p)
{
	struct hd_hostreg **pp, *r;
	struct hd_ctx *ctx;
	CUresult ret;

	hd_lock();
	ret = hd_current(&ctx);
	if (!ret && !p)
		ret = CUDA_ERROR_INVALID_VALUE;
	if (ret)
		goto out;
	ret = CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED;
	for (pp = &hostregs; (r = *pp); pp = &r->next) {
		if (r->start == (uintptr_t)p) {
			*pp = r->next;
			free(r);
			ret = CUDA_SUCCESS;
			break;
		}
	}
out:
	hd_unlock();
	return ret;
}
