/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Inside lake_example_xts: what xts_lake.c and gcm_lake.c (the drivers) and
 * bench.c (their debugfs bench and compare commands) share.
 */
#ifndef LAKE_EXAMPLE_XTS_LAKE_H
#define LAKE_EXAMPLE_XTS_LAKE_H

#include <linux/types.h>

#define DRIVER_NAME	"xts-aes-lake"

/*
 * COUNT requests of SIZE bytes, all in flight, through lake's driver or the
 * kernel's best other xts(aes): timed (bench), or the same bytes through
 * both, which must agree (compare). The result line goes to @out. Process
 * context; 0 or -errno.
 */
int xts_bench(unsigned int size, unsigned int count, bool lake, char *out, size_t outlen);
int xts_compare(unsigned int size, unsigned int count, char *out, size_t outlen);
/* The same timing for gcm(aes) (gcm-aes-lake or the CPU's), 16 bytes of AAD. */
int gcm_bench(unsigned int size, unsigned int count, bool lake, char *out, size_t outlen);

#endif
