/* test_differential.c - the enforcers compared with each other.
 *
 * Whatever pg_check refuses, a hostile child must not be able to do; what
 * it allows, the child should be able to do, unless the plan names the
 * path as a seam or a skip.  Each case draws random workspaces (nested
 * directories whose names differ by case, Unicode normal form and
 * multi-character folds; symlinks, some dangling; hard links) and a
 * random policy for each, asks pg_check for a verdict on every name, and
 * then asks a child what it can really do to the same names:
 *
 *   - rawprobe (static, raw system calls) under pg_spawn, once on an
 *     openat2 root and once on a PG_ROOT_NO_OPENAT2 root;
 *   - libcprobe (libc's open) under the preload alone
 *     (pathgate run --no-envelope) and under pathgate run (envelope and
 *     preload);
 *   - both probes on the bare host, the control: they must see every
 *     name, denied ones included, or the comparisons prove nothing.
 *
 * An escape (refused, yet the child could) always fails; an over-refusal
 * (allowed, yet the child could not) fails unless the plan names the path
 * or an ancestor, and those are counted apart as "named".  Each launch
 * must leave the host tree as it was.
 *
 * PG_DIFF_WORKSPACES (default 200) workspaces per case, seeds
 * PG_DIFF_SEED (default 20261130) and up; a failure prints its
 * workspace's seed, and PG_DIFF_SEED=S PG_DIFF_WORKSPACES=1 replays it.
 * PG_DIFF_REPORTS bounds the detailed reports per case (default 12). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "pathgate.h"
#include "landlock.h"
#include "../testutil.h"

extern char **environ;

/* ------------------------------------------------------- configuration */

static unsigned n_workspaces = 200;
static uint64_t first_seed = 20261130;
static unsigned max_reports = 12;

static char rawprobe[PATH_MAX], libcprobe[PATH_MAX], pathgate_cmd[PATH_MAX];
static char top[PATH_MAX];      /* this run's directory; workspaces inside */

/* SNPRINTF's result N must fit SIZE: no name is ever cut short. */
static void fits(int n, size_t size)
{
	if (n < 0 || (size_t)n >= size) {
		fprintf(stderr, "test_differential: a path longer than %zu bytes\n", size);
		abort();
	}
}

/* ------------------------------------------------------------- random */

struct rng { uint64_t s; };

static uint64_t next(struct rng *r)
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static unsigned below(struct rng *r, unsigned n)
{
	return (unsigned)(next(r) % n);
}

/* --------------------------------------------------------------- names */

/* Spellings of one name: each row is one collision class (case-folded and
 * NFD), so a deny of one member covers all, a write only itself. */
static const char *const spellings[][4] = {
	{ "key", "Key", "KEY", NULL },
	{ "caf\xc3\xa9", "cafe\xcc\x81", "CAF\xc3\x89", "CAFE\xcc\x81" },  /* NFC, NFD */
	{ "stra\xc3\x9f" "e", "strasse", "STRASSE", NULL },               /* ß folds to ss */
	{ "\xef\xac\x80", "ff", "FF", NULL },                             /* U+FB00 ligature */
	{ "secret", "Secret", "SECRET", NULL },
	{ "x", "X", NULL, NULL },
	{ "d1", "D1", NULL, NULL },
	{ "data", "Data", NULL, NULL },
	{ "a.key", "A.KEY", "a.kEy", NULL },
	{ "b.kay", "B.Kay", NULL, NULL },
};
#define N_CLASSES (sizeof(spellings) / sizeof(spellings[0]))

static unsigned class_size(size_t c)
{
	unsigned n = 0;

	while (n < 4 && spellings[c][n])
		n++;
	return n;
}

static const char *any_name(struct rng *r)
{
	size_t c = below(r, N_CLASSES);

	return spellings[c][below(r, class_size(c))];
}

/* Another spelling of COMPONENT's class (perhaps the same), or itself. */
static const char *respell(struct rng *r, const char *component, size_t len)
{
	for (size_t c = 0; c < N_CLASSES; c++)
		for (unsigned v = 0; v < class_size(c); v++)
			if (strlen(spellings[c][v]) == len && memcmp(spellings[c][v], component, len) == 0)
				return spellings[c][below(r, class_size(c))];
	return NULL;
}

/* Printable form of NAME: bytes outside ASCII as \xNN. */
static const char *shown(const char *name, char *buf, size_t size)
{
	size_t o = 0;

	for (const unsigned char *p = (const unsigned char *)name; *p && o + 5 < size; p++)
		o += (size_t)snprintf(buf + o, size - o, *p < 0x20 || *p >= 0x7f || *p == '\\'
				      ? "\\x%02x" : "%c", *p);
	buf[o] = '\0';
	return buf;
}

/* ---------------------------------------------------------- workspaces */

struct name {
	char *rel;                 /* as created; "." is the root */
	char  kind;                /* 'd' directory, 'f' file, 'l' symlink */
	bool  dir;                 /* what it reaches is a directory */
	bool  dangling;            /* a symlink that reaches nothing */
	unsigned long long ino;    /* what it reaches */
};

struct ws {
	uint64_t     seed;
	char         dir[PATH_MAX];   /* canonical host path */
	char         policy_file[PATH_MAX];
	char        *policy;          /* the text */
	struct name *names;
	size_t       n, cap;
};

#define MAX_TREE 40

static void host_path(const struct ws *ws, const char *rel, char *buf)
{
	if (strcmp(rel, ".") == 0)
		snprintf(buf, PATH_MAX, "%s", ws->dir);
	else
		fits(snprintf(buf, PATH_MAX, "%s/%s", ws->dir, rel), PATH_MAX);
}

static bool taken(const struct ws *ws, const char *rel)
{
	for (size_t i = 0; i < ws->n; i++)
		if (strcmp(ws->names[i].rel, rel) == 0)
			return true;
	return false;
}

