/* envelope.c - the planner proper: a root in, a plan out.
 *
 * The base view of the host is what the judge says of "/"; the walk
 * (plan-walk.c) then lays, shallow first, the mounts that show every name
 * as the root's judge decides it; the rules are read once more only to
 * name what no mount can hold (absent names in a writable region: seams)
 * or what laid nothing (skips); pins, the working directory and the
 * argument vector come last, when every mount is known. */
#include "config.h"

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
#include "glob.h"
#include "refusal.h"
#include "resolve.h"
#include "root.h"

/* The host path a rule names: relative rules hang off the root. */
static char *host_path_of(const struct pg_plan *pl, const char *path, size_t len)
{
	char *s;

	if (len && path[0] == '/')
		return strndup(path, len);
	if (!len)
		return strdup(pl->root);
	if (pl->root_len == 1) {
		s = malloc(len + 2);
		if (s)
			snprintf(s, len + 2, "/%.*s", (int)len, path);
		return s;
	}
	s = malloc(pl->root_len + len + 2);
	if (s)
		snprintf(s, pl->root_len + len + 2, "%s/%.*s", pl->root, (int)len, path);
	return s;
}

static void lay_base(struct pg_plan *pl, pg_root *root)
{
	struct pg_judgement j;
	char rule[PG_PATH_MAX + 600];
	struct plan_mount *m;

	pl->base = REGION_HIDDEN;
	if (pg_plan_judge(pl, root, "/", &j) == PG_DENY)
		return;
	pl->base = j.access == PG_WRITE ? REGION_RW : REGION_RO;
	pg_rule_render(j.cap ? j.cap : j.rule, rule, sizeof(rule));
	m = pg_plan_add_mount(pl, MK_BASE, strdup("/"), strdup("/"), -1, rule);
	if (m)
		m->why = "base";
}

/* ------------------------------------------------ what no mount holds */

static const char SEAM_ABSENT[] =
	"absent denied name in a writable region: held in process only; a child can create it for this launch, the audit after it (pg_plan_audit, pathgate run) moves it aside, every later launch masks it";
static const char SEAM_ABSENT_RO[] =
	"absent read-only name in a writable region: a child can create and write it for this launch (held in process only); the audit after it (pg_plan_audit, pathgate run) moves it aside, every later launch binds it read-only";

/* A literal rule's name that does not exist: nothing can be laid there
 * (invariant 4); in a writable region that is a seam. */
static void note_absent(struct pg_plan *pl, pg_root *root, const char *path, const char *rule)
{
	enum region r = pg_plan_region_at(pl, path);
	struct pg_judgement j;
	enum pg_access acc = pg_plan_judge(pl, root, path, &j);

	if (r == REGION_PRIVATE)
		r = REGION_HIDDEN;
	if (r == REGION_RW && acc != PG_WRITE)
		pg_plan_note(pl, true, path, rule, acc == PG_DENY ? SEAM_ABSENT : SEAM_ABSENT_RO);
	else if (acc == PG_DENY)
		pg_plan_note(pl, false, path, rule,
			     "absent: nothing to mask (its region is %s, creation is already refused)",
			     pg_region_name(r));
	else
		pg_plan_note(pl, false, path, rule, "absent: nothing mounted");
}

/* The literal base of glob PATTERN: its components before the first one
 * with a wildcard. */
static char *glob_base(const struct pg_plan *pl, const char *pattern)
{
	size_t len = 0, i = 0, n = strlen(pattern);

	while (i < n) {
		size_t c = strcspn(pattern + i, "/");

		if (pg_glob_is_pattern(pattern + i, c))
			break;
		len = i + c;
		i += c + 1;
	}
	return host_path_of(pl, pattern, len);
}

static void note_glob(struct pg_plan *pl, pg_root *root, const struct pg_rule *r,
		      const char *rule)
{
	struct pg_judgement j;
	char *base;

	if (r->access == PG_WRITE)
		return;
	base = glob_base(pl, r->path);
	if (!base) {
		pl->oom = true;
		return;
	}
	if (pg_plan_region_at(pl, base) == REGION_RW ||
	    pg_plan_judge(pl, root, base, &j) == PG_WRITE)
		pg_plan_note(pl, true, base, rule, r->access == PG_DENY
			     ? "absent names matching a denied glob in a writable region: held in process only for this launch"
			     : "absent names matching a read-only glob in a writable region: a child can create and write them for this launch (held in process only); later launches bind them read-only");
	free(base);
}

