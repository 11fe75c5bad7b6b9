// SPDX-License-Identifier: GPL-2.0
/*
 * laked's sandbox (laked/sandbox.c): its user, Landlock and seccomp layers,
 * with the host device serving behind each device's rules. Each case forks:
 * the child enters the sandbox as laked does (as uid 65534 when the test
 * runs as root) and does one thing, the parent checks how it ended.
 * Serving calls, thread creation and a C++ kernel's fibers included, must
 * survive; the syscalls an attacker would want (sockets, fork, exec,
 * writing files) must kill the child with SIGSYS; reading root's secrets,
 * writing an existing file and
 * loading a module through a symlink must be refused, killed or failed,
 * under the host device's rules and the CUDA driver's. A file that laked's
 * user may read but its Landlock rules do not name must stay closed (only
 * Landlock stands in the way); with Landlock made to fail, laked must
 * refuse to sandbox itself unless allowed to run without it, and then that
 * file opens. An assertion
 * failing inside a child shows as that child's death (cmocka's report
 * writes to stdout, which the host rules forbid).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <sched.h>
#include <stdlib.h>
#include <linux/capability.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include "tests/unit/dispatch_util.h"
#include "laked/daemon.h"

enum { SURVIVES, KILLED, REFUSED, ENTER_REFUSED };

#define NOBODY		65534
#define VICTIM_TEXT	"original\n"

static const char *rules = "host";	/* whose allowlist: "host" or "cuda" */
static char victim[] = "/tmp/lake-sandbox-victim-XXXXXX";
static char links_dir[] = "/tmp/lake-sandbox-modules-XXXXXX";
/* Landlock as the next child sees it: made to fail with this errno, allowed to be missing. */
static int landlock_errno;
static bool landlock_optional;

/* Run @fn in a child sandboxed as laked would be, with @dir as its module directory. */
static void in_sandbox_dir(void (*fn)(void), int want, const char *dir)
{
	int status;
	pid_t pid;

	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		struct laked_sandbox_cfg cfg = {
			.mode = LAKED_SANDBOX_KILL,
			.uid = NOBODY,
			.gid = NOBODY,
			.nl_fd = -1,
			.syslog_fd = -1,
			.allow_no_landlock = landlock_optional,
			.test_landlock_errno = landlock_errno,
		};
		struct lake_driver as;
		void *state = NULL;

		/* _exit on every path: no atexit handlers (LeakSanitizer forks) run. */
		if (dir && setenv("LAKE_KERNEL_DIR", dir, 1))
			_exit(91);
		if (setup(&state))
			_exit(90);
		/* The filter depends on the driver's name only: host code, CUDA's rules. */
		as = *drv;
		as.name = rules;
		cfg.module_dir_fd = laked_module_dir_fd(dd);
		if (laked_sandbox_enter(&as, &cfg))
			_exit(want == ENTER_REFUSED ? 0 : 92);
		if (want == ENTER_REFUSED)
			_exit(93);
		fn();
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	if (want == KILLED || (want == REFUSED && WIFSIGNALED(status))) {
		if (!WIFSIGNALED(status) || WTERMSIG(status) != SIGSYS)
			fail_msg("%s rules: child ended with status %#x, not SIGSYS", rules, status);
	} else if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		fail_msg("%s rules: sandboxed child ended with status %#x, signal %d", rules,
			 status, WIFSIGNALED(status) ? WTERMSIG(status) : 0);
	}
}

static void in_sandbox(void (*fn)(void), int want)
{
	in_sandbox_dir(fn, want, NULL);
}

