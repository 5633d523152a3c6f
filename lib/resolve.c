/* resolve.c - resolution beneath the root: the one-openat2 fast path (the
 * component walk that handles symlinks, '..' and mounts itself is in
 * resolve-walk.c), the verdict on the object reached, the check of where
 * a created name landed, and the identity re-search. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/magic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "judge.h"
#include "link-map.h"
#include "path.h"
#include "refusal.h"
#include "resolve.h"
#include "resolve-walk.h"
#include "root.h"

#define STX_MASK (STATX_BASIC_STATS | STATX_MNT_ID)

/* ---------------------------------------------------------- fast path */

/* Split RAW into its parent (copied into PARENT, "." when none) and its
 * final component.  False when the final component is "." or "..". */
static bool split_final(const char *raw, char *parent, const char **name, size_t *name_len)
{
	size_t n = strlen(raw), end, begin;

	end = n;
	while (end > 0 && raw[end - 1] == '/')
		end--;
	begin = end;
	while (begin > 0 && raw[begin - 1] != '/')
		begin--;
	*name = raw + begin;
	*name_len = end - begin;
	if (*name_len == 0 || (*name_len == 1 && raw[begin] == '.') ||
	    pg_is_dotdot(raw + begin, *name_len))
		return false;
	if (begin == 0) {
		strcpy(parent, ".");
	} else {
		memcpy(parent, raw, begin);
		parent[begin] = '\0';
	}
	return true;
}

enum { FAST_DONE = 0, FAST_FAILED = -1, FAST_SLOW = 1 };


/* PARENTFD, when not -1, is RAW's parent already held (borrowed). */
static int fast_resolve(pg_root *root, const char *raw, const struct pg_path *lex,
			unsigned how, int parentfd, struct pg_res *res)
{
	char parent[PG_PATH_MAX + 2];
	char name[PG_NAME_MAX + 1];
	const char *final;
	size_t final_len;
	int dirfd = root->fd, fd = -1;

	if (!split_final(raw, parent, &final, &final_len) || final_len > PG_NAME_MAX)
		return FAST_SLOW;
	memcpy(name, final, final_len);
	name[final_len] = '\0';
	if (strcmp(parent, ".") != 0 && parentfd >= 0) {
		dirfd = parentfd;
	} else if (strcmp(parent, ".") != 0) {
		dirfd = pg_openat2(root->fd, parent, O_PATH | O_DIRECTORY | O_CLOEXEC, 0,
				   root->resolve | RESOLVE_NO_SYMLINKS);
		if (dirfd < 0)
			return pg_needs_walk(errno) ? FAST_SLOW : FAST_FAILED;
		res->dirfd_owned = true;
	}
	res->dirfd = dirfd;
	if (how & PG_RES_FD) {
		fd = pg_openat2(dirfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC, 0, root->resolve);
		if (fd >= 0 && statx(fd, "", AT_EMPTY_PATH, STX_MASK, &res->stx) < 0) {
			close(fd);
			return FAST_FAILED;
		}
	} else {
		fd = statx(dirfd, name, AT_SYMLINK_NOFOLLOW, STX_MASK, &res->stx);
	}
	if (fd < 0 && errno != ENOENT)
		return pg_needs_walk(errno) ? FAST_SLOW : FAST_FAILED;
	res->exists = fd >= 0;
	if (how & PG_RES_FD)
		res->fd = fd;
	if (res->exists &&
	    ((S_ISLNK(res->stx.stx_mode) && ((how & PG_RES_FOLLOW) || lex->trailing_slash)) ||
	     pg_res_crosses_mount(root, &res->stx)))
		return FAST_SLOW;
	memcpy(res->real, lex->buf, lex->len + 1);
	res->real_len = lex->len;
	res->name_off = lex->len - final_len;
	res->must_dir = lex->trailing_slash;
	return FAST_DONE;
}

/* ------------------------------------------------------------ resolve */

/* What the walk found, judged: the real name, a dangling creation, the
 * object's identity, a trailing slash on a non-directory. */
