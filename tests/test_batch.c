/* test_batch.c - pg_check_batch gives, through io_uring and through its
 * sequential fallback, exactly the verdicts of one pg_check per path: on
 * a tree with denied, read-only, symlinked, escaping, dangling and absent
 * names, for every operation, on both resolvers, in runs of names under
 * one parent (which the batch judges under the parent held once), and in
 * a process where io_uring_setup is refused by seccomp (the envelope's
 * floor). */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <seccomp.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "pathgate.h"
#include "batch.h"

struct fixture {
	char         dir[64];
	pg_policy   *policy;
	char       **paths;
	size_t       n;
};

static void must(int rc, const char *what)
{
	if (rc < 0) {
		fprintf(stderr, "setup: %s: %s\n", what, strerror(errno));
		abort();
	}
}

static void make_file(const char *dir, const char *name, const char *text)
{
	char p[256];
	int fd;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	must(fd, p);
	must((int)write(fd, text, strlen(text)), p);
	close(fd);
}

static void make_dir(const char *dir, const char *name)
{
	char p[256];

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	must(mkdir(p, 0755), p);
}

static void make_link(const char *dir, const char *target, const char *name)
{
	char p[256];

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	must(symlink(target, p), p);
}

/* Every spelling the resolvers treat differently, repeated with
 * variations to make a batch of several rounds. */
static const char *const base_paths[] = {
	"a", "./a", "a/", "dir/../a", "dir//c", "dir/c", "dir/./c/", "b",
	".env", "./.env", ".ENV", ".Env", "dir/../.env", ".env/", "secrets", "secrets/k",
	"SECRETS/k", "link/c", "link/../a", "envlink", "out", "out/etc/passwd", "dangling",
	"ro", "ro/f", "ro/new", "rolink/f", "absent", "absent/x", "dir/absent", "../x",
	"/etc/passwd", "", "dir/c/x", "hard", ".", "dir", "a/..", "dir/..",
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	size_t i, k = 0, reps = 40;
	char p[256];

	assert_non_null(f);
	snprintf(f->dir, sizeof(f->dir), "/tmp/pg-batch-XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	make_file(f->dir, "a", "a");
	make_file(f->dir, "b", "b");
	make_file(f->dir, ".env", "TOKEN=x");
	make_dir(f->dir, "dir");
	make_file(f->dir, "dir/c", "c");
	make_dir(f->dir, "secrets");
	make_file(f->dir, "secrets/k", "k");
	make_dir(f->dir, "ro");
	make_file(f->dir, "ro/f", "f");
	make_link(f->dir, "dir", "link");
	make_link(f->dir, ".env", "envlink");
	make_link(f->dir, "/", "out");
	make_link(f->dir, "nowhere", "dangling");
	make_link(f->dir, "ro", "rolink");
	snprintf(p, sizeof(p), "%s/.env", f->dir);
	{
		char q[256];

		snprintf(q, sizeof(q), "%s/hard", f->dir);
		must(link(p, q), q);
	}
	f->policy = pg_policy_new();
	assert_non_null(f->policy);
	{
		static const char text[] = "write .\ndeny .env\ndeny secrets\nread ro\n";

		assert_int_equal(pg_policy_parse(f->policy, text, strlen(text)), 0);
	}

	f->n = reps * (sizeof(base_paths) / sizeof(base_paths[0]));
	f->paths = calloc(f->n, sizeof(char *));
	assert_non_null(f->paths);
	for (i = 0; i < reps; i++) {
		size_t j;

		for (j = 0; j < sizeof(base_paths) / sizeof(base_paths[0]); j++) {
			/* every third repetition spells the same names with a
			 * "dir/.." prefix: one more component for the resolver */
			if (i % 3 == 1 && base_paths[j][0] && base_paths[j][0] != '/')
				assert_true(asprintf(&f->paths[k], "dir/../%s", base_paths[j]) > 0);
			else
				f->paths[k] = strdup(base_paths[j]);
			assert_non_null(f->paths[k]);
			k++;
		}
	}
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	char cmd[128];
	size_t i;

	for (i = 0; i < f->n; i++)
		free(f->paths[i]);
	free(f->paths);
	pg_policy_free(f->policy);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", f->dir);
	if (system(cmd) != 0)
		fprintf(stderr, "teardown: could not remove %s\n", f->dir);
	free(f);
	return 0;
}

static void same_verdict(const char *path, const struct pg_verdict *want, const struct pg_verdict *got)
{
	if (want->allowed != got->allowed || want->err != got->err ||
	    (want->name == NULL) != (got->name == NULL) ||
	    (want->name && strcmp(want->name, got->name) != 0) || strcmp(want->rule, got->rule) != 0) {
		fprintf(stderr, "verdicts differ for '%s': %d %s %d '%s' / %d %s %d '%s'\n", path,
			want->allowed, want->name ? want->name : "-", want->err, want->rule,
			got->allowed, got->name ? got->name : "-", got->err, got->rule);
		fail();
	}
}

static int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d)))
		n++;
	closedir(d);
	return n;
}