static void note_rule(struct pg_plan *pl, pg_root *root, const struct pg_rule *r,
		      const char *rule)
{
	struct stat st;
	char *path;

	if (r->glob) {
		note_glob(pl, root, r, rule);
		return;
	}
	if (r->absolute && pg_covers_n(pl->root, pl->root_len, r->path, strlen(r->path)))
		return;   /* its relative copy speaks for it */
	path = host_path_of(pl, r->path, strlen(r->path));
	if (!path) {
		pl->oom = true;
		return;
	}
	if (pg_envelope_owned(path))
		pg_plan_note(pl, false, path, rule,
			     "the envelope gives every child its own /tmp, /dev and /proc: no host mount here");
	else if (lstat(path, &st) < 0 && (errno == ENOENT || errno == ENOTDIR))
		note_absent(pl, root, path, rule);
	free(path);
}

static void note_rules(struct pg_plan *pl, pg_root *root)
{
	size_t n = pg_policy_rule_count(root->policy);

	char rule[PG_PATH_MAX + 600];

	for (size_t i = 0; i < n && !pl->oom; i++) {
		const struct pg_rule *r = pg_policy_rule(root->policy, i);

		pg_rule_render(r, rule, sizeof(rule));
		if (!r->derived && !r->above)
			note_rule(pl, root, r, rule);
	}
}

/* ---------------------------------------------------------------- pins */


/* A pin is a read-only self-bind beneath every mount over a host view; with
 * no host view beneath it, a writable self-bind right after its region's
 * mount.  Either way the directory becomes a mountpoint: EBUSY on rename
 * and rmdir (invariant 6). */
static void pin_dir(struct pg_plan *pl, const char *dir, size_t nregion, const char *rule)
{
	size_t region = pg_plan_region_mount(pl, dir, nregion);
	struct plan_mount *m;
	int fd = pg_open_dir_nofollow(dir);

	if (fd < 0) {
		pg_plan_note(pl, false, dir, rule,
			     "pin dropped: the path cannot be verified free of symlinks (%s)",
			     strerror(errno));
		return;
	}
	if (pl->base == REGION_HIDDEN && region != (size_t)-1) {
		m = pg_plan_add_mount(pl, MK_PIN_RW, strdup(dir), strdup(dir), fd, rule);
		if (m) {
			m->after = region;
			pl->npins_rw++;
		}
	} else {
		m = pg_plan_add_mount(pl, MK_PIN, strdup(dir), strdup(dir), fd, rule);
	}
	if (m)
		m->why = "pin";
}

static void lay_pins(struct pg_plan *pl)
{
	size_t nregion = pl->nmounts;

	for (size_t i = 0; i < pl->npins && !pl->oom; i++)
		pin_dir(pl, pl->pins[i].path, nregion, pl->pins[i].rule);
}

/* ------------------------------------------------------------- the plan */

/* How much a region mount lets through: the stricter lies on top. */
static int openness(enum mount_kind k)
{
	return k == MK_BIND ? 2 : k == MK_ROBIND ? 1 : 0;
}

static int cmp_mount(const void *a, const void *b)
{
	const struct plan_mount *x = a, *y = b;
	unsigned dx = pg_path_depth(x->dest), dy = pg_path_depth(y->dest);
	int c;

	if (dx != dy)
		return dx < dy ? -1 : 1;
	c = strcmp(x->dest, y->dest);
	if (c)
		return c;
	if (openness(x->kind) != openness(y->kind))
		return openness(y->kind) - openness(x->kind);
	return x->after < y->after ? -1 : x->after > y->after;
}

/* Lay the mounts by the depth of their mountpoints, shallow first
 * (invariant 5 holds for what is mounted, not how it was named: a
 * symlink's target can be shallower than its name).  Where two mounts
 * share a mountpoint (a name the judge shows read-only, narrowed to a mask
 * as what a denied symlink leads to), the stricter lies on top.  Equal
 * mounts keep the order they were laid in ("after" holds it while
 * sorting; pins are laid later). */
static void sort_by_depth(struct pg_plan *pl)
{
	for (size_t i = 0; i < pl->nmounts; i++)
		pl->mounts[i].after = i;
	if (pl->nmounts)
		qsort(pl->mounts, pl->nmounts, sizeof(*pl->mounts), cmp_mount);
	for (size_t i = 0; i < pl->nmounts; i++)
		pl->mounts[i].after = (size_t)-1;
	pg_plan_reindex(pl);
}

