/* envelope.c - building the bwrap plan for 10 and 1 000 rules, and
 * pg_spawn of /bin/true against bwrap spawned directly with the plan's own
 * argument vector (the same mounts), so the difference is what the library
 * adds around the launch; pg_spawn at 10, 100 and 1 000 denied names;
 * and `pathgate run -- /bin/true` as a whole against the same bare bwrap,
 * interleaved in the same run. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"
#include "seccomp-filter.h"

#pragma weak pg_seccomp_filter_fd

extern char **environ;

struct env_ctx {
	pg_root      *root;
	char        **bare_argv;   /* the plan's argv + -- /bin/true */
	posix_spawn_file_actions_t *fds;  /* the plan's descriptors, inherited */
	int           plan_fds[64];
	size_t        nplan_fds;
	char        **seccomp_argv; /* the plan's argv + --seccomp N -- /bin/true */
	char          seccomp_num[16];
	char         *cli_argv[12]; /* pathgate run --root DIR ... -- /bin/true */
};

static int run_plan(void *p, size_t n)
{
	struct env_ctx *c = p;

	for (size_t i = 0; i < n; i++) {
		pg_plan *plan = pg_plan_build(c->root, 0);

		if (!plan)
			return -1;
		pg_plan_free(plan);
	}
	return 0;
}

static int wait_ok(pid_t pid)
{
	int status;

	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return errno = ECHILD, -1;
	return 0;
}

static int run_pg_spawn(void *p, size_t n)
{
	struct env_ctx *c = p;
	char *argv[] = { (char *)"true", NULL };
	char *envp[] = { NULL };

	for (size_t i = 0; i < n; i++) {
		pid_t pid;
		int r = pg_spawn(&pid, c->root, "/bin/true", NULL, NULL, argv, envp);

		if (r != 0)
			return errno = r > 0 ? r : errno, -1;
		if (wait_ok(pid) < 0)
			return -1;
	}
	return 0;
}

static int run_bare_bwrap(void *p, size_t n)
{
	struct env_ctx *c = p;
	char *envp[] = { NULL };

	for (size_t i = 0; i < n; i++) {
		pid_t pid;
		int r = posix_spawn(&pid, c->bare_argv[0], c->fds, NULL, c->bare_argv, envp);

		if (r != 0)
			return errno = r, -1;
		if (wait_ok(pid) < 0)
			return -1;
	}
	return 0;
}

/* `pathgate run` as a user starts it: a process of its own that builds
 * the plan and launches bwrap (the probe's cache in the bench's own
 * $XDG_RUNTIME_DIR, as on a desktop session). */
static int run_cli(void *p, size_t n)
{
	struct env_ctx *c = p;

	for (size_t i = 0; i < n; i++) {
		pid_t pid;
		int r = posix_spawn(&pid, c->cli_argv[0], NULL, NULL, c->cli_argv, environ);

		if (r != 0)
			return errno = r, -1;
		if (wait_ok(pid) < 0)
			return -1;
	}
	return 0;
}

/* bwrap doing exactly the work pg_spawn gives it: the plan's mounts and
 * the same seccomp program, a fresh memfd per launch; what is left between
 * this and pg_spawn is the library's own work. */
static int run_bwrap_seccomp(void *p, size_t n)
{
	struct env_ctx *c = p;
	char *envp[] = { NULL };

	for (size_t i = 0; i < n; i++) {
		posix_spawn_file_actions_t fa;
		int sfd = pg_seccomp_filter_fd(), r;
		pid_t pid;

		if (sfd < 0)
			return -1;
		snprintf(c->seccomp_num, sizeof c->seccomp_num, "%d", sfd);
		posix_spawn_file_actions_init(&fa);
		for (size_t k = 0; k < c->nplan_fds; k++)
			posix_spawn_file_actions_adddup2(&fa, c->plan_fds[k], c->plan_fds[k]);
		posix_spawn_file_actions_adddup2(&fa, sfd, sfd);
		r = posix_spawn(&pid, c->seccomp_argv[0], &fa, NULL, c->seccomp_argv, envp);
		posix_spawn_file_actions_destroy(&fa);
		close(sfd);
		if (r != 0)
			return errno = r, -1;
		if (wait_ok(pid) < 0)
			return -1;
	}
	return 0;
}

