/* plan-walk.c - the planner's walk of the host, led by the judge.
 *
 * From "/" down, a directory is listed only where the root's policy may
 * decide something beneath it (pg_policy_decides_beneath), or where the
 * workspace root still lies below; every other subtree is decided as its
 * top is.  Each name met is judged with the root's own judge, exactly as
 * pg_check judges that real name: beneath the root by its root-relative
 * name, elsewhere by its host path; a file with other hard links is judged
 * by identity too.  Where the judge's answer differs from what the child
 * would see there given the mounts above, the walk lays the mount that
 * shows the answer: a bind, a read-only bind or a mask in the name's own
 * shape.  So every spelling that exists on disk (another case or normal
 * form in any component, another hard link) is shown as the judge says,
 * and no decision is taken here.
 *
 * Symlinks are never followed: what a child reaches through one is the
 * target's real name, which has mounts of its own.  A symlink's own name
 * cannot carry a mount; a denied one in a writable region is a seam.
 *
 * The walk is bounded (entries listed, depth); a bound reached is
 * recorded in the plan, and the launcher refuses such a plan. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "envelope.h"
#include "envelope-plan.h"
#include "judge.h"
#include "resolve.h"
#include "root.h"

/* A protected file (denied or read-only) with other hard links, and how
 * many of its names the walk met (issue 10.6). */
struct linked {
	dev_t   dev;
	ino_t   ino;
	nlink_t nlink, met;
	char   *path;
	char   *rule;
};

struct walker {
	struct pg_plan *pl;
	pg_root        *root;
	struct linked  *linked;
	size_t          nlinked, caplinked;
	bool            every_name;   /* identities to find: list all of the root */
	bool            stopped;      /* a bound was reached */
	size_t          len;          /* of path */
	char            path[PATH_MAX];
};

static void count_link(struct walker *w, const struct stat *st, const char *rule);

/* PATH (LEN bytes) as the root's judge names it: root-relative beneath
 * the root, the host path elsewhere. */
static void judged_name(const struct pg_plan *pl, const char *path, size_t len,
			const char **name, size_t *nlen)
{
	if (!pg_covers_n(pl->root, pl->root_len, path, len)) {
		*name = path;
		*nlen = len;
		return;
	}
	*name = path + pl->root_len;
	*nlen = len - pl->root_len;
	if (*nlen && **name == '/') {
		(*name)++;
		(*nlen)--;
	}
}

static bool beneath_root(const struct pg_plan *pl, const char *path, size_t len)
{
	return pg_covers_n(pl->root, pl->root_len, path, len);
}

enum pg_access pg_plan_judge(const struct pg_plan *pl, const struct pg_root *root,
			     const char *path, struct pg_judgement *j)
{
	const char *name;
	size_t len;

	judged_name(pl, path, strlen(path), &name, &len);
	return pg_policy_judge(root->policy, name, len, j);
}

static void render(const struct pg_judgement *j, char *buf, size_t size)
{
	pg_rule_render(j->cap ? j->cap : j->rule, buf, size);
}

static enum region region_for(enum pg_access a)
{
	return a == PG_WRITE ? REGION_RW : a == PG_READ ? REGION_RO : REGION_HIDDEN;
}

/* A file is judged by identity too, as pg_check judges what it reaches:
 * another hard link to a denied or read-only file, or the file a denied
 * or read-only name leads to, is refused like that name. */
static enum pg_access judge_identity(struct walker *w, const struct stat *st,
				     enum pg_access acc)
{
	pg_root *root = w->root;

	if (acc == PG_DENY || S_ISDIR(st->st_mode) || !beneath_root(w->pl, w->path, w->len))
		return acc;
	if (pg_judge_needs_identity(root, PG_OP_READ) &&
	    pg_resolve_identity_locked(root, pg_object_of_stat(st), PG_OP_READ, w->path) < 0)
		return PG_DENY;
	if (acc == PG_WRITE && pg_judge_needs_identity(root, PG_OP_WRITE) &&
	    pg_resolve_identity_locked(root, pg_object_of_stat(st), PG_OP_WRITE, w->path) < 0)
		return PG_READ;
	return acc;
}

