// SPDX-License-Identifier: GPL-2.0
/*
 * The sandbox (DESIGN.md, decision 11): what a compromised laked can still
 * do. Once the driver is loaded, the region mapped, the module directory
 * opened and the socket registered, laked confines itself in three layers,
 * so a hole in one is not a way out:
 *
 * 1. Identity. laked switches to its own user (--user, "laked") and keeps
 *    no capability at all: effective, permitted, inheritable, ambient and
 *    bounding sets empty. Registering was the one step that needed
 *    CAP_NET_ADMIN; lakelib knows the daemon by the socket that registered
 *    and asks no capability for its other commands, so a CAP_NET_ADMIN kept
 *    here would only reach other Generic Netlink families' admin commands
 *    (seccomp can check the descriptor, not the family). The region, the
 *    devices, the module directory and the socket were opened before, as
 *    root. As another user, laked can no longer read root's files
 *    (/etc/shadow) nor write them, and its /proc/PID stays root's (not
 *    dumpable), so nothing can ptrace it. --no-sandbox still drops the
 *    capabilities (laked_drop_capabilities()).
 *
 * 2. Files (Landlock; both 6.1 and 6.12 have it). Without it (a kernel
 *    built or booted without Landlock, or a ruleset it refuses) laked
 *    refuses to start, unless the administrator said --allow-no-landlock
 *    (config key allow-no-landlock = yes); the log names the layers in
 *    force either way. Every
 *    file access right is handled, and granted only to: the module
 *    directory, read-only, for cuModuleLoad; the system library
 *    directories and /etc/ld.so.cache, read-only, for what dlopen loads
 *    next to a module. On CUDA also /dev/nvidia* read-write with ioctl
 *    (opened per context), /dev/null and /dev/urandom, and /proc, /sys,
 *    /etc/nvidia and /usr/share/nvidia read-only (libcuda reads the
 *    driver's parameters, the GPU's topology and application profiles).
 *    Nothing is writable elsewhere. Landlock confines the calling thread
 *    and the threads it starts later: on the host device every worker
 *    starts after this point; libcuda's helper threads started by cuInit
 *    before it are under layers 1 and 3 only. --sandbox-log skips this
 *    layer, since Landlock has no log-only mode.
 *
 * 3. Syscalls (seccomp, no_new_privs, synchronised to every thread). The
 *    default action kills the process; the kernel sees laked die as if it
 *    crashed, and recovers. What the serving loop needs, and why:
 *
 *   netlink:   recvmsg and sendmsg, on the registered socket only; poll and
 *              ppoll to wait for it, the signalfd and the load period; read
 *              for the signalfd.
 *   logging:   write, to stderr only on the host device (and stdout: a
 *              kernel's printf); sendto, on the
 *              syslog socket connected at startup only.
 *   ring:      read of its eventfds (as any read); write, on the kernel's
 *              eventfd and laked's watch eventfd only on the host device,
 *              to wake the kernel and the watching worker.
 *   readiness: sendto, on systemd's NOTIFY_SOCKET connected at startup
 *              only (READY=1 goes once the sandbox is in, STOPPING=1).
 *   time:      clock_gettime (the vDSO's fallback), nanosleep and friends.
 *   memory:    mmap, munmap, mprotect, mremap, brk, madvise: malloc, thread
 *              stacks, the host device's fiber stacks and their guard pages
 *              (C++ kernels), and dlopen of kernel modules on the host device
 *              (which maps code, so PROT_EXEC mappings stay allowed).
 *   threads:   the host device starts a thread per stream and context after
 *              the filter is in: clone only with CLONE_THREAD (no fork, no
 *              new namespaces without it); clone3 fails with ENOSYS, since
 *              its flags sit in memory seccomp cannot read, and glibc then
 *              falls back to clone. futex, set_robust_list, rseq,
 *              rt_sigprocmask, sched_yield, gettid, getpid, exit. Fibers
 *              need nothing more: swapcontext's one syscall is
 *              rt_sigprocmask, and libffi's ffi_call makes none.
 *   modules:   cuModuleLoad checks the name with openat2 beneath the
 *              module directory's descriptor, with no symlink, magic link or
 *              mount crossing (calls_module.c): openat2 only on that
 *              descriptor. The driver then opens the file by its path:
 *              openat read-only (O_ACCMODE, O_CREAT and O_TRUNC masked to
 *              O_RDONLY), since dlopen and libcuda take a path; Landlock and
 *              the identity bound what that reaches. fstat/newfstatat,
 *              read, pread64, lseek, close, access/faccessat.
 *   exit:      exit_group, rt_sigreturn.
 *   harmless:  sched_getaffinity and sigaltstack, which sanitizer runtimes
 *              and libraries call in new threads; they grant nothing.
 *
 * The CUDA driver talks to /dev/nvidia* with ioctl and keeps helper
 * threads and descriptors of its own, so on it the list adds: ioctl with
 * the request codes of NVIDIA's kernel modules only (nvidia's _IOC type
 * 'F', nvidia-uvm's small numbers and its initialize/deinitialize codes:
 * no terminal, socket or file-system ioctls); openat without the read-only
 * rule (devices are opened read-write; still no O_CREAT or O_TRUNC); write
 * to any descriptor (its eventfds and pipes are created at run time, so no
 * descriptor list exists; Landlock and the identity keep files out of
 * reach); prlimit64 as a query only (no new limit, own process); fcntl,
 * eventfd2, pipe2, epoll, mlock, mincore, uname, readlink, sysinfo,
 * getrlimit, statx. That list follows what libcuda is known to call but was
 * not checked on a GPU here: --sandbox-log turns violations into audit log
 * lines instead of kills (and skips Landlock), to find what a driver
 * version needs. CUDA MPS, which talks over a socket, is not supported
 * inside the sandbox.
 *
 * Syscalls that do not exist on the build's architecture are skipped.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <grp.h>
#include <sched.h>
#include <string.h>
#include <unistd.h>
#include <linux/capability.h>
#include <sys/ioctl.h>
#include <linux/landlock.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <seccomp.h>
#include "daemon.h"
#include "log.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* Newer than Debian 12's headers; the kernel reports which it knows (its ABI). */
#ifndef LANDLOCK_ACCESS_FS_TRUNCATE
#define LANDLOCK_ACCESS_FS_TRUNCATE	(1ULL << 14)
#endif
#ifndef LANDLOCK_ACCESS_FS_IOCTL_DEV
#define LANDLOCK_ACCESS_FS_IOCTL_DEV	(1ULL << 15)
#endif

