/* remove-all.c - owns pg_remove_all: removing a tree beneath the root by
 * descriptor.  The top name is resolved as pg_unlink resolves it; beneath
 * it every directory is opened O_NOFOLLOW relative to its held parent and
 * checked to be the object that was judged, so a symlink is only ever
 * removed, never followed, and no name is walked as a string twice.  Each
 * name is judged for a delete as pg_unlink / pg_rmdir would judge it
 * (pins, hard links to denied files); a mount point is never entered.
 * A first pass judges the whole tree without removing anything, so a
 * refusal found there leaves the tree as it was; the second pass judges
 * again as it removes (the tree may have changed in between). */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "judge.h"
#include "ops.h"
#include "refusal.h"
#include "resolve.h"
#include "root.h"

/* An entry that changes under us (a file swapped for a directory) is
 * looked at again this many times, then the call fails with EAGAIN. */
#define RM_RETRIES 8
/* Passes over one directory: entries created meanwhile are met by the
 * next pass; a directory that keeps filling ends in ENOTEMPTY. */
#define RM_PASSES 8

struct rm {
	pg_root *root;
	bool     dry;                   /* the judging pass: remove nothing */
	char     name[PG_REAL_MAX + 1]; /* root-relative real name being removed */
};

static int remove_entry(struct rm *rm, int dfd, const char *ename, size_t len,
			uint64_t mnt_id);

static int refuse_mount(const char *name)
{
	return pg_refusef(PG_R_PATH_ESCAPE, EACCES, name,
			  "%s is a mount point: pg_remove_all does not cross mounts", name);
}

/* Remove everything in directory FD (owned), named rm->name[0, LEN). */
static int empty_dir(struct rm *rm, int fd, size_t len, uint64_t mnt_id)
{
	DIR *dir = fdopendir(fd);
	int rc = 0, pass;

	if (!dir) {
		int err = errno;

		close(fd);
		errno = err;
		return -1;
	}
	for (pass = 0; rc == 0 && pass < RM_PASSES; pass++) {
		struct dirent *e;
		bool seen = false;

		rewinddir(dir);
		while (rc == 0 && (e = readdir(dir))) {
			size_t n = strlen(e->d_name);

			if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
				continue;
			seen = true;
			if (len + 1 + n > PG_REAL_MAX) {
				errno = ENAMETOOLONG;
				rc = -1;
				break;
			}
			if (len)
				rm->name[len] = '/';
			memcpy(rm->name + len + (len ? 1 : 0), e->d_name, n + 1);
			rc = remove_entry(rm, dirfd(dir), e->d_name, len + (len ? 1 : 0) + n,
					  mnt_id);
			rm->name[len] = '\0';
		}
		if (!seen || rm->dry)
			break;
	}
	closedir(dir);
	return rc;
}

static bool same_object(const struct statx *x, const struct stat *st)
{
	return st->st_ino == x->stx_ino &&
	       st->st_dev == makedev(x->stx_dev_major, x->stx_dev_minor);
}

/* Directory ENAME in DFD, judged and seen as X: open it as that very
 * object, empty it, remove it.  1 when it was not that object any more. */
