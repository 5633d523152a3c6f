/* spawn.c - the launcher: launches bwrap with a plan, a cleared
 * environment and the seccomp floor, once the probe (bwrap-probe.c) says
 * the host can, and leaves the report (spawn-report.c) of each launch.
 * It also chooses the envelope: bwrap, or where bwrap cannot build its
 * namespaces (or when asked) the Landlock envelope (landlock.h), which
 * runs the same plan translated. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "bwrap-probe.h"
#include "envelope.h"
#include "envelope-plan.h"
#include "landlock.h"
#include "refusal.h"
#include "root.h"
#include "seccomp-filter.h"
#include "shim.h"
#include "spawn-report.h"

extern char **environ;

/* ------------------------------------------------------------ the launch */

struct argv_buf {
	char  **v;
	size_t  n, cap;
	char  **owned;   /* strings we made */
	size_t  nowned, capowned;
	bool    oom;
};

static void av_push(struct argv_buf *a, const char *s)
{
	if (a->oom)
		return;
	if (a->n + 2 > a->cap) {
		size_t cap = a->cap ? a->cap * 2 : 64;
		char **v = realloc(a->v, cap * sizeof(*v));

		if (!v) {
			a->oom = true;
			return;
		}
		a->v = v;
		a->cap = cap;
	}
	a->v[a->n++] = (char *)s;
	a->v[a->n] = NULL;
}

static void av_push_owned(struct argv_buf *a, char *s)
{
	if (!s || a->oom) {
		free(s);
		a->oom = true;
		return;
	}
	if (a->nowned + 1 > a->capowned) {
		size_t cap = a->capowned ? a->capowned * 2 : 16;
		char **v = realloc(a->owned, cap * sizeof(*v));

		if (!v) {
			free(s);
			a->oom = true;
			return;
		}
		a->owned = v;
		a->capowned = cap;
	}
	a->owned[a->nowned++] = s;
	av_push(a, s);
}

static void av_free(struct argv_buf *a)
{
	for (size_t i = 0; i < a->nowned; i++)
		free(a->owned[i]);
	free(a->owned);
	free(a->v);
}

static void av_setenv(struct argv_buf *a, const char *name, size_t nlen, const char *value)
{
	av_push(a, "--setenv");
	av_push_owned(a, strndup(name, nlen));
	av_push(a, value);
}

/* --clearenv, then the baseline, then the caller's envp (which wins). */
static void add_environment(struct argv_buf *a, const pg_plan *pl, char *const envp[])
{
	const char *lang = getenv("LANG"), *term = getenv("TERM"), *home = getenv("HOME");

	av_push(a, "--clearenv");
	av_setenv(a, "PATH", 4, "/usr/local/bin:/usr/bin:/bin");
	av_setenv(a, "LANG", 4, lang && *lang ? lang : "C.UTF-8");
	av_setenv(a, "TERM", 4, term && *term ? term : "dumb");
	av_setenv(a, "HOME", 4, home && *home ? home : pl->root);
	for (size_t i = 0; envp && envp[i]; i++) {
		const char *eq = strchr(envp[i], '=');

		if (!eq || eq == envp[i])
			continue;
		av_setenv(a, envp[i], (size_t)(eq - envp[i]), eq + 1);
	}
}

/* Descriptors lent to bwrap are close-on-exec in this process.  With our
 * own file actions, dup2(fd, fd) clears the flag in the child only.  A
 * caller's file actions cannot be extended (the type is opaque), so then
 * the flag is cleared for the instant of the spawn, under a lock every
 * pg_spawn takes, so no other launch of ours inherits them. */
#define inherit_lock (*pg_launch_fd_lock())   /* shared with the Landlock launch */

static void set_cloexec(const int *fds, size_t n, bool on)
{
	for (size_t i = 0; i < n; i++) {
		int fl = fcntl(fds[i], F_GETFD);

		if (fl >= 0)
			fcntl(fds[i], F_SETFD, on ? fl | FD_CLOEXEC : fl & ~FD_CLOEXEC);
	}
}

