/* test_ops.c - the guarded operations, on both resolvers: every refusal of
 * doc/design.md's table, every spelling of invariants 2 and 3, read-only
 * regions, pins, dangling links, atomic writes, pg_check, the landing check
 * and several threads on one root.  Each refused call must leave the tree
 * exactly as it was (snapshots of the workspace and of a directory beside
 * it). */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
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

#include "atomic.h"
#include "check.h"
#include "pathgate.h"
#include "path.h"
#include "refusal.h"
#include "resolve.h"
#include "root.h"
#include "testutil.h"

static unsigned g_flags; /* 0: openat2; PG_ROOT_NO_OPENAT2: the walk */
static bool g_host_openat2; /* false under valgrind, which lacks openat2 */

struct fx {
	char    *base;
	char    *ws;      /* the root */
	char    *out;     /* beside the root: must never change */
	pg_root *root;
	int      fds;
	struct tu_snapshot *snap_ws, *snap_out;
};

/* "A/B" in one of a few static buffers: no frees in the tests. */
static const char *cat(const char *a, const char *b)
{
	static char ring[8][4200];
	static unsigned next;
	char *p = ring[next++ % 8];

	snprintf(p, sizeof(ring[0]), "%s/%s", a, b);
	return p;
}

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	f->fds = tu_fd_count();
	f->base = tu_mkdtemp("ops");
	f->ws = strdup(cat(f->base, "ws"));
	f->out = strdup(cat(f->base, "outside"));
	assert_int_equal(mkdir(f->ws, 0755), 0);
	assert_int_equal(mkdir(f->out, 0755), 0);
	tu_write(f->out, "marker", "outside the root\n");
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
	/* Every fd the library opened is closed again. */
	assert_int_equal(tu_fd_count(), f->fds);
	free(f->base);
	free(f->ws);
	free(f->out);
	free(f);
	return 0;
}

/* Open the root with POLICY (a policy file's text; NULL: "write ."). */
static pg_root *root_with(struct fx *f, const char *policy, unsigned extra)
{
	pg_policy *p = NULL;

	if (policy) {
		p = pg_policy_new();
		assert_non_null(p);
		assert_int_equal(pg_policy_parse(p, policy, strlen(policy)), 0);
	}
	pg_root_close(f->root);
	f->root = pg_root_open(f->ws, p, g_flags | extra);
	pg_policy_free(p);
	assert_non_null(f->root);
	assert_int_equal(pg_root_uses_openat2(f->root),
			 g_host_openat2 && !(g_flags & PG_ROOT_NO_OPENAT2));
	return f->root;
}

static void snap(struct fx *f)
{
	tu_snapshot_free(f->snap_ws);
	tu_snapshot_free(f->snap_out);
	f->snap_ws = tu_snapshot(f->ws);
	f->snap_out = tu_snapshot(f->out);
}

/* Nothing changed since snap(). */
static void unchanged(struct fx *f, const char *what)
{
	struct tu_snapshot *a = tu_snapshot(f->ws), *b = tu_snapshot(f->out);
	char *d1 = tu_snapshot_diff(f->snap_ws, a), *d2 = tu_snapshot_diff(f->snap_out, b);

	if (d1 || d2)
		fail_msg("%s changed the tree: %s", what, d1 ? d1 : d2);
	tu_snapshot_free(a);
	tu_snapshot_free(b);
}

static void expect_refusal_(long rc, const char *name, int err, const char *what)
{
	const struct pg_refusal *r = pg_last_refusal();
	int e = errno;

	if (rc != -1 || !r->name || strcmp(r->name, name) != 0 || e != err)
		fail_msg("%s: want %s (%s), got rc=%ld errno=%s refusal=%s", what, name,
			 strerror(err), rc, strerror(e), r->name ? r->name : "none");
}

static void expect_errno_(long rc, int err, const char *what)
{
	const struct pg_refusal *r = pg_last_refusal();
	int e = errno;

	if (rc != -1 || r->name || e != err)
		fail_msg("%s: want plain %s, got rc=%ld errno=%s refusal=%s", what,
			 strerror(err), rc, strerror(e), r->name ? r->name : "none");
}

static void expect_ok_(long rc, const char *what)
{
	const struct pg_refusal *r = pg_last_refusal();

	if (rc < 0 || r->name)
		fail_msg("%s: want success, got rc=%ld errno=%s refusal=%s (%s)", what, rc,
			 strerror(errno), r->name ? r->name : "none", r->name ? r->rule : "");
}

#define EXPECT_REFUSAL(call, name, err) expect_refusal_((long)(call), name, err, #call)
#define EXPECT_ERRNO(call, err) expect_errno_((long)(call), err, #call)
#define EXPECT_OK(call) expect_ok_((long)(call), #call)
/* An fd-returning call that must succeed: close what it returns. */
#define EXPECT_FD(call) do { int fd_ = (call); expect_ok_(fd_, #call); close(fd_); } while (0)

/* ------------------------------------------------------------ the ops */

enum kind {
	K_OPEN_R, K_OPEN_W, K_CREAT, K_STAT, K_LSTAT, K_MKDIR, K_MKDIR_ALL, K_UNLINK, K_RMDIR,
	K_RENAME_FROM, K_RENAME_TO, K_EXCHANGE_TO, K_LINK_FROM, K_LINK_TO, K_SYMLINK,
	K_READLINK, K_CHMOD, K_TRUNCATE, K_OPENDIR, K_WRITE_FILE, K_CHECK_READ, K_CHECK_CREATE,
	K_COUNT
};

static const char *kind_name[K_COUNT] = {
	"open(O_RDONLY)", "open(O_WRONLY)", "open(O_CREAT)", "stat", "lstat", "mkdir",
	"mkdir_all", "unlink", "rmdir", "rename from", "rename to", "exchange with",
	"link from", "link to", "symlink at", "readlink", "chmod", "truncate", "opendir",
	"write_file", "check read", "check create",
};

/* Run KIND on PATH; the other operand, where there is one, is "a/b/f". */
static long run(pg_root *root, enum kind k, const char *path)
{
	struct stat st;
	struct pg_verdict v;
	char buf[256];
	long rc = -1;
	int fd;
	DIR *d;

	switch (k) {
	case K_OPEN_R:
	case K_OPEN_W:
	case K_CREAT:
		fd = pg_open(root, path, k == K_OPEN_R ? O_RDONLY :
			     k == K_OPEN_W ? O_WRONLY : O_WRONLY | O_CREAT, 0644);
		if (fd >= 0)
			close(fd);
		return fd;
	case K_STAT: return pg_stat(root, path, &st, 0);
	case K_LSTAT: return pg_stat(root, path, &st, AT_SYMLINK_NOFOLLOW);
	case K_MKDIR: return pg_mkdir(root, path, 0755);
	case K_MKDIR_ALL: return pg_mkdir_all(root, path, 0755);
	case K_UNLINK: return pg_unlink(root, path);
	case K_RMDIR: return pg_rmdir(root, path);
	case K_RENAME_FROM: return pg_rename(root, path, "a/moved", 0);
	case K_RENAME_TO: return pg_rename(root, "a/b/f", path, 0);
	case K_EXCHANGE_TO: return pg_rename(root, "a/b/f", path, RENAME_EXCHANGE);
	case K_LINK_FROM: return pg_link(root, path, "a/linked");
	case K_LINK_TO: return pg_link(root, "a/b/f", path);
	case K_SYMLINK: return pg_symlink(root, "b/f", path);
	case K_READLINK: return pg_readlink(root, path, buf, sizeof(buf));
	case K_CHMOD: return pg_chmod(root, path, 0600);
	case K_TRUNCATE: return pg_truncate(root, path, 0);
	case K_OPENDIR:
		d = pg_opendir(root, path);
		if (d) {
			closedir(d);
			return 0;
		}
		return -1;
	case K_WRITE_FILE: return pg_write_file(root, path, "new", 3, 0644);
	case K_CHECK_READ: rc = pg_check(root, path, PG_OP_READ, &v); break;
	case K_CHECK_CREATE: rc = pg_check(root, path, PG_OP_CREATE, &v); break;
	case K_COUNT: break;
	}
	/* A verdict says what the refusal record says. */
	if (rc < 0) {
		const struct pg_refusal *r = pg_last_refusal();
		int e = errno;

		assert_int_equal(v.allowed, 0);
		if (r->name) {
			assert_non_null(v.name);
			assert_string_equal(v.name, r->name);
		}
		errno = e;
	} else {
		assert_int_equal(v.allowed, 1);
	}
	return rc;
}

