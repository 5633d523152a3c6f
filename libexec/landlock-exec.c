/* landlock-exec.c - pathgate-landlock-exec, the Landlock envelope's last
 * step before the command: pg_spawn starts it with posix_spawn (so the
 * caller's file actions and attributes apply, as they apply to bwrap),
 * and it restricts itself and execs the command.  It decides nothing: the
 * ruleset and the seccomp program were built by the library in the
 * caller, and arrive as descriptors.
 *
 * Usage (argv, never typed by hand):
 *   pathgate-landlock-exec RULESET_FD SECCOMP_FD STATUS_FD PARENT_PID DIR FILE ARGV0 [ARG]...
 * In order: die with the parent, a new session, every capability dropped
 * (bounding, ambient, effective, permitted, inheritable), no_new_privs,
 * landlock_restrict_self, chdir DIR, the seccomp filter, every descriptor
 * above 2 closed on exec, then execvp FILE with the environment it was
 * given.  A failing step writes {step, errno} to STATUS_FD and exits 125
 * (127 when the exec fails) without running anything; a successful exec
 * closes STATUS_FD, which is how the library knows it ran. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef SYS_landlock_restrict_self
#define SYS_landlock_restrict_self 446
#endif
#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC (1U << 2)
#endif
#ifndef PR_CAP_AMBIENT
#define PR_CAP_AMBIENT 47
#define PR_CAP_AMBIENT_CLEAR_ALL 4
#endif

extern char **environ;

enum step { S_ARGS = 1, S_PARENT, S_CAPS, S_NNP, S_LANDLOCK, S_CHDIR, S_SECCOMP, S_FDS, S_EXEC };

static int status_fd = -1;

static void fail(enum step s, int err)
{
	int msg[2] = { (int)s, err };

	if (status_fd >= 0 && write(status_fd, msg, sizeof(msg)) < 0)
		_exit(125);
	_exit(s == S_EXEC ? 127 : 125);
}

static int number(const char *s)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (*s == '\0' || *end != '\0' || v < 0 || v > INT_MAX)
		fail(S_ARGS, EINVAL);
	return (int)v;
}

static int last_cap(void)
{
	char buf[16] = { 0 };
	int fd = open("/proc/sys/kernel/cap_last_cap", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;

	if (fd >= 0)
		close(fd);
	return n > 0 ? atoi(buf) : 63;
}

/* Every capability, in every set.  Dropping the bounding set needs
 * CAP_SETPCAP: a caller without it holds none to drop. */
static void drop_caps(void)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];

	memset(d, 0, sizeof(d));
	for (int c = 0; c <= last_cap(); c++)
		if (prctl(PR_CAPBSET_DROP, c, 0, 0, 0) < 0 && errno != EINVAL && errno != EPERM)
			fail(S_CAPS, errno);
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0 && errno != EINVAL)
		fail(S_CAPS, errno);
	if (syscall(SYS_capset, &h, d) < 0)
		fail(S_CAPS, errno);
	memset(d, 0xff, sizeof(d));
	if (syscall(SYS_capget, &h, d) < 0 || d[0].effective || d[1].effective ||
	    d[0].permitted || d[1].permitted)
		fail(S_CAPS, EPERM);
	/* a bounding capability left (no CAP_SETPCAP) is harmless: with
	 * nothing permitted and no_new_privs, exec cannot raise it */
}

static void load_seccomp(int fd)
{
	struct sock_fprog prog;
	struct stat st;
	void *buf;

	if (fstat(fd, &st) < 0 || st.st_size <= 0 || st.st_size % sizeof(struct sock_filter))
		fail(S_SECCOMP, EINVAL);
	buf = malloc((size_t)st.st_size);
	if (!buf || pread(fd, buf, (size_t)st.st_size, 0) != st.st_size)
		fail(S_SECCOMP, buf ? EIO : ENOMEM);
	prog.len = (unsigned short)(st.st_size / sizeof(struct sock_filter));
	prog.filter = buf;
	if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0) < 0)
		fail(S_SECCOMP, errno);
	free(buf);
	close(fd);
}

/* 0, 1 and 2 pass; everything else closes on exec (STATUS_FD too, which
 * is how the library learns the exec happened). */
static void close_on_exec(void)
{
	if (syscall(SYS_close_range, 3U, ~0U, CLOSE_RANGE_CLOEXEC) == 0)
		return;
	for (int fd = 3; fd < 65536; fd++)
		fcntl(fd, F_SETFD, FD_CLOEXEC);
}

int main(int argc, char **argv)
{
	int ruleset, sfd;
	pid_t parent;

	if (argc < 8)
		return 125;
	status_fd = number(argv[3]);
	ruleset = number(argv[1]);
	sfd = number(argv[2]);
	parent = (pid_t)number(argv[4]);
	if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0 || getppid() != parent)
		fail(S_PARENT, ESRCH);
	setsid();   /* fails only for a session leader the caller's attr made */
	drop_caps();
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		fail(S_NNP, errno);
	if (syscall(SYS_landlock_restrict_self, ruleset, 0U) < 0)
		fail(S_LANDLOCK, errno);
	close(ruleset);
	if (chdir(argv[5]) < 0)
		fail(S_CHDIR, errno);
	load_seccomp(sfd);
	close_on_exec();
	execvp(argv[6], argv + 7);
	fail(S_EXEC, errno);
	return 127;
}
