/* test_links.c - judging files with other hard links (link-map.c), on
 * both resolvers: a tree linked just now costs one search, not one per
 * file; a new link, a link renamed into a denied name and a refresh are
 * noticed; a workspace too deep to search refuses what it cannot judge;
 * a refused call leaves the workspace as it was. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <pthread.h>
#include <sched.h>
#include <sys/mount.h>

#include <cmocka.h>

#include "link-map.h"
#include "pathgate.h"
#include "testutil.h"

static unsigned g_flags; /* 0: openat2; PG_ROOT_NO_OPENAT2: the walk */

struct fx {
	char    *base, *ws, *store;
	pg_root *root;
};

static const char policy_text[] =
	"write .\n"
	"deny .env\n"
	"deny **/*.pem\n"
	"read! **/.git/hooks\n";

static char *join(const char *a, const char *b)
{
	char *p;

	assert_true(asprintf(&p, "%s/%s", a, b) > 0);
	return p;
}

/* DIR/REL in one of a few rotating buffers (two may be live at once). */
static const char *at_path(const char *dir, const char *rel)
{
	static char buf[4][8192];
	static unsigned next;
	char *p = buf[next++ % 4];

	snprintf(p, sizeof(buf[0]), "%s/%s", dir, rel);
	return p;
}

static pg_root *open_root_with(const char *ws, const char *text)
{
	pg_policy *pol = pg_policy_new();
	pg_root *root;

	assert_non_null(pol);
	assert_int_equal(pg_policy_parse(pol, text, strlen(text)), 0);
	root = pg_root_open(ws, pol, g_flags);
	pg_policy_free(pol);
	assert_non_null(root);
	return root;
}

static pg_root *open_root(const char *ws)
{
	return open_root_with(ws, policy_text);
}

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));

	f->base = tu_mkdtemp("links");
	f->ws = join(f->base, "ws");
	f->store = join(f->base, "store");
	assert_int_equal(mkdir(f->ws, 0755), 0);
	assert_int_equal(mkdir(f->store, 0755), 0);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;

	pg_root_close(f->root);
	tu_rmtree(f->base);
	free(f->base);
	free(f->ws);
	free(f->store);
	free(f);
	return 0;
}

static void hard_link(const char *dir, const char *from, const char *to)
{
	char *a = join(dir, from), *b = join(dir, to);

	assert_int_equal(link(a, b), 0);
	free(a);
	free(b);
}

static int try_open(pg_root *root, const char *name, int flags)
{
	int fd = pg_open(root, name, flags | O_CLOEXEC, 0);

	if (fd >= 0)
		close(fd);
	return fd >= 0 ? 0 : -1;
}

/* 300 files linked from a store outside the workspace just now, and one
 * denied: the whole pass searches once, and the denied one's other link
 * is refused. */
static void test_linked_tree_one_search(void **state)
{
	struct fx *f = *state;
	char name[64], src[4200], dst[4200];

	assert_int_equal(mkdir(at_path(f->ws, "node_modules"), 0755), 0);
	for (int i = 0; i < 300; i++) {
		snprintf(src, sizeof(src), "%s/f%d", f->store, i);
		snprintf(dst, sizeof(dst), "%s/node_modules/f%d.js", f->ws, i);
		tu_write(f->store, strrchr(src, '/') + 1, "x");
		assert_int_equal(link(src, dst), 0);
	}
	tu_write(f->ws, "key.pem", "SECRET");
	hard_link(f->ws, "key.pem", "node_modules/innocent.js");
	/* The kernel stamps ctimes from a clock that ticks every few
	 * milliseconds: a file changed in the tick a search starts in cannot
	 * be trusted to show a later change, so it is searched for again
	 * until the tick is over.  Past it, one search settles them all. */
	usleep(50 * 1000);
	f->root = open_root(f->ws);
	for (int i = 0; i < 300; i++) {
		snprintf(name, sizeof(name), "node_modules/f%d.js", i);
		assert_int_equal(try_open(f->root, name, O_RDONLY), 0);
	}
	assert_int_equal(pg_link_map_scans(f->root), 1);
	assert_int_equal(try_open(f->root, "node_modules/innocent.js", O_RDONLY), -1);
	assert_int_equal(errno, EACCES);
	assert_string_equal(pg_last_refusal()->name, "workspace.denied");
	assert_int_equal(pg_link_map_scans(f->root), 1);
}

