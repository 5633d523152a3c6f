/* ops.c - the guarded operations: each resolves beneath the root, judges
 * the name it really reaches, then acts with an *at call relative to the
 * held parent, never by re-walking a string. */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "judge.h"
#include "ops.h"
#include "path.h"
#include "refusal.h"
#include "resolve.h"
#include "root.h"

#define PG_RETRIES 8

int pg_ops_prepare(const pg_root *root, const char *path, struct pg_path *lex)
{
	if (!root) {
		errno = EINVAL;
		return -1;
	}
	return pg_path_normalise(path, false, lex);
}

bool pg_ops_plain_path(const char *raw, size_t *len)
{
	size_t i, comp = 0;

	if (!raw || !raw[0])
		return false;
	for (i = 0;; i++) {
		char c = raw[i];

		if (i > PG_PATH_MAX)
			return false;
		if (c != '/' && c != '\0') {
			if (++comp > PG_NAME_MAX)
				return false;
			continue;
		}
		/* The component that just ended: not empty, ".", or "..". */
		if (comp == 0 || (comp == 1 && raw[i - 1] == '.') ||
		    (comp == 2 && raw[i - 1] == '.' && raw[i - 2] == '.'))
			return false;
		if (c == '\0')
			break;
		comp = 0;
	}
	*len = i;
	return true;
}

void pg_ops_lock(pg_root *root)
{
	pthread_rwlock_rdlock(&root->lock);
}

void pg_ops_unlock(pg_root *root)
{
	int err = errno;

	pthread_rwlock_unlock(&root->lock);
	errno = err;
}

int pg_check_identity_fd(pg_root *root, int fd, enum pg_op op, const char *display)
{
	struct stat st;

	if (!pg_judge_needs_identity(root, op))
		return fd;
	if (fstat(fd, &st) < 0 ||
	    (!S_ISDIR(st.st_mode) &&
	     pg_resolve_identity_locked(root, pg_object_at(pg_object_of_stat(&st), fd, "",
							    AT_EMPTY_PATH), op, display) < 0)) {
		int err = errno;

		close(fd);
		errno = err;
		return -1;
	}
	return fd;
}

/* O_TRUNC empties a file as it opens it: when the object must first be
 * judged by identity (another link of a denied file), open without it,
 * judge the object held, and only then empty it.  A read-only open that
 * asks for O_TRUNC cannot truncate through its descriptor: the walk
 * judges such an object before it opens it. */
static bool defer_trunc(const pg_root *root, int flags, enum pg_op op)
{
	return (flags & O_TRUNC) && pg_judge_needs_identity(root, op);
}

static int open_flags_now(const pg_root *root, int flags, enum pg_op op)
{
	return defer_trunc(root, flags, op) && (flags & O_ACCMODE) != O_RDONLY ?
	       flags & ~O_TRUNC : flags;
}

/* FD was opened with open_flags_now(FLAGS): judge it by identity, then
 * truncate when that was deferred. */
static int finish_open(pg_root *root, int fd, int flags, enum pg_op op, const char *path)
{
	struct stat st;

	fd = pg_check_identity_fd(root, fd, op, path);
	if (fd < 0 || open_flags_now(root, flags, op) == flags)
		return fd;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && ftruncate(fd, 0) < 0) {
		int err = errno;

		close(fd);
		errno = err;
		return -1;
	}
	return fd;
}

/* After the fast path's openat2 failed with ERR: must the walk decide?
 * A symlink, mount or race; or an ENOTDIR where the object must first be
 * judged by identity (a hard link to a denied file is refused as such,
 * not told apart from a directory). */
static bool walk_after(const pg_root *root, enum pg_op op, int err)
{
	return pg_needs_walk(err) || (err == ENOTDIR && pg_judge_needs_identity(root, op));
}

/* Public (pathgate.h): the one mapping of open(2) flags to an operation,
 * for pg_open and for the preload's opens of host paths.  Pure: it
 * leaves the thread's last refusal alone. */
enum pg_op pg_op_for_open_flags(int flags)
{
	if (flags & O_CREAT)
		return PG_OP_CREATE;
	if ((flags & O_ACCMODE) != O_RDONLY || (flags & O_TRUNC) ||
	    (flags & O_TMPFILE) == O_TMPFILE)
		return PG_OP_WRITE;
	return PG_OP_READ;
}

/* O_CREAT: create the final name exclusively so we know whether we made it
 * (and must check where it landed), else open what is there. */
