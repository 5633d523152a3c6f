/* cli-run.c - `pathgate run`: a command under the envelope, with the
 * preload inside it, exiting with the command's status. */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <signal.h>
#include <time.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pathgate.h"
#include "shim.h"
#include "cli.h"

extern char **environ;

/* LD_PRELOAD, PATHGATE_ROOT, PATHGATE_POLICY, PATHGATE_POLICY_TEXT,
 * PATHGATE_ENVELOPE, PATHGATE_LOG, PATHGATE_LOG_FD */
#define RUN_VARS 7
/* The kernel's bound on one environment string is 128 KiB. */
#define RUN_TEXT_MAX (100 * 1024)

struct run_opts {
	const char *report;
	bool        log;      /* --log or PATHGATE_LOG: the preload names each refusal */
	int         log_fd;   /* the refusals the preload records, for the summary; -1 */
	bool        preload;
	bool        envelope;
	unsigned    plan_flags;  /* --envelope=, --accept-weaker: pg_plan_build's */
	char      **env;     /* --env NAME=VALUE, owned */
	size_t      nenv;
	unsigned    accept;  /* --accept-seam: ACCEPT_* */
};

/* ---- issue 10.7, 10.10: the weaker guarantees a caller may ask for. */
#define ACCEPT_WALK_BOUND 0x1u  /* launch although the planner's walk stopped */
#define ACCEPT_CREATED    0x2u  /* keep what the child created in a seam */

static int parse_accept(struct run_opts *o, const char *arg)
{
	if (strcmp(arg, "walk-bound") == 0)
		o->accept |= ACCEPT_WALK_BOUND;
	else if (strcmp(arg, "created") == 0)
		o->accept |= ACCEPT_CREATED;
	else {
		fprintf(stderr, "pathgate: run: --accept-seam %s: not a seam (walk-bound, created)\n", arg);
		return -1;
	}
	return 0;
}

/* --env NAME=VALUE, or NAME for the host's value (nothing when unset). */
static int add_env(struct run_opts *o, const char *arg)
{
	char **grown, *entry;
	const char *value;

	if (!*arg || *arg == '=') {
		fprintf(stderr, "pathgate: run: --env %s: no variable name\n", arg);
		return -1;
	}
	if (strchr(arg, '=')) {
		entry = strdup(arg);
	} else {
		value = getenv(arg);
		if (!value)
			return 0;
		if (asprintf(&entry, "%s=%s", arg, value) < 0)
			entry = NULL;
	}
	grown = entry ? realloc(o->env, (o->nenv + 1) * sizeof(*grown)) : NULL;
	if (!grown) {
		free(entry);
		perror("pathgate");
		return -1;
	}
	o->env = grown;
	o->env[o->nenv++] = entry;
	return 0;
}

static void free_env(struct run_opts *o)
{
	size_t i;

	for (i = 0; i < o->nenv; i++)
		free(o->env[i]);
	free(o->env);
}

/* Find CMD as a shell would: a name with a '/' as is, else along $PATH.
 * Returns CLI_OK with *FOUND set (owned by the caller), CLI_NOTFOUND or
 * CLI_NOEXEC. */
static int find_command(const char *cmd, char **found)
{
	const char *path = getenv("PATH");
	const char *p, *end;
	bool seen = false;
	struct stat st;

	if (strchr(cmd, '/')) {
		if (stat(cmd, &st) < 0)
			return CLI_NOTFOUND;
		if (S_ISDIR(st.st_mode) || access(cmd, X_OK) < 0)
			return CLI_NOEXEC;
		*found = strdup(cmd);
		return *found ? CLI_OK : CLI_NOEXEC;
	}
	if (!*cmd)
		return CLI_NOTFOUND;
	for (p = path ? path : "/usr/local/bin:/usr/bin:/bin"; ; p = end + 1) {
		int dirlen;
		char *cand;

		end = strchrnul(p, ':');
		dirlen = (int)(end - p);
		/* an empty element is the current directory, as for a shell */
		if (asprintf(&cand, "%.*s/%s", dirlen ? dirlen : 1, dirlen ? p : ".", cmd) < 0)
			return CLI_NOEXEC;
		if (stat(cand, &st) == 0 && !S_ISDIR(st.st_mode)) {
			if (access(cand, X_OK) == 0) {
				*found = cand;
				return CLI_OK;
			}
			seen = true;
		}
		free(cand);
		if (!*end)
			break;
	}
	return seen ? CLI_NOEXEC : CLI_NOTFOUND;
}