static void add_name(struct ws *ws, const char *rel, char kind)
{
	if (ws->n == ws->cap) {
		ws->cap = ws->cap ? ws->cap * 2 : 64;
		ws->names = realloc(ws->names, ws->cap * sizeof(*ws->names));
		assert_non_null(ws->names);
	}
	ws->names[ws->n] = (struct name){ .rel = strdup(rel), .kind = kind };
	assert_non_null(ws->names[ws->n].rel);
	ws->n++;
}

/* PARENT/NAME, or NAME beneath the root. */
static void child_of(const char *parent, const char *name, char *buf)
{
	if (strcmp(parent, ".") == 0)
		snprintf(buf, PATH_MAX, "%s", name);
	else
		fits(snprintf(buf, PATH_MAX, "%s/%s", parent, name), PATH_MAX);
}

static void make_file(const struct ws *ws, const char *rel)
{
	char p[PATH_MAX];
	FILE *f;

	host_path(ws, rel, p);
	f = fopen(p, "wxe");
	assert_non_null(f);
	fprintf(f, "content of %s\n", rel);
	assert_int_equal(fclose(f), 0);
}

/* Fill directory PARENT (DEPTH components deep) with files and
 * directories, up to four levels of nesting. */
static void grow_tree(struct ws *ws, struct rng *r, const char *parent, unsigned depth)
{
	unsigned k = 1 + below(r, depth == 0 ? 5 : 4);

	for (unsigned i = 0; i < k && ws->n < MAX_TREE; i++) {
		char rel[PATH_MAX], p[PATH_MAX];

		child_of(parent, any_name(r), rel);
		if (taken(ws, rel))
			continue;
		if (depth < 3 && below(r, 100) < 40) {
			host_path(ws, rel, p);
			assert_int_equal(mkdir(p, 0755), 0);
			add_name(ws, rel, 'd');
			grow_tree(ws, r, rel, depth + 1);
		} else {
			make_file(ws, rel);
			add_name(ws, rel, 'f');
		}
	}
}

static unsigned depth_of(const char *rel)
{
	unsigned d = strcmp(rel, ".") != 0;

	for (; *rel; rel++)
		d += *rel == '/';
	return d;
}

/* A random directory of the tree ("." included). */
static const char *any_dir(const struct ws *ws, struct rng *r)
{
	for (;;) {
		const struct name *n = &ws->names[below(r, (unsigned)ws->n)];

		if (n->kind == 'd')
			return n->rel;
	}
}

/* A relative target from directory DIR to REL: up to the root and down,
 * or straight down when REL lies beneath DIR. */
static void relative_target(const char *dir, const char *rel, struct rng *r, char *buf)
{
	size_t dl = strlen(dir);
	size_t o = 0;

	if (strcmp(dir, ".") != 0 && strncmp(rel, dir, dl) == 0 && rel[dl] == '/' && below(r, 2)) {
		snprintf(buf, PATH_MAX, "%s", rel + dl + 1);
		return;
	}
	for (unsigned d = depth_of(dir); d > 0; d--)
		o += (size_t)snprintf(buf + o, PATH_MAX - o, "../");
	snprintf(buf + o, PATH_MAX - o, "%s", o && strcmp(rel, ".") == 0 ? "" : rel);
}

/* Symlinks (to files, directories, other links, or nothing) and hard
 * links (between files), all inside the workspace. */
static void add_links(struct ws *ws, struct rng *r)
{
	unsigned symlinks = below(r, 6), hardlinks = below(r, 3);
	size_t tree = ws->n;

	for (unsigned i = 0; i < symlinks + hardlinks; i++) {
		char rel[PATH_MAX], target[PATH_MAX], p[PATH_MAX], q[PATH_MAX];
		const char *dir = any_dir(ws, r);
		const struct name *to = &ws->names[below(r, (unsigned)ws->n)];

		child_of(dir, any_name(r), rel);
		if (taken(ws, rel))
			continue;
		host_path(ws, rel, p);
		if (i >= symlinks) {
			if (to->kind != 'f')
				continue;
			host_path(ws, to->rel, q);
			assert_int_equal(link(q, p), 0);
			add_name(ws, rel, 'f');
			continue;
		}
		if (below(r, 4) == 0) {   /* dangling: a name that is not there */
			char absent[PATH_MAX];

			child_of(ws->names[below(r, (unsigned)tree)].rel, "nowhere", absent);
			relative_target(dir, absent, r, target);
		} else {
			relative_target(dir, to->rel, r, target);
		}
		assert_int_equal(symlink(target, p), 0);
		add_name(ws, rel, 'l');
	}
}

/* What each name reaches, as the host sees it. */
static void identify(struct ws *ws)
{
	for (size_t i = 0; i < ws->n; i++) {
		struct name *n = &ws->names[i];
		char p[PATH_MAX];
		struct stat st;

		host_path(ws, n->rel, p);
		if (stat(p, &st) < 0) {
			n->dangling = true;
			continue;
		}
		n->dir = S_ISDIR(st.st_mode);
		n->ino = (unsigned long long)st.st_ino;
	}
}

/* ----------------------------------------------------------- policies */

static const char *const globs[] = {
	"**/*.k?y", "d*/x", "**/secret", "**/KEY", "*/key", "**/caf\xc3\xa9", "**/strasse", "**/ff",
};

/* A rule path: an existing name (sometimes in another spelling), an
 * absent one, a glob, or the root. */
