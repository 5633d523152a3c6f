/* preload-names.c - calls that make, remove and move names: mkdir,
 * unlink, rmdir, rename, link, symlink, mknod, mkfifo.  Inside the root
 * the library acts, so its absent-name deny, pins and landing checks hold
 * for the program too. */
#include "config.h"
/* The interposers define the names themselves: no header redirects. */
#undef _FILE_OFFSET_BITS
#undef _FORTIFY_SOURCE

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pathgate.h"
#include "preload.h"

/* ------------------------------------------------- names: make and remove */

PL_DECLARE_REAL(mkdirat);
PL_DECLARE_REAL(unlinkat);

int mkdirat(int dirfd, const char *path, mode_t mode)
{
	struct pl_name n;
	int rc;

	if (!pl_enter())
		return PL_REAL(mkdirat)(dirfd, path, mode);
	if (pl_locate(dirfd, path, 0, &n) < 0)
		rc = pl_refused("mkdir", path);
	else if (n.where == PL_INSIDE)
		rc = pl_lib_or_kernel(pg_mkdir(n.root, n.rel, mode), &n, PG_OP_CREATE, "mkdir", path,
				      PL_REAL(mkdirat)(dirfd, path, mode));
	else if (pl_judge(&n, PG_OP_CREATE) < 0)
		rc = pl_refused("mkdir", path);
	else
		rc = PL_REAL(mkdirat)(dirfd, path, mode);
	pl_leave();
	return rc;
}

int mkdir(const char *path, mode_t mode)
{
	return mkdirat(AT_FDCWD, path, mode);
}

int unlinkat(int dirfd, const char *path, int flags)
{
	struct pl_name n;
	int rc;

	if (!pl_enter())
		return PL_REAL(unlinkat)(dirfd, path, flags);
	if (pl_locate(dirfd, path, 0, &n) < 0)
		rc = pl_refused("unlink", path);
	else if (n.where == PL_INSIDE)
		rc = pl_lib_or_kernel((flags & AT_REMOVEDIR) ? pg_rmdir(n.root, n.rel)
							     : pg_unlink(n.root, n.rel),
				      &n, PG_OP_DELETE, "unlink", path, PL_REAL(unlinkat)(dirfd, path, flags));
	else if (pl_judge(&n, PG_OP_DELETE) < 0)
		rc = pl_refused("unlink", path);
	else
		rc = PL_REAL(unlinkat)(dirfd, path, flags);
	pl_leave();
	return rc;
}

int unlink(const char *path)
{
	return unlinkat(AT_FDCWD, path, 0);
}

int rmdir(const char *path)
{
	return unlinkat(AT_FDCWD, path, AT_REMOVEDIR);
}

/* ------------------------------------------- names: rename, link, symlink */

PL_DECLARE_REAL(renameat);
PL_DECLARE_REAL(renameat2);
PL_DECLARE_REAL(linkat);
PL_DECLARE_REAL(symlinkat);

/* Both names of a two-name call, in one allocation-free frame. */
struct two_names {
	struct pl_name from, to;
};

static int locate_two(int fromfd, const char *from, int fromflags, int tofd, const char *to,
		      struct two_names *t, const char *call)
{
	if (pl_locate(fromfd, from, PL_AT(fromflags), &t->from) < 0)
		return pl_refused(call, from);
	if (pl_locate(tofd, to, 0, &t->to) < 0)
		return pl_refused(call, to);
	return 0;
}

static bool both_inside(const struct two_names *t)
{
	return t->from.where == PL_INSIDE && t->to.where == PL_INSIDE && t->from.root == t->to.root;
}

static int guarded_rename(int fromfd, const char *from, int tofd, const char *to, unsigned flags)
{
	struct two_names t;

	if (locate_two(fromfd, from, 0, tofd, to, &t, "rename") < 0)
		return -1;
	if (both_inside(&t))
		return pl_lib_or_kernel(pg_rename(t.from.root, t.from.rel, t.to.rel, flags), NULL,
					PG_OP_CREATE, "rename", from,
					flags ? PL_REAL(renameat2)(fromfd, from, tofd, to, flags)
					      : PL_REAL(renameat)(fromfd, from, tofd, to));
	if (pl_judge(&t.from, PG_OP_DELETE) < 0)
		return pl_refused("rename", from);
	if (pl_judge(&t.to, (flags & RENAME_EXCHANGE) ? PG_OP_DELETE : PG_OP_CREATE) < 0)
		return pl_refused("rename", to);
	if (flags)
		return PL_REAL(renameat2)(fromfd, from, tofd, to, flags);
	return PL_REAL(renameat)(fromfd, from, tofd, to);
}