static void lay_mask(struct walker *w, const struct stat *st, const char *rule,
		     const char *why)
{
	struct plan_mount *m;

	if (S_ISDIR(st->st_mode))
		m = pg_plan_add_mount(w->pl, MK_MASK_DIR, strdup(w->path), NULL, -1, rule);
	else
		m = pg_plan_add_mount(w->pl, MK_MASK_FILE, strdup(w->path), strdup("/dev/null"),
				      -1, rule);
	if (m)
		m->why = why;
}

/* Lend the object the walk inspected (not whatever the name holds by the
 * time bwrap runs) by descriptor; false when it changed meanwhile. */
static bool lay_bind(struct walker *w, int dirfd, const char *name, const struct stat *st,
		     enum region want, const char *rule)
{
	int fd = openat(dirfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	struct plan_mount *m;
	struct stat now;

	if (fd < 0 || fstat(fd, &now) < 0 || now.st_dev != st->st_dev ||
	    now.st_ino != st->st_ino) {
		if (fd >= 0)
			close(fd);
		pg_plan_note(w->pl, false, w->path, rule,
			     "changed while the plan was made: nothing mounted");
		return false;
	}
	m = pg_plan_add_mount(w->pl, want == REGION_RW ? MK_BIND : MK_ROBIND,
			      strdup(w->path), strdup(w->path), fd, rule);
	if (m)
		m->why = want == REGION_RW ? "write" : "read";
	return m != NULL;
}

/* The canonical host path a symlink at w->path leads to, or NULL. */
static char *link_target(const char *path)
{
	char *canon = realpath(path, NULL);

	return canon;
}

/* Does the rule that decided J name exactly the host path PATH? */
static bool rule_names(const struct pg_plan *pl, const char *path,
		       const struct pg_judgement *j)
{
	const char *name;
	size_t len;
	unsigned depth = 0;

	if (!j->rule)
		return false;
	judged_name(pl, path, strlen(path), &name, &len);
	for (size_t i = 0; i < len; i++)
		if (name[i] != '/' && (i == 0 || name[i - 1] == '/'))
			depth++;
	return j->depth == depth;
}

static const char SEAM_LINK_NAME[] =
	"denied symlink in a writable region: a mount cannot sit on a symlink, so a child can replace the link's own name for this launch (its target stays masked)";

/* Lay WANT (a mask, or a read-only bind) over TARGET, the canonical
 * host path a symlink at w->path leads to, which the judge allows more
 * of: the link's own rule must hold through it.  pg_check judges the
 * target's own name by the rules, so the plan says why it is narrower
 * here.  The root itself or an ancestor cannot be narrowed without
 * taking the whole workspace: that is a seam. */
static void narrow_target(struct walker *w, const char *target, enum region want,
			  const char *rule)
{
	struct walker at = { .pl = w->pl, .root = w->root };
	struct stat st;
	int dfd;
	char *dir;

	if (pg_covers_n(target, strlen(target), w->pl->root, w->pl->root_len)) {
		pg_plan_note(w->pl, true, w->path, rule,
			     "symlink to the workspace root or above: what it leads to cannot be narrowed, so the link's rule is held in process only");
		return;
	}
	if (strlen(target) >= sizeof(at.path) || lstat(target, &st) < 0)
		return;
	at.len = strlen(target);
	memcpy(at.path, target, at.len + 1);
	if (want == REGION_HIDDEN) {
		lay_mask(&at, &st, rule, "mask (symlink target)");
	} else {
		dir = pg_parent_of(target);
		dfd = dir ? open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC) : -1;
		if (dfd >= 0) {
			lay_bind(&at, dfd, strrchr(target, '/') + 1, &st, want, rule);
			close(dfd);
		}
		free(dir);
	}
	pg_plan_note(w->pl, false, target, rule,
		     "%s as the target of the symlink %s; pg_check judges the target's own name by its rules",
		     want == REGION_HIDDEN ? "masked" : "bound read-only", w->path);
}