/* ---- issue 10.3: only 0, 1, 2, the lent descriptors and what the
 * caller's file actions make cross into the envelope.  A directory fd
 * the caller left open would give the child the host through
 * /proc/self/fd/N; a file fd, a denied file's bytes.  The inheritable
 * descriptors above 2 that are not lent are found in /proc/self/fd
 * (else by probing up to the descriptor limit): with our own file
 * actions each is closed in the child only; with the caller's, each is
 * marked close-on-exec for the instant of the spawn, under the lock,
 * and restored after (dup2 and open in the caller's actions make their
 * targets inheritable again, so what they name explicitly crosses). */

struct leaks {
	int    *fd;
	size_t  n, cap;
	bool    oom;   /* one could not be recorded: refuse the launch */
};

static bool is_lent(int fd, const int *fds, size_t nfds)
{
	for (size_t i = 0; i < nfds; i++)
		if (fds[i] == fd)
			return true;
	return false;
}

static void leak_note(struct leaks *l, int fd, const int *fds, size_t nfds, int skip)
{
	int fl;

	if (fd < 3 || fd == skip || is_lent(fd, fds, nfds))
		return;
	fl = fcntl(fd, F_GETFD);
	if (fl < 0 || (fl & FD_CLOEXEC))
		return;
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 16;
		int *v = realloc(l->fd, cap * sizeof(*v));

		if (!v) {
			l->oom = true;
			return;
		}
		l->fd = v;
		l->cap = cap;
	}
	l->fd[l->n++] = fd;
}

/* The inheritable descriptors above 2 that are not lent (l->oom when
 * they could not all be recorded). */
static void find_leaks(struct leaks *l, const int *fds, size_t nfds)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *de;
	struct rlimit rl;

	if (d) {
		while ((de = readdir(d)))
			if (de->d_name[0] != '.')
				leak_note(l, atoi(de->d_name), fds, nfds, dirfd(d));
		closedir(d);
	} else {
		int max = getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < 65536
			  ? (int)rl.rlim_cur : 65536;

		for (int fd = 3; fd < max; fd++)
			leak_note(l, fd, fds, nfds, -1);
	}
}

static int launch(pid_t *pid, const char *bwrap, const posix_spawn_file_actions_t *actions,
		  const posix_spawnattr_t *attr, char *const argv[], const int *fds, size_t nfds)
{
	char *envp[] = { NULL };
	posix_spawn_file_actions_t own;
	struct leaks l = { 0 };
	int r;

	pthread_mutex_lock(&inherit_lock);
	find_leaks(&l, fds, nfds);
	if (l.oom) {
		r = ENOMEM;
	} else if (!actions) {
		r = posix_spawn_file_actions_init(&own);
		for (size_t i = 0; r == 0 && i < nfds; i++)
			r = posix_spawn_file_actions_adddup2(&own, fds[i], fds[i]);
		for (size_t i = 0; r == 0 && i < l.n; i++)
			r = posix_spawn_file_actions_addclose(&own, l.fd[i]);
		if (r == 0)
			r = posix_spawn(pid, bwrap, &own, attr, argv, envp);
		posix_spawn_file_actions_destroy(&own);
	} else {
		set_cloexec(l.fd, l.n, true);
		set_cloexec(fds, nfds, false);
		r = posix_spawn(pid, bwrap, actions, attr, argv, envp);
		set_cloexec(fds, nfds, true);
		set_cloexec(l.fd, l.n, false);
	}
	pthread_mutex_unlock(&inherit_lock);
	free(l.fd);
	return r;
}

static int refuse_spawn(const pg_plan *pl, const char *why, char *const envp[])
{
	char msg[512];

	snprintf(msg, sizeof(msg), "%s", why);
	pg_refuse(PG_R_SANDBOX_UNAVAILABLE, ENOSYS, pl->bwrap, msg);
	pg_spawn_report_write(pl, 0, false, msg, envp);
	errno = ENOSYS;
	return ENOSYS;
}

