/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which SIMD paths this CPU runs, and the section they must run in: in the
 * kernel, boot_cpu_has() plus the OS's xsave support, and
 * kernel_fpu_begin/end() (refused where irq_fpu_usable() says no, and the
 * caller takes the scalar path); on the host, __builtin_cpu_supports().
 * The SIMD objects are built for x86-64 only (Kbuild, linnos.mk).
 */
#ifndef LINNOS_FPU_H
#define LINNOS_FPU_H

#include <lake/port.h>

#ifdef __KERNEL__
#ifdef CONFIG_X86_64
#include <asm/cpufeature.h>
#include <asm/fpu/api.h>
#define LINNOS_X86_SIMD	1

static inline bool linnos_cpu_avx2(void)
{
	return boot_cpu_has(X86_FEATURE_AVX2) &&
	       cpu_has_xfeatures(XFEATURE_MASK_SSE | XFEATURE_MASK_YMM, NULL);
}

static inline bool linnos_cpu_avx512(void)
{
	return linnos_cpu_avx2() && boot_cpu_has(X86_FEATURE_AVX512F) &&
	       cpu_has_xfeatures(XFEATURE_MASK_SSE | XFEATURE_MASK_YMM |
				 XFEATURE_MASK_AVX512, NULL);
}

static inline bool linnos_fpu_begin(void)
{
	if (!irq_fpu_usable())
		return false;
	kernel_fpu_begin();
	return true;
}

static inline void linnos_fpu_end(void)
{
	kernel_fpu_end();
}
#endif /* CONFIG_X86_64 */

#else /* host */
#if defined(__x86_64__)
#define LINNOS_X86_SIMD	1

static inline bool linnos_cpu_avx2(void)
{
	return __builtin_cpu_supports("avx2");
}

static inline bool linnos_cpu_avx512(void)
{
	return linnos_cpu_avx2() && __builtin_cpu_supports("avx512f");
}

static inline bool linnos_fpu_begin(void)
{
	return true;
}

static inline void linnos_fpu_end(void)
{
}
#endif /* __x86_64__ */
#endif /* __KERNEL__ */

#endif /* LINNOS_FPU_H */