/* A denied symlink the child can see: its target must not be reachable
 * through it.  The root derives a deny of the target of every symlink a
 * literal deny names; a target the judge still allows (a link matched by
 * a glob, or in another spelling) is narrowed here. */
static void deny_link_target(struct walker *w, enum region seen, const char *rule)
{
	char *target = link_target(w->path);
	struct pg_judgement j;

	if (!target) {
		if (seen == REGION_RW)
			pg_plan_note(w->pl, true, w->path, rule,
				     "denied symlink whose target is absent: held in process only for this launch");
		return;
	}
	if (pg_plan_judge(w->pl, w->root, target, &j) != PG_DENY)
		narrow_target(w, target, REGION_HIDDEN, rule);
	free(target);
}

/* A granted symlink whose name lies in a tmpfs bwrap made: make the name
 * there too (it costs the host nothing), so /bin -> usr/bin works without
 * "read /".  Its target is shown as the judge says, never wider. */
static void grant_link(struct walker *w, enum pg_access acc, const struct pg_judgement *j,
		       const char *rule)
{
	char target[PATH_MAX + 1], *canon;
	struct pg_judgement tj;
	ssize_t n;

	if (pg_plan_in_made_tmpfs(w->pl, w->path) &&
	    (n = readlink(w->path, target, sizeof(target) - 1)) > 0) {
		struct plan_mount *m;

		target[n] = '\0';
		m = pg_plan_add_mount(w->pl, MK_SYMLINK, strdup(w->path), strdup(target), -1, rule);
		if (m)
			m->why = "symlink (made in the envelope's own tmpfs)";
	}
	if (!(canon = link_target(w->path)))
		return;
	pg_plan_judge(w->pl, w->root, canon, &tj);
	if (acc == PG_READ && tj.access == PG_WRITE && beneath_root(w->pl, w->path, w->len))
		narrow_target(w, canon, REGION_RO, rule);
	else if (tj.access == PG_DENY && rule_names(w->pl, w->path, j))
		pg_plan_note(w->pl, false, w->path, rule,
			     "reaches %s through a symlink, and no rule grants that: nothing mounted",
			     canon);
	free(canon);
}

static void visit_link(struct walker *w, enum region seen, enum pg_access acc,
		       const struct pg_judgement *j, const char *rule)
{
	if (seen == REGION_HIDDEN && !pg_plan_in_made_tmpfs(w->pl, w->path))
		return;
	if (acc != PG_DENY) {
		grant_link(w, acc, j, rule);
		return;
	}
	if (seen == REGION_HIDDEN)
		return;
	if (seen == REGION_RW)
		pg_plan_note(w->pl, true, w->path, rule, SEAM_LINK_NAME);
	deny_link_target(w, seen, rule);
}

static bool decides_beneath(const struct walker *w)
{
	const char *name;
	size_t len;

	if (w->every_name && beneath_root(w->pl, w->path, w->len))
		return true;
	judged_name(w->pl, w->path, w->len, &name, &len);
	return pg_policy_decides_beneath(w->root->policy, name, len);
}

static bool pinned(const struct walker *w)
{
	const char *name;
	size_t len;

	judged_name(w->pl, w->path, w->len, &name, &len);
	return pg_policy_pinned(w->root->policy, name, len);
}

static void add_pin(struct walker *w, const char *rule)
{
	struct pg_plan *pl = w->pl;
	struct plan_note *n;

	if (!PLAN_GROW(pl->pins, pl->npins, pl->cappins)) {
		pl->oom = true;
		return;
	}
	n = &pl->pins[pl->npins];
	n->path = strdup(w->path);
	n->rule = strdup(rule);
	n->why = NULL;
	if (!n->path || !n->rule) {
		free(n->path);
		free(n->rule);
		pl->oom = true;
		return;
	}
	pl->npins++;
}

