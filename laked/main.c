// SPDX-License-Identifier: GPL-2.0
/*
 * laked: runs the CUDA driver calls that kernel modules make through
 * lakelib.ko. Setup in this order: the device (the CUDA driver or the host
 * device), the shared region, the dispatcher, the netlink socket and its
 * registration; then the sandbox, the worker pool (workers.c: contexts in
 * parallel, each on a thread of its own), and the receiving loop until
 * SIGTERM or SIGINT. Then nothing of laked's may write the region once the
 * kernel fails the calls in flight: the workers stop (each finishes the
 * record it runs; queued ones are dropped), the contexts are destroyed
 * (their device work ends with them), the region is unmapped, and only
 * then does laked unregister.
 *
 * laked stays in the foreground and logs to stderr, or with --syslog to
 * syslog: a service manager supervises it. Under systemd (Type=notify) it
 * reports ready once registered and sandboxed (service.c). Options come
 * from the configuration file first, then from the command line, which wins.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <uapi/lake/shm.h>
#include "daemon.h"
#include "log.h"

#define LOAD_PERIOD_MS_DEFAULT	10
#define LOAD_PERIOD_MS_MAX	60000
#define RING_SPIN_US_DEFAULT	200
#define RING_SPIN_US_MAX	1000

struct options {
	const char *device;
	const char *module_dir;
	const char *user;
	u32 load_period_ms;
	u32 ring_spin_us;
	bool ring;
	int test_ring_forge;
	int test_rcvbuf;
	unsigned int test_copy_ms;
	const char *test_leave_first;
	bool syslog, sandbox, sandbox_log, allow_no_landlock, test_kill, test_foreign_admin;
	bool verbose;
};

enum {
	OPT_DEVICE = 256,
	OPT_MODULE_DIR,
	OPT_USER,
	OPT_LOAD_PERIOD,
	OPT_SYSLOG,
	OPT_FOREGROUND,
	OPT_NO_SANDBOX,
	OPT_SANDBOX_LOG,
	OPT_ALLOW_NO_LANDLOCK,
	OPT_TEST_KILL,
	OPT_TEST_FOREIGN_ADMIN,
	OPT_TEST_RCVBUF,
	OPT_TEST_COPY_MS,
	OPT_TEST_LEAVE_FIRST,
	OPT_CONFIG,
	OPT_TRANSPORT,
	OPT_RING_SPIN_US,
	OPT_TEST_RING_FORGE,
};

static const struct option longopts[] = {
	{ "device", required_argument, NULL, OPT_DEVICE },
	{ "module-dir", required_argument, NULL, OPT_MODULE_DIR },
	{ "user", required_argument, NULL, OPT_USER },
	{ "load-period-ms", required_argument, NULL, OPT_LOAD_PERIOD },
	{ "syslog", no_argument, NULL, OPT_SYSLOG },
	{ "foreground", no_argument, NULL, OPT_FOREGROUND },
	{ "no-sandbox", no_argument, NULL, OPT_NO_SANDBOX },
	{ "sandbox-log", no_argument, NULL, OPT_SANDBOX_LOG },
	{ "allow-no-landlock", no_argument, NULL, OPT_ALLOW_NO_LANDLOCK },
	{ "test-seccomp-kill", no_argument, NULL, OPT_TEST_KILL },
	{ "test-foreign-admin", no_argument, NULL, OPT_TEST_FOREIGN_ADMIN },
	{ "test-rcvbuf", required_argument, NULL, OPT_TEST_RCVBUF },
	{ "test-copy-ms", required_argument, NULL, OPT_TEST_COPY_MS },
	{ "test-leave-first", required_argument, NULL, OPT_TEST_LEAVE_FIRST },
	{ "config", required_argument, NULL, OPT_CONFIG },
	{ "transport", required_argument, NULL, OPT_TRANSPORT },
	{ "ring-spin-us", required_argument, NULL, OPT_RING_SPIN_US },
	{ "test-ring-forge", required_argument, NULL, OPT_TEST_RING_FORGE },
	{ "verbose", no_argument, NULL, 'v' },
	{ "help", no_argument, NULL, 'h' },
	{}
};

static const char usage[] =
	"usage: laked [options]\n"
	"Serve the CUDA driver calls of kernel modules made through lakelib.ko.\n\n"
	"  --config FILE            options file (" LAKED_CONFIG ", if present);\n"
	"                           the command line overrides it\n"
	"  --device=auto|cuda|host  device to run calls on (auto: CUDA when usable)\n"
	"  --module-dir DIR         where cuModuleLoad paths resolve (" LAKED_MODULE_DIR ")\n"
	"  --user NAME              the user laked becomes after setup (" LAKED_USER ")\n"
	"  --load-period-ms N       load report period, 1..60000 (default 10)\n"
	"  --transport=ring|genl    carry calls over the shared-memory command ring\n"
	"                           (the default) or Generic Netlink messages\n"
	"  --ring-spin-us N         how long the ring's consumer spins for the next\n"
	"                           call before it sleeps, 0..1000 (default 200; never\n"
	"                           on one CPU)\n"
	"  --syslog                 log to syslog instead of stderr\n"
	"  --foreground             stay in the foreground (the default)\n"
	"  --no-sandbox             no seccomp filter: debugging only\n"
	"  --sandbox-log            log syscalls outside the allowlist instead of dying\n"
	"  --allow-no-landlock      run even where Landlock is missing (files then\n"
	"                           guarded by laked's user alone)\n"
	"  --test-seccomp-kill      make a forbidden syscall once sandboxed (tests)\n"
	"  --test-foreign-admin     once sandboxed, try another genl family's admin\n"
	"                           command (TASKSTATS_CMD_GET) and log the answer (tests)\n"
	"  --test-rcvbuf BYTES      a tiny netlink receive buffer, 1..65536 (tests)\n"
	"  --test-copy-ms MS        host device: each cuMemcpyDtoH lands again MS ms\n"
	"                           later, 1..10000, as a slow DMA would (tests)\n"
	"  --test-ring-forge tail|len|record\n"
	"                           replace the first reply over the ring with an\n"
	"                           impossible tail, slot length or record (tests)\n"
	"  --test-leave-first socket|unregister\n"
	"                           on SIGTERM, close the socket or unregister before\n"
	"                           the workers stop and the region is unmapped (tests)\n"
	"  -v, --verbose            log every failed call\n"
	"  -h, --help               this text\n"
	"See laked(8).\n";

/* 0: run; 1: help was printed; -1: bad usage. */
static int parse_options(int argc, char **argv, struct options *o)
{
	unsigned long n;
	char *end;
	int c;

	optind = 0;

	*o = (struct options){
		.device = "auto",
		.module_dir = LAKED_MODULE_DIR,
		.user = LAKED_USER,
		.load_period_ms = LOAD_PERIOD_MS_DEFAULT,
		.ring_spin_us = RING_SPIN_US_DEFAULT,
		.ring = true,
		.sandbox = true,
	};
	while ((c = getopt_long(argc, argv, "vh", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_DEVICE:
			o->device = optarg;
			if (strcmp(optarg, "auto") && strcmp(optarg, "cuda") &&
			    strcmp(optarg, "host")) {
				fprintf(stderr, "laked: --device=%s: not auto, cuda or host\n", optarg);
				goto bad;
			}
			break;
		case OPT_MODULE_DIR:
			o->module_dir = optarg;
			break;
		case OPT_USER:
			o->user = optarg;
			break;
		case OPT_LOAD_PERIOD:
			errno = 0;
			n = strtoul(optarg, &end, 10);
			if (errno || *end || !n || n > LOAD_PERIOD_MS_MAX) {
				fprintf(stderr, "laked: --load-period-ms=%s: not in 1..%d\n", optarg,
					LOAD_PERIOD_MS_MAX);
				goto bad;
			}
			o->load_period_ms = (u32)n;
			break;
		case OPT_TRANSPORT:
			if (strcmp(optarg, "ring") && strcmp(optarg, "genl")) {
				fprintf(stderr, "laked: --transport=%s: not ring or genl\n", optarg);
				goto bad;
			}
			o->ring = !strcmp(optarg, "ring");
			break;
		case OPT_RING_SPIN_US:
			errno = 0;
			n = strtoul(optarg, &end, 10);
			if (errno || *end || n > RING_SPIN_US_MAX) {
				fprintf(stderr, "laked: --ring-spin-us=%s: not in 0..%d\n", optarg,
					RING_SPIN_US_MAX);
				goto bad;
			}
			o->ring_spin_us = (u32)n;
			break;
		case OPT_SYSLOG:
			o->syslog = true;
			break;
		case OPT_FOREGROUND:
		case OPT_CONFIG:
			break;
		case OPT_NO_SANDBOX:
			o->sandbox = false;
			break;
		case OPT_SANDBOX_LOG:
			o->sandbox_log = true;
			break;
		case OPT_ALLOW_NO_LANDLOCK:
			o->allow_no_landlock = true;
			break;
		case OPT_TEST_KILL:
			o->test_kill = true;
			break;
		case OPT_TEST_FOREIGN_ADMIN:
			o->test_foreign_admin = true;
			break;
		case OPT_TEST_RCVBUF:
			errno = 0;
			n = strtoul(optarg, &end, 10);
			if (errno || *end || !n || n > 65536)
				goto bad;
			o->test_rcvbuf = (int)n;
			break;
		case OPT_TEST_COPY_MS:
			errno = 0;
			n = strtoul(optarg, &end, 10);
			if (errno || *end || !n || n > 10000)
				goto bad;
			o->test_copy_ms = (unsigned int)n;
			break;
		case OPT_TEST_RING_FORGE:
			if (!strcmp(optarg, "tail"))
				o->test_ring_forge = LAKED_RING_FORGE_TAIL;
			else if (!strcmp(optarg, "len"))
				o->test_ring_forge = LAKED_RING_FORGE_LEN;
			else if (!strcmp(optarg, "record"))
				o->test_ring_forge = LAKED_RING_FORGE_RECORD;
			else
				goto bad;
			break;
		case OPT_TEST_LEAVE_FIRST:
			if (strcmp(optarg, "socket") && strcmp(optarg, "unregister"))
				goto bad;
			o->test_leave_first = optarg;
			break;
		case 'v':
			o->verbose = true;
			break;
		case 'h':
			fputs(usage, stdout);
			return 1;
		default:
			goto bad;
		}
	}
	/* The sandbox options mean nothing without the sandbox. */
	if (optind == argc &&
	    (o->sandbox || (!o->test_kill && !o->sandbox_log && !o->allow_no_landlock)))
		return 0;
bad:
	fputs(usage, stderr);
	return -1;
}

/* The host device's warnings: names in them may come from the kernel. */
static void host_warn(const char *line)
{
	char safe[512];

	laked_log(LOG_WARNING, "host device: %s", laked_log_str(safe, sizeof(safe), line));
}

static int open_driver(const char *which, unsigned int copy_ms, struct lake_driver **drv)
{
	struct lake_host_opts host = { .copy_ms = copy_ms, .warn = host_warn };
	int ret;

	if (!strcmp(which, "host"))
		ret = lake_driver_open_host(drv, &host);
	else if (!strcmp(which, "cuda"))
		ret = lake_driver_open_cuda(drv);
	else
		ret = lake_driver_open_auto(drv, &host);
	if (ret) {
		laked_log(LOG_ERR, "cannot open the %s device: %s (%s)", which,
			  lake_driver_last_error(), strerrorname_np(-ret));
		return ret;
	}
	if (!strcmp(which, "auto") && !strcmp((*drv)->name, "host"))
		laked_log(LOG_INFO, "device: host, since CUDA is not usable: %s",
			  lake_driver_last_error());
	else
		laked_log(LOG_INFO, "device: %s", (*drv)->name);
	return 0;
}

/* cuInit, and what LAKE_A_DEVICE says: "host" or "cuda:<device name>". */
static int describe_device(struct lake_driver *drv, char *out, size_t size)
{
	char name[LAKE_GENL_DEVICE_MAX - sizeof("cuda:")] = "";
	CUdevice dev;
	CUresult r;

	r = drv->cuInit(0);
	if (!r && !strcmp(drv->name, "cuda")) {
		r = drv->cuDeviceGet(&dev, 0);
		if (!r)
			r = drv->cuDeviceGetName(name, sizeof(name), dev);
	}
	if (r) {
		laked_log(LOG_ERR, "%s device: cuInit/cuDeviceGetName: %s", drv->name,
			  laked_cu_name(r));
		return -ENODEV;
	}
	snprintf(out, size, "%s%s%s", drv->name, name[0] ? ":" : "", name);
	return 0;
}

static int open_region(struct laked_shm *shm, struct lake_driver *drv)
{
	int ret = laked_shm_open(shm);

	if (ret == -ENOENT) {
		laked_log(LOG_WARNING, "no /dev/%s (is lakeshm.ko loaded?): copies through the shared region will fail with CUDA_ERROR_INVALID_VALUE",
			  LAKE_SHM_DEVICE);
		return 0;
	}
	if (ret) {
		laked_log(LOG_ERR, "/dev/%s: %s", LAKE_SHM_DEVICE, strerrorname_np(-ret));
		return ret;
	}
	laked_log(LOG_INFO, "shared region: %llu KiB", (unsigned long long)shm->size >> 10);
	laked_shm_pin(shm, drv);
	return 0;
}

/* The user to become after setup; none when not started as root. */
static int sandbox_user(const char *name, struct laked_sandbox_cfg *cfg)
{
	struct passwd *pw;

	if (geteuid())
		return 0;
	pw = getpwnam(name);
	if (!pw) {
		laked_log(LOG_ERR, "no user \"%s\" to run as: create it (useradd --system --no-create-home --shell /usr/sbin/nologin %s) or name another with --user",
			  name, name);
		return -ENOENT;
	}
	if (!pw->pw_uid || !pw->pw_gid) {
		laked_log(LOG_ERR, "user \"%s\" has uid or gid 0: laked must not stay root", name);
		return -EINVAL;
	}
	cfg->uid = pw->pw_uid;
	cfg->gid = pw->pw_gid;
	return 0;
}

static void registration_failed(int err)
{
	switch (err) {
	case -EBUSY:
		laked_log(LOG_ERR, "registration refused (EBUSY): another laked is registered");
		break;
	case -EPERM:
		laked_log(LOG_ERR, "registration refused (EPERM): laked needs CAP_NET_ADMIN; run it as root");
		break;
	default:
		laked_log(LOG_ERR, "registration failed: %s", strerrorname_np(-err));
	}
}

static u64 now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (u64)ts.tv_sec * 1000 + (u64)ts.tv_nsec / 1000000;
}

