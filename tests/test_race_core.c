/* test_race_core.c - attacker threads swap a directory with a symlink (to
 * "/", to a directory outside the root, to a denied directory) with
 * renameat2(RENAME_EXCHANGE) in a tight loop, while other threads open,
 * stat, create, write, rename and remove through that very name.  Run on
 * both resolvers.  Asserted by what was touched: no fd the library returns
 * lies outside the root or under the denied directory, no object out
 * there is ever reached, and the markers outside the root and under the
 * denied name are never changed.  PG_RACE_SECONDS sets the length of each
 * round (default 1). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "pathgate.h"
#include "testutil.h"

static unsigned g_flags;

enum target { TO_ROOT, TO_OUTSIDE, TO_DENIED };

struct race {
	char      *base, *ws, *out;
	pg_root   *root;
	enum target target;
	atomic_bool stop;
	atomic_long ops, refused, swaps;
	dev_t      out_dev;
	ino_t      out_f, secret_f;
	char       failure[512];
	atomic_bool failed;
	struct tu_snapshot *out_snap, *secret_snap;
};

static void fail_race(struct race *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void fail_race(struct race *r, const char *fmt, ...)
{
	va_list ap;
	bool was = atomic_exchange(&r->failed, true);

	if (was)
		return;
	va_start(ap, fmt);
	vsnprintf(r->failure, sizeof(r->failure), fmt, ap);
	va_end(ap);
}

static double seconds(void)
{
	const char *s = getenv("PG_RACE_SECONDS");
	double v = s ? atof(s) : 1.0;

	return v > 0 ? v : 1.0;
}

static void *attacker(void *arg)
{
	struct race *r = arg;
	char d[4200], sw[4200];

	snprintf(d, sizeof(d), "%s/d", r->ws);
	snprintf(sw, sizeof(sw), "%s/sw", r->ws);
	while (!atomic_load(&r->stop)) {
		if (renameat2(AT_FDCWD, d, AT_FDCWD, sw, RENAME_EXCHANGE) == 0)
			atomic_fetch_add(&r->swaps, 1);
	}
	return NULL;
}

/* An fd the library returned must be an object inside the root, not under
 * the denied directory, and not the markers. */
static void check_fd(struct race *r, int fd, const char *what)
{
	char where[4200], secret[4200];
	struct stat st;
	size_t n = strlen(r->ws);

	if (fstat(fd, &st) < 0) {
		fail_race(r, "%s: fstat: %s", what, strerror(errno));
		return;
	}
	if (st.st_ino == r->out_f || st.st_ino == r->secret_f)
		fail_race(r, "%s reached a marker (ino %lu)", what, (unsigned long)st.st_ino);
	tu_fd_path(fd, where, sizeof(where));
	snprintf(secret, sizeof(secret), "%s/secret", r->ws);
	if (strncmp(where, r->ws, n) != 0 || (where[n] != '/' && where[n] != '\0'))
		fail_race(r, "%s returned an fd outside the root: %s", what, where);
	if (strncmp(where, secret, strlen(secret)) == 0)
		fail_race(r, "%s returned an fd under the denied directory: %s", what, where);
}

static void count(struct race *r, int rc)
{
	atomic_fetch_add(&r->ops, 1);
	if (rc < 0 && pg_last_refusal()->name)
		atomic_fetch_add(&r->refused, 1);
}

