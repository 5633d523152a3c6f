/* landlock-plan.c - the Landlock envelope's translation of a plan.
 *
 * The plan (envelope-plan.h) says what a child sees at every host path:
 * the region mounts the one judge laid.  Landlock can only grant, and a
 * grant on a directory reaches everything beneath it, so:
 *   - a region with nothing narrower beneath it is one grant (read: read
 *     files, list, execute; write: every right this ABI handles);
 *   - a region with something narrower beneath it (a read-only or denied
 *     mount, a pinned directory) is "split": its entries are granted one
 *     by one (each again by these two rules), and the directory itself
 *     keeps only the right to be listed, and that only when no denied
 *     directory lies beneath it (listing would reach into it).  A split
 *     directory cannot get new names, and its entries cannot be removed
 *     or renamed: new files there could get no right to be written, and
 *     a removal right would reach the narrower names.  Each split is a
 *     named seam of the plan.
 * The region at an entry is pg_plan_region_at's answer, the same view
 * bwrap would show: nothing here judges a name.  The envelope's own
 * /tmp, /dev and /proc are never granted from the host's "/" (a root
 * caller owns /dev's disks): /dev is six devices, /proc is read-only,
 * /tmp is only what the plan binds beneath it.
 *
 * The ruleset is built here, in the caller, with an O_PATH descriptor per
 * grant opened relative to the directory listed (or the descriptor the
 * planner inspected), so every error is known before anything runs. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "envelope-plan.h"
#include "landlock-abi.h"
#include "landlock.h"
#include "root.h"

/* ------------------------------------------------------------ the ABI */

static pthread_once_t abi_once = PTHREAD_ONCE_INIT;
static int abi_cached;
static char abi_why[160];

static void probe_abi(void)
{
	long v = pg_ll_create_ruleset(NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);

	if (v >= 1) {
		abi_cached = (int)v;
		return;
	}
	snprintf(abi_why, sizeof(abi_why), "%s",
		 errno == ENOSYS ? "the kernel has no Landlock (landlock_create_ruleset: ENOSYS)"
		 : errno == EOPNOTSUPP ? "Landlock is built but not enabled (add landlock to the lsm= boot parameter)"
		 : "Landlock cannot be probed here");
}

int pg_landlock_abi(const char **why)
{
	pthread_once(&abi_once, probe_abi);
	if (why)
		*why = abi_cached ? NULL : abi_why;
	return abi_cached;
}

static uint64_t handled_fs_for(int abi)
{
	uint64_t fs = (LANDLOCK_ACCESS_FS_MAKE_SYM << 1) - 1;   /* ABI 1 */

	if (abi >= 2)
		fs |= LANDLOCK_ACCESS_FS_REFER;
	if (abi >= 3)
		fs |= LANDLOCK_ACCESS_FS_TRUNCATE;
	if (abi >= 5)
		fs |= LANDLOCK_ACCESS_FS_IOCTL_DEV;
	return fs;
}

/* ------------------------------------------------------ the translator */

/* A point of the plan where the view changes: a region mount (the top
 * one at its path), a pin, or the envelope's own directories. */
struct mp {
	const char *path;
	size_t      len;
	enum region region;
	bool        dir, pin;
	const char *rule;
	int         fd;       /* the planner's descriptor, or -1 */
};

struct tr {
	struct pg_plan     *pl;
	struct pg_landlock *ll;
	struct mp          *mps;
	size_t              n;
	const char         *base_rule;
	struct pg_root     *root;     /* names a seam's rule, as pg_check would */
	char              **owned;    /* paths of points made here */
	size_t              nowned, capowned;
};

static const char SEAM_SPLIT[] =
	"landlock: granted entry by entry (%s lies beneath, narrower, by %s): the child cannot create names here, nor remove or rename entries%s; what the host adds here after the plan is not granted";

static int cmp_path(const char *a, const char *b)
{
	/* '/' sorts first, so a directory's descendants follow it in a run. */
	for (;; a++, b++) {
		unsigned char x = *a == '/' ? 1 : (unsigned char)*a;
		unsigned char y = *b == '/' ? 1 : (unsigned char)*b;

		if (x != y || !x)
			return x - y;
	}
}