/* Every kind in KINDS on every path in PATHS is refused with NAME / ERR,
 * and nothing changes on disk. */
static void refuse_all(struct fx *f, const enum kind *kinds, size_t nk,
		       const char *const *paths, size_t np, const char *name, int err)
{
	for (size_t i = 0; i < nk; i++) {
		for (size_t j = 0; j < np; j++) {
			char what[512];
			long rc;

			snprintf(what, sizeof(what), "%s '%s'", kind_name[kinds[i]], paths[j]);
			snap(f);
			errno = 0;
			rc = run(f->root, kinds[i], paths[j]);
			expect_refusal_(rc, name, err, what);
			unchanged(f, what);
		}
	}
}

#define N(a) (sizeof(a) / sizeof((a)[0]))

static const enum kind all_kinds[] = {
	K_OPEN_R, K_OPEN_W, K_CREAT, K_STAT, K_LSTAT, K_MKDIR, K_MKDIR_ALL, K_UNLINK, K_RMDIR,
	K_RENAME_FROM, K_RENAME_TO, K_EXCHANGE_TO, K_LINK_FROM, K_LINK_TO, K_SYMLINK,
	K_READLINK, K_CHMOD, K_TRUNCATE, K_OPENDIR, K_WRITE_FILE, K_CHECK_READ, K_CHECK_CREATE,
};

/* Kinds that follow a final symlink. */
static const enum kind following_kinds[] = {
	K_OPEN_R, K_OPEN_W, K_CREAT, K_STAT, K_CHMOD, K_TRUNCATE, K_OPENDIR, K_WRITE_FILE,
	K_CHECK_READ, K_CHECK_CREATE,
};

static const char base_tree[] =
	"d a\n"
	"d a/b\n"
	"f a/b/f content\n"
	"l la a\n"
	"l dot .\n";

/* ------------------------------------------------------------- basics */

static void test_allowed_operations(void **state)
{
	struct fx *f = *state;
	pg_root *r;
	struct stat st;
	char buf[64];
	ssize_t n;
	int fd;

	tu_build(f->ws, base_tree);
	r = root_with(f, NULL, 0);
	assert_string_equal(pg_root_path(r), f->ws);

	fd = pg_open(r, "a/b/f", O_RDONLY, 0);
	expect_ok_(fd, "open a/b/f");
	n = read(fd, buf, sizeof(buf));
	assert_int_equal(n, 7);
	close(fd);
	EXPECT_FD(pg_open(r, "la/b/f", O_RDONLY | O_CLOEXEC, 0));
	EXPECT_FD(pg_open(r, "dot/a/./b/../b/f", O_RDONLY, 0));
	EXPECT_FD(pg_open(r, ".", O_RDONLY | O_DIRECTORY, 0));
	EXPECT_OK(pg_stat(r, "la/b/f", &st, 0));
	assert_true(S_ISREG(st.st_mode));
	assert_int_equal(st.st_size, 7);
	EXPECT_OK(pg_stat(r, "la", &st, AT_SYMLINK_NOFOLLOW));
	assert_true(S_ISLNK(st.st_mode));
	EXPECT_OK(pg_stat(r, "la", &st, 0));
	assert_true(S_ISDIR(st.st_mode));
	EXPECT_OK(pg_mkdir(r, "la/new", 0700));
	assert_true(tu_exists(f->ws, "a/new"));
	EXPECT_OK(pg_mkdir_all(r, "x/y/../z/w", 0755));
	assert_true(tu_exists(f->ws, "x/z/w"));
	EXPECT_OK(pg_mkdir_all(r, "la/new/deeper", 0755));
	assert_true(tu_exists(f->ws, "a/new/deeper"));
	EXPECT_OK(pg_rmdir(r, "a/new/deeper"));
	EXPECT_OK(pg_rename(r, "a/b/f", "la/new/g", 0));
	assert_true(tu_exists(f->ws, "a/new/g"));
	EXPECT_OK(pg_link(r, "a/new/g", "x/h"));
	EXPECT_OK(pg_symlink(r, "../a/new/g", "x/s"));
	n = pg_readlink(r, "x/s", buf, sizeof(buf));
	expect_ok_(n, "readlink");
	assert_int_equal(n, 10);
	EXPECT_OK(pg_chmod(r, "x/s", 0600));
	EXPECT_OK(pg_stat(r, "a/new/g", &st, 0));
	assert_int_equal(st.st_mode & 07777, 0600);
	EXPECT_OK(pg_truncate(r, "x/s", 2));
	EXPECT_OK(pg_stat(r, "a/new/g", &st, 0));
	assert_int_equal(st.st_size, 2);
	EXPECT_OK(pg_unlink(r, "x/h"));
	EXPECT_OK(pg_unlink(r, "x/s"));
	EXPECT_OK(pg_rename(r, "x", "y", RENAME_NOREPLACE));
	EXPECT_OK(pg_mkdir(r, "x", 0755));
	EXPECT_OK(pg_rename(r, "x", "y", RENAME_EXCHANGE));
	DIR *d = pg_opendir(r, "x/z");

	expect_ok_(d ? 0 : -1, "opendir");
	closedir(d);
	fd = pg_open(r, "a/c", O_WRONLY | O_CREAT | O_EXCL, 0640);
	expect_ok_(fd, "create a/c");
	close(fd);
	EXPECT_OK(pg_stat(r, "a/c", &st, AT_SYMLINK_NOFOLLOW));
}

static void test_plain_errors_pass_through(void **state)
{
	struct fx *f = *state;
	pg_root *r;
	struct stat st;
	char buf[16];

	tu_build(f->ws, base_tree);
	tu_build(f->ws, "l loop1 loop2\nl loop2 loop1\n");
	r = root_with(f, NULL, 0);
	EXPECT_ERRNO(pg_open(r, "missing", O_RDONLY, 0), ENOENT);
	EXPECT_ERRNO(pg_open(r, "a/missing/f", O_RDONLY, 0), ENOENT);
	EXPECT_ERRNO(pg_open(r, "la/missing/f", O_RDONLY, 0), ENOENT);
	EXPECT_ERRNO(pg_stat(r, "missing", &st, 0), ENOENT);
	EXPECT_ERRNO(pg_open(r, "a/b/f/", O_RDONLY, 0), ENOTDIR);
	EXPECT_ERRNO(pg_open(r, "a/b/f/x", O_RDONLY, 0), ENOTDIR);
	EXPECT_ERRNO(pg_open(r, "a/b/f", O_RDONLY | O_CREAT | O_EXCL, 0600), EEXIST);
	EXPECT_ERRNO(pg_open(r, "la", O_RDONLY | O_NOFOLLOW, 0), ELOOP);
	EXPECT_ERRNO(pg_open(r, "loop1", O_RDONLY, 0), ELOOP);
	EXPECT_ERRNO(pg_open(r, "loop1/x", O_RDONLY, 0), ELOOP);
	EXPECT_ERRNO(pg_mkdir(r, "a", 0755), EEXIST);
	EXPECT_ERRNO(pg_mkdir(r, "la", 0755), EEXIST);
	EXPECT_ERRNO(pg_rmdir(r, "a"), ENOTEMPTY);
	EXPECT_ERRNO(pg_rmdir(r, "a/b/f"), ENOTDIR);
	EXPECT_ERRNO(pg_unlink(r, "a"), EISDIR);
	EXPECT_ERRNO(pg_unlink(r, "missing"), ENOENT);
	EXPECT_ERRNO(pg_readlink(r, "a/b/f", buf, sizeof(buf)), EINVAL);
	EXPECT_ERRNO(pg_link(r, "a/b/f", "la"), EEXIST);
	EXPECT_ERRNO(pg_link(r, "a", "c"), EPERM);
	EXPECT_ERRNO(pg_symlink(r, "x", "a/b/f"), EEXIST);
	EXPECT_ERRNO(pg_rename(r, "missing", "x", 0), ENOENT);
	EXPECT_ERRNO(pg_rename(r, "a/b/f", "la", RENAME_NOREPLACE), EEXIST);
	EXPECT_ERRNO(pg_rename(r, "a/b/f", "x", RENAME_EXCHANGE), ENOENT);
	EXPECT_ERRNO(pg_rename(r, "a", "x", 0x80), EINVAL);
	EXPECT_ERRNO(pg_truncate(r, "a", 0), EISDIR);
	EXPECT_ERRNO(pg_truncate(r, "a/b/f", -1), EINVAL);
	EXPECT_ERRNO(pg_stat(r, "a", &st, 0x1), EINVAL);
	assert_null(pg_opendir(r, "a/b/f"));
	assert_int_equal(errno, ENOTDIR);
	assert_null(pg_last_refusal()->name);
	EXPECT_ERRNO(pg_rmdir(r, "."), EINVAL);
}