int renameat2(int fromfd, const char *from, int tofd, const char *to, unsigned flags)
{
	int rc;

	if (!pl_enter())
		return PL_REAL(renameat2)(fromfd, from, tofd, to, flags);
	rc = guarded_rename(fromfd, from, tofd, to, flags);
	pl_leave();
	return rc;
}

int renameat(int fromfd, const char *from, int tofd, const char *to)
{
	int rc;

	if (!pl_enter())
		return PL_REAL(renameat)(fromfd, from, tofd, to);
	rc = guarded_rename(fromfd, from, tofd, to, 0);
	pl_leave();
	return rc;
}

int rename(const char *from, const char *to)
{
	return renameat(AT_FDCWD, from, AT_FDCWD, to);
}

static int guarded_link(int fromfd, const char *from, int tofd, const char *to, int flags)
{
	struct two_names t;

	if (locate_two(fromfd, from, flags, tofd, to, &t, "link") < 0)
		return -1;
	if (both_inside(&t) && flags == 0)
		return pl_lib_or_kernel(pg_link(t.from.root, t.from.rel, t.to.rel), NULL, PG_OP_CREATE, "link", to,
					PL_REAL(linkat)(fromfd, from, tofd, to, flags));
	/* A new name for a file is a way to read it. */
	if (pl_judge(&t.from, PG_OP_READ) < 0)
		return pl_refused("link", from);
	if (pl_judge(&t.to, PG_OP_CREATE) < 0)
		return pl_refused("link", to);
	return PL_REAL(linkat)(fromfd, from, tofd, to, flags);
}

int linkat(int fromfd, const char *from, int tofd, const char *to, int flags)
{
	int rc;

	if (!pl_enter())
		return PL_REAL(linkat)(fromfd, from, tofd, to, flags);
	rc = guarded_link(fromfd, from, tofd, to, flags);
	pl_leave();
	return rc;
}

int link(const char *from, const char *to)
{
	return linkat(AT_FDCWD, from, AT_FDCWD, to, 0);
}

int symlinkat(const char *target, int dirfd, const char *path)
{
	struct pl_name n;
	int rc;

	if (!pl_enter())
		return PL_REAL(symlinkat)(target, dirfd, path);
	if (pl_locate(dirfd, path, 0, &n) < 0)
		rc = pl_refused("symlink", path);
	else if (n.where == PL_INSIDE)
		rc = pl_lib_or_kernel(pg_symlink(n.root, target, n.rel), &n, PG_OP_CREATE, "symlink", path,
				      PL_REAL(symlinkat)(target, dirfd, path));
	else if (pl_judge(&n, PG_OP_CREATE) < 0)
		rc = pl_refused("symlink", path);
	else
		rc = PL_REAL(symlinkat)(target, dirfd, path);
	pl_leave();
	return rc;
}

int symlink(const char *target, const char *path)
{
	return symlinkat(target, AT_FDCWD, path);
}

/* ----------------------------------------------------- special files */

PL_DECLARE_REAL(mknodat);
PL_DECLARE_REAL(mkfifoat);

int mknodat(int dirfd, const char *path, mode_t mode, dev_t dev)
{
	if (pl_judge_op(dirfd, path, 0, PG_OP_CREATE, "mknod") < 0)
		return -1;
	return PL_REAL(mknodat)(dirfd, path, mode, dev);
}

int mknod(const char *path, mode_t mode, dev_t dev)
{
	return mknodat(AT_FDCWD, path, mode, dev);
}

int mkfifoat(int dirfd, const char *path, mode_t mode)
{
	if (pl_judge_op(dirfd, path, 0, PG_OP_CREATE, "mkfifo") < 0)
		return -1;
	return PL_REAL(mkfifoat)(dirfd, path, mode);
}

int mkfifo(const char *path, mode_t mode)
{
	return mkfifoat(AT_FDCWD, path, mode);
}
