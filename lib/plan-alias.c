/* plan-alias.c - other host paths to the workspace (issue 10.8).
 *
 * A bind mount elsewhere on the host can show the workspace, or a part of
 * it, at a second path.  The walk lays the workspace's masks at the
 * workspace's own path only, so through such an alias a child would see
 * what the masks hide.  The planner reads the mount table
 * (/proc/self/mountinfo), finds every mount of the workspace's filesystem
 * whose root holds the workspace or lies inside it, and masks the alias
 * wherever the child would see it: a child reaches the workspace only by
 * its own path, where every decision of the judge is laid.  Nothing here
 * decides a name's access; an alias is hidden whole. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "envelope-plan.h"

struct mnt {
	unsigned major, minor;
	char     root[4096];
	char     point[4096];
};

/* mountinfo escapes blanks and backslashes as \ooo. */
static void unescape(char *s)
{
	char *o = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' &&
		    s[3] >= '0' && s[3] <= '7') {
			*o++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
			s += 3;
		} else {
			*o++ = *s;
		}
	}
	*o = '\0';
}

static bool parse_line(const char *line, struct mnt *m)
{
	if (sscanf(line, "%*u %*u %u:%u %4095s %4095s", &m->major, &m->minor, m->root,
		   m->point) != 4)
		return false;
	unescape(m->root);
	unescape(m->point);
	return true;
}

/* PATH relative to ANC when PATH is ANC or beneath it ("" or "a/b"),
 * else NULL. */
static const char *beneath(const char *path, const char *anc)
{
	size_t n = strlen(anc);

	if (n == 1 && anc[0] == '/')
		return path[0] == '/' ? path + 1 : NULL;
	if (strncmp(path, anc, n) != 0 || (path[n] != '\0' && path[n] != '/'))
		return NULL;
	return path[n] == '/' ? path + n + 1 : path + n;
}

static void join(char *out, size_t size, const char *a, const char *b)
{
	if (!*b)
		snprintf(out, size, "%s", a);
	else if (strcmp(a, "/") == 0)
		snprintf(out, size, "/%s", b);
	else
		snprintf(out, size, "%s/%s", a, b);
}

static void mask_alias(struct pg_plan *pl, const char *alias)
{
	enum region r = pg_plan_region_at(pl, alias);
	struct plan_mount *m;
	struct stat st;

	if (strcmp(alias, pl->root) == 0 || pg_covers(pl->root, alias) || lstat(alias, &st) < 0)
		return;
	if (r != REGION_RO && r != REGION_RW)
		return;   /* the child does not see it anyway */
	if (S_ISDIR(st.st_mode))
		m = pg_plan_add_mount(pl, MK_MASK_DIR, strdup(alias), NULL, -1, "");
	else
		m = pg_plan_add_mount(pl, MK_MASK_FILE, strdup(alias), strdup("/dev/null"), -1, "");
	if (m)
		m->why = "mask (another host path to the workspace)";
	pg_plan_note(pl, false, alias, "",
		     "another host path to the workspace (a bind mount): masked whole; the child reaches the workspace at %s",
		     pl->root);
}

/* The workspace's path inside its filesystem, from the mount it lies on
 * (the deepest mountpoint above it with its device); false if unknown. */
static bool workspace_in_fs(struct pg_plan *pl, FILE *f, dev_t dev, char *out, size_t size)
{
	char line[9000];
	struct mnt m, best = { 0 };
	size_t best_len = 0;
	bool found = false;

	while (fgets(line, sizeof(line), f)) {
		const char *rel;

		if (!parse_line(line, &m) || makedev(m.major, m.minor) != dev ||
		    !(rel = beneath(pl->root, m.point)))
			continue;
		if (!found || strlen(m.point) >= best_len) {
			best = m;
			best_len = strlen(m.point);
			found = true;
		}
	}
	if (found)
		join(out, size, best.root, beneath(pl->root, best.point));
	return found;
}

void pg_plan_mask_aliases(struct pg_plan *pl, dev_t dev)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char line[9000], ws[8192], alias[8192];
	struct mnt m;

	if (!f) {
		pg_plan_note(pl, true, pl->root, "",
			     "the mount table cannot be read (%s): another host path to the workspace would show it unmasked",
			     strerror(errno));
		return;
	}
	if (!workspace_in_fs(pl, f, dev, ws, sizeof(ws))) {
		fclose(f);
		return;
	}
	rewind(f);
	while (!pl->oom && fgets(line, sizeof(line), f)) {
		const char *rel;

		if (!parse_line(line, &m) || makedev(m.major, m.minor) != dev)
			continue;
		if ((rel = beneath(ws, m.root)))          /* shows the whole workspace */
			join(alias, sizeof(alias), m.point, rel);
		else if (beneath(m.root, ws))             /* shows a part of it */
			snprintf(alias, sizeof(alias), "%s", m.point);
		else
			continue;
		mask_alias(pl, alias);
	}
	fclose(f);
}
