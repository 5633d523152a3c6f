/* test_ops_more.c - the calls of issue 14 on both resolvers: pg_utimens,
 * pg_chown, pg_read_file(_alloc), pg_remove_all, pg_root_open_at, the
 * refusal codes and pg_version.  Every refused call must leave the
 * workspace and a directory beside it exactly as they were. */
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
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "pathgate.h"
#include "resolve.h"
#include "testutil.h"

static unsigned g_flags; /* 0: openat2; PG_ROOT_NO_OPENAT2: the walk */

struct fx {
	char    *base, *ws, *out;
	pg_root *root;
	int      fds;
	struct tu_snapshot *snap_ws, *snap_out;
};

static char *join(const char *a, const char *b)
{
	char *p;

	assert_true(asprintf(&p, "%s/%s", a, b) > 0);
	return p;
}

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	f->fds = tu_fd_count();
	f->base = tu_mkdtemp("more");
	f->ws = join(f->base, "ws");
	f->out = join(f->base, "outside");
	assert_int_equal(mkdir(f->ws, 0755), 0);
	assert_int_equal(mkdir(f->out, 0755), 0);
	tu_build(f->out, "f marker outside the root\nd dir\nf dir/keep kept\n");
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;

	pg_root_close(f->root);
	tu_snapshot_free(f->snap_ws);
	tu_snapshot_free(f->snap_out);
	tu_rmtree(f->base);
	assert_int_equal(tu_fd_count(), f->fds);
	free(f->base);
	free(f->ws);
	free(f->out);
	free(f);
	return 0;
}

static pg_root *root_with(struct fx *f, const char *policy)
{
	pg_policy *p = NULL;

	if (policy) {
		p = pg_policy_new();
		assert_non_null(p);
		assert_int_equal(pg_policy_parse(p, policy, strlen(policy)), 0);
	}
	pg_root_close(f->root);
	f->root = pg_root_open(f->ws, p, g_flags);
	pg_policy_free(p);
	assert_non_null(f->root);
	return f->root;
}

static void snap(struct fx *f)
{
	tu_snapshot_free(f->snap_ws);
	tu_snapshot_free(f->snap_out);
	f->snap_ws = tu_snapshot(f->ws);
	f->snap_out = tu_snapshot(f->out);
}

static void unchanged(struct fx *f, const char *what)
{
	struct tu_snapshot *a = tu_snapshot(f->ws), *b = tu_snapshot(f->out);
	char *d1 = tu_snapshot_diff(f->snap_ws, a), *d2 = tu_snapshot_diff(f->snap_out, b);

	if (d1 || d2)
		fail_msg("%s changed the tree: %s", what, d1 ? d1 : d2);
	tu_snapshot_free(a);
	tu_snapshot_free(b);
}

/* RC is a refusal NAME with errno ERR, its code CODE, and the tree is as
 * snap() saw it. */
static void refused_(struct fx *f, long rc, const char *name, enum pg_refusal_code code,
		     int err, const char *what)
{
	const struct pg_refusal *r = pg_last_refusal();
	int e = errno;

	if (rc != -1 || !r->name || strcmp(r->name, name) || e != err || r->code != code ||
	    strcmp(pg_refusal_name(r->code), r->name))
		fail_msg("%s: want %s (%s), got rc=%ld errno=%s refusal=%s code=%d", what, name,
			 strerror(err), rc, strerror(e), r->name ? r->name : "none", (int)r->code);
	unchanged(f, what);
}
#define REFUSED(f, call, name, code, err) refused_(f, (long)(call), name, code, err, #call)

static void plain_error_(long rc, int err, const char *what)
{
	int e = errno;

	if (rc != -1 || e != err || pg_last_refusal()->name ||
	    pg_last_refusal()->code != PG_REFUSAL_NONE)
		fail_msg("%s: want plain %s, got rc=%ld errno=%s refusal=%s", what,
			 strerror(err), rc, strerror(e),
			 pg_last_refusal()->name ? pg_last_refusal()->name : "none");
}
#define PLAIN_ERROR(call, err) plain_error_((long)(call), err, #call)

/* ------------------------------------------------------------- version */

