// SPDX-License-Identifier: GPL-2.0
/*
 * Modules, functions and launches.
 *
 * cuModuleLoad paths are relative to --module-dir: an absolute path or a
 * ".." component is refused with CUDA_ERROR_FILE_NOT_FOUND (there is no
 * such file under the directory), so the kernel can only name files the
 * administrator put there (on the host device, loading one runs its code
 * inside laked). The name is then resolved with openat2 beneath the
 * directory's descriptor, opened once at startup, refusing symlinks, magic
 * links and mount crossings on the way: a link in the directory cannot
 * lead out of it. The driver is then given the path under the directory
 * (dlopen and libcuda take a path; /proc/self/fd/N would not do, since
 * glibc takes a name it has loaded before for the same object, and
 * descriptor numbers are reused). Swapping the file between the check and
 * the load takes write access to the directory, which is already the power
 * to run code in laked; Landlock keeps the load beneath the directory.
 *
 * cuModuleGetFunction answers with the function's parameter layout, read
 * with cuFuncGetParamInfo (DESIGN.md, decision 7), and laked keeps it: a
 * launch's packed parameter buffer must cover it, and is handed to the
 * driver in the `extra` form, which both devices accept.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <unistd.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include "dispatch.h"

#define LOG_STR		128

/* The file to open for the kernel's name, relative to the module directory. */
static CUresult module_file(struct laked *d, struct laked_call *c, char *out, size_t size)
{
	const char *rel = c->req->tail, *p = rel;
	char safe[LOG_STR];
	size_t n;

	if (rel[0] == '/')
		return laked_refuse(c, CUDA_ERROR_FILE_NOT_FOUND, "absolute module path \"%s\"",
				    laked_log_str(safe, sizeof(safe), rel));
	while (*p) {
		n = strcspn(p, "/");
		if (n == 2 && p[0] == '.' && p[1] == '.')
			return laked_refuse(c, CUDA_ERROR_FILE_NOT_FOUND,
					    "module path \"%s\" has a \"..\" component",
					    laked_log_str(safe, sizeof(safe), rel));
		p += n;
		if (*p)
			p++;
	}
	if (d->drv->module_file ? d->drv->module_file(rel, out, size) :
	    (size_t)snprintf(out, size, "%s", rel) >= size)
		return laked_refuse(c, CUDA_ERROR_INVALID_VALUE, "module path too long");
	return CUDA_SUCCESS;
}

/* Is @rel a regular file beneath the module directory, reached without links? */
static bool module_beneath(struct laked *d, struct laked_call *c, const char *rel)
{
	struct open_how how = {
		.flags = O_RDONLY | O_CLOEXEC,
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS |
			   RESOLVE_NO_XDEV,
	};
	char safe[LOG_STR];
	struct stat st;
	int fd;

	fd = (int)syscall(SYS_openat2, d->module_dir_fd, rel, &how, sizeof(how));
	if (fd < 0) {
		laked_refuse(c, CUDA_ERROR_FILE_NOT_FOUND, "module \"%s\" under %s: %s%s",
			     laked_log_str(safe, sizeof(safe), rel), d->module_dir,
			     strerrorname_np(errno),
			     errno == ELOOP ? " (a symlink on the way)" :
			     errno == EXDEV ? " (outside the directory)" :
			     errno == ENOSYS ? " (openat2 blocked: systemd's RestrictSUIDSGID= does that)" :
			     "");
		return false;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		laked_refuse(c, CUDA_ERROR_FILE_NOT_FOUND, "module \"%s\" is not a regular file",
			     laked_log_str(safe, sizeof(safe), rel));
		close(fd);
		return false;
	}
	close(fd);
	return true;
}

CUresult laked_call_module_load(struct laked *d, struct laked_call *c)
{
	char rel[PATH_MAX], path[PATH_MAX], safe[LOG_STR];
	struct laked_obj *o;
	CUmodule mod;
	CUresult r;

	r = module_file(d, c, rel, sizeof(rel));
	if (r)
		return r;
	if ((size_t)snprintf(path, sizeof(path), "%s/%s", d->module_dir, rel) >= sizeof(path))
		return laked_refuse(c, CUDA_ERROR_INVALID_VALUE, "module path too long");
	if (!module_beneath(d, c, rel))
		return CUDA_ERROR_FILE_NOT_FOUND;
	o = laked_obj_new(d);
	if (!o)
		return laked_refuse(c, CUDA_ERROR_OUT_OF_MEMORY, "handle table full");
	r = d->drv->cuModuleLoad(&mod, path);
	if (r) {
		laked_log(LOG_WARNING, "cuModuleLoad(\"%s\"): %s",
			  laked_log_str(safe, sizeof(safe), path), laked_cu_name(r));
		laked_obj_drop(d, o);
		return r;
	}
	c->rep.res.handle.handle = laked_obj_set(d, o, LAKED_MODULE, c->ctx->handle, mod);
	return CUDA_SUCCESS;
}

