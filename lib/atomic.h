/* atomic.h - owns the atomic, bounded writer (pg_write_file and its
 * streaming form) and the clearing of its leftover temporaries.  A write
 * goes to an unnamed O_TMPFILE (or an O_EXCL temporary named with
 * PG_TMP_PREFIX where O_TMPFILE is unsupported) in the target's directory,
 * is synced, named, renamed over the target, and the directory synced:
 * a crash leaves the old content or the new, never a mix. */
#ifndef PG_ATOMIC_H
#define PG_ATOMIC_H

#include <stdbool.h>

/* Make the writer use named temporaries, as where O_TMPFILE is missing
 * (tests run both forms). */
void pg_atomic_force_named_temporaries(bool on);

#endif