/* One pg_check per path, then the batch with FLAGS: identical, and the
 * batch leaves no descriptor open. */
static void compare_with_single(pg_root *root, struct fixture *f, enum pg_op op, unsigned flags)
{
	struct pg_verdict *one = calloc(f->n, sizeof(*one)), *batch = calloc(f->n, sizeof(*batch));
	ssize_t refused = 0, got;
	size_t i;
	int fds;

	assert_non_null(one);
	assert_non_null(batch);
	for (i = 0; i < f->n; i++)
		if (pg_check(root, f->paths[i], op, &one[i]) < 0)
			refused++;
	assert_true(refused > 0);
	assert_true((size_t)refused < f->n);
	fds = count_fds();
	got = pg_check_batch(root, (const char *const *)f->paths, f->n, op, batch, flags);
	assert_int_equal(got, refused);
	assert_int_equal(count_fds(), fds);
	for (i = 0; i < f->n; i++)
		same_verdict(f->paths[i], &one[i], &batch[i]);
	assert_null(pg_last_refusal()->name);
	free(one);
	free(batch);
}

static bool uring_available(void)
{
	struct io_uring ring;

	if (io_uring_queue_init(4, &ring, 0) < 0)
		return false;
	io_uring_queue_exit(&ring);
	return true;
}

static void every_op(void **state, unsigned root_flags, unsigned batch_flags)
{
	struct fixture *f = *state;
	pg_root *root = pg_root_open(f->dir, f->policy, root_flags);
	int op;

	assert_non_null(root);
	for (op = PG_OP_READ; op <= PG_OP_DELETE; op++)
		compare_with_single(root, f, (enum pg_op)op, batch_flags);
	pg_root_close(root);
}

static void test_uring_matches_single(void **state)
{
	if (!uring_available()) {
		fprintf(stderr, "io_uring is unavailable on this host: the ring path cannot run\n");
		skip();
	}
	every_op(state, 0, 0);
}

static void test_fallback_matches_single(void **state)
{
	every_op(state, 0, PG_BATCH_NO_URING);
}

static void test_walk_resolver_matches_single(void **state)
{
	every_op(state, PG_ROOT_NO_OPENAT2, 0);
}

/* Runs of plain names under one parent, each odd kind of final name
 * among them (a symlink, a denied file, another link to it, an absent
 * name, a name under a file, under a symlink, under a read-only or denied
 * directory or an absent one), followed by the whole list sorted, as
 * `git ls-files` gives it: the batch holds each shared parent once. */
static const char *const run_paths[] = {
	"a", "b", ".env", "hard", "envlink", "dangling", "out", "link", "absent",
	"dir/c", "dir/absent", "dir/c", "dir/absent2",
	"a/x", "a/y", "absent/x", "absent/y", "link/c", "link/c",
	"ro/f", "ro/new", "ro/f", "secrets/k", "secrets/new", "out/etc", "out/etc",
	"dir/c/x", "dir/c/y", "rolink/f", "rolink/f",
};

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void test_runs_sharing_a_parent_match_single(void **state)
{
	struct fixture *f = *state;
	size_t nrun = sizeof(run_paths) / sizeof(run_paths[0]), i;
	char **paths = calloc(nrun + f->n, sizeof(*paths));
	const unsigned roots[] = { 0, PG_ROOT_NO_OPENAT2 }, batches[] = { 0, PG_BATCH_NO_URING };

	assert_non_null(paths);
	for (i = 0; i < nrun; i++)
		paths[i] = (char *)run_paths[i];
	memcpy(paths + nrun, f->paths, f->n * sizeof(*paths));
	qsort(paths + nrun, f->n, sizeof(*paths), by_name);
	{
		struct fixture g = *f;

		g.paths = paths;
		g.n = nrun + f->n;
		for (size_t r = 0; r < 2; r++) {
			pg_root *root = pg_root_open(f->dir, f->policy, roots[r]);

			assert_non_null(root);
			for (int op = PG_OP_READ; op <= PG_OP_DELETE; op++)
				for (size_t b = 0; b < 2; b++)
					compare_with_single(root, &g, (enum pg_op)op, batches[b]);
			pg_root_close(root);
		}
	}
	free(paths);
}

/* Batches around the round size: the first, last and only rounds, and
 * the closes of the last two (no round follows them). */