/* A workspace BASE/SUB of its own (so the planner's directory listings
 * see only this workspace's entries) judged by "read /", "write .", then
 * N-2 rules over e0 ...: read, deny, write-beneath-a-read, alternating. */
static pg_root *open_root(const char *base, const char *sub, size_t n)
{
	char dir[4200];
	pg_policy *pol = pg_policy_new();
	pg_root *root = NULL;
	int dirfd = -1;
	int ok = pol && pg_policy_add(pol, PG_READ, "/") == 0 &&
		 pg_policy_add(pol, PG_WRITE, ".") == 0;

	snprintf(dir, sizeof dir, "%s/%s", base, sub);
	ok = ok && mkdir(dir, 0755) == 0 &&
	     (dirfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC)) >= 0;
	for (size_t i = 0; ok && i + 2 < n; i++) {
		char path[64];
		enum pg_access a = i % 3 == 0 ? PG_READ : i % 3 == 1 ? PG_DENY : PG_WRITE;

		snprintf(path, sizeof path, i % 3 == 2 ? "e%zu/sub" : "e%zu", i);
		ok = bench_make_path(dirfd, path, false) == 0 && pg_policy_add(pol, a, path) == 0;
	}
	if (ok)
		root = pg_root_open(dir, pol, 0);
	if (dirfd >= 0)
		close(dirfd);
	if (pol)
		pg_policy_free(pol);
	return root;
}

/* A workspace BASE/SUB judged by "read /", "write ." and N deny rules,
 * each on a directory that exists (so each lays a mask). */
static pg_root *open_denied(const char *base, const char *sub, size_t n)
{
	char dir[4200];
	pg_policy *pol = pg_policy_new();
	pg_root *root = NULL;
	int dirfd = -1;
	int ok = pol && pg_policy_add(pol, PG_READ, "/") == 0 &&
		 pg_policy_add(pol, PG_WRITE, ".") == 0;

	snprintf(dir, sizeof dir, "%s/%s", base, sub);
	ok = ok && mkdir(dir, 0755) == 0 &&
	     (dirfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC)) >= 0;
	for (size_t i = 0; ok && i < n; i++) {
		char path[64];

		snprintf(path, sizeof path, "d%zu", i);
		ok = bench_make_path(dirfd, path, false) == 0 && pg_policy_add(pol, PG_DENY, path) == 0;
	}
	if (ok)
		root = pg_root_open(dir, pol, 0);
	if (dirfd >= 0)
		close(dirfd);
	if (pol)
		pg_policy_free(pol);
	return root;
}

/* pg_spawn of /bin/true at 10, 100 and 1 000 denied names, interleaved:
 * the launch at 1 000 within 100 ms, and growth at most linear (the step
 * from 100 to 1 000 names at most 10x the step from 10 to 100, over
 * 9x as many names: 11 with the 10-name base left in). */