static void test_version_and_codes(void **state)
{
	char want[32];

	(void)state;
	snprintf(want, sizeof(want), "%d.%d.%d", PATHGATE_VERSION_MAJOR, PATHGATE_VERSION_MINOR,
		 PATHGATE_VERSION_PATCH);
	assert_string_equal(pg_version(), want);
	assert_string_equal(pg_version(), PACKAGE_VERSION);
	assert_null(pg_refusal_name(PG_REFUSAL_NONE));
	assert_null(pg_refusal_name((enum pg_refusal_code)99));
	assert_string_equal(pg_refusal_name(PG_REFUSAL_PATH_ESCAPE), "workspace.path-escape");
	assert_string_equal(pg_refusal_name(PG_REFUSAL_DENIED), "workspace.denied");
	assert_string_equal(pg_refusal_name(PG_REFUSAL_READ_ONLY), "workspace.read-only");
	assert_string_equal(pg_refusal_name(PG_REFUSAL_PINNED), "workspace.pinned");
	assert_string_equal(pg_refusal_name(PG_REFUSAL_DANGLING_LINK), "workspace.dangling-link");
	assert_string_equal(pg_refusal_name(PG_REFUSAL_BAD_PATH), "workspace.bad-path");
	assert_string_equal(pg_refusal_name(PG_REFUSAL_EXHAUSTED), "exhausted");
	assert_string_equal(pg_refusal_name(PG_REFUSAL_POLICY_INVALID), "policy.invalid");
	assert_string_equal(pg_refusal_name(PG_REFUSAL_SANDBOX_UNAVAILABLE),
			    "exec.sandbox-unavailable");
}

static void test_codes_in_records_and_verdicts(void **state)
{
	struct fx *f = *state;
	struct pg_verdict v;
	pg_policy *p = pg_policy_new();

	tu_build(f->ws, "f .env secret\nd ro\nf ro/x x\n");
	root_with(f, "write .\ndeny .env\nread ro\n");
	snap(f);
	REFUSED(f, pg_open(f->root, ".ENV", O_RDONLY, 0), "workspace.denied", PG_REFUSAL_DENIED,
		EACCES);
	REFUSED(f, pg_open(f->root, "../outside/marker", O_RDONLY, 0), "workspace.path-escape",
		PG_REFUSAL_PATH_ESCAPE, EACCES);
	assert_int_equal(pg_check(f->root, "ro/x", PG_OP_WRITE, &v), -1);
	assert_int_equal(v.code, PG_REFUSAL_READ_ONLY);
	assert_string_equal(v.name, "workspace.read-only");
	assert_int_equal(v.err, EROFS);
	assert_int_equal(pg_check(f->root, "ro/x", PG_OP_READ, &v), 0);
	assert_int_equal(v.code, PG_REFUSAL_NONE);
	assert_int_equal(pg_check(f->root, "nothing-here", PG_OP_READ, &v), -1);
	assert_int_equal(v.code, PG_REFUSAL_NONE);
	assert_int_equal(v.err, ENOENT);
	/* A parse error is reported in the record, with its code. */
	assert_int_equal(pg_policy_parse(p, "alow x\n", 7), -1);
	assert_int_equal(pg_last_refusal()->code, PG_REFUSAL_POLICY_INVALID);
	assert_non_null(strstr(pg_last_refusal()->rule, "line 1"));
	/* A success clears the record. */
	assert_int_equal(pg_policy_parse_default(p), 0);
	assert_int_equal(pg_last_refusal()->code, PG_REFUSAL_NONE);
	assert_true(pg_policy_rule_count(p) > 10);
	pg_root_close(f->root);
	f->root = pg_root_open(f->ws, p, g_flags);
	pg_policy_free(p);
	assert_non_null(f->root);
	REFUSED(f, pg_open(f->root, ".env", O_RDONLY, 0), "workspace.denied", PG_REFUSAL_DENIED,
		EACCES);
}

/* ------------------------------------------------------------- utimens */