/* A link made after the search, to a denied file, is noticed; so is a
 * link renamed into a denied name; a refresh forgets the search. */
static void test_changes_are_noticed(void **state)
{
	struct fx *f = *state;
	struct tu_snapshot *before, *after;
	char *diff;

	tu_write(f->ws, "plain", "P");
	hard_link(f->ws, "plain", "alias");
	f->root = open_root(f->ws);
	assert_int_equal(try_open(f->root, "alias", O_RDONLY), 0);

	hard_link(f->ws, "plain", "now.pem");
	assert_int_equal(try_open(f->root, "alias", O_RDONLY), -1);
	assert_string_equal(pg_last_refusal()->name, "workspace.denied");
	assert_int_equal(try_open(f->root, "plain", O_RDONLY), -1);

	/* The denied name goes: both others are fine again. */
	assert_int_equal(unlink(at_path(f->ws, "now.pem")), 0);
	assert_int_equal(try_open(f->root, "alias", O_WRONLY), 0);

	/* Renamed into a denied name. */
	assert_int_equal(rename(at_path(f->ws, "plain"), at_path(f->ws, "moved.pem")), 0);
	before = tu_snapshot(f->ws);
	assert_int_equal(try_open(f->root, "alias", O_WRONLY | O_TRUNC), -1);
	assert_int_equal(pg_truncate(f->root, "alias", 0), -1);
	after = tu_snapshot(f->ws);
	diff = tu_snapshot_diff(before, after);
	if (diff)
		fail_msg("a refused call changed the workspace: %s", diff);
	tu_snapshot_free(before);
	tu_snapshot_free(after);

	/* A read-only name (a git hook) refuses writes only. */
	assert_int_equal(unlink(at_path(f->ws, "moved.pem")), 0);
	tu_build(f->ws, "d .git\nd .git/hooks\n");
	hard_link(f->ws, "alias", ".git/hooks/pre-commit");
	assert_int_equal(try_open(f->root, "alias", O_RDONLY), 0);
	assert_int_equal(try_open(f->root, "alias", O_WRONLY), -1);
	assert_string_equal(pg_last_refusal()->name, "workspace.read-only");

	unsigned scans = pg_link_map_scans(f->root);

	assert_int_equal(pg_root_refresh(f->root), 0);
	assert_int_equal(try_open(f->root, "alias", O_WRONLY), -1);
	assert_true(pg_link_map_scans(f->root) > scans);
}

/* Deeper than the search goes: a file with other links cannot be judged
 * by all its names, so it is refused, and says why; one with a single
 * link is fine. */
static void test_too_deep_refuses(void **state)
{
	struct fx *f = *state;
	char *rel = calloc(1, 4 * (PG_LINK_SCAN_DEPTH + 8));
	size_t len = 0;

	for (unsigned i = 0; i < PG_LINK_SCAN_DEPTH + 4; i++) {
		len += (size_t)sprintf(rel + len, "%sd", len ? "/" : "");
		assert_int_equal(mkdir(at_path(f->ws, rel), 0755), 0);
	}
	tu_write(f->ws, "one", "1");
	tu_write(f->ws, "two", "2");
	hard_link(f->ws, "two", "two-again");
	f->root = open_root(f->ws);
	assert_int_equal(try_open(f->root, "one", O_RDONLY), 0);
	assert_int_equal(try_open(f->root, "two", O_RDONLY), -1);
	assert_int_equal(errno, EACCES);
	assert_string_equal(pg_last_refusal()->name, "workspace.denied");
	assert_non_null(strstr(pg_last_refusal()->rule, "too large or too deep"));
	free(rel);
}

/* A file a literal read rule names is allowed a read by that rule; a
 * denied name linked to it later still refuses the read. */
