/* landlock-spawn.c - the Landlock envelope's launch: the helper
 * (pathgate-landlock-exec) is started with posix_spawn, with the caller's
 * file actions and attributes, a cleared environment (the same as bwrap's
 * child gets), and three descriptors lent: the ruleset the translation
 * built, this envelope's seccomp program, and a status pipe.  The helper
 * restricts itself and execs; the library waits on the pipe until the
 * exec happened or a step failed, so a launch that did not get its
 * envelope is reported as refused, never as run. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "envelope-plan.h"
#include "landlock.h"
#include "refusal.h"
#include "spawn-report.h"

#ifndef PG_LANDLOCK_EXEC
#define PG_LANDLOCK_EXEC "/usr/local/libexec/pathgate/pathgate-landlock-exec"
#endif

static pthread_mutex_t launch_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t helper_lock = PTHREAD_MUTEX_INITIALIZER;
static char helper_override[4096];

pthread_mutex_t *pg_launch_fd_lock(void)
{
	return &launch_lock;
}

void pg_landlock_set_helper(const char *path)
{
	pthread_mutex_lock(&helper_lock);
	snprintf(helper_override, sizeof(helper_override), "%s", path ? path : "");
	pthread_mutex_unlock(&helper_lock);
}

const char *pg_landlock_helper(void)
{
	return helper_override[0] ? helper_override : PG_LANDLOCK_EXEC;
}

/* ------------------------------------------------------ the environment */

struct env {
	char  **v;
	size_t  n;
	bool    oom;
};

/* NAME=VALUE, replacing an earlier NAME (the caller's envp wins). */
static void env_put(struct env *e, const char *name, size_t nlen, const char *value)
{
	char *s = malloc(nlen + strlen(value) + 2);

	if (!s) {
		e->oom = true;
		return;
	}
	sprintf(s, "%.*s=%s", (int)nlen, name, value);
	for (size_t i = 0; i < e->n; i++)
		if (!strncmp(e->v[i], s, nlen + 1)) {
			free(e->v[i]);
			e->v[i] = s;
			return;
		}
	e->v[e->n++] = s;
}

/* As bwrap's child gets it: PATH, LANG, TERM, HOME, then ENVP. */
static char **child_env(const struct pg_plan *pl, char *const envp[])
{
	const char *lang = getenv("LANG"), *term = getenv("TERM"), *home = getenv("HOME");
	size_t n = 4;
	struct env e = { 0 };

	for (size_t i = 0; envp && envp[i]; i++)
		n++;
	if (!(e.v = calloc(n + 1, sizeof(*e.v))))
		return NULL;
	env_put(&e, "PATH", 4, "/usr/local/bin:/usr/bin:/bin");
	env_put(&e, "LANG", 4, lang && *lang ? lang : "C.UTF-8");
	env_put(&e, "TERM", 4, term && *term ? term : "dumb");
	env_put(&e, "HOME", 4, home && *home ? home : pl->root);
	for (size_t i = 0; envp && envp[i] && !e.oom; i++) {
		const char *eq = strchr(envp[i], '=');

		if (eq && eq != envp[i])
			env_put(&e, envp[i], (size_t)(eq - envp[i]), eq + 1);
	}
	if (e.oom) {
		for (size_t i = 0; i < e.n; i++)
			free(e.v[i]);
		free(e.v);
		return NULL;
	}
	return e.v;
}