static int judge_result(pg_root *root, const char *raw, const struct pg_path *lex,
			enum pg_op op, unsigned how, struct pg_res *res)
{
	bool want_dir = res->must_dir || (how & PG_RES_DIR);

	if (!(how & PG_RES_NO_JUDGE)) {
		bool same = res->real_len == lex->len && memcmp(res->real, lex->buf, lex->len) == 0;

		if (!same && pg_judge_locked(root, res->real, res->real_len, op, raw) < 0)
			return -1;
		if (!res->exists && res->via_link && op == PG_OP_CREATE)
			return pg_refuse(PG_R_DANGLING, ENOENT, raw,
					 "a symlink points at a name that does not exist");
		/* A refusal comes before the kernel's ENOTDIR (the fast path
		 * hands an ENOTDIR to the walk when identities are checked). */
		if (res->exists && !S_ISDIR(res->stx.stx_mode) &&
		    pg_judge_needs_identity(root, op) &&
		    pg_resolve_identity_locked(root, pg_object_at(pg_object_of_statx(&res->stx), res->dirfd,
							       pg_res_name(res), AT_SYMLINK_NOFOLLOW),
				       op, raw) < 0)
			return -1;
	}
	if (res->exists && want_dir && !S_ISDIR(res->stx.stx_mode) &&
	    (!S_ISLNK(res->stx.stx_mode) || (how & PG_RES_DIR))) {
		errno = ENOTDIR;
		return -1;
	}
	if (!res->exists && (how & PG_RES_EXIST)) {
		errno = ENOENT;
		return -1;
	}
	return 0;
}

static int resolve_locked(pg_root *root, const char *raw, const struct pg_path *lex,
			  enum pg_op op, unsigned how, int parentfd, struct pg_res *res)
{
	int rc = FAST_SLOW;

	pg_res_init(res);
	if (!(how & PG_RES_NO_JUDGE) &&
	    pg_judge_locked(root, lex->buf, lex->len, op, raw) < 0)
		return -1;
	if (root->openat2 && !(how & PG_RES_WALK)) {
		rc = fast_resolve(root, raw, lex, how, parentfd, res);
		if (rc == FAST_FAILED) {
			int err = errno;

			pg_res_release(res);
			errno = err;
			return -1;
		}
		if (rc == FAST_SLOW) {
			pg_res_release(res);
			pg_res_init(res);
		}
	}
	if (rc == FAST_SLOW && pg_resolve_walk(root, raw, op, how, res, lex->trailing_slash) < 0)
		goto fail;
	if (judge_result(root, raw, lex, op, how, res) < 0)
		goto fail;
	return 0;
fail:
	{
		int err = errno;

		pg_res_release(res);
		errno = err;
	}
	return -1;
}

int pg_resolve_locked(pg_root *root, const char *raw, const struct pg_path *lex,
		      enum pg_op op, unsigned how, struct pg_res *res)
{
	return resolve_locked(root, raw, lex, op, how, -1, res);
}

int pg_resolve_in_locked(pg_root *root, const char *raw, const struct pg_path *lex,
			 enum pg_op op, unsigned how, int parentfd, struct pg_res *res)
{
	return resolve_locked(root, raw, lex, op, how, parentfd, res);
}

int pg_res_reopen(const pg_root *root, const struct pg_res *res, int flags, mode_t mode)
{
	int dirfd = res->is_root ? root->fd : res->dirfd;
	const char *name = res->is_root ? "." : pg_res_name(res);

	if (root->openat2)
		return pg_openat2(dirfd, name, flags | O_NOFOLLOW, mode, root->resolve);
	return openat(dirfd, name, flags | O_NOFOLLOW, mode);
}

/* ------------------------------------------------------------ landing */

static bool same_object(const struct statx *a, const struct statx *b)
{
	return a->stx_ino == b->stx_ino && a->stx_dev_major == b->stx_dev_major &&
	       a->stx_dev_minor == b->stx_dev_minor;
}

