/* preload-fs.c - the filesystem calls of libc, put under the guard.
 *
 * Inside the root the library acts (pg_open, pg_mkdir, pg_rename ...) so
 * the program gets its fd-anchored resolution and its landing checks;
 * where the library has no such call, pg_check judges and libc acts.
 * Host paths outside the root are judged by the absolute rules.  Calls
 * on an fd alone (AT_EMPTY_PATH, a NULL path) go to libc untouched. */
#include "config.h"
/* The interposers define the names themselves: no header redirects. */
#undef _FILE_OFFSET_BITS
#undef _FORTIFY_SOURCE

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/xattr.h>
#include <unistd.h>
#include <utime.h>

#include "pathgate.h"
#include "preload.h"

/* The guard sees the same bytes whichever name the program called. */
_Static_assert(sizeof(struct stat) == sizeof(struct stat64), "stat64 is stat here");

static int refused(const char *call, const char *path)
{
	pl_log_refusal(call, path);
	return -1;
}

/* A library call's result: log when it was a refusal. */
static int lib_result(int rc, const char *call, const char *path)
{
	if (rc < 0 && pg_last_refusal()->name)
		pl_log_refusal(call, path);
	return rc;
}

/* Judge PATH for OP; 0 to go on with libc, -1 refused. */
static int judge_at(int dirfd, const char *path, int at_flags, enum pg_op op, const char *call)
{
	struct pl_name n;

	if (pl_locate(dirfd, path, at_flags, &n) < 0 || pl_judge(&n, op) < 0)
		return refused(call, path);
	return 0;
}

/* Judge PATH for OP before libc acts; 0 to go on. */
static int judge_op(int dirfd, const char *path, int flags, enum pg_op op, const char *call)
{
	int rc;

	if (!pl_enter())
		return 0;
	rc = judge_at(dirfd, path, flags, op, call);
	pl_leave();
	return rc;
}

static enum pg_op open_op(int flags)
{
	if (flags & O_CREAT)
		return PG_OP_CREATE;
	if ((flags & O_ACCMODE) != O_RDONLY || (flags & O_TRUNC))
		return PG_OP_WRITE;
	return PG_OP_READ;
}

/* ------------------------------------------------------------------ open */

PL_DECLARE_REAL(openat);

static int guarded_open(int dirfd, const char *path, int flags, mode_t mode, const char *call)
{
	struct pl_name n;
	int fd;

	if (pl_locate(dirfd, path, 0, &n) < 0)
		return refused(call, path);
	/* A name in the root the library opens; a descriptor the program
	 * holds (/dev/fd/N) is judged, then reopened by libc. */
	if (n.where == PL_INSIDE && n.held < 0) {
		fd = pg_open(n.root, n.rel, flags, mode);
		if (fd < 0)
			return lib_result(fd, call, path);
		/* The library opens O_CLOEXEC; the program asked what it asked. */
		if (!(flags & O_CLOEXEC))
			fcntl(fd, F_SETFD, 0);
		return fd;
	}
	if (pl_judge(&n, open_op(flags)) < 0)
		return refused(call, path);
	return PL_REAL(openat)(dirfd, path, flags, mode);
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
		refused("fopen", path);
		return NULL;
	}
	if (n.where != PL_INSIDE || n.held >= 0) {
		if (pl_judge(&n, open_op(flags)) < 0) {
			refused("fopen", path);
			return NULL;
		}
		return PL_REAL(fopen)(path, mode);
	}
	fd = pg_open(n.root, n.rel, flags, 0666);
	if (fd < 0) {
		lib_result(fd, "fopen", path);
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
	rc = judge_at(AT_FDCWD, path, 0, open_op(flags), "freopen");
	pl_leave();
	if (rc < 0)
		return NULL;
	return PL_REAL(freopen)(path, mode, stream);
}

FILE *freopen64(const char *path, const char *mode, FILE *stream)
{
	return freopen(path, mode, stream);
}

/* ------------------------------------------------------------------ stat */

PL_DECLARE_REAL(fstatat);
PL_DECLARE_REAL(statx);

