/* spawn.c - the launcher: probes the host once for what the envelope
 * needs, launches bwrap with a plan, a cleared environment and the seccomp
 * floor, and writes the requested-versus-applied report. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "envelope.h"
#include "envelope-plan.h"
#include "refusal.h"
#include "root.h"
#include "seccomp-filter.h"
#include "shim.h"

extern char **environ;

/* ------------------------------------------------------------- the probe */

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

/* ------------------------------------------------------------ the report */

struct sbuf {
	char  *s;
	size_t len, cap;
	bool   oom;
};

static void sb_putn(struct sbuf *b, const char *s, size_t n)
{
	if (b->oom)
		return;
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 1024;
		char *ns;

		while (b->len + n + 1 > cap)
			cap *= 2;
		ns = realloc(b->s, cap);
		if (!ns) {
			b->oom = true;
			return;
		}
		b->s = ns;
		b->cap = cap;
	}
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
}

static void sb_puts(struct sbuf *b, const char *s)
{
	sb_putn(b, s, strlen(s));
}

static void sb_printf(struct sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_printf(struct sbuf *b, const char *fmt, ...)
{
	char tmp[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	sb_puts(b, tmp);
}

static void sb_json(struct sbuf *b, const char *s)
{
	sb_putn(b, "\"", 1);
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\') {
			sb_putn(b, "\\", 1);
			sb_putn(b, s, 1);
		} else if (c < 0x20) {
			sb_printf(b, "\\u%04x", c);
		} else {
			sb_putn(b, s, 1);
		}
	}
	sb_putn(b, "\"", 1);
}

static void sb_notes(struct sbuf *b, const char *key, const struct pg_seam *arr, size_t n)
{
	sb_printf(b, ",\n  \"%s\": [", key);
	for (size_t i = 0; i < n; i++) {
		sb_puts(b, i ? ",\n    {\"path\": " : "\n    {\"path\": ");
		sb_json(b, arr[i].path);
		sb_puts(b, ", \"rule\": ");
		sb_json(b, arr[i].rule);
		sb_puts(b, ", \"why\": ");
		sb_json(b, arr[i].why);
		sb_puts(b, "}");
	}
	sb_puts(b, n ? "\n  ]" : "]");
}

/* This thread's last report, freed with the thread. */
static pthread_key_t report_key;
static pthread_once_t report_once = PTHREAD_ONCE_INIT;

static void report_key_make(void)
{
	pthread_key_create(&report_key, free);
}

static void set_report(char *r)
{
	pthread_once(&report_once, report_key_make);
	free(pthread_getspecific(report_key));
	pthread_setspecific(report_key, r);
}

const char *pg_spawn_report(void)
{
	pthread_once(&report_once, report_key_make);
	return pthread_getspecific(report_key);
}

/* LAUNCHED: -1 plan only, 0 refused, 1 launched. */
static void write_report(const pg_plan *pl, int launched, bool seccomp,
			 const char *refusal, char *const envp_names[])
{
	const char *why = pg_envelope_unavailable();
	struct sbuf b = { 0 };
	char version[sizeof(probe.version)];

	pthread_mutex_lock(&probe_lock);
	memcpy(version, probe.version, sizeof(version));
	pthread_mutex_unlock(&probe_lock);

	sb_puts(&b, "{\n  \"bwrap\": {\"path\": ");
	sb_json(&b, pl->bwrap);
	sb_puts(&b, ", \"version\": ");
	if (version[0])
		sb_json(&b, version);
	else
		sb_puts(&b, "null");
	sb_puts(&b, ", \"available\": ");
	sb_puts(&b, why ? "false" : "true");
	sb_puts(&b, ", \"masks_read_only\": ");
	sb_puts(&b, pl->masks_read_only ? "true" : "false");
	sb_puts(&b, "},\n  \"root\": ");
	sb_json(&b, pl->root);
	sb_puts(&b, ",\n  \"launched\": ");
	sb_puts(&b, launched > 0 ? "true" : "false");
	sb_puts(&b, ",\n  \"refusal\": ");
	if (refusal)
		sb_json(&b, refusal);
	else
		sb_puts(&b, "null");
	sb_puts(&b, ",\n  \"requested\": [");
	for (size_t i = 0; i < pl->nrequested; i++) {
		sb_puts(&b, i ? ", " : "");
		sb_json(&b, pl->requested[i]);
	}
	sb_puts(&b, "],\n  \"mounts\": [");
	for (size_t i = 0; i < pl->norder; i++) {
		const struct pg_mount *m = &pl->pub_mounts[i];

		sb_puts(&b, i ? ",\n    {\"op\": " : "\n    {\"op\": ");
		sb_json(&b, m->op);
		sb_puts(&b, ", \"src\": ");
		if (m->src)
			sb_json(&b, m->src);
		else
			sb_puts(&b, "null");
		sb_puts(&b, ", \"dest\": ");
		sb_json(&b, m->dest);
		sb_puts(&b, ", \"rule\": ");
		sb_json(&b, m->rule);
		sb_puts(&b, ", \"why\": ");
		sb_json(&b, m->why);
		sb_puts(&b, "}");
	}
	sb_puts(&b, pl->norder ? "\n  ]" : "]");
	sb_notes(&b, "skipped", pl->pub_skips, pl->nskips);
	sb_notes(&b, "seams", pl->pub_seams, pl->nseams);
	sb_printf(&b, ",\n  \"glob_walk\": {\"max_depth\": %u, \"max_entries\": %u, \"entries\": %u, \"limit_hit\": %s}",
		  pl->glob_max_depth, pl->glob_max_entries, pl->glob_entries,
		  pl->glob_depth_hit || pl->glob_count_hit ? "true" : "false");
	sb_puts(&b, ",\n  \"seccomp\": {\"requested\": [\"io_uring_setup\", \"io_uring_enter\", \"io_uring_register\", \"socket(AF_UNIX)\"], \"applied\": ");
	sb_puts(&b, seccomp ? "true" : "false");
	sb_puts(&b, "},\n  \"environment\": [\"PATH\", \"LANG\", \"TERM\", \"HOME\"");
	for (size_t i = 0; envp_names && envp_names[i]; i++) {
		const char *eq = strchr(envp_names[i], '=');

		if (!eq)
			continue;
		sb_puts(&b, ", ");
		{
			char name[256];
			size_t n = (size_t)(eq - envp_names[i]);

			snprintf(name, sizeof(name), "%.*s", (int)(n < 255 ? n : 255), envp_names[i]);
			sb_json(&b, name);
		}
	}
	sb_puts(&b, "]\n}\n");
	if (b.oom) {
		free(b.s);
		b.s = NULL;
	}
	set_report(b.s);
}

