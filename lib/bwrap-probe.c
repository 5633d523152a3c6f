/* bwrap-probe.c - what this host's bubblewrap can do, probed once per
 * bwrap path: see bwrap-probe.h. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bwrap-probe.h"

static pthread_mutex_t probe_lock = PTHREAD_MUTEX_INITIALIZER;
static char bwrap_override[4096];
static struct {
	char path[4096];      /* the bwrap this answer is for */
	bool done;
	const char *why;      /* NULL: available */
	char version[32];
	bool masks_read_only; /* bwrap accepts --remount-ro over its own tmpfs */
	char whybuf[4096 + 256];
} probe;

void pg_envelope_set_bwrap(const char *path)
{
	pthread_mutex_lock(&probe_lock);
	snprintf(bwrap_override, sizeof(bwrap_override), "%s", path ? path : "");
	pthread_mutex_unlock(&probe_lock);
}

const char *pg_envelope_bwrap(void)
{
	return bwrap_override[0] ? bwrap_override : PG_BWRAP_PATH;
}

static long read_long(const char *file)
{
	char buf[32];
	ssize_t n;
	int fd = open(file, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	return strtol(buf, NULL, 10);
}

/* Run ARGV with stdout and stderr into OUT; the exit status, or -1. */
static int run_capture(char *const argv[], char *out, size_t size)
{
	char *envp[] = { NULL };
	posix_spawn_file_actions_t fa;
	int p[2], status = 0, r;
	ssize_t n;
	size_t got = 0;
	pid_t pid;

	if (pipe2(p, O_CLOEXEC) < 0)
		return -1;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, p[1], 1);
	posix_spawn_file_actions_adddup2(&fa, p[1], 2);
	r = posix_spawn(&pid, argv[0], &fa, NULL, argv, envp);
	posix_spawn_file_actions_destroy(&fa);
	close(p[1]);
	if (r != 0) {
		close(p[0]);
		errno = r;
		return -1;
	}
	while (got + 1 < size && (n = read(p[0], out + got, size - 1 - got)) > 0)
		got += (size_t)n;
	out[got] = '\0';
	close(p[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* A real envelope, once: the same namespaces and, with MASK, a directory
 * mask remounted read-only, around "bwrap --version".  Proves what no
 * sysctl shows (an LSM refusing user namespaces, a bwrap that refuses
 * --remount-ro over its own tmpfs). */
static int trial(const char *bwrap, bool mask, char *out, size_t size)
{
	char *argv[32];
	size_t n = 0;

	argv[n++] = (char *)bwrap;
	argv[n++] = (char *)"--unshare-all";
	argv[n++] = (char *)"--unshare-user";
	argv[n++] = (char *)"--disable-userns";
	argv[n++] = (char *)"--cap-drop";
	argv[n++] = (char *)"ALL";
	argv[n++] = (char *)"--die-with-parent";
	argv[n++] = (char *)"--ro-bind";
	argv[n++] = (char *)"/";
	argv[n++] = (char *)"/";
	argv[n++] = (char *)"--tmpfs";
	argv[n++] = (char *)"/tmp";
	if (mask) {
		argv[n++] = (char *)"--perms";
		argv[n++] = (char *)"0000";
		argv[n++] = (char *)"--tmpfs";
		argv[n++] = (char *)"/tmp/mask";
		argv[n++] = (char *)"--remount-ro";
		argv[n++] = (char *)"/tmp/mask";
	}
	argv[n++] = (char *)"--";
	argv[n++] = (char *)bwrap;
	argv[n++] = (char *)"--version";
	argv[n] = NULL;
	return run_capture(argv, out, size);
}

static bool version_at_least(const char *v, int major, int minor)
{
	int a = 0, b = 0;

	if (sscanf(v, "%d.%d", &a, &b) < 1)
		return false;
	return a > major || (a == major && b >= minor);
}

static void run_probe(const char *bwrap)
{
	struct stat st;
	long n;

	probe.why = NULL;
	probe.version[0] = '\0';
	probe.masks_read_only = false;
	if (stat(bwrap, &st) < 0 || !S_ISREG(st.st_mode) || access(bwrap, X_OK) < 0) {
		snprintf(probe.whybuf, sizeof(probe.whybuf), "bwrap is not an executable at %s", bwrap);
		probe.why = probe.whybuf;
		return;
	}
	n = read_long("/proc/sys/user/max_user_namespaces");
	if (n == 0) {
		probe.why = "user namespaces are disabled (user.max_user_namespaces = 0)";
		return;
	}
	if (geteuid() != 0 && !(st.st_mode & S_ISUID) &&
	    read_long("/proc/sys/kernel/unprivileged_userns_clone") == 0) {
		probe.why = "unprivileged user namespaces are disabled (kernel.unprivileged_userns_clone = 0)";
		return;
	}
	{
		char *argv[] = { (char *)bwrap, (char *)"--version", NULL };
		char out[512];

		if (run_capture(argv, out, sizeof(out)) != 0 ||
		    sscanf(out, "bubblewrap %31s", probe.version) != 1) {
			snprintf(probe.whybuf, sizeof(probe.whybuf), "%s does not run as bubblewrap", bwrap);
			probe.why = probe.whybuf;
			return;
		}
	}
	/* --disable-userns and --bind-fd arrived in 0.8.0. */
	if (!version_at_least(probe.version, 0, 8)) {
		snprintf(probe.whybuf, sizeof(probe.whybuf),
			 "bubblewrap %s is older than 0.8.0 (no --bind-fd, no --disable-userns)",
			 probe.version);
		probe.why = probe.whybuf;
		return;
	}
	{
		char out[1024];

		probe.masks_read_only = trial(bwrap, true, out, sizeof(out)) == 0;
		if (!probe.masks_read_only && trial(bwrap, false, out, sizeof(out)) != 0) {
			out[strcspn(out, "\n")] = '\0';
			snprintf(probe.whybuf, sizeof(probe.whybuf),
				 "bwrap cannot build an envelope on this host: %s", out);
			probe.why = probe.whybuf;
		}
	}
}

static void ensure_probe(void)
{
	const char *bwrap = pg_envelope_bwrap();

	if (!probe.done || strcmp(probe.path, bwrap) != 0) {
		snprintf(probe.path, sizeof(probe.path), "%s", bwrap);
		run_probe(bwrap);
		probe.done = true;
	}
}

bool pg_envelope_masks_read_only(void)
{
	bool ro;

	pthread_mutex_lock(&probe_lock);
	ensure_probe();
	ro = probe.why || probe.masks_read_only;
	pthread_mutex_unlock(&probe_lock);
	return ro;
}

const char *pg_envelope_unavailable(void)
{
	const char *why;

	pthread_mutex_lock(&probe_lock);
	ensure_probe();
	why = probe.why;
	pthread_mutex_unlock(&probe_lock);
	return why;
}

void pg_bwrap_version(char *buf, size_t size)
{
	pthread_mutex_lock(&probe_lock);
	snprintf(buf, size, "%s", probe.version);
	pthread_mutex_unlock(&probe_lock);
}