static void bench_spawn_denied(const char *dir)
{
	static const size_t counts[3] = { 10, 100, 1000 };
	struct env_ctx c[3] = { { 0 } };
	struct bench_side sd[3];
	char sub[32];

	for (size_t i = 0; i < 3; i++) {
		snprintf(sub, sizeof sub, "denied%zu", counts[i]);
		c[i].root = open_denied(dir, sub, counts[i]);
		if (!c[i].root) {
			bench_row_unavailable("pg_spawn, denied names", "pg_root_open failed");
			goto out;
		}
		sd[i] = (struct bench_side){ .label = "pg_spawn", .fn = run_pg_spawn, .ctx = &c[i] };
	}
	bench_run(sd, 3, bench_iters(5), bench_reps());
	for (size_t i = 0; i < 3; i++) {
		char what[64];

		snprintf(what, sizeof what, "pg_spawn /bin/true, %zu denied names", counts[i]);
		if (sd[i].err)
			bench_row_unavailable(what, strerror(sd[i].err));
		else
			bench_row_value(what, sd[i].median, BENCH_NS, counts[i] == 1000 ? 100e6 : -1);
	}
	if (!sd[0].err && !sd[1].err && !sd[2].err && sd[1].median > sd[0].median)
		bench_row_value("pg_spawn growth: (1000 - 10) / (100 - 10) names",
				(sd[2].median - sd[0].median) / (sd[1].median - sd[0].median),
				BENCH_COUNT, 11);
	else
		bench_row_value("pg_spawn growth: 10 -> 100 names (ms), no growth to divide by",
				(sd[1].median - sd[0].median) / 1e6, BENCH_COUNT, -1);
out:
	for (size_t i = 0; i < 3; i++)
		if (c[i].root)
			pg_root_close(c[i].root);
}

/* The plan's argv with "-- /bin/true" appended (and, in C->seccomp_argv,
 * "--seccomp N" before it); the descriptors it lends bwrap (--bind-fd,
 * --ro-bind-fd) are made inheritable through FA. */
static int bare_argv(struct env_ctx *c, const pg_plan *plan, posix_spawn_file_actions_t *fa)
{
	char *const *argv = pg_plan_argv(plan);
	size_t n = 0;

	for (; argv[n]; n++) {
		size_t len = strlen(argv[n]);

		if (argv[n + 1] && len > 3 && strcmp(argv[n] + len - 3, "-fd") == 0 &&
		    strncmp(argv[n], "--", 2) == 0 && c->nplan_fds < 64) {
			int fd = atoi(argv[n + 1]);

			posix_spawn_file_actions_adddup2(fa, fd, fd);
			c->plan_fds[c->nplan_fds++] = fd;
		}
	}
	c->bare_argv = calloc(n + 3, sizeof *c->bare_argv);
	c->seccomp_argv = calloc(n + 5, sizeof *c->seccomp_argv);
	if (!c->bare_argv || !c->seccomp_argv)
		return -1;
	memcpy(c->bare_argv, argv, n * sizeof *argv);
	c->bare_argv[n] = (char *)"--";
	c->bare_argv[n + 1] = (char *)"/bin/true";
	memcpy(c->seccomp_argv, argv, n * sizeof *argv);
	c->seccomp_argv[n] = (char *)"--seccomp";
	c->seccomp_argv[n + 1] = c->seccomp_num;
	c->seccomp_argv[n + 2] = (char *)"--";
	c->seccomp_argv[n + 3] = (char *)"/bin/true";
	return 0;
}

/* `pathgate run --no-preload -- /bin/true` over the small workspace with
 * the same rules as a file, against bare bwrap with the small plan's
 * mounts; PG_BENCH_PATHGATE names the tool (default shim/pathgate, from
 * the build directory `make bench` runs in). */
static void bench_cli(const char *dir, struct env_ctx *small)
{
	const char *tool = getenv("PG_BENCH_PATHGATE");
	static char root[4200], policy[4200];
	FILE *f;

	if (!tool)
		tool = "shim/pathgate";
	if (access(tool, X_OK) < 0) {
		bench_row_unavailable("pathgate run -- /bin/true", "shim/pathgate not built");
		return;
	}
	snprintf(root, sizeof root, "%s/small", dir);
	snprintf(policy, sizeof policy, "%s/small.policy", dir);
	f = fopen(policy, "w");
	if (!f) {
		bench_row_unavailable("pathgate run -- /bin/true", strerror(errno));
		return;
	}
	fprintf(f, "read /\nwrite .\n");
	for (size_t i = 0; i + 2 < 10; i++)
		fprintf(f, i % 3 == 0 ? "read e%zu\n" : i % 3 == 1 ? "deny e%zu\n" : "write e%zu/sub\n", i);
	fclose(f);
	setenv("XDG_RUNTIME_DIR", dir, 1);
	small->cli_argv[0] = (char *)tool;
	small->cli_argv[1] = (char *)"run";
	small->cli_argv[2] = (char *)"--root";
	small->cli_argv[3] = root;
	small->cli_argv[4] = (char *)"--policy";
	small->cli_argv[5] = policy;
	small->cli_argv[6] = (char *)"--no-preload";
	small->cli_argv[7] = (char *)"--";
	small->cli_argv[8] = (char *)"/bin/true";
	small->cli_argv[9] = NULL;
	struct bench_side sc[2] = {
		{ .label = "pathgate run", .fn = run_cli, .ctx = small },
		{ .label = "bare bwrap", .fn = run_bare_bwrap, .ctx = small },
	};
	bench_run(sc, 2, bench_iters(10), 2 * bench_reps() + 1);
	bench_row_ratio("pathgate run -- /bin/true / bare bwrap, same mounts", &sc[0], &sc[1], 1.3);
}