/* Where the envelope's child finds the preload: in its private /tmp. */
#define PRELOAD_IN_ENVELOPE "/tmp/.pathgate/libpathgate-preload.so"

/* The preload's place relative to the prefix, "lib/pathgate/...": an
 * installed tree that was moved (a DESTDIR staging, a relocated package)
 * keeps bin/ and lib/ together; NULL when pkglibdir is not beneath the
 * prefix bindir lies in. */
static const char *preload_below_prefix(void)
{
	const char *slash = strrchr(PG_BINDIR, '/');
	size_t n = slash ? (size_t)(slash - PG_BINDIR) : 0;

	if (!n || strncmp(PG_PRELOAD_PATH, PG_BINDIR, n) != 0 || PG_PRELOAD_PATH[n] != '/')
		return NULL;
	return PG_PRELOAD_PATH + n + 1;
}

/* The preload beside this executable: its directory's parent, then the
 * preload's place beneath the prefix.  Into BUF; NULL when it is not
 * there. */
static const char *preload_beside_exe(char *buf, size_t size)
{
	const char *below = preload_below_prefix();
	char exe[PATH_MAX];
	ssize_t len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	char *slash;
	int i;

	if (!below || len <= 0)
		return NULL;
	exe[len] = '\0';
	for (i = 0; i < 2; i++) {
		slash = strrchr(exe, '/');
		if (!slash)
			return NULL;
		*slash = '\0';
	}
	if ((size_t)snprintf(buf, size, "%s/%s", exe, below) >= size || access(buf, R_OK) != 0)
		return NULL;
	return buf;
}

/* PATHGATE_PRELOAD, else the preload installed beside this executable,
 * else the configured path. */
static const char *preload_path(void)
{
	static char beside[PATH_MAX];
	const char *env = getenv("PATHGATE_PRELOAD");

	if (env && *env)
		return env;
	if (!beside[0] && !preload_beside_exe(beside, sizeof(beside)))
		snprintf(beside, sizeof(beside), "%s", PG_PRELOAD_PATH);
	return beside;
}

/* The policy file's text, for a preload that cannot see the file (the
 * envelope shows the child its root, not what lies beside it); NULL when
 * it does not read or is too large for one environment string. */
static char *policy_text(const char *file)
{
	char *buf = malloc(RUN_TEXT_MAX + 1);
	size_t len;
	FILE *f;

	if (!buf)
		return NULL;
	f = fopen(file, "re");
	if (!f) {
		free(buf);
		return NULL;
	}
	len = fread(buf, 1, RUN_TEXT_MAX + 1, f);
	fclose(f);
	if (len > RUN_TEXT_MAX || memchr(buf, '\0', len)) {
		free(buf);
		return NULL;
	}
	buf[len] = '\0';
	return buf;
}

/* ---- issue 12: refusals seen inside run --------------------------------
 *
 * The preload appends one line per refusal ("CALL PATH: NAME: RULE") to
 * a memfd every process of the command inherits (PATHGATE_LOG_FD, kept
 * like the other variables when a program clears its environment); when
 * the command exits, run prints how many there were and the first few.
 * With --log (or PATHGATE_LOG from the caller) each is also printed on
 * stderr as it happens. */

#define SUMMARY_LINES 5

