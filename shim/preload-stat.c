/* preload-stat.c - the stat family (with the pre-2.33 __xstat symbols),
 * access and readlink, under the guard: a denied name cannot even be
 * looked at. */
#include "config.h"
/* The interposers define the names themselves: no header redirects. */
#undef _FILE_OFFSET_BITS
#undef _FORTIFY_SOURCE

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pathgate.h"
#include "preload.h"

/* The guard sees the same bytes whichever name the program called. */
_Static_assert(sizeof(struct stat) == sizeof(struct stat64), "stat64 is stat here");

/* ------------------------------------------------------------------ stat */

PL_DECLARE_REAL(fstatat);
PL_DECLARE_REAL(statx);

/* The library, given a cached name for DIRFD, reached ST: true when the
 * program's own call reaches the same object, so the answer is both
 * judged (by name, from the root) and the one the program asked for.
 * The program's call only identifies; its result is not handed out. */
static bool same_object(int dirfd, const char *path, int flags, const struct stat *st)
{
	struct stat mine;

	return PL_REAL(fstatat)(dirfd, path, &mine, flags & (AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT)) == 0 &&
	       mine.st_dev == st->st_dev && mine.st_ino == st->st_ino;
}

/* A name relative to a directory fd, by the name cached for the fd
 * (preload-cache.c): 0 when answered, else 1 with N located again
 * exactly (/proc/self/fd/N), or -1 when that fails.  Any failure of the
 * cached attempt (ENOENT, a refusal, another object) may come from a
 * stale name, so it is never the answer: the exact name decides. */
static int stat_cached(int dirfd, const char *path, struct stat *st, int flags, struct pl_name *n)
{
	if (pl_locate(dirfd, path, flags | PL_LOCATE_CACHED, n) < 0)
		return -1;
	if (!n->cached)
		return 1;
	if (pl_cached_ok(n) && pg_stat(n->root, n->rel, st, flags & AT_SYMLINK_NOFOLLOW) == 0 &&
	    same_object(dirfd, path, flags, st))
		return 0;
	pl_dirs_forget(dirfd);
	return pl_locate(dirfd, path, flags | PL_LOCATE_FILL, n) < 0 ? -1 : 1;
}

static int guarded_fstatat(int dirfd, const char *path, struct stat *st, int flags)
{
	struct pl_name n;
	int rc;

	rc = stat_cached(dirfd, path, st, PL_AT(flags), &n);
	if (rc <= 0)
		return rc == 0 ? 0 : pl_refused("stat", path);
	if (n.where == PL_INSIDE)
		return pl_lib_or_kernel(pg_stat(n.root, n.rel, st, flags & AT_SYMLINK_NOFOLLOW), &n, PG_OP_READ,
					"stat", path, PL_REAL(fstatat)(dirfd, path, st, flags));
	if (pl_judge(&n, PG_OP_READ) < 0)
		return pl_refused("stat", path);
	return PL_REAL(fstatat)(dirfd, path, st, flags);
}

int fstatat(int dirfd, const char *path, struct stat *st, int flags)
{
	int rc;

	if (!pl_enter())
		return PL_REAL(fstatat)(dirfd, path, st, flags);
	rc = guarded_fstatat(dirfd, path, st, flags);
	pl_leave();
	return rc;
}

int fstatat64(int dirfd, const char *path, struct stat64 *st, int flags)
{
	return fstatat(dirfd, path, (struct stat *)st, flags);
}

int newfstatat(int dirfd, const char *path, struct stat *st, int flags)
{
	return fstatat(dirfd, path, st, flags);
}

int stat(const char *path, struct stat *st)
{
	return fstatat(AT_FDCWD, path, st, 0);
}

int stat64(const char *path, struct stat64 *st)
{
	return fstatat(AT_FDCWD, path, (struct stat *)st, 0);
}

int lstat(const char *path, struct stat *st)
{
	return fstatat(AT_FDCWD, path, st, AT_SYMLINK_NOFOLLOW);
}

int lstat64(const char *path, struct stat64 *st)
{
	return fstatat(AT_FDCWD, path, (struct stat *)st, AT_SYMLINK_NOFOLLOW);
}