void pg_envelope_report_plan(const pg_plan *plan)
{
	write_report(plan, -1, false, NULL, NULL);
}

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
static pthread_mutex_t inherit_lock = PTHREAD_MUTEX_INITIALIZER;

static void set_cloexec(const int *fds, size_t n, bool on)
{
	for (size_t i = 0; i < n; i++) {
		int fl = fcntl(fds[i], F_GETFD);

		if (fl >= 0)
			fcntl(fds[i], F_SETFD, on ? fl | FD_CLOEXEC : fl & ~FD_CLOEXEC);
	}
}

static int launch(pid_t *pid, const char *bwrap, const posix_spawn_file_actions_t *actions,
		  const posix_spawnattr_t *attr, char *const argv[], const int *fds, size_t nfds)
{
	char *envp[] = { NULL };
	posix_spawn_file_actions_t own;
	int r;

	pthread_mutex_lock(&inherit_lock);
	if (!actions) {
		r = posix_spawn_file_actions_init(&own);
		for (size_t i = 0; r == 0 && i < nfds; i++)
			r = posix_spawn_file_actions_adddup2(&own, fds[i], fds[i]);
		if (r == 0)
			r = posix_spawn(pid, bwrap, &own, attr, argv, envp);
		posix_spawn_file_actions_destroy(&own);
	} else {
		set_cloexec(fds, nfds, false);
		r = posix_spawn(pid, bwrap, actions, attr, argv, envp);
		set_cloexec(fds, nfds, true);
	}
	pthread_mutex_unlock(&inherit_lock);
	return r;
}

static int refuse_spawn(const pg_plan *pl, const char *why, char *const envp[])
{
	char msg[512];

	snprintf(msg, sizeof(msg), "%s", why);
	pg_refuse(PG_R_SANDBOX_UNAVAILABLE, ENOSYS, pl->bwrap, msg);
	write_report(pl, 0, false, msg, envp);
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
	why = pg_envelope_unavailable();
	if (why)
		return refuse_spawn(pl, why, envp);
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
		write_report(pl, 0, false, strerror(r), envp);
		errno = r;
		return r;
	}
	write_report(pl, 1, true, NULL, envp);
	return 0;
}

/* ------------------------------------------------------------ public API */

static pg_plan *plan_for_root(pg_root *root)
{
	const struct pg_rule **rules;
	size_t n;
	pg_plan *pl;

	pthread_rwlock_rdlock(&root->lock);
	n = pg_policy_rule_count(root->policy);
	rules = calloc(n + 1, sizeof(*rules));
	if (!rules) {
		pthread_rwlock_unlock(&root->lock);
		return NULL;
	}
	for (size_t i = 0; i < n; i++)
		rules[i] = pg_policy_rule(root->policy, i);
	pl = pg_envelope_plan(root->path, rules, n, NULL);
	pthread_rwlock_unlock(&root->lock);
	free(rules);
	return pl;
}

pg_plan *pg_plan_build(pg_root *root, unsigned flags)
{
	pg_plan *pl;

	pg_refusal_clear();
	if (!root || flags != 0) {
		errno = EINVAL;
		return NULL;
	}
	pl = plan_for_root(root);
	if (pl)
		pg_envelope_report_plan(pl);
	return pl;
}

/* Declared in shim.h: pathgate run lends its preload into a plan it
 * built, then launches under that plan. */
int pg_plan_lend(pg_plan *plan, const char *host, const char *dest, const char *why)
{
	return pg_envelope_lend(plan, host, dest, why);
}

int pg_plan_spawn(pid_t *pid, pg_plan *plan, const char *file,
		  const posix_spawn_file_actions_t *actions, const posix_spawnattr_t *attr,
		  char *const argv[], char *const envp[])
{
	return pg_envelope_spawn(pid, plan, file, actions, attr, argv, envp);
}

int pg_spawn(pid_t *pid, pg_root *root, const char *file,
	     const posix_spawn_file_actions_t *actions, const posix_spawnattr_t *attr,
	     char *const argv[], char *const envp[])
{
	pg_plan *pl;
	int r;

	pg_refusal_clear();
	if (!root || !file) {
		errno = EINVAL;
		return EINVAL;
	}
	pl = plan_for_root(root);
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
