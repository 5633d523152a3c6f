/* ops.c - guarded operations against the bare syscalls they wrap:
 * pg_open at depth 4 and 16 with and without a symlink in the path, at
 * depth 16 under 100 000 rules with globs and through the fallback walk
 * (PG_ROOT_NO_OPENAT2), pg_stat, pg_mkdir + pg_rmdir, pg_rename; the
 * floor of each that misses its target (the same syscalls, bare); and
 * the allocations per operation on the fast path of pg_open and pg_stat. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "bench.h"

#define RESOLVE_GUARD (RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS | RESOLVE_NO_XDEV)

/* A realistic small policy: the workspace writable, a few denies. */
static const char bench_policy_text[] =
	"write .\n"
	"read .git\n"
	"deny .env\n"
	"deny **/*.pem\n"
	"deny! secrets\n";

struct op_ctx {
	pg_root    *root;
	int         rootfd;   /* O_PATH directory, for the bare side */
	const char *path;
	const char *path2;
	int         state;    /* rename: which name holds the file */
};

static int bare_openat2(int dirfd, const char *path, int flags, __u64 resolve)
{
	struct open_how how = { .flags = (__u64)flags, .resolve = resolve };

	return (int)syscall(SYS_openat2, dirfd, path, &how, sizeof how);
}

static int run_pg_open(void *p, size_t n)
{
	struct op_ctx *c = p;

	for (size_t i = 0; i < n; i++) {
		int fd = pg_open(c->root, c->path, O_RDONLY | O_CLOEXEC, 0);

		if (fd < 0)
			return -1;
		close(fd);
	}
	return 0;
}

static int run_openat2(void *p, size_t n)
{
	struct op_ctx *c = p;

	for (size_t i = 0; i < n; i++) {
		int fd = bare_openat2(c->rootfd, c->path, O_RDONLY | O_CLOEXEC, RESOLVE_GUARD);

		if (fd < 0)
			return -1;
		close(fd);
	}
	return 0;
}

static int run_openat(void *p, size_t n)
{
	struct op_ctx *c = p;

	for (size_t i = 0; i < n; i++) {
		int fd = openat(c->rootfd, c->path, O_RDONLY | O_CLOEXEC);

		if (fd < 0)
			return -1;
		close(fd);
	}
	return 0;
}

static int run_pg_stat(void *p, size_t n)
{
	struct op_ctx *c = p;
	struct stat st;

	for (size_t i = 0; i < n; i++)
		if (pg_stat(c->root, c->path, &st, 0) < 0)
			return -1;
	return 0;
}

static int run_fstatat(void *p, size_t n)
{
	struct op_ctx *c = p;
	struct stat st;

	for (size_t i = 0; i < n; i++)
		if (fstatat(c->rootfd, c->path, &st, 0) < 0)
			return -1;
	return 0;
}

/* The floor of a stat that cannot be redirected: resolve beneath, then
 * fstat the held object. */
static int run_openat2_fstat(void *p, size_t n)
{
	struct op_ctx *c = p;
	struct stat st;

	for (size_t i = 0; i < n; i++) {
		int fd = bare_openat2(c->rootfd, c->path, O_PATH | O_CLOEXEC, RESOLVE_GUARD);

		if (fd < 0)
			return -1;
		if (fstat(fd, &st) < 0) {
			close(fd);
			return -1;
		}
		close(fd);
	}
	return 0;
}

static int run_pg_mkdir_rmdir(void *p, size_t n)
{
	struct op_ctx *c = p;

	for (size_t i = 0; i < n; i++)
		if (pg_mkdir(c->root, c->path, 0755) < 0 || pg_rmdir(c->root, c->path) < 0)
			return -1;
	return 0;
}

static int run_mkdirat_unlinkat(void *p, size_t n)
{
	struct op_ctx *c = p;

	for (size_t i = 0; i < n; i++)
		if (mkdirat(c->rootfd, c->path, 0755) < 0 ||
		    unlinkat(c->rootfd, c->path, AT_REMOVEDIR) < 0)
			return -1;
	return 0;
}