static void test_utimens(void **state)
{
	struct fx *f = *state;
	struct timespec ts[2] = { { 1000000000, 5 }, { 1100000000, 7 } };
	struct stat st;
	char *p;

	tu_build(f->ws, "f file x\nl link file\nl out ../outside/marker\nf .env s\n"
			"d ro\nf ro/x x\nl dangling nothing\n");
	root_with(f, "write .\ndeny .env\nread ro\n");
	assert_int_equal(pg_utimens(f->root, "file", ts, 0), 0);
	p = join(f->ws, "file");
	assert_int_equal(stat(p, &st), 0);
	assert_int_equal(st.st_atim.tv_sec, 1000000000);
	assert_int_equal(st.st_mtim.tv_sec, 1100000000);
	assert_int_equal(st.st_mtim.tv_nsec, 7);
	/* Through the link: the file; with AT_SYMLINK_NOFOLLOW: the link. */
	ts[1].tv_sec = 1200000000;
	assert_int_equal(pg_utimens(f->root, "link", ts, 0), 0);
	assert_int_equal(stat(p, &st), 0);
	assert_int_equal(st.st_mtim.tv_sec, 1200000000);
	ts[1].tv_sec = 1300000000;
	assert_int_equal(pg_utimens(f->root, "link", ts, AT_SYMLINK_NOFOLLOW), 0);
	assert_int_equal(stat(p, &st), 0);
	assert_int_equal(st.st_mtim.tv_sec, 1200000000);
	free(p);
	p = join(f->ws, "link");
	assert_int_equal(lstat(p, &st), 0);
	assert_int_equal(st.st_mtim.tv_sec, 1300000000);
	free(p);
	/* NULL: now.  The root itself. */
	assert_int_equal(pg_utimens(f->root, "file", NULL, 0), 0);
	assert_int_equal(pg_utimens(f->root, ".", ts, 0), 0);
	snap(f);
	REFUSED(f, pg_utimens(f->root, ".ENV", ts, 0), "workspace.denied", PG_REFUSAL_DENIED,
		EACCES);
	REFUSED(f, pg_utimens(f->root, "ro/x", ts, 0), "workspace.read-only",
		PG_REFUSAL_READ_ONLY, EROFS);
	REFUSED(f, pg_utimens(f->root, "out", ts, 0), "workspace.path-escape",
		PG_REFUSAL_PATH_ESCAPE, EACCES);
	REFUSED(f, pg_utimens(f->root, "../outside/marker", ts, 0), "workspace.path-escape",
		PG_REFUSAL_PATH_ESCAPE, EACCES);
	PLAIN_ERROR(pg_utimens(f->root, "dangling", ts, 0), ENOENT);
	PLAIN_ERROR(pg_utimens(f->root, "file", ts, 0x4000), EINVAL);
	unchanged(f, "refused utimens");
}

/* --------------------------------------------------------------- chown */

static void test_chown(void **state)
{
	struct fx *f = *state;
	struct stat st;
	char *p;

	tu_build(f->ws, "f file x\nl link file\nl out ../outside/marker\nf .env s\n"
			"d ro\nf ro/x x\n");
	root_with(f, "write .\ndeny .env\nread ro\n");
	/* Unchanged owner: allowed for anyone. */
	assert_int_equal(pg_chown(f->root, "file", (uid_t)-1, getgid(), 0), 0);
	if (geteuid() == 0) {
		p = join(f->ws, "file");
		assert_int_equal(pg_chown(f->root, "link", 1234, 4321, 0), 0);
		assert_int_equal(stat(p, &st), 0);
		assert_int_equal(st.st_uid, 1234);
		assert_int_equal(st.st_gid, 4321);
		assert_int_equal(pg_chown(f->root, "link", 99, 99, AT_SYMLINK_NOFOLLOW), 0);
		assert_int_equal(stat(p, &st), 0);
		assert_int_equal(st.st_uid, 1234);
		free(p);
		p = join(f->ws, "link");
		assert_int_equal(lstat(p, &st), 0);
		assert_int_equal(st.st_uid, 99);
		free(p);
	}
	snap(f);
	REFUSED(f, pg_chown(f->root, ".env", 0, 0, 0), "workspace.denied", PG_REFUSAL_DENIED,
		EACCES);
	REFUSED(f, pg_chown(f->root, "ro/x", 0, 0, 0), "workspace.read-only",
		PG_REFUSAL_READ_ONLY, EROFS);
	REFUSED(f, pg_chown(f->root, "out", 0, 0, 0), "workspace.path-escape",
		PG_REFUSAL_PATH_ESCAPE, EACCES);
	PLAIN_ERROR(pg_chown(f->root, "absent", 0, 0, 0), ENOENT);
}

/* ----------------------------------------------------------- read_file */

