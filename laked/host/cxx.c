// SPDX-License-Identifier: GPL-2.0
/*
 * C++ kernels (lake/cuda_host.h): found by their mangled name, called
 * through libffi. A module built from CUDA C++ exports each __global__
 * function under its Itanium-mangled name, as nvcc names it in a cubin, and
 * that name encodes the parameter types. The C++ runtime's demangler
 * (__cxa_demangle, which resolves substitutions such as S_ and S0_ and
 * template arguments) spells them out, and each type we know has a size,
 * an alignment and a libffi type. The parameters are packed with natural
 * alignment, as nvcc lays out a kernel's parameter buffer: that layout is
 * what cuFuncGetParamInfo reports and what a launch's arguments arrive in.
 * A launch runs each block on fibers (fiber.c) and each CUDA thread is one
 * ffi_call of the kernel, its arguments read in place from the buffer.
 *
 * Known types: pointers of any kind (to const, to pointer, to function),
 * bool, char, signed and unsigned char, short, int, long, long long and
 * their unsigned forms, float, double. Anything else (a struct or class by
 * value, a reference, an enum, a member pointer, long double, varargs) is
 * CUDA_ERROR_NOT_SUPPORTED with a log line: its bytes have no place we
 * could tell. Only functions defined in the module itself are kernels, not
 * those of the libraries it links (libstdc++ has mangled names too).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <limits.h>
#include <link.h>
#include <ffi.h>
#include "host.h"

/* libstdc++'s, declared by <cxxabi.h> for C++ only. */
char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

struct cxx_kernel {
	struct hd_kernel k;
	void *fn;
	struct lake_cxx_thread **(*slot)(void);
	ffi_cif cif;
	ffi_type *types[LAKE_KERNEL_MAX_PARAMS];
	struct lake_kernel_param params[LAKE_KERNEL_MAX_PARAMS];
	char *pretty;		/* demangled, for log lines */
	char name[];
};

struct cxx_type {
	const char *name;	/* as __cxa_demangle writes it */
	size_t size, align;
	ffi_type *ffi;
};

#define SCALAR(name, type, ffi)	{ name, sizeof(type), _Alignof(type), &ffi }

static const struct cxx_type scalars[] = {
	SCALAR("bool", _Bool, ffi_type_uchar),
	{ "char", 1, 1, CHAR_MIN < 0 ? &ffi_type_schar : &ffi_type_uchar },
	SCALAR("signed char", signed char, ffi_type_schar),
	SCALAR("unsigned char", unsigned char, ffi_type_uchar),
	SCALAR("short", short, ffi_type_sshort),
	SCALAR("unsigned short", unsigned short, ffi_type_ushort),
	SCALAR("int", int, ffi_type_sint),
	SCALAR("unsigned int", unsigned int, ffi_type_uint),
	SCALAR("long", long, ffi_type_slong),
	SCALAR("unsigned long", unsigned long, ffi_type_ulong),
	SCALAR("long long", long long, ffi_type_sint64),
	SCALAR("unsigned long long", unsigned long long, ffi_type_uint64),
	SCALAR("float", float, ffi_type_float),
	SCALAR("double", double, ffi_type_double),
};

static const struct cxx_type pointer = SCALAR("pointer", void *, ffi_type_pointer);

_Static_assert(sizeof(long long) == 8, "ffi_type_sint64 is long long");

/* Is @sym a function that @dl itself defines? (ST_TYPE is one for ELF32 and ELF64.) */
static bool own_function(void *dl, const void *sym)
{
	struct link_map *own, *map;
	const ElfW(Sym) *es;
	Dl_info info;

	if (!sym || dlinfo(dl, RTLD_DI_LINKMAP, &own) ||
	    !dladdr1(sym, &info, (void **)&map, RTLD_DL_LINKMAP) || map != own)
		return false;
	return dladdr1(sym, &info, (void **)&es, RTLD_DL_SYMENT) && es &&
	       info.dli_saddr == sym && ELF64_ST_TYPE(es->st_info) == STT_FUNC;
}

static bool opens(char c)
{
	return c == '(' || c == '<' || c == '[';
}

static bool closes(char c)
{
	return c == ')' || c == '>' || c == ']';
}

/*
 * "T*", "T const*", "T**", "void (*)(int)", "int (*) [4]": a pointer;
 * "T foo::*" and "void (foo::*)()" are member pointers, which are not.
 */
static bool is_pointer(const char *t, size_t len)
{
	int depth = 0;
	size_t i;

	if (memmem(t, len, "::*", 3))
		return false;
	if (t[len - 1] == '*')
		return true;
	for (i = 0; i + 1 < len; i++) {
		if (!depth && t[i] == '(' && t[i + 1] == '*')
			return true;
		depth += opens(t[i]) - closes(t[i]);
	}
	return false;
}