#define FS_READ		LANDLOCK_ACCESS_FS_READ_FILE
#define FS_DEVICE	(LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_WRITE_FILE | \
			 LANDLOCK_ACCESS_FS_IOCTL_DEV)

/* nvidia-uvm's UVM_INITIALIZE and UVM_DEINITIALIZE; its other requests are below 0x1000. */
#define UVM_INITIALIZE		0x30000001
#define UVM_DEINITIALIZE	0x30000002
#define UVM_SMALL_MAX		0xfff
#define NV_IOCTL_TYPE		((unsigned int)'F' << _IOC_TYPESHIFT)

static const char *const common[] = {
	"read", "close", "poll", "ppoll", "restart_syscall",
	"clock_gettime", "clock_nanosleep", "nanosleep", "gettimeofday",
	"mmap", "munmap", "mprotect", "mremap", "brk", "madvise",
	"futex", "set_robust_list", "rseq", "rt_sigprocmask", "sched_yield", "gettid",
	"getpid", "exit", "exit_group", "rt_sigreturn", "sched_getaffinity", "sigaltstack",
	"fstat", "newfstatat", "pread64", "lseek", "access", "faccessat", "faccessat2",
};

static const char *const cuda_extra[] = {
	"fcntl", "write", "eventfd2", "pipe2", "epoll_create1", "epoll_ctl",
	"epoll_wait", "epoll_pwait", "mlock", "munlock", "mincore", "uname", "readlink",
	"readlinkat", "sysinfo", "getrlimit", "statx",
};

/* Read-only for dlopen's dependencies, where they exist. */
static const char *const lib_paths[] = {
	"/lib", "/lib64", "/usr/lib", "/usr/lib64", "/usr/local/lib", "/etc/ld.so.cache",
};