static void test_sizes_around_a_round(void **state)
{
	struct fixture *f = *state;
	pg_root *root = pg_root_open(f->dir, f->policy, 0);
	const size_t sizes[] = { 1, PG_BATCH_ROUND - 1, PG_BATCH_ROUND, PG_BATCH_ROUND + 1,
				 2 * PG_BATCH_ROUND, 2 * PG_BATCH_ROUND + 1, 3 * PG_BATCH_ROUND };
	struct pg_verdict *one = calloc(f->n, sizeof(*one)), *batch = calloc(f->n, sizeof(*batch));
	size_t s, i;

	assert_non_null(root);
	assert_non_null(one);
	assert_non_null(batch);
	for (i = 0; i < f->n; i++)
		pg_check(root, f->paths[i], PG_OP_READ, &one[i]);
	for (s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		int fds = count_fds();

		assert_true(sizes[s] <= f->n);
		assert_true(pg_check_batch(root, (const char *const *)f->paths, sizes[s], PG_OP_READ,
					   batch, 0) >= 0);
		for (i = 0; i < sizes[s]; i++)
			same_verdict(f->paths[i], &one[i], &batch[i]);
		assert_int_equal(count_fds(), fds);
	}
	free(one);
	free(batch);
	pg_root_close(root);
}

/* The verdicts that matter, pinned so that "identical" cannot mean
 * "identically wrong". */
static void test_known_answers(void **state)
{
	struct fixture *f = *state;
	pg_root *root = pg_root_open(f->dir, f->policy, 0);
	const char *paths[] = { "a", ".env", ".ENV", "secrets/k", "envlink", "ro/f", "../x", "out/etc/passwd", "hard" };
	struct pg_verdict v[9];

	assert_non_null(root);
	assert_int_equal(pg_check_batch(root, paths, 9, PG_OP_WRITE, v, 0), 8);
	assert_int_equal(v[0].allowed, 1);
	assert_string_equal(v[1].name, "workspace.denied");
	assert_int_equal(v[1].err, EACCES);
	assert_string_equal(v[2].name, "workspace.denied");
	assert_string_equal(v[3].name, "workspace.denied");
	assert_string_equal(v[4].name, "workspace.denied");
	assert_string_equal(v[5].name, "workspace.read-only");
	assert_int_equal(v[5].err, EROFS);
	assert_string_equal(v[6].name, "workspace.path-escape");
	assert_string_equal(v[7].name, "workspace.path-escape");
	assert_string_equal(v[8].name, "workspace.denied");
	pg_root_close(root);
}

static void test_bad_arguments(void **state)
{
	struct fixture *f = *state;
	pg_root *root = pg_root_open(f->dir, f->policy, 0);
	struct pg_verdict v;
	const char *p = "a";

	assert_non_null(root);
	errno = 0;
	assert_int_equal(pg_check_batch(NULL, &p, 1, PG_OP_READ, &v, 0), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(pg_check_batch(root, &p, 1, (enum pg_op)7, &v, 0), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(pg_check_batch(root, &p, 1, PG_OP_READ, &v, 0x80), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(pg_check_batch(root, NULL, 1, PG_OP_READ, &v, 0), -1);
	assert_int_equal(pg_check_batch(root, NULL, 0, PG_OP_READ, NULL, 0), 0);
	pg_root_close(root);
}

/* Inside the envelope io_uring_setup fails with EPERM: the batch falls
 * back and still matches. */
static void test_seccomp_refused_uring_falls_back(void **state)
{
	struct fixture *f = *state;
	pid_t pid = fork();
	int status;

	assert_true(pid >= 0);
	if (pid == 0) {
		scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
		pg_root *root;
		struct pg_verdict *one, *batch;
		size_t i;

		if (!ctx || seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(io_uring_setup), 0) < 0 ||
		    seccomp_load(ctx) < 0)
			_exit(3);
		if (uring_available())
			_exit(4);
		root = pg_root_open(f->dir, f->policy, 0);
		one = calloc(f->n, sizeof(*one));
		batch = calloc(f->n, sizeof(*batch));
		if (!root || !one || !batch)
			_exit(5);
		for (i = 0; i < f->n; i++)
			pg_check(root, f->paths[i], PG_OP_CREATE, &one[i]);
		if (pg_check_batch(root, (const char *const *)f->paths, f->n, PG_OP_CREATE, batch, 0) < 0)
			_exit(6);
		for (i = 0; i < f->n; i++)
			if (one[i].allowed != batch[i].allowed || one[i].err != batch[i].err ||
			    strcmp(one[i].rule, batch[i].rule) != 0)
				_exit(7);
		/* Released before leaving, so valgrind's leak check (check-long)
		 * judges the child by what the library leaks, not the test. */
		free(one);
		free(batch);
		pg_root_close(root);
		seccomp_release(ctx);
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_uring_matches_single, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fallback_matches_single, setup, teardown),
		cmocka_unit_test_setup_teardown(test_walk_resolver_matches_single, setup, teardown),
		cmocka_unit_test_setup_teardown(test_runs_sharing_a_parent_match_single, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sizes_around_a_round, setup, teardown),
		cmocka_unit_test_setup_teardown(test_known_answers, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_arguments, setup, teardown),
		cmocka_unit_test_setup_teardown(test_seccomp_refused_uring_falls_back, setup, teardown),
	};

	return cmocka_run_group_tests_name("batch", tests, NULL, NULL);
}