static void rule_path(const struct ws *ws, struct rng *r, char *buf)
{
	unsigned pick = below(r, 100);

	if (pick < 50 && ws->n > 1) {
		const char *rel = ws->names[1 + below(r, (unsigned)ws->n - 1)].rel;
		size_t o = 0;

		buf[0] = '\0';
		for (const char *c = rel; *c; ) {
			size_t len = strcspn(c, "/");
			const char *other = below(r, 10) < 4 ? respell(r, c, len) : NULL;

			o += (size_t)snprintf(buf + o, PATH_MAX - o, "%s%.*s", o ? "/" : "",
					      other ? (int)strlen(other) : (int)len, other ? other : c);
			c += len + (c[len] == '/');
		}
	} else if (pick < 65) {
		child_of(any_dir(ws, r), any_name(r), buf);
	} else if (pick < 93) {
		snprintf(buf, PATH_MAX, "%s", globs[below(r, sizeof(globs) / sizeof(globs[0]))]);
	} else {
		snprintf(buf, PATH_MAX, ".");
	}
}

static void make_policy(struct ws *ws, struct rng *r)
{
	static const char *const words[] = { "deny", "deny", "deny", "read", "read", "write",
					     "write", "deny!", "read!" };
	size_t len = 0, cap = 8192;
	unsigned rules = 2 + below(r, 6);
	FILE *f;

	ws->policy = malloc(cap);
	assert_non_null(ws->policy);
	len = (size_t)snprintf(ws->policy, cap, "read /\nwrite .\n");
	for (unsigned i = 0; i < rules; i++) {
		char path[PATH_MAX];

		rule_path(ws, r, path);
		len += (size_t)snprintf(ws->policy + len, cap - len, "%s %s\n",
					words[below(r, sizeof(words) / sizeof(words[0]))], path);
		assert_true(len < cap);
	}
	fits(snprintf(ws->policy_file, sizeof(ws->policy_file), "%s.policy", ws->dir),
	     sizeof(ws->policy_file));
	f = fopen(ws->policy_file, "we");
	assert_non_null(f);
	fputs(ws->policy, f);
	assert_int_equal(fclose(f), 0);
}

/* Workspace INDEX of this run, drawn from SEED alone. */
static void ws_make(struct ws *ws, uint64_t seed)
{
	struct rng r = { seed };
	char p[PATH_MAX];

	memset(ws, 0, sizeof(*ws));
	ws->seed = seed;
	fits(snprintf(p, sizeof(p), "%s/ws-%llu", top, (unsigned long long)seed), sizeof(p));
	assert_int_equal(mkdir(p, 0755), 0);
	assert_non_null(realpath(p, ws->dir));
	add_name(ws, ".", 'd');
	grow_tree(ws, &r, ".", 0);
	add_links(ws, &r);
	identify(ws);
	make_policy(ws, &r);
}

static void ws_free(struct ws *ws)
{
	tu_rmtree(ws->dir);
	unlink(ws->policy_file);
	for (size_t i = 0; i < ws->n; i++)
		free(ws->names[i].rel);
	free(ws->names);
	free(ws->policy);
}

static pg_root *ws_root(const struct ws *ws, unsigned flags)
{
	pg_policy *p = pg_policy_new();
	pg_root *root;

	assert_non_null(p);
	if (pg_policy_parse(p, ws->policy, strlen(ws->policy)) < 0)
		fail_msg("seed %llu: the drawn policy does not parse: %s",
			 (unsigned long long)ws->seed, pg_last_refusal()->rule);
	root = pg_root_open(ws->dir, p, flags);
	pg_policy_free(p);
	assert_non_null(root);
	return root;
}

/* ------------------------------------------------------------ verdicts */

struct verdict {
	bool allowed;
	int  err;
	char rule[256];  /* the deciding rule, rendered */
	char why[320];   /* refusal name and rule, or the rule that allowed */
};

struct judged { struct verdict read, write; };

static void judge_one(pg_root *root, const char *rel, enum pg_op op, struct verdict *v)
{
	struct pg_verdict out;

	memset(&out, 0, sizeof(out));
	pg_check(root, rel, op, &out);
	v->allowed = out.allowed;
	v->err = out.err;
	snprintf(v->rule, sizeof(v->rule), "%s", out.rule);
	if (out.allowed)
		snprintf(v->why, sizeof(v->why), "allowed by %s", out.rule[0] ? out.rule : "(no rule)");
	else
		snprintf(v->why, sizeof(v->why), "refused: %s %s", out.name ? out.name : "?", out.rule);
}

static struct judged *judge(pg_root *root, const struct ws *ws)
{
	struct judged *j = calloc(ws->n, sizeof(*j));

	assert_non_null(j);
	for (size_t i = 0; i < ws->n; i++) {
		judge_one(root, ws->names[i].rel, PG_OP_READ, &j[i].read);
		judge_one(root, ws->names[i].rel, PG_OP_WRITE, &j[i].write);
	}
	return j;
}

/* -------------------------------------------------------------- probes */

struct outcome {
	int r, w;                      /* 0 or an errno */
	unsigned long long ri, wi;     /* inode of what was opened */
};

enum how { BARE_RAW, BARE_LIBC, ENVELOPE, PRELOAD_ALONE, PATHGATE_RUN, LANDLOCK_RAW };

static const char *const how_name[] = {
	"rawprobe on the bare host", "libcprobe on the bare host", "envelope (pg_spawn, rawprobe)",
	"preload alone (pathgate run --no-envelope, libcprobe)",
	"pathgate run (envelope and preload, libcprobe)",
	"Landlock envelope (pg_spawn2, rawprobe)",
};

/* pg_plan_build's flags for the plan that names seams (the Landlock case
 * names its splits in the Landlock plan). */
static unsigned diff_plan_flags;

/* The names, one a line, in an anonymous file for the child's stdin. */
static int names_fd(const struct ws *ws)
{
	int fd = memfd_create("pg-diff-names", MFD_CLOEXEC);
	FILE *f;

	assert_true(fd >= 0);
	f = fdopen(dup(fd), "w");
	assert_non_null(f);
	for (size_t i = 0; i < ws->n; i++)
		fprintf(f, "%s\n", ws->names[i].rel);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(lseek(fd, 0, SEEK_SET), 0);
	return fd;
}

