// SPDX-License-Identifier: GPL-2.0
/*
 * examples/sysmon's classes, features, reference file and CPU scoring.
 *
 * The classes (x86_64 numbers; ref.h): one per kind of work a program
 * does, so that a window's mix says what the program is doing:
 *
 *	 0 other		 1 read, pread, readv	 2 write, pwrite, writev
 *	 3 open, openat, creat	 4 close		 5 stat, fstat, statx
 *	 6 poll, select, epoll	 7 lseek		 8 mmap
 *	 9 mprotect		10 munmap, mremap	11 brk
 *	12 signal handling	13 ioctl		14 access
 *	15 pipe, dup		16 fcntl, flock		17 getdents
 *	18 cwd, chdir		19 rename		20 unlink, rmdir
 *	21 mkdir, mknod		22 link, symlink, readlink
 *	23 chmod, chown, utimes	24 truncate, fallocate	25 fsync, sync
 *	26 sendfile, splice	27 socket		28 connect
 *	29 bind, listen, accept	30 send*		31 recv*
 *	32 socket options	33 clone, fork		34 execve
 *	35 exit			36 wait			37 kill, tgkill
 *	38 uname, rlimits	39 getpid, getuid, ...	40 setuid, prctl, rseq, ...
 *	41 futex		42 sleeps, timers	43 clocks
 *	44 eventfd, timerfd, signalfd, inotify		45 mount, chroot, namespaces
 *	46 getrandom		47 madvise, mincore, msync, mlock
 *
 * The reference file (little-endian; train.py writes it):
 *
 *	offset	size	field
 *	0	4	magic "SMKN"
 *	4	2	version, 1
 *	6	2	dims: 64
 *	8	4	count: windows, 1..8192
 *	12	4	k: neighbours, 1..16 and below count
 *	16	4	threshold: a score above it is an anomaly, 1..12288
 *	20	4	feature encoding: 1 (ref.h)
 *	24	4	reserved, zero
 *	28	4	CRC-32 (zlib's) of bytes 0..27 and the payload
 *	32	...	payload: count windows of 64 u16 features, each <= 4096
 *
 * A file is taken whole or refused: the length must be exactly header +
 * payload (checked before the count is trusted for anything).
 */
#include <lake/filefmt.h>
#include "ref.h"

#define HDR_CRC		28

static const u8 magic[4] = { 'S', 'M', 'K', 'N' };

