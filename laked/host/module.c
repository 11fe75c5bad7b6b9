// SPDX-License-Identifier: GPL-2.0
/*
 * Modules and launches. A host-device module is a shared object built from
 * the same kernel source as the cubin: a C source with lake/kernel.h, whose
 * kernels are found by their descriptors, or a CUDA C++ source built with
 * lake/cuda_host.h, whose kernels are found by their mangled names (cxx.c).
 * cuModuleLoad(path) loads path itself when it names a .so (or any other
 * file), and for a .cubin, .fatbin or .ptx path the sibling with the same
 * stem and ".so": build/kernels/vadd.cubin -> build/kernels/vadd.so. So a
 * caller passes the same path on either device.
 *
 * dlopen runs the object's constructors inside laked: only load modules
 * from trusted paths.
 */
#include <dlfcn.h>
#include <unistd.h>
#include "host.h"

#define MAX_GRID_X	0x7fffffffU
#define MAX_GRID_YZ	65535U
#define MAX_BLOCK_XY	1024U
#define MAX_BLOCK_Z	64U
#define EXTRA_MAX	64	/* entries in a cuLaunchKernel extra array */

static const char *const device_exts[] = { ".cubin", ".fatbin", ".ptx" };

/* The path to dlopen for @fname; malloc'ed. */
static char *so_path(const char *fname)
{
	size_t len = strlen(fname), i;
	char *path;

	for (i = 0; i < sizeof(device_exts) / sizeof(device_exts[0]); i++) {
		size_t el = strlen(device_exts[i]);

		if (len > el && !strcmp(fname + len - el, device_exts[i])) {
			path = malloc(len - el + sizeof(".so"));
			if (path) {
				memcpy(path, fname, len - el);
				strcpy(path + len - el, ".so");
			}
			return path;
		}
	}
	return strdup(fname);
}

int hd_module_file(const char *name, char *out, size_t size)
{
	char *path = so_path(name);
	int ret = 0;

	if (!path)
		return -ENOMEM;
	if (strlen(path) >= size)
		ret = -ENAMETOOLONG;
	else
		strcpy(out, path);
	free(path);
	return ret;
}

CUresult hd_cuModuleLoad(CUmodule *out, const char *fname)
{
	const unsigned int *abi;
	struct hd_module *mod;
	struct hd_ctx *ctx;
	char *path = NULL;
	void *dl = NULL;
	CUresult ret;

	hd_lock();
	ret = hd_current(&ctx);
	if (ret)
		goto out;
	ret = CUDA_ERROR_INVALID_VALUE;
	if (!out || !fname)
		goto out;
	ret = CUDA_ERROR_OUT_OF_MEMORY;
	path = so_path(fname);
	if (!path)
		goto out;
	ret = CUDA_ERROR_FILE_NOT_FOUND;
	if (access(path, R_OK))
		goto out;
	ret = CUDA_ERROR_INVALID_IMAGE;
	dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!dl) {
		hd_warn("%s", dlerror());
		goto out;
	}
	abi = dlsym(dl, LAKE_KERNEL_MODULE_SYMBOL);
	if (!abi || *abi != LAKE_KERNEL_ABI)
		goto err_close;
	ret = CUDA_ERROR_OUT_OF_MEMORY;
	mod = calloc(1, sizeof(*mod));
	if (!mod)
		goto err_close;
	mod->obj.type = HD_MODULE;
	mod->obj.ctx = ctx->obj.handle;
	mod->dl = dl;
	if (hd_handle_add(&mod->obj)) {
		free(mod);
		goto err_close;
	}
	*out = mod->obj.handle;
	ret = CUDA_SUCCESS;
	goto out;

err_close:
	dlclose(dl);
out:
	hd_unlock();
	free(path);
	return ret;
}

/* Launches queued before this point may still run the module's code. */
void hd_module_release(struct hd_module *mod)
{
	struct hd_function *fn;

	hd_handle_del(&mod->obj);
	for (fn = mod->fns; fn; fn = fn->next)
		hd_handle_del(&fn->obj);
	hd_drain(NULL);
	while ((fn = mod->fns)) {
		mod->fns = fn->next;
		if (fn->kernel != &fn->c)
			hd_cxx_kernel_free(fn->kernel);
		free(fn);
	}
	dlclose(mod->dl);
	free(mod);
}