static void test_bad_paths(void **state)
{
	struct fx *f = *state;
	pg_root *r;
	char *long_path = malloc(PG_PATH_MAX + 2), long_name[PG_NAME_MAX + 2];

	r = root_with(f, NULL, 0);
	memset(long_path, 'a', PG_PATH_MAX + 1);
	for (size_t i = 100; i < PG_PATH_MAX; i += 100)
		long_path[i] = '/';
	long_path[PG_PATH_MAX + 1] = '\0';
	memset(long_name, 'n', PG_NAME_MAX + 1);
	long_name[PG_NAME_MAX + 1] = '\0';
	snap(f);
	for (int k = 0; k < K_COUNT; k++) {
		expect_refusal_(run(r, (enum kind)k, ""), "workspace.bad-path", ENOENT, kind_name[k]);
		expect_refusal_(run(r, (enum kind)k, long_path), "workspace.bad-path", ENAMETOOLONG,
				kind_name[k]);
		expect_refusal_(run(r, (enum kind)k, long_name), "workspace.bad-path", ENAMETOOLONG,
				kind_name[k]);
		expect_refusal_(run(r, (enum kind)k, NULL), "workspace.bad-path", EINVAL,
				kind_name[k]);
	}
	unchanged(f, "bad paths");
	free(long_path);
	/* A NULL root is a plain EINVAL. */
	EXPECT_ERRNO(pg_open(NULL, "a", O_RDONLY, 0), EINVAL);
	assert_null(pg_root_open(NULL, NULL, 0));
	assert_null(pg_root_open(f->ws, NULL, 0x100));
	assert_int_equal(errno, EINVAL);
}

/* ------------------------------------------------------------ escapes */

static void test_escapes(void **state)
{
	struct fx *f = *state;
	char *spec;
	static const char *const lexical[] = {
		"/etc/passwd", "..", "../outside/marker", "a/../../outside/marker",
		"a/b/../../..", "./../x",
	};
	static const char *const through[] = {
		"abs/etc/passwd", "out/marker", "up/outside/marker", "chain/marker",
		"a/up2/outside/new", "la/../up/outside/marker",
	};
	static const char *const final_links[] = { "out", "absfile", "upfile" };

	tu_build(f->ws, base_tree);
	assert_true(asprintf(&spec, "l abs /\nl out %s\nl absfile %s/marker\n"
			     "l up ..\nl a/up2 ../..\nl chain up/outside\n"
			     "l upfile ../outside/marker\n", f->out, f->out) > 0);
	tu_build(f->ws, spec);
	free(spec);
	root_with(f, NULL, 0);
	refuse_all(f, all_kinds, N(all_kinds), lexical, N(lexical),
		   "workspace.path-escape", EACCES);
	refuse_all(f, all_kinds, N(all_kinds), through, N(through),
		   "workspace.path-escape", EACCES);
	refuse_all(f, following_kinds, N(following_kinds), final_links, N(final_links),
		   "workspace.path-escape", EACCES);
	/* The link itself is inside: acting on its own name is fine. */
	EXPECT_OK(run(f->root, K_LSTAT, "out"));
	EXPECT_OK(run(f->root, K_READLINK, "out"));
	EXPECT_OK(pg_rename(f->root, "out", "out2", 0));
	EXPECT_OK(pg_unlink(f->root, "out2"));
	assert_true(tu_exists(f->out, "marker"));
}

static bool try_mount(const char *type, const char *where, const char *opts)
{
	if (mount(type, where, type, 0, opts) == 0)
		return true;
	print_message("cannot mount %s on %s (%s): skipping\n", type, where, strerror(errno));
	return false;
}

static void test_mount_crossing(void **state)
{
	struct fx *f = *state;
	char *mnt = strdup(cat(f->ws, "mnt"));
	static const char *const paths[] = { "mnt/x", "mnt", "a/../mnt/x" };
	static const enum kind kinds[] = {
		K_OPEN_R, K_CREAT, K_STAT, K_MKDIR, K_WRITE_FILE, K_CHECK_READ, K_OPENDIR,
	};

	tu_build(f->ws, base_tree);
	tu_build(f->ws, "d mnt\nl lm mnt\n");
	if (!try_mount("tmpfs", mnt, "size=1m")) {
		free(mnt);
		skip();
	}
	tu_write(mnt, "x", "on another mount\n");
	root_with(f, NULL, 0);
	refuse_all(f, kinds, N(kinds), paths, N(paths), "workspace.path-escape", EACCES);
	EXPECT_REFUSAL(pg_open(f->root, "lm/x", O_RDONLY, 0), "workspace.path-escape", EACCES);
	/* PG_ROOT_XDEV opts in. */
	root_with(f, NULL, PG_ROOT_XDEV);
	EXPECT_FD(pg_open(f->root, "mnt/x", O_RDONLY, 0));
	EXPECT_FD(pg_open(f->root, "lm/x", O_RDONLY, 0));
	pg_root_close(f->root);
	f->root = NULL;
	assert_int_equal(umount(mnt), 0);
	free(mnt);
}

static void test_proc_magic_links(void **state)
{
	struct fx *f = *state;
	char *proc = strdup(cat(f->ws, "proc"));
	static const char *const paths[] = {
		"proc/self/root/etc/passwd", "proc/self/cwd", "proc/self/fd/0", "proc/1/root",
		"pl/root/etc/passwd",
	};
	static const enum kind kinds[] = { K_OPEN_R, K_STAT, K_CREAT, K_CHECK_READ };

	tu_build(f->ws, "d proc\nl pl proc/self\n");
	if (!try_mount("proc", proc, NULL)) {
		free(proc);
		skip();
	}
	/* Across the mount: refused as a mount crossing. */
	root_with(f, NULL, 0);
	refuse_all(f, kinds, N(kinds), paths, N(paths), "workspace.path-escape", EACCES);
	/* Even where mounts may be crossed, /proc's links are not followed. */
	root_with(f, NULL, PG_ROOT_XDEV);
	refuse_all(f, kinds, N(kinds), paths, N(paths), "workspace.path-escape", EACCES);
	pg_root_close(f->root);
	f->root = NULL;
	assert_int_equal(umount(proc), 0);
	free(proc);
}

/* ------------------------------------------------ invariant 2: spellings */

static const char deny_policy[] =
	"write .\n"
	"deny .env\n"
	"deny secretdir\n"
	"deny lnk\n";

static const char deny_tree[] =
	"f .env SECRET\n"
	"d secretdir\n"
	"f secretdir/f SECRET\n"
	"l ls secretdir\n"
	"l toenv .env\n"
	"l tosecret secretdir/f\n"
	"h hl .env\n"
	"h hl2 secretdir/f\n"
	"f t.txt target of a denied symlink\n"
	"l lnk t.txt\n";