int pg_envelope_spawn(pid_t *pid, pg_plan *pl, const char *file,
		      const posix_spawn_file_actions_t *actions,
		      const posix_spawnattr_t *attr,
		      char *const argv[], char *const envp[])
{
	struct argv_buf a = { 0 };
	const char *why;
	int *fds, sfd, r;
	size_t nfds = 0;
	pid_t dummy;
	char why_buf[256];

	if (!pl || !file) {
		errno = EINVAL;
		return EINVAL;
	}
	if (pl->landlock)
		return pg_landlock_spawn(pid, pl, file, actions, attr, argv, envp);
	why = pg_envelope_unavailable();
	if (why)
		return refuse_spawn(pl, why, envp);
	if ((pl->glob_count_hit || pl->glob_depth_hit) && !pl->accept_walk_bound)
		return refuse_spawn(pl, "the planner's walk of the policy's names reached its bound: the envelope cannot show every name as the policy decides it", envp);
	sfd = pg_seccomp_filter_fd();
	if (sfd < 0) {
		snprintf(why_buf, sizeof(why_buf), "the seccomp filter cannot be built: %s",
			 strerror(errno));
		return refuse_spawn(pl, why_buf, envp);
	}
	fds = calloc(pl->nmounts + 1, sizeof(*fds));
	if (!fds) {
		close(sfd);
		errno = ENOMEM;
		return ENOMEM;
	}
	for (size_t i = 0; i < pl->nmounts; i++)
		if (pl->mounts[i].fd >= 0)
			fds[nfds++] = pl->mounts[i].fd;
	fds[nfds++] = sfd;

	for (size_t i = 0; i < pl->nargs; i++)
		av_push(&a, pl->args[i]);
	add_environment(&a, pl, envp);
	av_push(&a, "--seccomp");
	snprintf(why_buf, sizeof(why_buf), "%d", sfd);
	av_push_owned(&a, strdup(why_buf));
	av_push(&a, "--");
	av_push(&a, file);
	for (size_t i = 1; argv && argv[0] && argv[i]; i++)
		av_push(&a, argv[i]);

	if (a.oom) {
		r = ENOMEM;
	} else {
		r = launch(pid ? pid : &dummy, pl->bwrap, actions, attr, a.v, fds, nfds);
	}
	close(sfd);
	free(fds);
	av_free(&a);
	if (r != 0) {
		pg_spawn_report_write(pl, 0, false, strerror(r), envp);
		errno = r;
		return r;
	}
	pg_spawn_report_write(pl, 1, true, NULL, envp);
	return 0;
}

/* ------------------------------------------------------------ public API */

/* ------------------------------------------------------- the choice */

/* The plan for ROOT under the envelope WANT: bwrap's as built, or
 * translated for Landlock when asked, or (AUTO) when bwrap cannot build
 * its namespaces here.  A Landlock that cannot run either is recorded in
 * the plan and refused at launch, saying both reasons. */
static pg_plan *plan_for(pg_root *root, enum pg_envelope want, unsigned flags)
{
	pg_plan *pl = pg_envelope_plan_root(root, NULL);
	const char *bwrap_why;
	char chosen[512];

	if (!pl || want == PG_ENVELOPE_BWRAP)
		return pl;
	if (want == PG_ENVELOPE_LANDLOCK) {
		snprintf(chosen, sizeof(chosen), "%s", "");
	} else {
		bwrap_why = pg_envelope_unavailable();
		if (!bwrap_why)
			return pl;
		snprintf(chosen, sizeof(chosen), "bwrap cannot build its envelope here: %s", bwrap_why);
	}
	if (pg_landlock_translate(pl, root, flags, chosen) < 0) {
		pg_plan_free(pl);
		errno = ENOMEM;
		return NULL;
	}
	return pl;
}

static int envelope_of_flags(unsigned flags, enum pg_envelope *want)
{
	if ((flags & ~(PG_PLAN_BWRAP | PG_PLAN_LANDLOCK | PG_PLAN_ACCEPT_WEAKER)) ||
	    (flags & PG_PLAN_BWRAP && flags & PG_PLAN_LANDLOCK))
		return -1;
	*want = flags & PG_PLAN_BWRAP ? PG_ENVELOPE_BWRAP
	      : flags & PG_PLAN_LANDLOCK ? PG_ENVELOPE_LANDLOCK : PG_ENVELOPE_AUTO;
	return 0;
}