static int run_pg_rename(void *p, size_t n)
{
	struct op_ctx *c = p;

	for (size_t i = 0; i < n; i++) {
		const char *from = c->state ? c->path2 : c->path;
		const char *to = c->state ? c->path : c->path2;

		if (pg_rename(c->root, from, to, 0) < 0)
			return -1;
		c->state ^= 1;
	}
	return 0;
}

static int run_renameat(void *p, size_t n)
{
	struct op_ctx *c = p;

	for (size_t i = 0; i < n; i++) {
		const char *from = c->state ? c->path2 : c->path;
		const char *to = c->state ? c->path : c->path2;

		if (renameat(c->rootfd, from, c->rootfd, to) < 0)
			return -1;
		c->state ^= 1;
	}
	return 0;
}

/* The floor of a rename beneath the root without re-walking a string:
 * the syscalls pg_rename makes for two names in one directory, bare.
 * Hold the parent (openat2 beneath, no symlinks), look at both names,
 * rename, then check that the parent is still where it was judged (its
 * identity, and the name looked up again beneath the root). */
static int run_rename_floor(void *p, size_t n)
{
	struct op_ctx *c = p;
	const char *pslash = strrchr(c->path, '/');
	char parent[64], grand[64];
	size_t plen = (size_t)(pslash - c->path);
	const char *gslash;

	memcpy(parent, c->path, plen);
	parent[plen] = '\0';
	gslash = strrchr(parent, '/');
	memcpy(grand, parent, (size_t)(gslash - parent));
	grand[gslash - parent] = '\0';
	for (size_t i = 0; i < n; i++) {
		const char *from = (c->state ? c->path2 : c->path) + plen + 1;
		const char *to = (c->state ? c->path : c->path2) + plen + 1;
		struct statx sx;
		int dfd = bare_openat2(c->rootfd, parent, O_PATH | O_DIRECTORY | O_CLOEXEC,
				       RESOLVE_GUARD | RESOLVE_NO_SYMLINKS), gfd;

		if (dfd < 0)
			return -1;
		statx(dfd, from, AT_SYMLINK_NOFOLLOW, STATX_BASIC_STATS, &sx);
		statx(dfd, to, AT_SYMLINK_NOFOLLOW, STATX_BASIC_STATS, &sx);
		if (renameat(dfd, from, dfd, to) < 0) {
			close(dfd);
			return -1;
		}
		statx(dfd, "", AT_EMPTY_PATH, STATX_INO, &sx);
		gfd = bare_openat2(c->rootfd, grand, O_PATH | O_DIRECTORY | O_CLOEXEC,
				   RESOLVE_GUARD | RESOLVE_NO_SYMLINKS);
		if (gfd >= 0) {
			statx(gfd, gslash + 1, AT_SYMLINK_NOFOLLOW, STATX_BASIC_STATS, &sx);
			close(gfd);
		}
		close(dfd);
		c->state ^= 1;
	}
	return 0;
}

/* The floor of any component walk without openat2: one
 * openat(O_PATH|O_DIRECTORY|O_NOFOLLOW) per directory, each held, the
 * file opened under the last, everything closed. */
