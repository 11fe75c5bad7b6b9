// SPDX-License-Identifier: GPL-2.0
/*
 * shm_test: the user-space half of the lakeshm VM tests (run as root in the
 * guest, with lakeshm and lake_shm_selftest loaded).
 *   shm_test all     mapping, sharing in both directions, bounds, permissions
 *   shm_test rmmod   lakeshm must refuse to unload while mapped (selftest
 *                    module already removed), and unload once unmapped
 */
#define _GNU_SOURCE
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <uapi/lake/shm.h>
#include "vmtest.h"

#define CTL	"/sys/kernel/debug/lake/shm_selftest"
#define STATS	"/sys/kernel/debug/lake/shm_stats"
#define REFCNT	"/sys/module/lakeshm/refcnt"
#define DEV	"/dev/" LAKE_SHM_DEVICE

static unsigned char pattern(unsigned long long seed, size_t i)
{
	return (unsigned char)(seed * 131 + i * 31 + (i >> 8));
}

/* Send one command to the selftest module and return its answer. */
static long long ctl(const char *fmt, ...)
{
	char cmd[128], ans[64];
	va_list ap;
	int fd;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	fd = open(CTL, O_WRONLY);
	if (fd < 0 || write(fd, cmd, strlen(cmd)) < 0) {
		if (fd >= 0)
			close(fd);
		return -10000 - errno;
	}
	close(fd);
	if (vmt_read_file(CTL, ans, sizeof(ans)))
		return -20000;
	return atoll(ans);
}

static void test_sharing(void)
{
	struct lake_shm_info info = { 0 };
	long long off, off2, live0, ref0, ref1;
	unsigned char *map;
	size_t i;
	int fd, bad;

	fd = open(DEV, O_RDWR);
	CHECK(fd >= 0, "shm.open_root", "open %s: %s", DEV, strerror(errno));
	if (fd < 0)
		return;
	CHECK(ioctl(fd, LAKE_SHM_IOC_INFO, &info) == 0 && info.version == LAKE_SHM_VERSION &&
	      info.size == 16ULL << 20 && info.page_size == 4096,
	      "shm.ioctl_info", "size %llu version %u", (unsigned long long)info.size, info.version);
	CHECK(ioctl(fd, _IO('L', 0x7f)) < 0 && errno == ENOTTY, "shm.ioctl_unknown", "errno %d", errno);

	map = mmap(NULL, info.size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	CHECK(map != MAP_FAILED, "shm.mmap_whole_region", "%s", strerror(errno));
	if (map == MAP_FAILED)
		goto out;
	CHECK(vmt_file_key(STATS, "mappings") == 1, "shm.stats_mappings", "%lld",
	      vmt_file_key(STATS, "mappings"));

	live0 = vmt_file_key(STATS, "live_allocs");
	ref0 = vmt_file_int(REFCNT);
	off = ctl("alloc 4096 0 7");
	CHECK(off >= 0 && off % 64 == 0 && off + 4096 <= (long long)info.size,
	      "shm.kernel_alloc", "answer %lld", off);
	if (off < 0)
		goto unmap;
	ref1 = vmt_file_int(REFCNT);
	CHECK(vmt_file_key(STATS, "live_allocs") == live0 + 1, "shm.stats_live_allocs", "");
	CHECK(ref1 == ref0 + 1, "shm.allocation_pins_module", "refcnt %lld -> %lld", ref0, ref1);

	for (bad = 0, i = 0; i < 4096; i++)
		bad += map[off + i] != pattern(7, i);
	CHECK(!bad, "shm.user_reads_kernel_pattern", "%d bytes differ at offset %lld", bad, off);

	for (i = 0; i < 4096; i++)
		map[off + i] = pattern(9, i);
	CHECK(ctl("verify %lld 4096 9", off) == 0, "shm.kernel_reads_user_write", "");
	CHECK(ctl("verify %lld 4096 7", off) == -EBADMSG, "shm.kernel_sees_change", "");

	CHECK(ctl("verify %llu 1 9", (unsigned long long)info.size) == -EINVAL,
	      "shm.offset_past_region_rejected", "");
	CHECK(ctl("verify %lld 4097 9", off) == -EINVAL, "shm.length_past_allocation_rejected", "");
	CHECK(ctl("verify %lld 1 9", off + 8192) == -EINVAL, "shm.offset_in_free_space_rejected", "");
	CHECK(ctl("verify 18446744073709551615 2 9") == -EINVAL, "shm.offset_wrapping_rejected", "");

	off2 = ctl("alloc 100 4096 3");
	CHECK(off2 >= 0 && off2 % 4096 == 0, "shm.kernel_alloc_page_aligned", "answer %lld", off2);
	CHECK(ctl("free %lld", off2) == 0 && ctl("free %lld", off) == 0, "shm.kernel_free", "");
	CHECK(vmt_file_int(REFCNT) == ref0, "shm.free_unpins_module", "");
	CHECK(ctl("verify %lld 1 9", off) == -EINVAL, "shm.freed_offset_rejected", "");
unmap:
	munmap(map, info.size);
out:
	close(fd);
}

static void test_mmap_rules(void)
{
	int fd = open(DEV, O_RDWR);
	size_t size = 16 << 20;
	void *m;

	if (fd < 0) {
		CHECK(0, "shm.mmap_rules", "open: %s", strerror(errno));
		return;
	}
	m = mmap(NULL, size + 4096, PROT_READ, MAP_SHARED, fd, 0);
	CHECK(m == MAP_FAILED, "shm.mmap_too_long_refused", "");
	m = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, size);
	CHECK(m == MAP_FAILED, "shm.mmap_offset_past_end_refused", "");
	m = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	CHECK(m == MAP_FAILED, "shm.mmap_private_refused", "");
	m = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_SHARED, fd, 0);
	CHECK(m == MAP_FAILED, "shm.mmap_exec_refused", "");
	m = mmap(NULL, 8192, PROT_READ, MAP_SHARED, fd, 4096);
	CHECK(m != MAP_FAILED, "shm.mmap_partial_ok", "%s", strerror(errno));
	if (m != MAP_FAILED) {
		CHECK(mprotect(m, 4096, PROT_READ | PROT_EXEC) != 0, "shm.mprotect_exec_refused", "");
		munmap(m, 8192);
	}
	close(fd);
}

