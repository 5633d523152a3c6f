/* preload-open.c - the open family and stdio's fopen / freopen, under the
 * guard.  Inside the root pg_open opens (fd-anchored resolution, landing
 * checks); host paths are judged by the absolute rules and opened by libc. */
#include "config.h"
/* The interposers define the names themselves: no header redirects. */
#undef _FILE_OFFSET_BITS
#undef _FORTIFY_SOURCE

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pathgate.h"
#include "preload.h"

/* ------------------------------------------------------------------ open */

PL_DECLARE_REAL(openat);

/* open(2) and openat(2) drop what O_PATH does not take, where pg_open
 * answers EINVAL as openat2(2) does: the program called the former. */
static int as_open_would(int flags)
{
	return flags & O_PATH ? flags & (O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) : flags;
}

/* What the program's own call names (identity only, never handed out):
 * 0 when it is a regular file or a directory, the only objects the
 * cached name is tried on (opening a FIFO or a device has effects). */
static int own_object(int dirfd, const char *path, int flags, struct stat *mine)
{
	if (fstatat(dirfd, path, mine, flags & O_NOFOLLOW ? AT_SYMLINK_NOFOLLOW : 0) < 0)
		return -1;
	return S_ISREG(mine->st_mode) || S_ISDIR(mine->st_mode) ? 0 : -1;
}

/* True when FD, opened by the library from a cached name, is MINE. */
static bool same_object(int fd, const struct stat *mine)
{
	struct stat got;

	return fstat(fd, &got) == 0 && got.st_dev == mine->st_dev && got.st_ino == mine->st_ino;
}

/* A directory the program opened is remembered by the name it was
 * opened by, so the calls relative to it (a walk) need no /proc lookup. */
static int remember(int fd, const struct pl_name *n, int flags)
{
	if (fd >= 0 && (flags & O_DIRECTORY) && n->where == PL_INSIDE && n->held < 0)
		pl_dirs_put(fd, n->abs);
	return fd;
}

/* A read-only open relative to a directory fd, by the name cached for it
 * (preload-cache.c): *FD gets the answer and 0 is returned, or 1 with N
 * located again exactly, or -1 when that fails.  Only a read creating
 * nothing, of a regular file or a directory: a stale name must not make
 * anything happen anywhere.  Any failure of the cached attempt may come
 * from a stale name: the exact name decides. */
static int open_cached(int dirfd, const char *path, int flags, struct pl_name *n, int *fd)
{
	bool reads = pg_op_for_open_flags(flags) == PG_OP_READ && !(flags & (O_CREAT | O_TRUNC));
	struct stat mine;

	if (pl_locate(dirfd, path, reads ? PL_LOCATE_CACHED : 0, n) < 0)
		return -1;
	if (!n->cached)
		return 1;
	if (pl_cached_ok(n) && own_object(dirfd, path, flags, &mine) == 0) {
		*fd = pg_open(n->root, n->rel, flags, 0);
		if (*fd >= 0 && same_object(*fd, &mine))
			return 0;
		if (*fd >= 0)
			close(*fd);
	}
	pl_dirs_forget(dirfd);
	return pl_locate(dirfd, path, PL_LOCATE_FILL, n) < 0 ? -1 : 1;
}

static int guarded_open(int dirfd, const char *path, int flags, mode_t mode, const char *call)
{
	struct pl_name n;
	int fd = -1, rc;

	flags = as_open_would(flags);
	rc = open_cached(dirfd, path, flags, &n, &fd);
	if (rc < 0)
		return pl_refused(call, path);
	if (rc == 0) {
		if (!(flags & O_CLOEXEC))
			fcntl(fd, F_SETFD, 0);
		return remember(fd, &n, flags);
	}
	/* A name in the root the library opens; a descriptor the program
	 * holds (/dev/fd/N) is judged, then reopened by libc. */
	if (n.where == PL_INSIDE && n.held < 0) {
		fd = pg_open(n.root, n.rel, flags, mode);
		if (fd < 0 && pl_kernel_answers(&n, pg_op_for_open_flags(flags)))
			return PL_REAL(openat)(dirfd, path, flags, mode);
		if (fd < 0)
			return pl_lib_result(fd, call, path);
		/* The library opens O_CLOEXEC; the program asked what it asked. */
		if (!(flags & O_CLOEXEC))
			fcntl(fd, F_SETFD, 0);
		return remember(fd, &n, flags);
	}
	if (pl_judge(&n, pg_op_for_open_flags(flags)) < 0)
		return pl_refused(call, path);
	fd = PL_REAL(openat)(dirfd, path, flags, mode);
	if (fd >= 0 && pg_op_for_open_flags(flags) == PG_OP_READ && pl_judge_landing(&n, fd) < 0) {
		int err = errno;

		close(fd);
		errno = err;
		return pl_refused(call, path);
	}
	return fd;
}

static int open_at(int dirfd, const char *path, int flags, mode_t mode, const char *call)
{
	int fd;

	if (!pl_enter())
		return PL_REAL(openat)(dirfd, path, flags, mode);
	fd = guarded_open(dirfd, path, flags, mode, call);
	pl_leave();
	return fd;
}