static int log_open(void)
{
	int fd = memfd_create("pathgate-refusals", 0);

	if (fd >= 0 && fcntl(fd, F_SETFL, O_APPEND) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

static size_t log_vars(const struct run_opts *o, char **vars)
{
	size_t n = 0;

	if (o->log && (vars[n] = strdup("PATHGATE_LOG=1")))
		n++;
	if (o->log_fd >= 0 && asprintf(&vars[n], "PATHGATE_LOG_FD=%d", o->log_fd) >= 0)
		n++;
	return n;
}

/* How many refusals, the first SUMMARY_LINES of them, and what to do
 * about a denied name a tree walk met. */
static void log_summary(int fd)
{
	char line[1024];
	size_t count = 0;
	bool denied = false;
	FILE *f;

	if (fd < 0 || lseek(fd, 0, SEEK_SET) < 0 || !(f = fdopen(dup(fd), "r")))
		return;
	while (fgets(line, sizeof(line), f)) {
		if (!strchr(line, '\n'))
			continue;
		if (count++ < SUMMARY_LINES)
			fprintf(stderr, "pathgate: run: refused: %s", line);
		denied = denied || strstr(line, ": workspace.denied");
	}
	fclose(f);
	if (count > SUMMARY_LINES)
		fprintf(stderr, "pathgate: run: ... %zu refusals in all (--log shows each)\n", count);
	if (denied)
		fputs("pathgate: run: a tool that walks the tree (git add -A, tar c .) stops at a denied name: "
		      "ignore it there (.gitignore, tar --exclude)\n", stderr);
}

/* ---------------------------------------------------------------------- */

/* The variables that configure the preload in the child.  Returns how
 * many were written to VARS (each owned by the caller).  In the envelope
 * (ENVELOPE) the preload is told so: the mounts beneath the root are the
 * plan's, and it crosses them (see PATHGATE_ENVELOPE in pathgate(1)). */
static size_t preload_vars(const struct cli_workspace *ws, const struct run_opts *o,
			   const char *preload, const char *inherited_preload, bool envelope,
			   char *vars[RUN_VARS])
{
	char *text;
	size_t n = 0;

	if (inherited_preload && *inherited_preload) {
		if (asprintf(&vars[n], "LD_PRELOAD=%s:%s", preload, inherited_preload) >= 0)
			n++;
	} else if (asprintf(&vars[n], "LD_PRELOAD=%s", preload) >= 0) {
		n++;
	}
	if (asprintf(&vars[n], "PATHGATE_ROOT=%s", pg_root_path(ws->root)) >= 0)
		n++;
	if (ws->source && asprintf(&vars[n], "PATHGATE_POLICY=%s", ws->source) >= 0)
		n++;
	if (ws->source && (text = policy_text(ws->source))) {
		if (asprintf(&vars[n], "PATHGATE_POLICY_TEXT=%s", text) >= 0)
			n++;
		free(text);
	}
	if (envelope && (vars[n] = strdup("PATHGATE_ENVELOPE=1")))
		n++;
	n += log_vars(o, vars + n);
	return n;
}

static bool is_var(const char *entry, const char *name)
{
	size_t n = strlen(name);

	return strncmp(entry, name, n) == 0 && entry[n] == '=';
}

static bool is_preload_var(const char *entry)
{
	return is_var(entry, "LD_PRELOAD") || is_var(entry, "PATHGATE_ROOT") ||
	       is_var(entry, "PATHGATE_POLICY") || is_var(entry, "PATHGATE_POLICY_TEXT") ||
	       is_var(entry, "PATHGATE_ENVELOPE") || is_var(entry, "PATHGATE_LOG") ||
	       is_var(entry, "PATHGATE_LOG_FD");
}

/* True when ENTRY's name is one of LIST's. */
static bool named_in(const char *entry, char *const *list, size_t n)
{
	size_t len = strcspn(entry, "="), i;

	for (i = 0; i < n; i++)
		if (strncmp(list[i], entry, len) == 0 && list[i][len] == '=')
			return true;
	return false;
}

/* The child's environment: the host's (KEEP_HOST, without what is set
 * below), then the --env variables, then the preload's VARS. */
static char **build_env(char *const *vars, size_t nvars, char *const *extra, size_t nextra,
			bool keep_host)
{
	size_t n = 0, i, k = 0;
	char **env;

	if (keep_host)
		while (environ[n])
			n++;
	env = calloc(n + nextra + nvars + 1, sizeof(*env));
	if (!env)
		return NULL;
	for (i = 0; i < n; i++)
		if (!is_preload_var(environ[i]) && !named_in(environ[i], extra, nextra))
			env[k++] = environ[i];
	for (i = 0; i < nextra; i++)
		if (!is_preload_var(extra[i]) || nvars == 0)
			env[k++] = extra[i];
	for (i = 0; i < nvars; i++)
		env[k++] = vars[i];
	return env;
}

static int wait_status(pid_t pid)
{
	int status;

	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR) {
			perror("pathgate: run: waitpid");
			return CLI_SANDBOX;
		}
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return CLI_SANDBOX;
}

/* ---- issue 10.2: the report is written after the child ran, with the
 * caller's rights, where the child may have planted a link: it is
 * created without following one in any component, and a link, a FIFO
 * or another hard link there makes it fail. */
static FILE *open_report(const char *file)
{
	int fd;
	FILE *f;

	if (strcmp(file, "-") == 0)
		return fdopen(dup(STDOUT_FILENO), "w");
	fd = pg_create_guarded(file, 0666);
	if (fd < 0)
		return NULL;
	f = fdopen(fd, "w");
	if (!f)
		close(fd);
	return f;
}

static void write_report(const char *file, const char *json)
{
	FILE *f = open_report(file);

	if (!f || fputs(json, f) < 0 || fputc('\n', f) < 0 || fclose(f) != 0)
		fprintf(stderr, "pathgate: run: --report %s: %s\n", file, strerror(errno));
}

static int spawn_failed(const char *cmd)
{
	int err = errno;

	if (cli_sandbox_refused()) {
		cli_print_refusal(stderr, "run: the envelope cannot be built here");
		return CLI_SANDBOX;
	}
	fprintf(stderr, "pathgate: run: %s: %s\n", cmd, strerror(err));
	if (err == ENOENT)
		return CLI_NOTFOUND;
	return err == EACCES || err == ENOEXEC || err == EISDIR ? CLI_NOEXEC : CLI_SANDBOX;
}

/* ---- issue 12: the conventions of a command runner ------------------ */

/* The child starts where the caller is when that lies in the root and
 * the envelope shows it (a shell started there would); else in the root,
 * saying why. */
static void keep_cwd(const struct cli_workspace *ws, pg_plan *plan)
{
	char *cwd = getcwd(NULL, 0);
	const char *top = pg_root_path(ws->root);
	size_t n = strlen(top);

	if (cwd && strcmp(cwd, top) != 0 && (strcmp(top, "/") == 0 ||
	    (strncmp(cwd, top, n) == 0 && cwd[n] == '/')) && pg_plan_chdir(plan, cwd) < 0)
		fprintf(stderr, "pathgate: run: the working directory %s is not shown in the envelope (%s): "
			"the command starts in %s\n", cwd, strerror(errno), top);
	free(cwd);
}

/* One PATH: the command is found on the caller's PATH, so the child gets
 * that PATH too (as bwrap and firejail keep it), before any --env. */
static int keep_path(struct run_opts *o)
{
	return getenv("PATH") ? add_env(o, "PATH") : 0;
}

/* ---------------------------------------------------------------------- */

/* ---- issue 10.1: a policy file a later launch loads is never the
 * child's to write.  The policy the launch runs under gets a final read
 * rule for each (pg_policy_guard_files): the plan binds the existing ones
 * read-only, names the absent ones as seams, and the audit moves aside
 * any the child made.  plan shows the same envelope. */
int cli_guard_policy_files(struct cli_workspace *ws)
{
	pg_root *guarded;

	if (pg_policy_guard_files(ws->policy, pg_root_path(ws->root), ws->source) < 0) {
		perror("pathgate: guarding the policy files");
		return CLI_USAGE;
	}
	guarded = pg_root_open(pg_root_path(ws->root), ws->policy, 0);
	if (!guarded) {
		cli_print_refusal(stderr, pg_root_path(ws->root));
		return CLI_USAGE;
	}
	pg_root_close(ws->root);
	ws->root = guarded;
	return CLI_OK;
}

/* ---- issue 10.9: a command the envelope does not show fails inside
 * bwrap with exit 1; run says 127 before launching. */
static int command_shown(pg_plan *plan, const char *file, const char *cmd)
{
	if (pg_plan_shows_file(plan, file) == 0)
		return CLI_OK;
	fprintf(stderr, "pathgate: run: %s: command not found in the envelope (%s is hidden there by the policy, or in its private /tmp)\n",
		cmd, file);
	return CLI_NOTFOUND;
}

/* ---- issue 10.3: the child inherits 0, 1, 2 and the refusal log only. */
static int launch_plan(pg_plan *plan, const struct run_opts *o, const char *file,
		       char *const cmdv[], char **env, pid_t *pid)
{
	posix_spawn_file_actions_t fa;
	int err;

	if ((err = posix_spawn_file_actions_init(&fa)) != 0)
		return err;
	if (o->log_fd >= 0)
		err = posix_spawn_file_actions_adddup2(&fa, o->log_fd, o->log_fd);
	if (err == 0)
		err = pg_plan_spawn(pid, plan, file, &fa, NULL, cmdv, env);
	posix_spawn_file_actions_destroy(&fa);
	return err;
}

/* The preload lives where the child may see nothing (a build tree under
 * /tmp, a prefix the policy does not read), and ld.so ignores an
 * LD_PRELOAD it cannot open: so it is lent into the envelope's private
 * /tmp by descriptor, and a preload that cannot be lent refuses the run.
 * PLAN stays the caller's, for the audit after the child. */
static int spawn_in_envelope(struct cli_workspace *ws, pg_plan *plan, const struct run_opts *o,
			     const char *file, char *const cmdv[], char **env, pid_t *pid)
{
	int err, rc;

	if (o->preload && pg_plan_lend(plan, preload_path(), PRELOAD_IN_ENVELOPE,
				       "pathgate run: the preload") < 0) {
		fprintf(stderr, "pathgate: run: cannot lend the preload %s to the envelope: %s\n",
			preload_path(), strerror(errno));
		return CLI_SANDBOX;
	}
	if ((rc = command_shown(plan, file, cmdv[0])) != CLI_OK)
		return rc;
	if (o->accept & ACCEPT_WALK_BOUND)
		pg_plan_accept_seam(plan, PG_SEAM_WALK_BOUND);
	keep_cwd(ws, plan);
	err = launch_plan(plan, o, file, cmdv, env, pid);
	if (err) {
		errno = err;
		return spawn_failed(cmdv[0]);
	}
	return CLI_OK;
}

/* ---- issue 10.11: every process of the launch is run's to reap.  As a
 * subreaper, run inherits what bwrap leaves behind (--disable-userns
 * forks an intermediate process) and waits for all of it; what still
 * lives a while after the command ended is killed. */
static void become_subreaper(void)
{
	if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) < 0)
		perror("pathgate: run: PR_SET_CHILD_SUBREAPER");
}

