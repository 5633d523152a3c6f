/* judge.h - owns judging: the verdict of a root's policy on a name, and
 * the identity set (the device and inode of each file a literal deny or
 * read rule reaches at refresh) with the verdict on an object by its
 * identity.
 *
 * Judging never resolves.  A name is judged as given; an object by its
 * identity.  When the set misses an object with other links, its other
 * names must be found on disk: the judge says so (PG_JUDGE_LOOK_AGAIN)
 * and resolution (resolve.c) asks the link map (link-map.c), which
 * searches the workspace.  So calls go root -> resolve -> judge,
 * resolve -> link-map, and root -> judge, never back. */
#ifndef PG_JUDGE_H
#define PG_JUDGE_H

#include <fcntl.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/types.h>

#include "pathgate.h"
#include "policy.h"
#include "root.h"

/* ---------------------------------------------------------- by name */

/* Judge the normalised root-relative NAME (LEN bytes) for OP, with the
 * root's lock held by the caller (read).  Returns 0 when allowed, else
 * records the refusal (workspace.denied / workspace.read-only) with the
 * deciding rule and returns -1.  DISPLAY is the path named in the refusal. */
int pg_judge_locked(pg_root *root, const char *name, size_t len, enum pg_op op,
		    const char *display);

/* Like pg_judge_locked; also renders the deciding rule (when allowed
 * too) into RULE (SIZE bytes, "" when no rule covers). */
int pg_judge_rule_locked(pg_root *root, const char *name, size_t len, enum pg_op op,
			 const char *display, char *rule, size_t size);

/* NAME is another link of an object an operation reached: judge it for
 * OP, and refuse as "another link to the same file".  Lock held. */
int pg_judge_link_locked(pg_root *root, const char *name, size_t len, enum pg_op op,
			 const char *display);

/* --------------------------------------------------------- identity */

struct pg_identity_set;

struct pg_identity_set *pg_ids_new(void);
void   pg_ids_free(struct pg_identity_set *ids);
/* Record the file STX describes, named NAME (LEN bytes), when POLICY
 * refuses NAME a write (deny or read).  0 or -1 (no memory). */
int    pg_ids_record(struct pg_identity_set *ids, const pg_policy *policy,
		     const char *name, size_t len, const struct statx *stx);
/* Done adding: sort for lookups; say what the set holds. */
void   pg_ids_seal(struct pg_identity_set *ids, bool *has_deny, bool *has_read);

/* An object an operation reached, as identity judging needs it: the
 * ctime tells whether its links changed since the workspace was searched. */
struct pg_object {
	dev_t           dev;
	ino_t           ino;
	nlink_t         nlink;
	struct timespec ctime;
	/* Where to statx the object again, after its other names were
	 * searched for (at_name NULL: nowhere; see pg_object_at). */
	int             at_fd;
	const char     *at_name;
	int             at_flags;
};

static inline struct pg_object pg_object_of_stat(const struct stat *st)
{
	return (struct pg_object){ st->st_dev, st->st_ino, st->st_nlink, st->st_ctim,
				   -1, NULL, 0 };
}

static inline struct pg_object pg_object_of_statx(const struct statx *stx)
{
	return (struct pg_object){
		makedev(stx->stx_dev_major, stx->stx_dev_minor), stx->stx_ino, stx->stx_nlink,
		{ stx->stx_ctime.tv_sec, stx->stx_ctime.tv_nsec }, -1, NULL, 0 };
}

/* OBJ, which can be looked at again as statx(FD, NAME, FLAGS) would. */
static inline struct pg_object pg_object_at(struct pg_object obj, int fd, const char *name,
					    int flags)
{
	obj.at_fd = fd;
	obj.at_name = name;
	obj.at_flags = flags;
	return obj;
}

/* pg_judge_identity_locked's third answer. */
#define PG_JUDGE_LOOK_AGAIN 1

/* Judge OBJ, a non-directory an operation reached, for OP, lock held: a
 * hard link to a denied (or, for writes, a read-only) file is refused like
 * the file's own name.  Returns 0 (allowed), -1 (refused, recorded), or
 * PG_JUDGE_LOOK_AGAIN: the set misses an object with other links, whose
 * other names must be looked for on disk (pg_resolve_identity_locked). */
int pg_judge_identity_locked(pg_root *root, const struct pg_object *obj, enum pg_op op,
			     const char *display);

/* True when OP on a non-directory must be judged by identity too: the
 * policy refuses some name in the workspace (has_deny_ids / has_read_ids,
 * set at refresh). */
static inline bool pg_judge_needs_identity(const pg_root *root, enum pg_op op)
{
	return root->has_deny_ids || (op != PG_OP_READ && root->has_read_ids);
}

#endif