static void walk_dir(struct walker *w, int fd, enum region region, unsigned depth);

/* Descend into the directory NAME of DIRFD, now at w->path. */
static void descend(struct walker *w, int dirfd, const char *name, enum region region,
		    unsigned depth)
{
	int sub;

	if (depth >= w->pl->glob_max_depth) {
		if (!w->pl->glob_depth_hit)
			pg_plan_note(w->pl, false, w->path, "",
				     "glob walk stopped at depth %u: deeper names are held in process only",
				     w->pl->glob_max_depth);
		w->pl->glob_depth_hit = true;
		return;
	}
	sub = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (sub < 0) {
		pg_plan_note(w->pl, false, w->path, "",
			     "cannot be listed (%s): names beneath it are held in process only",
			     strerror(errno));
		return;
	}
	walk_dir(w, sub, region, depth + 1);
}

/* The envelope gives each child its own /tmp: a host name there is shown
 * only when it is the workspace or lies in it, or when a rule beneath /tmp
 * decides it (not "read /" or "write /tmp", which the private /tmp
 * answers). */
static bool shown_in_private(const struct walker *w, const struct pg_judgement *j)
{
	return beneath_root(w->pl, w->path, w->len) || (j->rule && j->depth >= 2);
}

/* The entry NAME of DIRFD, whose host path is w->path, seen by the child
 * as PARENT shows it unless a mount says otherwise. */
static void visit(struct walker *w, int dirfd, const char *name, enum region parent,
		  unsigned depth)
{
	enum region seen = parent == REGION_PRIVATE ? REGION_HIDDEN : parent, want, here;
	struct pg_judgement j;
	enum pg_access acc;
	char rule[PG_PATH_MAX + 600];
	struct stat st;

	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return;
	if (pg_envelope_owned(w->path)) {
		if (strcmp(w->path, "/tmp") == 0 && S_ISDIR(st.st_mode))
			descend(w, dirfd, name, REGION_PRIVATE, depth);
		return;
	}
	acc = pg_plan_judge(w->pl, w->root, w->path, &j);
	render(&j, rule, sizeof(rule));
	if (S_ISLNK(st.st_mode)) {
		visit_link(w, seen, acc, &j, rule);
		return;
	}
	acc = judge_identity(w, &st, acc);
	if (acc != PG_WRITE && !S_ISDIR(st.st_mode) && st.st_nlink > 1)
		count_link(w, &st, rule);
	want = region_for(acc);
	here = parent;
	if (parent == REGION_PRIVATE && !shown_in_private(w, &j))
		want = REGION_HIDDEN;
	if (want != seen) {
		if (want == REGION_HIDDEN)
			lay_mask(w, &st, rule, "mask");
		if (want == REGION_HIDDEN || lay_bind(w, dirfd, name, &st, want, rule))
			here = want;
	}
	if (!S_ISDIR(st.st_mode))
		return;
	if (here == REGION_RW && pinned(w))
		add_pin(w, rule);
	if (decides_beneath(w) ||
	    (pg_covers_n(w->path, w->len, w->pl->root, w->pl->root_len) &&
	     w->len < w->pl->root_len))
		descend(w, dirfd, name, here, depth);
}

/* Meet one name of a protected multi-linked file. */
static void count_link(struct walker *w, const struct stat *st, const char *rule)
{
	struct linked *l;

	for (size_t i = 0; i < w->nlinked; i++)
		if (w->linked[i].dev == st->st_dev && w->linked[i].ino == st->st_ino) {
			w->linked[i].met++;
			return;
		}
	if (!PLAN_GROW(w->linked, w->nlinked, w->caplinked)) {
		w->pl->oom = true;
		return;
	}
	l = &w->linked[w->nlinked];
	*l = (struct linked){ st->st_dev, st->st_ino, st->st_nlink, 1,
			      strdup(w->path), strdup(rule) };
	if (!l->path || !l->rule) {
		free(l->path);
		free(l->rule);
		w->pl->oom = true;
		return;
	}
	w->nlinked++;
}