enum pg_envelope pg_plan_envelope(const pg_plan *plan)
{
	return plan && plan->landlock ? PG_ENVELOPE_LANDLOCK : PG_ENVELOPE_BWRAP;
}

/* ------------------------------------------------------------ public API */

pg_plan *pg_plan_build(pg_root *root, unsigned flags)
{
	enum pg_envelope want;
	pg_plan *pl;

	pg_refusal_clear();
	if (!root || envelope_of_flags(flags, &want) < 0) {
		errno = EINVAL;
		return NULL;
	}
	pl = plan_for(root, want, flags & PG_PLAN_ACCEPT_WEAKER);
	if (pl)
		pg_envelope_report_plan(pl);
	return pl;
}

/* Declared in shim.h: pathgate run lends its preload into a plan it
 * built, then launches under that plan.  Landlock has no mounts: the
 * file is granted read where it lies (DEST is bwrap's). */
int pg_plan_lend(pg_plan *plan, const char *host, const char *dest, const char *why)
{
	if (plan && plan->landlock)
		return pg_landlock_lend(plan, host, why);
	return pg_envelope_lend(plan, host, dest, why);
}

/* Declared in shim.h (issue 10.7): the caller asked for the weaker
 * guarantee by name; the plan's seams say what it costs. */
int pg_plan_accept_seam(pg_plan *plan, unsigned seam)
{
	if (!plan || seam != PG_SEAM_WALK_BOUND) {
		errno = EINVAL;
		return -1;
	}
	if (!plan->accept_walk_bound && (plan->glob_count_hit || plan->glob_depth_hit)) {
		pg_plan_note(plan, true, plan->glob_count_hit ? "/" : plan->root, "",
			     "the planner's walk reached its bound and the caller accepted it (--accept-seam=walk-bound): names past the bound are held in process only");
		free(plan->pub_mounts);
		free(plan->pub_skips);
		free(plan->pub_seams);
		pg_plan_publish(plan);
	}
	plan->accept_walk_bound = true;
	if (plan->oom) {
		errno = ENOMEM;
		return -1;
	}
	return 0;
}

int pg_plan_spawn(pid_t *pid, pg_plan *plan, const char *file,
		  const posix_spawn_file_actions_t *actions, const posix_spawnattr_t *attr,
		  char *const argv[], char *const envp[])
{
	return pg_envelope_spawn(pid, plan, file, actions, attr, argv, envp);
}

int pg_spawn2(pid_t *pid, pg_root *root, const char *file,
	      const posix_spawn_file_actions_t *actions, const posix_spawnattr_t *attr,
	      char *const argv[], char *const envp[], const struct pg_spawn_options *opts)
{
	enum pg_envelope want = PG_ENVELOPE_AUTO;
	unsigned flags = 0;
	pg_plan *pl;
	int r;

	pg_refusal_clear();
	if (opts && (opts->size < sizeof(*opts) || opts->envelope > PG_ENVELOPE_LANDLOCK ||
		     (opts->flags & ~PG_SPAWN_ACCEPT_WEAKER))) {
		errno = EINVAL;
		return EINVAL;
	}
	if (opts) {
		want = opts->envelope;
		flags = opts->flags;
	}
	if (!root || !file) {
		errno = EINVAL;
		return EINVAL;
	}
	pl = plan_for(root, want, flags);
	if (!pl) {
		r = errno ? errno : ENOMEM;
		errno = r;
		return r;
	}
	r = pg_envelope_spawn(pid, pl, file, actions, attr, argv, envp);
	pg_plan_free(pl);
	errno = r;
	return r;
}

int pg_spawn(pid_t *pid, pg_root *root, const char *file,
	     const posix_spawn_file_actions_t *actions, const posix_spawnattr_t *attr,
	     char *const argv[], char *const envp[])
{
	return pg_spawn2(pid, root, file, actions, attr, argv, envp, NULL);
}
