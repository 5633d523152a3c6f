/* check.h - owns judging without acting (pg_check, check.c): a path
 * resolved exactly as its operation would, then judged, into a verdict.
 *
 * pg_check's fast path is one openat2(root->fd, path, HOW).  A caller that
 * makes that call itself (e.g. through io_uring) hands its result to
 * pg_check_finish, which completes the verdict exactly as pg_check would.
 * pg_check_fast_how returns false when the root has no fast path (the
 * fallback walk): call pg_check instead. */
#ifndef PG_CHECK_H
#define PG_CHECK_H

#include <linux/openat2.h>
#include <stdbool.h>
#include <sys/stat.h>

#include "pathgate.h"
#include "root.h"

bool pg_check_fast_how(const pg_root *root, enum pg_op op, struct open_how *how);
/* RESULT is the fd the openat2 returned (consumed: closed here) or -errno.
 * Takes the root's lock itself.  Returns like pg_check. */
int  pg_check_finish(pg_root *root, const char *path, enum pg_op op, int result,
		     struct pg_verdict *out);
/* The same with RESULT's fd left open: the caller closes it (lib/batch.c
 * closes a round's fds through the ring with the next round's opens). */
int  pg_check_finish_borrowed(pg_root *root, const char *path, enum pg_op op, int result,
			      struct pg_verdict *out);
/* The same when the fast path's answer came another way (lib/batch.c
 * statx-es the final name under a held parent): RESULT is 0 with the
 * object's statx in STX (STATX_TYPE | STATX_INO | STATX_NLINK at least),
 * or the -errno the openat2 would have given. */
int  pg_check_finish_statx(pg_root *root, const char *path, enum pg_op op, int result,
			   const struct statx *stx, struct pg_verdict *out);

#endif
