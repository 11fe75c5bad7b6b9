// SPDX-License-Identifier: GPL-2.0
/*
 * laked's seccomp allowlist (laked/sandbox.c) on the host device. Each case
 * forks: the child enters the sandbox and does one thing, the parent checks
 * how it ended. Serving calls, thread creation included, must survive; the
 * syscalls an attacker would want (sockets, fork, exec, writing files) must
 * kill the child with SIGSYS. An assertion failing inside a child shows as
 * that child's death (cmocka's report writes to stdout, which is forbidden).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <sched.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include "tests/unit/dispatch_util.h"
#include "laked/daemon.h"

enum { SURVIVES, KILLED };

/* Run @fn in a sandboxed child; how the child ended. */
static void in_sandbox(void (*fn)(void), int want)
{
	int status;
	pid_t pid;

	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		void *state = NULL;

		/* _exit on every path: no atexit handlers (LeakSanitizer forks) run. */
		if (setup(&state) || laked_sandbox_enter(drv, LAKED_SANDBOX_KILL))
			_exit(90);
		fn();
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	if (want == SURVIVES) {
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			fail_msg("sandboxed child ended with status %#x, signal %d", status,
				 WIFSIGNALED(status) ? WTERMSIG(status) : 0);
	} else {
		assert_true(WIFSIGNALED(status));
		assert_int_equal(WTERMSIG(status), SIGSYS);
	}
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

static void write_stdout(void)
{
	if (write(STDOUT_FILENO, "x", 1) < 0)
		_exit(1);
}

static void new_namespace(void)
{
	unshare(CLONE_NEWUSER);
}

static void test_serving_survives(void **state)
{
	(void)state;
	in_sandbox(serve_calls, SURVIVES);
	in_sandbox(open_read_only, SURVIVES);
	in_sandbox(clone3_says_enosys, SURVIVES);
}

static void test_forbidden_syscalls_kill(void **state)
{
	static void (*const forbidden[])(void) = {
		inet_socket, unix_socket, do_fork, do_exec, open_for_writing,
		open_creating_read_only, write_stdout, new_namespace,
	};
	unsigned int i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(forbidden); i++)
		in_sandbox(forbidden[i], KILLED);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_serving_survives),
		cmocka_unit_test(test_forbidden_syscalls_kill),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
