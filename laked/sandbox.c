// SPDX-License-Identifier: GPL-2.0
/*
 * The sandbox (DESIGN.md, decision 11). Once the driver is loaded, the
 * region mapped and the socket registered, laked sets no_new_privs and
 * loads a seccomp allowlist whose default action kills the process. The
 * kernel side then sees laked die as if it crashed, and recovers.
 *
 * What the serving loop needs, and why:
 *
 *   netlink:   recvmsg, sendmsg on the registered socket; poll/ppoll to
 *              wait for it, the signalfd and the load period; read for
 *              the signalfd.
 *   logging:   write, to stderr only on the host device; sendto, on the
 *              syslog socket connected at startup.
 *   time:      clock_gettime (the vDSO's fallback), nanosleep and friends.
 *   memory:    mmap, munmap, mprotect, mremap, brk, madvise: malloc, thread
 *              stacks, and dlopen of kernel modules on the host device
 *              (which maps code, so PROT_EXEC mappings stay allowed).
 *   threads:   the host device starts a thread per stream and context after
 *              the filter is in: clone only with CLONE_THREAD (no fork, no
 *              new namespaces without it); clone3 fails with ENOSYS, since
 *              its flags sit in memory seccomp cannot read, and glibc then
 *              falls back to clone. futex, set_robust_list, rseq,
 *              rt_sigprocmask, sched_yield, gettid, getpid, exit.
 *   modules:   cuModuleLoad opens files under --module-dir after the
 *              filter: openat read-only (O_ACCMODE, O_CREAT and O_TRUNC
 *              masked to O_RDONLY), fstat/newfstatat, read, pread64, lseek,
 *              close, access/faccessat.
 *   exit:      exit_group, rt_sigreturn.
 *   harmless:  sched_getaffinity and sigaltstack, which sanitizer runtimes
 *              and libraries call in new threads; they grant nothing.
 *
 * The CUDA driver talks to /dev/nvidia* with ioctl and keeps helper
 * threads and descriptors of its own, so on it the list adds ioctl, fcntl,
 * openat without the read-only rule (still no O_CREAT or O_TRUNC), write to
 * any descriptor, eventfd2, pipe2, epoll, mlock and a few queries. That
 * list follows what libcuda is known to call but was not checked on a GPU
 * here: --sandbox-log turns violations into audit log lines instead of
 * kills, to find what a driver version needs.
 *
 * Syscalls that do not exist on the build's architecture are skipped.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <seccomp.h>
#include "daemon.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

static const char *const common[] = {
	"read", "close", "recvmsg", "sendmsg", "sendto", "poll", "ppoll", "restart_syscall",
	"clock_gettime", "clock_nanosleep", "nanosleep", "gettimeofday",
	"mmap", "munmap", "mprotect", "mremap", "brk", "madvise",
	"futex", "set_robust_list", "rseq", "rt_sigprocmask", "sched_yield", "gettid",
	"getpid", "exit", "exit_group", "rt_sigreturn", "sched_getaffinity", "sigaltstack",
	"fstat", "newfstatat", "pread64", "lseek", "access", "faccessat", "faccessat2",
};

static const char *const cuda_extra[] = {
	"ioctl", "fcntl", "write", "eventfd2", "pipe2", "epoll_create1", "epoll_ctl",
	"epoll_wait", "epoll_pwait", "mlock", "munlock", "mincore", "uname", "readlink",
	"readlinkat", "sysinfo", "prlimit64", "getrlimit", "statx",
};

static int allow_all(scmp_filter_ctx ctx, const char *const *names, size_t n)
{
	size_t i;
	int nr, ret;

	for (i = 0; i < n; i++) {
		nr = seccomp_syscall_resolve_name(names[i]);
		if (nr == __NR_SCMP_ERROR)
			continue;
		ret = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, nr, 0);
		if (ret)
			return ret;
	}
	return 0;
}

static int allow_with_args(scmp_filter_ctx ctx, bool cuda)
{
	int ret;

	ret = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(clone), 1,
			       SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_THREAD, CLONE_THREAD));
	if (!ret)
		ret = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0);
	if (ret)
		return ret;
	if (cuda)
		return seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(openat), 1,
					SCMP_A2(SCMP_CMP_MASKED_EQ, O_CREAT | O_TRUNC, 0));
	ret = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(openat), 1,
			       SCMP_A2(SCMP_CMP_MASKED_EQ, O_ACCMODE | O_CREAT | O_TRUNC,
				       O_RDONLY));
	if (!ret)
		ret = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(write), 1,
				       SCMP_A0(SCMP_CMP_EQ, STDERR_FILENO));
	return ret;
}

int laked_sandbox_enter(const struct lake_driver *drv, enum laked_sandbox mode)
{
	bool cuda = !strcmp(drv->name, "cuda");
	scmp_filter_ctx ctx;
	int ret;

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return -errno;
	ctx = seccomp_init(mode == LAKED_SANDBOX_LOG ? SCMP_ACT_LOG : SCMP_ACT_KILL_PROCESS);
	if (!ctx)
		return -ENOMEM;
	ret = allow_all(ctx, common, ARRAY_SIZE(common));
	if (!ret && cuda)
		ret = allow_all(ctx, cuda_extra, ARRAY_SIZE(cuda_extra));
	if (!ret)
		ret = allow_with_args(ctx, cuda);
	if (!ret)
		ret = seccomp_load(ctx);
	seccomp_release(ctx);
	return ret;
}
