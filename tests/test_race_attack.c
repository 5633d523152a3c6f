/* test_race_attack.c - attacker threads and processes swap directories and
 * symlinks under the library while it opens, creates, renames and writes
 * through those very paths.  Nothing the library does may reach outside
 * the root or a denied object.
 *
 * Attacks (all run at once, looping renameat2 as fast as they can):
 *   thread  A: "a"  (a directory)  <-> "a_sym" (a symlink to "/")
 *   thread  B: "b"  (a directory)  <-> "b_sym" (a symlink to the denied "secret")
 *   thread  C: "c"  (a directory)  <-> "c_sym" (a symlink to the outside, absolute)
 *   process P: "pa" (a directory)  <-> "pb" (a directory whose entries are
 *              symlinks to the outside marker and to the denied key)
 *   processes: the pairs of A and B again, from outside our address space
 *   process M: rename "mv" onto the absent denied name "absent-deny" and back
 *
 * What was actually touched is checked, not what the library says:
 *   - every fd the library returns is fstat()ed: its (dev, ino) must not be
 *     a marker outside the root or a denied file, and its /proc/self/fd
 *     name must lie beneath the root;
 *   - every successful pg_stat must not describe a marker;
 *   - at the end, everything outside the root and under the denied names
 *     (content, size, inode, mtime, ctime; atime is not trusted) is as it
 *     was.
 * Creations that landed on the absent denied name are the documented seam
 * of invariant 3 (the name moved after the landing check); they are counted
 * and printed, not failed.
 *
 * Usage: test_race_attack [--seconds S] [--ops N] [--threads T] [--calm] [--unguarded]
 * (--calm runs the same work with no attacker: a baseline.  --unguarded
 * runs the opens and stats with plain openat/fstatat: the detectors must
 * report escapes, which shows they can.)
 * The default (make check) is 2 seconds per resolver; PG_RACE_SECONDS
 * overrides it.  --ops runs until N guarded operations in total.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "escape/adv.h"
#include "pathgate.h"

#define MAX_WORKERS 8

struct ident { dev_t dev; ino_t ino; const char *what; };

static struct adv_area area;
static struct ident idents[8];
static int nidents;
static int root_dirfd = -1;
static int root_fd_plain = -1;   /* O_RDONLY: openat needs a searchable fd, not O_PATH-only use */
static char a_outside_path[700];   /* "a/<outside without '/'>/marker" */
static char a_outside_file[700];   /* "a/<outside without '/'>/f" */

static atomic_bool stop;
static atomic_ullong ops, refused, escapes, denied_reads, seam, swaps;
static unsigned long long target_ops;
static bool calm;   /* --calm: no attackers, a baseline of the same work */
/* --unguarded: the same work with plain openat/fstatat instead of the
 * library.  It must be caught: this proves the detectors can fail. */
static bool unguarded;

static int swap(int dirfd, const char *x, const char *y)
{
	return (int)syscall(SYS_renameat2, dirfd, x, dirfd, y, RENAME_EXCHANGE);
}

static const char *forbidden(const struct stat *st)
{
	int i;

	for (i = 0; i < nidents; i++)
		if (st->st_dev == idents[i].dev && st->st_ino == idents[i].ino)
			return idents[i].what;
	return NULL;
}

static void report(const char *what, const char *op, const char *path)
{
	fprintf(stderr, "ESCAPE: %s %s reached %s\n", op, path, what);
}

/* Inspect an fd the library handed out. */
static void check_fd(int fd, const char *op, const char *path)
{
	struct stat st;
	const char *what;

	if (fstat(fd, &st) == 0 && (what = forbidden(&st))) {
		atomic_fetch_add(&escapes, 1);
		report(what, op, path);
	}
	if (!adv_fd_within(fd, area.root)) {
		atomic_fetch_add(&escapes, 1);
		report("an object outside the root", op, path);
	}
}

static void check_landing(int fd)
{
	char link[64], where[4096];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, where, sizeof(where) - 1);
	if (n > 0) {
		where[n] = '\0';
		if (strstr(where, "/absent-deny/"))
			atomic_fetch_add(&seam, 1);
	}
}

static void count(int rc)
{
	atomic_fetch_add(&ops, 1);
	if (rc < 0)
		atomic_fetch_add(&refused, 1);
	if (target_ops && atomic_load(&ops) >= target_ops)
		atomic_store(&stop, true);
}

static void guarded_open(pg_root *r, const char *path, int flags)
{
	int fd = unguarded ? openat(root_fd_plain, path,
				    flags | O_CLOEXEC, 0644)
			   : pg_open(r, path, flags | O_CLOEXEC, 0644);

	count(fd);
	if (fd >= 0) {
		check_fd(fd, "pg_open", path);
		if (flags & O_CREAT)
			check_landing(fd);
		close(fd);
	}
}