static void test_read_file(void **state)
{
	struct fx *f = *state;
	char buf[16];
	void *out = NULL;
	char *p;

	tu_build(f->ws, "f ten 0123456789\nf empty \nd dir\nl out ../outside/marker\n"
			"f .env s\nl tolink ten\n");
	root_with(f, "write .\ndeny .env\n");
	assert_int_equal(pg_read_file(f->root, "ten", buf, sizeof(buf)), 10);
	assert_memory_equal(buf, "0123456789", 10);
	assert_int_equal(pg_read_file(f->root, "tolink", buf, 10), 10);
	assert_int_equal(pg_read_file_alloc(f->root, "ten", &out, 0), 10);
	assert_string_equal(out, "0123456789");
	free(out);
	assert_int_equal(pg_read_file_alloc(f->root, "ten", &out, 10), 10);
	free(out);
	assert_int_equal(pg_read_file_alloc(f->root, "empty", &out, 0), 0);
	assert_string_equal(out, "");
	free(out);
	snap(f);
	REFUSED(f, pg_read_file(f->root, "ten", buf, 9), "exhausted", PG_REFUSAL_EXHAUSTED,
		EFBIG);
	REFUSED(f, pg_read_file_alloc(f->root, "ten", &out, 9), "exhausted",
		PG_REFUSAL_EXHAUSTED, EFBIG);
	assert_null(out);
	REFUSED(f, pg_read_file_alloc(f->root, "ten", &out, 1), "exhausted",
		PG_REFUSAL_EXHAUSTED, EFBIG);
	REFUSED(f, pg_read_file(f->root, ".env", buf, sizeof(buf)), "workspace.denied",
		PG_REFUSAL_DENIED, EACCES);
	REFUSED(f, pg_read_file_alloc(f->root, "out", &out, 0), "workspace.path-escape",
		PG_REFUSAL_PATH_ESCAPE, EACCES);
	PLAIN_ERROR(pg_read_file(f->root, "dir", buf, sizeof(buf)), EISDIR);
	PLAIN_ERROR(pg_read_file(f->root, "absent", buf, sizeof(buf)), ENOENT);
	/* A FIFO is refused, not waited on. */
	p = join(f->ws, "fifo");
	assert_int_equal(mkfifo(p, 0644), 0);
	free(p);
	PLAIN_ERROR(pg_read_file_alloc(f->root, "fifo", &out, 0), EINVAL);
	/* A file that grows past the first guess is read whole. */
	{
		char big[100000];

		memset(big, 'x', sizeof(big) - 1);
		big[sizeof(big) - 1] = '\0';
		tu_write(f->ws, "big", big);
		assert_int_equal(pg_read_file_alloc(f->root, "big", &out, 0),
				 (ssize_t)sizeof(big) - 1);
		free(out);
		snap(f);
		REFUSED(f, pg_read_file_alloc(f->root, "big", &out, sizeof(big) - 2), "exhausted",
			PG_REFUSAL_EXHAUSTED, EFBIG);
	}
}

/* ---------------------------------------------------------- remove_all */

static void test_remove_all(void **state)
{
	struct fx *f = *state;

	tu_build(f->ws, "d t\nd t/a\nd t/a/b\nf t/a/b/f x\nf t/g y\n"
			"l t/out ../../outside\nl t/outfile ../../outside/marker\n"
			"l t/in a\nl t/abs /\nd keep\nf keep/k k\n");
	root_with(f, "write .\n");
	snap(f);
	assert_int_equal(pg_remove_all(f->root, "t"), 0);
	assert_false(tu_exists(f->ws, "t"));
	assert_true(tu_exists(f->ws, "keep/k"));
	{
		/* Nothing outside the root changed: the links were removed, not followed. */
		struct tu_snapshot *b = tu_snapshot(f->out);
		char *d = tu_snapshot_diff(f->snap_out, b);

		if (d)
			fail_msg("outside changed: %s", d);
		tu_snapshot_free(b);
	}
	/* Absent: success, as rm -rf. */
	assert_int_equal(pg_remove_all(f->root, "t"), 0);
	assert_int_equal(pg_remove_all(f->root, "no/such/dir"), 0);
	/* A file and a symlink at the top. */
	tu_build(f->ws, "f lone x\nl lnk keep\n");
	assert_int_equal(pg_remove_all(f->root, "lone"), 0);
	assert_int_equal(pg_remove_all(f->root, "lnk"), 0);
	assert_true(tu_exists(f->ws, "keep/k"));
	assert_false(tu_exists(f->ws, "lnk"));
	snap(f);
	REFUSED(f, pg_remove_all(f->root, "../outside"), "workspace.path-escape",
		PG_REFUSAL_PATH_ESCAPE, EACCES);
	PLAIN_ERROR(pg_remove_all(f->root, "."), EBUSY);
	PLAIN_ERROR(pg_remove_all(f->root, "keep/."), EINVAL);
}

