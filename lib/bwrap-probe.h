/* bwrap-probe.h - owns what this host's bubblewrap can do: which bwrap the
 * envelope runs, and the one probe per bwrap path (is it there, does it
 * run as bubblewrap 0.8 or later, may user namespaces be made, can a real
 * envelope be built, does it remount a tmpfs mask read-only), with the
 * version it reported.  The answers are cached; the planner, the launcher
 * and the report ask here.
 *
 * (envelope.h declares the same pg_envelope_* functions for its callers;
 * the declarations agree, and the definitions are here.) */
#ifndef PG_BWRAP_PROBE_H
#define PG_BWRAP_PROBE_H

#include <stdbool.h>
#include <stddef.h>

/* The bwrap the envelope runs: PG_BWRAP_PATH unless set here (tests point
 * it at a missing path).  NULL restores the default.  Not thread-safe
 * against concurrent spawns. */
void pg_envelope_set_bwrap(const char *path);
const char *pg_envelope_bwrap(void);

/* Why the sandbox is unavailable on this host, or NULL when it is
 * available (probed once per bwrap path, cached). */
const char *pg_envelope_unavailable(void);

/* True unless this host's bwrap refuses --remount-ro over a tmpfs it has
 * just mounted; then directory masks stay writable-mode tmpfs and the
 * plan lists that as a seam. */
bool pg_envelope_masks_read_only(void);

/* The version the last probe's bwrap reported ("0.11.0"), "" when none,
 * into BUF (SIZE bytes). */
void pg_bwrap_version(char *buf, size_t size);

#endif