/* The pre-2.33 glibc entry points old binaries still call; on this ABI
 * their struct is struct stat. */
int __xstat(int ver, const char *path, struct stat *st)
{
	(void)ver;
	return fstatat(AT_FDCWD, path, st, 0);
}

int __lxstat(int ver, const char *path, struct stat *st)
{
	(void)ver;
	return fstatat(AT_FDCWD, path, st, AT_SYMLINK_NOFOLLOW);
}

int __fxstatat(int ver, int dirfd, const char *path, struct stat *st, int flags)
{
	(void)ver;
	return fstatat(dirfd, path, st, flags);
}

int __xstat64(int ver, const char *path, struct stat64 *st)
{
	(void)ver;
	return fstatat(AT_FDCWD, path, (struct stat *)st, 0);
}

int __lxstat64(int ver, const char *path, struct stat64 *st)
{
	(void)ver;
	return fstatat(AT_FDCWD, path, (struct stat *)st, AT_SYMLINK_NOFOLLOW);
}

int __fxstatat64(int ver, int dirfd, const char *path, struct stat64 *st, int flags)
{
	(void)ver;
	return fstatat(dirfd, path, (struct stat *)st, flags);
}

int statx(int dirfd, const char *path, int flags, unsigned mask, struct statx *stx)
{
	struct pl_name n;
	struct stat st;
	int rc = 0;

	if (!pl_enter())
		return PL_REAL(statx)(dirfd, path, flags, mask, stx);
	if (pl_locate(dirfd, path, PL_AT(flags), &n) < 0)
		rc = pl_refused("statx", path);
	else if (n.where == PL_INSIDE)
		rc = pl_lib_or_kernel(pg_stat(n.root, n.rel, &st, flags & AT_SYMLINK_NOFOLLOW), &n, PG_OP_READ,
				      "statx", path, 0);
	else if (pl_judge(&n, PG_OP_READ) < 0)
		rc = pl_refused("statx", path);
	pl_leave();
	if (rc < 0)
		return rc;
	return PL_REAL(statx)(dirfd, path, flags, mask, stx);
}

/* ---------------------------------------------------------------- access */

PL_DECLARE_REAL(faccessat);

int faccessat(int dirfd, const char *path, int mode, int flags)
{
	int rc;

	if (!pl_enter())
		return PL_REAL(faccessat)(dirfd, path, mode, flags);
	rc = pl_judge_at(dirfd, path, flags, (mode & W_OK) ? PG_OP_WRITE : PG_OP_READ, "access");
	pl_leave();
	if (rc < 0)
		return rc;
	return PL_REAL(faccessat)(dirfd, path, mode, flags);
}

int access(const char *path, int mode)
{
	return faccessat(AT_FDCWD, path, mode, 0);
}

int euidaccess(const char *path, int mode)
{
	return faccessat(AT_FDCWD, path, mode, AT_EACCESS);
}

int eaccess(const char *path, int mode)
{
	return faccessat(AT_FDCWD, path, mode, AT_EACCESS);
}

/* -------------------------------------------------------------- readlink */

PL_DECLARE_REAL(readlinkat);

ssize_t readlinkat(int dirfd, const char *path, char *buf, size_t size)
{
	struct pl_name n;
	ssize_t rc;

	if (!pl_enter())
		return PL_REAL(readlinkat)(dirfd, path, buf, size);
	if (pl_locate(dirfd, path, AT_SYMLINK_NOFOLLOW, &n) < 0)
		rc = pl_refused("readlink", path);
	else if (n.where == PL_INSIDE) {
		rc = pg_readlink(n.root, n.rel, buf, size);
		if (rc < 0)
			pl_lib_result(-1, "readlink", path);
	}
	else if (pl_judge(&n, PG_OP_READ) < 0)
		rc = pl_refused("readlink", path);
	else
		rc = PL_REAL(readlinkat)(dirfd, path, buf, size);
	pl_leave();
	return rc;
}

ssize_t readlink(const char *path, char *buf, size_t size)
{
	return readlinkat(AT_FDCWD, path, buf, size);
}
