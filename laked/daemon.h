/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The parts of laked around the dispatcher, one file each: the shared
 * region (shm.c), the netlink socket (netlink.c), load reports (load.c) and
 * the sandbox (sandbox.c). main.c sets them up in that order, enters the
 * sandbox, and serves until SIGTERM or SIGINT.
 */
#ifndef LAKED_DAEMON_H
#define LAKED_DAEMON_H

#include <stdio.h>
#include <sys/types.h>
#include <uapi/lake/genl.h>
#include <lake/ring.h>
#include "laked/laked.h"

/* shm.c: /dev/lake_shm mapped, and pinned for DMA on the CUDA driver. */
struct laked_shm {
	void *map;			/* NULL: no region */
	u64 size;
	struct lake_driver *pinned_by;	/* NULL: not pinned */
	CUcontext pin_ctx;
};

/* 0, -ENOENT when the device is absent (laked then runs without a region), or -errno. */
int laked_shm_open(struct laked_shm *shm);
/* CUDA only: cuMemHostRegister the region. Failure is logged; copies then stage. */
void laked_shm_pin(struct laked_shm *shm, struct lake_driver *drv);
/* Unpin (before the driver closes) and unmap. */
void laked_shm_close(struct laked_shm *shm);

/* netlink.c: the "lake" genl family as laked speaks it. */
struct laked_nl;

/* Socket, family lookup and buffers; 0 or -errno (-ENOENT: no "lake" family). */
int laked_nl_open(struct laked_nl **out);
/* Where replies go: sends from any thread. */
struct laked_reply_sink *laked_nl_sink(struct laked_nl *nl);
/* Calls go to @pool from now on, those received before it first. */
void laked_nl_serve(struct laked_nl *nl, struct laked_pool *pool);
/* LAKE_CMD_REGISTER and its answer: 0 or the kernel's -errno (-EBUSY, -EPERM). */
int laked_nl_register(struct laked_nl *nl, const char *device);
/* Tests: a receive buffer of about @bytes, so the kernel's sends find it full. */
int laked_nl_test_rcvbuf(struct laked_nl *nl, int bytes);
/*
 * Tests: send another Generic Netlink family's admin command (taskstats'
 * TASKSTATS_CMD_GET for pid 1) on the registered socket and log the
 * kernel's answer; a laked with no capability gets EPERM.
 */
void laked_nl_test_foreign_admin(struct laked_nl *nl);
int laked_nl_fd(const struct laked_nl *nl);
/*
 * Serve the CALL messages waiting; 0, -ENOTCONN when the kernel no longer
 * takes laked as its daemon (logged), or -errno when the socket failed.
 */
int laked_nl_receive(struct laked_nl *nl);
int laked_nl_send_load(struct laked_nl *nl, const struct lake_genl_load *load);
void laked_nl_unregister(struct laked_nl *nl);
void laked_nl_close(struct laked_nl *nl);
/* Tests: close the socket now, as a laked that died would; sends then fail. */
void laked_nl_test_drop(struct laked_nl *nl);
/*
 * LAKE_CMD_RING_SETUP with eventfds @sq_fd and @cq_fd: 0 with the ring's
 * region offset in *@off, or the kernel's -errno (laked stays on genl).
 */
int laked_nl_ring_setup(struct laked_nl *nl, int sq_fd, int cq_fd, int watch_fd, u64 *off);

/* ring.c: the command ring's daemon end (uapi/lake/ring.h). */
struct laked_ring;
struct laked_ring_stats {
	u64 takes, wakeups, spins;	/* submission side; spins: a worker's looks */
	u64 watch_wakeups, watch_takes;	/* a watching worker woken; calls it took */
	u64 watch_lost;			/* a watch's wait ran out with a job of its own queued */
	u64 puts, kicks, full;		/* completion side */
};
/* Its three eventfds (before the sandbox); 0 or -errno. */
int laked_ring_open(struct laked_ring **out, u32 spin_us);
void laked_ring_fds(const struct laked_ring *r, int *sq_fd, int *cq_fd, int *watch_fd);
/* The ring at @off in the region the kernel named; 0 or -EPROTO (logged). */
int laked_ring_map(struct laked_ring *r, void *region, u64 region_size, u64 off);
/* Replies go in the completion ring: from any thread. */
struct laked_reply_sink *laked_ring_sink(struct laked_ring *r);
int laked_ring_put(struct laked_ring *r, const void *blob, u32 len);
/* Calls taken from the ring go to @pool; its idle workers spin on the ring. */
void laked_ring_serve_pool(struct laked_ring *r, struct laked_pool *pool);
/*
 * The main thread, its eventfd readable or not: take every call there is
 * and mark itself asleep; laked_ring_awake() after poll() whatever this
 * returned. 0: poll() may sleep; 1: more came, poll() must not sleep;
 * -EPROTO: the ring is broken (logged).
 */