/* Start the probe HOW asks for, its stdio set up by FA. */
static int launch(const struct ws *ws, enum how how, pg_root *root,
		  const posix_spawn_file_actions_t *fa, pid_t *pid)
{
	char *probe_argv[] = { how == BARE_RAW || how == ENVELOPE || how == LANDLOCK_RAW ? rawprobe : libcprobe,
			       (char *)ws->dir, NULL };
	char *run_argv[12];
	size_t n = 0;

	if (how == ENVELOPE)
		return pg_spawn(pid, root, rawprobe, fa, NULL, probe_argv, NULL);
	if (how == LANDLOCK_RAW)
		return pg_spawn2(pid, root, rawprobe, fa, NULL, probe_argv, NULL,
				 &(struct pg_spawn_options){ sizeof(struct pg_spawn_options),
							     PG_ENVELOPE_LANDLOCK, 0 });
	if (how == BARE_RAW || how == BARE_LIBC)
		return posix_spawn(pid, probe_argv[0], fa, NULL, probe_argv, environ);
	/* pathgate run [--no-envelope] --root WS --policy FILE -- libcprobe WS */
	run_argv[n++] = pathgate_cmd;
	run_argv[n++] = (char *)"run";
	if (how == PRELOAD_ALONE)
		run_argv[n++] = (char *)"--no-envelope";
	run_argv[n++] = (char *)"--root";
	run_argv[n++] = (char *)ws->dir;
	run_argv[n++] = (char *)"--policy";
	run_argv[n++] = (char *)ws->policy_file;
	run_argv[n++] = (char *)"--";
	run_argv[n++] = libcprobe;
	run_argv[n++] = (char *)ws->dir;
	run_argv[n] = NULL;
	return posix_spawn(pid, pathgate_cmd, fa, NULL, run_argv, environ);
}

static char *read_all(int fd)
{
	size_t len = 0, cap = 16384;
	char *buf = malloc(cap);
	ssize_t n;

	assert_non_null(buf);
	while ((n = read(fd, buf + len, cap - len - 1)) > 0) {
		len += (size_t)n;
		if (cap - len < 4096) {
			cap *= 2;
			buf = realloc(buf, cap);
			assert_non_null(buf);
		}
	}
	buf[len] = '\0';
	return buf;
}

/* Parse the probe's lines into OUT; false (and WHY) when a line is
 * missing or names another name. */
static bool parse(const struct ws *ws, char *text, struct outcome *out, char *why, size_t size)
{
	char *line = text;

	for (size_t i = 0; i < ws->n; i++) {
		char *end = strchr(line, '\n');
		int used = -1;

		if (!end) {
			snprintf(why, size, "output ends after %zu of %zu names", i, ws->n);
			return false;
		}
		*end = '\0';
		sscanf(line, "R=%d RI=%llu W=%d WI=%llu %n", &out[i].r, &out[i].ri, &out[i].w,
		       &out[i].wi, &used);
		if (used < 0 || strcmp(line + used, ws->names[i].rel) != 0) {
			char a[256];

			snprintf(why, size, "line %zu is not about '%s': %s", i + 1,
				 shown(ws->names[i].rel, a, sizeof(a)), line);
			return false;
		}
		line = end + 1;
	}
	return true;
}

/* Run the probe HOW on every name of WS; false (and WHY) when it did not
 * run to the end. */
