/* ops-names.c - the calls that act on a final name itself rather than on
 * what it reaches: rename, link, symlink, readlink.  Each resolves the name
 * without following it, judges it (and the destination, and what a link
 * in the way leads to), refuses a pinned directory, and checks where a
 * created name landed.  The shared steps are ops.c's. */
#include "config.h"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include "judge.h"
#include "link-map.h"
#include "ops.h"
#include "path.h"
#include "refusal.h"
#include "resolve.h"
#include "root.h"

/* -------------------------------------------------------------- rename */

static int rename_judged(pg_root *root, const char *from, const char *to,
			 struct pg_res *src, struct pg_res *dst, unsigned flags)
{
	if (src->is_root || dst->is_root) {
		errno = EBUSY;
		return -1;
	}
	if (pg_ops_pinned(root, src))
		return pg_ops_refuse_pinned(from, src->real);
	if (flags & RENAME_EXCHANGE) {
		if (!dst->exists) {
			errno = ENOENT;
			return -1;
		}
		/* The destination's object moves to the source's name. */
		if (pg_judge_locked(root, dst->real, dst->real_len, PG_OP_DELETE, to) < 0 ||
		    pg_judge_locked(root, src->real, src->real_len, PG_OP_CREATE, from) < 0)
			return -1;
	}
	if (!(flags & RENAME_NOREPLACE) && pg_ops_pinned(root, dst))
		return pg_ops_refuse_pinned(to, dst->real);
	return 0;
}

/* SRC's held parent when FROM and TO are plain (no ".", "..", "//" or
 * trailing slash: each spells its lexical name), FROM resolved to its own
 * name, and TO has the same parent: the destination's resolution would
 * open that same name again.  Else -1. */
static int shared_parent(const char *from, const struct pg_path *lfrom,
			 const struct pg_res *src, const char *to)
{
	const char *slash = strrchr(to, '/');
	size_t plen = slash ? (size_t)(slash - to) : 0, len;

	if (!slash || src->is_root || !src->dirfd_owned || src->name_off != plen + 1 ||
	    !pg_ops_plain_path(from, &len) || !pg_ops_plain_path(to, &len) ||
	    src->real_len != lfrom->len || memcmp(src->real, lfrom->buf, lfrom->len) != 0 ||
	    memcmp(src->real, to, plen) != 0)
		return -1;
	return src->dirfd;
}

/* rename(2)'s own refusals, in its order: "." or ".." as a final name
 * (EBUSY; EEXIST for a destination with NOREPLACE), an existing
 * destination with NOREPLACE, an absent or non-directory one ending in
 * '/' with EXCHANGE, a non-directory source (a symlink is one, whatever
 * it points at) with a '/' on either name. */
static bool rename_kernel_refuses(pg_root *root, const char *from, const struct pg_path *lfrom,
				  const char *to, const struct pg_path *lto,
				  const struct pg_res *src, const struct pg_res *dst, unsigned flags)
{
	bool dir_src = S_ISDIR(src->stx.stx_mode) && pg_ops_slash_type(root, from) != S_IFLNK;
	bool dir_dst = dst->exists && S_ISDIR(dst->stx.stx_mode) && pg_ops_slash_type(root, to) != S_IFLNK;

	if (pg_ops_ends_in_dot(from) || pg_ops_ends_in_dotdot(from))
		errno = EBUSY;   /* "dir/." names no entry to move */
	else if (pg_ops_ends_in_dot(to) || pg_ops_ends_in_dotdot(to))
		errno = flags & RENAME_NOREPLACE ? EEXIST : EBUSY;
	else if ((flags & RENAME_NOREPLACE) && dst->exists)
		errno = EEXIST;
	else if ((flags & RENAME_EXCHANGE) && !dst->exists)
		errno = ENOENT;
	else if ((flags & RENAME_EXCHANGE) && lto->trailing_slash && !dir_dst)
		errno = ENOTDIR;
	else if (!dir_src && (lfrom->trailing_slash ||
			      (!(flags & RENAME_EXCHANGE) && lto->trailing_slash)))
		errno = ENOTDIR;
	else
		return false;
	return true;
}