#define OPEN_MODE(flags, mode) do {                              \
	if ((flags) & (O_CREAT | __O_TMPFILE)) {                 \
		va_list ap;                                      \
		va_start(ap, flags);                             \
		mode = va_arg(ap, mode_t);                       \
		va_end(ap);                                      \
	}                                                        \
} while (0)

int open(const char *path, int flags, ...)
{
	mode_t mode = 0;

	OPEN_MODE(flags, mode);
	return open_at(AT_FDCWD, path, flags, mode, "open");
}

int open64(const char *path, int flags, ...)
{
	mode_t mode = 0;

	OPEN_MODE(flags, mode);
	return open_at(AT_FDCWD, path, flags, mode, "open");
}

int openat(int dirfd, const char *path, int flags, ...)
{
	mode_t mode = 0;

	OPEN_MODE(flags, mode);
	return open_at(dirfd, path, flags, mode, "openat");
}

int openat64(int dirfd, const char *path, int flags, ...)
{
	mode_t mode = 0;

	OPEN_MODE(flags, mode);
	return open_at(dirfd, path, flags, mode, "openat");
}

int __open_2(const char *path, int flags)
{
	return open_at(AT_FDCWD, path, flags, 0, "open");
}

int __open64_2(const char *path, int flags)
{
	return open_at(AT_FDCWD, path, flags, 0, "open");
}

int __openat_2(int dirfd, const char *path, int flags)
{
	return open_at(dirfd, path, flags, 0, "openat");
}

int __openat64_2(int dirfd, const char *path, int flags)
{
	return open_at(dirfd, path, flags, 0, "openat");
}

int creat(const char *path, mode_t mode)
{
	return open_at(AT_FDCWD, path, O_WRONLY | O_CREAT | O_TRUNC, mode, "creat");
}

int creat64(const char *path, mode_t mode)
{
	return open_at(AT_FDCWD, path, O_WRONLY | O_CREAT | O_TRUNC, mode, "creat");
}

/* ----------------------------------------------------------------- stdio */

PL_DECLARE_REAL(fopen);
PL_DECLARE_REAL(freopen);

/* open(2) flags of an fopen mode; -1 when libc would refuse it. */
static int fopen_flags(const char *mode)
{
	int flags;
	const char *m;

	switch (mode[0]) {
	case 'r': flags = O_RDONLY; break;
	case 'w': flags = O_WRONLY | O_CREAT | O_TRUNC; break;
	case 'a': flags = O_WRONLY | O_CREAT | O_APPEND; break;
	default: return -1;
	}
	for (m = mode + 1; *m && *m != ','; m++) {
		if (*m == '+')
			flags = (flags & ~O_ACCMODE) | O_RDWR;
		else if (*m == 'x')
			flags |= O_EXCL;
		else if (*m == 'e')
			flags |= O_CLOEXEC;
	}
	return flags;
}

static FILE *guarded_fopen(const char *path, const char *mode)
{
	int flags = path && mode ? fopen_flags(mode) : -1;
	struct pl_name n;
	FILE *f;
	int fd;

	if (flags < 0)
		return PL_REAL(fopen)(path, mode);
	if (pl_locate(AT_FDCWD, path, 0, &n) < 0) {
		pl_refused("fopen", path);
		return NULL;
	}
	if (n.where != PL_INSIDE || n.held >= 0) {
		if (pl_judge(&n, pg_op_for_open_flags(flags)) < 0) {
			pl_refused("fopen", path);
			return NULL;
		}
		f = PL_REAL(fopen)(path, mode);
		if (f && pg_op_for_open_flags(flags) == PG_OP_READ && pl_judge_landing(&n, fileno(f)) < 0) {
			int err = errno;

			fclose(f);
			errno = err;
			pl_refused("fopen", path);
			return NULL;
		}
		return f;
	}
	fd = pg_open(n.root, n.rel, flags, 0666);
	if (fd < 0 && pl_kernel_answers(&n, pg_op_for_open_flags(flags)))
		return PL_REAL(fopen)(path, mode);
	if (fd < 0) {
		pl_lib_result(fd, "fopen", path);
		return NULL;
	}
	if (!(flags & O_CLOEXEC))
		fcntl(fd, F_SETFD, 0);
	f = fdopen(fd, mode);
	if (!f) {
		int saved = errno;

		close(fd);
		errno = saved;
	}
	return f;
}

FILE *fopen(const char *path, const char *mode)
{
	FILE *f;

	if (!pl_enter())
		return PL_REAL(fopen)(path, mode);
	f = guarded_fopen(path, mode);
	pl_leave();
	return f;
}

FILE *fopen64(const char *path, const char *mode)
{
	return fopen(path, mode);
}

FILE *freopen(const char *path, const char *mode, FILE *stream)
{
	int flags = path && mode ? fopen_flags(mode) : -1;
	int rc = 0;

	if (flags < 0 || !pl_enter())
		return PL_REAL(freopen)(path, mode, stream);
	rc = pl_judge_at(AT_FDCWD, path, 0, pg_op_for_open_flags(flags), "freopen");
	pl_leave();
	if (rc < 0)
		return NULL;
	return PL_REAL(freopen)(path, mode, stream);
}

FILE *freopen64(const char *path, const char *mode, FILE *stream)
{
	return freopen(path, mode, stream);
}