static const u8 class_of[SYSMON_NR_MAX] = {
	[0] = 1, [17] = 1, [19] = 1, [295] = 1, [327] = 1,
	[1] = 2, [18] = 2, [20] = 2, [296] = 2, [328] = 2,
	[2] = 3, [257] = 3, [437] = 3, [85] = 3,
	[3] = 4, [436] = 4,
	[4] = 5, [5] = 5, [6] = 5, [262] = 5, [332] = 5, [137] = 5, [138] = 5,
	[7] = 6, [23] = 6, [270] = 6, [271] = 6, [232] = 6, [281] = 6, [441] = 6,
	[233] = 6, [213] = 6, [291] = 6,
	[8] = 7,
	[9] = 8,
	[10] = 9,
	[11] = 10, [25] = 10,
	[12] = 11,
	[13] = 12, [14] = 12, [15] = 12, [127] = 12, [128] = 12, [130] = 12, [131] = 12,
	[16] = 13,
	[21] = 14, [269] = 14, [439] = 14,
	[22] = 15, [293] = 15, [32] = 15, [33] = 15, [292] = 15,
	[72] = 16, [73] = 16,
	[78] = 17, [217] = 17,
	[79] = 18, [80] = 18, [81] = 18,
	[82] = 19, [264] = 19, [316] = 19,
	[84] = 20, [87] = 20, [263] = 20,
	[83] = 21, [258] = 21, [133] = 21, [259] = 21,
	[86] = 22, [88] = 22, [89] = 22, [265] = 22, [266] = 22, [267] = 22,
	[90] = 23, [91] = 23, [92] = 23, [93] = 23, [94] = 23, [132] = 23, [235] = 23,
	[260] = 23, [261] = 23, [268] = 23, [280] = 23, [452] = 23,
	[76] = 24, [77] = 24, [285] = 24,
	[74] = 25, [75] = 25, [162] = 25, [277] = 25, [306] = 25,
	[40] = 26, [275] = 26, [276] = 26, [326] = 26,
	[41] = 27, [53] = 27,
	[42] = 28,
	[43] = 29, [49] = 29, [50] = 29, [288] = 29,
	[44] = 30, [46] = 30, [307] = 30,
	[45] = 31, [47] = 31, [299] = 31,
	[48] = 32, [51] = 32, [52] = 32, [54] = 32, [55] = 32,
	[56] = 33, [57] = 33, [58] = 33, [435] = 33,
	[59] = 34, [322] = 34,
	[60] = 35, [231] = 35,
	[61] = 36, [247] = 36,
	[62] = 37, [200] = 37, [234] = 37, [129] = 37, [424] = 37,
	[63] = 38, [97] = 38, [98] = 38, [99] = 38, [100] = 38, [160] = 38, [302] = 38,
	[39] = 39, [102] = 39, [104] = 39, [107] = 39, [108] = 39, [110] = 39, [111] = 39,
	[115] = 39, [118] = 39, [120] = 39, [121] = 39, [124] = 39, [186] = 39,
	[105] = 40, [106] = 40, [109] = 40, [112] = 40, [113] = 40, [114] = 40, [116] = 40,
	[117] = 40, [119] = 40, [125] = 40, [126] = 40, [157] = 40, [158] = 40, [218] = 40,
	[273] = 40, [334] = 40,
	[202] = 41, [449] = 41,
	[24] = 42, [34] = 42, [35] = 42, [36] = 42, [37] = 42, [38] = 42, [230] = 42,
	[96] = 43, [201] = 43, [228] = 43, [229] = 43,
	[282] = 44, [283] = 44, [284] = 44, [286] = 44, [287] = 44, [289] = 44, [290] = 44,
	[253] = 44, [254] = 44, [255] = 44, [294] = 44,
	[155] = 45, [161] = 45, [165] = 45, [166] = 45, [272] = 45, [308] = 45,
	[318] = 46,
	[26] = 47, [27] = 47, [28] = 47, [149] = 47, [150] = 47, [151] = 47, [152] = 47,
	[324] = 47,
};

u32 sysmon_class(long nr)
{
	return nr >= 0 && nr < SYSMON_NR_MAX ? class_of[nr] : 0;
}

static void group_features(const u32 *c, u16 *f, u32 n)
{
	u64 total = 0;
	u32 i;

	for (i = 0; i < n; i++)
		total += c[i];
	for (i = 0; i < n; i++)
		f[i] = total ? (u16)sysmon_isqrt(((u64)c[i] << SYSMON_FEAT_SHIFT) / total) : 0;
}

void sysmon_features(const u32 counts[SYSMON_DIMS], u16 feat[SYSMON_DIMS])
{
	group_features(counts, feat, SYSMON_UNI);
	group_features(counts + SYSMON_UNI, feat + SYSMON_UNI, SYSMON_BI);
}

static void put_le16(u8 *p, u32 v)
{
	p[0] = v;
	p[1] = v >> 8;
}

static void put_le32(u8 *p, u32 v)
{
	put_le16(p, v);
	put_le16(p + 2, v >> 16);
}

static u32 file_crc(const u8 *p, size_t len)
{
	u32 crc = lake_crc32(~0u, p, HDR_CRC);

	return ~lake_crc32(crc, p + SYSMON_REF_HDR, len - SYSMON_REF_HDR);
}

