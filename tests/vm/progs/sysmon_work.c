// SPDX-License-Identifier: GPL-2.0
/*
 * examples/sysmon's anomalous workloads, each under a comm of its own so
 * that the case can tell its windows apart (prctl PR_SET_NAME):
 *
 *	sysmon_work mkfiles DIR N	N files of 4 KiB in DIR (the victims; comm unchanged)
 *	sysmon_work ransom DIR		as ransomware does: every file of DIR read,
 *					"encrypted" (XOR keystream), written to a temporary
 *					file, renamed to NAME.locked, the original unlinked
 *	sysmon_work ransom DIR MS	the same under comm sm_rsleep, then "done" on stdout
 *					and MS ms asleep (a burst, then idle)
 *	sysmon_work forkbomb N		a fork bomb bounded at N processes: the root forks
 *					N children, each of which forks once more and waits
 *	sysmon_work portscan N		connect() to 127.0.0.1 ports 1..N, one socket each
 *	sysmon_work migrate		N calls as sm_cpuhi on the last CPU, then N as
 *					sm_moved on CPU 0 (a process whose newest comm is on
 *					a CPU harvested before the one holding its old comm)
 *
 * Exit 0 when the work was done, 1 (with a line on stderr) when a call it
 * needs failed.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static int die(const char *what)
{
	fprintf(stderr, "sysmon_work: %s: %s\n", what, strerror(errno));
	return 1;
}

static int mkfiles(const char *dir, int n)
{
	char path[512], buf[4096];
	int i, fd;

	for (i = 0; i < (int)sizeof(buf); i++)
		buf[i] = (char)(i * 31 + 7);
	mkdir(dir, 0755);
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/doc%04d.txt", dir, i);
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0 || write(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf))
			return die(path);
		close(fd);
	}
	return 0;
}

static int ransom(const char *dir, const char *comm)
{
	char path[512], tmp[600], out[600], buf[65536];
	unsigned int key = 0x9e3779b9u;
	struct dirent *de;
	DIR *d;
	ssize_t n, i;
	int fd, o, done = 0;

	prctl(PR_SET_NAME, comm);
	d = opendir(dir);
	if (!d)
		return die(dir);
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.' || strstr(de->d_name, ".locked"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		snprintf(tmp, sizeof(tmp), "%s.tmp", path);
		snprintf(out, sizeof(out), "%s.locked", path);
		fd = open(path, O_RDONLY);
		if (fd < 0)
			return die(path);
		o = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		if (o < 0)
			return die(tmp);
		while ((n = read(fd, buf, sizeof(buf))) > 0) {
			for (i = 0; i < n; i++) {
				key = key * 1664525u + 1013904223u;
				buf[i] ^= (char)(key >> 24);
			}
			if (write(o, buf, n) != n)
				return die(tmp);
		}
		close(fd);
		close(o);
		if (rename(tmp, out) || unlink(path))
			return die(out);
		done++;
	}
	closedir(d);
	printf("%s: %d files locked\n", comm, done);
	return 0;
}

static int forkbomb(int n)
{
	int i, spawned = 0;
	pid_t p;

	prctl(PR_SET_NAME, "sm_forkbomb");
	for (i = 0; i < n / 2; i++) {
		p = fork();
		if (p < 0)
			break;
		if (p == 0) {
			p = fork();
			if (p > 0)
				waitpid(p, NULL, 0);
			_exit(0);
		}
		spawned += 2;
	}
	while (wait(NULL) > 0)
		;
	printf("sm_forkbomb: %d processes\n", spawned);
	return spawned ? 0 : die("fork");
}

static int portscan(int n)
{
	struct sockaddr_in a;
	int port, fd, open_ports = 0;

	prctl(PR_SET_NAME, "sm_portscan");
	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	for (port = 1; port <= n; port++) {
		fd = socket(AF_INET, SOCK_STREAM, 0);
		if (fd < 0)
			return die("socket");
		a.sin_port = htons(port);
		if (!connect(fd, (struct sockaddr *)&a, sizeof(a)))
			open_ports++;
		close(fd);
	}
	printf("sm_portscan: %d ports, %d open\n", n, open_ports);
	return 0;
}

static int on_cpu(int cpu, const char *comm)
{
	cpu_set_t set;
	int i;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		return die("sched_setaffinity");
	prctl(PR_SET_NAME, comm);
	for (i = 0; i < 100; i++)
		getppid();
	if (sched_getcpu() != cpu) {
		fprintf(stderr, "sysmon_work: on CPU %d, not %d\n", sched_getcpu(), cpu);
		return 1;
	}
	return 0;
}

static int migrate(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	if (n < 2) {
		fprintf(stderr, "sysmon_work: migrate needs two CPUs\n");
		return 1;
	}
	if (on_cpu((int)n - 1, "sm_cpuhi") || on_cpu(0, "sm_moved"))
		return 1;
	printf("sm_moved: from CPU %ld to CPU 0\n", n - 1);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "mkfiles"))
		return mkfiles(argv[2], atoi(argv[3]));
	if (argc == 3 && !strcmp(argv[1], "ransom"))
		return ransom(argv[2], "sm_ransom");
	if (argc == 4 && !strcmp(argv[1], "ransom")) {
		int r = ransom(argv[2], "sm_rsleep");

		fflush(stdout);
		usleep(atoi(argv[3]) * 1000u);
		return r;
	}
	if (argc == 3 && !strcmp(argv[1], "forkbomb"))
		return forkbomb(atoi(argv[2]));
	if (argc == 3 && !strcmp(argv[1], "portscan"))
		return portscan(atoi(argv[2]));
	if (argc == 2 && !strcmp(argv[1], "migrate"))
		return migrate();
	fprintf(stderr, "usage: sysmon_work mkfiles DIR N | ransom DIR [MS] | forkbomb N | portscan N | migrate\n");
	return 2;
}
