/* plan-cwd.c - where the envelope's child starts (declared in shim.h):
 * pathgate run keeps the caller's working directory when it lies in the
 * root and the plan shows it, as a shell started there would.
 *
 * Owned here: replacing the plan's --chdir.  The plan itself (its mounts,
 * the regions they make) is the planner's; this asks it what the child
 * would see at the directory and changes nothing else. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "envelope-plan.h"
#include "shim.h"

static bool beneath_root(const struct pg_plan *pl, const char *dir)
{
	size_t n = strlen(pl->root);

	if (strcmp(pl->root, "/") == 0)
		return dir[0] == '/';
	return strncmp(dir, pl->root, n) == 0 && (dir[n] == '\0' || dir[n] == '/');
}

int pg_plan_chdir(pg_plan *pl, const char *dir)
{
	enum region r;
	char *copy, *arg;
	size_t i;

	if (!pl || !dir || dir[0] != '/' || strstr(dir, "/..") || !beneath_root(pl, dir)) {
		errno = EINVAL;
		return -1;
	}
	/* A masked directory would fail bwrap's own chdir. */
	r = pg_plan_region_at(pl, dir);
	if (r != REGION_RO && r != REGION_RW) {
		errno = EACCES;
		return -1;
	}
	for (i = pl->nargs; i-- > 1;)
		if (pl->args[i - 1] && strcmp(pl->args[i - 1], "--chdir") == 0)
			break;
	if (i == 0) {
		errno = EINVAL;
		return -1;
	}
	copy = strdup(dir);
	arg = strdup(dir);
	if (!copy || !arg) {
		free(copy);
		free(arg);
		errno = ENOMEM;
		return -1;
	}
	free(pl->args[i]);
	pl->args[i] = arg;
	free(pl->chdir);
	pl->chdir = copy;
	return 0;
}
