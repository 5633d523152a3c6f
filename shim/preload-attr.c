/* preload-attr.c - calls that change what a name carries: chmod, chown,
 * truncate, times and extended attributes. */
#include "config.h"
/* The interposers define the names themselves: no header redirects. */
#undef _FILE_OFFSET_BITS
#undef _FORTIFY_SOURCE

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/xattr.h>
#include <unistd.h>
#include <utime.h>

#include "pathgate.h"
#include "preload.h"

/* ------------------------------------------------------ attributes, times */

PL_DECLARE_REAL(fchmodat);
PL_DECLARE_REAL(fchownat);
PL_DECLARE_REAL(truncate);
PL_DECLARE_REAL(utimensat);
PL_DECLARE_REAL(utimes);
PL_DECLARE_REAL(lutimes);
PL_DECLARE_REAL(futimesat);
PL_DECLARE_REAL(utime);

int fchmodat(int dirfd, const char *path, mode_t mode, int flags)
{
	struct pl_name n;
	int rc;

	if (!pl_enter())
		return PL_REAL(fchmodat)(dirfd, path, mode, flags);
	if (pl_locate(dirfd, path, PL_AT(flags), &n) < 0)
		rc = pl_refused("chmod", path);
	else if (n.where == PL_INSIDE && flags == 0)
		rc = pl_lib_or_kernel(pg_chmod(n.root, n.rel, mode), &n, PG_OP_WRITE, "chmod", path,
				      PL_REAL(fchmodat)(dirfd, path, mode, flags));
	else if (pl_judge(&n, PG_OP_WRITE) < 0)
		rc = pl_refused("chmod", path);
	else
		rc = PL_REAL(fchmodat)(dirfd, path, mode, flags);
	pl_leave();
	return rc;
}

int chmod(const char *path, mode_t mode)
{
	return fchmodat(AT_FDCWD, path, mode, 0);
}

int lchmod(const char *path, mode_t mode)
{
	return fchmodat(AT_FDCWD, path, mode, AT_SYMLINK_NOFOLLOW);
}

int fchownat(int dirfd, const char *path, uid_t uid, gid_t gid, int flags)
{
	int rc;

	if (!pl_enter())
		return PL_REAL(fchownat)(dirfd, path, uid, gid, flags);
	rc = pl_judge_at(dirfd, path, flags, PG_OP_WRITE, "chown");
	pl_leave();
	if (rc < 0)
		return rc;
	return PL_REAL(fchownat)(dirfd, path, uid, gid, flags);
}

int chown(const char *path, uid_t uid, gid_t gid)
{
	return fchownat(AT_FDCWD, path, uid, gid, 0);
}

int lchown(const char *path, uid_t uid, gid_t gid)
{
	return fchownat(AT_FDCWD, path, uid, gid, AT_SYMLINK_NOFOLLOW);
}

int truncate(const char *path, off_t length)
{
	struct pl_name n;
	int rc;

	if (!pl_enter())
		return PL_REAL(truncate)(path, length);
	if (pl_locate(AT_FDCWD, path, 0, &n) < 0)
		rc = pl_refused("truncate", path);
	else if (n.where == PL_INSIDE)
		rc = pl_lib_or_kernel(pg_truncate(n.root, n.rel, length), &n, PG_OP_WRITE, "truncate", path,
				      PL_REAL(truncate)(path, length));
	else if (pl_judge(&n, PG_OP_WRITE) < 0)
		rc = pl_refused("truncate", path);
	else
		rc = PL_REAL(truncate)(path, length);
	pl_leave();
	return rc;
}

int truncate64(const char *path, off64_t length)
{
	return truncate(path, (off_t)length);
}

int utimensat(int dirfd, const char *path, const struct timespec times[2], int flags)
{
	if (pl_judge_op(dirfd, path, flags, PG_OP_WRITE, "utimensat") < 0)
		return -1;
	return PL_REAL(utimensat)(dirfd, path, times, flags);
}

