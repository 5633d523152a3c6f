/* preload-more.c - the path-taking libc calls the other interposers left
 * to libc, which reach the kernel through glibc's internal entry points
 * out of the guard's sight: the mkstemp and mkdtemp family, statfs and
 * statvfs, ftok, setmntent, inotify_add_watch, dlopen, realpath,
 * scandir's other names, remove, pathconf, name_to_handle_at and the
 * fortified readlink and realpath.  tests/preload-symbols.txt lists every
 * path-taking symbol and what became of it. */
#include "config.h"
/* The interposers define the names themselves: no header redirects. */
#undef _FILE_OFFSET_BITS
#undef _FORTIFY_SOURCE

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <mntent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/ipc.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "pathgate.h"
#include "preload.h"

/* glibc symbols no public header declares: the fortified names a
 * _FORTIFY_SOURCE program calls, and the failure they end in. */
void    __chk_fail(void) __attribute__((noreturn));
char   *__realpath_chk(const char *path, char *resolved, size_t resolvedlen);
ssize_t __readlink_chk(const char *path, char *buf, size_t len, size_t buflen);
ssize_t __readlinkat_chk(int dirfd, const char *path, char *buf, size_t len, size_t buflen);

/* Judge PATH for reading as a whole guarded call: 0 to go on. */
static int judge_read(const char *path, const char *call)
{
	return pl_judge_op(AT_FDCWD, path, 0, PG_OP_READ, call);
}

/* ------------------------------------------------------ temporary names */

/* libc picks the name and creates it with its internal open, so the
 * guard never saw the name (a denied *.key could be made, and then not
 * removed).  Here the name is picked first and created through the
 * interposed open and mkdir, which judge it.  A refusal ends the search:
 * every name in a denied directory is refused alike. */
