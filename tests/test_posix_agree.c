/* test_posix_agree.c - libpathgate against the kernel itself (issue 11.11:
 * "give the kernel's answer wherever no policy or escape question is
 * involved").  Under a policy that refuses nothing ("write ."), every
 * (tree, op, spelling) below is run twice on two fresh copies of the same
 * tree: through the library in copy A, through the raw system call in
 * copy B (openat2 with RESOLVE_BENEATH|RESOLVE_NO_MAGICLINKS for opens,
 * the plain *at call relative to an O_PATH descriptor of B for the rest).
 * Both must succeed or fail alike, with the same errno, leave the same
 * tree behind (names, types, modes, sizes, link counts, link targets,
 * contents) and return the same thing (an opened object's type and size,
 * a stat's type/mode/size, a link's text).  Both resolvers are run.
 *
 * The trees are built so that the kernel's calls never leave B: every
 * symlink target is relative and stays inside (tree_is_closed), and
 * before each case the spelling and its parent are resolved in B with
 * RESOLVE_BENEATH (spelling_is_closed); a case that would leave B fails
 * the test as a bug of the table.  The differences pathgate documents on
 * purpose are listed in `deliberate' with the pages that state them: a
 * disagreement is deliberate only when the library refused with that
 * code.  Differences found and not yet fixed are listed in `known', each
 * with both exact answers; any other disagreement fails the test and is
 * printed with the tree, call, spelling and both results. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cmocka.h>

#include "pathgate.h"
#include "testutil.h"

/* ------------------------------------------------------------- the table */

struct tree {
	const char *name;
	const char *spec;          /* tu_build's format */
	const char *const *spellings;
};

/* Files, directories, and symlinks of every kind: relative, to a
 * directory, to a file, a chain, dangling, a loop, targets ending in '/',
 * '..' that stays inside. */
static const char plain_spec[] =
	"f file F\n"
	"d a\n"
	"d a/b\n"
	"f a/b/f FB\n"
	"d empty\n"
	"d full\n"
	"f full/x X\n"
	"l lrel a/b\n"
	"l lfile file\n"
	"l lchain lrel\n"
	"l ldang nothere\n"
	"l ldangdir nodir/x\n"
	"l lloop lloop\n"
	"l lslash a/\n"
	"l lfslash file/\n"
	"l lup a/../file\n"
	"l a/b/up ../..\n"
	"l lempty empty\n";

static const char *const plain_spellings[] = {
	"file", "./file", "file/", "file/.", "file/x", "a/b/f", "a/./b/f", "a//b/f",
	"a/b/f/", "a/b/", "a/b/.", "a/b", "a/../file", "a/b/../../file", "a/b/../f2",
	"empty", "empty/", "empty/.", "./empty", "full", "full/", "full/x",
	"lrel", "lrel/", "lrel/.", "lrel/f", "lrel/./f", "lrel/new",
	"lfile", "lfile/", "lchain", "lchain/f", "lchain/",
	"ldang", "ldang/", "ldangdir", "lloop", "lloop/", "lloop/x",
	"lslash", "lslash/b/f", "lfslash", "lup", "a/b/up/file", "a/b/up/a/b/f",
	"lempty", "lempty/", "lempty/new",
	"new", "new/", "./new", "a/new", "a/./new", "a//new", "a/b/new/",
	"nodir/new", "file/new", "a/b/up/new",
	"lrel/../b/f", "lrel/..", "lchain/../new", "lfile/..", "nodir/../file",
	"file/../file", "lup/",
	NULL,
};

/* Chains through directories, a link to ".", a link back up inside. */
static const char chain_spec[] =
	"f file F\n"
	"d d\n"
	"d d/sub\n"
	"f d/sub/x X\n"
	"d d/sub/inner\n"
	"l l1 l2\n"
	"l l2 l3\n"
	"l l3 d/sub\n"
	"l d/self .\n"
	"l d/sub/back ../../d\n"
	"l d/sub/lx x\n"
	"l d/sub/ltx ./lx\n"
	"l tdir d/sub/\n"
	"l tdot d/.\n";

