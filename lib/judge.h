/* judge.h - owns judging: the verdict of a root's policy on a name, and
 * the identity set (the device and inode of each file a literal deny or
 * read rule reaches, the names of those files, the read-only directories
 * the rules name) with the verdict on an object by its identity.
 *
 * Judging never resolves.  A name is judged as given; an object by its
 * identity.  When the set misses an object with other links, the rules'
 * names must be looked at again on disk: the judge says so
 * (PG_JUDGE_LOOK_AGAIN) and resolution (resolve.c) does it, handing each
 * other link it finds back here (pg_judge_link_locked).  So calls go
 * root -> resolve -> judge and root -> judge, never back. */
#ifndef PG_JUDGE_H
#define PG_JUDGE_H

#include <fcntl.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>
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
/* The names of the files literal rules named (looked at again on a miss),
 * and the read-only directories they name (searched for other links). */
int    pg_ids_add_file(struct pg_identity_set *ids, const char *name);
int    pg_ids_add_ro_dir(struct pg_identity_set *ids, const char *name);
/* Done adding: sort for lookups; say what the set holds. */
void   pg_ids_seal(struct pg_identity_set *ids, bool *has_deny, bool *has_read);
size_t pg_ids_file_count(const struct pg_identity_set *ids);
const char *pg_ids_file(const struct pg_identity_set *ids, size_t i);
size_t pg_ids_ro_dir_count(const struct pg_identity_set *ids);
const char *pg_ids_ro_dir(const struct pg_identity_set *ids, size_t i);

/* pg_judge_identity_locked's third answer. */
#define PG_JUDGE_LOOK_AGAIN 1

/* Judge the object with identity (DEV, INO) and NLINK links, a
 * non-directory an operation reached, for OP, lock held: a hard link to
 * a denied (or, for writes, a read-only) file is refused like the file's
 * own name.  Returns 0 (allowed), -1 (refused, recorded), or
 * PG_JUDGE_LOOK_AGAIN: the set misses an object with other links, whose
 * other names must be looked at on disk (pg_resolve_identity_locked). */
int pg_judge_identity_locked(pg_root *root, dev_t dev, ino_t ino, nlink_t nlink,
			     enum pg_op op, const char *display);

/* True when OP on a non-directory must be judged by identity too. */
static inline bool pg_judge_needs_identity(const pg_root *root, enum pg_op op)
{
	return root->has_deny_ids || (op != PG_OP_READ && root->has_read_ids);
}

#endif
