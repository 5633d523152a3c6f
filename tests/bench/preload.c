/* preload.c - the preload's cost on whole programs: find, tar cf and git
 * status over a generated tree, each run with libpathgate-preload.so and
 * without it, the two interleaved in the same run, on the same tree (so
 * the same filesystem for both sides). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"

#define TREE_DIRS  20
#define TREE_FILES 50   /* per directory: 1 000 files in all */

struct cmd_ctx {
	char *const *argv;
	char       **envp;
	const char  *cwd;
};

static int run_cmd(void *p, size_t n)
{
	struct cmd_ctx *c = p;

	for (size_t i = 0; i < n; i++) {
		posix_spawn_file_actions_t fa;
		int status, r;
		pid_t pid;

		posix_spawn_file_actions_init(&fa);
		posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
		posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
		posix_spawn_file_actions_addchdir_np(&fa, c->cwd);
		r = posix_spawnp(&pid, c->argv[0], &fa, NULL, c->argv, c->envp);
		posix_spawn_file_actions_destroy(&fa);
		if (r != 0)
			return errno = r, -1;
		while (waitpid(pid, &status, 0) < 0)
			if (errno != EINTR)
				return -1;
		if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
			return errno = ECHILD, -1;
	}
	return 0;
}

/* TREE_DIRS directories of TREE_FILES small files each, committed to a
 * git repository so that git status has an index to compare with. */
static int make_tree(const char *tree)
{
	char cmd[8400];

	if (mkdir(tree, 0755) < 0)
		return -1;
	for (int d = 0; d < TREE_DIRS; d++)
		for (int f = 0; f < TREE_FILES; f++) {
			char path[4300];
			FILE *out;

			snprintf(path, sizeof path, "%s/d%02d", tree, d);
			mkdir(path, 0755);
			snprintf(path, sizeof path, "%s/d%02d/f%02d.txt", tree, d, f);
			out = fopen(path, "w");
			if (!out)
				return -1;
			fprintf(out, "file %d of directory %d\n", f, d);
			fclose(out);
		}
	snprintf(cmd, sizeof cmd,
		 "cd '%s' && git init -q && git -c user.name=bench -c user.email=bench@localhost "
		 "add -A && git -c user.name=bench -c user.email=bench@localhost commit -qm tree",
		 tree);
	return system(cmd) == 0 ? 0 : -1;
}

static void row(const char *what, char *const argv[], char **bare_env, char **pre_env,
		const char *tree, double target)
{
	struct cmd_ctx with = { argv, pre_env, tree }, without = { argv, bare_env, tree };
	struct bench_side s[2] = {
		{ .label = "with preload", .fn = run_cmd, .ctx = &with },
		{ .label = "without", .fn = run_cmd, .ctx = &without },
	};

	bench_run(s, 2, bench_iters(3), bench_reps());
	bench_row_ratio(what, &s[0], &s[1], target);
}

void bench_preload(void)
{
	const char *so = getenv("PG_BENCH_PRELOAD");
	char *dir = bench_mkdtemp("preload", false);
	char tree[4200], home[4220], root_var[4220], preload_var[4220];
	char *bare_env[] = { (char *)"PATH=/usr/bin:/bin", home, (char *)"GIT_CONFIG_NOSYSTEM=1",
			     (char *)"LC_ALL=C", NULL };
	char *pre_env[] = { (char *)"PATH=/usr/bin:/bin", home, (char *)"GIT_CONFIG_NOSYSTEM=1",
			    (char *)"LC_ALL=C", preload_var, root_var,
			    (char *)"PATHGATE_POLICY_TEXT=read /\nwrite .\n", NULL };
	char *find_argv[] = { (char *)"find", (char *)".", NULL };
	char *tar_argv[] = { (char *)"tar", (char *)"cf", (char *)".out.tar",
			     (char *)"--exclude=.out.tar", (char *)".", NULL };
	char *git_argv[] = { (char *)"git", (char *)"status", (char *)"--porcelain", NULL };

	bench_section("preload: whole programs with / without the preload (wall, median)");
	if (!so)
		so = "shim/.libs/libpathgate-preload.so";
	if (access(so, R_OK) < 0) {
		bench_row_unavailable("preload", "shim/.libs/libpathgate-preload.so not built");
		goto out;
	}
	if (!dir) {
		bench_row_unavailable("preload", strerror(errno));
		goto out;
	}
	snprintf(tree, sizeof tree, "%s/tree", dir);
	if (make_tree(tree) < 0) {
		bench_row_unavailable("preload", "the tree (or its git repository) failed");
		goto out;
	}
	snprintf(home, sizeof home, "HOME=%s", dir);
	snprintf(root_var, sizeof root_var, "PATHGATE_ROOT=%s", tree);
	if (so[0] == '/') {
		snprintf(preload_var, sizeof preload_var, "LD_PRELOAD=%s", so);
	} else {
		char cwd[4096];

		if (!getcwd(cwd, sizeof cwd))
			goto out;
		snprintf(preload_var, sizeof preload_var, "LD_PRELOAD=%s/%s", cwd, so);
	}
	row("find . (1 000 files): with / without preload", find_argv, bare_env, pre_env, tree, 1.15);
	row("tar cf (1 000 files): with / without preload", tar_argv, bare_env, pre_env, tree, 1.5);
	row("git status (1 000 files): with / without preload", git_argv, bare_env, pre_env, tree, 1.3);
out:
	if (dir) {
		bench_rmtree(dir);
		free(dir);
	}
}