static const struct {
	const char *path;
	__u64 access;
} cuda_paths[] = {
	{ "/dev/nvidia-caps", FS_DEVICE },
	{ "/dev/null", LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_WRITE_FILE },
	{ "/dev/urandom", FS_READ },
	{ "/proc", FS_READ | LANDLOCK_ACCESS_FS_READ_DIR },
	{ "/sys", FS_READ | LANDLOCK_ACCESS_FS_READ_DIR },
	{ "/etc/nvidia", FS_READ },
	{ "/usr/share/nvidia", FS_READ },
};

/*
 * The bounding set, as far as this thread may empty it: dropping needs
 * CAP_SETPCAP, which a laked started as another user may lack (it then
 * has no capability to lose; capset below empties the rest).
 */
static int drop_bounding(void)
{
	int cap;

	for (cap = 0; prctl(PR_CAPBSET_READ, cap, 0, 0, 0) >= 0; cap++)
		if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) && (errno != EPERM || !geteuid()))
			return -errno;
	return 0;
}

/* Every capability set of this thread empty, and checked to be. */
static int clear_capabilities(void)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3] = {};
	unsigned int i;

	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) && errno != EINVAL)
		return -errno;
	if (syscall(SYS_capset, &hdr, data) || syscall(SYS_capget, &hdr, data))
		return -errno;
	for (i = 0; i < _LINUX_CAPABILITY_U32S_3; i++)
		if (data[i].effective || data[i].permitted || data[i].inheritable)
			return -EPERM;
	return 0;
}

int laked_drop_capabilities(void)
{
	int ret = drop_bounding();

	return ret ? ret : clear_capabilities();
}

/*
 * Layer 1. Capabilities are per thread: the bounding set, ambient set and
 * capset apply to this one, while setresuid (glibc runs it on every
 * thread) empties the other threads' sets.
 */
static int drop_privileges(const struct laked_sandbox_cfg *cfg)
{
	int ret = drop_bounding();

	if (ret)
		return ret;
	if (!geteuid()) {
		if (setgroups(0, NULL) || setresgid(cfg->gid, cfg->gid, cfg->gid) ||
		    setresuid(cfg->uid, cfg->uid, cfg->uid))
			return -errno;
		if (!cfg->uid || !cfg->gid || !setresuid(0, 0, 0))
			return -EPERM;		/* still root, or root regainable */
	}
	return clear_capabilities();
}

static int landlock_allow(int ruleset, const char *path, int dirfd, __u64 access, __u64 handled)
{
	struct landlock_path_beneath_attr rule = { .parent_fd = dirfd };
	struct stat st;
	int ret = 0;

	if (path)
		rule.parent_fd = open(path, O_PATH | O_CLOEXEC);
	if (rule.parent_fd < 0) {
		if (errno == ENOENT)
			return 0;
		laked_log(LOG_ERR, "sandbox: %s: %s", path, strerrorname_np(errno));
		return -errno;
	}
	if (fstat(rule.parent_fd, &st)) {
		ret = -errno;
		goto out;
	}
	/* A rule on a file takes only the rights that apply to files. */
	if (!S_ISDIR(st.st_mode))
		access &= LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_WRITE_FILE |
			  LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_TRUNCATE |
			  LANDLOCK_ACCESS_FS_IOCTL_DEV;
	rule.allowed_access = access & handled;
	if (rule.allowed_access &&
	    syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &rule, 0))
		ret = -errno;
out:
	if (path)
		close(rule.parent_fd);
	return ret;
}

/* Every file access right the running kernel knows, by Landlock ABI version. */
static __u64 landlock_handled(int abi)
{
	__u64 all = (LANDLOCK_ACCESS_FS_MAKE_SYM << 1) - 1;

	if (abi >= 2)
		all |= LANDLOCK_ACCESS_FS_REFER;
	if (abi >= 3)
		all |= LANDLOCK_ACCESS_FS_TRUNCATE;
	if (abi >= 5)
		all |= LANDLOCK_ACCESS_FS_IOCTL_DEV;
	return all;
}

/* landlock_create_ruleset(2), or the failure a test asked for. */
static int create_ruleset(const struct laked_sandbox_cfg *cfg,
			  const struct landlock_ruleset_attr *attr, size_t size, __u32 flags)
{
	if (cfg->test_landlock_errno) {
		errno = cfg->test_landlock_errno;
		return -1;
	}
	return (int)syscall(SYS_landlock_create_ruleset, attr, size, flags);
}