static void test_literal_rule_file_still_searched(void **state)
{
	struct fx *f = *state;

	tu_build(f->ws, "d docs\n");
	tu_write(f->ws, "docs/a", "A");
	hard_link(f->ws, "docs/a", "alias");
	f->root = open_root_with(f->ws, "write .\nread docs/a\ndeny **/*.pem\n");
	assert_int_equal(try_open(f->root, "alias", O_RDONLY), 0);
	hard_link(f->ws, "docs/a", "key.pem");
	assert_int_equal(try_open(f->root, "alias", O_RDONLY), -1);
	assert_int_equal(try_open(f->root, "docs/a", O_RDONLY), -1);
	assert_int_equal(pg_root_refresh(f->root), 0);
	assert_int_equal(try_open(f->root, "alias", O_RDONLY), -1);
}

/* A sub-root judges another link outside it as its top root does. */
static void test_subroot_sees_links_outside(void **state)
{
	struct fx *f = *state;
	pg_root *sub;
	char *text;

	tu_build(f->ws, "d sub\n");
	tu_write(f->ws, ".env", "SECRET");
	hard_link(f->ws, ".env", "sub/before");
	f->root = open_root(f->ws);
	sub = pg_root_open_at(f->root, "sub", g_flags);
	assert_non_null(sub);
	assert_int_equal(try_open(sub, "before", O_RDONLY), -1);
	assert_string_equal(pg_last_refusal()->name, "workspace.denied");
	tu_write(f->ws, "top.pem", "KEY");
	hard_link(f->ws, "top.pem", "sub/after");
	assert_int_equal(try_open(sub, "after", O_WRONLY | O_TRUNC), -1);
	text = tu_read(f->ws, "top.pem");
	assert_string_equal(text, "KEY");
	free(text);
	pg_root_close(sub);
}

/* The program itself moves a directory holding a denied name between
 * two allowed places while the first search runs: the search that may
 * have missed the name is never kept, and every read is refused. */
struct mover {
	pg_root     *root;
	volatile int stop;
	volatile int moves;
	volatile int err;     /* errno of a refused move */
};

static void *move_box(void *p)
{
	struct mover *m = p;
	int at = 0;

	while (!m->stop) {
		if (pg_rename(m->root, at ? "b/box" : "a/box", at ? "a/box" : "b/box", 0) < 0) {
			m->err = errno;
			break;
		}
		at = !at;
		m->moves++;
	}
	return NULL;
}

static void test_directory_moved_during_search(void **state)
{
	struct fx *f = *state;
	char buf[64], name[64];

	tu_build(f->ws, "d a\nd b\nd a/box\nd many\n");
	for (int i = 0; i < 300; i++) {
		snprintf(name, sizeof(name), "many/f%d", i);
		tu_write(f->ws, name, "x");
	}
	tu_write(f->ws, "a/box/k.pem", "PRIVATE");
	hard_link(f->ws, "a/box/k.pem", "ok");
	/* Old enough that a search which saw it is trusted afterwards. */
	usleep(3300 * 1000);
	for (int round = 0; round < 20; round++) {
		struct mover m = { 0 };
		pthread_t t;
		ssize_t first, later;

		/* The box starts in a/ each round. */
		rename(at_path(f->ws, "b/box"), at_path(f->ws, "a/box"));
		f->root = open_root_with(f->ws, "write .\ndeny **/*.pem\n");
		m.root = f->root;
		assert_int_equal(pthread_create(&t, NULL, move_box, &m), 0);
		while (m.moves < 2 && !m.err)
			sched_yield();
		if (m.err)
			fail_msg("pg_rename refused: %s (%s)", strerror(m.err),
				 pg_last_refusal()->rule ? pg_last_refusal()->rule : "");
		first = pg_read_file(f->root, "ok", buf, sizeof(buf));
		m.stop = 1;
		pthread_join(t, NULL);
		later = pg_read_file(f->root, "ok", buf, sizeof(buf));
		assert_true(first < 0);
		assert_true(later < 0);
		pg_root_close(f->root);
		f->root = NULL;
	}
}