static int guarded_fstatat(int dirfd, const char *path, struct stat *st, int flags)
{
	struct pl_name n;

	if (pl_locate(dirfd, path, flags, &n) < 0)
		return refused("stat", path);
	if (n.where == PL_INSIDE)
		return lib_result(pg_stat(n.root, n.rel, st, flags & AT_SYMLINK_NOFOLLOW), "stat", path);
	if (pl_judge(&n, PG_OP_READ) < 0)
		return refused("stat", path);
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
	if (pl_locate(dirfd, path, flags, &n) < 0)
		rc = refused("statx", path);
	else if (n.where == PL_INSIDE)
		rc = lib_result(pg_stat(n.root, n.rel, &st, flags & AT_SYMLINK_NOFOLLOW), "statx", path);
	else if (pl_judge(&n, PG_OP_READ) < 0)
		rc = refused("statx", path);
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
	rc = judge_at(dirfd, path, flags, (mode & W_OK) ? PG_OP_WRITE : PG_OP_READ, "access");
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
		rc = refused("mkdir", path);
	else if (n.where == PL_INSIDE)
		rc = lib_result(pg_mkdir(n.root, n.rel, mode), "mkdir", path);
	else if (pl_judge(&n, PG_OP_CREATE) < 0)
		rc = refused("mkdir", path);
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
		rc = refused("unlink", path);
	else if (n.where == PL_INSIDE)
		rc = lib_result((flags & AT_REMOVEDIR) ? pg_rmdir(n.root, n.rel) : pg_unlink(n.root, n.rel),
				"unlink", path);
	else if (pl_judge(&n, PG_OP_DELETE) < 0)
		rc = refused("unlink", path);
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
	if (pl_locate(fromfd, from, fromflags, &t->from) < 0)
		return refused(call, from);
	if (pl_locate(tofd, to, 0, &t->to) < 0)
		return refused(call, to);
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
		return lib_result(pg_rename(t.from.root, t.from.rel, t.to.rel, flags), "rename", from);
	if (pl_judge(&t.from, PG_OP_DELETE) < 0)
		return refused("rename", from);
	if (pl_judge(&t.to, (flags & RENAME_EXCHANGE) ? PG_OP_DELETE : PG_OP_CREATE) < 0)
		return refused("rename", to);
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
		return lib_result(pg_link(t.from.root, t.from.rel, t.to.rel), "link", to);
	/* A new name for a file is a way to read it. */
	if (pl_judge(&t.from, PG_OP_READ) < 0)
		return refused("link", from);
	if (pl_judge(&t.to, PG_OP_CREATE) < 0)
		return refused("link", to);
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
		rc = refused("symlink", path);
	else if (n.where == PL_INSIDE)
		rc = lib_result(pg_symlink(n.root, target, n.rel), "symlink", path);
	else if (pl_judge(&n, PG_OP_CREATE) < 0)
		rc = refused("symlink", path);
	else
		rc = PL_REAL(symlinkat)(target, dirfd, path);
	pl_leave();
	return rc;
}

int symlink(const char *target, const char *path)
{
	return symlinkat(target, AT_FDCWD, path);
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
		rc = refused("readlink", path);
	else if (n.where == PL_INSIDE) {
		rc = pg_readlink(n.root, n.rel, buf, size);
		if (rc < 0)
			lib_result(-1, "readlink", path);
	}
	else if (pl_judge(&n, PG_OP_READ) < 0)
		rc = refused("readlink", path);
	else
		rc = PL_REAL(readlinkat)(dirfd, path, buf, size);
	pl_leave();
	return rc;
}

ssize_t readlink(const char *path, char *buf, size_t size)
{
	return readlinkat(AT_FDCWD, path, buf, size);
}

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
	if (pl_locate(dirfd, path, flags, &n) < 0)
		rc = refused("chmod", path);
	else if (n.where == PL_INSIDE && flags == 0)
		rc = lib_result(pg_chmod(n.root, n.rel, mode), "chmod", path);
	else if (pl_judge(&n, PG_OP_WRITE) < 0)
		rc = refused("chmod", path);
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
	rc = judge_at(dirfd, path, flags, PG_OP_WRITE, "chown");
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
		rc = refused("truncate", path);
	else if (n.where == PL_INSIDE)
		rc = lib_result(pg_truncate(n.root, n.rel, length), "truncate", path);
	else if (pl_judge(&n, PG_OP_WRITE) < 0)
		rc = refused("truncate", path);
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
	if (judge_op(dirfd, path, flags, PG_OP_WRITE, "utimensat") < 0)
		return -1;
	return PL_REAL(utimensat)(dirfd, path, times, flags);
}

int utimes(const char *path, const struct timeval times[2])
{
	if (judge_op(AT_FDCWD, path, 0, PG_OP_WRITE, "utimes") < 0)
		return -1;
	return PL_REAL(utimes)(path, times);
}

int lutimes(const char *path, const struct timeval times[2])
{
	if (judge_op(AT_FDCWD, path, AT_SYMLINK_NOFOLLOW, PG_OP_WRITE, "lutimes") < 0)
		return -1;
	return PL_REAL(lutimes)(path, times);
}

int futimesat(int dirfd, const char *path, const struct timeval times[2])
{
	if (judge_op(dirfd, path, 0, PG_OP_WRITE, "futimesat") < 0)
		return -1;
	return PL_REAL(futimesat)(dirfd, path, times);
}

int utime(const char *path, const struct utimbuf *times)
{
	if (judge_op(AT_FDCWD, path, 0, PG_OP_WRITE, "utime") < 0)
		return -1;
	return PL_REAL(utime)(path, times);
}

/* ------------------------------------------------------ directories, cwd */

PL_DECLARE_REAL(opendir);
PL_DECLARE_REAL(chdir);