CUresult laked_call_module_unload(struct laked *d, struct laked_call *c)
{
	u64 handle = c->req->args.handle.handle;
	struct laked_obj *mod = laked_ctx_obj(d, c, handle, LAKED_MODULE), *o;
	u32 cursor = 0;
	CUresult r;

	if (!mod)
		return laked_refuse(c, CUDA_ERROR_INVALID_HANDLE, "module %#llx is not live here",
				    (unsigned long long)handle);
	r = d->drv->cuModuleUnload(mod->drv);
	if (r)
		return r;
	laked_lock(d);
	while ((o = laked_obj_next(&d->handles, &cursor)))
		if (o->type == LAKED_FUNCTION && o->module == handle)
			laked_obj_free(&d->handles, o);
	laked_obj_free(&d->handles, mod);
	laked_unlock(d);
	return CUDA_SUCCESS;
}

/* Ascending, disjoint, non-empty, within the parameter space: what the wire carries. */
static CUresult read_layout(struct laked *d, struct laked_call *c, CUfunction fn,
			    struct laked_layout *l)
{
	size_t off, size;
	CUresult r;
	u32 i;

	for (i = 0; i <= LAKE_WIRE_MAX_PARAMS; i++) {
		r = d->drv->cuFuncGetParamInfo(fn, i, &off, &size);
		if (r == CUDA_ERROR_INVALID_VALUE)
			break;
		if (r)
			return r;
		if (i == LAKE_WIRE_MAX_PARAMS)
			return laked_refuse(c, CUDA_ERROR_NOT_SUPPORTED,
					    "kernel has more than %d parameters",
					    LAKE_WIRE_MAX_PARAMS);
		if (!size || off < l->end || off > LAKE_WIRE_MAX_PARAM_BYTES ||
		    size > LAKE_WIRE_MAX_PARAM_BYTES - off)
			return laked_refuse(c, CUDA_ERROR_NOT_SUPPORTED,
					    "parameter %u at %zu+%zu breaks the layout rules",
					    i, off, size);
		l->param[i].offset = (u32)off;
		l->param[i].size = (u32)size;
		l->end = (u32)(off + size);
	}
	l->count = i;
	return CUDA_SUCCESS;
}

/*
 * The handle already issued for @fn of @mod: CUDA gives one handle per name.
 * Functions of @mod are made and freed only by the thread serving its context.
 */
static struct laked_obj *known_function(struct laked *d, u64 mod, CUfunction fn)
{
	struct laked_obj *o;
	u32 cursor = 0;

	laked_lock(d);
	while ((o = laked_obj_next(&d->handles, &cursor)))
		if (o->type == LAKED_FUNCTION && o->module == mod && o->drv == fn)
			break;
	laked_unlock(d);
	return o;
}

CUresult laked_call_module_get_function(struct laked *d, struct laked_call *c)
{
	struct lake_wire_get_function_res *res = &c->rep.res.get_function;
	u64 handle = c->req->args.handle.handle;
	struct laked_obj *mod, *o, *known;
	struct laked_layout *l;
	CUfunction fn;
	CUresult r;

	mod = laked_ctx_obj(d, c, handle, LAKED_MODULE);
	if (!mod)
		return laked_refuse(c, CUDA_ERROR_INVALID_HANDLE, "module %#llx is not live here",
				    (unsigned long long)handle);
	o = laked_obj_new(d);
	l = calloc(1, sizeof(*l));
	r = CUDA_ERROR_OUT_OF_MEMORY;
	if (!o || !l)
		goto err;
	r = d->drv->cuModuleGetFunction(&fn, mod->drv, c->req->tail);
	if (r)
		goto err;
	known = known_function(d, handle, fn);
	if (known) {
		laked_obj_drop(d, o);
		free(l);
		o = known;
		l = known->layout;
	} else {
		r = read_layout(d, c, fn, l);
		if (r)
			goto err;
		laked_lock(d);
		o->module = handle;
		o->layout = l;
		laked_obj_publish(&d->handles, o, LAKED_FUNCTION, c->ctx->handle, fn);
		laked_unlock(d);
	}
	res->func = o->handle;
	res->count = l->count;
	memcpy(res->param, l->param, sizeof(res->param));
	return CUDA_SUCCESS;

err:
	if (o)
		laked_obj_drop(d, o);
	free(l);
	return r;
}

CUresult laked_call_launch_kernel(struct laked *d, struct laked_call *c)
{
	const struct lake_wire_launch_args *a = &c->req->args.launch;
	struct laked_obj *fn = laked_ctx_obj(d, c, a->func, LAKED_FUNCTION);
	size_t size;
	void *extra[] = {
		CU_LAUNCH_PARAM_BUFFER_POINTER, c->x->params,
		CU_LAUNCH_PARAM_BUFFER_SIZE, &size,
		CU_LAUNCH_PARAM_END,
	};

	if (!fn)
		return laked_refuse(c, CUDA_ERROR_INVALID_HANDLE, "function %#llx is not live here",
				    (unsigned long long)a->func);
	if (c->req->tail_len < fn->layout->end)
		return laked_refuse(c, CUDA_ERROR_INVALID_VALUE,
				    "%u parameter bytes, the function's layout needs %u",
				    c->req->tail_len, fn->layout->end);
	size = fn->layout->end;
	if (size)
		memcpy(c->x->params, c->req->tail, size);
	return d->drv->cuLaunchKernel(fn->drv, a->grid[0], a->grid[1], a->grid[2],
				      a->block[0], a->block[1], a->block[2],
				      a->shared_mem_bytes, c->cu_stream, NULL, extra);
}