int laked_ring_serve(struct laked_ring *r);
void laked_ring_awake(struct laked_ring *r);
int laked_ring_poll_fd(const struct laked_ring *r);
void laked_ring_stats(struct laked_ring *r, struct laked_ring_stats *st);
void laked_ring_close(struct laked_ring *r);
/* Tests: the next reply is replaced by an impossible tail, slot length or record. */
enum laked_ring_forge {
	LAKED_RING_FORGE_NONE,
	LAKED_RING_FORGE_TAIL,
	LAKED_RING_FORGE_LEN,
	LAKED_RING_FORGE_RECORD,
};
void laked_ring_test_forge(struct laked_ring *r, enum laked_ring_forge kind);

/* load.c: a LAKE_A_LOAD report for the last @period_ms; 0 or -errno. */
int laked_load_sample(struct laked *d, struct lake_driver *drv, u32 period_ms,
		      struct lake_genl_load *out);

/* sandbox.c */
#define LAKED_USER	"laked"	/* the user laked runs as once set up */

enum laked_sandbox {
	LAKED_SANDBOX_KILL,	/* a syscall outside the allowlist kills laked */
	LAKED_SANDBOX_LOG,	/* ... is only logged by the kernel's audit: for finding needs */
};

struct laked_sandbox_cfg {
	enum laked_sandbox mode;
	uid_t uid;		/* when started as root: the user to become, not 0 */
	gid_t gid;
	int module_dir_fd;	/* openat2 and reads beneath it only; -1: none */
	int nl_fd;		/* the registered netlink socket */
	int syslog_fd;		/* -1: logging to stderr */
	int notify_fd;		/* systemd's NOTIFY_SOCKET, connected; <= 2: none */
	int ring_cq_fd;		/* the kernel's eventfd laked writes; <= 2: no ring */
	int ring_watch_fd;	/* the watch eventfd its pool writes; <= 2: none */
	bool allow_no_landlock;	/* run on without Landlock (--allow-no-landlock) */
	int test_landlock_errno;	/* tests: Landlock fails with this errno */
};

/*
 * Drop to @cfg's user with no capability left, then Landlock and the
 * seccomp allowlist for @drv (sandbox.c's head comment lists them); 0 or
 * -errno (logged), the layers in force logged. Call it with no other
 * thread started, but the driver's.
 */
int laked_sandbox_enter(const struct lake_driver *drv, const struct laked_sandbox_cfg *cfg);
/* Every capability of this thread dropped (bounding set as far as it may); 0 or -errno. */
int laked_drop_capabilities(void);

/*
 * service.c: the configuration file, read into "--key=value" arguments that
 * go before the command line's, and systemd's readiness notification.
 */
struct laked_config_args {
	int argc;
	char **argv;
};

/*
 * 0 (a missing file is empty unless @must_exist), or -errno with a message
 * naming the file and line in @err.
 */
int laked_config_read(const char *path, bool must_exist, struct laked_config_args *out,
		      char *err, size_t errlen);
/* The same for an open file, named @name in messages (the fuzzer's way in). */
int laked_config_parse(FILE *f, const char *name, struct laked_config_args *out, char *err,
		       size_t errlen);
void laked_config_free(struct laked_config_args *a);
/* The $NOTIFY_SOCKET datagram socket, connected; -ENOENT when unset, or -errno. */
int laked_notify_open(void);
/* Send @state ("READY=1", ...); a no-op for fd < 0. 0 or -errno. */
int laked_notify(int fd, const char *state);

#endif /* LAKED_DAEMON_H */