static void test_deny_every_spelling(void **state)
{
	struct fx *f = *state;
	static const char *const files[] = {
		".env", "./.env", "a/../.env", ".ENV", ".Env", "dot/.env", "la/../.env",
		"dot/./a/../.ENV", "secretdir/f", "secretdir/./f", "SECRETDIR/f",
		"ls/f", "dot/ls/f", "lnk", "t.txt", "dot/t.txt",
	};
	static const enum kind kinds[] = { K_OPEN_R, K_STAT, K_LSTAT, K_CHECK_READ, K_OPEN_W,
					   K_CHMOD, K_TRUNCATE, K_WRITE_FILE, K_UNLINK,
					   K_RENAME_FROM, K_LINK_FROM, K_CHECK_CREATE };
	/* Symlinks whose target is denied: denied where they are followed. */
	static const char *const links[] = { "toenv", "tosecret", "dot/toenv" };
	static const enum kind following[] = { K_OPEN_R, K_STAT, K_CHECK_READ, K_OPEN_W,
					       K_CHMOD, K_TRUNCATE, K_WRITE_FILE,
					       K_CHECK_CREATE, K_CREAT };
	static const char *const dirs[] = { "secretdir", "secretdir/", "./SecretDir" };
	static const enum kind dir_kinds[] = { K_OPENDIR, K_STAT, K_LSTAT, K_CHECK_READ,
					       K_RMDIR, K_RENAME_FROM, K_CHMOD };
	static const char *const dir_links[] = { "ls", "ls/", "dot/ls" };
	static const enum kind dir_following[] = { K_OPENDIR, K_STAT, K_CHECK_READ, K_CHMOD };

	tu_build(f->ws, base_tree);
	tu_build(f->ws, deny_tree);
	root_with(f, deny_policy, 0);
	refuse_all(f, kinds, N(kinds), files, N(files), "workspace.denied", EACCES);
	refuse_all(f, following, N(following), links, N(links), "workspace.denied", EACCES);
	refuse_all(f, dir_kinds, N(dir_kinds), dirs, N(dirs), "workspace.denied", EACCES);
	refuse_all(f, dir_following, N(dir_following), dir_links, N(dir_links),
		   "workspace.denied", EACCES);
	/* The symlinks' own names are denied too where a rule names them. */
	EXPECT_REFUSAL(pg_stat(f->root, "lnk", &(struct stat){ 0 }, AT_SYMLINK_NOFOLLOW),
		       "workspace.denied", EACCES);
	/* What is not denied stays reachable. */
	EXPECT_FD(pg_open(f->root, "a/b/f", O_RDONLY, 0));
	EXPECT_OK(pg_stat(f->root, "toenv", &(struct stat){ 0 }, AT_SYMLINK_NOFOLLOW));
	char *content = tu_read(f->ws, ".env");

	assert_string_equal(content, "SECRET");
	free(content);
}

static void test_hard_links_judged_by_identity(void **state)
{
	struct fx *f = *state;
	static const char *const links[] = { "hl", "dot/hl", "a/../hl" };
	static const enum kind kinds[] = { K_OPEN_R, K_OPEN_W, K_STAT, K_CHECK_READ,
					   K_WRITE_FILE, K_TRUNCATE, K_CHMOD, K_LINK_FROM };

	tu_build(f->ws, base_tree);
	tu_build(f->ws, deny_tree);
	root_with(f, deny_policy, 0);
	refuse_all(f, kinds, N(kinds), links, N(links), "workspace.denied", EACCES);
	/* Judged before the kernel's ENOTDIR, on both resolvers alike. */
	EXPECT_REFUSAL(pg_open(f->root, "hl", O_RDONLY | O_DIRECTORY, 0), "workspace.denied", EACCES);
	assert_null(pg_opendir(f->root, "hl"));
	assert_string_equal(pg_last_refusal()->name, "workspace.denied");
	EXPECT_REFUSAL(pg_stat(f->root, "hl/", &(struct stat){ 0 }, 0), "workspace.denied", EACCES);
	EXPECT_REFUSAL(pg_check(f->root, "hl/", PG_OP_READ, NULL), "workspace.denied", EACCES);
	EXPECT_ERRNO(pg_open(f->root, "a/b/f", O_RDONLY | O_DIRECTORY, 0), ENOTDIR);
	/* A link made after the root was opened is caught too. */
	assert_int_equal(link(cat(f->ws, ".env"), cat(f->ws, "a/late")), 0);
	EXPECT_REFUSAL(pg_open(f->root, "a/late", O_RDONLY, 0), "workspace.denied", EACCES);
	/* The denied file recreated after the root was opened, then linked:
	 * the link has company, so the rules' file names are looked at again. */
	assert_int_equal(rename(cat(f->ws, ".env"), cat(f->ws, "a/old-env")), 0);
	tu_write(f->ws, ".env", "NEW SECRET");
	assert_int_equal(link(cat(f->ws, ".env"), cat(f->ws, "a/alias")), 0);
	EXPECT_REFUSAL(pg_open(f->root, "a/alias", O_RDONLY, 0), "workspace.denied", EACCES);
	EXPECT_REFUSAL(pg_check(f->root, "a/alias", PG_OP_READ, NULL), "workspace.denied", EACCES);
	EXPECT_REFUSAL(pg_open(f->root, "a/old-env", O_RDONLY, 0), "workspace.denied", EACCES);
	/* hl2 links a file inside a denied directory: files beneath a denied
	 * directory are recorded too (within a budget). */
	EXPECT_REFUSAL(pg_open(f->root, "hl2", O_RDONLY, 0), "workspace.denied", EACCES);
	EXPECT_REFUSAL(pg_stat(f->root, "hl2", &(struct stat){ 0 }, 0), "workspace.denied", EACCES);
}

static void test_planted_symlink_only_widens(void **state)
{
	struct fx *f = *state;

	tu_build(f->ws, base_tree);
	tu_build(f->ws, "d z\nd z/b\nf z/b/c open\nd p\nf p/c secret\n");
	/* deny p/c; plant q -> p: q/c reaches the denied object. */
	root_with(f, "write .\ndeny p/c\ndeny a/b/c\n", 0);
	tu_build(f->ws, "l q p\n");
	EXPECT_REFUSAL(pg_open(f->root, "q/c", O_RDONLY, 0), "workspace.denied", EACCES);
	/* Replace a by a symlink to z: the name a/b/c stays denied even though
	 * it now reaches z/b/c, which no rule denies. */
	tu_rmtree(cat(f->ws, "a"));
	tu_build(f->ws, "l a z\n");
	EXPECT_REFUSAL(pg_open(f->root, "a/b/c", O_RDONLY, 0), "workspace.denied", EACCES);
	EXPECT_FD(pg_open(f->root, "z/b/c", O_RDONLY, 0));
	/* A deny naming a symlink denies its target, including a target that
	 * does not exist yet (after refresh). */
	tu_build(f->ws, "l pointer future\n");
	root_with(f, "write .\ndeny pointer\n", 0);
	EXPECT_REFUSAL(pg_open(f->root, "future", O_WRONLY | O_CREAT, 0600),
		       "workspace.denied", EACCES);
	EXPECT_REFUSAL(pg_write_file(f->root, "future", "x", 1, 0600), "workspace.denied", EACCES);
	assert_false(tu_exists(f->ws, "future"));
	/* Re-pointing the symlink widens after refresh; the old target stays
	 * denied until then, the new one is added. */
	unlink(cat(f->ws, "pointer"));
	tu_build(f->ws, "l pointer z/b/c\n");
	EXPECT_OK(pg_root_refresh(f->root));
	EXPECT_REFUSAL(pg_open(f->root, "z/b/c", O_RDONLY, 0), "workspace.denied", EACCES);
}

/* ----------------------------------------- invariant 3: the absent name */