static void kill_children(void)
{
	char path[64], buf[4096];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/self/task/%ld/children", (long)getpid());
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	for (char *p = buf, *end; n > 0 && p < buf + n; p = end) {
		long child;

		buf[n] = '\0';
		child = strtol(p, &end, 10);
		if (end == p)
			break;
		if (child > 0)
			kill((pid_t)child, SIGKILL);
	}
}

/* What bwrap leaves usually dies within a millisecond of the command (it
 * dies with its parent).  Wait for it with SIGCHLD blocked and taken by
 * sigtimedwait, so run returns the moment the last one is reaped instead
 * of at the next tick of a poll; after 2 s what is left is killed. */
static long elapsed_us(const struct timespec *since)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (now.tv_sec - since->tv_sec) * 1000000L + (now.tv_nsec - since->tv_nsec) / 1000;
}

static void reap_all(void)
{
	struct timespec start, nap;
	sigset_t chld, old;
	bool killed = false;
	int status;
	pid_t r;

	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sigprocmask(SIG_BLOCK, &chld, &old);
	clock_gettime(CLOCK_MONOTONIC, &start);
	for (;;) {
		r = waitpid(-1, &status, WNOHANG);
		if (r > 0 || (r < 0 && errno == EINTR))
			continue;
		if (r < 0)
			break;   /* ECHILD: nothing of the launch is left */
		if (!killed && elapsed_us(&start) >= 2000000) {   /* 2 s after the command */
			kill_children();
			killed = true;
		}
		/* A child that died since the waitpid left SIGCHLD pending. */
		nap = (struct timespec){ 0, 10 * 1000 * 1000 };
		sigtimedwait(&chld, NULL, &nap);
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
}

/* ---- issue 10.10: what the child created in a seam is moved aside
 * before run returns, and said. */
static void audit(struct cli_workspace *ws, const struct run_opts *o, const pg_plan *plan)
{
	char *text = pg_plan_audit(ws->root, plan, o->accept & ACCEPT_CREATED ? PG_AUDIT_KEEP : 0);
	char *line, *save = NULL;

	if (!text) {
		fprintf(stderr, "pathgate: run: the audit after the command failed: %s\n", strerror(errno));
		return;
	}
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *to = strchr(line, '\t'), *rule = to ? strchr(to + 1, '\t') : NULL;

		if (!rule)
			continue;
		*to++ = '\0';
		*rule++ = '\0';
		fprintf(stderr, "pathgate: run: the command created %s where the policy does not let it write (%s): %s%s\n",
			line, rule, strchr(to, '.') && strstr(to, ".pathgate-quarantine-") ? "moved aside to " : "", to);
	}
	free(text);
}

