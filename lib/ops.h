/* ops.h - owns the guarded operations of the public API (pg_open ...
 * pg_opendir).  Shared with atomic.c and check.c: the open that every
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

#endif