DIR *opendir(const char *path)
{
	struct pl_name n;
	DIR *d = NULL;
	bool call_libc = false;

	if (!pl_enter())
		return PL_REAL(opendir)(path);
	if (pl_locate(AT_FDCWD, path, 0, &n) < 0)
		refused("opendir", path);
	else if (n.where == PL_INSIDE) {
		d = pg_opendir(n.root, n.rel);
		if (!d)
			lib_result(-1, "opendir", path);
	} else if (pl_judge(&n, PG_OP_READ) < 0)
		refused("opendir", path);
	else
		call_libc = true;
	pl_leave();
	return call_libc ? PL_REAL(opendir)(path) : d;
}

int chdir(const char *path)
{
	int rc;

	if (!pl_enter())
		return PL_REAL(chdir)(path);
	rc = judge_at(AT_FDCWD, path, 0, PG_OP_READ, "chdir");
	pl_leave();
	if (rc < 0)
		return rc;
	return PL_REAL(chdir)(path);
}

/* ------------------------------------------- special files, attributes */

PL_DECLARE_REAL(mknodat);
PL_DECLARE_REAL(mkfifoat);
PL_DECLARE_REAL(setxattr);
PL_DECLARE_REAL(lsetxattr);
PL_DECLARE_REAL(removexattr);
PL_DECLARE_REAL(lremovexattr);
PL_DECLARE_REAL(getxattr);
PL_DECLARE_REAL(lgetxattr);
PL_DECLARE_REAL(listxattr);
PL_DECLARE_REAL(llistxattr);
PL_DECLARE_REAL(scandir);

int mknodat(int dirfd, const char *path, mode_t mode, dev_t dev)
{
	if (judge_op(dirfd, path, 0, PG_OP_CREATE, "mknod") < 0)
		return -1;
	return PL_REAL(mknodat)(dirfd, path, mode, dev);
}

int mknod(const char *path, mode_t mode, dev_t dev)
{
	return mknodat(AT_FDCWD, path, mode, dev);
}

int mkfifoat(int dirfd, const char *path, mode_t mode)
{
	if (judge_op(dirfd, path, 0, PG_OP_CREATE, "mkfifo") < 0)
		return -1;
	return PL_REAL(mkfifoat)(dirfd, path, mode);
}

int mkfifo(const char *path, mode_t mode)
{
	return mkfifoat(AT_FDCWD, path, mode);
}

int setxattr(const char *path, const char *name, const void *value, size_t size, int flags)
{
	if (judge_op(AT_FDCWD, path, 0, PG_OP_WRITE, "setxattr") < 0)
		return -1;
	return PL_REAL(setxattr)(path, name, value, size, flags);
}

int lsetxattr(const char *path, const char *name, const void *value, size_t size, int flags)
{
	if (judge_op(AT_FDCWD, path, AT_SYMLINK_NOFOLLOW, PG_OP_WRITE, "setxattr") < 0)
		return -1;
	return PL_REAL(lsetxattr)(path, name, value, size, flags);
}

int removexattr(const char *path, const char *name)
{
	if (judge_op(AT_FDCWD, path, 0, PG_OP_WRITE, "removexattr") < 0)
		return -1;
	return PL_REAL(removexattr)(path, name);
}

int lremovexattr(const char *path, const char *name)
{
	if (judge_op(AT_FDCWD, path, AT_SYMLINK_NOFOLLOW, PG_OP_WRITE, "removexattr") < 0)
		return -1;
	return PL_REAL(lremovexattr)(path, name);
}

ssize_t getxattr(const char *path, const char *name, void *value, size_t size)
{
	if (judge_op(AT_FDCWD, path, 0, PG_OP_READ, "getxattr") < 0)
		return -1;
	return PL_REAL(getxattr)(path, name, value, size);
}

ssize_t lgetxattr(const char *path, const char *name, void *value, size_t size)
{
	if (judge_op(AT_FDCWD, path, AT_SYMLINK_NOFOLLOW, PG_OP_READ, "getxattr") < 0)
		return -1;
	return PL_REAL(lgetxattr)(path, name, value, size);
}

ssize_t listxattr(const char *path, char *list, size_t size)
{
	if (judge_op(AT_FDCWD, path, 0, PG_OP_READ, "listxattr") < 0)
		return -1;
	return PL_REAL(listxattr)(path, list, size);
}

ssize_t llistxattr(const char *path, char *list, size_t size)
{
	if (judge_op(AT_FDCWD, path, AT_SYMLINK_NOFOLLOW, PG_OP_READ, "listxattr") < 0)
		return -1;
	return PL_REAL(llistxattr)(path, list, size);
}

/* libc opens the directory itself, out of the guard's sight: judge it
 * first. */
int scandir(const char *path, struct dirent ***list, int (*filter)(const struct dirent *),
	    int (*compar)(const struct dirent **, const struct dirent **))
{
	if (judge_op(AT_FDCWD, path, 0, PG_OP_READ, "scandir") < 0)
		return -1;
	return PL_REAL(scandir)(path, list, filter, compar);
}