static int cmp_mp(const void *a, const void *b)
{
	return cmp_path(((const struct mp *)a)->path, ((const struct mp *)b)->path);
}

static bool strictly_beneath(const char *p, size_t plen, const struct mp *q)
{
	return q->len != plen && pg_covers_n(p, plen, q->path, q->len);
}

/* The rule that decides the region at PATH. */
static const char *region_rule(const struct tr *t, const char *path)
{
	size_t i = pg_plan_nearest_mount(t->pl, path);

	return i != (size_t)-1 ? t->pl->mounts[i].rule : t->base_rule;
}

/* What bwrap's child would see at PATH: the plan's view. */
static enum region plan_region(const struct tr *t, const char *path)
{
	enum region r = pg_plan_region_at(t->pl, path);

	return r == REGION_PRIVATE ? REGION_HIDDEN : r;
}

/* What the child sees at PATH: the nearest point at or above it (the
 * plan's top region mounts, the envelope's own directories, and what
 * this translation hides), else the plan's base. */
static enum region ll_region(const struct tr *t, const char *path)
{
	size_t plen = strlen(path), best = 0;
	enum region r = t->pl->base == REGION_PRIVATE ? REGION_HIDDEN : t->pl->base;

	for (size_t i = 0; i < t->n; i++) {
		const struct mp *q = &t->mps[i];

		if (q->pin || q->len < best || !pg_covers_n(q->path, q->len, path, plen))
			continue;
		if (q->len > best || q->region < r)   /* the stricter at one path */
			r = q->region;
		best = q->len;
	}
	return r;
}

/* The rule pg_check names for PATH (the judge's, rendered), so that a
 * seam names the rule the child's refusal there is measured against. */
static const char *judged_rule(const struct tr *t, const char *path, char *buf, size_t size)
{
	struct pg_judgement j;

	buf[0] = '\0';
	if (!t->root)
		return region_rule(t, path);
	pthread_rwlock_rdlock(&t->root->lock);
	pg_plan_judge(t->pl, t->root, path, &j);
	if (j.cap || j.rule)
		pg_rule_render(j.cap ? j.cap : j.rule, buf, size);
	pthread_rwlock_unlock(&t->root->lock);
	return buf;
}

static uint64_t rights(const struct tr *t, enum region r, bool dir)
{
	uint64_t a = r == REGION_RW ? t->ll->handled_fs
		   : r == REGION_RO ? (PG_LL_READ_RIGHTS & t->ll->handled_fs) : 0;

	return dir ? a : a & PG_LL_FILE_RIGHTS;
}

static void words(uint64_t a, char *buf, size_t size)
{
	static const struct { uint64_t bit; const char *w; } names[] = {
		{ LANDLOCK_ACCESS_FS_READ_FILE, "read" }, { LANDLOCK_ACCESS_FS_READ_DIR, "list" },
		{ LANDLOCK_ACCESS_FS_EXECUTE, "execute" }, { LANDLOCK_ACCESS_FS_WRITE_FILE, "write" },
		{ LANDLOCK_ACCESS_FS_TRUNCATE, "truncate" }, { LANDLOCK_ACCESS_FS_MAKE_REG, "create" },
		{ LANDLOCK_ACCESS_FS_REMOVE_FILE, "remove" }, { LANDLOCK_ACCESS_FS_REFER, "refer" },
		{ LANDLOCK_ACCESS_FS_IOCTL_DEV, "ioctl" },
	};
	size_t n = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if ((a & names[i].bit) && n + strlen(names[i].w) + 2 < size)
			n += (size_t)snprintf(buf + n, size - n, "%s%s", n ? "," : "", names[i].w);
}