/* What serving does after the filter: threads, dlopen, copies, a kernel, teardown. */
static void serve_calls(void)
{
	u64 ctx = new_ctx(), mod = module_load(ctx, "vadd.cubin", CUDA_SUCCESS), s, e, p;
	struct lake_wire_get_function_res layout;
	struct lake_wire_req r;
	void *args[4];
	u8 packed[64];
	int n = 16;

	s = new_handle(LAKE_API_STREAM_CREATE, ctx, 0);
	e = new_handle(LAKE_API_EVENT_CREATE, ctx, 0);
	p = mem_alloc(ctx, 3 * 64);
	layout = get_function(ctx, mod, "vadd")->res.get_function;
	assert_int_equal(put_inline(ctx, p, region, 128), CUDA_SUCCESS);
	args[0] = &p;
	args[1] = &p;
	args[2] = &p;
	args[3] = &n;
	r = req_new(LAKE_API_LAUNCH_KERNEL, ctx);
	r.stream = s;
	r.args.launch.func = layout.func;
	r.args.launch.grid[0] = r.args.launch.grid[1] = r.args.launch.grid[2] = 1;
	r.args.launch.block[0] = 16;
	r.args.launch.block[1] = r.args.launch.block[2] = 1;
	r.tail = packed;
	r.tail_len = (u32)lake_wire_pack_params(&layout, args, packed, sizeof(packed));
	assert_int_equal(result_of(&r), CUDA_SUCCESS);
	r = req_new(LAKE_API_EVENT_RECORD, ctx);
	r.stream = s;
	r.args.handle.handle = e;
	assert_int_equal(result_of(&r), CUDA_SUCCESS);
	r = req_new(LAKE_API_STREAM_SYNCHRONIZE, ctx);
	r.stream = s;
	assert_int_equal(result_of(&r), CUDA_SUCCESS);
	r = req_new(LAKE_API_STREAM_DESTROY, ctx);
	r.stream = s;
	assert_int_equal(result_of(&r), CUDA_SUCCESS);
	r = copy_req(LAKE_API_MEMCPY_DTOH, ctx, p, 128, LAKE_WIRE_SHM, 0, NULL);
	assert_int_equal(result_of(&r), CUDA_SUCCESS);
	laked_log_set_level(LOG_INFO);
	laked_log(LOG_INFO, "test_sandbox: a log line from inside the sandbox");
	teardown(NULL);
}

/* A launch of @layout's kernel over @blocks blocks of @threads; the result of a sync after it. */
static CUresult launch_sync(u64 ctx, const struct lake_wire_get_function_res *layout,
			    void **args, u32 blocks, u32 threads)
{
	struct lake_wire_req r = req_new(LAKE_API_LAUNCH_KERNEL, ctx);
	u8 packed[64];

	r.args.launch.func = layout->func;
	r.args.launch.grid[0] = blocks;
	r.args.launch.grid[1] = r.args.launch.grid[2] = 1;
	r.args.launch.block[0] = threads;
	r.args.launch.block[1] = r.args.launch.block[2] = 1;
	r.tail = packed;
	r.tail_len = (u32)lake_wire_pack_params(layout, args, packed, sizeof(packed));
	assert_int_equal(result_of(&r), CUDA_SUCCESS);
	r = req_new(LAKE_API_CTX_SYNCHRONIZE, ctx);
	return result_of(&r);
}

/*
 * A C++ kernel with barriers (tests/kernels/cxx/): libstdc++'s demangler,
 * fibers on fresh guarded stacks switched with swapcontext, ffi_call; and
 * one whose barrier not every thread reaches, which fails and is left; and
 * one that prints (its line written to stdout as it is printed).
 */
static void serve_cxx_kernel(void)
{
	u64 ctx = new_ctx(), bar = module_load(ctx, "cxx/barriers.cubin", CUDA_SUCCESS);
	u64 flt = module_load(ctx, "cxx/faults.cubin", CUDA_SUCCESS);
	u64 in = mem_alloc(ctx, 512 * sizeof(long)), out = mem_alloc(ctx, 2 * sizeof(long));
	struct lake_wire_get_function_res sum, divergent, say;
	long vals[512], *sums;
	void *args[] = { &in, &out, NULL };
	int n = 512, i;

	sum = get_function(ctx, bar, "_Z9block_sumPlS_i")->res.get_function;
	divergent = get_function(ctx, flt, "_Z9divergentPii")->res.get_function;
	for (i = 0; i < n; i++)
		vals[i] = i;
	assert_int_equal(put_inline(ctx, in, vals, sizeof(vals)), CUDA_SUCCESS);
	args[2] = &n;
	assert_int_equal(launch_sync(ctx, &sum, args, 2, 256), CUDA_SUCCESS);
	sums = (long *)get_inline(ctx, out, 2 * sizeof(long))->tail;
	assert_int_equal(sums[0], 255 * 256 / 2);
	assert_int_equal(sums[1], 511 * 512 / 2 - 255 * 256 / 2);
	n = 300;
	args[0] = &out;
	args[1] = &n;
	assert_int_equal(launch_sync(ctx, &divergent, args, 2, 256), CUDA_ERROR_LAUNCH_FAILED);
	say = get_function(ctx, module_load(ctx, "cxx/printf.cubin", CUDA_SUCCESS),
			   "_Z3sayi")->res.get_function;
	args[0] = &n;
	assert_int_equal(launch_sync(ctx, &say, args, 2, 32), CUDA_SUCCESS);
	teardown(NULL);
}

static void open_read_only(void)
{
	char path[PATH_MAX];
	int fd;

	snprintf(path, sizeof(path), "%s/vadd.so", getenv("LAKE_KERNEL_DIR") ?: "build/kernels");
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || close(fd))
		_exit(1);
}

static void clone3_says_enosys(void)
{
	if (syscall(SYS_clone3, NULL, 0) != -1 || errno != ENOSYS)
		_exit(1);
}