static bool probe(const struct ws *ws, enum how how, pg_root *root, struct outcome *out,
		  char *why, size_t size)
{
	posix_spawn_file_actions_t fa;
	int in = names_fd(ws), p[2], err, status;
	char *text;
	pid_t pid;
	bool ok;

	assert_int_equal(pipe2(p, O_CLOEXEC), 0);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, in, 0);
	posix_spawn_file_actions_adddup2(&fa, p[1], 1);
	err = launch(ws, how, root, &fa, &pid);
	posix_spawn_file_actions_destroy(&fa);
	close(p[1]);
	close(in);
	if (err) {
		close(p[0]);
		snprintf(why, size, "launch refused: %s (%s)", strerror(err),
			 pg_last_refusal()->name ? pg_last_refusal()->name : "");
		return false;
	}
	text = read_all(p[0]);
	close(p[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	ok = parse(ws, text, out, why, size);
	if (ok && !(WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
		snprintf(why, size, "the probe's launch ended with status 0x%x", (unsigned)status);
		ok = false;
	}
	free(text);
	return ok;
}

static bool could_read(const struct name *n, const struct outcome *o)
{
	return o->r == 0 && o->ri == n->ino;
}

static bool could_write(const struct name *n, const struct outcome *o)
{
	return o->w == 0 && o->wi == n->ino;
}

/* What the child got, in words. */
static const char *told(int err, unsigned long long got, const struct name *n, char *buf, size_t size)
{
	const char *e = err ? strerrorname_np(err) : NULL;

	if (err)
		snprintf(buf, size, "%s", e ? e : strerror(err));
	else if (got != n->ino)
		snprintf(buf, size, "opened a stand-in (inode %llu, not %llu)", got, n->ino);
	else
		snprintf(buf, size, "did it");
	return buf;
}

/* ------------------------------------------------------- named by plan */

static bool beneath(const char *path, const char *top_path)
{
	size_t n = strlen(top_path);

	return strncmp(path, top_path, n) == 0 && (path[n] == '\0' || path[n] == '/' ||
						    (n == 1 && top_path[0] == '/'));
}

/* The seam or skip of PLAN that names the over-refusal of REL, decided
 * by RULE: one laid for that same rule, at REL's host path, where it
 * leads, or an ancestor (a write glob's skip names the glob, not a
 * path), or one saying that the name is what a denied or read-only
 * symlink leads to.  A skip of another rule does not count: a skip at
 * the root would otherwise excuse every name.
 * NULL when none does. */
static const struct pg_seam *named_by(const pg_plan *plan, const struct ws *ws, const char *rel,
				      const char *rule)
{
	char hp[PATH_MAX], real[PATH_MAX];
	bool has_real;

	host_path(ws, rel, hp);
	has_real = realpath(hp, real) != NULL;
	for (size_t i = 0; i < pg_plan_seam_count(plan) + pg_plan_skip_count(plan); i++) {
		const struct pg_seam *s = i < pg_plan_seam_count(plan)
			? pg_plan_seam(plan, i) : pg_plan_skip(plan, i - pg_plan_seam_count(plan));

		/* The planner narrows what a denied or read-only symlink
		 * leads to, and says so at the target. */
		if ((strstr(s->why, "as the target of the symlink") &&
		     (beneath(hp, s->path) || (has_real && beneath(real, s->path)))))
			return s;
		if (!s->rule || strcmp(s->rule, rule) != 0)
			continue;
		if (s->path[0] != '/' || beneath(hp, s->path) || (has_real && beneath(real, s->path)))
			return s;
	}
	return NULL;
}

/* The seam of PLAN, laid for RULE at exactly REL's host path: a limit the
 * plan names (e.g. a denied symlink to the workspace root, which no mount
 * can narrow), so the child's access there is not a silent escape.  NULL
 * when none. */
static const struct pg_seam *seam_at(const pg_plan *plan, const struct ws *ws, const char *rel,
				     const char *rule)
{
	char hp[PATH_MAX];

	host_path(ws, rel, hp);
	for (size_t i = 0; i < pg_plan_seam_count(plan); i++) {
		const struct pg_seam *s = pg_plan_seam(plan, i);

		if (s->rule && strcmp(s->rule, rule) == 0 && strcmp(s->path, hp) == 0 &&
		    strstr(s->why, "cannot be narrowed"))
			return s;
	}
	return NULL;
}

/* The workspace's names, for a report: kind, inode (hard links share
 * one), a symlink's target. */
static void print_tree(const struct ws *ws)
{
	for (size_t i = 1; i < ws->n; i++) {
		const struct name *n = &ws->names[i];
		char a[1024], b[1024], p[PATH_MAX], target[PATH_MAX] = "";
		ssize_t len;

		host_path(ws, n->rel, p);
		if (n->kind == 'l' && (len = readlink(p, target, sizeof(target) - 1)) > 0)
			target[len] = '\0';
		print_message("    %c %s%s%s (inode %llu)\n", n->kind, shown(n->rel, a, sizeof(a)),
			      target[0] ? " -> " : "", shown(target, b, sizeof(b)), n->ino);
	}
}

/* The plan's seams and skips, for a report. */
static void print_plan(const pg_plan *plan)
{
	for (size_t i = 0; i < pg_plan_seam_count(plan); i++)
		print_message("    seam %s: %s (%s)\n", pg_plan_seam(plan, i)->path,
			      pg_plan_seam(plan, i)->why, pg_plan_seam(plan, i)->rule);
	for (size_t i = 0; i < pg_plan_skip_count(plan); i++)
		print_message("    skip %s: %s (%s)\n", pg_plan_skip(plan, i)->path,
			      pg_plan_skip(plan, i)->why, pg_plan_skip(plan, i)->rule);
}

/* ------------------------------------------------------------- tallies */

struct tally {
	const char *what;
	unsigned workspaces, names, verdicts;
	unsigned escapes, seams, over, named, broken, changed;
	unsigned reports;
	uint64_t reported_seed;   /* the last workspace whose policy was printed */
};

static bool may_report(struct tally *t, const struct ws *ws, const pg_plan *plan)
{
	char line[PATH_MAX * 2];

	if (t->reports++ >= max_reports)
		return false;
	if (t->reported_seed != ws->seed + 1) {
		t->reported_seed = ws->seed + 1;
		print_message("[%s] workspace seed %llu (PG_DIFF_SEED=%llu PG_DIFF_WORKSPACES=1), policy:\n",
			      t->what, (unsigned long long)ws->seed, (unsigned long long)ws->seed);
		for (const char *l = ws->policy; *l; ) {
			size_t len = strcspn(l, "\n");
			char buf[PATH_MAX];

			snprintf(line, sizeof(line), "%.*s", (int)len, l);
			print_message("    %s\n", shown(line, buf, sizeof(buf)));
			l += len + (l[len] == '\n');
		}
		print_tree(ws);
		if (plan)
			print_plan(plan);
	}
	return true;
}

/* --------------------------------------------------------- comparison */

static void compare_op(struct tally *t, const struct ws *ws, const pg_plan *plan, size_t i,
		       const char *op, const struct verdict *v, bool child, int err,
		       unsigned long long got)
{
	const struct name *n = &ws->names[i];
	const struct pg_seam *s;
	char a[1024], b[128];

	t->verdicts++;
	if (!v->allowed && child && plan && (s = seam_at(plan, ws, n->rel, v->rule))) {
		t->seams++;
		if (may_report(t, ws, plan))
			print_message("  seam %s '%s' (%c): pg_check %s; the child %s; the plan names it: %s\n",
				      op, shown(n->rel, a, sizeof(a)), n->kind, v->why,
				      told(err, got, n, b, sizeof(b)), s->why);
	} else if (!v->allowed && child) {
		t->escapes++;
		if (may_report(t, ws, plan))
			print_message("  ESCAPE %s '%s' (%c): pg_check %s; the child %s\n", op,
				      shown(n->rel, a, sizeof(a)), n->kind, v->why,
				      told(err, got, n, b, sizeof(b)));
	} else if (v->allowed && !child) {
		s = plan ? named_by(plan, ws, n->rel, v->rule) : NULL;
		if (s) {
			t->named++;
			if (may_report(t, ws, plan))
				print_message("  named over-refusal %s '%s' (%c): pg_check %s; the child %s; "
					      "the plan names %s: %s\n", op, shown(n->rel, a, sizeof(a)), n->kind,
					      v->why, told(err, got, n, b, sizeof(b)), s->path, s->why);
		} else {
			t->over++;
			if (may_report(t, ws, plan))
				print_message("  OVER-REFUSAL %s '%s' (%c): pg_check %s; the child %s\n", op,
					      shown(n->rel, a, sizeof(a)), n->kind, v->why,
					      told(err, got, n, b, sizeof(b)));
		}
	}
}

/* Every name: read for all, write for what is not a directory (the
 * probe does not write into directories, so nothing would compare). */
static void compare(struct tally *t, const struct ws *ws, const struct judged *j,
		    const struct outcome *o, const pg_plan *plan)
{
	for (size_t i = 0; i < ws->n; i++) {
		const struct name *n = &ws->names[i];

		t->names++;
		compare_op(t, ws, plan, i, "read", &j[i].read, could_read(n, &o[i]), o[i].r, o[i].ri);
		if (!n->dir)
			compare_op(t, ws, plan, i, "write", &j[i].write, could_write(n, &o[i]),
				   o[i].w, o[i].wi);
	}
}

static void summary(const struct tally *t)
{
	print_message("%s: %u workspaces, %u names checked (%u verdicts), %u escapes, "
		      "%u named seams, %u over-refusals (unnamed), %u named over-refusals, "
		      "%u broken launches, %u host changes\n", t->what, t->workspaces, t->names,
		      t->verdicts, t->escapes, t->seams, t->over, t->named, t->broken, t->changed);
}

/* ------------------------------------------------------------ one case */

/* Draw every workspace, judge it on a root with FLAGS, probe it HOW, and
 * compare; the host tree must be as it was after each probe. */
static void differential(enum how how, unsigned flags, const char *what)
{
	struct tally t = { .what = what };

	for (unsigned k = 0; k < n_workspaces; k++) {
		struct tu_snapshot *before, *after;
		struct outcome *o;
		struct judged *j;
		pg_plan *plan;
		pg_root *root;
		struct ws ws;
		char why[512], *diff;

		ws_make(&ws, first_seed + k);
		root = ws_root(&ws, flags);
		j = judge(root, &ws);
		plan = pg_plan_build(root, diff_plan_flags);
		assert_non_null(plan);
		o = calloc(ws.n, sizeof(*o));
		assert_non_null(o);
		before = tu_snapshot(top);
		t.workspaces++;
		if (!probe(&ws, how, root, o, why, sizeof(why))) {
			t.broken++;
			if (may_report(&t, &ws, plan))
				print_message("  BROKEN launch: %s\n", why);
		} else {
			compare(&t, &ws, j, o, plan);
		}
		after = tu_snapshot(top);
		if ((diff = tu_snapshot_diff(before, after))) {
			t.changed++;
			if (may_report(&t, &ws, plan))
				print_message("  HOST CHANGED: %s\n", diff);
			free(diff);
		}
		tu_snapshot_free(before);
		tu_snapshot_free(after);
		free(o);
		free(j);
		pg_plan_free(plan);
		pg_root_close(root);
		ws_free(&ws);
	}
	summary(&t);
	if (t.reports > max_reports)
		print_message("(%u reports past the first %u not printed; PG_DIFF_REPORTS raises the bound)\n",
			      t.reports - max_reports, max_reports);
	assert_int_equal(t.broken, 0);
	assert_int_equal(t.changed, 0);
	assert_int_equal(t.escapes, 0);
	assert_int_equal(t.over, 0);
}

/* -------------------------------------------------------------- cases */

/* The control: on the bare host both probes reach every name the host
 * has (denied ones included) and nothing that is not there, so what they
 * cannot do under an enforcer is the enforcer's doing; and the very
 * comparison the enforcers face finds escapes in the bare host's answers,
 * so it can fail. */
static void probes_see_every_name_on_the_bare_host(void **state)
{
	static const enum how hows[] = { BARE_RAW, BARE_LIBC };
	struct tally bare = { .what = "bare host", .reports = UINT_MAX / 2 };   /* quiet */
	unsigned wrong = 0;

	(void)state;
	for (unsigned k = 0; k < n_workspaces; k++) {
		struct outcome *o;
		struct judged *j;
		pg_root *root;
		struct ws ws;
		char why[512], a[1024], b[64], c[64];

		ws_make(&ws, first_seed + k);
		root = ws_root(&ws, 0);
		j = judge(root, &ws);
		o = calloc(ws.n, sizeof(*o));
		assert_non_null(o);
		for (size_t h = 0; h < sizeof(hows) / sizeof(hows[0]); h++) {
			if (!probe(&ws, hows[h], NULL, o, why, sizeof(why)))
				fail_msg("seed %llu: %s: %s", (unsigned long long)ws.seed, how_name[hows[h]], why);
			compare(&bare, &ws, j, o, NULL);
			for (size_t i = 0; i < ws.n; i++) {
				const struct name *n = &ws.names[i];
				bool r = could_read(n, &o[i]), w = could_write(n, &o[i]);

				if (r == !n->dangling && (n->dir || n->dangling || w))
					continue;
				wrong++;
				print_message("seed %llu: %s: '%s' (%c%s): read %s, write %s\n",
					      (unsigned long long)ws.seed, how_name[hows[h]],
					      shown(n->rel, a, sizeof(a)), n->kind, n->dangling ? ", dangling" : "",
					      told(o[i].r, o[i].ri, n, b, sizeof(b)),
					      told(o[i].w, o[i].wi, n, c, sizeof(c)));
			}
		}
		free(o);
		free(j);
		pg_root_close(root);
		ws_free(&ws);
	}
	print_message("control: %u names probed twice on the bare host, %u wrong; the comparison "
		      "finds %u escapes there (pg_check refused, the bare probe did it)\n",
		      bare.names / 2, wrong, bare.escapes);
	assert_int_equal(wrong, 0);
	/* Without escapes found here, none found under an enforcer would
	 * mean anything. */
	assert_true(bare.escapes > 0);
}

/* Both resolvers give every name the same verdict. */
static void resolvers_judge_every_name_alike(void **state)
{
	unsigned splits = 0, verdicts = 0;

	(void)state;
	for (unsigned k = 0; k < n_workspaces; k++) {
		pg_root *fast, *walk;
		struct judged *x, *y;
		struct ws ws;
		char a[1024];

		ws_make(&ws, first_seed + k);
		fast = ws_root(&ws, 0);
		walk = ws_root(&ws, PG_ROOT_NO_OPENAT2);
		x = judge(fast, &ws);
		y = judge(walk, &ws);
		for (size_t i = 0; i < ws.n; i++) {
			const struct verdict *v[2][2] = { { &x[i].read, &y[i].read },
							  { &x[i].write, &y[i].write } };

			for (int op = 0; op < 2; op++) {
				verdicts++;
				if (v[op][0]->allowed == v[op][1]->allowed && v[op][0]->err == v[op][1]->err)
					continue;
				if (splits++ < max_reports)
					print_message("SPLIT seed %llu %s '%s': openat2 %s (%d); walk %s (%d)\n",
						      (unsigned long long)ws.seed, op ? "write" : "read",
						      shown(ws.names[i].rel, a, sizeof(a)), v[op][0]->why,
						      v[op][0]->err, v[op][1]->why, v[op][1]->err);
			}
		}
		free(x);
		free(y);
		pg_root_close(fast);
		pg_root_close(walk);
		ws_free(&ws);
	}
	print_message("resolvers: %u workspaces, %u verdicts compared, %u splits\n",
		      n_workspaces, verdicts, splits);
	assert_int_equal(splits, 0);
}

static void envelope_matches_pg_check_on_the_openat2_root(void **state)
{
	(void)state;
	differential(ENVELOPE, 0, "envelope, openat2 root");
}

static void envelope_matches_pg_check_on_the_walk_root(void **state)
{
	(void)state;
	differential(ENVELOPE, PG_ROOT_NO_OPENAT2, "envelope, O_PATH walk root");
}

/* An ASan-instrumented preload cannot load into an uninstrumented
 * program: the preload's cases say so and skip in a sanitizer build. */
static bool preload_usable(void)
{
	if (!getenv("PG_SANITIZERS"))
		return true;
	print_message("SKIP: sanitizer build: an ASan-instrumented preload cannot load into the probe\n");
	return false;
}

static void preload_alone_matches_pg_check(void **state)
{
	(void)state;
	if (!preload_usable())
		skip();
	differential(PRELOAD_ALONE, 0, "preload alone");
}

static void pathgate_run_matches_pg_check(void **state)
{
	(void)state;
	if (!preload_usable())
		skip();
	differential(PATHGATE_RUN, 0, "pathgate run");
}

/* The Landlock envelope on the same workspaces, with the raw probe: no
 * escape, and an over-refusal only where the Landlock plan names a seam
 * (a split directory, which cannot be listed when a denied directory
 * lies beneath).  Skipped where the kernel has no Landlock. */
static void landlock_matches_pg_check(void **state)
{
	char helper[PATH_MAX];
	const char *why;
	size_t n = strlen(pathgate_cmd) - strlen("/shim/pathgate");

	(void)state;
	if (!pg_landlock_abi(&why)) {
		print_message("SKIP: %s\n", why);
		skip();
	}
	fits(snprintf(helper, sizeof(helper), "%.*s/libexec/pathgate-landlock-exec", (int)n,
		      pathgate_cmd), sizeof(helper));
	pg_landlock_set_helper(helper);
	diff_plan_flags = PG_PLAN_LANDLOCK;
	differential(LANDLOCK_RAW, 0, "Landlock envelope, openat2 root");
	diff_plan_flags = 0;
}

/* ------------------------------------------------------------- set-up */

static unsigned long long env_number(const char *name, unsigned long long dflt)
{
	const char *s = getenv(name);
	char *end;
	unsigned long long v;

	if (!s || !*s)
		return dflt;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || *end) {
		fprintf(stderr, "test_differential: %s=%s is not a number\n", name, s);
		exit(99);
	}
	return v;
}

/* The build tree: $top_builddir, else two levels above this program
 * (tests/test_differential, or tests/.libs/ under libtool). */
static void find_programs(void)
{
	const char *b = getenv("top_builddir");
	char self[PATH_MAX], dir[PATH_MAX];
	ssize_t n;

	if (b && *b) {
		snprintf(dir, sizeof(dir), "%s", b);
	} else {
		n = readlink("/proc/self/exe", self, sizeof(self) - 1);
		if (n <= 0)
			exit(99);
		self[n] = '\0';
		*strrchr(self, '/') = '\0';
		if (strcmp(strrchr(self, '/'), "/.libs") == 0)
			*strrchr(self, '/') = '\0';
		*strrchr(self, '/') = '\0';
		snprintf(dir, sizeof(dir), "%s", self);
	}
	if (!realpath(dir, self)) {
		perror(dir);
		exit(99);
	}
	fits(snprintf(rawprobe, sizeof(rawprobe), "%s/tests/differential/rawprobe", self), sizeof(rawprobe));
	fits(snprintf(libcprobe, sizeof(libcprobe), "%s/tests/differential/libcprobe", self), sizeof(libcprobe));
	fits(snprintf(pathgate_cmd, sizeof(pathgate_cmd), "%s/shim/pathgate", self), sizeof(pathgate_cmd));
	fits(snprintf(dir, sizeof(dir), "%s/shim/.libs/libpathgate-preload.so", self), sizeof(dir));
	setenv("PATHGATE_PRELOAD", dir, 0);
	unsetenv("LD_PRELOAD");
	unsetenv("PATHGATE_ROOT");
	unsetenv("PATHGATE_POLICY");
	unsetenv("PATHGATE_POLICY_TEXT");
	unsetenv("PATHGATE_LOG");
}

/* True when FILE is an ELF program with no interpreter: linked static,
 * so no LD_PRELOAD can reach into it. */
static bool is_static(const char *file)
{
	unsigned char buf[4096];
	int fd = open(file, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf)) : -1;

	if (fd >= 0)
		close(fd);
	if (n < 64 || memcmp(buf, "\177ELF", 4) != 0 || buf[4] != 2)
		return false;
	/* ELF64: e_phoff at 32, e_phentsize at 54, e_phnum at 56; PT_INTERP is 3. */
	uint64_t off;
	uint16_t size, num;

	memcpy(&off, buf + 32, 8);
	memcpy(&size, buf + 54, 2);
	memcpy(&num, buf + 56, 2);
	for (uint16_t i = 0; i < num; i++) {
		uint32_t type;

		if (off + (uint64_t)(i + 1) * size > (uint64_t)n)
			return false;
		memcpy(&type, buf + off + (uint64_t)i * size, 4);
		if (type == 3)
			return false;
	}
	return true;
}