static const char *check_header(const u8 *p, size_t len, u32 *count)
{
	u32 k, thr;

	if (len < SYSMON_REF_HDR)
		return "truncated header";
	if (memcmp(p, magic, sizeof(magic)))
		return "bad magic (not a sysmon reference)";
	if (lake_get_le16(p + 4) != SYSMON_REF_VERSION)
		return "unsupported version";
	if (lake_get_le16(p + 6) != SYSMON_DIMS)
		return "dims mismatch (this module scores 64 features)";
	*count = lake_get_le32(p + 8);
	if (*count == 0 || *count > SYSMON_REF_MAX)
		return "count out of range (1..8192)";
	if (len != SYSMON_REF_HDR + (size_t)*count * SYSMON_DIMS * 2)
		return len < SYSMON_REF_HDR + (size_t)*count * SYSMON_DIMS * 2 ?
			"truncated payload" : "trailing bytes";
	k = lake_get_le32(p + 12);
	if (k == 0 || k > SYSMON_K_MAX || k >= *count)
		return "k out of range (1..16, below count)";
	thr = lake_get_le32(p + 16);
	if (thr == 0 || thr > SYSMON_SCORE_MAX)
		return "threshold out of range";
	if (lake_get_le32(p + 20) != SYSMON_FEATURES_ID)
		return "feature encoding mismatch";
	if (lake_get_le32(p + 24))
		return "reserved field not zero";
	if (lake_get_le32(p + HDR_CRC) != file_crc(p, len))
		return "bad checksum";
	return NULL;
}

int sysmon_ref_parse(const void *buf, size_t len, struct sysmon_ref **out,
		     const char **why)
{
	const u8 *p = buf;
	struct sysmon_ref *ref;
	u32 count = 0;
	size_t i, n;

	*out = NULL;
	*why = check_header(p, len, &count);
	if (*why)
		return -EINVAL;
	n = (size_t)count * SYSMON_DIMS;
	for (i = 0; i < n; i++) {
		if (lake_get_le16(p + SYSMON_REF_HDR + 2 * i) > SYSMON_FEAT_MAX) {
			*why = "feature out of range (0..4096)";
			return -EINVAL;
		}
	}
	ref = lake_port_malloc(sizeof(*ref));
	if (!ref) {
		*why = "out of memory";
		return -ENOMEM;
	}
	ref->rows = lake_port_kvzalloc(n * sizeof(u16));
	if (!ref->rows) {
		lake_port_free(ref);
		*why = "out of memory";
		return -ENOMEM;
	}
	ref->count = count;
	ref->k = lake_get_le32(p + 12);
	ref->threshold = lake_get_le32(p + 16);
	for (i = 0; i < n; i++)
		ref->rows[i] = lake_get_le16(p + SYSMON_REF_HDR + 2 * i);
	*out = ref;
	return 0;
}

void sysmon_ref_free(struct sysmon_ref *ref)
{
	if (!ref)
		return;
	lake_port_kvfree(ref->rows);
	lake_port_free(ref);
}

size_t sysmon_ref_write(const struct sysmon_ref *ref, void *buf, size_t cap)
{
	size_t n = (size_t)ref->count * SYSMON_DIMS, len = SYSMON_REF_HDR + 2 * n, i;
	u8 *p = buf;

	if (!p || cap < len)
		return len;
	memset(p, 0, SYSMON_REF_HDR);
	memcpy(p, magic, sizeof(magic));
	put_le16(p + 4, SYSMON_REF_VERSION);
	put_le16(p + 6, SYSMON_DIMS);
	put_le32(p + 8, ref->count);
	put_le32(p + 12, ref->k);
	put_le32(p + 16, ref->threshold);
	put_le32(p + 20, SYSMON_FEATURES_ID);
	for (i = 0; i < n; i++)
		put_le16(p + SYSMON_REF_HDR + 2 * i, ref->rows[i]);
	put_le32(p + HDR_CRC, file_crc(p, len));
	return len;
}

u32 sysmon_score_one(const struct sysmon_ref *ref, const u16 *feat, u32 *d2)
{
	u32 r;

	for (r = 0; r < ref->count; r++)
		d2[r] = sysmon_dist2(feat, ref->rows + (size_t)r * SYSMON_DIMS);
	return sysmon_score_row(d2, ref->count, ref->k);
}

void sysmon_score_batch(const struct sysmon_ref *ref, const u16 *feat, u32 nq,
			u32 *d2, u32 *score)
{
	u32 v;

	for (v = 0; v < nq; v++)
		score[v] = sysmon_score_one(ref, feat + (size_t)v * SYSMON_DIMS, d2);
}