static int open_created(pg_root *root, const char *path, const struct pg_res *res,
			int flags, mode_t mode, bool *raced)
{
	int fd;

	*raced = false;
	if (res->is_root) {
		errno = (flags & O_EXCL) ? EEXIST : EISDIR;
		return -1;
	}
	if (res->exists) {
		if (flags & O_EXCL) {
			errno = EEXIST;
			return -1;
		}
		fd = pg_res_reopen(root, res, flags & ~(O_CREAT | O_EXCL), 0);
		if (fd < 0 && (errno == ENOENT || (errno == ELOOP && !(flags & O_NOFOLLOW))))
			*raced = true;
		return fd;
	}
	fd = pg_res_reopen(root, res, flags | O_EXCL, mode);
	if (fd < 0) {
		if (errno == EEXIST && !(flags & O_EXCL))
			*raced = true;
		return -1;
	}
	if (pg_verify_landing_locked(root, res, false, path) < 0) {
		int err = errno;

		close(fd);
		errno = err;
		return -1;
	}
	return fd;
}

static int open_slow(pg_root *root, const char *path, const struct pg_path *lex,
		     int flags, mode_t mode, enum pg_op op, unsigned how)
{
	bool follow = !(flags & O_NOFOLLOW) && !((flags & O_CREAT) && (flags & O_EXCL));

	if (follow)
		how |= PG_RES_FOLLOW;
	if (!(flags & O_CREAT))
		how |= PG_RES_EXIST;
	if (flags & O_DIRECTORY)
		how |= PG_RES_DIR;
	for (int attempt = 0; attempt < PG_RETRIES; attempt++) {
		struct pg_res res;
		bool raced = false;
		int fd;

		if (pg_resolve_locked(root, path, lex, op, how, &res) < 0)
			return -1;
		if (flags & O_CREAT) {
			fd = open_created(root, path, &res, flags, mode, &raced);
		} else {
			fd = pg_res_reopen(root, &res, open_flags_now(root, flags, op), mode);
			raced = fd < 0 && errno == ELOOP && follow;
		}
		pg_res_release(&res);
		if (raced)
			continue;
		if (fd < 0)
			return -1;
		if (flags & O_CREAT)
			return pg_check_identity_fd(root, fd, op, path);
		return finish_open(root, fd, flags, op, path);
	}
	errno = EAGAIN;
	return -1;
}

int pg_open_locked(pg_root *root, const char *path, const struct pg_path *lex,
		   int flags, mode_t mode, enum pg_op op)
{
	if (pg_judge_locked(root, lex->buf, lex->len, op, path) < 0)
		return -1;
	if ((flags & O_CREAT) && lex->trailing_slash) {
		/* As the kernel answers: O_CREAT makes no directory; "x/." and
		 * "x/.." name what exists (O_EXCL: EEXIST), if x is a directory. */
		int err = EISDIR, fd;

		if (pg_ops_ends_in_dot(path) || pg_ops_ends_in_dotdot(path)) {
			fd = pg_open_locked(root, path, lex, O_PATH | O_DIRECTORY | O_CLOEXEC, 0,
					    PG_OP_READ);
			if (fd < 0)
				return -1;
			close(fd);
			err = flags & O_EXCL ? EEXIST : EISDIR;
		}
		errno = err;
		return -1;
	}
	if (root->openat2 && !(flags & O_CREAT) &&
	    !(defer_trunc(root, flags, op) && (flags & O_ACCMODE) == O_RDONLY)) {
		int fd = pg_openat2(root->fd, path, open_flags_now(root, flags, op), mode,
				    root->resolve | RESOLVE_NO_SYMLINKS);

		if (fd >= 0)
			return finish_open(root, fd, flags, op, path);
		if (!walk_after(root, op, errno))
			return -1;
		return open_slow(root, path, lex, flags, mode, op, PG_RES_WALK);
	}
	return open_slow(root, path, lex, flags, mode, op, 0);
}

/* The fast path of a plain path (see pg_ops_plain_path): judge it as it
 * is and open it with one openat2.  PG_WALK when the walk must decide. */
#define PG_WALK (-2)