static void test_remove_all_refusals(void **state)
{
	struct fx *f = *state;

	tu_build(f->ws, "d p\nd p/secret\nf p/secret/s s\nf p/other o\n"
			"d g\nd g/sub\nf g/sub/key.pem k\n"
			"d ro\nd ro/d\nf ro/d/x x\n"
			"d w\nf w/.ENV e\n");
	root_with(f, "write .\ndeny p/secret\ndeny **/*.pem\nread ro\ndeny **/.env\n");
	snap(f);
	/* p holds a deny rule beneath it: pinned, nothing removed. */
	REFUSED(f, pg_remove_all(f->root, "p"), "workspace.pinned", PG_REFUSAL_PINNED, EBUSY);
	REFUSED(f, pg_remove_all(f->root, "p/secret"), "workspace.denied", PG_REFUSAL_DENIED,
		EACCES);
	REFUSED(f, pg_remove_all(f->root, "ro"), "workspace.read-only", PG_REFUSAL_READ_ONLY,
		EROFS);
	REFUSED(f, pg_remove_all(f->root, "ro/d"), "workspace.read-only", PG_REFUSAL_READ_ONLY,
		EROFS);
	/* A denied name met on the way down (a glob, a case spelling): refused
	 * before anything is removed. */
	assert_int_equal(pg_remove_all(f->root, "g"), -1);
	assert_int_equal(pg_last_refusal()->code, PG_REFUSAL_DENIED);
	assert_true(tu_exists(f->ws, "g/sub/key.pem"));
	unchanged(f, "pg_remove_all(g)");
	assert_int_equal(pg_remove_all(f->root, "w"), -1);
	assert_int_equal(pg_last_refusal()->code, PG_REFUSAL_DENIED);
	assert_true(tu_exists(f->ws, "w/.ENV"));
	unchanged(f, "refused remove_all");
}

static void test_remove_all_hard_link_to_denied(void **state)
{
	struct fx *f = *state;

	tu_build(f->ws, "f .env s\nd t\nh t/alias .env\nf t/x x\n");
	root_with(f, "write .\ndeny .env\n");
	snap(f);
	REFUSED(f, pg_remove_all(f->root, "t"), "workspace.denied", PG_REFUSAL_DENIED, EACCES);
	assert_true(tu_exists(f->ws, ".env"));
	assert_true(tu_exists(f->ws, "t/alias"));
}

static void test_remove_all_stops_at_mounts(void **state)
{
	struct fx *f = *state;
	char *mnt = join(f->ws, "t/mnt");

	tu_build(f->ws, "d t\nd t/mnt\nf t/f x\n");
	if (mount("tmpfs", mnt, "tmpfs", 0, "size=1m") != 0) {
		print_message("cannot mount tmpfs (%s): skipping\n", strerror(errno));
		free(mnt);
		skip();
	}
	tu_write(mnt, "x", "on another mount\n");
	root_with(f, "write .\n");
	assert_int_equal(pg_remove_all(f->root, "t"), -1);
	assert_int_equal(pg_last_refusal()->code, PG_REFUSAL_PATH_ESCAPE);
	assert_true(tu_exists(mnt, "x"));
	pg_root_close(f->root);
	f->root = NULL;
	assert_int_equal(umount(mnt), 0);
	free(mnt);
}

/* ---------------------------------------------------------- open_at */

static const char *const sub_names[] = {
	"secret", "SECRET", "Secret/x", "ro", "ro/f", "RO/f", "a.pem", "d/b.PEM", "d/c",
	"plain", "d", "nothing", "link-secret",
};

/* Every name judged by SUB (a sub-root at PREFIX) as PARENT judges
 * PREFIX/name, for every operation. */