static void test_absent_name_never_created(void **state)
{
	struct fx *f = *state;
	static const char *const names[] = {
		".env", "./.env", "a/../.env", ".ENV", ".env/", "dot/.env", "la/../.Env",
		".ssh", ".ssh/id_rsa", ".SSH/config", "a/b/.secret", "la/b/.secret",
	};
	/* Through a dangling symlink that points at the denied name. */
	static const char *const links[] = { "toenv", "dangenv", "dot/toenv" };
	/* (rename(2) onto such a link replaces the link: below.) */
	static const enum kind following[] = { K_CREAT, K_MKDIR_ALL, K_WRITE_FILE,
					       K_CHECK_CREATE, K_MKDIR, K_SYMLINK, K_LINK_TO };
	static const enum kind creates[] = {
		K_CREAT, K_MKDIR, K_MKDIR_ALL, K_SYMLINK, K_LINK_TO, K_RENAME_TO, K_EXCHANGE_TO,
		K_WRITE_FILE, K_CHECK_CREATE,
	};

	tu_build(f->ws, base_tree);
	tu_build(f->ws, "l toenv .env\nl dangenv a/b/.secret\n");
	root_with(f, "write .\ndeny .env\ndeny! .ssh\ndeny a/b/.secret\n", 0);
	refuse_all(f, creates, N(creates), names, N(names), "workspace.denied", EACCES);
	refuse_all(f, following, N(following), links, N(links), "workspace.denied", EACCES);
	/* mkdir_all through it. */
	snap(f);
	EXPECT_REFUSAL(pg_mkdir_all(f->root, ".env/x/y", 0755), "workspace.denied", EACCES);
	EXPECT_REFUSAL(pg_mkdir_all(f->root, "dot/.ssh/keys", 0755), "workspace.denied", EACCES);
	EXPECT_REFUSAL(pg_open(f->root, ".ssh/known_hosts", O_CREAT | O_WRONLY, 0600),
		       "workspace.denied", EACCES);
	/* A streaming write is refused at begin. */
	assert_null(pg_write_begin(f->root, ".env", 0600));
	assert_string_equal(pg_last_refusal()->name, "workspace.denied");
	unchanged(f, "creating an absent denied name");
	assert_false(tu_exists(f->ws, ".env"));
	assert_false(tu_exists(f->ws, ".ssh"));
	/* A rename onto a link to the denied name replaces the link, as
	 * rename(2) does, and creates nothing there. */
	tu_build(f->ws, "f moved M\n");
	EXPECT_OK(pg_rename(f->root, "moved", "toenv", 0));
	assert_false(tu_exists(f->ws, ".env"));
	{
		struct stat st;

		assert_int_equal(lstat(cat(f->ws, "toenv"), &st), 0);
		assert_true(S_ISREG(st.st_mode));
	}
}

static void test_exchange_and_rename_into_denied(void **state)
{
	struct fx *f = *state;

	tu_build(f->ws, base_tree);
	tu_build(f->ws, deny_tree);
	root_with(f, deny_policy, 0);
	snap(f);
	EXPECT_REFUSAL(pg_rename(f->root, "a/b/f", "secretdir/f", RENAME_EXCHANGE),
		       "workspace.denied", EACCES);
	EXPECT_REFUSAL(pg_rename(f->root, "a/b/f", "secretdir/g", 0), "workspace.denied", EACCES);
	EXPECT_REFUSAL(pg_rename(f->root, "a/b/f", "ls/g", 0), "workspace.denied", EACCES);
	EXPECT_REFUSAL(pg_rename(f->root, ".env", "a/stolen", 0), "workspace.denied", EACCES);
	EXPECT_REFUSAL(pg_rename(f->root, "ls/", "a/stolen", 0), "workspace.denied", EACCES);
	EXPECT_REFUSAL(pg_link(f->root, "hl", "a/stolen"), "workspace.denied", EACCES);
	unchanged(f, "renames into and out of denied names");
}

/* ------------------------------------------------------ dangling links */

static void test_dangling_links(void **state)
{
	struct fx *f = *state;
	static const char *const through_dir[] = { "dl/x", "dot/dl/x" };
	static const enum kind creates[] = {
		K_CREAT, K_MKDIR, K_MKDIR_ALL, K_SYMLINK, K_LINK_TO, K_RENAME_TO, K_WRITE_FILE,
		K_CHECK_CREATE,
	};
	static const char *const final[] = { "dlf", "a/dlf2" };
	/* Creating the name of a dangling link is ambiguous too: the link,
	 * or what it points at? */
	static const enum kind final_creates[] = { K_CREAT, K_WRITE_FILE, K_CHECK_CREATE,
						   K_MKDIR, K_SYMLINK, K_LINK_TO };

	tu_build(f->ws, base_tree);
	tu_build(f->ws, "l dl missingdir\nl dlf missing.txt\nl a/dlf2 ../nothere/x\n");
	root_with(f, NULL, 0);
	refuse_all(f, creates, N(creates), through_dir, N(through_dir),
		   "workspace.dangling-link", ENOENT);
	refuse_all(f, final_creates, N(final_creates), final, N(final),
		   "workspace.dangling-link", ENOENT);
	/* Reading through one is a plain ENOENT; O_EXCL does not follow. */
	EXPECT_ERRNO(pg_open(f->root, "dlf", O_RDONLY, 0), ENOENT);
	EXPECT_ERRNO(pg_open(f->root, "dl/x", O_RDONLY, 0), ENOENT);
	EXPECT_ERRNO(pg_open(f->root, "dlf", O_CREAT | O_EXCL | O_WRONLY, 0600), EEXIST);
	/* A link whose target exists is replaced by a rename; a mkdir of its
	 * name is the kernel's EEXIST. */
	EXPECT_ERRNO(pg_mkdir(f->root, "la", 0755), EEXIST);
	EXPECT_ERRNO(pg_open(f->root, "a/b/f/", O_CREAT | O_WRONLY, 0600), EISDIR);
	EXPECT_ERRNO(pg_open(f->root, "newf/", O_CREAT | O_WRONLY, 0600), EISDIR);
	EXPECT_ERRNO(pg_rename(f->root, "a/b/f", "moved/", 0), ENOTDIR);
	EXPECT_OK(pg_rename(f->root, "a/b/f", "la", 0));
	assert_false(tu_exists(f->ws, "newf"));
}

/* ---------------------------------------------------- read-only regions */

static void test_read_only_region(void **state)
{
	struct fx *f = *state;
	static const char *const files[] = { ".git/config", "dot/.git/config", "cfglink",
					     "lgit/config" };
	static const enum kind file_writes[] = {
		K_OPEN_W, K_UNLINK, K_RENAME_FROM, K_LINK_FROM, K_CHMOD, K_TRUNCATE, K_WRITE_FILE,
	};
	static const char *const links[] = { "lcfg" };
	static const enum kind following[] = { K_OPEN_W, K_CHMOD, K_TRUNCATE, K_WRITE_FILE };
	static const char *const fresh[] = { ".git/new", ".git/hooks/pre-commit", "lgit/new" };
	static const enum kind creates[] = {
		K_CREAT, K_MKDIR, K_MKDIR_ALL, K_SYMLINK, K_LINK_TO, K_RENAME_TO, K_WRITE_FILE,
		K_CHECK_CREATE,
	};
	static const char *const dirs[] = { ".git/hooks", "lgit/hooks" };
	static const enum kind dir_writes[] = { K_RMDIR, K_RENAME_FROM, K_CHMOD };

	tu_build(f->ws, base_tree);
	tu_build(f->ws, "d .git\nf .git/config [core]\nd .git/hooks\nl lgit .git\n"
		 "l lcfg .git/config\nh cfglink .git/config\n");
	root_with(f, "write .\nread .git\nread .git/config\n", 0);
	refuse_all(f, file_writes, N(file_writes), files, N(files), "workspace.read-only", EROFS);
	refuse_all(f, following, N(following), links, N(links), "workspace.read-only", EROFS);
	refuse_all(f, creates, N(creates), fresh, N(fresh), "workspace.read-only", EROFS);
	refuse_all(f, dir_writes, N(dir_writes), dirs, N(dirs), "workspace.read-only", EROFS);
	snap(f);
	EXPECT_REFUSAL(pg_open(f->root, ".git/config", O_RDWR, 0), "workspace.read-only", EROFS);
	EXPECT_REFUSAL(pg_open(f->root, ".git/config", O_RDONLY | O_TRUNC, 0),
		       "workspace.read-only", EROFS);
	EXPECT_REFUSAL(pg_rename(f->root, "a/b/f", ".git/config", RENAME_EXCHANGE),
		       "workspace.read-only", EROFS);
	EXPECT_REFUSAL(pg_rmdir(f->root, ".git"), "workspace.read-only", EROFS);
	EXPECT_REFUSAL(pg_check(f->root, ".git/config", PG_OP_WRITE, NULL),
		       "workspace.read-only", EROFS);
	EXPECT_REFUSAL(pg_check(f->root, ".git/config", PG_OP_DELETE, NULL),
		       "workspace.read-only", EROFS);
	unchanged(f, "writes under a read rule");
	/* A hard link to a file beneath the read-only directory (no rule
	 * names the file): found by searching the directory when written. */
	tu_build(f->ws, "f .git/HEAD ref\nh head-link .git/HEAD\n");
	snap(f);
	EXPECT_REFUSAL(pg_open(f->root, "head-link", O_WRONLY, 0), "workspace.read-only", EROFS);
	EXPECT_REFUSAL(pg_truncate(f->root, "head-link", 0), "workspace.read-only", EROFS);
	EXPECT_REFUSAL(pg_write_file(f->root, "head-link", "x", 1, 0600), "workspace.read-only", EROFS);
	unchanged(f, "writes through a link into a read-only directory");
	EXPECT_FD(pg_open(f->root, "head-link", O_RDONLY, 0));
	/* Reading works. */
	EXPECT_FD(pg_open(f->root, ".git/config", O_RDONLY, 0));
	EXPECT_FD(pg_open(f->root, "lcfg", O_RDONLY, 0));
	EXPECT_OK(pg_check(f->root, ".git/hooks", PG_OP_READ, NULL));
}