static int open_plain_locked(pg_root *root, const char *path, size_t len, int flags,
			     mode_t mode, enum pg_op op)
{
	int fd;

	if (pg_judge_locked(root, path, len, op, path) < 0)
		return -1;
	if (defer_trunc(root, flags, op) && (flags & O_ACCMODE) == O_RDONLY)
		return PG_WALK;
	fd = pg_openat2(root->fd, path, open_flags_now(root, flags, op), mode,
			root->resolve | RESOLVE_NO_SYMLINKS);
	if (fd >= 0)
		return finish_open(root, fd, flags, op, path);
	return walk_after(root, op, errno) ? PG_WALK : -1;
}

/* Every open flag the kernel knows.  openat2 refuses any other bit with
 * EINVAL while openat ignores it, so the walk checks them itself and both
 * resolvers answer alike. */
#define PG_OPEN_KNOWN_FLAGS (O_ACCMODE | O_CREAT | O_EXCL | O_NOCTTY | O_TRUNC | \
			     O_APPEND | O_NONBLOCK | O_DSYNC | O_SYNC | O_ASYNC | \
			     O_DIRECT | O_LARGEFILE | O_DIRECTORY | O_NOFOLLOW | \
			     O_NOATIME | O_CLOEXEC | O_PATH | O_TMPFILE)

/* O_PATH takes only O_DIRECTORY, O_NOFOLLOW and O_CLOEXEC beside it, as
 * openat2(2) says (open(2) drops the others silently); both resolvers
 * give openat2's EINVAL, whatever the name (issue 11.8: the walk answered
 * ENOENT or opened the object). */