static const struct cxx_type *param_type(const char *t, size_t len)
{
	size_t i;

	if (!len)
		return NULL;
	if (is_pointer(t, len))
		return &pointer;
	for (i = 0; i < sizeof(scalars) / sizeof(scalars[0]); i++)
		if (strlen(scalars[i].name) == len && !memcmp(scalars[i].name, t, len))
			return &scalars[i];
	return NULL;
}

/*
 * The parameter list of a demangled function, "f(long*, long*, int)" or
 * "void f<float>(float*, float)": within its last, outermost parentheses.
 */
static const char *param_list(const char *s, size_t *len)
{
	size_t n = strlen(s), i;
	int depth = 0;

	if (!n || s[n - 1] != ')')
		return NULL;
	for (i = n; i-- > 0;) {
		depth += closes(s[i]) - opens(s[i]);
		if (!depth) {
			*len = n - 2 - i;
			return s + i + 1;
		}
	}
	return NULL;
}

/* Lay out @k's parameters from its demangled name; 0 or -1 (logged). */
static int layout(struct cxx_kernel *k)
{
	const struct cxx_type *type;
	const char *p, *q, *end;
	size_t len, off = 0;
	unsigned int n = 0;
	int depth = 0;

	p = param_list(k->pretty, &len);
	if (!p) {
		hd_warn("kernel %s: not a function's name", k->pretty);
		return -1;
	}
	for (end = p + len; p < end; p = q < end ? q + 2 : end) {	/* ", " apart */
		/* One parameter: up to a comma outside any brackets. */
		for (q = p; q < end && (depth || *q != ','); q++)
			depth += opens(*q) - closes(*q);
		type = param_type(p, (size_t)(q - p));
		if (!type || n == LAKE_KERNEL_MAX_PARAMS) {
			hd_warn("kernel %s: parameter %u (%.*s) is not supported: the host device calls kernels of at most %d parameters of pointer, bool, char, short, int, long, long long (signed or unsigned), float or double type",
				k->pretty, n + 1, (int)(q - p), p, LAKE_KERNEL_MAX_PARAMS);
			return -1;
		}
		off = LAKE_ALIGN_UP(off, type->align);
		k->params[n] = (struct lake_kernel_param){ off, type->size };
		k->types[n++] = type->ffi;
		off += type->size;
	}
	k->k.nparams = n;
	k->k.arg_bytes = off;
	return 0;
}

struct cxx_call {
	struct cxx_kernel *k;
	void **args;
};

static void call_thread(void *arg)
{
	struct cxx_call *c = arg;

	ffi_call(&c->k->cif, FFI_FN(c->k->fn), NULL, c->args);
}

static int run_block(const struct hd_kernel *hk, const struct lake_kernel_launch *l, void **args)
{
	struct cxx_kernel *k = container_of(hk, struct cxx_kernel, k);
	struct cxx_call c = { k, args };

	return hd_fiber_block(k->pretty, l, k->slot(), call_thread, &c);
}

void hd_cxx_kernel_free(struct hd_kernel *hk)
{
	struct cxx_kernel *k = container_of(hk, struct cxx_kernel, k);

	free(k->pretty);
	free(k);
}

CUresult hd_cxx_kernel(void *dl, const char *name, struct hd_kernel **out)
{
	void *fn = dlsym(dl, name), *slot;
	struct cxx_kernel *k;
	int status;

	if (!own_function(dl, fn))
		return CUDA_ERROR_NOT_FOUND;
	if (strncmp(name, "_Z", 2)) {
		hd_warn("kernel %s is extern \"C\": its parameters are unknown; give it C++ linkage",
			name);
		return CUDA_ERROR_NOT_FOUND;
	}
	slot = dlsym(dl, LAKE_CXX_SLOT_SYMBOL);
	if (!own_function(dl, slot)) {
		hd_warn("kernel %s: the module was not built with -include lake/cuda_host.h",
			name);
		return CUDA_ERROR_INVALID_IMAGE;
	}
	k = calloc(1, sizeof(*k) + strlen(name) + 1);
	if (!k)
		return CUDA_ERROR_OUT_OF_MEMORY;
	strcpy(k->name, name);
	k->pretty = __cxa_demangle(name, NULL, NULL, &status);
	if (!k->pretty) {
		free(k);
		if (status == -1)
			return CUDA_ERROR_OUT_OF_MEMORY;
		hd_warn("kernel %s: not a name the C++ runtime can demangle", name);
		return CUDA_ERROR_NOT_SUPPORTED;
	}
	if (layout(k) || ffi_prep_cif(&k->cif, FFI_DEFAULT_ABI, k->k.nparams, &ffi_type_void,
				      k->types) != FFI_OK) {
		hd_cxx_kernel_free(&k->k);
		return CUDA_ERROR_NOT_SUPPORTED;
	}
	k->fn = fn;
	k->slot = (struct lake_cxx_thread **(*)(void))slot;
	k->k.name = k->name;
	k->k.params = k->params;
	k->k.run_block = run_block;
	*out = &k->k;
	return CUDA_SUCCESS;
}