static void report_load(struct laked *d, struct lake_driver *drv, struct laked_nl *nl,
			u64 period_ms)
{
	struct lake_genl_load load;

	if (period_ms > UINT32_MAX)
		period_ms = UINT32_MAX;
	if (!laked_load_sample(d, drv, (u32)period_ms, &load) && laked_nl_send_load(nl, &load))
		laked_log(LOG_WARNING, "load report not sent");
}

/*
 * Calls, signals and load ticks until SIGTERM or SIGINT: 0, or 1 when the
 * socket failed or the kernel no longer takes laked (lakelib reloaded, or
 * laked dropped): a supervisor then starts a fresh laked. This thread only
 * receives and queues; the workers run the calls. No message is read after
 * a signal; laked then stops writing the region and unregisters (main()),
 * so the kernel fails what is still in flight.
 */
static int serve(struct laked *d, struct lake_driver *drv, struct laked_nl *nl, int sigfd,
		 u32 period_ms, struct laked_ring *ring)
{
	struct pollfd pfd[3] = {
		{ .fd = sigfd, .events = POLLIN },
		{ .fd = laked_nl_fd(nl), .events = POLLIN },
		{ .fd = ring ? laked_ring_poll_fd(ring) : -1, .events = POLLIN },
	};
	u64 last = now_ms(), next = last + period_ms, now;
	struct signalfd_siginfo si;
	int more = 0;

	for (;;) {
		if (ring) {
			more = laked_ring_serve(ring);
			if (more < 0)
				return 1;
		}
		now = now_ms();
		if (poll(pfd, 3, more || next <= now ? 0 : (int)(next - now)) < 0 &&
		    errno != EINTR) {
			laked_log(LOG_ERR, "poll: %s", strerrorname_np(errno));
			return 1;
		}
		if (ring)
			laked_ring_awake(ring);
		if (pfd[0].revents) {
			if (read(sigfd, &si, sizeof(si)) != sizeof(si))
				si.ssi_signo = SIGTERM;
			laked_log(LOG_INFO, "SIG%s: unregistering",
				  sigabbrev_np((int)si.ssi_signo));
			return 0;
		}
		if (pfd[1].revents && laked_nl_receive(nl))
			return 1;
		now = now_ms();
		if (now >= next) {
			report_load(d, drv, nl, now - last);
			last = now;
			next = now + period_ms;
		}
	}
}