static void inet_socket(void)
{
	socket(AF_INET, SOCK_STREAM, 0);
}

static void unix_socket(void)
{
	socket(AF_UNIX, SOCK_DGRAM, 0);
}

static void do_fork(void)
{
	if (!fork())
		_exit(0);
}

static void do_exec(void)
{
	char *const argv[] = { "/bin/true", NULL };

	execve(argv[0], argv, NULL);
}

static void open_for_writing(void)
{
	open("/tmp/laked-sandbox-test", O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
}

static void open_creating_read_only(void)
{
	open("/tmp/laked-sandbox-test", O_RDONLY | O_CREAT | O_CLOEXEC, 0600);
}

/* Output goes to stderr and stdout only (a kernel's printf), not any fd. */
static void write_stdin(void)
{
	if (write(STDIN_FILENO, "x", 1) < 0)
		_exit(1);
}

static void new_namespace(void)
{
	unshare(CLONE_NEWUSER);
}

/* Exit 0 iff refused: the sandbox must keep root's secrets out of reach. */
static void read_shadow(void)
{
	char c;
	int fd = open("/etc/shadow", O_RDONLY | O_CLOEXEC);

	if (fd >= 0 && read(fd, &c, 1) >= 0)
		_exit(1);
	_exit(fd < 0 && errno == EACCES ? 0 : 2);
}

/* Exit 0 iff refused: readable by laked's user, reachable by seccomp, outside Landlock's rules. */
static void read_outside_rules(void)
{
	int fd = open(victim, O_RDONLY | O_CLOEXEC);

	if (fd >= 0)
		_exit(1);
	_exit(errno == EACCES ? 0 : 2);
}

/* Exit 0 iff it opens: what read_outside_rules() finds once Landlock is missing. */
static void read_without_landlock(void)
{
	int fd = open(victim, O_RDONLY | O_CLOEXEC);

	_exit(fd >= 0 && !close(fd) ? 0 : 1);
}

/* Exit 0 iff refused; the parent also checks that the text is intact. */
static void write_existing(void)
{
	int fd = open(victim, O_WRONLY | O_CLOEXEC);

	if (fd >= 0) {
		if (write(fd, "pwned\n", 6) < 0)
			_exit(3);
		_exit(1);
	}
	_exit(errno == EACCES ? 0 : 2);
}

static CUresult load(u64 ctx, const char *name)
{
	struct lake_wire_req r = req_new(LAKE_API_MODULE_LOAD, ctx);

	r.tail = name;
	r.tail_len = (u32)strlen(name) + 1;
	return result_of(&r);
}

/*
 * In links_dir: real.so loads; links to it, inside the directory or to the
 * kernels' directory outside, do not, by either name form.
 */
static void load_through_symlinks(void)
{
	static const char *const links[] = { "inner.so", "outer.so", "outer.cubin", "sub/real.so" };
	u64 ctx = new_ctx();
	unsigned int i;

	if (load(ctx, "real.so") != CUDA_SUCCESS)
		_exit(10);
	for (i = 0; i < ARRAY_SIZE(links); i++)
		if (load(ctx, links[i]) != CUDA_ERROR_FILE_NOT_FOUND)
			_exit(11 + (int)i);
}

static void test_serving_survives(void **state)
{
	(void)state;
	in_sandbox(serve_calls, SURVIVES);
	in_sandbox(serve_cxx_kernel, SURVIVES);
	in_sandbox(open_read_only, SURVIVES);
	in_sandbox(clone3_says_enosys, SURVIVES);
}

static void test_forbidden_syscalls_kill(void **state)
{
	static void (*const forbidden[])(void) = {
		inet_socket, unix_socket, do_fork, do_exec, open_for_writing,
		open_creating_read_only, write_stdin, new_namespace,
	};
	unsigned int i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(forbidden); i++)
		in_sandbox(forbidden[i], KILLED);
}

static void victim_intact(void)
{
	char buf[32] = "";
	int fd = open(victim, O_RDONLY | O_CLOEXEC);

	assert_true(fd >= 0);
	assert_true(read(fd, buf, sizeof(buf) - 1) >= 0);
	close(fd);
	assert_string_equal(buf, VICTIM_TEXT);
}

/* Under each device's rules: what a compromised laked would try first. */
static void test_refused(void **state)
{
	static const char *const all_rules[] = { "host", "cuda" };
	unsigned int i;

	(void)state;
	/* Not vacuous: the files are there, and this process can use them. */
	assert_int_equal(access("/etc/shadow", R_OK), 0);
	assert_int_equal(access(victim, W_OK), 0);
	for (i = 0; i < ARRAY_SIZE(all_rules); i++) {
		rules = all_rules[i];
		in_sandbox(read_shadow, REFUSED);
		in_sandbox(write_existing, REFUSED);
		victim_intact();
		in_sandbox_dir(load_through_symlinks, SURVIVES, links_dir);
	}
	rules = "host";
}