static const char *const chain_spellings[] = {
	"l1", "l1/", "l1/x", "l1/./x", "l1//x", "l1/inner", "l1/inner/",
	"l1/lx", "l1/ltx", "l1/ltx/", "l1/new", "l2/x", "l3/new/",
	"d/self", "d/self/", "d/self/sub/x", "d/self/self/sub",
	"d/sub/back/sub/x", "d/sub/back", "d/sub/back/",
	"d/sub/x/.", "d/sub/..", "d/sub/../sub/x", "d//sub//inner//",
	"tdir", "tdir/x", "tdir/inner", "tdot", "tdot/sub/x",
	"d/sub/lx", "d/sub/ltx", "d/sub/new", "d/sub/inner/new",
	"d/sub/inner/..", "d/sub/inner/../", "file/..", "l1/..",
	NULL,
};

static const struct tree trees[] = {
	{ "plain", plain_spec, plain_spellings },
	{ "chains", chain_spec, chain_spellings },
};

enum op {
	OP_OPEN_R, OP_OPEN_CREAT, OP_OPEN_EXCL, OP_OPEN_DIR, OP_OPEN_NOFOLLOW,
	OP_OPEN_TRUNC, OP_STAT, OP_LSTAT, OP_MKDIR, OP_RMDIR, OP_UNLINK,
	OP_READLINK, OP_CHMOD, OP_TRUNCATE, OP_SYMLINK, OP_LINK_TO, OP_LINK_FROM,
	OP_RENAME_FROM, OP_RENAME_TO, OP_RENAME_NOREPLACE, OP_RENAME_EXCHANGE,
	OP_COUNT
};

static const char *const op_names[OP_COUNT] = {
	"open(O_RDONLY)", "open(O_WRONLY|O_CREAT)", "open(O_WRONLY|O_CREAT|O_EXCL)",
	"open(O_DIRECTORY)", "open(O_NOFOLLOW)", "open(O_WRONLY|O_TRUNC)",
	"stat", "lstat", "mkdir", "rmdir", "unlink", "readlink", "chmod",
	"truncate", "symlink(\"tgt\", P)", "link(\"file\", P)", "link(P, \"linked\")",
	"rename(P, \"moved\")", "rename(\"file\", P)",
	"rename(\"file\", P, NOREPLACE)", "rename(\"file\", P, EXCHANGE)",
};

static int open_flags(enum op op)
{
	switch (op) {
	case OP_OPEN_R:        return O_RDONLY;
	case OP_OPEN_CREAT:    return O_WRONLY | O_CREAT;
	case OP_OPEN_EXCL:     return O_WRONLY | O_CREAT | O_EXCL;
	case OP_OPEN_DIR:      return O_RDONLY | O_DIRECTORY;
	case OP_OPEN_NOFOLLOW: return O_RDONLY | O_NOFOLLOW;
	case OP_OPEN_TRUNC:    return O_WRONLY | O_TRUNC;
	default:               return -1;
	}
}

/* What pathgate documents as different from the kernel on purpose.  A
 * disagreement is deliberate only if the library's refusal is the code
 * named here and the case has the shape described. */
struct deliberate {
	const char *code;   /* the refusal's stable name */
	const char *reason; /* and where it is documented */
};

static const struct deliberate deliberate[] = {
	{ "workspace.dangling-link",
	  "creating through a symlink whose target does not exist is refused "
	  "(libpathgate(3), Refusals; pg_open(3), pg_mkdir(3), pg_link(3), "
	  "pg_symlink(3)): the kernel would create the target, or say EEXIST" },
};

/* Differences found and not yet fixed, each exactly: the case, and both
 * answers.  Should the library come to agree, the case counts as agreeing
 * (and the entry should go); any other answer fails. */
struct known {
	const char *tree, *spelling;
	enum op op;
	int pg_err, kernel_err;
	const char *what;
};

static const struct known known[] = {
	{ "plain", "lfslash", OP_OPEN_CREAT, ENOTDIR, EISDIR,
	  "O_CREAT through a symlink whose target is \"file/\" (a regular file "
	  "and a trailing slash): the kernel's create side answers EISDIR for the "
	  "slash, the resolver's walk reports the file as ENOTDIR first; "
	  "nothing is created either way" },
};

/* --------------------------------------------------------------- results */

struct result {
	int  ret;        /* 0 or -1 */
	int  err;        /* errno when ret is -1 */
	char what[512];  /* what the call returned, rendered */
	const char *refusal; /* the library's refusal name, NULL if none */
};

static void render_stat(char *buf, size_t size, const struct stat *st)
{
	snprintf(buf, size, "type=%o mode=%o size=%lld nlink=%lu", (unsigned)(st->st_mode & S_IFMT),
		 (unsigned)(st->st_mode & 07777),
		 S_ISDIR(st->st_mode) ? 0LL : (long long)st->st_size, (unsigned long)st->st_nlink);
}