static void guarded_stat(pg_root *r, const char *path)
{
	struct stat st;
	const char *what;
	int rc = unguarded ? fstatat(root_fd_plain, path, &st, 0) : pg_stat(r, path, &st, 0);

	count(rc);
	if (rc == 0 && (what = forbidden(&st))) {
		atomic_fetch_add(&escapes, 1);
		report(what, "pg_stat", path);
	}
}

static void guarded_opendir(pg_root *r, const char *path)
{
	DIR *d = pg_opendir(r, path);

	count(d ? 0 : -1);
	if (d) {
		check_fd(dirfd(d), "pg_opendir", path);
		closedir(d);
	}
}

struct worker { pg_root *root; int id; };

static void *library_worker(void *arg)
{
	const struct worker *w = arg;
	pg_root *r = w->root;
	char name[64], other[64];
	unsigned long i;

	for (i = 0; !atomic_load(&stop); i++) {
		snprintf(name, sizeof(name), "a/pgadv-new-%d-%d", (int)getpid(), w->id);
		snprintf(other, sizeof(other), "a/pgadv-moved-%d-%d", (int)getpid(), w->id);
		switch (i % 16) {
		case 0:  guarded_open(r, a_outside_path, O_RDONLY); break;
		case 1:  guarded_open(r, "a/f", O_RDONLY); break;
		case 2:  count(pg_write_file(r, "a/f", "LIB\n", 4, 0644));
			 count(pg_write_file(r, a_outside_file, "LIB\n", 4, 0644)); break;
		case 3:  guarded_open(r, name, O_WRONLY | O_CREAT); count(pg_unlink(r, name)); break;
		case 4:  count(pg_mkdir(r, name, 0755)); count(pg_rmdir(r, name)); break;
		case 5:  count(pg_rename(r, "a/f", other, 0)); count(pg_rename(r, other, "a/f", 0)); break;
		case 6:  guarded_open(r, "b/key", O_RDONLY); break;
		case 7:  guarded_stat(r, "b/key"); break;
		case 8:  guarded_open(r, "c/marker", O_RDONLY); break;
		case 9:  count(pg_write_file(r, "c/marker", "LIB\n", 4, 0644)); break;
		case 10: guarded_open(r, "pa/f", O_RDONLY); guarded_open(r, "pa/key", O_RDONLY); break;
		case 11: count(pg_truncate(r, "pa/f", 0)); count(pg_chmod(r, "pa/key", 0600)); break;
		case 12:
			snprintf(name, sizeof(name), "mv/n-%d-%lu", w->id, i);
			guarded_open(r, name, O_WRONLY | O_CREAT | O_EXCL);
			count(pg_unlink(r, name));
			break;
		case 13: guarded_opendir(r, "b"); guarded_opendir(r, "c"); break;
		case 14:
			snprintf(name, sizeof(name), "b/new-%d", w->id);
			guarded_open(r, name, O_WRONLY | O_CREAT);
			count(pg_unlink(r, name));
			break;
		case 15: guarded_stat(r, "c/marker"); guarded_stat(r, a_outside_path); break;
		}
	}
	return NULL;
}

struct attack { const char *x, *y; };

static void *attacker_thread(void *arg)
{
	const struct attack *at = arg;

	while (!atomic_load(&stop)) {
		if (swap(root_dirfd, at->x, at->y) == 0)
			atomic_fetch_add(&swaps, 1);
		/* On two cores, five spinning attackers would starve the
		 * library; a yield keeps both sides running interleaved. */
		sched_yield();
	}
	return NULL;
}

/* A separate process, so the swaps also come from outside the library's
 * address space; it dies with us. */
static pid_t attacker_process(bool exchange, const char *x, const char *y)
{
	pid_t pid = fork();

	if (pid != 0)
		return pid;
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	for (;;) {
		if (exchange) {
			swap(root_dirfd, x, y);
		} else {
			renameat(root_dirfd, x, root_dirfd, y);
			renameat(root_dirfd, y, root_dirfd, x);
		}
		sched_yield();
	}
}

static int add_ident(const char *rel, const char *what)
{
	struct stat st;
	char file[1024];

	snprintf(file, sizeof(file), "%s/%s", area.base, rel);
	if (lstat(file, &st) < 0) {
		perror(file);
		return -1;
	}
	idents[nidents++] = (struct ident){ st.st_dev, st.st_ino, what };
	return 0;
}