static bool path_flags_alone(int flags)
{
	return !(flags & O_PATH) ||
	       !(flags & ~(O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
}

int pg_open(pg_root *root, const char *path, int flags, mode_t mode)
{
	struct pg_path lex;
	enum pg_op op = pg_op_for_open_flags(flags);
	bool walk = false;
	size_t len;
	int fd;

	pg_refusal_clear();
	if ((flags & ~PG_OPEN_KNOWN_FLAGS) || !path_flags_alone(flags)) {
		errno = EINVAL;
		return -1;
	}
	if (root && root->openat2 && !(flags & O_CREAT) && pg_ops_plain_path(path, &len)) {
		pg_ops_lock(root);
		fd = open_plain_locked(root, path, len, flags, mode, op);
		pg_ops_unlock(root);
		if (fd != PG_WALK)
			return fd;
		walk = true;
	}
	if (pg_ops_prepare(root, path, &lex) < 0)
		return -1;
	pg_ops_lock(root);
	if (walk)
		fd = open_slow(root, path, &lex, flags, mode, op, PG_RES_WALK);
	else
		fd = pg_open_locked(root, path, &lex, flags, mode, op);
	pg_ops_unlock(root);
	return fd;
}

/* ---------------------------------------------------------------- stat */

static void stat_from_statx(struct stat *st, const struct statx *x)
{
	memset(st, 0, sizeof(*st));
	st->st_dev = makedev(x->stx_dev_major, x->stx_dev_minor);
	st->st_ino = x->stx_ino;
	st->st_mode = x->stx_mode;
	st->st_nlink = x->stx_nlink;
	st->st_uid = x->stx_uid;
	st->st_gid = x->stx_gid;
	st->st_rdev = makedev(x->stx_rdev_major, x->stx_rdev_minor);
	st->st_size = (off_t)x->stx_size;
	st->st_blksize = x->stx_blksize;
	st->st_blocks = (blkcnt_t)x->stx_blocks;
	st->st_atim.tv_sec = x->stx_atime.tv_sec;
	st->st_atim.tv_nsec = x->stx_atime.tv_nsec;
	st->st_mtim.tv_sec = x->stx_mtime.tv_sec;
	st->st_mtim.tv_nsec = x->stx_mtime.tv_nsec;
	st->st_ctim.tv_sec = x->stx_ctime.tv_sec;
	st->st_ctim.tv_nsec = x->stx_ctime.tv_nsec;
}

#define STAT_MASK (STATX_BASIC_STATS | STATX_MNT_ID)

static bool plain_name(const char *path)
{
	return !strchr(path, '/');
}

enum { STAT_DONE = 0, STAT_FAILED = -1, STAT_WALK = 1 };

/* One syscall for a plain name (nothing on the way to follow), openat2 +
 * statx + close otherwise. */
static int stat_fast(pg_root *root, const char *path, bool follow, struct statx *stx)
{
	int fd, rc;

	if (plain_name(path)) {
		if (statx(root->fd, path, AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT, STAT_MASK, stx) < 0)
			return STAT_FAILED;
		if ((follow && S_ISLNK(stx->stx_mode)) ||
		    (!(root->flags & PG_ROOT_XDEV) && stx->stx_mnt_id != root->mnt_id))
			return STAT_WALK;
		return STAT_DONE;
	}
	if (!root->openat2)
		return STAT_WALK;
	fd = pg_openat2(root->fd, path, O_PATH | O_CLOEXEC | (follow ? 0 : O_NOFOLLOW), 0,
			root->resolve | RESOLVE_NO_SYMLINKS);
	if (fd < 0)
		return walk_after(root, PG_OP_READ, errno) ? STAT_WALK : STAT_FAILED;
	rc = statx(fd, "", AT_EMPTY_PATH, STAT_MASK, stx);
	close(fd);
	return rc < 0 ? STAT_FAILED : STAT_DONE;
}

/* Judge NAME (LEN bytes, the lexical name of PATH) and stat PATH the
 * fast way; STAT_WALK when the walk must decide. */
static int stat_judged(pg_root *root, const char *path, const char *name, size_t len,
		       bool follow, struct statx *stx)
{
	int rc;

	if (pg_judge_locked(root, name, len, PG_OP_READ, path) < 0)
		return STAT_FAILED;
	rc = stat_fast(root, path, follow, stx);
	if (rc == STAT_DONE && !S_ISDIR(stx->stx_mode) &&
	    pg_judge_needs_identity(root, PG_OP_READ) &&
	    pg_resolve_identity_locked(root, pg_object_of_statx(stx), PG_OP_READ, path) < 0)
		return STAT_FAILED;
	return rc;
}

static int stat_walk(pg_root *root, const char *path, const struct pg_path *lex, bool follow,
		     struct statx *stx)
{
	struct pg_res res;

	if (pg_resolve_locked(root, path, lex, PG_OP_READ,
			      PG_RES_EXIST | PG_RES_WALK | (follow ? PG_RES_FOLLOW : 0), &res) < 0)
		return -1;
	*stx = res.stx;
	pg_res_release(&res);
	return 0;
}

int pg_stat(pg_root *root, const char *path, struct stat *st, int at_flags)
{
	bool follow = !(at_flags & AT_SYMLINK_NOFOLLOW);
	struct pg_path lex;
	struct statx stx;
	size_t len;
	int rc = STAT_WALK;

	pg_refusal_clear();
	if (!st || (at_flags & ~(AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT))) {
		errno = EINVAL;
		return -1;
	}
	bool tried = false;

	if (root && pg_ops_plain_path(path, &len)) {
		pg_ops_lock(root);
		rc = stat_judged(root, path, path, len, follow, &stx);
		pg_ops_unlock(root);
		tried = true;
	}
	if (rc == STAT_WALK) {
		if (pg_ops_prepare(root, path, &lex) < 0)
			return -1;
		pg_ops_lock(root);
		if (!tried)
			rc = stat_judged(root, path, lex.buf, lex.len, follow, &stx);
		if (rc == STAT_WALK)
			rc = stat_walk(root, path, &lex, follow, &stx);
		pg_ops_unlock(root);
	}
	if (rc != STAT_DONE)
		return -1;
	stat_from_statx(st, &stx);
	return 0;
}

/* ------------------------------------------------- names: the final itself */


int pg_ops_refuse_pinned(const char *path, const char *real)
{
	return pg_refusef(PG_R_PINNED, EBUSY, path,
			  "%s is pinned: it holds a deny or read rule beneath a write region",
			  real[0] ? real : ".");
}

bool pg_ops_pinned(pg_root *root, const struct pg_res *res)
{
	return res->exists && S_ISDIR(res->stx.stx_mode) &&
	       pg_policy_pinned(root->policy, res->real, res->real_len);
}

static int mkdir_locked(pg_root *root, const char *path, const struct pg_path *lex, mode_t mode)
{
	struct pg_res res;
	int rc = -1;

	if (pg_resolve_locked(root, path, lex, PG_OP_CREATE, 0, &res) < 0)
		return pg_ops_exists_anyway(root, path);
	if (pg_ops_link_in_the_way(root, path, lex, &res) == 0) {
		if (res.is_root || res.exists)
			errno = EEXIST;
		else if (mkdirat(res.dirfd, pg_res_name(&res), mode) == 0)
			rc = pg_verify_landing_locked(root, &res, true, path);
	}
	pg_res_release(&res);
	return rc;
}

int pg_mkdir(pg_root *root, const char *path, mode_t mode)
{
	struct pg_path lex;
	int rc;

	pg_refusal_clear();
	if (pg_ops_prepare(root, path, &lex) < 0)
		return -1;
	pg_ops_lock(root);
	rc = mkdir_locked(root, path, &lex, mode);
	pg_ops_unlock(root);
	return rc;
}

/* One step of mkdir_all: PREFIX exists as a directory, or is made. */
static int mkdir_step(pg_root *root, const char *prefix, mode_t mode)
{
	struct pg_path *lex = malloc(sizeof(*lex));
	struct pg_res res;
	int rc = -1;

	if (!lex)
		return -1;
	if (pg_path_normalise(prefix, false, lex) < 0)
		goto out;
	if (pg_resolve_locked(root, prefix, lex, PG_OP_CREATE,
			      PG_RES_FOLLOW | PG_RES_NO_JUDGE, &res) == 0) {
		bool dir = res.exists && S_ISDIR(res.stx.stx_mode);
		bool exists = res.exists, via = res.via_link;
		/* Inside a denied region the answer is the same whether or not
		 * the name exists (issue 11.6): judge what exists before saying
		 * what it is. */
		bool hidden = exists &&
			pg_judge_locked(root, res.real, res.real_len, PG_OP_READ, prefix) < 0;

		if (!exists && via &&
		    pg_judge_locked(root, res.real, res.real_len, PG_OP_CREATE, prefix) == 0)
			pg_refuse(PG_R_DANGLING, ENOENT, prefix,
				  "a symlink points at a directory that does not exist");
		pg_res_release(&res);
		if (hidden)
			goto out;
		if (dir) {
			rc = 0;
			goto out;
		}
		if (exists) {
			/* A refusal of the name comes before what is there. */
			if (pg_judge_locked(root, lex->buf, lex->len, PG_OP_CREATE, prefix) == 0)
				errno = ENOTDIR;
			goto out;
		}
		if (via)
			goto out;
	} else if (errno != ENOENT || pg_refusal_code() != PG_R_NONE) {
		goto out;
	}
	rc = mkdir_locked(root, prefix, lex, mode);
	if (rc < 0 && errno == EEXIST && pg_refusal_code() == PG_R_NONE)
		rc = 0; /* made meanwhile; the next step checks it is a directory */
out:
	free(lex);
	return rc;
}

int pg_mkdir_all(pg_root *root, const char *path, mode_t mode)
{
	struct pg_path lex;
	char *buf;
	size_t len, i;
	int rc = 0;

	pg_refusal_clear();
	if (pg_ops_prepare(root, path, &lex) < 0)
		return -1;
	len = strlen(path);
	buf = strdup(path);
	if (!buf)
		return -1;
	pg_ops_lock(root);
	for (i = 1; i <= len && rc == 0; i++) {
		size_t begin;

		if (i < len && buf[i] != '/')
			continue;
		if (buf[i - 1] == '/')
			continue;
		begin = i;
		while (begin > 0 && buf[begin - 1] != '/')
			begin--;
		if ((i - begin == 1 && buf[begin] == '.') ||
		    (i - begin == 2 && buf[begin] == '.' && buf[begin + 1] == '.'))
			continue;
		char saved = buf[i];

		buf[i] = '\0';
		rc = mkdir_step(root, buf, mode);
		buf[i] = saved;
	}
	pg_ops_unlock(root);
	free(buf);
	return rc;
}

int pg_unlink(pg_root *root, const char *path)
{
	struct pg_path lex;
	struct pg_res res;
	int rc = -1;

	pg_refusal_clear();
	if (pg_ops_prepare(root, path, &lex) < 0)
		return -1;
	pg_ops_lock(root);
	if (pg_resolve_locked(root, path, &lex, PG_OP_DELETE, PG_RES_EXIST, &res) == 0) {
		if (pg_ops_slash_type(root, path) == S_IFLNK)
			errno = ENOTDIR;
		else if (res.is_root || S_ISDIR(res.stx.stx_mode))
			errno = EISDIR;
		else
			rc = unlinkat(res.dirfd, pg_res_name(&res), 0);
		pg_res_release(&res);
	} else if (!pg_last_refusal()->name && pg_ops_slash_type(root, path) == S_IFLNK) {
		errno = ENOTDIR;   /* "dangling/": the link, not what it lacks */
	}
	pg_ops_unlock(root);
	return rc;
}

int pg_rmdir(pg_root *root, const char *path)
{
	struct pg_path lex;
	struct pg_res res;
	int rc = -1;

	pg_refusal_clear();
	if (pg_ops_prepare(root, path, &lex) < 0)
		return -1;
	pg_ops_lock(root);
	if (pg_resolve_locked(root, path, &lex, PG_OP_DELETE, PG_RES_EXIST, &res) == 0) {
		if (!S_ISDIR(res.stx.stx_mode) || pg_ops_slash_type(root, path) == S_IFLNK)
			errno = ENOTDIR;
		else if (pg_ops_pinned(root, &res))
			pg_ops_refuse_pinned(path, res.real);
		else if (pg_ops_ends_in_dot(path))
			errno = EINVAL;
		else if (pg_ops_ends_in_dotdot(path))
			errno = ENOTEMPTY;   /* as rmdir(2): ".." is never empty */
		else if (res.is_root)
			errno = EBUSY;
		else
			rc = unlinkat(res.dirfd, pg_res_name(&res), AT_REMOVEDIR);
		pg_res_release(&res);
	} else if (!pg_last_refusal()->name && pg_ops_slash_type(root, path) == S_IFLNK) {
		errno = ENOTDIR;
	}
	pg_ops_unlock(root);
	return rc;
}

/* ------------------------------------------ object calls: chmod, truncate */

/* Run ACT on the object PATH reaches, opened with FLAGS, judged for OP. */
static int with_object(pg_root *root, const char *path, int flags, enum pg_op op,
		       int (*act)(int fd, const void *arg), const void *arg)
{
	struct pg_path lex;
	int fd, rc = -1;

	if (pg_ops_prepare(root, path, &lex) < 0)
		return -1;
	pg_ops_lock(root);
	fd = pg_open_locked(root, path, &lex, flags | O_CLOEXEC, 0, op);
	if (fd >= 0) {
		rc = act(fd, arg);
		if (rc < 0) {
			int err = errno;

			close(fd);
			errno = err;
		} else {
			close(fd);
		}
	}
	pg_ops_unlock(root);
	return rc;
}

static int chmod_fd(int fd, const void *arg)
{
	mode_t mode = *(const mode_t *)arg;
	char proc[64];

	/* An O_PATH fd cannot be fchmod'ed; its /proc link names exactly the
	 * object resolved. */
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	return fchmodat(AT_FDCWD, proc, mode, 0);
}

int pg_chmod(pg_root *root, const char *path, mode_t mode)
{
	pg_refusal_clear();
	return with_object(root, path, O_PATH, PG_OP_WRITE, chmod_fd, &mode);
}

struct truncation {
	off_t       length;
	uint64_t    limit;
	const char *path;
};

/* The write bound holds here too (issue 11.7): a file may not be grown
 * past it; shrinking, or growing within it, is the caller's business. */
static int truncate_fd(int fd, const void *arg)
{
	const struct truncation *t = arg;
	struct stat st;

	if ((uint64_t)t->length > t->limit) {
		if (fstat(fd, &st) < 0)
			return -1;
		if (t->length > st.st_size)
			return pg_refusef(PG_R_EXHAUSTED, EFBIG, t->path,
					  "truncating to %lld bytes grows the file past the write limit of %llu bytes",
					  (long long)t->length, (unsigned long long)t->limit);
	}
	return ftruncate(fd, t->length);
}

int pg_truncate(pg_root *root, const char *path, off_t length)
{
	struct truncation t = { length, pg_root_write_limit(root), path };

	pg_refusal_clear();
	if (length < 0) {
		errno = EINVAL;
		return -1;
	}
	return with_object(root, path, O_WRONLY | O_NONBLOCK, PG_OP_WRITE, truncate_fd, &t);
}

DIR *pg_opendir(pg_root *root, const char *path)
{
	struct pg_path lex;
	DIR *d = NULL;
	int fd;

	pg_refusal_clear();
	if (pg_ops_prepare(root, path, &lex) < 0)
		return NULL;
	pg_ops_lock(root);
	fd = pg_open_locked(root, path, &lex, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0, PG_OP_READ);
	pg_ops_unlock(root);
	if (fd >= 0) {
		d = fdopendir(fd);
		if (!d) {
			int err = errno;

			close(fd);
			errno = err;
		}
	}
	return d;
}