CUresult hd_cuModuleUnload(CUmodule handle)
{
	struct hd_obj *obj;
	CUresult ret;

	hd_lock();
	ret = hd_lookup(handle, HD_MODULE, &obj);
	if (!ret)
		hd_module_release(container_of(obj, struct hd_module, obj));
	hd_unlock();
	return ret;
}

static int c_run_block(const struct hd_kernel *k, const struct lake_kernel_launch *l, void **args)
{
	return k->desc->run_block(l, args);
}

/*
 * The descriptor comes from a file: check what the launch path relies on,
 * then fill @k from it. Parameters must ascend without overlap, each
 * non-empty, within CUDA's 4 KiB parameter space.
 */
static bool desc_valid(const struct lake_kernel_desc *d, const char *name, struct hd_kernel *k)
{
	size_t end = 0;
	unsigned int i;

	if (d->abi != LAKE_KERNEL_ABI || !d->run_block || !d->name || strcmp(d->name, name))
		return false;
	if (!d->nparams || d->nparams > LAKE_KERNEL_MAX_PARAMS || !d->params)
		return false;
	for (i = 0; i < d->nparams; i++) {
		const struct lake_kernel_param *p = &d->params[i];

		if (!p->size || p->offset < end || p->size > LAKE_KERNEL_MAX_PARAM_BYTES ||
		    p->offset > LAKE_KERNEL_MAX_PARAM_BYTES - p->size)
			return false;
		end = p->offset + p->size;
	}
	*k = (struct hd_kernel){
		.name = d->name,
		.nparams = d->nparams,
		.params = d->params,
		.arg_bytes = end,
		.run_block = c_run_block,
		.desc = d,
	};
	return true;
}

CUresult hd_cuModuleGetFunction(CUfunction *out, CUmodule handle, const char *name)
{
	char sym[sizeof(LAKE_KERNEL_SYMBOL_PREFIX) + 256];
	const struct lake_kernel_desc *desc = NULL;
	struct hd_function *fn;
	struct hd_module *mod;
	struct hd_obj *obj;
	CUresult ret;

	hd_lock();
	ret = hd_initialized();
	if (ret)
		goto out;
	ret = CUDA_ERROR_INVALID_VALUE;
	if (!out || !name)
		goto out;
	ret = hd_lookup(handle, HD_MODULE, &obj);
	if (ret)
		goto out;
	mod = container_of(obj, struct hd_module, obj);
	/* As in CUDA, the same name gives the same handle. */
	for (fn = mod->fns; fn; fn = fn->next) {
		if (!strcmp(fn->kernel->name, name)) {
			*out = fn->obj.handle;
			ret = CUDA_SUCCESS;
			goto out;
		}
	}
	ret = CUDA_ERROR_OUT_OF_MEMORY;
	fn = calloc(1, sizeof(*fn));
	if (!fn)
		goto out;
	/* A C kernel's descriptor first; with none, a C++ kernel's symbol. */
	if ((size_t)snprintf(sym, sizeof(sym), "%s%s", LAKE_KERNEL_SYMBOL_PREFIX, name) <
	    sizeof(sym))
		desc = dlsym(mod->dl, sym);
	if (desc) {
		ret = CUDA_ERROR_INVALID_IMAGE;
		if (!desc_valid(desc, name, &fn->c))
			goto err_free;
		fn->kernel = &fn->c;
	} else {
		ret = hd_cxx_kernel(mod->dl, name, &fn->kernel);
		if (ret)
			goto err_free;
	}
	ret = CUDA_ERROR_OUT_OF_MEMORY;
	fn->obj.type = HD_FUNCTION;
	fn->obj.ctx = mod->obj.ctx;
	fn->mod = mod;
	if (hd_handle_add(&fn->obj))
		goto err_kernel;
	fn->next = mod->fns;
	mod->fns = fn;
	*out = fn->obj.handle;
	ret = CUDA_SUCCESS;
	goto out;

err_kernel:
	if (fn->kernel != &fn->c)
		hd_cxx_kernel_free(fn->kernel);
err_free:
	free(fn);
out:
	hd_unlock();
	return ret;
}

static CUresult lookup_function(CUfunction handle, struct hd_function **fn)
{
	struct hd_obj *obj;
	CUresult ret = hd_lookup(handle, HD_FUNCTION, &obj);

	if (!ret)
		*fn = container_of(obj, struct hd_function, obj);
	return ret;
}

