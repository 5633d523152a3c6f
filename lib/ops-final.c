/* ops-final.c - the final name of a path as the kernel sees it: a
 * symlink in the way of a create, a final "." or "..", and what a
 * trailing slash finds there without following it.  Shared by ops.c and
 * ops-names.c so that every call gives the kernel's answer where no
 * policy question is involved (issue 11.11). */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ops.h"
#include "path.h"
#include "refusal.h"
#include "resolve.h"
#include "root.h"

/* Creating a name that is a symlink is ambiguous (the name, or what it
 * points at?): following it must be allowed and reach something, else the
 * call is refused as open(O_CREAT) through it would be: denied, an escape,
 * or a dangling link.  A plain failure of the follow (a loop, a file where
 * a directory was asked for) decides nothing: the kernel says EEXIST. */
int pg_ops_link_in_the_way(pg_root *root, const char *path, const struct pg_path *lex,
			   const struct pg_res *res)
{
	struct pg_res target;
	int err = errno;

	if (!res->exists || !S_ISLNK(res->stx.stx_mode))
		return 0;
	if (pg_resolve_locked(root, path, lex, PG_OP_CREATE, PG_RES_FOLLOW, &target) < 0) {
		if (pg_last_refusal()->name)
			return -1;
		errno = err;
		return 0;
	}
	pg_res_release(&target);
	return 0;
}

bool pg_ops_ends_in_dot(const char *path)
{
	size_t n = strlen(path);

	while (n > 1 && path[n - 1] == '/')
		n--;
	return (n == 1 && path[0] == '.') || (n >= 2 && path[n - 1] == '.' && path[n - 2] == '/');
}

bool pg_ops_ends_in_dotdot(const char *path)
{
	size_t n = strlen(path);

	while (n > 1 && path[n - 1] == '/')
		n--;
	return n >= 2 && path[n - 1] == '.' && path[n - 2] == '.' && (n == 2 || path[n - 3] == '/');
}

/* Unjudged: callers ask only once PATH was judged, or its resolution
 * failed without a refusal, so the answer shows nothing a policy hides. */
mode_t pg_ops_slash_type(pg_root *root, const char *path)
{
	size_t n = strlen(path);
	struct pg_path *bare = n > 1 && path[n - 1] == '/' ? malloc(sizeof(*bare)) : NULL;
	char *copy = bare ? strdup(path) : NULL;
	struct pg_res res;
	mode_t type = 0;
	int err = errno;

	if (copy) {
		while (n > 1 && copy[n - 1] == '/')
			copy[--n] = '\0';
		if (!pg_ops_ends_in_dot(copy) && !pg_ops_ends_in_dotdot(copy) &&
		    pg_path_normalise(copy, false, bare) == 0 &&
		    pg_resolve_locked(root, copy, bare, PG_OP_DELETE, PG_RES_NO_JUDGE, &res) == 0) {
			type = res.exists ? res.stx.stx_mode & S_IFMT : 0;
			pg_res_release(&res);
		}
	}
	free(copy);
	free(bare);
	errno = err;
	return type;
}

int pg_ops_exists_anyway(pg_root *root, const char *path)
{
	if (!pg_last_refusal()->name && pg_ops_slash_type(root, path))
		errno = EEXIST;
	return -1;
}