/* Only Landlock keeps laked from a file its user may read. */
static void test_landlock_alone_refuses(void **state)
{
	static const char *const all_rules[] = { "host", "cuda" };
	unsigned int i;

	(void)state;
	/* Not vacuous: laked's user could read it, were Landlock not there. */
	assert_int_equal(access(victim, R_OK), 0);
	for (i = 0; i < ARRAY_SIZE(all_rules); i++) {
		rules = all_rules[i];
		in_sandbox(read_outside_rules, SURVIVES);
	}
	rules = "host";
}

/* Landlock failing: no sandbox without the opt-out; with it, files are the user's only. */
static void test_landlock_missing(void **state)
{
	static const int errs[] = { ENOSYS, EOPNOTSUPP, EINVAL };
	unsigned int i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(errs); i++) {
		landlock_errno = errs[i];
		landlock_optional = false;
		in_sandbox(serve_calls, ENTER_REFUSED);
		landlock_optional = true;
		in_sandbox(read_without_landlock, SURVIVES);
		in_sandbox(serve_calls, SURVIVES);
		in_sandbox(inet_socket, KILLED);
	}
	landlock_errno = 0;
	landlock_optional = false;
}

/* --no-sandbox's drop: every set empty, the bounding set too when root. */
static void test_capabilities_dropped(void **state)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];
	int status, cap;
	pid_t pid;

	(void)state;
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		if (laked_drop_capabilities())
			_exit(10);
		if (syscall(SYS_capget, &hdr, data))
			_exit(11);
		for (cap = 0; cap < _LINUX_CAPABILITY_U32S_3; cap++)
			if (data[cap].effective || data[cap].permitted || data[cap].inheritable)
				_exit(12);
		for (cap = 0; !geteuid() && prctl(PR_CAPBSET_READ, cap, 0, 0, 0) >= 0; cap++)
			if (prctl(PR_CAPBSET_READ, cap, 0, 0, 0))
				_exit(13);
		/* Gone for good: root's uid alone regains nothing. */
		if (!geteuid() && !setresuid(1, 1, 1))
			_exit(14);
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

static int copy_file(const char *from, const char *to)
{
	int in = open(from, O_RDONLY | O_CLOEXEC), out, ret = 0;
	char buf[4096];
	ssize_t n;

	if (in < 0)
		return -1;
	out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (out < 0) {
		close(in);
		return -1;
	}
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n)
			ret = -1;
	if (n < 0)
		ret = -1;
	close(in);
	close(out);
	return ret;
}

/* A file of root's that others may read but not write; a module directory with links. */
static int make_files(void **state)
{
	char kernels[PATH_MAX], path[PATH_MAX + 32], target[PATH_MAX + 32];
	int fd;

	(void)state;
	fd = mkstemp(victim);
	if (fd < 0 || write(fd, VICTIM_TEXT, strlen(VICTIM_TEXT)) < 0 || fchmod(fd, 0644) ||
	    close(fd))
		return -1;
	if (!realpath(getenv("LAKE_KERNEL_DIR") ?: "build/kernels", kernels) ||
	    !mkdtemp(links_dir) || chmod(links_dir, 0755))
		return -1;
	snprintf(target, sizeof(target), "%s/vadd.so", kernels);
	snprintf(path, sizeof(path), "%s/real.so", links_dir);
	if (copy_file(target, path))
		return -1;
	snprintf(path, sizeof(path), "%s/outer.so", links_dir);
	if (symlink(target, path))
		return -1;
	snprintf(path, sizeof(path), "%s/inner.so", links_dir);
	if (symlink("real.so", path))
		return -1;
	snprintf(path, sizeof(path), "%s/sub", links_dir);
	return symlink(".", path);
}

static int remove_files(void **state)
{
	static const char *const names[] = { "real.so", "outer.so", "inner.so", "sub" };
	char path[PATH_MAX];
	unsigned int i;

	(void)state;
	unlink(victim);
	for (i = 0; i < ARRAY_SIZE(names); i++) {
		snprintf(path, sizeof(path), "%s/%s", links_dir, names[i]);
		unlink(path);
	}
	rmdir(links_dir);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_serving_survives),
		cmocka_unit_test(test_forbidden_syscalls_kill),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_landlock_alone_refuses),
		cmocka_unit_test(test_landlock_missing),
		cmocka_unit_test(test_capabilities_dropped),
	};

	return cmocka_run_group_tests(tests, make_files, remove_files);
}
