/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the examples' run-time files share (LinnOS's and readahead's
 * weights, sysmon's reference): little-endian fields and zlib's CRC-32
 * (reflected, polynomial 0xedb88320; start with ~0 and invert at the end).
 * Needs only lake/port.h, so a module and its host test parse with the
 * same code; a file is loaded once, so the CRC goes bit by bit.
 */
#ifndef LAKE_FILEFMT_H
#define LAKE_FILEFMT_H

#include <lake/port.h>

static inline u32 lake_get_le16(const u8 *p)
{
	return p[0] | (u32)p[1] << 8;
}

static inline u32 lake_get_le32(const u8 *p)
{
	return p[0] | (u32)p[1] << 8 | (u32)p[2] << 16 | (u32)p[3] << 24;
}

static inline u32 lake_crc32(u32 crc, const u8 *p, size_t len)
{
	u32 k;

	while (len--) {
		crc ^= *p++;
		for (k = 0; k < 8; k++)
			crc = crc & 1 ? 0xedb88320u ^ (crc >> 1) : crc >> 1;
	}
	return crc;
}

#endif /* LAKE_FILEFMT_H */