static int run_command(struct cli_workspace *ws, const struct run_opts *o, char *const cmdv[])
{
	char *file = NULL, *vars[RUN_VARS] = { 0 }, **env = NULL;
	size_t nvars = 0, i;
	pg_plan *plan = NULL;
	bool landlock = false;
	pid_t pid;
	int rc = find_command(cmdv[0], &file);

	if (rc != CLI_OK) {
		fprintf(stderr, "pathgate: run: %s: %s\n", cmdv[0],
			rc == CLI_NOTFOUND ? "command not found" : "not executable");
		return rc;
	}
	if (o->preload) {
		if (access(preload_path(), R_OK) < 0) {
			fprintf(stderr, "pathgate: run: the preload %s: %s (set PATHGATE_PRELOAD, or --no-preload)\n",
				preload_path(), strerror(errno));
			rc = CLI_USAGE;
			goto out;
		}
	}
	/* The envelope chosen decides where the child finds the preload:
	 * lent into bwrap's private /tmp, or granted where it lies
	 * (Landlock has no mounts, so no PATHGATE_ENVELOPE either). */
	if (o->envelope) {
		if (getenv("PATHGATE_LANDLOCK_EXEC") && *getenv("PATHGATE_LANDLOCK_EXEC"))
			pg_landlock_set_helper(getenv("PATHGATE_LANDLOCK_EXEC"));
		plan = pg_plan_build(ws->root, o->plan_flags);
		if (!plan) {
			rc = spawn_failed(cmdv[0]);
			goto out;
		}
		landlock = pg_plan_envelope(plan) == PG_ENVELOPE_LANDLOCK;
	}
	if (o->preload)
		nvars = !o->envelope ? preload_vars(ws, o, preload_path(), getenv("LD_PRELOAD"), false, vars)
		      : landlock ? preload_vars(ws, o, preload_path(), NULL, false, vars)
				 : preload_vars(ws, o, PRELOAD_IN_ENVELOPE, NULL, true, vars);
	env = build_env(vars, nvars, o->env, o->nenv, !o->envelope);
	if (!env) {
		perror("pathgate");
		rc = CLI_USAGE;
		goto out;
	}
	if (o->envelope) {
		become_subreaper();
		rc = spawn_in_envelope(ws, plan, o, file, cmdv, env, &pid);
		if (rc != CLI_OK)
			goto out;
	} else {
		int err = posix_spawn(&pid, file, NULL, NULL, cmdv, env);

		if (err) {
			errno = err;
			rc = spawn_failed(cmdv[0]);
			goto out;
		}
		if (o->report)
			write_report(o->report, o->preload ? "{\"envelope\":false,\"preload\":true}"
							   : "{\"envelope\":false,\"preload\":false}");
	}
	rc = wait_status(pid);
	if (plan) {
		reap_all();
		audit(ws, o, plan);
		if (o->report)
			write_report(o->report, pg_spawn_report());
	}
	log_summary(o->log_fd);
out:
	pg_plan_free(plan);
	for (i = 0; i < nvars; i++)
		free(vars[i]);
	free(env);
	free(file);
	return rc;
}