static void same_verdicts(pg_root *parent, pg_root *sub, const char *prefix)
{
	static const enum pg_op ops[] = { PG_OP_READ, PG_OP_WRITE, PG_OP_CREATE, PG_OP_DELETE };

	for (size_t i = 0; i < sizeof(sub_names) / sizeof(sub_names[0]); i++) {
		for (size_t k = 0; k < 4; k++) {
			struct pg_verdict a, b;
			char full[256];
			int ra, rb;

			snprintf(full, sizeof(full), "%s/%s", prefix, sub_names[i]);
			ra = pg_check(parent, full, ops[k], &a);
			rb = pg_check(sub, sub_names[i], ops[k], &b);
			if (ra != rb || a.code != b.code || a.err != b.err)
				fail_msg("%s op %d: parent %d %s (%s), sub-root %d %s (%s)", full,
					 (int)ops[k], ra, a.name ? a.name : "-", a.rule, rb,
					 b.name ? b.name : "-", b.rule);
		}
	}
}

static void test_open_at(void **state)
{
	struct fx *f = *state;
	static const char tree[] =
		"f secret s\nf SECRET s\nd Secret\nf Secret/x s\nd ro\nf ro/f f\nd RO\n"
		"f RO/f f\nf a.pem k\nd d\nf d/b.PEM k\nf d/c c\nf plain p\n"
		"l link-out ../../outside/marker\nl link-secret secret\n";
	pg_root *sub;
	int fd;

	assert_int_equal(mkdir(f->ws, 0755) == 0 || errno == EEXIST, 1);
	tu_build(f->ws, "d x\nd X\nd y\nd y/w\nd z\n");
	{
		char *x = join(f->ws, "x"), *y = join(f->ws, "y/w");

		tu_build(x, tree);
		tu_build(y, tree);
		free(x);
		free(y);
	}
	root_with(f, "write .\ndeny x/secret\nread X/ro\ndeny **/*.pem\nread! y\nwrite y/w\nwrite y/w/d\n"
		     "deny z\n");
	sub = pg_root_open_at(f->root, "x", g_flags);
	assert_non_null(sub);
	snap(f);
	REFUSED(f, pg_open(sub, "secret", O_RDONLY, 0), "workspace.denied", PG_REFUSAL_DENIED,
		EACCES);
	REFUSED(f, pg_open(sub, "SECRET", O_RDONLY, 0), "workspace.denied", PG_REFUSAL_DENIED,
		EACCES);
	REFUSED(f, pg_open(sub, "link-secret", O_RDONLY, 0), "workspace.denied",
		PG_REFUSAL_DENIED, EACCES);
	/* "read X/ro" covers x/ro by collision class. */
	REFUSED(f, pg_write_file(sub, "ro/f", "x", 1, 0644), "workspace.read-only",
		PG_REFUSAL_READ_ONLY, EROFS);
	REFUSED(f, pg_open(sub, "a.pem", O_RDONLY, 0), "workspace.denied", PG_REFUSAL_DENIED,
		EACCES);
	REFUSED(f, pg_open(sub, "../plain", O_RDONLY, 0), "workspace.path-escape",
		PG_REFUSAL_PATH_ESCAPE, EACCES);
	REFUSED(f, pg_open(sub, "link-out", O_RDONLY, 0), "workspace.path-escape",
		PG_REFUSAL_PATH_ESCAPE, EACCES);
	fd = pg_open(sub, "plain", O_RDONLY | O_CLOEXEC, 0);
	assert_true(fd >= 0);
	close(fd);
	same_verdicts(f->root, sub, "x");
	pg_root_close(sub);

	/* A final rule above the sub-root still caps what lies beneath. */
	sub = pg_root_open_at(f->root, "y/w", g_flags);
	assert_non_null(sub);
	REFUSED(f, pg_write_file(sub, "plain", "x", 1, 0644), "workspace.read-only",
		PG_REFUSAL_READ_ONLY, EROFS);
	same_verdicts(f->root, sub, "y/w");
	/* Independent of its parent: the parent may go first. */
	pg_root_close(f->root);
	f->root = NULL;
	REFUSED(f, pg_open(sub, "a.pem", O_RDONLY, 0), "workspace.denied", PG_REFUSAL_DENIED,
		EACCES);
	pg_root_close(sub);

	root_with(f, "write .\ndeny x/secret\ndeny z\n");
	REFUSED(f, pg_root_open_at(f->root, "z", g_flags) ? 0 : -1, "workspace.denied", PG_REFUSAL_DENIED,
		EACCES);
	REFUSED(f, pg_root_open_at(f->root, "..", g_flags) ? 0 : -1, "workspace.path-escape",
		PG_REFUSAL_PATH_ESCAPE, EACCES);
	PLAIN_ERROR(pg_root_open_at(f->root, "x/plain", g_flags) ? 0 : -1, ENOTDIR);
	PLAIN_ERROR(pg_root_open_at(f->root, "x", PG_ROOT_XDEV) ? 0 : -1, EINVAL);
	/* The root itself: the same judgements under another handle. */
	sub = pg_root_open_at(f->root, ".", g_flags);
	assert_non_null(sub);
	REFUSED(f, pg_open(sub, "x/SECRET", O_RDONLY, 0), "workspace.denied", PG_REFUSAL_DENIED,
		EACCES);
	pg_root_close(sub);

	/* The sub-root matches as the judge does: '?' in a final rule above
	 * it stands for what one character folds to ("ss" for U+00DF). */
	tu_build(f->ws, "d qssq\nf qssq/plain p\n");
	root_with(f, "write .\nread! q?q\n");
	sub = pg_root_open_at(f->root, "qssq", g_flags);
	assert_non_null(sub);
	snap(f);
	REFUSED(f, pg_write_file(sub, "plain", "x", 1, 0644), "workspace.read-only",
		PG_REFUSAL_READ_ONLY, EROFS);
	same_verdicts(f->root, sub, "qssq");
	pg_root_close(sub);
}