/* ----------------------------------------------------------------- pins */

static void test_pins(void **state)
{
	struct fx *f = *state;

	tu_build(f->ws, base_tree);
	tu_build(f->ws, "d p\nd p/q\nd c\nd e\nd free\n");
	root_with(f, "write .\ndeny p/q/secret\nread c/d\n", 0);
	snap(f);
	EXPECT_REFUSAL(pg_rename(f->root, "p", "z", 0), "workspace.pinned", EBUSY);
	EXPECT_REFUSAL(pg_rename(f->root, "p/q", "p/z", 0), "workspace.pinned", EBUSY);
	EXPECT_REFUSAL(pg_rename(f->root, "dot/p/q", "z", 0), "workspace.pinned", EBUSY);
	EXPECT_REFUSAL(pg_rmdir(f->root, "p/q"), "workspace.pinned", EBUSY);
	EXPECT_REFUSAL(pg_rmdir(f->root, "c"), "workspace.pinned", EBUSY);
	EXPECT_REFUSAL(pg_rename(f->root, "e", "c", 0), "workspace.pinned", EBUSY);
	EXPECT_REFUSAL(pg_rename(f->root, "e", "p/q", RENAME_EXCHANGE), "workspace.pinned", EBUSY);
	EXPECT_REFUSAL(pg_rename(f->root, "a", "c", RENAME_EXCHANGE), "workspace.pinned", EBUSY);
	EXPECT_REFUSAL(pg_check(f->root, "p/q", PG_OP_DELETE, NULL), "workspace.pinned", EBUSY);
	unchanged(f, "moving pinned directories");
	/* Work inside a pinned directory goes on. */
	EXPECT_OK(pg_mkdir(f->root, "p/q/work", 0755));
	EXPECT_OK(pg_rename(f->root, "p/q/work", "p/q/work2", 0));
	EXPECT_OK(pg_rmdir(f->root, "p/q/work2"));
	EXPECT_OK(pg_rename(f->root, "free", "free2", 0));
	EXPECT_OK(pg_rmdir(f->root, "free2"));
	/* A rename onto an empty pinned name with RENAME_NOREPLACE is a plain
	 * EEXIST: nothing would be replaced. */
	EXPECT_ERRNO(pg_rename(f->root, "e", "c", RENAME_NOREPLACE), EEXIST);
}

/* ------------------------------------------------------- atomic writes */

/* Give directory REL back the mtime it had in the last snapshot. */
static void touch_back(struct fx *f, const char *rel)
{
	struct stat st;
	struct timespec ts[2];

	assert_int_equal(stat(cat(f->ws, rel), &st), 0);
	ts[0] = st.st_atim;
	ts[1] = tu_snapshot_mtime(f->snap_ws, rel);
	assert_int_equal(utimensat(AT_FDCWD, cat(f->ws, rel), ts, 0), 0);
}

static void test_atomic_write(void **state)
{
	struct fx *f = *state;
	struct stat st;
	pg_atomic *w;
	char *s;

	for (int named = 0; named < 2; named++) {
		pg_atomic_force_named_temporaries(named);
		tu_rmtree(f->ws);
		mkdir(f->ws, 0755);
		tu_build(f->ws, base_tree);
		root_with(f, NULL, 0);
		EXPECT_OK(pg_write_file(f->root, "a/new", "hello", 5, 0640));
		s = tu_read(f->ws, "a/new");
		assert_string_equal(s, "hello");
		free(s);
		assert_int_equal(stat(cat(f->ws, "a/new"), &st), 0);
		assert_int_equal(st.st_mode & 0777, 0640 & ~0022 & 0777);
		/* An existing target keeps its mode. */
		chmod(cat(f->ws, "a/b/f"), 0604);
		EXPECT_OK(pg_write_file(f->root, "la/b/f", "replaced", 8, 0600));
		s = tu_read(f->ws, "a/b/f");
		assert_string_equal(s, "replaced");
		free(s);
		assert_int_equal(stat(cat(f->ws, "a/b/f"), &st), 0);
		assert_int_equal(st.st_mode & 07777, 0604);
		/* Through a symlink the target is replaced, not the link. */
		tu_build(f->ws, "l lf a/b/f\n");
		EXPECT_OK(pg_write_file(f->root, "lf", "via link", 8, 0600));
		assert_int_equal(lstat(cat(f->ws, "lf"), &st), 0);
		assert_true(S_ISLNK(st.st_mode));
		s = tu_read(f->ws, "a/b/f");
		assert_string_equal(s, "via link");
		free(s);
		EXPECT_ERRNO(pg_write_file(f->root, "a", "x", 1, 0600), EISDIR);

		/* The bound: refused before anything is written. */
		EXPECT_OK(pg_root_set_write_limit(f->root, 10));
		assert_int_equal(pg_root_write_limit(f->root), 10);
		snap(f);
		EXPECT_REFUSAL(pg_write_file(f->root, "a/b/f", "01234567890", 11, 0600),
			       "exhausted", EFBIG);
		EXPECT_REFUSAL(pg_write_file(f->root, "a/big", "01234567890", 11, 0600),
			       "exhausted", EFBIG);
		unchanged(f, "a write over the bound");
		EXPECT_OK(pg_write_file(f->root, "a/exact", "0123456789", 10, 0600));
		/* pg_truncate is bounded too: it may not grow a file past the
		 * bound (1 TiB under 10 bytes), but may shrink one or grow it
		 * within the bound. */
		snap(f);
		EXPECT_REFUSAL(pg_truncate(f->root, "a/exact", (off_t)1 << 40), "exhausted", EFBIG);
		EXPECT_REFUSAL(pg_truncate(f->root, "a/exact", 11), "exhausted", EFBIG);
		unchanged(f, "a truncation past the bound");
		EXPECT_OK(pg_truncate(f->root, "a/exact", 4));
		EXPECT_OK(pg_truncate(f->root, "a/exact", 10));
		assert_int_equal(stat(cat(f->ws, "a/exact"), &st), 0);
		assert_int_equal(st.st_size, 10);

		/* Streaming: the chunk that crosses the bound is refused, the
		 * commit too, and the target is untouched.  (A named temporary
		 * comes and goes: only the directory's mtime may change.) */
		snap(f);
		w = pg_write_begin(f->root, "a/b/f", 0600);
		assert_non_null(w);
		assert_int_equal(pg_write_chunk(w, "012345", 6), 6);
		EXPECT_REFUSAL(pg_write_chunk(w, "012345", 6), "exhausted", EFBIG);
		EXPECT_REFUSAL(pg_write_commit(w), "exhausted", EFBIG);
		if (named)
			touch_back(f, "a/b");
		unchanged(f, "a streaming write over the bound");
		/* Abort leaves the target untouched and no temporary. */
		w = pg_write_begin(f->root, "a/b/f", 0600);
		assert_non_null(w);
		assert_int_equal(pg_write_chunk(w, "0123", 4), 4);
		pg_write_abort(w);
		if (named)
			touch_back(f, "a/b");
		unchanged(f, "an aborted write");
		/* A streamed commit. */
		w = pg_write_begin(f->root, "a/streamed", 0600);
		assert_non_null(w);
		assert_int_equal(pg_write_chunk(w, "01234", 5), 5);
		assert_int_equal(pg_write_chunk(w, "56789", 5), 5);
		EXPECT_OK(pg_write_commit(w));
		s = tu_read(f->ws, "a/streamed");
		assert_string_equal(s, "0123456789");
		free(s);
		/* Leftover temporaries are found and cleared; others stay. */
		tu_build(f->ws, "f a/" PG_TMP_PREFIX "0123 partial\nf a/keep x\n");
		assert_int_equal(pg_clear_temporaries(f->root, "la"), 1);
		assert_false(tu_exists(f->ws, "a/" PG_TMP_PREFIX "0123"));
		assert_true(tu_exists(f->ws, "a/keep"));
		assert_int_equal(pg_clear_temporaries(f->root, "a"), 0);
	}
	pg_atomic_force_named_temporaries(false);
}