static void choose_chdir(struct pg_plan *pl)
{
	enum region r = pg_plan_region_at(pl, pl->root);

	if (r == REGION_RW || r == REGION_RO) {
		pl->chdir = strdup(pl->root);
	} else {
		pl->chdir = strdup("/");
		pg_plan_note(pl, false, pl->root, "",
			     "the workspace root is not visible in the envelope: the child starts in /");
	}
	if (!pl->chdir)
		pl->oom = true;
}

static struct pg_plan *plan_new(pg_root *root, const struct pg_envelope_opts *opts)
{
	size_t n = pg_policy_rule_count(root->policy);
	struct pg_plan *pl = calloc(1, sizeof(*pl));
	char buf[PG_PATH_MAX + 600];

	if (!pl)
		return NULL;
	pl->root = strdup(root->path);
	pl->root_len = root->path_len;
	pl->bwrap = strdup(pg_envelope_bwrap());
	pl->masks_read_only = pg_envelope_masks_read_only();
	pl->requested = calloc(n + 1, sizeof(*pl->requested));
	if (!pl->root || !pl->bwrap || !pl->requested)
		pl->oom = true;
	pl->glob_max_depth = opts && opts->glob_max_depth ? opts->glob_max_depth : PG_GLOB_MAX_DEPTH;
	pl->glob_max_entries = opts && opts->glob_max_entries ? opts->glob_max_entries
							       : PG_GLOB_MAX_ENTRIES;
	for (size_t i = 0; i < n && !pl->oom; i++) {
		const struct pg_rule *r = pg_policy_rule(root->policy, i);

		if (r->above)
			continue;   /* a copy of a host rule listed already */
		pg_rule_render(r, buf, sizeof(buf));
		if (!(pl->requested[pl->nrequested++] = strdup(buf)))
			pl->oom = true;
	}
	return pl;
}

pg_plan *pg_envelope_plan_root(pg_root *root, const struct pg_envelope_opts *opts)
{
	struct pg_plan *pl;

	if (!root) {
		errno = EINVAL;
		return NULL;
	}
	pthread_rwlock_rdlock(&root->lock);
	pl = plan_new(root, opts);
	if (pl && !pl->oom)
		lay_base(pl, root);
	if (pl && !pl->oom)
		pg_plan_walk(pl, root);
	if (pl && !pl->oom)
		pg_plan_mask_aliases(pl, root->dev);
	if (pl && !pl->oom)
		sort_by_depth(pl);
	if (pl && !pl->oom)
		note_rules(pl, root);
	pthread_rwlock_unlock(&root->lock);
	pg_refusal_clear();   /* the identity judge's answers are not the caller's */
	if (pl && !pl->oom)
		lay_pins(pl);
	if (pl && !pl->oom)
		choose_chdir(pl);
	if (pl && !pl->oom)
		pg_plan_assemble(pl);
	if (pl && !pl->oom)
		pg_plan_publish(pl);
	if (pl && pl->oom) {
		pg_plan_free(pl);
		pl = NULL;
		errno = ENOMEM;
	}
	return pl;
}

/* The rules as a policy of their own, under a root opened at ROOT. */
pg_plan *pg_envelope_plan(const char *root, const struct pg_rule *const *rules,
			  size_t n, const struct pg_envelope_opts *opts)
{
	pg_policy *p;
	pg_root *r = NULL;
	pg_plan *pl = NULL;
	int err = ENOMEM;

	if (!root || root[0] != '/' || (n && !rules)) {
		errno = EINVAL;
		return NULL;
	}
	p = pg_policy_new();
	for (size_t i = 0; p && i < n; i++) {
		const struct pg_rule *rl = rules[i];

		if (pg_policy_add_rule(p, rl->access, rl->final, rl->path[0] ? rl->path : ".",
				       rl->file, rl->line, rl->derived) < 0) {
			err = errno ? errno : EINVAL;
			goto out;
		}
	}
	if (p && (r = pg_root_open(root, p, 0)))
		pl = pg_envelope_plan_root(r, opts);
	err = errno;
out:
	pg_root_close(r);
	pg_policy_free(p);
	if (!pl)
		errno = err ? err : ENOMEM;
	return pl;
}