/*
 * Layer 2: 0 when it is in force (*@abi: the kernel's Landlock ABI), or
 * -errno. Without Landlock, 0 only with cfg->allow_no_landlock, and *@abi 0.
 */
static int restrict_files(const struct laked_sandbox_cfg *cfg, bool cuda, int *abi)
{
	struct landlock_ruleset_attr attr = {};
	glob_t devs = {};
	size_t i;
	int ruleset, ret = 0;

	*abi = create_ruleset(cfg, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
	if (*abi < 0) {
		ret = -errno;
		*abi = 0;
		if (!cfg->allow_no_landlock) {
			laked_log(LOG_ERR, "sandbox: no Landlock (%s): refusing to run with files kept out of reach by laked's user only; --allow-no-landlock (config: allow-no-landlock = yes) accepts that",
				  strerrorname_np(-ret));
			return ret;
		}
		laked_log(LOG_WARNING, "sandbox: no Landlock (%s), allowed by --allow-no-landlock: files are kept out of reach by laked's user only",
			  strerrorname_np(-ret));
		return 0;
	}
	attr.handled_access_fs = landlock_handled(*abi);
	ruleset = (int)syscall(SYS_landlock_create_ruleset, &attr, sizeof(attr), 0);
	if (ruleset < 0)
		return -errno;
	if (cfg->module_dir_fd >= 0)
		ret = landlock_allow(ruleset, NULL, cfg->module_dir_fd, FS_READ,
				     attr.handled_access_fs);
	for (i = 0; !ret && i < ARRAY_SIZE(lib_paths); i++)
		ret = landlock_allow(ruleset, lib_paths[i], -1, FS_READ, attr.handled_access_fs);
	if (cuda) {
		for (i = 0; !ret && i < ARRAY_SIZE(cuda_paths); i++)
			ret = landlock_allow(ruleset, cuda_paths[i].path, -1, cuda_paths[i].access,
					     attr.handled_access_fs);
		if (!ret && !glob("/dev/nvidia*", 0, NULL, &devs))
			for (i = 0; !ret && i < devs.gl_pathc; i++)
				ret = landlock_allow(ruleset, devs.gl_pathv[i], -1, FS_DEVICE,
						     attr.handled_access_fs);
		globfree(&devs);
	}
	if (!ret && syscall(SYS_landlock_restrict_self, ruleset, 0))
		ret = -errno;
	close(ruleset);
	return ret;
}

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

/* @nr on descriptor @fd only; nothing when there is no such descriptor. */
static int allow_on_fd(scmp_filter_ctx ctx, int nr, int fd)
{
	if (fd < 0)
		return 0;
	return seccomp_rule_add(ctx, SCMP_ACT_ALLOW, nr, 1, SCMP_A0(SCMP_CMP_EQ, (scmp_datum_t)fd));
}

static int allow_cuda_ioctls(scmp_filter_ctx ctx)
{
	int ret;

	ret = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(ioctl), 1,
			       SCMP_A1(SCMP_CMP_MASKED_EQ, _IOC_TYPEMASK << _IOC_TYPESHIFT,
				       NV_IOCTL_TYPE));
	if (!ret)
		ret = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(ioctl), 1,
				       SCMP_A1(SCMP_CMP_LE, UVM_SMALL_MAX));
	if (!ret)
		ret = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(ioctl), 1,
				       SCMP_A1(SCMP_CMP_EQ, UVM_INITIALIZE));
	if (!ret)
		ret = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(ioctl), 1,
				       SCMP_A1(SCMP_CMP_EQ, UVM_DEINITIALIZE));
	return ret;
}