/* NULL and over-long arguments: an error, never a crash. */
static void test_bad_input(void **state)
{
	struct fx *f = *state;
	char long_name[PG_NAME_MAX + 2];
	char buf[4];
	void *out = &out;

	memset(long_name, 'a', sizeof(long_name) - 1);
	long_name[sizeof(long_name) - 1] = '\0';
	root_with(f, NULL);
	snap(f);
	PLAIN_ERROR(pg_utimens(NULL, "x", NULL, 0), EINVAL);
	PLAIN_ERROR(pg_chown(NULL, "x", 0, 0, 0), EINVAL);
	PLAIN_ERROR(pg_remove_all(NULL, "x"), EINVAL);
	PLAIN_ERROR(pg_read_file(NULL, "x", buf, sizeof(buf)), EINVAL);
	PLAIN_ERROR(pg_read_file(f->root, "x", NULL, 4), EINVAL);
	PLAIN_ERROR(pg_read_file_alloc(NULL, "x", &out, 0), EINVAL);
	assert_null(out);
	PLAIN_ERROR(pg_read_file_alloc(f->root, "x", NULL, 0), EINVAL);
	PLAIN_ERROR(pg_root_open_at(NULL, "x", 0) ? 0 : -1, EINVAL);
	PLAIN_ERROR(pg_policy_parse_default(NULL), EINVAL);
	REFUSED(f, pg_utimens(f->root, NULL, NULL, 0), "workspace.bad-path", PG_REFUSAL_BAD_PATH,
		EINVAL);
	REFUSED(f, pg_remove_all(f->root, ""), "workspace.bad-path", PG_REFUSAL_BAD_PATH,
		ENOENT);
	REFUSED(f, pg_chown(f->root, long_name, 0, 0, 0), "workspace.bad-path",
		PG_REFUSAL_BAD_PATH, ENAMETOOLONG);
	REFUSED(f, pg_root_open_at(f->root, NULL, 0) ? 0 : -1, "workspace.bad-path",
		PG_REFUSAL_BAD_PATH, EINVAL);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_version_and_codes),
	T(test_codes_in_records_and_verdicts),
	T(test_utimens),
	T(test_chown),
	T(test_read_file),
	T(test_remove_all),
	T(test_remove_all_refusals),
	T(test_remove_all_hard_link_to_denied),
	T(test_remove_all_stops_at_mounts),
	T(test_open_at),
	T(test_bad_input),
};

int main(void)
{
	int failed;
	int fd = pg_openat2(AT_FDCWD, ".", O_PATH | O_CLOEXEC, 0, RESOLVE_BENEATH);

	umask(022);
	if (fd >= 0)
		close(fd);
	g_flags = 0;
	failed = cmocka_run_group_tests_name("more (openat2)", tests, NULL, NULL);
	g_flags = PG_ROOT_NO_OPENAT2;
	failed += cmocka_run_group_tests_name("more (fallback walk)", tests, NULL, NULL);
	return failed ? 1 : 0;
}