static int fill_name(char *tmpl, int suffixlen)
{
	static const char letters[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
	size_t len = tmpl ? strlen(tmpl) : 0;
	unsigned char rnd[6];
	char *x;
	int i;

	if (suffixlen < 0 || len < 6 + (size_t)suffixlen) {
		errno = EINVAL;
		return -1;
	}
	x = tmpl + len - suffixlen - 6;
	if (memcmp(x, "XXXXXX", 6) != 0) {
		errno = EINVAL;
		return -1;
	}
	if (getrandom(rnd, sizeof rnd, 0) != (ssize_t)sizeof rnd) {
		errno = EEXIST;
		return -1;
	}
	for (i = 0; i < 6; i++)
		x[i] = letters[rnd[i] % (sizeof letters - 1)];
	return 0;
}

/* Put the Xs back, so a failed call leaves the template as it came. */
static void unfill_name(char *tmpl, int suffixlen)
{
	size_t len = strlen(tmpl);

	if (len >= 6 + (size_t)suffixlen)
		memcpy(tmpl + len - suffixlen - 6, "XXXXXX", 6);
}

#define PL_TMP_TRIES 238328  /* glibc's bound: 62 cubed */

static int make_file(char *tmpl, int suffixlen, int flags)
{
	int tries, fd;

	for (tries = 0; tries < PL_TMP_TRIES; tries++) {
		if (fill_name(tmpl, suffixlen) < 0)
			return -1;
		fd = open(tmpl, (flags & ~O_ACCMODE) | O_RDWR | O_CREAT | O_EXCL, 0600);
		if (fd >= 0 || errno != EEXIST)
			break;
	}
	if (fd < 0)
		unfill_name(tmpl, suffixlen);
	return fd;
}

PL_DECLARE_REAL(mkostemps);

int mkostemps(char *tmpl, int suffixlen, int flags)
{
	if (!pl_enter())
		return PL_REAL(mkostemps)(tmpl, suffixlen, flags);
	pl_leave();
	return make_file(tmpl, suffixlen, flags);
}

int mkostemps64(char *tmpl, int suffixlen, int flags)
{
	return mkostemps(tmpl, suffixlen, flags);
}

int mkstemps(char *tmpl, int suffixlen)
{
	return mkostemps(tmpl, suffixlen, 0);
}

int mkstemps64(char *tmpl, int suffixlen)
{
	return mkostemps(tmpl, suffixlen, 0);
}

int mkostemp(char *tmpl, int flags)
{
	return mkostemps(tmpl, 0, flags);
}

int mkostemp64(char *tmpl, int flags)
{
	return mkostemps(tmpl, 0, flags);
}

int mkstemp(char *tmpl)
{
	return mkostemps(tmpl, 0, 0);
}

int mkstemp64(char *tmpl)
{
	return mkostemps(tmpl, 0, 0);
}

PL_DECLARE_REAL(mkdtemp);

char *mkdtemp(char *tmpl)
{
	int tries, rc = -1;

	if (!pl_enter())
		return PL_REAL(mkdtemp)(tmpl);
	pl_leave();
	for (tries = 0; tries < PL_TMP_TRIES; tries++) {
		if (fill_name(tmpl, 0) < 0)
			return NULL;
		rc = mkdir(tmpl, 0700);
		if (rc == 0 || errno != EEXIST)
			break;
	}
	if (rc < 0) {
		unfill_name(tmpl, 0);
		return NULL;
	}
	return tmpl;
}

/* ------------------------------------------------------ looking at names */

PL_DECLARE_REAL(statfs);
PL_DECLARE_REAL(statvfs);

int statfs(const char *path, struct statfs *buf)
{
	if (judge_read(path, "statfs") < 0)
		return -1;
	return PL_REAL(statfs)(path, buf);
}

int statfs64(const char *path, struct statfs64 *buf)
{
	return statfs(path, (struct statfs *)buf);
}

int statvfs(const char *path, struct statvfs *buf)
{
	if (judge_read(path, "statvfs") < 0)
		return -1;
	return PL_REAL(statvfs)(path, buf);
}

int statvfs64(const char *path, struct statvfs64 *buf)
{
	return statvfs(path, (struct statvfs *)buf);
}

PL_DECLARE_REAL(pathconf);

long pathconf(const char *path, int name)
{
	if (judge_read(path, "pathconf") < 0)
		return -1;
	return PL_REAL(pathconf)(path, name);
}

PL_DECLARE_REAL(ftok);

/* ftok stats the name to make its key: the inode of a denied name. */
key_t ftok(const char *path, int id)
{
	if (judge_read(path, "ftok") < 0)
		return -1;
	return PL_REAL(ftok)(path, id);
}

PL_DECLARE_REAL(setmntent);

FILE *setmntent(const char *path, const char *mode)
{
	if (judge_read(path, "setmntent") < 0)
		return NULL;
	return PL_REAL(setmntent)(path, mode);
}

PL_DECLARE_REAL(inotify_add_watch);

int inotify_add_watch(int fd, const char *path, uint32_t mask)
{
	int at = (mask & IN_DONT_FOLLOW) ? AT_SYMLINK_NOFOLLOW : 0;

	if (pl_judge_op(AT_FDCWD, path, at, PG_OP_READ, "inotify_add_watch") < 0)
		return -1;
	return PL_REAL(inotify_add_watch)(fd, path, mask);
}

PL_DECLARE_REAL(name_to_handle_at);

int name_to_handle_at(int dirfd, const char *path, struct file_handle *handle, int *mount_id, int flags)
{
	int at = (flags & AT_SYMLINK_FOLLOW) ? 0 : AT_SYMLINK_NOFOLLOW;

	if (!(flags & AT_EMPTY_PATH && path && !*path) &&
	    pl_judge_op(dirfd, path, at, PG_OP_READ, "name_to_handle_at") < 0)
		return -1;
	return PL_REAL(name_to_handle_at)(dirfd, path, handle, mount_id, flags);
}

PL_DECLARE_REAL(realpath);

/* realpath walks every component with glibc's internal readlink. */
char *realpath(const char *path, char *resolved)
{
	if (judge_read(path, "realpath") < 0)
		return NULL;
	return PL_REAL(realpath)(path, resolved);
}

char *canonicalize_file_name(const char *path)
{
	return realpath(path, NULL);
}

char *__realpath_chk(const char *path, char *resolved, size_t resolvedlen)
{
	if (resolvedlen < PATH_MAX)
		__chk_fail();
	return realpath(path, resolved);
}

ssize_t __readlink_chk(const char *path, char *buf, size_t len, size_t buflen)
{
	if (len > buflen)
		__chk_fail();
	return readlink(path, buf, len);
}

ssize_t __readlinkat_chk(int dirfd, const char *path, char *buf, size_t len, size_t buflen)
{
	if (len > buflen)
		__chk_fail();
	return readlinkat(dirfd, path, buf, len);
}

/* ------------------------------------------------------ loading code */

PL_DECLARE_REAL(dlopen);
PL_DECLARE_REAL(dlmopen);

/* A name without a slash is searched for by the loader in the system's
 * library directories; one with a slash is a file the program names,
 * and is judged as a read. */
static int judge_library(const char *file, const char *call)
{
	if (!file || !strchr(file, '/'))
		return 0;
	return judge_read(file, call);
}

void *dlopen(const char *file, int mode)
{
	if (judge_library(file, "dlopen") < 0)
		return NULL;
	return PL_REAL(dlopen)(file, mode);
}

void *dlmopen(Lmid_t lmid, const char *file, int mode)
{
	if (judge_library(file, "dlmopen") < 0)
		return NULL;
	return PL_REAL(dlmopen)(lmid, file, mode);
}

/* ------------------------------------------------------ walkers, remove */

PL_DECLARE_REAL(scandirat);

int scandirat(int dirfd, const char *path, struct dirent ***list, int (*filter)(const struct dirent *),
	      int (*compar)(const struct dirent **, const struct dirent **))
{
	if (pl_judge_op(dirfd, path, 0, PG_OP_READ, "scandirat") < 0)
		return -1;
	return PL_REAL(scandirat)(dirfd, path, list, filter, compar);
}

int scandir64(const char *path, struct dirent64 ***list, int (*filter)(const struct dirent64 *),
	      int (*compar)(const struct dirent64 **, const struct dirent64 **))
{
	return scandir(path, (struct dirent ***)list, (int (*)(const struct dirent *))filter,
		       (int (*)(const struct dirent **, const struct dirent **))compar);
}

int scandirat64(int dirfd, const char *path, struct dirent64 ***list, int (*filter)(const struct dirent64 *),
		int (*compar)(const struct dirent64 **, const struct dirent64 **))
{
	return scandirat(dirfd, path, (struct dirent ***)list, (int (*)(const struct dirent *))filter,
			 (int (*)(const struct dirent **, const struct dirent **))compar);
}

/* glibc's remove unlinks, then removes a directory, both internally:
 * here through the interposed calls, which judge. */
int remove(const char *path)
{
	if (unlink(path) == 0)
		return 0;
	if (errno != EISDIR)
		return -1;
	return rmdir(path);
}