/* Is directory DIRFD still at root-relative NAME (LEN bytes)? */
static bool still_at(pg_root *root, int dirfd, const char *name, size_t len)
{
	struct statx here, there;
	struct pg_res res;
	struct pg_path *lex;
	bool same = false;
	char buf[PG_REAL_MAX + 1];

	if (statx(dirfd, "", AT_EMPTY_PATH, STATX_INO, &here) < 0)
		return false;
	if (len == 0)
		return here.stx_ino == root->ino &&
		       (dev_t)makedev(here.stx_dev_major, here.stx_dev_minor) == root->dev;
	lex = malloc(sizeof(*lex));
	if (!lex)
		return false;
	memcpy(buf, name, len);
	buf[len] = '\0';
	if (pg_path_normalise(buf, false, lex) == 0 &&
	    pg_resolve_locked(root, buf, lex, PG_OP_READ,
			      PG_RES_NO_JUDGE | PG_RES_NO_LINKS | PG_RES_EXIST, &res) == 0) {
		there = res.stx;
		same = same_object(&here, &there);
		pg_res_release(&res);
	}
	free(lex);
	return same;
}

/* Where directory DIRFD is now, relative to the root; false if outside or
 * unknown. */
static bool where_now(const pg_root *root, int dirfd, char *out, size_t size)
{
	char proc[64], buf[PG_REAL_MAX + 64];
	ssize_t n;

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", dirfd);
	n = readlink(proc, buf, sizeof(buf) - 1);
	if (n <= 0 || (size_t)n >= sizeof(buf) - 1)
		return false;
	buf[n] = '\0';
	if (strstr(buf, " (deleted)"))
		return false;
	if (strncmp(buf, root->path, root->path_len) != 0)
		return false;
	const char *rel;

	if (root->path_len == 1) /* the root is "/" */
		rel = buf + 1;
	else if (buf[root->path_len] == '\0')
		rel = "";
	else if (buf[root->path_len] == '/')
		rel = buf + root->path_len + 1;
	else
		return false;
	if (strlen(rel) >= size)
		return false;
	strcpy(out, rel);
	return true;
}

int pg_landing_ok_locked(pg_root *root, const struct pg_res *res, const char *display)
{
	size_t parent_len = res->name_off ? res->name_off - 1 : 0;
	char now[PG_REAL_MAX + 1];

	if (res->is_root || still_at(root, res->dirfd, res->real, parent_len))
		return 0;
	pg_refusal_clear();
	if (where_now(root, res->dirfd, now, sizeof(now))) {
		size_t len = strlen(now);

		if (len + 1 + strlen(pg_res_name(res)) < sizeof(now)) {
			struct pg_path *lex = malloc(sizeof(*lex));
			int rc = -1;

			snprintf(now + len, sizeof(now) - len, "%s%s", len ? "/" : "",
				 pg_res_name(res));
			if (lex && pg_path_normalise(now[0] ? now : ".", false, lex) == 0)
				rc = pg_judge_locked(root, lex->buf, lex->len,
						     PG_OP_CREATE, display);
			free(lex);
			if (rc == 0)
				return 0;
		}
	}
	if (pg_refusal_code() != PG_R_NONE)
		return -1;
	return pg_res_escape(display, "the parent directory moved while the name was created");
}

int pg_verify_landing_locked(pg_root *root, const struct pg_res *res, bool is_dir,
			     const char *display)
{
	int err;

	if (pg_landing_ok_locked(root, res, display) == 0)
		return 0;
	/* Denied, outside the root, or unknown: undo. */
	err = errno;
	unlinkat(res->dirfd, pg_res_name(res), is_dir ? AT_REMOVEDIR : 0);
	errno = err;
	return -1;
}

/* ------------------------------------------------------------ identity */

int pg_resolve_identity_locked(pg_root *root, struct pg_object obj, enum pg_op op,
			       const char *display)
{
	int rc = pg_judge_identity_locked(root, &obj, op, display);

	if (rc != PG_JUDGE_LOOK_AGAIN)
		return rc;
	return pg_link_map_judge(root, &obj, op, display);
}