void bench_envelope(void)
{
	char *dir = bench_mkdtemp("envelope", false);
	struct env_ctx small = { 0 }, large = { 0 };
	pg_plan *plan = NULL;
	posix_spawn_file_actions_t fa;

	posix_spawn_file_actions_init(&fa);

	bench_section("envelope: plans and spawns (per call, median)");
	if (!pg_plan_build || !pg_spawn || !pg_plan_argv || !pg_root_open) {
		bench_row_unavailable("envelope", "lib/envelope.c / lib/spawn.c not built yet");
		goto out;
	}
	if (!dir) {
		bench_row_unavailable("envelope", strerror(errno));
		goto out;
	}
	small.root = open_root(dir, "small", 10);
	large.root = open_root(dir, "large", 1000);
	if (!small.root || !large.root) {
		bench_row_unavailable("envelope", "pg_root_open failed");
		goto out;
	}

	struct bench_side s[2] = {
		{ .label = "plan 10", .fn = run_plan, .ctx = &small },
		{ .label = "plan 1000", .fn = run_plan, .ctx = &large },
	};
	bench_run(s, 2, bench_iters(20), bench_reps());
	if (s[0].err)
		bench_row_unavailable("pg_plan_build, 10 rules", strerror(s[0].err));
	else
		bench_row_value("pg_plan_build, 10 rules", s[0].median, BENCH_NS, -1);
	if (s[1].err)
		bench_row_unavailable("pg_plan_build, 1000 rules", strerror(s[1].err));
	else
		bench_row_value("pg_plan_build, 1000 rules", s[1].median, BENCH_NS, -1);

	plan = pg_plan_build(small.root, 0);
	if (!plan || bare_argv(&small, plan, &fa) < 0) {
		bench_row_unavailable("pg_spawn", "pg_plan_build failed");
		goto out;
	}
	small.fds = &fa;
	struct bench_side sp[3] = {
		{ .label = "pg_spawn", .fn = run_pg_spawn, .ctx = &small },
		{ .label = "bare bwrap", .fn = run_bare_bwrap, .ctx = &small },
		{ .label = "bwrap + seccomp", .fn = run_bwrap_seccomp, .ctx = &small },
	};
	/* A launch is noisy (namespaces, exec): twice the repetitions. */
	bench_run(sp, pg_seccomp_filter_fd ? 3 : 2, bench_iters(10), 2 * bench_reps() + 1);
	bench_row_ratio("spawn /bin/true: pg_spawn / bare bwrap, 10 rules", &sp[0], &sp[1], 1.1);
	if (pg_seccomp_filter_fd)
		bench_row_ratio("spawn /bin/true: pg_spawn / bwrap + same seccomp", &sp[0], &sp[2], 0);
	bench_spawn_denied(dir);
	bench_cli(dir, &small);
out:
	posix_spawn_file_actions_destroy(&fa);
	free(small.bare_argv);
	free(small.seccomp_argv);
	if (plan)
		pg_plan_free(plan);
	if (small.root)
		pg_root_close(small.root);
	if (large.root)
		pg_root_close(large.root);
	bench_rmtree(dir);
	free(dir);
}