static void skip_run(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

static void skip_run(const char *fmt, ...)
{
	va_list ap;

	printf("SKIP: ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	exit(77);
}

/* The envelope must be available: run /bin/true under it once. */
static void require_envelope(void)
{
	char *argv[] = { (char *)"true", NULL };
	pg_root *root = pg_root_open(top, NULL, 0);
	int err, status;
	pid_t pid;

	if (!root)
		skip_run("cannot open %s as a root: %s", top, strerror(errno));
	err = pg_spawn(&pid, root, "/bin/true", NULL, NULL, argv, NULL);
	pg_root_close(root);
	if (err)
		skip_run("the envelope cannot be built here: %s (%s)", strerror(err),
			 pg_last_refusal()->name ? pg_last_refusal()->name : "");
	waitpid(pid, &status, 0);
}

/* Copy the probe at PATH (SIZE bytes of room) into the scratch tree, where
 * every envelope shows it whatever the build tree's place, and point PATH
 * at the copy. */
static void copy_probe(char *path, const char *name, size_t size)
{
	char dest[PATH_MAX];
	int in, out;
	ssize_t n;
	char buf[65536];

	fits(snprintf(dest, sizeof(dest), "%s/%s", top, name), sizeof(dest));
	in = open(path, O_RDONLY | O_CLOEXEC);
	out = open(dest, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0755);
	if (in < 0 || out < 0) {
		perror(dest);
		exit(99);
	}
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n) {
			perror(dest);
			exit(99);
		}
	if (n < 0 || close(out) < 0) {
		perror(dest);
		exit(99);
	}
	close(in);
	fits(snprintf(path, size, "%s", dest), size);
}

static void prepare(void)
{
	const char *tmp = getenv("TMPDIR");
	char p[PATH_MAX];

	n_workspaces = (unsigned)env_number("PG_DIFF_WORKSPACES", n_workspaces);
	first_seed = env_number("PG_DIFF_SEED", first_seed);
	max_reports = (unsigned)env_number("PG_DIFF_REPORTS", max_reports);
	find_programs();
	if (access(rawprobe, X_OK) || access(libcprobe, X_OK) || access(pathgate_cmd, X_OK))
		skip_run("%s, %s or %s is not built", rawprobe, libcprobe, pathgate_cmd);
	if (!is_static(rawprobe))
		skip_run("%s is not static: configure could not link a static program here, "
			 "and only a static probe is out of every LD_PRELOAD's reach", rawprobe);
	/* The envelope gives the child a private /tmp: the scratch tree (and
	 * the probes copied into it) must lie elsewhere to be seen. */
	if (!tmp || !*tmp || strncmp(tmp, "/tmp", 4) == 0)
		tmp = "/var/tmp";
	snprintf(p, sizeof(p), "%s/pg-diff-XXXXXX", tmp);
	if (!mkdtemp(p) || !realpath(p, top)) {
		perror(p);
		exit(99);
	}
	chmod(top, 0755);   /* the unprivileged run reaches the probes */
	copy_probe(rawprobe, "rawprobe", sizeof(rawprobe));
	copy_probe(libcprobe, "libcprobe", sizeof(libcprobe));
	require_envelope();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(probes_see_every_name_on_the_bare_host),
		cmocka_unit_test(resolvers_judge_every_name_alike),
		cmocka_unit_test(envelope_matches_pg_check_on_the_openat2_root),
		cmocka_unit_test(envelope_matches_pg_check_on_the_walk_root),
		cmocka_unit_test(preload_alone_matches_pg_check),
		cmocka_unit_test(pathgate_run_matches_pg_check),
		cmocka_unit_test(landlock_matches_pg_check),
	};
	int failed, fds;

	signal(SIGPIPE, SIG_IGN);
	prepare();
	fds = tu_fd_count();
	print_message("%u workspaces per case from seed %llu under %s (uid %u)\n", n_workspaces,
		      (unsigned long long)first_seed, top, (unsigned)getuid());
	failed = cmocka_run_group_tests_name("differential: pg_check against the enforcers", tests,
					     NULL, NULL);
	if (tu_fd_count() != fds) {
		fprintf(stderr, "test_differential: %d descriptors leaked\n", tu_fd_count() - fds);
		failed++;
	}
	tu_rmtree(top);
	return failed ? 1 : 0;
}