/* A protected file has names the walk did not meet (outside what it
 * lists, or outside the host paths the policy decides): each could show
 * it as its own region does.  The plan says so, with the count. */
static void name_unmet_links(struct walker *w)
{
	for (size_t i = 0; i < w->nlinked; i++) {
		struct linked *l = &w->linked[i];

		if (l->met < l->nlink)
			pg_plan_note(w->pl, true, l->path, l->rule,
				     "a protected file with %lu hard links, of which the walk met %lu: another name elsewhere shows it as that name's region does",
				     (unsigned long)l->nlink, (unsigned long)l->met);
		free(l->path);
		free(l->rule);
	}
	free(w->linked);
}

/* Append NAME to w->path; false when it does not fit. */
static bool enter(struct walker *w, const char *name)
{
	size_t n = strlen(name), base = w->len == 1 ? 0 : w->len;

	if (base + 1 + n >= sizeof(w->path))
		return false;
	w->path[base] = '/';
	memcpy(w->path + base + 1, name, n + 1);
	w->len = base + 1 + n;
	return true;
}

static void leave(struct walker *w, size_t len)
{
	w->len = len;
	w->path[len] = '\0';
}

static bool counted(struct walker *w)
{
	struct pg_plan *pl = w->pl;

	if (++pl->glob_entries <= pl->glob_max_entries)
		return true;
	if (!pl->glob_count_hit)
		pg_plan_note(pl, false, w->path, "",
			     "glob walk stopped after %u entries: further names are held in process only",
			     pl->glob_max_entries);
	pl->glob_count_hit = true;
	w->stopped = true;
	return false;
}

/* The component of the root that follows the directory w->path, which is
 * a strict ancestor of the root, into BUF. */
static bool next_root_component(const struct walker *w, char *buf, size_t size)
{
	const char *from = w->pl->root + (w->len == 1 ? 1 : w->len + 1);
	size_t n = strcspn(from, "/");

	if (n == 0 || n >= size)
		return false;
	memcpy(buf, from, n);
	buf[n] = '\0';
	return true;
}

static void visit_named(struct walker *w, int fd, const char *name, enum region region,
			unsigned depth)
{
	size_t len = w->len;

	if (enter(w, name))
		visit(w, fd, name, region, depth);
	leave(w, len);
}

/* List the directory FD (owned) at w->path where the policy may decide
 * beneath it; on the way to the root, step to the root's next component
 * only. */
static void walk_dir(struct walker *w, int fd, enum region region, unsigned depth)
{
	struct dirent *de;
	char next[NAME_MAX + 1];
	DIR *d;

	if (!decides_beneath(w)) {
		if (!beneath_root(w->pl, w->path, w->len) && next_root_component(w, next, sizeof(next)))
			visit_named(w, fd, next, region, depth);
		close(fd);
		return;
	}
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return;
	}
	while (!w->stopped && !w->pl->oom && (de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (!counted(w))
			break;
		visit_named(w, dirfd(d), de->d_name, region, depth);
	}
	closedir(d);
}

void pg_plan_walk(struct pg_plan *pl, pg_root *root)
{
	struct walker w = { .pl = pl, .root = root, .len = 1, .path = "/" };
	int fd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	w.every_name = root->has_deny_ids || root->has_read_ids;
	if (fd < 0) {
		pg_plan_note(pl, false, "/", "", "cannot list /: %s", strerror(errno));
		return;
	}
	walk_dir(&w, fd, pl->base, 0);
	name_unmet_links(&w);
}