/* An opened fd: what it is (type, size), then closed. */
static void render_fd(struct result *r, int fd)
{
	struct stat st;

	if (fd < 0) {
		r->ret = -1;
		r->err = errno;
		return;
	}
	r->ret = 0;
	if (fstat(fd, &st) == 0)
		render_stat(r->what, sizeof(r->what), &st);
	close(fd);
}

static void settle(struct result *r, long ret)
{
	r->err = ret < 0 ? errno : 0;
	r->ret = ret < 0 ? -1 : 0;
}

/* ---------------------------------------------------------- the library */

static void run_pg(pg_root *root, enum op op, const char *p, struct result *r)
{
	struct stat st;
	char buf[256];
	ssize_t n;

	memset(r, 0, sizeof(*r));
	errno = 0;
	switch (op) {
	case OP_OPEN_R: case OP_OPEN_CREAT: case OP_OPEN_EXCL:
	case OP_OPEN_DIR: case OP_OPEN_NOFOLLOW: case OP_OPEN_TRUNC:
		render_fd(r, pg_open(root, p, open_flags(op) | O_CLOEXEC, 0640));
		break;
	case OP_STAT: case OP_LSTAT:
		settle(r, pg_stat(root, p, &st, op == OP_LSTAT ? AT_SYMLINK_NOFOLLOW : 0));
		if (r->ret == 0)
			render_stat(r->what, sizeof(r->what), &st);
		break;
	case OP_MKDIR:      settle(r, pg_mkdir(root, p, 0750)); break;
	case OP_RMDIR:      settle(r, pg_rmdir(root, p)); break;
	case OP_UNLINK:     settle(r, pg_unlink(root, p)); break;
	case OP_READLINK:
		n = pg_readlink(root, p, buf, sizeof(buf));
		settle(r, n);
		if (n >= 0)
			snprintf(r->what, sizeof(r->what), "%.*s", (int)n, buf);
		break;
	case OP_CHMOD:      settle(r, pg_chmod(root, p, 0604)); break;
	case OP_TRUNCATE:   settle(r, pg_truncate(root, p, 1)); break;
	case OP_SYMLINK:    settle(r, pg_symlink(root, "tgt", p)); break;
	case OP_LINK_TO:    settle(r, pg_link(root, "file", p)); break;
	case OP_LINK_FROM:  settle(r, pg_link(root, p, "linked")); break;
	case OP_RENAME_FROM: settle(r, pg_rename(root, p, "moved", 0)); break;
	case OP_RENAME_TO:  settle(r, pg_rename(root, "file", p, 0)); break;
	case OP_RENAME_NOREPLACE: settle(r, pg_rename(root, "file", p, RENAME_NOREPLACE)); break;
	case OP_RENAME_EXCHANGE:  settle(r, pg_rename(root, "file", p, RENAME_EXCHANGE)); break;
	case OP_COUNT: break;
	}
	if (r->ret < 0) {
		const struct pg_refusal *ref = pg_last_refusal();

		r->refusal = ref->name;
	}
}

/* ------------------------------------------------------------ the kernel */

static int raw_open(int dirfd, const char *p, int flags)
{
	struct open_how how = {
		.flags = (uint64_t)(flags | O_CLOEXEC),
		.mode = (flags & O_CREAT) ? 0640 : 0,
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS,
	};

	int fd, tries = 0;

	/* With "..", openat2 says EAGAIN when any rename ran meanwhile,
	 * anywhere on the system; openat2(2) asks the caller to retry. */
	do
		fd = (int)syscall(SYS_openat2, dirfd, p, &how, sizeof(how));
	while (fd < 0 && errno == EAGAIN && ++tries < 1000);
	return fd;
}

/* truncate(2) has no *at form: name the path through B's descriptor. */
static int raw_truncate(int dirfd, const char *p, off_t len)
{
	char full[PG_PATH_MAX + 64];

	snprintf(full, sizeof(full), "/proc/self/fd/%d/%s", dirfd, p);
	return truncate(full, len);
}