CUresult hd_cuFuncGetParamInfo(CUfunction handle, size_t index, size_t *offset, size_t *size)
{
	struct hd_function *fn;
	CUresult ret;

	hd_lock();
	ret = lookup_function(handle, &fn);
	if (!ret && (!offset || index >= fn->kernel->nparams))
		ret = CUDA_ERROR_INVALID_VALUE;
	if (!ret) {
		*offset = fn->kernel->params[index].offset;
		if (size)
			*size = fn->kernel->params[index].size;
	}
	hd_unlock();
	return ret;
}

static bool dims_valid(unsigned int gx, unsigned int gy, unsigned int gz,
		       unsigned int bx, unsigned int by, unsigned int bz)
{
	if (!gx || !gy || !gz || !bx || !by || !bz)
		return false;
	if (gx > MAX_GRID_X || gy > MAX_GRID_YZ || gz > MAX_GRID_YZ)
		return false;
	if (bx > MAX_BLOCK_XY || by > MAX_BLOCK_XY || bz > MAX_BLOCK_Z)
		return false;
	return bx * by * bz <= HD_MAX_THREADS;
}

/* Pack kernelParams (one pointer per parameter) into the layout. */
static CUresult pack_params(const struct hd_function *fn, void **params, unsigned char *buf)
{
	unsigned int i;

	for (i = 0; i < fn->kernel->nparams; i++) {
		const struct lake_kernel_param *p = &fn->kernel->params[i];

		if (!params[i])
			return CUDA_ERROR_INVALID_VALUE;
		memcpy(buf + p->offset, params[i], p->size);
	}
	return CUDA_SUCCESS;
}

/* Copy the caller's packed buffer from an extra array. */
static CUresult pack_extra(const struct hd_function *fn, void **extra, unsigned char *buf)
{
	const size_t *size = NULL;
	const void *src = NULL;
	unsigned int i;

	for (i = 0; i < EXTRA_MAX && extra[i] != CU_LAUNCH_PARAM_END; i += 2) {
		if (extra[i] == CU_LAUNCH_PARAM_BUFFER_POINTER)
			src = extra[i + 1];
		else if (extra[i] == CU_LAUNCH_PARAM_BUFFER_SIZE)
			size = extra[i + 1];
		else
			return CUDA_ERROR_INVALID_VALUE;
	}
	if (i >= EXTRA_MAX || !src || !size || *size < fn->kernel->arg_bytes)
		return CUDA_ERROR_INVALID_VALUE;
	memcpy(buf, src, fn->kernel->arg_bytes);
	return CUDA_SUCCESS;
}

/*
 * Arguments are copied now, as CUDA does, so the caller may reuse them as
 * soon as the call returns. The host device has no dynamic shared memory
 * (a C++ kernel's static __shared__ is its own): any sharedMemBytes exceeds
 * its limit (attribute value 0).
 */
CUresult hd_cuLaunchKernel(CUfunction handle, unsigned int gx, unsigned int gy, unsigned int gz,
			   unsigned int bx, unsigned int by, unsigned int bz,
			   unsigned int shared_bytes, CUstream stream,
			   void **params, void **extra)
{
	struct hd_function *fn;
	struct hd_stream *s;
	struct hd_op *op;
	CUresult ret;

	hd_lock();
	ret = lookup_function(handle, &fn);
	if (!ret)
		ret = hd_stream_resolve(stream, &s);
	if (ret)
		goto out;
	ret = CUDA_ERROR_INVALID_CONTEXT;
	if (fn->obj.ctx != s->obj.ctx)
		goto out;
	ret = CUDA_ERROR_INVALID_VALUE;
	if (!dims_valid(gx, gy, gz, bx, by, bz) || shared_bytes || (params && extra) ||
	    (!params && !extra))
		goto out;
	ret = CUDA_ERROR_OUT_OF_MEMORY;
	op = hd_op_new(HD_OP_LAUNCH, fn->kernel->arg_bytes);
	if (!op)
		goto out;
	ret = params ? pack_params(fn, params, op->data) : pack_extra(fn, extra, op->data);
	if (ret) {
		free(op);
		goto out;
	}
	op->launch.kernel = fn->kernel;
	op->launch.grid = (struct lake_dim3){ gx, gy, gz };
	op->launch.block = (struct lake_dim3){ bx, by, bz };
	hd_submit(s, op);
out:
	hd_unlock();
	return ret;
}
