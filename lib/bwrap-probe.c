/* bwrap-probe.c - what this host's bubblewrap can do, probed once per
 * bwrap path: see bwrap-probe.h.  A probe that found bwrap usable is also
 * kept in the caller's own runtime directory (see "The probe's cache"
 * below), so a later process skips the three bwrap starts it costs. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
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

/* ------------------------------------------------------------------
 * The probe's cache.  Why it is safe: the cache can only say "this bwrap
 * is usable, reports VERSION, and does or does not remount masks
 * read-only"; failures are never cached, so a refusal is always found
 * afresh.  A wrong "usable" cannot run a command unconfined: the launch
 * still goes through bwrap with the full envelope, and a bwrap that cannot
 * build it exits with its setup error before exec'ing the command.  The
 * answer is keyed by everything the probe depends on: bwrap's identity
 * (path, dev, ino, size, mtime, ctime, mode, owner), the kernel release,
 * the boot, the caller's uid and euid, and the user-namespace sysctls; any
 * change misses.  The file is read only from $XDG_RUNTIME_DIR when that
 * directory and the file belong to the caller and neither is writable by
 * group or others (a forger would need the caller's own rights), opened
 * without following a symlink; it is written to a fresh temporary file and
 * renamed, so a reader never sees half of it. */

#define CACHE_NAME "pathgate-bwrap-probe"

static void read_text(const char *file, char *buf, size_t size)
{
	ssize_t n;
	int fd = open(file, O_RDONLY | O_CLOEXEC);

	buf[0] = '\0';
	if (fd < 0)
		return;
	n = read(fd, buf, size - 1);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
}

/* The key of BWRAP's probe into KEY; false when bwrap cannot be stat'ed. */
static bool cache_key(const char *bwrap, char *key, size_t size)
{
	struct stat st;
	struct utsname u;
	char boot[64];

	if (stat(bwrap, &st) < 0 || uname(&u) < 0)
		return false;
	read_text("/proc/sys/kernel/random/boot_id", boot, sizeof(boot));
	snprintf(key, size,
		 "v1 %s %ju %ju %jd %jd.%09ld %jd.%09ld %o %u %u %u %s %s %s %ld %ld %ld",
		 bwrap, (uintmax_t)st.st_dev, (uintmax_t)st.st_ino, (intmax_t)st.st_size,
		 (intmax_t)st.st_mtim.tv_sec, st.st_mtim.tv_nsec,
		 (intmax_t)st.st_ctim.tv_sec, st.st_ctim.tv_nsec,
		 (unsigned)st.st_mode, (unsigned)st.st_uid, (unsigned)getuid(),
		 (unsigned)geteuid(), u.release, u.version, boot,
		 read_long("/proc/sys/user/max_user_namespaces"),
		 read_long("/proc/sys/kernel/unprivileged_userns_clone"),
		 read_long("/proc/sys/kernel/apparmor_restrict_unprivileged_userns"));
	return true;
}

/* The caller's own runtime directory, or NULL when there is none the
 * caller alone may write. */
static const char *cache_dir(void)
{
	const char *dir = secure_getenv("XDG_RUNTIME_DIR");
	struct stat st;

	if (!dir || dir[0] != '/' || lstat(dir, &st) < 0 || !S_ISDIR(st.st_mode) ||
	    st.st_uid != geteuid() || (st.st_mode & 022))
		return NULL;
	return dir;
}

/* Fill the probe from the cache when its key is KEY; true when it did. */
static bool cache_load(const char *key)
{
	const char *dir = cache_dir();
	char file[4200], buf[8192], version[32];
	struct stat st;
	ssize_t n;
	int fd, ro;
	char *nl;

	if (!dir)
		return false;
	snprintf(file, sizeof(file), "%s/" CACHE_NAME, dir);
	fd = open(file, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return false;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
	    (st.st_mode & 022)) {
		close(fd);
		return false;
	}
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	nl = strchr(buf, '\n');
	if (!nl)
		return false;
	*nl = '\0';
	if (strcmp(buf, key) != 0 || sscanf(nl + 1, "%31s %d", version, &ro) != 2)
		return false;
	probe.why = NULL;
	snprintf(probe.version, sizeof(probe.version), "%s", version);
	probe.masks_read_only = ro == 1;
	return true;
}

/* Keep a usable probe's answer under KEY (best effort). */
static void cache_store(const char *key)
{
	const char *dir = cache_dir();
	char file[4200], tmp[4300];
	FILE *f;
	int fd;

	if (!dir)
		return;
	snprintf(file, sizeof(file), "%s/" CACHE_NAME, dir);
	snprintf(tmp, sizeof(tmp), "%s.%ld", file, (long)getpid());
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return;
	f = fdopen(fd, "w");
	if (!f) {
		close(fd);
		unlink(tmp);
		return;
	}
	fprintf(f, "%s\n%s %d\n", key, probe.version, probe.masks_read_only ? 1 : 0);
	if (fclose(f) != 0 || rename(tmp, file) < 0)
		unlink(tmp);
}

static void ensure_probe(void)
{
	const char *bwrap = pg_envelope_bwrap();
	char key[4096 + 512];
	bool keyed;

	if (probe.done && strcmp(probe.path, bwrap) == 0)
		return;
	snprintf(probe.path, sizeof(probe.path), "%s", bwrap);
	keyed = cache_key(bwrap, key, sizeof(key));
	if (!keyed || !cache_load(key)) {
		run_probe(bwrap);
		if (keyed && !probe.why)
			cache_store(key);
	}
	probe.done = true;
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