static void run_raw(int d, enum op op, const char *p, struct result *r)
{
	struct stat st;
	char buf[256];
	ssize_t n;

	memset(r, 0, sizeof(*r));
	errno = 0;
	switch (op) {
	case OP_OPEN_R: case OP_OPEN_CREAT: case OP_OPEN_EXCL:
	case OP_OPEN_DIR: case OP_OPEN_NOFOLLOW: case OP_OPEN_TRUNC:
		render_fd(r, raw_open(d, p, open_flags(op)));
		break;
	case OP_STAT: case OP_LSTAT:
		settle(r, fstatat(d, p, &st, op == OP_LSTAT ? AT_SYMLINK_NOFOLLOW : 0));
		if (r->ret == 0)
			render_stat(r->what, sizeof(r->what), &st);
		break;
	case OP_MKDIR:      settle(r, mkdirat(d, p, 0750)); break;
	case OP_RMDIR:      settle(r, unlinkat(d, p, AT_REMOVEDIR)); break;
	case OP_UNLINK:     settle(r, unlinkat(d, p, 0)); break;
	case OP_READLINK:
		n = readlinkat(d, p, buf, sizeof(buf));
		settle(r, n);
		if (n >= 0)
			snprintf(r->what, sizeof(r->what), "%.*s", (int)n, buf);
		break;
	case OP_CHMOD:      settle(r, fchmodat(d, p, 0604, 0)); break;
	case OP_TRUNCATE:   settle(r, raw_truncate(d, p, 1)); break;
	case OP_SYMLINK:    settle(r, symlinkat("tgt", d, p)); break;
	case OP_LINK_TO:    settle(r, linkat(d, "file", d, p, 0)); break;
	case OP_LINK_FROM:  settle(r, linkat(d, p, d, "linked", 0)); break;
	case OP_RENAME_FROM: settle(r, renameat2(d, p, d, "moved", 0)); break;
	case OP_RENAME_TO:  settle(r, renameat2(d, "file", d, p, 0)); break;
	case OP_RENAME_NOREPLACE: settle(r, renameat2(d, "file", d, p, RENAME_NOREPLACE)); break;
	case OP_RENAME_EXCHANGE:  settle(r, renameat2(d, "file", d, p, RENAME_EXCHANGE)); break;
	case OP_COUNT: break;
	}
}

/* ------------------------------------------------------------- the trees */

/* A snapshot for comparing two different directories: relative names,
 * type, permission bits, size (not for directories: it depends on the
 * filesystem), link count, link target, content.  One line per entry. */
struct text {
	char  *s;
	size_t len, cap;
};

