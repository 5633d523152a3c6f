/* ops.h - owns the guarded operations of the public API (pg_open ...
 * pg_opendir; ops-names.c has those acting on a name itself).  Shared with atomic.c and check.c: the open that every
 * object-reaching call goes through, and the identity check of an fd. */
#ifndef PG_OPS_H
#define PG_OPS_H

#include <stdbool.h>
#include <sys/stat.h>

#include "path.h"
#include "resolve.h"
#include "root.h"

/* Validate and normalise PATH for a call on ROOT (EINVAL for a NULL root).
 * Returns 0 or -1 with the refusal recorded. */
int pg_ops_prepare(const pg_root *root, const char *path, struct pg_path *lex);

/* True when RAW is already its own lexical normal form and within the
 * limits (no empty, "." or ".." component, no leading or trailing slash),
 * as most paths are: it can be judged as it is, without a copy.  *LEN is
 * its length. */
bool pg_ops_plain_path(const char *raw, size_t *len);

/* open(2) of PATH for OP beneath ROOT, lock held: the lexical judgement,
 * then one openat2 when that suffices, else the walk. */
int pg_open_locked(pg_root *root, const char *path, const struct pg_path *lex,
		   int flags, mode_t mode, enum pg_op op);

/* Refuse FD (closing it) when it is another link to a denied (or, for a
 * write, read-only) file.  Returns FD or -1. */
int pg_check_identity_fd(pg_root *root, int fd, enum pg_op op, const char *display);

/* The root's read lock, taken and released keeping errno. */
void pg_ops_lock(pg_root *root);
void pg_ops_unlock(pg_root *root);

/* A pinned directory (invariant 6): RES is one; refuse PATH (REAL is its
 * real name) as workspace.pinned. */
bool pg_ops_pinned(pg_root *root, const struct pg_res *res);
int  pg_ops_refuse_pinned(const char *path, const char *real);

/* ops-final.c: the final name itself, as the kernel sees it. */

/* Creating a name that is a symlink (RES) is refused as open(O_CREAT)
 * through it would be; 0 to go on to the kernel's own answer. */
int  pg_ops_link_in_the_way(pg_root *root, const char *path, const struct pg_path *lex,
			    const struct pg_res *res);

/* PATH's final component is "." (after any trailing slashes). */
bool pg_ops_ends_in_dot(const char *path);
/* PATH's final component is ".." (after any trailing slashes). */
bool pg_ops_ends_in_dotdot(const char *path);
/* When PATH ends in '/': the type (S_IFMT) of its final name, not
 * followed, else 0.  unlink(2), rmdir(2) and rename(2) never follow it
 * (a symlink there is ENOTDIR), and a create finds it existing (EEXIST). */
mode_t pg_ops_slash_type(pg_root *root, const char *path);
/* After a create's resolution failed: EEXIST when PATH ends in '/' and
 * its final name exists (the kernel's answer), unless a refusal decided.
 * Returns -1. */
int  pg_ops_exists_anyway(pg_root *root, const char *path);

#endif