static int setup(void)
{
	char spec[4096];

	if (adv_area_new(&area) < 0)
		return -1;
	snprintf(spec, sizeof(spec),
		 "f ../outside/f OUTF\n"
		 "d a\nf a/f A\nl a_sym /\n"
		 "d b\nf b/key B\nl b_sym secret\n"
		 "d c\nf c/marker C\nl c_sym @OUT@\n"
		 "d pa\nf pa/f PA\nf pa/key PAKEY\n"
		 "d pb\nl pb/f ../../outside/marker\nl pb/key ../secret/key\n"
		 "d mv\n");
	if (adv_apply(&area, spec) < 0)
		return -1;
	snprintf(a_outside_path, sizeof(a_outside_path), "a/%.300s/marker", area.outside + 1);
	snprintf(a_outside_file, sizeof(a_outside_file), "a/%.300s/f", area.outside + 1);
	root_dirfd = open(area.root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	root_fd_plain = open(area.root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (root_dirfd < 0 || root_fd_plain < 0)
		return -1;
	return add_ident("outside/marker", "the outside marker") |
	       add_ident("outside/f", "the outside file") |
	       add_ident("root/secret/key", "the denied key") |
	       add_ident("root/.env", "the denied .env");
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int run(unsigned resolver, double seconds, unsigned long long ops_goal, int nthreads)
{
	static struct attack attacks[] = { { "a", "a_sym" }, { "b", "b_sym" }, { "c", "c_sym" } };
	pthread_t workers[MAX_WORKERS], attackers[3];
	struct worker w[MAX_WORKERS];
	static const char policy[] = "write .\ndeny secret\ndeny .env\ndeny absent-deny\n";
	pg_policy *p = pg_policy_new();
	pg_root *r;
	pid_t procs[4];
	double start;
	int i;

	if (!p || pg_policy_parse(p, policy, sizeof(policy) - 1) < 0) {
		fprintf(stderr, "policy failed\n");
		return -1;
	}
	r = pg_root_open(area.root, p, resolver);
	pg_policy_free(p);
	if (!r) {
		perror("pg_root_open");
		return -1;
	}
	atomic_store(&stop, false);
	target_ops = ops_goal ? atomic_load(&ops) + ops_goal : 0;
	if (!calm) {
		procs[0] = attacker_process(true, "pa", "pb");
		procs[1] = attacker_process(false, "mv", "absent-deny");
		procs[2] = attacker_process(true, "a", "a_sym");
		procs[3] = attacker_process(true, "b", "b_sym");
		for (i = 0; i < 3; i++)
			pthread_create(&attackers[i], NULL, attacker_thread, &attacks[i]);
	}
	for (i = 0; i < nthreads; i++) {
		w[i] = (struct worker){ r, i };
		pthread_create(&workers[i], NULL, library_worker, &w[i]);
	}
	start = now();
	while (!atomic_load(&stop)) {
		struct timespec pause = { 0, 20 * 1000 * 1000 };

		nanosleep(&pause, NULL);
		if (!ops_goal && now() - start >= seconds)
			atomic_store(&stop, true);
	}
	for (i = 0; i < nthreads; i++)
		pthread_join(workers[i], NULL);
	for (i = 0; !calm && i < 3; i++)
		pthread_join(attackers[i], NULL);
	for (i = 0; !calm && i < 4; i++) {
		kill(procs[i], SIGKILL);
		waitpid(procs[i], NULL, 0);
	}
	pg_root_close(r);
	printf("# %s: %.1f s\n", resolver ? "walk" : "openat2", now() - start);
	return 0;
}

/* The names the attackers juggle are back in place between runs. */
static void restore_names(void)
{
	struct stat st;

	if (fstatat(root_dirfd, "a", &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode))
		swap(root_dirfd, "a", "a_sym");
	if (fstatat(root_dirfd, "b", &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode))
		swap(root_dirfd, "b", "b_sym");
	if (fstatat(root_dirfd, "c", &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode))
		swap(root_dirfd, "c", "c_sym");
	if (fstatat(root_dirfd, "mv", &st, AT_SYMLINK_NOFOLLOW) < 0)
		renameat(root_dirfd, "absent-deny", root_dirfd, "mv");
}

/* "a" swapped for a link to "/" turns a/NAME into /NAME: nothing the
 * workers create may appear at the host's root. */
static int host_root_touched(bool f_existed)
{
	char prefix[64];
	struct dirent *e;
	int found = 0;
	DIR *d = opendir("/");

	snprintf(prefix, sizeof(prefix), "pgadv-");
	if (!d)
		return 0;
	while ((e = readdir(d)))
		if (!strncmp(e->d_name, prefix, strlen(prefix)) ||
		    (!f_existed && !strcmp(e->d_name, "f"))) {
			fprintf(stderr, "ESCAPE: /%s appeared at the host's root (removed)\n", e->d_name);
			if (unlinkat(dirfd(d), e->d_name, 0) < 0)
				unlinkat(dirfd(d), e->d_name, AT_REMOVEDIR);
			found++;
		}
	closedir(d);
	return found;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "seconds", required_argument, NULL, 's' },
		{ "ops", required_argument, NULL, 'o' },
		{ "threads", required_argument, NULL, 't' },
		{ "calm", no_argument, NULL, 'c' },
		{ "unguarded", no_argument, NULL, 'u' },
		{ NULL, 0, NULL, 0 },
	};
	const char *env = getenv("PG_RACE_SECONDS");
	double seconds = env ? atof(env) : 2.0;
	unsigned long long ops_goal = 0;
	int nthreads = 2, c, fds, rc = 0;
	char *out_before, *out_after, *deny_before, *deny_after, file[600];
	struct stat env_before, env_after;
	bool f_existed;
	double start;

	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case 's': seconds = atof(optarg); break;
		case 'o': ops_goal = strtoull(optarg, NULL, 10); break;
		case 't': nthreads = atoi(optarg); break;
		case 'c': calm = true; break;
		case 'u': unguarded = true; break;
		default:
			fprintf(stderr, "usage: %s [--seconds S] [--ops N] [--threads T] [--calm] [--unguarded]\n", argv[0]);
			return 2;
		}
	}
	if (nthreads < 1 || nthreads > MAX_WORKERS)
		nthreads = 2;
	f_existed = access("/f", F_OK) == 0;
	fds = tu_fd_count();
	if (setup() < 0) {
		fprintf(stderr, "setup failed\n");
		adv_area_free(&area);
		return 99;
	}
	out_before = adv_snapshot(area.outside);
	snprintf(file, sizeof(file), "%s/secret", area.root);
	deny_before = adv_snapshot(file);
	snprintf(file, sizeof(file), "%s/.env", area.root);
	lstat(file, &env_before);

	start = now();
	if (run(0, seconds, ops_goal / 2, nthreads) < 0)
		rc = 99;
	restore_names();
	if (rc == 0 && run(PG_ROOT_NO_OPENAT2, seconds, ops_goal - ops_goal / 2, nthreads) < 0)
		rc = 99;
	restore_names();

	out_after = adv_snapshot(area.outside);
	snprintf(file, sizeof(file), "%s/secret", area.root);
	deny_after = adv_snapshot(file);
	if (!adv_snapshot_same("outside the root", out_before, out_after)) {
		atomic_fetch_add(&escapes, 1);
		rc = 1;
	}
	if (!adv_snapshot_same("the denied directory", deny_before, deny_after)) {
		atomic_fetch_add(&denied_reads, 1);
		rc = 1;
	}
	{
		char buf[16] = "";

		snprintf(file, sizeof(file), "%s/.env", area.root);
		if (lstat(file, &env_after) < 0 || env_after.st_ino != env_before.st_ino ||
		    env_after.st_size != env_before.st_size ||
		    env_after.st_mtim.tv_nsec != env_before.st_mtim.tv_nsec ||
		    env_after.st_mtim.tv_sec != env_before.st_mtim.tv_sec ||
		    env_after.st_ctim.tv_nsec != env_before.st_ctim.tv_nsec ||
		    env_after.st_ctim.tv_sec != env_before.st_ctim.tv_sec ||
		    adv_read_file(file, buf, sizeof(buf)) != 6 || memcmp(buf, "SECRET", 6)) {
			fprintf(stderr, "the denied .env changed\n");
			atomic_fetch_add(&denied_reads, 1);
			rc = 1;
		}
	}
	atomic_fetch_add(&escapes, (unsigned long long)host_root_touched(f_existed));
	if (atomic_load(&escapes))
		rc = 1;
	free(out_before); free(out_after); free(deny_before); free(deny_after);
	close(root_dirfd);
	close(root_fd_plain);
	adv_area_free(&area);
	if (tu_fd_count() != fds) {
		fprintf(stderr, "%d descriptors leaked\n", tu_fd_count() - fds);
		rc = 1;
	}
	printf("FIGURES race ops=%llu refused=%llu attacker-swaps(threads)=%llu seconds=%.1f "
	       "escapes=%llu denied-touched=%llu seam-landings=%llu\n",
	       (unsigned long long)atomic_load(&ops), (unsigned long long)atomic_load(&refused),
	       (unsigned long long)atomic_load(&swaps), now() - start,
	       (unsigned long long)atomic_load(&escapes), (unsigned long long)atomic_load(&denied_reads),
	       (unsigned long long)atomic_load(&seam));
	return rc;
}