static void text_add(struct text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void text_add(struct text *t, const char *fmt, ...)
{
	va_list ap;
	char *line;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&line, fmt, ap);
	va_end(ap);
	assert_true(n >= 0);
	if (t->len + (size_t)n + 1 > t->cap) {
		t->cap = (t->len + (size_t)n + 1) * 2;
		t->s = realloc(t->s, t->cap);
		assert_non_null(t->s);
	}
	memcpy(t->s + t->len, line, (size_t)n + 1);
	t->len += (size_t)n;
	free(line);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void snap_dir(struct text *t, int dfd, const char *rel)
{
	DIR *d = fdopendir(dup(dfd));
	struct dirent *e;
	char *names[256];
	size_t n = 0;

	assert_non_null(d);
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
			assert_true(n < 256);
			names[n++] = strdup(e->d_name);
		}
	closedir(d);
	qsort(names, n, sizeof(*names), by_name);
	for (size_t i = 0; i < n; i++) {
		struct stat st;
		char buf[256] = "";
		ssize_t len = 0;

		assert_int_equal(fstatat(dfd, names[i], &st, AT_SYMLINK_NOFOLLOW), 0);
		if (S_ISLNK(st.st_mode)) {
			len = readlinkat(dfd, names[i], buf, sizeof(buf) - 1);
		} else if (S_ISREG(st.st_mode)) {
			int fd = openat(dfd, names[i], O_RDONLY | O_CLOEXEC | O_NOFOLLOW);

			assert_true(fd >= 0);
			len = read(fd, buf, sizeof(buf) - 1);
			close(fd);
		}
		buf[len > 0 ? len : 0] = '\0';
		text_add(t, "%s%s type=%o mode=%o size=%lld nlink=%lu data=%s\n", rel, names[i],
			 (unsigned)(st.st_mode & S_IFMT), (unsigned)(st.st_mode & 07777),
			 S_ISDIR(st.st_mode) ? 0LL : (long long)st.st_size,
			 S_ISDIR(st.st_mode) ? 0UL : (unsigned long)st.st_nlink, buf);
		if (S_ISDIR(st.st_mode)) {
			int sub = openat(dfd, names[i], O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			char *r;

			assert_true(sub >= 0);
			assert_true(asprintf(&r, "%s%s/", rel, names[i]) > 0);
			snap_dir(t, sub, r);
			free(r);
			close(sub);
		}
		free(names[i]);
	}
}

static char *snapshot(const char *dir)
{
	struct text t = { 0 };
	int d = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct stat st;

	assert_true(d >= 0);
	assert_int_equal(fstat(d, &st), 0);
	text_add(&t, ". mode=%o\n", (unsigned)(st.st_mode & 07777));
	snap_dir(&t, d, "");
	close(d);
	return t.s;
}

/* The kernel's call must stay inside B: every link target relative and
 * never above the top (counted lexically from the link's own directory;
 * the targets here contain no link before a ".."). */
static int stays_inside(const char *dir_of, const char *target)
{
	char buf[PG_PATH_MAX];
	int depth = 0;

	if (target[0] == '/')
		return 0;
	snprintf(buf, sizeof(buf), "%s%s%s", dir_of, dir_of[0] ? "/" : "", target);
	for (char *save = NULL, *c = strtok_r(buf, "/", &save); c; c = strtok_r(NULL, "/", &save)) {
		if (!strcmp(c, ".."))
			depth--;
		else if (strcmp(c, "."))
			depth++;
		if (depth < 0)
			return 0;
	}
	return 1;
}

static int tree_is_closed(const char *spec)
{
	char *copy = strdup(spec), *save = NULL;
	int ok = 1;

	for (char *l = strtok_r(copy, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		char path[256], target[256], *slash;

		if (l[0] != 'l' || sscanf(l + 2, "%255s %255s", path, target) != 2)
			continue;
		slash = strrchr(path, '/');
		if (slash)
			*slash = '\0';
		else
			path[0] = '\0';
		ok &= stays_inside(path, target);
	}
	free(copy);
	return ok;
}

/* Checked again on the tree itself, before the kernel's call: P, and the
 * directory holding its final name, both resolve beneath B (followed, as
 * the most any call follows) or not at all for a reason other than
 * leaving it. */
static int spelling_is_closed(int dirfd, const char *p)
{
	char parent[PG_PATH_MAX];
	char *slash;
	int fd;

	if (p[0] == '/' || strncmp(p, "..", 2) == 0)
		return 0;
	snprintf(parent, sizeof(parent), "%s", p);
	while ((slash = strrchr(parent, '/')) && slash[1] == '\0' && slash != parent)
		*slash = '\0';
	slash = strrchr(parent, '/');
	if (slash)
		*slash = '\0';
	else
		strcpy(parent, ".");
	for (int i = 0; i < 2; i++) {
		fd = raw_open(dirfd, i ? p : parent, O_PATH);
		if (fd >= 0)
			close(fd);
		else if (errno == EXDEV)
			return 0;
	}
	return 1;
}

/* ------------------------------------------------------------- the cases */

struct tally {
	unsigned cases, agree, deliberate, known, disagree;
};

static const struct known *known_for(const char *tree, enum op op, const char *p,
				     const struct result *lib, const struct result *raw)
{
	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (!strcmp(known[i].tree, tree) && known[i].op == op && !strcmp(known[i].spelling, p) &&
		    lib->ret < 0 && raw->ret < 0 && !lib->refusal &&
		    lib->err == known[i].pg_err && raw->err == known[i].kernel_err)
			return &known[i];
	return NULL;
}

static int same(const struct result *a, const struct result *b)
{
	return a->ret == b->ret && (a->ret == 0 || a->err == b->err) && !strcmp(a->what, b->what);
}

static const char *render(const struct result *r, char *buf, size_t size)
{
	if (r->ret == 0)
		snprintf(buf, size, "ok %s", r->what);
	else
		snprintf(buf, size, "-1 %s%s%s", strerror(r->err), r->refusal ? " " : "",
			 r->refusal ? r->refusal : "");
	return buf;
}

static const char *deliberate_reason(const struct result *lib)
{
	if (lib->ret < 0 && lib->refusal)
		for (size_t i = 0; i < sizeof(deliberate) / sizeof(deliberate[0]); i++)
			if (!strcmp(lib->refusal, deliberate[i].code))
				return deliberate[i].reason;
	return NULL;
}

static void run_case(const struct tree *t, enum op op, const char *p, unsigned flags,
		     struct tally *tally)
{
	char *a = tu_mkdtemp("agree-a"), *b = tu_mkdtemp("agree-b");
	struct result lib, raw;
	char *snap_a, *snap_b, ra[600], rb[600];
	pg_root *root;
	int d;

	tu_build(a, t->spec);
	tu_build(b, t->spec);
	root = pg_root_open(a, NULL, flags);
	assert_non_null(root);
	d = open(b, O_PATH | O_DIRECTORY | O_CLOEXEC);
	assert_true(d >= 0);
	if (!spelling_is_closed(d, p)) {
		/* The table is built closed: a case that leaves B is its bug. */
		printf("LEAVES %s \"%s\": the kernel's call would leave the copy\n", t->name, p);
		fail();
	}
	run_pg(root, op, p, &lib);
	run_raw(d, op, p, &raw);
	close(d);
	pg_root_close(root);
	snap_a = snapshot(a);
	snap_b = snapshot(b);
	tally->cases++;
	if (same(&lib, &raw) && !strcmp(snap_a, snap_b)) {
		tally->agree++;
	} else if (deliberate_reason(&lib)) {
		tally->deliberate++;
		printf("deliberate %s %s \"%s\": pathgate %s, kernel %s (%s)\n", t->name, op_names[op], p,
		       render(&lib, ra, sizeof(ra)), render(&raw, rb, sizeof(rb)),
		       deliberate_reason(&lib));
	} else if (!strcmp(snap_a, snap_b) && known_for(t->name, op, p, &lib, &raw)) {
		tally->known++;
		printf("known %s %s \"%s\": %s\n", t->name, op_names[op], p,
		       known_for(t->name, op, p, &lib, &raw)->what);
	} else {
		tally->disagree++;
		printf("DISAGREE %s resolver=%s op=%s spelling=\"%s\"\n  pathgate: %s\n  kernel:   %s\n",
		       t->name, flags ? "walk" : "openat2", op_names[op], p,
		       render(&lib, ra, sizeof(ra)), render(&raw, rb, sizeof(rb)));
		if (strcmp(snap_a, snap_b))
			printf("  tree after pathgate:\n%s  tree after kernel:\n%s", snap_a, snap_b);
	}
	free(snap_a);
	free(snap_b);
	tu_rmtree(a);
	tu_rmtree(b);
	free(a);
	free(b);
}

static struct tally total;

static void run_resolver(unsigned flags)
{
	struct tally t = { 0 };
	int fds = tu_fd_count();

	for (size_t i = 0; i < sizeof(trees) / sizeof(trees[0]); i++) {
		assert_true(tree_is_closed(trees[i].spec));
		for (const char *const *p = trees[i].spellings; *p; p++) {
			for (int op = 0; op < OP_COUNT; op++)
				run_case(&trees[i], (enum op)op, *p, flags, &t);
		}
	}
	printf("resolver %s: cases=%u agree=%u deliberate=%u known=%u disagree=%u\n",
	       flags ? "walk" : "openat2", t.cases, t.agree, t.deliberate, t.known, t.disagree);
	total.known += t.known;
	total.cases += t.cases;
	total.agree += t.agree;
	total.deliberate += t.deliberate;
	total.disagree += t.disagree;
	assert_int_equal(tu_fd_count(), fds);
	assert_int_equal(t.disagree, 0);
}

static void test_openat2(void **state)
{
	(void)state;
	run_resolver(0);
}

static void test_walk(void **state)
{
	(void)state;
	run_resolver(PG_ROOT_NO_OPENAT2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_openat2),
		cmocka_unit_test(test_walk),
	};
	int failed, probe;

	umask(022);
	/* The kernel's side resolves with openat2 (RESOLVE_BENEATH); where
	 * there is none (an old kernel, valgrind) there is nothing to agree
	 * with. */
	probe = raw_open(AT_FDCWD, ".", O_PATH | O_DIRECTORY);
	if (probe < 0 && errno == ENOSYS) {
		printf("SKIP: openat2 is not available here: the kernel's side needs it\n");
		return 77;
	}
	if (probe >= 0)
		close(probe);
	/* Thousands of small trees: on tmpfs they cost seconds, on a loaded
	 * journalled disk a minute.  The semantics are the VFS's either way. */
	if (access("/dev/shm", W_OK | X_OK) == 0)
		setenv("TMPDIR", "/dev/shm", 1);
	failed = cmocka_run_group_tests_name("posix-agree", tests, NULL, NULL);
	printf("FIGURES posix-agree cases=%u agree=%u deliberate=%u known=%u disagree=%u resolvers=2\n",
	       total.cases, total.agree, total.deliberate, total.known, total.disagree);
	return failed;
}