/* Another process keeps renaming the denied name between directories
 * (the file's ctime moves each time): no read of the other link gets
 * through while it runs. */
struct outsider {
	const char  *ws;
	volatile int stop;
	volatile int moves;
};

static void *rename_outside(void *p)
{
	struct outsider *m = p;
	char a[8192], b[8192];

	snprintf(a, sizeof(a), "%s/x/k.pem", m->ws);
	snprintf(b, sizeof(b), "%s/y/k.pem", m->ws);
	while (!m->stop) {
		if (rename(a, b) == 0 && rename(b, a) == 0)
			m->moves++;
	}
	return NULL;
}

static void test_links_moving_outside(void **state)
{
	struct fx *f = *state;
	struct outsider m = { .ws = f->ws };
	char buf[64], name[64];
	pthread_t t;
	int reads = 0;

	tu_build(f->ws, "d x\nd y\nd many\n");
	for (int i = 0; i < 200; i++) {
		snprintf(name, sizeof(name), "many/f%d", i);
		tu_write(f->ws, name, "x");
	}
	tu_write(f->ws, "x/k.pem", "PRIVATE");
	hard_link(f->ws, "x/k.pem", "plain");
	f->root = open_root_with(f->ws, "write .\ndeny **/*.pem\n");
	struct timespec start, now;
	int leaked = 0;

	clock_gettime(CLOCK_MONOTONIC, &start);
	assert_int_equal(pthread_create(&t, NULL, rename_outside, &m), 0);
	/* 400 reads, or 3 s of them (a slow machine, valgrind). */
	for (now = start; reads < 400 && now.tv_sec - start.tv_sec < 3; reads++) {
		if (pg_read_file(f->root, "plain", buf, sizeof(buf)) >= 0)
			leaked++;
		clock_gettime(CLOCK_MONOTONIC, &now);
	}
	m.stop = 1;
	pthread_join(t, NULL);
	assert_true(reads > 0);
	assert_int_equal(leaked, 0);
}

/* A bind mount of the root's own filesystem inside the workspace may
 * hold another link of a file: it is searched too (as root only). */
static void test_bind_mount_of_same_filesystem(void **state)
{
	struct fx *f = *state;
	char *outer = join(f->base, "outer"), *m = join(f->ws, "m");

	assert_int_equal(mkdir(outer, 0755), 0);
	assert_int_equal(mkdir(m, 0755), 0);
	tu_write(outer, "key.pem", "KEY");
	hard_link(f->base, "outer/key.pem", "ws/alias");
	if (geteuid() != 0 || mount(outer, m, "none", MS_BIND, NULL) < 0) {
		free(outer);
		free(m);
		skip();
	}
	f->root = open_root(f->ws);
	assert_int_equal(try_open(f->root, "alias", O_RDONLY), -1);
	assert_string_equal(pg_last_refusal()->name, "workspace.denied");
	pg_root_close(f->root);
	f->root = NULL;
	umount2(m, MNT_DETACH);
	free(outer);
	free(m);
}

static int with_openat2(void **state)
{
	(void)state;
	g_flags = 0;
	return 0;
}

static int with_walk(void **state)
{
	(void)state;
	g_flags = PG_ROOT_NO_OPENAT2;
	return 0;
}

#define BOTH(t) \
	cmocka_unit_test_setup_teardown(t, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		BOTH(test_linked_tree_one_search),
		BOTH(test_changes_are_noticed),
		BOTH(test_too_deep_refuses),
		BOTH(test_literal_rule_file_still_searched),
		BOTH(test_subroot_sees_links_outside),
		BOTH(test_directory_moved_during_search),
		BOTH(test_links_moving_outside),
		BOTH(test_bind_mount_of_same_filesystem),
	};
	int failed = cmocka_run_group_tests_name("links, openat2", tests, with_openat2, NULL);

	failed += cmocka_run_group_tests_name("links, walk", tests, with_walk, NULL);
	return failed ? 1 : 0;
}