/* --envelope=auto|bwrap|landlock into pg_plan_build's flags (shared with
 * pathgate plan). */
int cli_envelope_flags(const char *word, unsigned *flags)
{
	*flags &= ~(PG_PLAN_BWRAP | PG_PLAN_LANDLOCK);
	if (!strcmp(word, "bwrap"))
		*flags |= PG_PLAN_BWRAP;
	else if (!strcmp(word, "landlock"))
		*flags |= PG_PLAN_LANDLOCK;
	else if (strcmp(word, "auto") != 0) {
		fprintf(stderr, "pathgate: --envelope=%s: want auto, bwrap or landlock\n", word);
		return -1;
	}
	return 0;
}

int run_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "root", required_argument, NULL, CLI_OPT_ROOT },
		{ "policy", required_argument, NULL, CLI_OPT_POLICY },
		{ "report", required_argument, NULL, 'r' },
		{ "log", no_argument, NULL, 'l' },
		{ "no-preload", no_argument, NULL, 'P' },
		{ "no-envelope", no_argument, NULL, 'E' },
		{ "env", required_argument, NULL, 'e' },
		{ "envelope", required_argument, NULL, 'v' },
		{ "accept-weaker", no_argument, NULL, 'w' },
		{ "accept-seam", required_argument, NULL, 'A' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct cli_workspace ws = { 0 };
	struct run_opts o = { .preload = true, .envelope = true, .log_fd = -1 };
	const char *log = getenv("PATHGATE_LOG");
	int c, rc;

	o.log = log && *log && strcmp(log, "0") != 0;
	if (keep_path(&o) < 0)
		return CLI_USAGE;
	while ((c = getopt_long(argc, argv, "+h", longopts, NULL)) != -1) {
		if (cli_workspace_option(&ws, c, optarg))
			continue;
		switch (c) {
		case 'r': o.report = optarg; break;
		case 'l': o.log = true; break;
		case 'P': o.preload = false; break;
		case 'E': o.envelope = false; break;
		case 'v':
			if (cli_envelope_flags(optarg, &o.plan_flags) < 0) {
				free_env(&o);
				return CLI_USAGE;
			}
			break;
		case 'w': o.plan_flags |= PG_PLAN_ACCEPT_WEAKER; break;
		case 'e':
			if (add_env(&o, optarg) < 0) {
				free_env(&o);
				return CLI_USAGE;
			}
			break;
		case 'A':
			if (parse_accept(&o, optarg) < 0) {
				free_env(&o);
				return cli_try("run");
			}
			break;
		case 'h': cli_help("run", stdout); free_env(&o); return CLI_OK;
		default: free_env(&o); return cli_try("run");
		}
	}
	rc = CLI_USAGE;
	if (optind >= argc)
		fputs("pathgate: run: no command given (pathgate run [OPTION]... -- CMD [ARG]...)\n"
		      "Try 'pathgate run --help'.\n", stderr);
	else if (!o.preload && !o.envelope)
		fputs("pathgate: run: --no-preload with --no-envelope would run the command unconfined; refused\n",
		      stderr);
	else
		rc = cli_workspace_open(&ws);
	if (rc == CLI_OK && o.envelope)
		rc = cli_guard_policy_files(&ws);
	if (rc == CLI_OK) {
		fflush(stdout);
		if (o.preload)
			o.log_fd = log_open();
		rc = run_command(&ws, &o, argv + optind);
		if (o.log_fd >= 0)
			close(o.log_fd);
	}
	if (ws.policy || ws.root)
		cli_workspace_close(&ws);
	free_env(&o);
	return rc;
}
