/* resolve.h - owns resolution: turning an untrusted root-relative path into
 * held file descriptors beneath the root, and the verdict of the policy on
 * the name the operation really reaches.
 *
 * Fast path: judge the lexical name, then one openat2(RESOLVE_BENEATH |
 * RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS [| RESOLVE_NO_XDEV]); its
 * success proves the lexical name is the real name.  Slow path (a symlink
 * on the way, a mount, a race, or a root without openat2): a component walk
 * holding a directory fd per level, each component opened O_PATH |
 * O_NOFOLLOW beneath its parent, symlinks read through their fd and
 * expanded in place, '..' popping the held stack.  Both give one answer. */
#ifndef PG_RESOLVE_H
#define PG_RESOLVE_H

#include <linux/openat2.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "pathgate.h"
#include "path.h"
#include "judge.h"
#include "root.h"

/* How pg_resolve treats the final component. */
#define PG_RES_FOLLOW   0x1u  /* follow a final symlink (open, stat, chmod ...) */
#define PG_RES_EXIST    0x2u  /* the final object must exist (ENOENT otherwise) */
#define PG_RES_NO_JUDGE 0x4u  /* resolve only (refresh, mkdir_all's probes) */
#define PG_RES_FD       0x8u  /* hold an O_PATH fd of the final object in res->fd */
#define PG_RES_NO_LINKS 0x10u /* any symlink on the way is ELOOP (landing checks) */
#define PG_RES_WALK     0x20u /* the caller's openat2 met a symlink: walk at once */
#define PG_RES_DIR      0x40u /* O_DIRECTORY: a non-directory is ENOTDIR, before identity */

/* Room for a real name: symlink expansion can make it longer than the
 * argument it came from (the kernel's own bound is PATH_MAX). */
#define PG_REAL_MAX 4096

struct pg_res {
	int      dirfd;       /* the final object's parent, O_PATH; root->fd or owned */
	bool     dirfd_owned;
	int      fd;          /* with PG_RES_FD: O_PATH|O_NOFOLLOW fd of the final object, owned; else -1 */
	bool     exists;      /* the final object exists (stx describes it) */
	bool     is_root;     /* the final object is the root itself (no parent) */
	bool     via_link;    /* the final name was reached through a symlink's target */
	bool     must_dir;    /* a trailing slash: the object must be a directory */
	struct statx stx;     /* of the final object, when it exists */
	size_t   name_off;    /* the final component: real + name_off */
	size_t   real_len;
	char     real[PG_REAL_MAX + 1]; /* root-relative real name of the final object */
};

/* Resolve RAW (validated and normalised into LEX by the caller, whose
 * lexical judgement passed) for OP with the root's read lock held.  On
 * success RES holds the parent and, when it exists, the final object, and
 * the real name has been judged (with every symlink traversed, dangling
 * creations and hard links to denied files).  Returns 0, or -1 with errno
 * set and a refusal recorded when it is one.  pg_res_release() frees RES
 * after success. */
int  pg_resolve_locked(pg_root *root, const char *raw, const struct pg_path *lex,
		       enum pg_op op, unsigned how, struct pg_res *res);
void pg_res_release(struct pg_res *res);

/* pg_resolve_locked with RAW's parent already held in PARENTFD
 * (borrowed, O_PATH, opened beneath the root without symlinks from the
 * same parent name RAW spells: the caller makes sure of that, e.g. the
 * other name of a rename), or -1.  The answer is pg_resolve_locked's. */
int  pg_resolve_in_locked(pg_root *root, const char *raw, const struct pg_path *lex,
			  enum pg_op op, unsigned how, int parentfd, struct pg_res *res);

/* The final component's name (NUL-terminated, inside res->real). */
static inline const char *pg_res_name(const struct pg_res *res)
{
	return res->real + res->name_off;
}

/* After an operation created the final name of RES (a file, directory,
 * link or rename destination): check that its parent still is where the
 * resolution found it.  If the parent moved, judge where it is now for
 * CREATE; when that is refused, outside the root or unknown, remove what
 * was made (AT_REMOVEDIR when IS_DIR) and refuse.  Lock held. */
/* The check alone: 0 when the name landed where it was judged (or where
 * the policy allows it now), else -1 with the refusal recorded. */
int  pg_landing_ok_locked(pg_root *root, const struct pg_res *res, const char *display);
int  pg_verify_landing_locked(pg_root *root, const struct pg_res *res, bool is_dir,
			      const char *display);

/* Judge OBJ, a non-directory an operation reached, for OP, lock held: a
 * hard link to a denied (or, for writes, a read-only) file is refused like
 * the file's own name.  When the identity set misses an object with other
 * links, the link map (link-map.h) finds its other names in the workspace,
 * whatever rule refuses them.  Returns 0 or -1 with the refusal recorded. */
int  pg_resolve_identity_locked(pg_root *root, struct pg_object obj, enum pg_op op,
				const char *display);

/* Open the object RES resolved to with FLAGS (relative to its parent, never
 * re-walking a string); the caller holds the lock. */
int  pg_res_reopen(const pg_root *root, const struct pg_res *res, int flags, mode_t mode);

/* The RESOLVE_* flags of every openat2 on ROOT. */
static inline uint64_t pg_resolve_flags(const pg_root *root)
{
	return root->resolve;
}

/* The errno values after which a RESOLVE_NO_SYMLINKS openat2 hands over
 * to the walk: a symlink (ELOOP), a mount or '..' (EXDEV), a rename race
 * (EAGAIN). */
static inline bool pg_needs_walk(int err)
{
	return err == ELOOP || err == EXDEV || err == EAGAIN;
}

/* openat2(2) by syscall (glibc has no wrapper). */
int pg_openat2(int dirfd, const char *path, int flags, mode_t mode, uint64_t resolve);

#endif
