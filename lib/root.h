/* root.h - owns struct pg_root: the held root directory, its canonical host
 * path, the root's private copy of the policy (with rules derived from what
 * is on disk), the identity set of denied and read-only files (judge.c's),
 * the write bound, and the choice of resolver.  Other modules of lib/ read
 * these fields; only root.c writes them.  (Contract for the envelope and
 * batch modules: the fields below are stable.  The shim never sees the
 * struct: it asks through shim.h.) */
#ifndef PG_ROOT_H
#define PG_ROOT_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "pathgate.h"
#include "policy.h"

struct pg_identity_set;   /* private to judge.c */
struct pg_link_map;       /* private to link-map.c */

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
	struct pg_link_map *links;   /* other links of multi-linked files (link-map.h) */

	/* Read by resolve.c, written once by pg_root_open. */
	uint64_t          resolve;   /* RESOLVE_* flags of every openat2 */
	uint64_t          mnt_id;    /* mount id of the root (the walk's mount check) */
	dev_t             dev;       /* the root directory's identity */
	ino_t             ino;
	pg_policy        *base;      /* the caller's rules, uncompiled, for refresh;
				       * policy borrows them; owned, freed last */
	bool              maybe_proc;/* /proc may be met (XDEV, or a root in procfs) */
	/* Written by refresh under the write lock: the policy denies
	 * (has_deny_ids) or makes read-only (has_read_ids) some name in the
	 * workspace, so the object an operation reaches must be checked by
	 * identity. */
	bool              has_deny_ids;
	bool              has_read_ids;
};

#endif