/* ------------------------------------------------------------ pg_check */

static void test_check_matches_operations(void **state)
{
	struct fx *f = *state;
	static const char *const paths[] = {
		"a/b/f", "la/b/f", "a/missing", ".env", "toenv", "hl", "secretdir", "ls/f",
		".git/config", "dl/x", "/abs", "a/../..", "", ".", "p/q", "lnk", "t.txt",
	};
	static const struct { enum pg_op op; enum kind kind; } pairs[] = {
		{ PG_OP_READ, K_OPEN_R }, { PG_OP_CREATE, K_CREAT },
		{ PG_OP_WRITE, K_OPEN_W }, { PG_OP_DELETE, K_UNLINK },
	};

	tu_build(f->ws, base_tree);
	tu_build(f->ws, deny_tree);
	tu_build(f->ws, "d .git\nf .git/config x\nl dl missing\nd p\nd p/q\n");
	root_with(f, "write .\ndeny .env\ndeny secretdir\ndeny lnk\nread .git\n"
		  "deny p/q/r\n", 0);
	for (size_t i = 0; i < N(pairs); i++) {
		for (size_t j = 0; j < N(paths); j++) {
			struct pg_verdict v;
			const char *want;
			int rc, err, want_err;

			/* Refusals must agree; an unlink may fail where a check
			 * of a directory's delete passes (EISDIR), so compare
			 * refusals only. */
			rc = pg_check(f->root, paths[j], pairs[i].op, &v);
			err = errno;
			if (pairs[i].kind == K_UNLINK)
				continue;
			snap(f);
			const char *got = rc < 0 ? pg_last_refusal()->name : NULL;
			char *gotc = got ? strdup(got) : NULL;

			run(f->root, pairs[i].kind, paths[j]);
			want_err = errno;
			want = pg_last_refusal()->name;
			if ((want == NULL) != (gotc == NULL) || (want && strcmp(want, gotc)))
				fail_msg("check %d '%s': %s, the operation: %s", pairs[i].op,
					 paths[j], gotc ? gotc : "allowed", want ? want : "not refused");
			if (want)
				assert_int_equal(err, want_err);
			free(gotc);
			if (rc == 0)
				assert_int_equal(v.allowed, 1);
			/* An allowed create made something: put the tree back. */
			if (pairs[i].kind == K_CREAT) {
				struct tu_snapshot *now = tu_snapshot(f->ws);
				char *d = tu_snapshot_diff(f->snap_ws, now);

				if (d)
					pg_unlink(f->root, paths[j]);
				free(d);
				tu_snapshot_free(now);
			}
		}
	}
	/* The deciding rule is named, allowed or not. */
	struct pg_verdict v;

	EXPECT_OK(pg_check(f->root, "a/b/f", PG_OP_READ, &v));
	assert_string_equal(v.rule, "write . (<string>:1)");
	EXPECT_REFUSAL(pg_check(f->root, ".git/config", PG_OP_CREATE, &v),
		       "workspace.read-only", EROFS);
	assert_string_equal(v.name, "workspace.read-only");
	assert_int_equal(v.err, EROFS);
	assert_string_equal(v.rule, "read .git (<string>:5)");
	EXPECT_ERRNO(pg_check(f->root, "a", 42, &v), EINVAL);
}

static void test_check_finish_matches_check(void **state)
{
	struct fx *f = *state;
	static const char *const paths[] = { "a/b/f", "la/b/f", ".env", "a/nope", "toenv", "/x" };

	tu_build(f->ws, base_tree);
	tu_build(f->ws, deny_tree);
	root_with(f, deny_policy, 0);
	for (int op = 0; op < 4; op++) {
		for (size_t i = 0; i < N(paths); i++) {
			struct pg_verdict a, b;
			struct open_how how;
			int res, ra, rb;

			ra = pg_check(f->root, paths[i], (enum pg_op)op, &a);
			if (!pg_check_fast_how(f->root, (enum pg_op)op, &how)) {
				assert_false(pg_root_uses_openat2(f->root));
				res = -ENOSYS;
			} else {
				res = pg_openat2(f->root->fd, paths[i], (int)how.flags, 0, how.resolve);
				if (res < 0)
					res = -errno;
			}
			rb = pg_check_finish(f->root, paths[i], (enum pg_op)op, res, &b);
			assert_int_equal(ra, rb);
			assert_int_equal(a.allowed, b.allowed);
			assert_int_equal(a.err, b.err);
			assert_true(a.name == b.name || (a.name && b.name && !strcmp(a.name, b.name)));
			assert_string_equal(a.rule, b.rule);
		}
	}
}

/* ---------------------------------------------------- the landing check */

static void test_landing_check_undoes(void **state)
{
	struct fx *f = *state;
	struct pg_path lex;
	struct pg_res res;

	tu_build(f->ws, base_tree);
	tu_build(f->ws, "d d\nd e\n");
	root_with(f, "write .\ndeny .env\n", 0);
	pthread_rwlock_rdlock(&f->root->lock);

	/* The parent is renamed onto the absent denied name between the
	 * resolution and the creation: what was made is removed. */
	assert_int_equal(pg_path_normalise("d/x", false, &lex), 0);
	assert_int_equal(pg_resolve_locked(f->root, "d/x", &lex, PG_OP_CREATE, 0, &res), 0);
	assert_int_equal(rename(cat(f->ws, "d"), cat(f->ws, ".env")), 0);
	assert_int_equal(mkdirat(res.dirfd, pg_res_name(&res), 0755), 0);
	expect_refusal_(pg_verify_landing_locked(f->root, &res, true, "d/x"),
			"workspace.denied", EACCES, "landing in .env");
	assert_false(tu_exists(f->ws, ".env/x"));
	pg_res_release(&res);

	/* Moved out of the root: removed too. */
	assert_int_equal(pg_path_normalise("e/y", false, &lex), 0);
	assert_int_equal(pg_resolve_locked(f->root, "e/y", &lex, PG_OP_CREATE, 0, &res), 0);
	assert_int_equal(rename(cat(f->ws, "e"), cat(f->out, "e")), 0);
	assert_int_equal(mkdirat(res.dirfd, pg_res_name(&res), 0755), 0);
	expect_refusal_(pg_verify_landing_locked(f->root, &res, true, "e/y"),
			"workspace.path-escape", EACCES, "landing outside");
	assert_false(tu_exists(f->out, "e/y"));
	pg_res_release(&res);

	/* Moved to another allowed name: kept. */
	assert_int_equal(rename(cat(f->ws, ".env"), cat(f->ws, "g")), 0);
	assert_int_equal(pg_path_normalise("g/z", false, &lex), 0);
	assert_int_equal(pg_resolve_locked(f->root, "g/z", &lex, PG_OP_CREATE, 0, &res), 0);
	assert_int_equal(rename(cat(f->ws, "g"), cat(f->ws, "h")), 0);
	assert_int_equal(mkdirat(res.dirfd, pg_res_name(&res), 0755), 0);
	assert_int_equal(pg_verify_landing_locked(f->root, &res, true, "g/z"), 0);
	assert_true(tu_exists(f->ws, "h/z"));
	pg_res_release(&res);
	pthread_rwlock_unlock(&f->root->lock);
}

/* ----------------------------------------------------------- threads */

