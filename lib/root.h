/* root.h - owns struct pg_root: the held root directory, its canonical host
 * path, the root's private copy of the policy (with rules derived from what
 * is on disk), the identities of denied files, the write bound, and the
 * choice of resolver.  Other modules read these fields; only root.c writes
 * them.  (Contract for the envelope, batch and shim modules: the fields
 * below and the functions declared here are stable.) */
#ifndef PG_ROOT_H
#define PG_ROOT_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "pathgate.h"
#include "policy.h"

struct pg_identity_set;   /* private to root.c */

struct pg_root {
	int               fd;        /* O_PATH|O_DIRECTORY|O_CLOEXEC, owned */
	char             *path;      /* canonical absolute host path, owned */
	size_t            path_len;
	unsigned          flags;     /* PG_ROOT_* */
	bool              openat2;   /* resolve with openat2 (else the O_PATH walk) */
	uint64_t          write_limit;
	pthread_rwlock_t  lock;      /* readers: every operation; writer: refresh */
	pg_policy        *policy;    /* private: pg_policy_for_root() + derived rules */
	struct pg_identity_set *ids; /* (dev, ino) of denied / read-only non-directories */

	/* Read by resolve.c, written once by pg_root_open. */
	uint64_t          resolve;   /* RESOLVE_* flags of every openat2 */
	uint64_t          mnt_id;    /* mount id of the root (the walk's mount check) */
	dev_t             dev;       /* the root directory's identity */
	ino_t             ino;
	pg_policy        *base;      /* the caller's policy, for refresh; owned */
	bool              maybe_proc;/* /proc may be met (XDEV, or a root in procfs) */
	/* Written by refresh under the write lock: the identity set holds a
	 * denied (has_deny_ids) or a read-only (has_read_ids) file, so the
	 * object an operation reaches must be checked by identity. */
	bool              has_deny_ids;
	bool              has_read_ids;
};

/* Judge the normalised root-relative NAME (LEN bytes) for OP, with the
 * root's lock held by the caller (read).  Returns 0 when allowed, else
 * records the refusal (workspace.denied / workspace.read-only) with the
 * deciding rule and returns -1.  DISPLAY is the path named in the refusal. */
int pg_root_judge_locked(pg_root *root, const char *name, size_t len,
			 enum pg_op op, const char *display);

/* Like pg_root_judge_locked; also renders the deciding rule (when allowed
 * too) into RULE (SIZE bytes, "" when no rule covers). */
int pg_root_judge_rule_locked(pg_root *root, const char *name, size_t len,
			      enum pg_op op, const char *display,
			      char *rule, size_t size);

/* Judge the object with identity (DEV, INO) and NLINK links, a
 * non-directory an operation reached, for OP, lock held: a hard link to a
 * denied (or, for writes, a read-only) file is refused like the file's own
 * name.  An object with other links that misses the recorded identities is
 * compared with what the rules' file names are now.  Returns 0 or -1 with
 * the refusal recorded. */
int pg_root_judge_identity_locked(pg_root *root, dev_t dev, ino_t ino, nlink_t nlink,
				  enum pg_op op, const char *display);

/* True when OP on a non-directory must be judged by identity too. */
static inline bool pg_root_needs_identity(const pg_root *root, enum pg_op op)
{
	return root->has_deny_ids || (op != PG_OP_READ && root->has_read_ids);
}

#endif
