/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * A kernel's parameter layout as its caller declares it, for lakelib to hold
 * laked's report against (lake_module_get_function() in lake/lakelib.h).
 * LAKE_KERNEL_SIG builds one from the same (type, name) list as the
 * kernel's LAKE_KERNEL (lake/kernel.h), so the module and the kernel source
 * cannot disagree. Plain C and the preprocessor: included by kernel
 * modules, laked, tests and, through lake/kernel.h, by nvcc and cc.
 */
#ifndef LAKE_KERNEL_SIG_H
#define LAKE_KERNEL_SIG_H

#define LAKE_KERNEL_MAX_PARAMS		16

struct lake_kernel_sig_param {
	unsigned int offset;		/* in the packed parameter buffer */
	unsigned int size;
};

struct lake_kernel_sig {
	const char *name;		/* the kernel's (extern "C") name */
	unsigned int count;		/* 1..LAKE_KERNEL_MAX_PARAMS */
	struct lake_kernel_sig_param param[LAKE_KERNEL_MAX_PARAMS];
};

/* Parameter lists: MAP applies m(ctx, index, (type, name)) to each pair. */
#define LAKE__CAT_(a, b)	a##b
#define LAKE__CAT(a, b)		LAKE__CAT_(a, b)
#define LAKE__NARGS(...)	LAKE__NARGS_(__VA_ARGS__, 16, 15, 14, 13, 12, 11, 10, \
					     9, 8, 7, 6, 5, 4, 3, 2, 1, 0)
#define LAKE__NARGS_(_1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13, \
		     _14, _15, _16, n, ...) n
#define LAKE__MAP(m, sep, x, ...) \
	LAKE__CAT(LAKE__M, LAKE__NARGS(__VA_ARGS__))(m, sep, x, 0, __VA_ARGS__)
#define LAKE__M1(m, s, x, i, p)		m(x, i, p)
#define LAKE__M2(m, s, x, i, p, ...)	m(x, i, p) s() LAKE__M1(m, s, x, i + 1, __VA_ARGS__)
#define LAKE__M3(m, s, x, i, p, ...)	m(x, i, p) s() LAKE__M2(m, s, x, i + 1, __VA_ARGS__)
#define LAKE__M4(m, s, x, i, p, ...)	m(x, i, p) s() LAKE__M3(m, s, x, i + 1, __VA_ARGS__)
#define LAKE__M5(m, s, x, i, p, ...)	m(x, i, p) s() LAKE__M4(m, s, x, i + 1, __VA_ARGS__)
#define LAKE__M6(m, s, x, i, p, ...)	m(x, i, p) s() LAKE__M5(m, s, x, i + 1, __VA_ARGS__)
#define LAKE__M7(m, s, x, i, p, ...)	m(x, i, p) s() LAKE__M6(m, s, x, i + 1, __VA_ARGS__)
#define LAKE__M8(m, s, x, i, p, ...)	m(x, i, p) s() LAKE__M7(m, s, x, i + 1, __VA_ARGS__)
#define LAKE__M9(m, s, x, i, p, ...)	m(x, i, p) s() LAKE__M8(m, s, x, i + 1, __VA_ARGS__)
#define LAKE__M10(m, s, x, i, p, ...)	m(x, i, p) s() LAKE__M9(m, s, x, i + 1, __VA_ARGS__)
#define LAKE__M11(m, s, x, i, p, ...)	m(x, i, p) s() LAKE__M10(m, s, x, i + 1, __VA_ARGS__)
#define LAKE__M12(m, s, x, i, p, ...)	m(x, i, p) s() LAKE__M11(m, s, x, i + 1, __VA_ARGS__)
#define LAKE__M13(m, s, x, i, p, ...)	m(x, i, p) s() LAKE__M12(m, s, x, i + 1, __VA_ARGS__)
#define LAKE__M14(m, s, x, i, p, ...)	m(x, i, p) s() LAKE__M13(m, s, x, i + 1, __VA_ARGS__)
#define LAKE__M15(m, s, x, i, p, ...)	m(x, i, p) s() LAKE__M14(m, s, x, i + 1, __VA_ARGS__)
#define LAKE__M16(m, s, x, i, p, ...)	m(x, i, p) s() LAKE__M15(m, s, x, i + 1, __VA_ARGS__)
#define LAKE__COMMA()			,
#define LAKE__NOSEP()

#define LAKE__TYPE_(t, n)		t
#define LAKE__NAME_(t, n)		n
#define LAKE__DECL(x, i, p)		LAKE__TYPE_ p LAKE__NAME_ p
#define LAKE__MEMBER(x, i, p)		LAKE__DECL(x, i, p);

/*
 * The layout struct gives each parameter its natural alignment, which is
 * how CUDA packs a kernel's parameter buffer.
 */
#define LAKE__SIG_PARAM(x, i, p) \
	{ __builtin_offsetof(struct lake__sig_##x, LAKE__NAME_ p), \
	  sizeof(((struct lake__sig_##x *)0)->LAKE__NAME_ p) }
#define LAKE_KERNEL_SIG(fn, ...)							\
struct lake__sig_##fn {									\
	LAKE__MAP(LAKE__MEMBER, LAKE__NOSEP, _, __VA_ARGS__)				\
};											\
static const struct lake_kernel_sig lake_sig_##fn = {					\
	#fn, LAKE__NARGS(__VA_ARGS__),							\
	{ LAKE__MAP(LAKE__SIG_PARAM, LAKE__COMMA, fn, __VA_ARGS__) }			\
}

#endif /* LAKE_KERNEL_SIG_H */