static void *victim(void *arg)
{
	struct race *r = arg;
	unsigned long i = 0;
	char name[64];
	struct stat st;
	int fd;

	while (!atomic_load(&r->stop) && !atomic_load(&r->failed)) {
		i++;
		fd = pg_open(r->root, "d/f", O_RDONLY | O_CLOEXEC, 0);
		count(r, fd);
		if (fd >= 0) {
			char buf[16] = { 0 };

			check_fd(r, fd, "open d/f");
			if (read(fd, buf, sizeof(buf) - 1) < 0 || strcmp(buf, "INSIDE\n") != 0)
				fail_race(r, "open d/f read '%s'", buf);
			close(fd);
		}
		fd = pg_open(r->root, "d/etc/passwd", O_RDONLY | O_CLOEXEC, 0);
		count(r, fd);
		if (fd >= 0) {
			fail_race(r, "opened d/etc/passwd");
			close(fd);
		}
		if (pg_stat(r->root, "d/f", &st, 0) == 0 &&
		    (st.st_ino == r->out_f || st.st_ino == r->secret_f))
			fail_race(r, "stat d/f reached a marker");
		count(r, 0);
		snprintf(name, sizeof(name), "d/new%lu", i % 4);
		fd = pg_open(r->root, name, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
		count(r, fd);
		if (fd >= 0) {
			check_fd(r, fd, "create d/newN");
			close(fd);
		}
		count(r, pg_write_file(r->root, "d/w", "written\n", 8, 0600));
		count(r, pg_mkdir(r->root, "d/m", 0755));
		count(r, pg_rmdir(r->root, "d/m"));
		count(r, pg_rename(r->root, name, "d/renamed", 0));
		count(r, pg_unlink(r->root, "d/renamed"));
		count(r, pg_check(r->root, "d/f", PG_OP_READ, NULL));
	}
	return NULL;
}

static ino_t ino_of(const char *dir, const char *rel)
{
	struct stat st;
	char p[4200];

	snprintf(p, sizeof(p), "%s/%s", dir, rel);
	assert_int_equal(stat(p, &st), 0);
	return st.st_ino;
}

static void run_race(enum target target)
{
	struct race r = { .target = target };
	pthread_t att, vic[2];
	pg_policy *p = pg_policy_new();
	const char *text = "write .\ndeny secret\n";
	char *spec;
	struct tu_snapshot *now;
	char *diff;
	int fds = tu_fd_count();

	r.base = tu_mkdtemp("race");
	assert_true(asprintf(&r.ws, "%s/ws", r.base) > 0);
	assert_true(asprintf(&r.out, "%s/outside", r.base) > 0);
	assert_int_equal(mkdir(r.ws, 0755), 0);
	assert_int_equal(mkdir(r.out, 0755), 0);
	tu_build(r.out, "f f OUTSIDE\nd etc\nf etc/passwd OUTSIDE\n");
	tu_build(r.ws, "d d\nf d/f INSIDE\n\nd secret\nf secret/f SECRET\nd secret/etc\n"
		 "f secret/etc/passwd SECRET\n");
	/* Content with newlines: rewrite the markers the victims read. */
	tu_write(r.ws, "d/f", "INSIDE\n");
	assert_true(asprintf(&spec, "l sw %s\n", target == TO_ROOT ? "/" :
			     target == TO_OUTSIDE ? r.out : "secret") > 0);
	tu_build(r.ws, spec);
	free(spec);
	r.out_f = ino_of(r.out, "f");
	r.secret_f = ino_of(r.ws, "secret/f");
	r.out_snap = tu_snapshot(r.out);
	{
		char secret[4200];

		snprintf(secret, sizeof(secret), "%s/secret", r.ws);
		r.secret_snap = tu_snapshot(secret);
	}
	assert_int_equal(pg_policy_parse(p, text, strlen(text)), 0);
	r.root = pg_root_open(r.ws, p, g_flags);
	pg_policy_free(p);
	assert_non_null(r.root);

	assert_int_equal(pthread_create(&att, NULL, attacker, &r), 0);
	for (int i = 0; i < 2; i++)
		assert_int_equal(pthread_create(&vic[i], NULL, victim, &r), 0);
	{
		struct timespec ts;
		double s = seconds();

		ts.tv_sec = (time_t)s;
		ts.tv_nsec = (long)((s - (double)ts.tv_sec) * 1e9);
		nanosleep(&ts, NULL);
	}
	/* Under valgrind the threads take turns: give the victims their
	 * first operations and the attacker its first swap (30 s at most). */
	for (int i = 0; i < 3000 && (atomic_load(&r.ops) == 0 || atomic_load(&r.swaps) == 0); i++)
		usleep(10 * 1000);
	atomic_store(&r.stop, true);
	pthread_join(att, NULL);
	for (int i = 0; i < 2; i++)
		pthread_join(vic[i], NULL);
	pg_root_close(r.root);

	print_message("%s target %s: %ld guarded operations (%ld refused) against %ld swaps\n",
		      g_flags ? "walk" : "openat2",
		      target == TO_ROOT ? "/" : target == TO_OUTSIDE ? "outside" : "denied",
		      (long)r.ops, (long)r.refused, (long)r.swaps);
	if (atomic_load(&r.failed))
		fail_msg("%s", r.failure);
	/* Nothing out there or under the denied name changed. */
	now = tu_snapshot(r.out);
	diff = tu_snapshot_diff(r.out_snap, now);
	if (diff)
		fail_msg("outside the root: %s", diff);
	tu_snapshot_free(now);
	{
		char secret[4200];

		snprintf(secret, sizeof(secret), "%s/secret", r.ws);
		now = tu_snapshot(secret);
	}
	diff = tu_snapshot_diff(r.secret_snap, now);
	if (diff)
		fail_msg("under the denied directory: %s", diff);
	tu_snapshot_free(now);
	tu_snapshot_free(r.out_snap);
	tu_snapshot_free(r.secret_snap);
	assert_true(r.swaps > 0);
	assert_true(r.ops > 0);
	tu_rmtree(r.base);
	free(r.base);
	free(r.ws);
	free(r.out);
	assert_int_equal(tu_fd_count(), fds);
}

static void test_swap_with_link_to_slash(void **state)
{
	(void)state;
	run_race(TO_ROOT);
}

static void test_swap_with_link_outside(void **state)
{
	(void)state;
	run_race(TO_OUTSIDE);
}

static void test_swap_with_link_to_denied(void **state)
{
	(void)state;
	run_race(TO_DENIED);
}

int main(void)
{
	static const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_swap_with_link_to_slash),
		cmocka_unit_test(test_swap_with_link_outside),
		cmocka_unit_test(test_swap_with_link_to_denied),
	};
	int failed;

	g_flags = 0;
	failed = cmocka_run_group_tests_name("races (openat2)", tests, NULL, NULL);
	g_flags = PG_ROOT_NO_OPENAT2;
	failed += cmocka_run_group_tests_name("races (fallback walk)", tests, NULL, NULL);
	return failed ? 1 : 0;
}