static int rename_locked(pg_root *root, const char *from, const struct pg_path *lfrom,
			 const char *to, const struct pg_path *lto, unsigned flags)
{
	struct pg_res src, dst;
	bool moves_dir;
	int rc = -1;

	if (pg_resolve_locked(root, from, lfrom, PG_OP_DELETE, PG_RES_EXIST, &src) < 0) {
		if (!pg_last_refusal()->name && pg_ops_slash_type(root, from) == S_IFLNK)
			errno = ENOTDIR;   /* "dangling/": the link, not what it lacks */
		return -1;
	}
	if (pg_resolve_in_locked(root, to, lto, PG_OP_CREATE, 0, shared_parent(from, lfrom, &src, to),
				 &dst) < 0) {
		pg_res_release(&src);
		/* "name/" where name exists but is no directory (or a loop). */
		if (!pg_last_refusal()->name && pg_ops_slash_type(root, to))
			errno = flags & RENAME_NOREPLACE ? EEXIST : ENOTDIR;
		return -1;
	}
	/* A directory that moves takes its names along without changing the
	 * ctime of the files in it: a search for other links running now
	 * must know (link-map.h). */
	moves_dir = S_ISDIR(src.stx.stx_mode) || (dst.exists && S_ISDIR(dst.stx.stx_mode));
	if (moves_dir)
		pg_link_map_moving(root);
	if (rename_kernel_refuses(root, from, lfrom, to, lto, &src, &dst, flags))
		;   /* errno set: the kernel's answer, in the kernel's order */
	/* rename(2) replaces a symlink at the destination, never follows it
	 * (the ln -sfn swap): only a trailing slash asks for what it leads to. */
	else if ((!lto->trailing_slash || pg_ops_link_in_the_way(root, to, lto, &dst) == 0) &&
	    rename_judged(root, from, to, &src, &dst, flags) == 0 &&
	    renameat2(src.dirfd, pg_res_name(&src), dst.dirfd, pg_res_name(&dst), flags) == 0) {
		rc = 0;
		if (pg_landing_ok_locked(root, &dst, to) < 0 ||
		    ((flags & RENAME_EXCHANGE) && pg_landing_ok_locked(root, &src, from) < 0)) {
			int err = errno;

			/* Put it back where it was judged. */
			renameat2(dst.dirfd, pg_res_name(&dst), src.dirfd, pg_res_name(&src),
				  flags & RENAME_EXCHANGE ? RENAME_EXCHANGE : RENAME_NOREPLACE);
			errno = err;
			rc = -1;
		}
	}
	if (moves_dir)
		pg_link_map_moved(root);
	pg_res_release(&src);
	pg_res_release(&dst);
	return rc;
}

int pg_rename(pg_root *root, const char *from, const char *to, unsigned flags)
{
	struct pg_path *lfrom, *lto;
	int rc = -1;

	pg_refusal_clear();
	if ((flags & ~(RENAME_NOREPLACE | RENAME_EXCHANGE)) ||
	    (flags & RENAME_NOREPLACE && flags & RENAME_EXCHANGE)) {
		errno = EINVAL;
		return -1;
	}
	lfrom = malloc(sizeof(*lfrom));
	lto = malloc(sizeof(*lto));
	if (lfrom && lto && pg_ops_prepare(root, from, lfrom) == 0 &&
	    pg_ops_prepare(root, to, lto) == 0) {
		pg_ops_lock(root);
		rc = rename_locked(root, from, lfrom, to, lto, flags);
		pg_ops_unlock(root);
	}
	free(lfrom);
	free(lto);
	return rc;
}

/* ---------------------------------------------------------------- link */

