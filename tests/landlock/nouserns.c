/* nouserns.c - run a command as root in a user namespace where no
 * further user namespace can be made (user.max_user_namespaces = 0 in
 * it), the way a host that blocks them looks to bwrap: it fails with
 * ENOSPC there, and pathgate's automatic choice must pick Landlock.
 *
 * Usage: nouserns CMD [ARG]...
 * As root the namespace maps every uid and gid to itself (so nobody is
 * 65534 inside, and setpriv can become it); otherwise only the caller,
 * as root.  Exits with CMD's status; 77 when no user namespace can be
 * made here at all. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static int write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? write(fd, text, strlen(text)) : -1;

	if (fd >= 0)
		close(fd);
	return n == (ssize_t)strlen(text) ? 0 : -1;
}

static int map(pid_t pid, uid_t uid, gid_t gid)
{
	char path[64], text[64];

	if (uid == 0) {
		snprintf(path, sizeof(path), "/proc/%d/uid_map", (int)pid);
		if (write_file(path, "0 0 4294967295\n") < 0)
			return -1;
		snprintf(path, sizeof(path), "/proc/%d/gid_map", (int)pid);
		return write_file(path, "0 0 4294967295\n");
	}
	snprintf(path, sizeof(path), "/proc/%d/setgroups", (int)pid);
	write_file(path, "deny\n");
	snprintf(path, sizeof(path), "/proc/%d/uid_map", (int)pid);
	snprintf(text, sizeof(text), "0 %u 1\n", (unsigned)uid);
	if (write_file(path, text) < 0)
		return -1;
	snprintf(path, sizeof(path), "/proc/%d/gid_map", (int)pid);
	snprintf(text, sizeof(text), "0 %u 1\n", (unsigned)gid);
	return write_file(path, text);
}

int main(int argc, char **argv)
{
	int go[2], ready[2], status;
	char c = 0;
	pid_t pid;

	if (argc < 2) {
		fprintf(stderr, "usage: nouserns CMD [ARG]...\n");
		return 2;
	}
	if (pipe(go) < 0 || pipe(ready) < 0)
		return 99;
	pid = fork();
	if (pid < 0)
		return 99;
	if (pid == 0) {
		close(go[1]);
		close(ready[0]);
		c = unshare(CLONE_NEWUSER) == 0 ? 1 : 0;
		if (write(ready[1], &c, 1) != 1 || !c)
			_exit(77);
		if (read(go[0], &c, 1) != 1 || !c)
			_exit(77);
		if (write_file("/proc/sys/user/max_user_namespaces", "0\n") < 0) {
			perror("nouserns: user.max_user_namespaces");
			_exit(99);
		}
		execvp(argv[1], argv + 1);
		perror(argv[1]);
		_exit(127);
	}
	close(go[0]);
	close(ready[1]);
	if (read(ready[0], &c, 1) != 1 || !c) {
		waitpid(pid, NULL, 0);
		printf("SKIP: no user namespace can be made here\n");
		return 77;
	}
	c = map(pid, geteuid(), getegid()) == 0;
	if (!c)
		perror("nouserns: uid_map");
	if (write(go[1], &c, 1) != 1)
		return 99;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return 99;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