static int run_openat_per_component(void *p, size_t n)
{
	struct op_ctx *c = p;

	for (size_t i = 0; i < n; i++) {
		int held[64], depth = 0, fd = -1;
		const char *s = c->path;

		held[depth++] = c->rootfd;
		for (;;) {
			const char *slash = strchr(s, '/');
			char comp[64];
			size_t len = slash ? (size_t)(slash - s) : strlen(s);

			memcpy(comp, s, len);
			comp[len] = '\0';
			if (!slash) {
				fd = openat(held[depth - 1], comp, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
				break;
			}
			held[depth] = openat(held[depth - 1], comp,
					     O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (held[depth] < 0 || depth == 63)
				break;
			depth++;
			s = slash + 1;
		}
		while (depth > 1)
			close(held[--depth]);
		if (fd < 0)
			return -1;
		close(fd);
	}
	return 0;
}

/* depth 4: a1/a2/a3/file; depth 16: b1/.../b15/file.  The symlinked
 * spellings go through a sibling link to the middle directory. */
static const char *const tree[] = {
	"a1/a2/a3/file",
	"b1/b2/b3/b4/b5/b6/b7/b8/b9/b10/b11/b12/b13/b14/b15/file",
	"m/m2/m3/r1",
	NULL
};

static int make_tree(int dirfd)
{
	for (size_t i = 0; tree[i]; i++)
		if (bench_make_path(dirfd, tree[i], true) < 0)
			return -1;
	if (symlinkat("a2", dirfd, "a1/l2") < 0 ||
	    symlinkat("b8", dirfd, "b1/b2/b3/b4/b5/b6/b7/l8") < 0)
		return -1;
	return 0;
}

struct name_ctx {
	pg_policy  *policy;
	const char *path;
	size_t      len;
	unsigned    sink;
};

static int run_judge_name(void *p, size_t n)
{
	struct name_ctx *c = p;
	struct pg_judgement j;

	for (size_t i = 0; i < n; i++)
		c->sink += (unsigned)pg_policy_judge(c->policy, c->path, c->len, &j);
	return 0;
}

/* Where pg_open's time over openat2 goes: the judgement of the same name
 * under the same policy, timed alone. */
static void judge_share_row(const char *label, const char *path, const struct bench_side *open,
			    const struct bench_side *bare)
{
	struct name_ctx c = { .path = path, .len = strlen(path) };
	struct bench_side s = { .label = "judge", .fn = run_judge_name, .ctx = &c };
	char what[96];

	if (!pg_policy_judge || open->err || bare->err)
		return;
	c.policy = pg_policy_new();
	if (!c.policy || pg_policy_parse(c.policy, bench_policy_text, strlen(bench_policy_text)) < 0) {
		pg_policy_free(c.policy);
		return;
	}
	bench_run(&s, 1, bench_iters(100000), bench_reps());
	snprintf(what, sizeof what, "  %s: pg_open - openat2, of which judging", label);
	if (!s.err)
		printf("%-52s %11.0f %11.0f ns (%.0f%%)\n", what, open->median - bare->median,
		       s.median, 100 * s.median / (open->median - bare->median));
	pg_policy_free(c.policy);
}

/* SYMLINKED: the path goes through a symlink (no target: the walk). */
static void open_rows(struct op_ctx *c, const char *label, const char *path, bool symlinked)
{
	char what[96];
	struct bench_side s[3] = {
		{ .label = "pg_open", .fn = run_pg_open, .ctx = c },
		{ .label = "openat2", .fn = run_openat2, .ctx = c },
		{ .label = "openat", .fn = run_openat, .ctx = c },
	};

	c->path = path;
	bench_run(s, 3, bench_iters(20000), bench_reps());
	snprintf(what, sizeof what, "open+close %s: pg_open / openat2", label);
	bench_row_ratio(what, &s[0], &s[1], symlinked ? 0 : 1.2);
	snprintf(what, sizeof what, "open+close %s: pg_open / openat", label);
	bench_row_ratio(what, &s[0], &s[2], 0);
	if (!symlinked)
		judge_share_row(label, path, &s[0], &s[1]);
}

static void alloc_row(const char *what, bench_fn fn, void *ctx)
{
	double per_op;

	if (!bench_alloc_available()) {
		bench_row_unavailable(what, "no malloc interposer in a sanitizer build");
		return;
	}
	per_op = bench_allocs_per_op(fn, ctx, bench_iters(10000));
	if (per_op < 0)
		bench_row_unavailable(what, strerror(errno));
	else
		bench_row_value(what, per_op, BENCH_COUNT, 0);
}

/* Rule I of the big policy: plain names and globs in many directories,
 * and globs under one '**' (none of them matches the bench's tree). */
static int add_big_rule(pg_policy *p, size_t i)
{
	char path[128];
	enum pg_access a = PG_DENY;

	switch (i % 4) {
	case 0:  snprintf(path, sizeof path, "dir%zu/sub%zu/secret", i % 1000, i); break;
	case 1:  a = PG_READ; snprintf(path, sizeof path, "dir%zu/ro%zu", i % 1000, i); break;
	case 2:  snprintf(path, sizeof path, "dir%zu/*.key%zu", i % 1000, i); break;
	default: snprintf(path, sizeof path, "**/tok%zu.pem", i); break;
	}
	return pg_policy_add(p, a, path);
}

/* The bench's policy and, with EXTRA, EXTRA more rules (add_big_rule). */
static pg_root *open_bench_root(const char *dir, size_t extra, unsigned flags)
{
	pg_policy *pol = pg_policy_new();
	pg_root *root = NULL;

	if (!pol)
		return NULL;
	if (pg_policy_parse(pol, bench_policy_text, strlen(bench_policy_text)) == 0) {
		size_t i;

		for (i = 0; i < extra && add_big_rule(pol, i) == 0; i++)
			;
		if (i == extra)
			root = pg_root_open(dir, pol, flags);
	}
	pg_policy_free(pol);
	return root;
}

/* pg_open at depth 16 on another root (100 000 rules, or the fallback
 * walk) beside openat2 and, for the walk, its floor, interleaved. */
static void other_root_row(struct op_ctx *c, const char *dir, const char *what,
			   size_t extra, unsigned flags, double target)
{
	struct op_ctx o = *c;
	struct bench_side s[3] = {
		{ .label = "pg_open", .fn = run_pg_open, .ctx = &o },
		{ .label = "openat2", .fn = run_openat2, .ctx = &o },
		{ .label = "openat per component", .fn = run_openat_per_component, .ctx = &o },
	};
	size_t nsides = flags & PG_ROOT_NO_OPENAT2 ? 3 : 2;

	o.root = open_bench_root(dir, extra, flags);
	if (!o.root) {
		bench_row_unavailable(what, "pg_root_open failed");
		return;
	}
	if (pg_root_uses_openat2 && pg_root_uses_openat2(o.root) != !(flags & PG_ROOT_NO_OPENAT2)) {
		bench_row_unavailable(what, "the root does not resolve the way the row says");
		pg_root_close(o.root);
		return;
	}
	o.path = tree[1];
	bench_run(s, nsides, bench_iters(20000), bench_reps());
	bench_row_ratio(what, &s[0], &s[1], target);
	if (nsides == 3) {
		bench_row_ratio("  floor: openat+close per component / openat2", &s[2], &s[1], 0);
		bench_row_ratio("  fallback walk / its floor", &s[0], &s[2], 0);
	}
	pg_root_close(o.root);
}

void bench_ops(void)
{
	struct op_ctx c = { .rootfd = -1 };
	char *dir = bench_mkdtemp("ops", false);
	int dirfd = -1;

	bench_section("operations: guarded vs bare (thread CPU time per operation, median)");
	bench_use_clock(BENCH_THREAD_CPU);
	if (!dir || (dirfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0 ||
	    make_tree(dirfd) < 0) {
		bench_row_unavailable("operations", strerror(errno));
		goto out;
	}
	if (!pg_root_open || !pg_open || !pg_policy_parse) {
		bench_row_unavailable("operations", "pg_root_open / pg_open not built yet");
		goto out;
	}
	c.root = open_bench_root(dir, 0, 0);
	c.rootfd = dirfd;
	if (!c.root) {
		bench_row_unavailable("operations", "pg_root_open failed");
		goto out;
	}
	if (pg_root_uses_openat2 && !pg_root_uses_openat2(c.root))
		printf("note: this root resolves with the fallback walk, not openat2\n");

	open_rows(&c, "depth 4", tree[0], false);
	open_rows(&c, "depth 16", tree[1], false);
	other_root_row(&c, dir, "open+close depth 16, 100000 rules with globs: pg_open / openat2",
		       100000, 0, 1.2);
	other_root_row(&c, dir, "open+close depth 16, fallback walk: pg_open / openat2",
		       0, PG_ROOT_NO_OPENAT2, 5);
	open_rows(&c, "depth 4, 1 symlink", "a1/l2/a3/file", true);
	open_rows(&c, "depth 16, 1 symlink",
		  "b1/b2/b3/b4/b5/b6/b7/l8/b9/b10/b11/b12/b13/b14/b15/file", true);

	c.path = tree[0];
	if (pg_stat) {
		struct bench_side s[3] = {
			{ .label = "pg_stat", .fn = run_pg_stat, .ctx = &c },
			{ .label = "fstatat", .fn = run_fstatat, .ctx = &c },
			{ .label = "openat2+fstat", .fn = run_openat2_fstat, .ctx = &c },
		};

		bench_run(s, 3, bench_iters(20000), bench_reps());
		bench_row_ratio("stat depth 4: pg_stat / fstatat", &s[0], &s[1], 1.5);
		bench_row_ratio("stat depth 4: pg_stat / openat2(O_PATH)+fstat", &s[0], &s[2], 0);
		bench_row_ratio("  floor: openat2(O_PATH)+fstat / fstatat", &s[2], &s[1], 0);
	} else {
		bench_row_unavailable("stat depth 4: pg_stat / fstatat", "pg_stat not built yet");
	}

	c.path = "m/m2/m3/newdir";
	if (pg_mkdir && pg_rmdir) {
		struct bench_side s[2] = {
			{ .label = "pg_mkdir+pg_rmdir", .fn = run_pg_mkdir_rmdir, .ctx = &c },
			{ .label = "mkdirat+unlinkat", .fn = run_mkdirat_unlinkat, .ctx = &c },
		};

		bench_run(s, 2, bench_iters(5000), bench_reps());
		bench_row_ratio("mkdir+rmdir depth 4: pg_ / mkdirat+unlinkat", &s[0], &s[1], 0);
	} else {
		bench_row_unavailable("mkdir+rmdir depth 4", "pg_mkdir not built yet");
	}

	c.path = "m/m2/m3/r1";
	c.path2 = "m/m2/m3/r2";
	c.state = 0;
	if (pg_rename) {
		struct bench_side s[3] = {
			{ .label = "pg_rename", .fn = run_pg_rename, .ctx = &c },
			{ .label = "renameat", .fn = run_renameat, .ctx = &c },
			{ .label = "its syscalls", .fn = run_rename_floor, .ctx = &c },
		};

		bench_run(s, 3, bench_iters(10000), bench_reps());
		bench_row_ratio("rename depth 4: pg_rename / renameat", &s[0], &s[1], 2);
		bench_row_ratio("  floor: pg_rename's 9 syscalls, bare / renameat", &s[2], &s[1], 0);
	} else {
		bench_row_unavailable("rename depth 4", "pg_rename not built yet");
	}

	c.path = tree[0];
	alloc_row("heap allocations per pg_open (depth 4)", run_pg_open, &c);
	if (pg_stat)
		alloc_row("heap allocations per pg_stat (depth 4)", run_pg_stat, &c);
	else
		bench_row_unavailable("heap allocations per pg_stat", "pg_stat not built yet");

	pg_root_close(c.root);
out:
	bench_use_clock(BENCH_WALL);
	if (dirfd >= 0)
		close(dirfd);
	bench_rmtree(dir);
	free(dir);
}