static void log_ring(struct laked_ring *ring)
{
	struct laked_ring_stats st;

	if (!ring)
		return;
	laked_ring_stats(ring, &st);
	laked_log(LOG_INFO, "ring: %llu calls taken (%llu wakeups, %llu by the watch in %llu watch wakeups, %llu spins), %llu replies put (%llu kicks, %llu full), %llu wakeups lost",
		  (unsigned long long)st.takes, (unsigned long long)st.wakeups,
		  (unsigned long long)st.watch_takes, (unsigned long long)st.watch_wakeups,
		  (unsigned long long)st.spins, (unsigned long long)st.puts,
		  (unsigned long long)st.kicks, (unsigned long long)st.full,
		  (unsigned long long)st.watch_lost);
}

/* The command ring, or genl when the kernel refuses it (logged either way). */
static int setup_ring(struct laked_ring *ring, struct laked_nl *nl, const struct laked_shm *shm)
{
	int sq_fd, cq_fd, watch_fd, ret;
	u64 off;

	laked_ring_fds(ring, &sq_fd, &cq_fd, &watch_fd);
	ret = laked_nl_ring_setup(nl, sq_fd, cq_fd, watch_fd, &off);
	if (!ret)
		ret = laked_ring_map(ring, shm->map, shm->size, off);
	if (ret) {
		laked_log(LOG_WARNING, "ring: not set up (%s); calls stay on Generic Netlink",
			  strerrorname_np(-ret));
		return ret;
	}
	laked_log(LOG_INFO, "calls over the command ring at region offset %llu",
		  (unsigned long long)off);
	return 0;
}