struct worker {
	pg_root *root;
	int      id;
	int      failures;
	char     why[256];
};

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	char dir[32], path[64], buf[64];

	snprintf(dir, sizeof(dir), "t%d", w->id);
	if (pg_mkdir(w->root, dir, 0755) < 0) {
		snprintf(w->why, sizeof(w->why), "mkdir %s: %s", dir, strerror(errno));
		w->failures++;
		return NULL;
	}
	for (int i = 0; i < 300 && !w->failures; i++) {
		int len = snprintf(buf, sizeof(buf), "thread %d round %d", w->id, i);
		struct stat st;
		int fd;

		snprintf(path, sizeof(path), "%s/f%d", dir, i % 7);
		if (pg_write_file(w->root, path, buf, (size_t)len, 0600) < 0 ||
		    pg_stat(w->root, path, &st, 0) < 0 || st.st_size != len) {
			snprintf(w->why, sizeof(w->why), "write/stat %s: %s", path, strerror(errno));
			w->failures++;
			break;
		}
		fd = pg_open(w->root, path, O_RDONLY, 0);
		if (fd < 0 || read(fd, buf, sizeof(buf)) != len) {
			snprintf(w->why, sizeof(w->why), "read %s", path);
			w->failures++;
		}
		if (fd >= 0)
			close(fd);
		/* Refusals are recorded per thread. */
		if (pg_open(w->root, "la/../.env", O_RDONLY, 0) != -1 ||
		    !pg_last_refusal()->name ||
		    strcmp(pg_last_refusal()->name, "workspace.denied") != 0) {
			snprintf(w->why, sizeof(w->why), "deny not held");
			w->failures++;
		}
		fd = pg_open(w->root, path, O_RDONLY | O_PATH, 0);
		if (fd < 0 || pg_last_refusal()->name) {
			snprintf(w->why, sizeof(w->why), "refusal record leaked across calls");
			w->failures++;
		}
		if (fd >= 0)
			close(fd);
	}
	return NULL;
}

static void *refresher_main(void *arg)
{
	pg_root *root = arg;

	for (int i = 0; i < 100; i++)
		pg_root_refresh(root);
	return NULL;
}

static void test_threads_share_a_root(void **state)
{
	struct fx *f = *state;
	struct worker w[4];
	pthread_t t[4], refresher;

	tu_build(f->ws, base_tree);
	tu_build(f->ws, "f .env SECRET\n");
	root_with(f, "write .\ndeny .env\n", 0);
	for (int i = 0; i < 4; i++) {
		w[i] = (struct worker){ .root = f->root, .id = i };
		assert_int_equal(pthread_create(&t[i], NULL, worker_main, &w[i]), 0);
	}
	assert_int_equal(pthread_create(&refresher, NULL, refresher_main, f->root), 0);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	pthread_join(refresher, NULL);
	for (int i = 0; i < 4; i++)
		if (w[i].failures)
			fail_msg("thread %d: %s", i, w[i].why);
}

/* The one mapping of open flags to an operation, which pg_open and the
 * preload share. */
static void test_op_for_open_flags(void **state)
{
	(void)state;
	assert_int_equal(pg_op_for_open_flags(O_RDONLY), PG_OP_READ);
	assert_int_equal(pg_op_for_open_flags(O_RDONLY | O_DIRECTORY | O_NOFOLLOW), PG_OP_READ);
	assert_int_equal(pg_op_for_open_flags(O_WRONLY), PG_OP_WRITE);
	assert_int_equal(pg_op_for_open_flags(O_RDWR | O_APPEND), PG_OP_WRITE);
	assert_int_equal(pg_op_for_open_flags(O_RDONLY | O_TRUNC), PG_OP_WRITE);
	assert_int_equal(pg_op_for_open_flags(O_TMPFILE | O_RDWR), PG_OP_WRITE);
	assert_int_equal(pg_op_for_open_flags(O_TMPFILE | O_RDONLY), PG_OP_WRITE);
	assert_int_equal(pg_op_for_open_flags(O_WRONLY | O_CREAT | O_TRUNC), PG_OP_CREATE);
	assert_int_equal(pg_op_for_open_flags(O_RDONLY | O_CREAT), PG_OP_CREATE);
}

/* Issue 11.8: the two resolvers give one answer for every combination of
 * open flags, not only for the paths the catalogue names.  Each
 * combination runs on a tree of its own per resolver (creations must not
 * meet), on an absent name, a file, a directory, a symlink to each and a
 * dangling symlink. */
static const int flag_bits[] = {
	O_CREAT, O_EXCL, O_TRUNC, O_DIRECTORY, O_NOFOLLOW, O_PATH, O_APPEND, O_NOCTTY,
};
static const char *const flag_targets[] = { "absent", "f", "d", "lf", "ld", "dl", "f/x" };

static int open_on(const char *ws, unsigned root_flags, const char *name, int flags,
		   int *err, const char **refusal)
{
	pg_root *r = pg_root_open(ws, NULL, root_flags);
	int fd;

	assert_non_null(r);
	errno = 0;
	fd = pg_open(r, name, flags | O_CLOEXEC, 0600);
	*err = fd < 0 ? errno : 0;
	*refusal = fd < 0 ? pg_last_refusal()->name : NULL;
	if (fd >= 0)
		close(fd);
	pg_root_close(r);
	return fd >= 0;
}

static void test_resolvers_agree_on_every_flag_combination(void **state)
{
	struct fx *f = *state;
	unsigned splits = 0, tried = 0;
	const unsigned nbits = sizeof(flag_bits) / sizeof(flag_bits[0]);

	if (!g_host_openat2)
		skip();
	for (unsigned acc = 0; acc < 3; acc++)
	for (unsigned m = 0; m < (1u << nbits); m++)
	for (size_t t = 0; t < sizeof(flag_targets) / sizeof(flag_targets[0]); t++) {
		int flags = (int)acc, ea, eb, oka, okb;
		const char *ra, *rb;
		char a[64], b[64], spec[160];

		for (unsigned i = 0; i < nbits; i++)
			if (m & (1u << i))
				flags |= flag_bits[i];
		snprintf(a, sizeof(a), "c%u-%u-%zu-a", acc, m, t);
		snprintf(b, sizeof(b), "c%u-%u-%zu-b", acc, m, t);
		snprintf(spec, sizeof(spec), "d %s\nd %s\n", a, b);
		tu_build(f->ws, spec);
		tu_build(cat(f->ws, a), "f f F\nd d\nl lf f\nl ld d\nl dl nothere\n");
		tu_build(cat(f->ws, b), "f f F\nd d\nl lf f\nl ld d\nl dl nothere\n");
		oka = open_on(cat(f->ws, a), 0, flag_targets[t], flags, &ea, &ra);
		okb = open_on(cat(f->ws, b), PG_ROOT_NO_OPENAT2, flag_targets[t], flags, &eb, &rb);
		tried++;
		if (oka != okb || ea != eb || (ra != rb && (!ra || !rb || strcmp(ra, rb)))) {
			if (splits++ < 20)
				print_message("split: flags 0%o on %s: openat2 %s (%s), walk %s (%s)\n",
					      (unsigned)flags, flag_targets[t],
					      oka ? "ok" : strerror(ea), ra ? ra : "-",
					      okb ? "ok" : strerror(eb), rb ? rb : "-");
		}
	}
	print_message("%u flag combinations on %zu targets, %u splits\n", tried / 7,
		      sizeof(flag_targets) / sizeof(flag_targets[0]), splits);
	assert_int_equal(splits, 0);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_op_for_open_flags),
	T(test_allowed_operations),
	T(test_plain_errors_pass_through),
	T(test_bad_paths),
	T(test_escapes),
	T(test_mount_crossing),
	T(test_proc_magic_links),
	T(test_deny_every_spelling),
	T(test_hard_links_judged_by_identity),
	T(test_planted_symlink_only_widens),
	T(test_absent_name_never_created),
	T(test_exchange_and_rename_into_denied),
	T(test_dangling_links),
	T(test_read_only_region),
	T(test_pins),
	T(test_atomic_write),
	T(test_check_matches_operations),
	T(test_check_finish_matches_check),
	T(test_landing_check_undoes),
	T(test_threads_share_a_root),
	T(test_resolvers_agree_on_every_flag_combination),
};

int main(void)
{
	int failed;

	umask(022);
	{
		int fd = pg_openat2(AT_FDCWD, ".", O_PATH | O_CLOEXEC, 0, RESOLVE_BENEATH);

		g_host_openat2 = fd >= 0;
		if (fd >= 0)
			close(fd);
		else
			print_message("no openat2 here (%s): both groups run the walk\n",
				      strerror(errno));
	}
	g_flags = 0;
	failed = cmocka_run_group_tests_name("ops (openat2)", tests, NULL, NULL);
	g_flags = PG_ROOT_NO_OPENAT2;
	failed += cmocka_run_group_tests_name("ops (fallback walk)", tests, NULL, NULL);
	return failed ? 1 : 0;
}
