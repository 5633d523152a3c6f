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
};

/* Judge the normalised root-relative NAME (LEN bytes) for OP, with the
 * root's lock held by the caller (read).  Returns 0 when allowed, else
 * records the refusal (workspace.denied / workspace.read-only) with the
 * deciding rule and returns -1.  DISPLAY is the path named in the refusal. */
int pg_root_judge_locked(pg_root *root, const char *name, size_t len,
			 enum pg_op op, const char *display);

#endif