int utimes(const char *path, const struct timeval times[2])
{
	if (pl_judge_op(AT_FDCWD, path, 0, PG_OP_WRITE, "utimes") < 0)
		return -1;
	return PL_REAL(utimes)(path, times);
}

int lutimes(const char *path, const struct timeval times[2])
{
	if (pl_judge_op(AT_FDCWD, path, AT_SYMLINK_NOFOLLOW, PG_OP_WRITE, "lutimes") < 0)
		return -1;
	return PL_REAL(lutimes)(path, times);
}

int futimesat(int dirfd, const char *path, const struct timeval times[2])
{
	if (pl_judge_op(dirfd, path, 0, PG_OP_WRITE, "futimesat") < 0)
		return -1;
	return PL_REAL(futimesat)(dirfd, path, times);
}

int utime(const char *path, const struct utimbuf *times)
{
	if (pl_judge_op(AT_FDCWD, path, 0, PG_OP_WRITE, "utime") < 0)
		return -1;
	return PL_REAL(utime)(path, times);
}

/* ------------------------------------------------ extended attributes */

PL_DECLARE_REAL(setxattr);
PL_DECLARE_REAL(lsetxattr);
PL_DECLARE_REAL(removexattr);
PL_DECLARE_REAL(lremovexattr);
PL_DECLARE_REAL(getxattr);
PL_DECLARE_REAL(lgetxattr);
PL_DECLARE_REAL(listxattr);
PL_DECLARE_REAL(llistxattr);

int setxattr(const char *path, const char *name, const void *value, size_t size, int flags)
{
	if (pl_judge_op(AT_FDCWD, path, 0, PG_OP_WRITE, "setxattr") < 0)
		return -1;
	return PL_REAL(setxattr)(path, name, value, size, flags);
}

int lsetxattr(const char *path, const char *name, const void *value, size_t size, int flags)
{
	if (pl_judge_op(AT_FDCWD, path, AT_SYMLINK_NOFOLLOW, PG_OP_WRITE, "setxattr") < 0)
		return -1;
	return PL_REAL(lsetxattr)(path, name, value, size, flags);
}

int removexattr(const char *path, const char *name)
{
	if (pl_judge_op(AT_FDCWD, path, 0, PG_OP_WRITE, "removexattr") < 0)
		return -1;
	return PL_REAL(removexattr)(path, name);
}

int lremovexattr(const char *path, const char *name)
{
	if (pl_judge_op(AT_FDCWD, path, AT_SYMLINK_NOFOLLOW, PG_OP_WRITE, "removexattr") < 0)
		return -1;
	return PL_REAL(lremovexattr)(path, name);
}

ssize_t getxattr(const char *path, const char *name, void *value, size_t size)
{
	if (pl_judge_op(AT_FDCWD, path, 0, PG_OP_READ, "getxattr") < 0)
		return -1;
	return PL_REAL(getxattr)(path, name, value, size);
}

ssize_t lgetxattr(const char *path, const char *name, void *value, size_t size)
{
	if (pl_judge_op(AT_FDCWD, path, AT_SYMLINK_NOFOLLOW, PG_OP_READ, "getxattr") < 0)
		return -1;
	return PL_REAL(lgetxattr)(path, name, value, size);
}

ssize_t listxattr(const char *path, char *list, size_t size)
{
	if (pl_judge_op(AT_FDCWD, path, 0, PG_OP_READ, "listxattr") < 0)
		return -1;
	return PL_REAL(listxattr)(path, list, size);
}

ssize_t llistxattr(const char *path, char *list, size_t size)
{
	if (pl_judge_op(AT_FDCWD, path, AT_SYMLINK_NOFOLLOW, PG_OP_READ, "listxattr") < 0)
		return -1;
	return PL_REAL(llistxattr)(path, list, size);
}