static int remove_dir(struct rm *rm, int dfd, const char *ename, size_t len,
		      const struct statx *x, uint64_t mnt_id)
{
	struct stat st;
	int fd;

	if (pg_policy_pinned(rm->root->policy, rm->name, len))
		return pg_ops_refuse_pinned(rm->name, rm->name);
	if (x->stx_mnt_id != mnt_id)
		return refuse_mount(rm->name);
	fd = openat(dfd, ename, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT || errno == ENOTDIR || errno == ELOOP ? 1 : -1;
	if (fstat(fd, &st) < 0 || !same_object(x, &st)) {
		close(fd);
		return 1;
	}
	if (empty_dir(rm, fd, len, mnt_id) < 0)
		return -1;
	rm->name[len] = '\0';
	if (rm->dry)
		return 0;
	if (unlinkat(dfd, ename, AT_REMOVEDIR) == 0)
		return 0;
	return errno == ENOENT ? 0 : -1;
}

/* A non-directory: judged by identity too (another link to a denied
 * file), then unlinked.  1 when it turned into a directory meanwhile. */
static int remove_file(struct rm *rm, int dfd, const char *ename, size_t len,
		       const struct statx *x)
{
	if (pg_judge_needs_identity(rm->root, PG_OP_DELETE) &&
	    pg_resolve_identity_locked(rm->root, pg_object_at(pg_object_of_statx(x), dfd, ename,
								 AT_SYMLINK_NOFOLLOW),
				       PG_OP_DELETE, rm->name) < 0)
		return -1;
	if (rm->dry || unlinkat(dfd, ename, 0) == 0 || errno == ENOENT)
		return 0;
	return errno == EISDIR ? 1 : -1;
}

/* Entry ENAME of directory DFD, named rm->name[0, LEN), on mount MNT_ID. */
static int remove_entry(struct rm *rm, int dfd, const char *ename, size_t len,
			uint64_t mnt_id)
{
	if (pg_judge_locked(rm->root, rm->name, len, PG_OP_DELETE, rm->name) < 0)
		return -1;
	for (int attempt = 0; attempt < RM_RETRIES; attempt++) {
		struct statx x;
		int rc;

		if (statx(dfd, ename, AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT,
			  STATX_BASIC_STATS | STATX_MNT_ID, &x) < 0)
			return errno == ENOENT ? 0 : -1;
		if (S_ISDIR(x.stx_mode))
			rc = remove_dir(rm, dfd, ename, len, &x, mnt_id);
		else
			rc = remove_file(rm, dfd, ename, len, &x);
		if (rc <= 0)
			return rc;
	}
	errno = EAGAIN;
	return -1;
}

/* "x/." or ".": rmdir(2) refuses to remove a directory by its "." name. */
static bool ends_in_dot(const char *path)
{
	size_t n = strlen(path);

	while (n > 1 && path[n - 1] == '/')
		n--;
	return (n == 1 && path[0] == '.') || (n >= 2 && path[n - 1] == '.' && path[n - 2] == '/');
}

static int remove_top(struct rm *rm, const char *path, const struct pg_path *lex)
{
	struct pg_res res;
	int rc = -1;

	if (pg_resolve_locked(rm->root, path, lex, PG_OP_DELETE, 0, &res) < 0)
		return errno == ENOENT && pg_refusal_code() == PG_R_NONE ? 0 : -1;
	if (!res.exists) {
		rc = 0;
	} else if (res.is_root) {
		errno = EBUSY;
	} else if (!S_ISDIR(res.stx.stx_mode)) {
		rc = rm->dry ? 0 : unlinkat(res.dirfd, pg_res_name(&res), 0);
	} else if (ends_in_dot(path)) {
		errno = EINVAL;
	} else {
		struct statx parent;

		memcpy(rm->name, res.real, res.real_len + 1);
		if (statx(res.dirfd, "", AT_EMPTY_PATH, STATX_MNT_ID, &parent) == 0)
			rc = remove_dir(rm, res.dirfd, pg_res_name(&res), res.real_len,
					&res.stx, parent.stx_mnt_id);
		if (rc == 1) {
			/* Swapped since it was resolved: not what was judged. */
			errno = EAGAIN;
			rc = -1;
		}
	}
	pg_res_release(&res);
	return rc;
}

int pg_remove_all(pg_root *root, const char *path)
{
	struct pg_path lex;
	struct rm *rm;
	int rc;

	pg_refusal_clear();
	if (pg_ops_prepare(root, path, &lex) < 0)
		return -1;
	rm = malloc(sizeof(*rm));
	if (!rm)
		return -1;
	rm->root = root;
	pg_ops_lock(root);
	rm->dry = true;
	rc = remove_top(rm, path, &lex);
	rm->dry = false;
	if (rc == 0)
		rc = remove_top(rm, path, &lex);
	pg_ops_unlock(root);
	free(rm);
	return rc;
}
