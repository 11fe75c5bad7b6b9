// SPDX-License-Identifier: GPL-2.0
/*
 * netns_release UID PORTID: what any local user can do to a netlink portid.
 * As UID, in a new user and network namespace, bind a NETLINK_GENERIC
 * socket to PORTID (laked's, as /proc/net/netlink shows it to anyone) and
 * close it: the kernel sends NETLINK_URELEASE for that portid, in the new
 * namespace. Exit 0 iff the bind succeeded, so the case knows the release
 * really happened; whether laked survived it is the case's check.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <sys/socket.h>
#include <linux/netlink.h>
#include "vmtest.h"

int main(int argc, char **argv)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	int fd, uid;

	if (argc != 3) {
		fprintf(stderr, "usage: netns_release UID PORTID\n");
		return 2;
	}
	uid = atoi(argv[1]);
	sa.nl_pid = (unsigned int)strtoul(argv[2], NULL, 10);
	if (setgid(uid) || setuid(uid)) {
		perror("netns_release: setuid");
		return 2;
	}
	if (unshare(CLONE_NEWUSER | CLONE_NEWNET)) {
		perror("netns_release: unshare");
		return 2;
	}
	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		perror("netns_release: bind");
		return 1;
	}
	close(fd);
	printf("netns_release: portid %u bound and released in a new namespace as uid %d\n",
	       sa.nl_pid, uid);
	return 0;
}
