/* launch-guard.c - owns what a launcher must hold around a launch beyond
 * the mounts (issue 10; declared in shim.h):
 *   - the policy files a later launch loads, made final read rules of the
 *     policy the launch runs under (pg_policy_guard_files);
 *   - whether the plan shows the command at all (pg_plan_shows_file);
 *   - files the launcher writes after the child ran, created without
 *     following a link in any component (pg_create_guarded);
 *   - the audit after the child is gone: every name the child created
 *     where the policy says read-only or deny, moved aside
 *     (pg_plan_audit).
 * None of these decides anything: the judge does, through the plans. */
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
#include "policy.h"
#include "refusal.h"
#include "resolve.h"
#include "root.h"
#include "shim.h"

/* ------------------------------------------------ policy files (10.1) */

static const char GUARD_FILE[] = "<pathgate run: a policy file a later launch loads>";

static int guard(pg_policy *p, const char *path, unsigned line)
{
	return pg_policy_add_rule(p, PG_READ, true, path, GUARD_FILE, line, false);
}

/* ROOT/.pathgate and each ancestor's: a later launch without --root
 * takes the nearest one upward from where it starts as its root and
 * policy; "**" "/.pathgate" the same for any directory beneath the root. */
int pg_policy_guard_files(pg_policy *p, const char *root, const char *source)
{
	char dir[PATH_MAX], file[PATH_MAX + 16];
	unsigned line = 1;

	if (!p || !root || root[0] != '/' || strlen(root) >= sizeof(dir)) {
		errno = EINVAL;
		return -1;
	}
	if (source && source[0] == '/' && guard(p, source, line++) < 0)
		return -1;
	if (guard(p, "**/.pathgate", line++) < 0)
		return -1;
	snprintf(dir, sizeof(dir), "%s", root);
	for (;;) {
		char *slash;

		snprintf(file, sizeof(file), "%s/.pathgate", strcmp(dir, "/") == 0 ? "" : dir);
		if (guard(p, file, line++) < 0)
			return -1;
		slash = strrchr(dir, '/');
		if (!slash || strcmp(dir, "/") == 0)
			break;
		slash[slash == dir ? 1 : 0] = '\0';
	}
	return 0;
}

/* ---------------------------------------------- the command (10.9) */

int pg_plan_shows_file(const pg_plan *plan, const char *path)
{
	char *canon = plan && path ? realpath(path, NULL) : NULL;
	enum region r;

	if (!canon) {
		errno = plan && path ? errno : EINVAL;
		return -1;
	}
	r = pg_plan_region_at(plan, canon);
	free(canon);
	if (r == REGION_RO || r == REGION_RW)
		return 0;
	errno = ENOENT;
	return -1;
}

/* ------------------------------------- writes after the child (10.2) */


int pg_create_guarded(const char *path, mode_t mode)
{
	char *copy = path ? strdup(path) : NULL, *slash;
	const char *dir, *base;
	struct stat st;
	int dfd, fd = -1, err;

	if (!copy) {
		errno = path ? ENOMEM : EINVAL;
		return -1;
	}
	slash = strrchr(copy, '/');
	dir = slash ? (slash == copy ? "/" : copy) : ".";
	base = slash ? slash + 1 : copy;
	if (slash && slash != copy)
		*slash = '\0';
	dfd = *base ? pg_open_dir_nofollow(dir) : -1;
	if (!*base)
		errno = EISDIR;
	if (dfd >= 0)
		fd = openat(dfd, base, O_WRONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC,
			    mode);
	err = errno;
	/* A FIFO, a device or another hard link of a file is not a report
	 * file: the child could have planted it. */
	if (fd >= 0 && (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_nlink != 1)) {
		err = errno = EEXIST;
		close(fd);
		fd = -1;
	}
	if (fd >= 0 && ftruncate(fd, 0) < 0) {
		err = errno;
		close(fd);
		fd = -1;
	}
	if (dfd >= 0)
		close(dfd);
	free(copy);
	errno = err;
	return fd;
}

/* ------------------------------------------------ the audit (10.10) */

struct audit {
	char  *text;
	size_t len;
	FILE  *out;
	size_t moved;
};

/* Move PATH aside to PATH.pathgate-quarantine-PID[-N] in its own
 * directory, never following a link; the name chosen in AS. */
static int quarantine(const char *path, char *as, size_t size)
{
	char *copy = strdup(path), *slash;
	int dfd, r = -1;

	if (!copy)
		return -1;
	slash = strrchr(copy, '/');
	if (!slash || slash == copy) {
		free(copy);
		errno = EINVAL;
		return -1;
	}
	*slash = '\0';
	dfd = pg_open_dir_nofollow(copy);
	for (unsigned n = 0; dfd >= 0 && n < 100; n++) {
		if (n)
			snprintf(as, size, "%s.pathgate-quarantine-%ld-%u", slash + 1, (long)getpid(), n);
		else
			snprintf(as, size, "%s.pathgate-quarantine-%ld", slash + 1, (long)getpid());
		r = renameat2(dfd, slash + 1, dfd, as, RENAME_NOREPLACE);
		if (r == 0 || errno != EEXIST)
			break;
	}
	if (dfd >= 0)
		close(dfd);
	free(copy);
	return r;
}

/* True when OLD had a region mount or mask at DEST: the name was met at
 * launch and shown as the judge said. */
static bool planned_at(const struct pg_plan *old, const char *dest)
{
	for (size_t i = 0; i < old->nmounts; i++)
		if (strcmp(old->mounts[i].dest, dest) == 0)
			return true;
	return false;
}

static bool created_kind(const struct plan_mount *m)
{
	return m->kind == MK_ROBIND || m->kind == MK_MASK_FILE || m->kind == MK_MASK_DIR;
}

/* A name NOW shows read-only or masked, where OLD showed the child a
 * writable view and laid nothing: the child made it (or made it another
 * hard link of a protected file). */
static void audit_one(struct audit *a, const struct pg_plan *old, const struct plan_mount *m,
		      bool keep)
{
	char as[NAME_MAX + 64] = "";
	bool moved = false;

	if (!created_kind(m) || planned_at(old, m->dest) ||
	    pg_plan_region_at(old, m->dest) != REGION_RW)
		return;
	if (!keep)
		moved = quarantine(m->dest, as, sizeof(as)) == 0;
	fprintf(a->out, "%s\t%s\t%s\n", m->dest,
		keep ? "kept (--accept-seam=created)" : moved ? as : strerror(errno),
		m->rule ? m->rule : "");
	a->moved += moved;
}

char *pg_plan_audit(pg_root *root, const pg_plan *plan, unsigned flags)
{
	struct audit a = { 0 };
	pg_plan *now;

	if (!root || !plan || (flags & ~PG_AUDIT_KEEP)) {
		errno = EINVAL;
		return NULL;
	}
	/* The identities the child may have made (a protected name it
	 * created, another link of it) are the root's to know again. */
	pg_root_refresh(root);
	now = pg_envelope_plan_root(root, NULL);
	if (!now)
		return NULL;
	a.out = open_memstream(&a.text, &a.len);
	if (!a.out) {
		pg_plan_free(now);
		return NULL;
	}
	for (size_t i = 0; i < now->nmounts; i++)
		audit_one(&a, plan, &now->mounts[i], flags & PG_AUDIT_KEEP);
	pg_plan_free(now);
	if (fclose(a.out) != 0) {
		free(a.text);
		errno = ENOMEM;
		return NULL;
	}
	return a.text;
}