/* The VM test of the sandbox: this must kill laked with SIGSYS. */
static void forbidden_syscall(void)
{
	laked_log(LOG_INFO, "--test-seccomp-kill: calling socket(AF_INET), which the sandbox forbids");
	socket(AF_INET, SOCK_STREAM, 0);
	laked_log(LOG_ERR, "--test-seccomp-kill: still alive after a forbidden syscall");
}

static int block_signals(void)
{
	sigset_t set;
	int fd;

	/* Blocked before the driver starts threads, so only the signalfd sees them. */
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	if (sigprocmask(SIG_BLOCK, &set, NULL))
		return -errno;
	fd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	return fd < 0 ? -errno : fd;
}

/*
 * The configuration file's options in @cfg, and those followed by the
 * command line's in @args (argv[0] first, strings borrowed from argv and
 * @cfg); 0, or -1 after saying why.
 */
static int options_with_config(int argc, char **argv, struct laked_config_args *cfg,
			       struct laked_config_args *args)
{
	const char *path = NULL;
	char err[256];
	int c, i;

	/* A first pass for --config alone; the second pass checks everything. */
	opterr = 0;
	optind = 0;
	while ((c = getopt_long(argc, argv, "vh", longopts, NULL)) != -1)
		if (c == OPT_CONFIG)
			path = optarg;
	opterr = 1;
	if (laked_config_read(path ? path : LAKED_CONFIG, path != NULL, cfg, err, sizeof(err))) {
		fprintf(stderr, "laked: %s\n", err);
		return -1;
	}
	args->argc = argc + cfg->argc;
	args->argv = calloc((size_t)args->argc + 1, sizeof(char *));
	if (!args->argv) {
		laked_config_free(cfg);
		fputs("laked: out of memory\n", stderr);
		return -1;
	}
	args->argv[0] = argv[0];
	for (i = 0; i < cfg->argc; i++)
		args->argv[1 + i] = cfg->argv[i];
	for (i = 1; i < argc; i++)
		args->argv[cfg->argc + i] = argv[i];
	return 0;
}