/* Add the rule FD -> ACCESS to the ruleset and record it. */
static void grant(struct tr *t, int fd, const char *path, uint64_t access, const char *rule,
		  const char *why)
{
	struct pg_landlock *ll = t->ll;
	struct pg_ll_path_beneath pb = { .allowed_access = access, .parent_fd = fd };
	struct pg_ll_grant *g;

	if (!access || fd < 0 || ll->why)
		return;
	if (pg_ll_add_rule(ll->ruleset, LANDLOCK_RULE_PATH_BENEATH, &pb) < 0) {
		snprintf(ll->whybuf, sizeof(ll->whybuf), "landlock_add_rule(%s): %s", path,
			 strerror(errno));
		ll->why = ll->whybuf;
		return;
	}
	if (!PLAN_GROW(ll->grants, ll->ngrants, ll->capgrants)) {
		ll->oom = true;
		return;
	}
	g = &ll->grants[ll->ngrants];
	g->path = strdup(path);
	g->rule = strdup(rule ? rule : "");
	g->access = access;
	g->why = why;
	words(access, g->text, sizeof(g->text));
	if (!g->path || !g->rule) {
		free(g->path);
		free(g->rule);
		ll->oom = true;
		return;
	}
	ll->ngrants++;
}

static void weaker(struct tr *t, const char *path, const char *rule, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void weaker(struct tr *t, const char *path, const char *rule, const char *fmt, ...)
{
	char why[600];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	if (!t->ll->weaker && !(t->ll->weaker = strdup(why)))
		t->ll->oom = true;
	t->ll->nweaker++;
	pg_plan_note(t->pl, true, path, rule, "landlock, weaker than bwrap%s: %s",
		     t->ll->accept_weaker ? " (accepted)" : " (refused unless accepted)", why);
}

static void node(struct tr *t, int fd, const char *path, bool dir);

/* The points strictly beneath PATH with no other non-pin point between. */
static void descend_points(struct tr *t, const char *path)
{
	size_t plen = strlen(path);
	const struct mp *last = NULL;

	for (size_t i = 0; i < t->n && !t->ll->oom; i++) {
		const struct mp *q = &t->mps[i];

		if (q->pin || !strictly_beneath(path, plen, q))
			continue;
		if (last && strictly_beneath(last->path, last->len, q))
			continue;
		last = q;
		node(t, q->fd, q->path, q->dir);
	}
}

struct below {
	bool        narrower;    /* something beneath shows less */
	bool        hidden_dir;  /* a denied directory lies beneath */
	const char *rule;        /* the narrower point's rule */
	const char *at;          /* the first narrower point */
	const char *hidden;      /* that directory */
};

static struct below look_below(const struct tr *t, const char *path, enum region r)
{
	struct below b = { 0 };
	size_t plen = strlen(path);

	for (size_t i = 0; i < t->n; i++) {
		const struct mp *q = &t->mps[i];

		if (!strictly_beneath(path, plen, q))
			continue;
		if (q->region < r || (q->pin && r == REGION_RW)) {
			if (!b.narrower) {
				b.rule = q->rule;
				b.at = q->path;
			}
			b.narrower = true;
		}
		/* a denied directory (a mask), or the host's /tmp, whose names
		 * the policy may not show */
		if (q->region == REGION_HIDDEN && q->dir && q->fd == -1 && r != REGION_HIDDEN &&
		    (q->rule[0] || !strcmp(q->path, "/tmp")) && !b.hidden_dir) {
			b.hidden_dir = true;
			b.hidden = q->path;
			b.rule = q->rule;
		}
	}
	return b;
}

static bool bounded(struct tr *t, const char *path)
{
	if (++t->ll->entries <= t->pl->glob_max_entries)
		return true;
	if (!t->ll->why) {
		snprintf(t->ll->whybuf, sizeof(t->ll->whybuf),
			 "landlock: more than %u entries to grant one by one (at %s)",
			 t->pl->glob_max_entries, path);
		t->ll->why = t->ll->whybuf;
	}
	return false;
}

static bool owned(const char *path)
{
	return pg_covers("/tmp", path) || pg_covers("/dev", path) || pg_covers("/proc", path);
}

/* Grant the entries of the split directory DFD (owned) at PATH. */
static void grant_entries(struct tr *t, int dfd, const char *path)
{
	DIR *d = fdopendir(dfd);
	struct dirent *de;
	char child[PATH_MAX];

	if (!d) {
		close(dfd);
		return;
	}
	while (!t->ll->oom && !t->ll->why && (de = readdir(d))) {
		struct stat st;
		int cfd;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..") || !bounded(t, path))
			continue;
		if (snprintf(child, sizeof(child), "%s/%s", strcmp(path, "/") ? path : "",
			     de->d_name) >= (int)sizeof(child))
			continue;
		if (owned(child)) {
			if (!strcmp(child, "/tmp"))
				descend_points(t, child);
			continue;
		}
		cfd = openat(dirfd(d), de->d_name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (cfd < 0)
			continue;
		/* A symlink is reached through its target, which has grants of
		 * its own; a grant cannot sit on the link.  A rule on a file
		 * holds for every hard link to it, and another may lie where the
		 * policy denies: such a file is not granted by itself. */
		if (fstat(cfd, &st) == 0 && !S_ISLNK(st.st_mode))
			node(t, cfd, child, S_ISDIR(st.st_mode));
		close(cfd);
	}
	closedir(d);
}

static void split(struct tr *t, int fd, const char *path, enum region r,
		  const struct below *b)
{
	uint64_t own = rights(t, r, true) & LANDLOCK_ACCESS_FS_READ_DIR;
	const char *rule = region_rule(t, path);
	int dfd;

	if (b->hidden_dir && t->ll->accept_weaker)
		weaker(t, path, b->rule,
		       "listed although the denied directory %s lies beneath: its names can be listed, its contents stay out of reach",
		       b->hidden);
	else if (b->hidden_dir)
		own = 0;
	grant(t, fd, path, own, rule, "split: listing only");
	char jr[PG_PATH_MAX + 600];

	/* The seam carries the rule it narrows (pg_check's for this
	 * directory), and names the narrower point that made it. */
	pg_plan_note(t->pl, true, path, judged_rule(t, path, jr, sizeof(jr)), SEAM_SPLIT, b->hidden_dir ? b->hidden : b->at,
		     b->rule[0] ? b->rule : "the envelope's own",
		     own ? "" : ", nor list it (listing would reach into it)");
	t->ll->nsplits++;
	dfd = fd >= 0 ? openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
	if (dfd < 0) {
		pg_plan_note(t->pl, true, path, rule,
			     "landlock: cannot be listed by the planner (%s): its entries get nothing",
			     strerror(errno));
		descend_points(t, path);
		return;
	}
	grant_entries(t, dfd, path);
}

/* PATH (FD: an O_PATH descriptor of it, or -1 for a mask): one grant when
 * nothing beneath is narrower, else split. */
static void node(struct tr *t, int fd, const char *path, bool dir)
{
	enum region r = ll_region(t, path);
	struct below b = { 0 };
	struct stat st;
	char jr[PG_PATH_MAX + 600];

	/* A rule on a file holds for every hard link to it, and another may
	 * lie where the policy denies: such a file is not granted by itself. */
	if (!dir && r != REGION_HIDDEN && fd >= 0 && fstat(fd, &st) == 0 && st.st_nlink > 1) {
		pg_plan_note(t->pl, true, path, judged_rule(t, path, jr, sizeof(jr)),
			     "landlock: a file with other hard links is not granted by itself (a Landlock rule on a file holds for every link to it, and another may lie where the policy denies): the child cannot open it");
		return;
	}
	if (dir)
		b = look_below(t, path, r);
	if (!b.narrower) {
		grant(t, fd, path, rights(t, r, dir), region_rule(t, path),
		      r == REGION_RW ? "write" : "read");
		if (dir)
			descend_points(t, path);
		return;
	}
	split(t, fd, path, r, &b);
}

/* ------------------------------------------------------ collecting */

static bool add_point(struct tr *t, const char *path, enum region r, bool dir, bool pin,
		      const char *rule, int fd)
{
	struct mp *grown = realloc(t->mps, (t->n + 1) * sizeof(*grown));

	if (!grown)
		return false;
	t->mps = grown;
	t->mps[t->n++] = (struct mp){ path, strlen(path), r, dir, pin, rule ? rule : "", fd };
	return true;
}

static bool mount_is_dir(const struct plan_mount *m)
{
	struct stat st;

	if (m->kind == MK_MASK_DIR || m->kind == MK_PIN || m->kind == MK_PIN_RW)
		return true;
	return m->fd >= 0 && fstat(m->fd, &st) == 0 && S_ISDIR(st.st_mode);
}

static bool collect(struct tr *t)
{
	struct pg_plan *pl = t->pl;

	t->base_rule = "";
	for (size_t i = 0; i < pl->nmounts; i++) {
		const struct plan_mount *m = &pl->mounts[i];
		bool pin = m->kind == MK_PIN || m->kind == MK_PIN_RW;

		if (m->kind == MK_BASE)
			t->base_rule = m->rule;
		if ((!pg_plan_is_region_mount(m->kind) && !pin) ||
		    (m->why && !strcmp(m->why, "lent")) ||
		    pg_covers("/dev", m->dest) || pg_covers("/proc", m->dest))
			continue;
		if (!pin && pg_plan_nearest_mount(pl, m->dest) != i)
			continue;   /* not the top mount at its path */
		if (!add_point(t, m->dest, plan_region(t, m->dest), mount_is_dir(m), pin, m->rule,
			       pin ? -1 : m->fd))
			return false;
	}
	/* The envelope's own directories: never granted from "/". */
	if (!add_point(t, "/tmp", REGION_HIDDEN, true, false, "", -1) ||
	    !add_point(t, "/dev", REGION_HIDDEN, true, false, "", -1) ||
	    !add_point(t, "/proc", REGION_HIDDEN, true, false, "", -1))
		return false;
	if (t->n)
		qsort(t->mps, t->n, sizeof(*t->mps), cmp_mp);
	return true;
}

/* ------------------------------------------ symlinks in denied directories */

/* bwrap hides what lies in a denied directory; Landlock does not mediate
 * lookups, so a child can follow a symlink in there.  As the planner does
 * for every denied symlink a child can see, what it leads to is hidden
 * too (a point of its own), unless that is the workspace root or above,
 * which cannot be narrowed: a seam. */
static bool hide_target(struct tr *t, const char *link, const char *rule)
{
	char *target = realpath(link, NULL), *keep;
	struct stat st;
	bool ok = true;

	if (!target || lstat(target, &st) < 0) {
		free(target);
		return true;
	}
	if (pg_covers_n(target, strlen(target), t->pl->root, t->pl->root_len)) {
		pg_plan_note(t->pl, true, link, rule,
			     "landlock: symlink in a denied directory to the workspace root or above: what it leads to cannot be narrowed, so the link's rule is held in process only");
		free(target);
		return true;
	}
	if (ll_region(t, target) == REGION_HIDDEN) {
		free(target);
		return true;
	}
	keep = strdup(link);
	if (!keep || !PLAN_GROW(t->owned, t->nowned, t->capowned)) {
		free(keep);
		free(target);
		return false;
	}
	t->owned[t->nowned++] = target;
	for (size_t i = 0; target && i < t->n; i++)
		if (!t->mps[i].pin && !strcmp(t->mps[i].path, target)) {
			t->mps[i].region = REGION_HIDDEN;   /* stricter than what lies there */
			t->mps[i].rule = rule;
			target = NULL;
		}
	ok = !target || add_point(t, target, REGION_HIDDEN, S_ISDIR(st.st_mode), false, rule, -1);
	pg_plan_note(t->pl, false, t->owned[t->nowned - 1], rule,
		     "landlock: hidden as the target of the symlink %s in a denied directory (Landlock cannot hide the link itself); pg_check judges the target's own name by its rules",
		     keep);
	free(keep);
	return ok;
}

/* The symlinks beneath the denied directory DFD (owned) at PATH. */
static bool links_beneath(struct tr *t, int dfd, const char *path, const char *rule,
			  unsigned depth)
{
	DIR *d = fdopendir(dfd);
	struct dirent *de;
	char child[PATH_MAX];
	bool ok = true;

	if (!d) {
		close(dfd);
		return true;
	}
	while (ok && (de = readdir(d))) {
		struct stat st;
		int sub;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..") || !bounded(t, path) ||
		    snprintf(child, sizeof(child), "%s/%s", path, de->d_name) >= (int)sizeof(child) ||
		    fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		if (S_ISLNK(st.st_mode))
			ok = hide_target(t, child, rule);
		else if (S_ISDIR(st.st_mode) && depth < t->pl->glob_max_depth &&
			 (sub = openat(dirfd(d), de->d_name,
				       O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) >= 0)
			ok = links_beneath(t, sub, child, rule, depth + 1);
	}
	closedir(d);
	return ok;
}

static bool hide_link_targets(struct tr *t)
{
	size_t n = t->n;

	for (size_t i = 0; i < n; i++) {
		const struct plan_mount *m;
		size_t k;
		int fd;

		if (t->mps[i].region != REGION_HIDDEN || !t->mps[i].dir || !t->mps[i].rule[0])
			continue;
		k = pg_plan_nearest_mount(t->pl, t->mps[i].path);
		m = k != (size_t)-1 ? &t->pl->mounts[k] : NULL;
		if (!m || m->kind != MK_MASK_DIR)
			continue;
		fd = open(m->dest, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd >= 0 && !links_beneath(t, fd, m->dest, m->rule, 0))
			return false;
	}
	return true;
}

/* /dev as bwrap's --dev shows it (the devices that hold no data), and
 * /proc read-only: the host's, there is no pid namespace. */
static void grant_own(struct tr *t)
{
	static const char *const devs[] = {
		"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty",
	};
	uint64_t rw = (LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_WRITE_FILE |
		       LANDLOCK_ACCESS_FS_IOCTL_DEV) & t->ll->handled_fs;
	int fd;

	for (size_t i = 0; i < sizeof(devs) / sizeof(devs[0]); i++) {
		struct stat st;

		fd = open(devs[i], O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (fd >= 0 && fstat(fd, &st) == 0 && S_ISCHR(st.st_mode))
			grant(t, fd, devs[i], rw, "", "the envelope's /dev");
		if (fd >= 0)
			close(fd);
	}
	fd = open("/proc", O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd >= 0) {
		grant(t, fd, "/proc", LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR, "",
		      "the envelope's /proc (the host's, read-only)");
		close(fd);
	}
}

static const char *const ENVELOPE_SEAMS[] = {
	"landlock: names and metadata are not held: stat, access, readlink and chdir reach every host path (Landlock mediates opening, listing, creating, removing and renaming, not lookups); contents are held",
	"landlock: the envelope's own /tmp, /dev and /proc are not private: /tmp is only what the plan binds beneath it, /dev is six devices (null, zero, full, random, urandom, tty), /proc is the host's, read-only (the host's processes and command lines are visible; Landlock's ptrace scope keeps their memory, environment and descriptors out of reach)",
	"landlock: mode, owner, times and extended attributes cannot be changed, in write regions too (Landlock does not mediate them: seccomp refuses every such call); no network (seccomp refuses socket(), Landlock refuses TCP bind and connect), no SysV IPC, message queues or keyrings",
};

static void abi_notes(struct tr *t)
{
	int abi = t->ll->abi;

	for (size_t i = 0; i < sizeof(ENVELOPE_SEAMS) / sizeof(ENVELOPE_SEAMS[0]); i++)
		pg_plan_note(t->pl, true, "/", "", "%s", ENVELOPE_SEAMS[i]);
	if (abi < 2)
		pg_plan_note(t->pl, true, "/", "", "landlock ABI %d: no rename or link across directories (EXDEV)", abi);
	if (abi < 3)
		pg_plan_note(t->pl, true, "/", "", "landlock ABI %d: truncate(2) by name is refused by seccomp (no truncate right)", abi);
	if (abi < 6)
		weaker(t, "/", "", "landlock ABI %d has no scopes: the child can signal the caller's other processes and reach abstract UNIX sockets it is handed", abi);
}

static bool make_ruleset(struct pg_landlock *ll)
{
	struct pg_ll_ruleset_attr attr = { 0 };
	size_t size = ll->abi >= 6 ? sizeof(attr) : ll->abi >= 4 ? 16 : 8;

	ll->handled_fs = handled_fs_for(ll->abi);
	ll->handled_net = ll->abi >= 4 ? PG_LL_NET_BIND_TCP | PG_LL_NET_CONNECT_TCP : 0;
	ll->scoped = ll->abi >= 6 ? PG_LL_SCOPE_ABSTRACT_UNIX | PG_LL_SCOPE_SIGNAL : 0;
	attr.handled_access_fs = ll->handled_fs;
	attr.handled_access_net = ll->handled_net;
	attr.scoped = ll->scoped;
	ll->ruleset = (int)pg_ll_create_ruleset(&attr, size, 0);
	if (ll->ruleset >= 0)
		return true;
	snprintf(ll->whybuf, sizeof(ll->whybuf), "landlock_create_ruleset (ABI %d): %s", ll->abi,
		 strerror(errno));
	ll->why = ll->whybuf;
	return false;
}

static void landlock_free(void *p)
{
	struct pg_landlock *ll = p;

	if (!ll)
		return;
	if (ll->ruleset >= 0)
		close(ll->ruleset);
	for (size_t i = 0; i < ll->ngrants; i++) {
		free(ll->grants[i].path);
		free(ll->grants[i].rule);
	}
	free(ll->grants);
	free(ll->pub);
	free(ll->weaker);
	free(ll);
}

/* Publish the grants and the plan's notes again (the notes grew). */
static void publish(struct pg_plan *pl, struct pg_landlock *ll)
{
	struct pg_grant *pub = calloc(ll->ngrants + 1, sizeof(*pub));

	if (!pub) {
		ll->oom = true;
		return;
	}
	for (size_t i = 0; i < ll->ngrants; i++)
		pub[i] = (struct pg_grant){ ll->grants[i].path, ll->grants[i].text,
					    ll->grants[i].rule, ll->grants[i].why };
	free(ll->pub);
	ll->pub = pub;
	free(pl->pub_mounts);
	free(pl->pub_skips);
	free(pl->pub_seams);
	pl->pub_mounts = NULL;
	pl->pub_skips = NULL;
	pl->pub_seams = NULL;
	pg_plan_publish(pl);
}

static void translate(struct pg_plan *pl, struct pg_root *root, struct pg_landlock *ll)
{
	struct tr t = { .pl = pl, .ll = ll, .root = root };
	int fd;

	if (!make_ruleset(ll))
		return;
	if (!collect(&t) || !hide_link_targets(&t)) {
		ll->oom = true;
		goto out;
	}
	qsort(t.mps, t.n, sizeof(*t.mps), cmp_mp);
	abi_notes(&t);
	fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	node(&t, fd, "/", true);
	if (fd >= 0)
		close(fd);
	grant_own(&t);
out:
	for (size_t i = 0; i < t.nowned; i++)
		free(t.owned[i]);
	free(t.owned);
	free(t.mps);
}

int pg_landlock_translate(struct pg_plan *pl, struct pg_root *root, unsigned flags,
			  const char *chosen)
{
	struct pg_landlock *ll = calloc(1, sizeof(*ll));
	const char *why;

	if (!ll) {
		errno = ENOMEM;
		return -1;
	}
	ll->ruleset = -1;
	ll->accept_weaker = flags & PG_PLAN_ACCEPT_WEAKER;
	snprintf(ll->chosen, sizeof(ll->chosen), "%s", chosen ? chosen : "");
	pl->landlock = ll;
	pl->landlock_free = landlock_free;
	ll->abi = pg_landlock_abi(&why);
	if (!ll->abi)
		ll->why = why;
	else
		translate(pl, root, ll);
	if (!ll->oom)
		publish(pl, ll);
	if (ll->oom || pl->oom) {
		errno = ENOMEM;
		return -1;
	}
	return 0;
}

int pg_landlock_lend(struct pg_plan *pl, const char *host, const char *why)
{
	struct pg_landlock *ll = pl ? pl->landlock : NULL;
	struct tr t = { .pl = pl, .ll = ll };
	struct stat st;
	int fd;

	if (!ll || !host) {
		errno = EINVAL;
		return -1;
	}
	fd = open(host, O_PATH | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		errno = EINVAL;
		return -1;
	}
	grant(&t, fd, host, LANDLOCK_ACCESS_FS_READ_FILE, why ? why : "", "lent");
	close(fd);
	if (!ll->oom)
		publish(pl, ll);
	if (ll->oom || pl->oom) {
		errno = ENOMEM;
		return -1;
	}
	return 0;
}

/* ------------------------------------------------------ public getters */

size_t pg_plan_grant_count(const pg_plan *pl)
{
	return pl && pl->landlock ? ((const struct pg_landlock *)pl->landlock)->ngrants : 0;
}

const struct pg_grant *pg_plan_grant(const pg_plan *pl, size_t i)
{
	const struct pg_landlock *ll = pl ? pl->landlock : NULL;

	return ll && i < ll->ngrants && ll->pub ? &ll->pub[i] : NULL;
}