static void env_free(char **v)
{
	for (size_t i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

/* ------------------------------------------------------------ the launch */

static void set_cloexec(const int *fds, size_t n, bool on)
{
	for (size_t i = 0; i < n; i++) {
		int fl = fcntl(fds[i], F_GETFD);

		if (fl >= 0)
			fcntl(fds[i], F_SETFD, on ? fl | FD_CLOEXEC : fl & ~FD_CLOEXEC);
	}
}

/* As the bwrap launch lends its descriptors: dup2 onto themselves in our
 * own file actions, or close-on-exec cleared for the instant of the spawn
 * under the lock every launch takes. */
static int launch(pid_t *pid, const char *helper, const posix_spawn_file_actions_t *actions,
		  const posix_spawnattr_t *attr, char *const argv[], char *const envp[],
		  const int *fds, size_t nfds)
{
	posix_spawn_file_actions_t own;
	int r;

	pthread_mutex_lock(&launch_lock);
	if (!actions) {
		r = posix_spawn_file_actions_init(&own);
		for (size_t i = 0; r == 0 && i < nfds; i++)
			r = posix_spawn_file_actions_adddup2(&own, fds[i], fds[i]);
		if (r == 0)
			r = posix_spawn(pid, helper, &own, attr, argv, envp);
		posix_spawn_file_actions_destroy(&own);
	} else {
		set_cloexec(fds, nfds, false);
		r = posix_spawn(pid, helper, actions, attr, argv, envp);
		set_cloexec(fds, nfds, true);
	}
	pthread_mutex_unlock(&launch_lock);
	return r;
}

static int refuse(const struct pg_plan *pl, char *const envp[], const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int refuse(const struct pg_plan *pl, char *const envp[], const char *fmt, ...)
{
	const struct pg_landlock *ll = pl->landlock;
	char msg[1200], why[900];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	if (ll->chosen[0])
		snprintf(msg, sizeof(msg), "%s; landlock: %s", ll->chosen, why);
	else
		snprintf(msg, sizeof(msg), "landlock: %s", why);
	pg_refuse(PG_R_SANDBOX_UNAVAILABLE, ENOSYS, pg_landlock_helper(), msg);
	pg_spawn_report_write(pl, 0, false, msg, envp);
	errno = ENOSYS;
	return ENOSYS;
}

static const char *const STEP[] = {
	"?", "read its arguments", "stay tied to the caller", "drop every capability",
	"set no_new_privs", "restrict itself with the ruleset", "enter the working directory",
	"install the seccomp filter", "close descriptors", "exec the command",
};

/* Wait for the helper's word: the exec (EOF), or the step that failed. */
static int await_exec(int fd, pid_t pid, int *step, int *err)
{
	int msg[2];
	ssize_t n;

	while ((n = read(fd, msg, sizeof(msg))) < 0 && errno == EINTR)
		;
	if (n != (ssize_t)sizeof(msg))
		return 0;
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
	*step = msg[0] > 0 && msg[0] < (int)(sizeof(STEP) / sizeof(STEP[0])) ? msg[0] : 0;
	*err = msg[1];
	return -1;
}

static char *number(long n)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%ld", n);
	return strdup(buf);
}

static char **helper_argv(const struct pg_plan *pl, int sfd, int status, const char *file,
			  char *const argv[])
{
	size_t n = 0, k = 0;
	char **v;

	while (argv && argv[n])
		n++;
	v = calloc(n + 9, sizeof(*v));
	if (!v)
		return NULL;
	v[k++] = strdup(pg_landlock_helper());
	v[k++] = number(((const struct pg_landlock *)pl->landlock)->ruleset);
	v[k++] = number(sfd);
	v[k++] = number(status);
	v[k++] = number(getpid());
	v[k++] = strdup(pl->chdir ? pl->chdir : "/");
	v[k++] = strdup(file);
	v[k++] = strdup(n ? argv[0] : file);
	for (size_t i = 1; i < n; i++)
		v[k++] = strdup(argv[i]);
	for (size_t i = 0; i < k; i++)
		if (!v[i]) {
			env_free(v);
			return NULL;
		}
	return v;
}

static int run(pid_t *pid, struct pg_plan *pl, const char *file,
	       const posix_spawn_file_actions_t *actions, const posix_spawnattr_t *attr,
	       char *const argv[], char *const envp[], int sfd, int *step, int *err)
{
	const struct pg_landlock *ll = pl->landlock;
	int st[2], fds[3], r;
	char **hv = NULL, **env = NULL;

	if (pipe2(st, O_CLOEXEC) < 0)
		return errno;
	hv = helper_argv(pl, sfd, st[1], file, argv);
	env = child_env(pl, envp);
	fds[0] = ll->ruleset;
	fds[1] = sfd;
	fds[2] = st[1];
	r = hv && env ? launch(pid, hv[0], actions, attr, hv, env, fds, 3) : ENOMEM;
	close(st[1]);
	env_free(hv);
	env_free(env);
	if (r == 0 && await_exec(st[0], *pid, step, err) < 0) {
		close(st[0]);
		if (*step == 9) {   /* the command's own exec: posix_spawnp's answer */
			pg_spawn_report_write(pl, 0, true, strerror(*err), envp);
			return *err ? *err : ENOEXEC;
		}
		return -1;
	}
	close(st[0]);
	if (r)
		pg_spawn_report_write(pl, 0, false, strerror(r), envp);
	else
		pg_spawn_report_write(pl, 1, true, NULL, envp);
	return r;
}

int pg_landlock_spawn(pid_t *pid, struct pg_plan *pl, const char *file,
		      const posix_spawn_file_actions_t *actions,
		      const posix_spawnattr_t *attr,
		      char *const argv[], char *const envp[])
{
	const struct pg_landlock *ll = pl ? pl->landlock : NULL;
	pid_t dummy;
	int sfd, r, step = 0, err = 0;

	if (!ll || !file) {
		errno = EINVAL;
		return EINVAL;
	}
	if (ll->why)
		return refuse(pl, envp, "%s", ll->why);
	if (pl->glob_count_hit || pl->glob_depth_hit)
		return refuse(pl, envp, "the planner's walk of the policy's names reached its bound: no envelope can show every name as the policy decides it");
	if (ll->nweaker && !ll->accept_weaker)
		return refuse(pl, envp, "would hold less than bwrap: %s (accept with PG_SPAWN_ACCEPT_WEAKER, pathgate run --accept-weaker)",
			      ll->weaker);
	if (access(pg_landlock_helper(), X_OK) < 0)
		return refuse(pl, envp, "the helper %s: %s", pg_landlock_helper(), strerror(errno));
	sfd = pg_landlock_seccomp_fd(ll->abi);
	if (sfd < 0)
		return refuse(pl, envp, "the seccomp filter cannot be built: %s", strerror(errno));
	r = run(pid ? pid : &dummy, pl, file, actions, attr, argv, envp, sfd, &step, &err);
	close(sfd);
	if (r < 0)
		return refuse(pl, envp, "the helper could not %s: %s", STEP[step], strerror(err));
	errno = r;
	return r;
}