int main(int argc, char **argv)
{
	char device[LAKE_GENL_DEVICE_MAX];
	struct laked_shm shm = {};
	struct laked_config cfg = {};
	struct laked_sandbox_cfg sb = {};
	struct laked_config_args conf, args;
	struct lake_driver *drv;
	char *module_dir = NULL;
	struct laked_pool *pool = NULL;
	struct laked_ring *ring = NULL;
	struct laked_nl *nl;
	struct options o;
	struct laked *d;
	int sigfd, ret, rc = 1, notify_fd = -1;

	if (options_with_config(argc, argv, &conf, &args))
		return 2;
	ret = parse_options(args.argc, args.argv, &o);
	if (ret) {
		free(args.argv);
		laked_config_free(&conf);
		return ret < 0 ? 2 : 0;
	}
	laked_log_set_level(o.verbose ? LOG_DEBUG : LOG_INFO);
	if (o.sandbox && sandbox_user(o.user, &sb))
		goto out;
	if (o.syslog) {
		ret = laked_log_to_syslog();
		if (ret)
			laked_log(LOG_WARNING, "cannot reach syslog (%s): logging to stderr",
				  strerrorname_np(-ret));
	}
	notify_fd = laked_notify_open();
	if (notify_fd < 0 && notify_fd != -ENOENT)
		laked_log(LOG_WARNING, "NOTIFY_SOCKET: %s: systemd will not hear that laked is ready",
			  strerrorname_np(-notify_fd));
	sigfd = block_signals();
	if (sigfd < 0) {
		laked_log(LOG_ERR, "signalfd: %s", strerrorname_np(-sigfd));
		goto out;
	}
	if (open_driver(o.device, o.test_copy_ms, &drv))
		goto err_sigfd;
	if (describe_device(drv, device, sizeof(device)) || open_region(&shm, drv))
		goto err_driver;

	/* Absolute: dlopen of a relative path calls getcwd, which the sandbox forbids. */
	module_dir = realpath(o.module_dir, NULL);
	cfg.drv = drv;
	cfg.module_dir = module_dir ? module_dir : o.module_dir;
	cfg.region = shm.map;
	cfg.region_size = shm.size;
	ret = laked_init(&d, &cfg);
	if (ret) {
		laked_log(LOG_ERR, "dispatcher: %s", strerrorname_np(-ret));
		goto err_shm;
	}
	if (laked_nl_open(&nl))
		goto err_laked;
	if (o.test_rcvbuf && laked_nl_test_rcvbuf(nl, o.test_rcvbuf))
		goto err_nl;
	ret = laked_nl_register(nl, device);
	if (ret) {
		registration_failed(ret);
		goto err_nl;
	}
	laked_log(LOG_INFO, "registered as \"%s\"; modules from %s", device, cfg.module_dir);

	/* The ring's eventfds now: the sandbox allows writing the kernel's and the watch only. */
	if (o.ring && shm.map) {
		ret = laked_ring_open(&ring, o.ring_spin_us);
		if (ret)
			laked_log(LOG_WARNING, "ring: eventfds: %s; calls stay on Generic Netlink",
				  strerrorname_np(-ret));
	} else if (o.ring) {
		laked_log(LOG_WARNING, "ring: no shared region; calls stay on Generic Netlink");
	}
	if (o.sandbox) {
		sb.mode = o.sandbox_log ? LAKED_SANDBOX_LOG : LAKED_SANDBOX_KILL;
		sb.ring_cq_fd = -1;
		sb.ring_watch_fd = -1;
		if (ring)
			laked_ring_fds(ring, &ret, &sb.ring_cq_fd, &sb.ring_watch_fd);
		sb.module_dir_fd = laked_module_dir_fd(d);
		sb.nl_fd = laked_nl_fd(nl);
		sb.syslog_fd = laked_log_syslog_fd();
		sb.notify_fd = notify_fd;
		sb.allow_no_landlock = o.allow_no_landlock;
		if (!sb.uid)
			sb.uid = geteuid();	/* not root: stays who it is */
		if (laked_sandbox_enter(drv, &sb))
			goto err_unregister;
	} else {
		/* Registered: lakelib asks no capability of laked from now on. */
		ret = laked_drop_capabilities();
		if (ret) {
			laked_log(LOG_ERR, "dropping capabilities: %s", strerrorname_np(-ret));
			goto err_unregister;
		}
		laked_log(LOG_WARNING, "running without the sandbox (--no-sandbox): no capabilities, but root's uid, no Landlock, no seccomp");
	}
	if (o.test_foreign_admin)
		laked_nl_test_foreign_admin(nl);
	if (o.test_kill) {
		forbidden_syscall();
		goto err_unregister;
	}
	if (ring && setup_ring(ring, nl, &shm)) {
		laked_ring_close(ring);
		ring = NULL;
	}
	if (ring && o.test_ring_forge)
		laked_ring_test_forge(ring, o.test_ring_forge);
	ret = laked_pool_create(&pool, d, ring ? laked_ring_sink(ring) : laked_nl_sink(nl));
	if (ret) {
		laked_log(LOG_ERR, "worker pool: %s", strerrorname_np(-ret));
		goto err_unregister;
	}
	if (ring)
		laked_ring_serve_pool(ring, pool);
	laked_nl_serve(nl, pool);
	if (laked_notify(notify_fd, "READY=1"))
		laked_log(LOG_WARNING, "NOTIFY_SOCKET: READY=1 not sent");
	rc = serve(d, drv, nl, sigfd, o.load_period_ms, ring);
	laked_notify(notify_fd, "STOPPING=1");
	/* The wrong order, for the kernel to catch: it stops laked first. */
	if (o.test_leave_first && !strcmp(o.test_leave_first, "socket")) {
		laked_nl_test_drop(nl);
	} else if (o.test_leave_first) {
		laked_nl_unregister(nl);
	}

err_unregister:
	laked_pool_destroy(pool);
	log_ring(ring);
	laked_ring_close(ring);
	laked_fini(d);
	d = NULL;
	laked_shm_close(&shm);
	if (!o.test_leave_first)
		laked_nl_unregister(nl);
err_nl:
	laked_nl_close(nl);
err_laked:
	laked_fini(d);
err_shm:
	free(module_dir);
	laked_shm_close(&shm);
err_driver:
	lake_driver_close(drv);
err_sigfd:
	close(sigfd);
out:
	laked_log(rc ? LOG_ERR : LOG_INFO, "exiting (%d)", rc);
	laked_log_close();
	if (notify_fd >= 0)
		close(notify_fd);
	free(args.argv);
	laked_config_free(&conf);
	return rc;
}