static void test_non_root(void)
{
	int status = 0;
	pid_t pid = fork();

	if (pid == 0) {
		if (setgid(65534) || setuid(65534))
			_exit(2);
		_exit(open(DEV, O_RDWR) < 0 && (errno == EACCES || errno == EPERM) ? 0 : 1);
	}
	waitpid(pid, &status, 0);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "shm.open_non_root_refused",
	      "child status %#x", status);
}

static void test_kernel_selftest(void)
{
	char buf[2048];
	int fd = open(CTL, O_WRONLY);

	if (fd < 0 || write(fd, "selftest", 8) != 8 || vmt_read_file(CTL, buf, sizeof(buf))) {
		CHECK(0, "shm.kernel_selftest", "cannot run: %s", strerror(errno));
		if (fd >= 0)
			close(fd);
		return;
	}
	close(fd);
	fputs(buf, stdout);
	CHECK(strstr(buf, "ok - ") && !strstr(buf, "not ok"), "shm.kernel_selftest_all", "");
}

static int delete_module(const char *name)
{
	return syscall(SYS_delete_module, name, O_NONBLOCK);
}

static void test_rmmod(void)
{
	int fd = open(DEV, O_RDWR);
	void *m = fd < 0 ? MAP_FAILED : mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
	int ret;

	if (m == MAP_FAILED) {
		CHECK(0, "shm.rmmod_while_mapped", "map: %s", strerror(errno));
		return;
	}
	close(fd);	/* the mapping alone must keep the module */
	ret = delete_module("lakeshm");
	CHECK(ret < 0 && (errno == EWOULDBLOCK || errno == EBUSY), "shm.rmmod_refused_while_mapped",
	      "ret %d errno %d", ret, errno);
	munmap(m, 4096);
	ret = delete_module("lakeshm");
	CHECK(ret == 0, "shm.rmmod_after_unmap", "%s", strerror(errno));
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "all";

	if (!strcmp(mode, "all")) {
		test_sharing();
		test_mmap_rules();
		test_non_root();
		test_kernel_selftest();
	} else if (!strcmp(mode, "rmmod")) {
		test_rmmod();
	} else {
		fprintf(stderr, "usage: shm_test all|rmmod\n");
		return 2;
	}
	return vmt_end();
}