static int link_locked(pg_root *root, const char *from, const struct pg_path *lfrom,
		       const char *to, const struct pg_path *lto)
{
	struct pg_res src, dst;
	int rc = -1;

	/* A new name for an object is a write of it: a read-only file must
	 * not gain a writable name. */
	if (pg_resolve_locked(root, from, lfrom, PG_OP_WRITE, PG_RES_EXIST, &src) < 0)
		return -1;
	if (pg_resolve_in_locked(root, to, lto, PG_OP_CREATE, 0, shared_parent(from, lfrom, &src, to),
				 &dst) < 0) {
		pg_res_release(&src);
		return pg_ops_exists_anyway(root, to);
	}
	if (src.is_root || S_ISDIR(src.stx.stx_mode))
		errno = EPERM;
	else if (lto->trailing_slash && !dst.exists)
		errno = ENOENT;   /* as link(2): "new/" names a directory to be */
	else if (pg_ops_link_in_the_way(root, to, lto, &dst) < 0)
		rc = -1;
	else if (dst.is_root || dst.exists)
		errno = EEXIST;
	else if (linkat(src.dirfd, pg_res_name(&src), dst.dirfd, pg_res_name(&dst), 0) == 0)
		rc = pg_verify_landing_locked(root, &dst, false, to);
	pg_res_release(&src);
	pg_res_release(&dst);
	return rc;
}

int pg_link(pg_root *root, const char *from, const char *to)
{
	struct pg_path *lfrom, *lto;
	int rc = -1;

	pg_refusal_clear();
	lfrom = malloc(sizeof(*lfrom));
	lto = malloc(sizeof(*lto));
	if (lfrom && lto && pg_ops_prepare(root, from, lfrom) == 0 &&
	    pg_ops_prepare(root, to, lto) == 0) {
		pg_ops_lock(root);
		rc = link_locked(root, from, lfrom, to, lto);
		pg_ops_unlock(root);
	}
	free(lfrom);
	free(lto);
	return rc;
}

int pg_symlink(pg_root *root, const char *target, const char *linkpath)
{
	struct pg_path lex;
	struct pg_res res;
	int rc = -1;

	pg_refusal_clear();
	if (!target) {
		errno = EINVAL;
		return -1;
	}
	if (!target[0]) {
		errno = ENOENT;
		return -1;
	}
	if (strnlen(target, PG_REAL_MAX + 1) > PG_REAL_MAX) {
		errno = ENAMETOOLONG;
		return -1;
	}
	if (pg_ops_prepare(root, linkpath, &lex) < 0)
		return -1;
	pg_ops_lock(root);
	if (pg_resolve_locked(root, linkpath, &lex, PG_OP_CREATE, 0, &res) < 0) {
		pg_ops_exists_anyway(root, linkpath);
	} else {
		if (lex.trailing_slash && !res.exists)
			errno = ENOENT;   /* as symlink(2) */
		else if (pg_ops_link_in_the_way(root, linkpath, &lex, &res) < 0)
			rc = -1;
		else if (res.is_root || res.exists)
			errno = EEXIST;
		else if (symlinkat(target, res.dirfd, pg_res_name(&res)) == 0)
			rc = pg_verify_landing_locked(root, &res, false, linkpath);
		pg_res_release(&res);
	}
	pg_ops_unlock(root);
	return rc;
}

ssize_t pg_readlink(pg_root *root, const char *path, char *buf, size_t size)
{
	struct pg_path lex;
	struct pg_res res;
	ssize_t n = -1;

	pg_refusal_clear();
	if (!buf || size == 0) {
		errno = EINVAL;
		return -1;
	}
	if (pg_ops_prepare(root, path, &lex) < 0)
		return -1;
	pg_ops_lock(root);
	if (pg_resolve_locked(root, path, &lex, PG_OP_READ, PG_RES_EXIST, &res) == 0) {
		if (res.is_root || !S_ISLNK(res.stx.stx_mode))
			errno = EINVAL;
		else
			n = readlinkat(res.dirfd, pg_res_name(&res), buf, size);
		pg_res_release(&res);
	}
	pg_ops_unlock(root);
	return n;
}