static int allow_with_args(scmp_filter_ctx ctx, const struct laked_sandbox_cfg *cfg, bool cuda)
{
	int ret;

	ret = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(clone), 1,
			       SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_THREAD, CLONE_THREAD));
	if (!ret)
		ret = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0);
	if (!ret)
		ret = allow_on_fd(ctx, SCMP_SYS(sendmsg), cfg->nl_fd);
	if (!ret)
		ret = allow_on_fd(ctx, SCMP_SYS(recvmsg), cfg->nl_fd);
	if (!ret)
		ret = allow_on_fd(ctx, SCMP_SYS(sendto), cfg->syslog_fd);
	/* Never a standard stream: a zeroed cfg names none. */
	if (!ret && cfg->notify_fd > STDERR_FILENO)
		ret = allow_on_fd(ctx, SCMP_SYS(sendto), cfg->notify_fd);
	if (!ret)
		ret = allow_on_fd(ctx, SCMP_SYS(openat2), cfg->module_dir_fd);
	if (ret)
		return ret;
	if (cuda) {
		ret = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(openat), 1,
				       SCMP_A2(SCMP_CMP_MASKED_EQ, O_CREAT | O_TRUNC, 0));
		if (!ret)
			ret = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(prlimit64), 2,
					       SCMP_A0(SCMP_CMP_EQ, 0), SCMP_A2(SCMP_CMP_EQ, 0));
		return ret ? ret : allow_cuda_ioctls(ctx);
	}
	ret = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(openat), 1,
			       SCMP_A2(SCMP_CMP_MASKED_EQ, O_ACCMODE | O_CREAT | O_TRUNC,
				       O_RDONLY));
	if (!ret)
		ret = allow_on_fd(ctx, SCMP_SYS(write), STDERR_FILENO);
	if (!ret)
		ret = allow_on_fd(ctx, SCMP_SYS(write), STDOUT_FILENO);
	if (!ret && cfg->ring_cq_fd > 2)
		ret = allow_on_fd(ctx, SCMP_SYS(write), cfg->ring_cq_fd);
	if (!ret && cfg->ring_watch_fd > 2)
		ret = allow_on_fd(ctx, SCMP_SYS(write), cfg->ring_watch_fd);
	return ret;
}

/* Layer 3. */
static int filter_syscalls(const struct laked_sandbox_cfg *cfg, bool cuda)
{
	scmp_filter_ctx ctx;
	int ret;

	ctx = seccomp_init(cfg->mode == LAKED_SANDBOX_LOG ? SCMP_ACT_LOG : SCMP_ACT_KILL_PROCESS);
	if (!ctx)
		return -ENOMEM;
	ret = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_TSYNC, 1);
	/* A binary tree over syscall numbers: every syscall of the serving loop pays the filter. */
	if (!ret)
		ret = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_OPTIMIZE, 2);
	if (!ret)
		ret = allow_all(ctx, common, ARRAY_SIZE(common));
	if (!ret && cuda)
		ret = allow_all(ctx, cuda_extra, ARRAY_SIZE(cuda_extra));
	if (!ret)
		ret = allow_with_args(ctx, cfg, cuda);
	if (!ret)
		ret = seccomp_load(ctx);
	seccomp_release(ctx);
	return ret;
}

int laked_sandbox_enter(const struct lake_driver *drv, const struct laked_sandbox_cfg *cfg)
{
	bool cuda = !strcmp(drv->name, "cuda");
	char landlock[48] = "no Landlock (--sandbox-log)";
	int ret, abi = 0;
	uid_t uid;

	ret = drop_privileges(cfg);
	if (ret) {
		laked_log(LOG_ERR, "sandbox: dropping privileges: %s", strerrorname_np(-ret));
		return ret;
	}
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return -errno;
	if (cfg->mode != LAKED_SANDBOX_LOG) {
		ret = restrict_files(cfg, cuda, &abi);
		if (ret) {
			laked_log(LOG_ERR, "sandbox: Landlock: %s", strerrorname_np(-ret));
			return ret;
		}
		if (abi)
			snprintf(landlock, sizeof(landlock), "Landlock (ABI %d)", abi);
		else
			snprintf(landlock, sizeof(landlock), "NO Landlock (--allow-no-landlock)");
	}
	uid = getuid();		/* the filter has no getuid */
	ret = filter_syscalls(cfg, cuda);
	if (ret) {
		laked_log(LOG_ERR, "sandbox: seccomp: %s", strerrorname_np(-ret));
		return ret;
	}
	laked_log(LOG_INFO, "sandboxed: user (uid %u), no capabilities, %s, seccomp (%s)",
		  (unsigned int)uid, landlock,
		  cfg->mode == LAKED_SANDBOX_LOG ? "violations logged" : "violations kill");
	return 0;
}
