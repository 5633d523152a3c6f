/* envelope.h - owns the mount plan: turning a policy's rules into the
 * bubblewrap argument vector that shows a child the host only as the rules
 * allow, with each mount's cause, the rules that laid nothing (skips) and
 * the limits that remain (seams); and launching a child under that plan.
 *
 * The plan never touches the host (doc/design.md invariant 4): every object is
 * inspected with O_PATH|O_NOFOLLOW before a mount is emitted, a mount is
 * emitted only over a name that exists in the shape it has, and objects are
 * lent to bwrap by descriptor (--bind-fd / --ro-bind-fd), which re-checks
 * that the mountpoint is the inode the planner inspected.
 *
 * Mount order: base (the host root when a rule reads or writes "/"), pins
 * (read-only self-binds of the directories between a write region and a
 * read or deny rule beneath it, invariant 6), the private /dev, /proc and
 * /tmp, then the rules' mounts by depth, shallow first (invariant 5), and
 * last the read-only remounts of the directory masks. */
#ifndef PG_ENVELOPE_H
#define PG_ENVELOPE_H

#include <spawn.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "pathgate.h"
#include "policy.h"

/* Bounds of the planner's walk of the host (entries listed, depth from
 * "/"): a plan that reached one is refused at launch. */
#define PG_GLOB_MAX_DEPTH   64
#define PG_GLOB_MAX_ENTRIES 200000

struct pg_envelope_opts {
	unsigned glob_max_depth;    /* 0: PG_GLOB_MAX_DEPTH */
	unsigned glob_max_entries;  /* 0: PG_GLOB_MAX_ENTRIES */
};

/* Build the plan for ROOT: every decision is the root's judge's (see
 * envelope-plan.h).  Takes the root's lock.  NULL with errno set on
 * allocation failure or a bad argument: a rule that cannot be honoured is
 * a skip or a seam in the plan, never a failure. */
struct pg_root;
pg_plan *pg_envelope_plan_root(struct pg_root *root, const struct pg_envelope_opts *opts);

/* The same for a workspace at ROOT (canonical absolute host path)
 * from the N rules RULES (relative rules are relative to ROOT), opened
 * as a root of their own policy.  Returns NULL with errno set on failure. */
pg_plan *pg_envelope_plan(const char *root, const struct pg_rule *const *rules,
			  size_t n, const struct pg_envelope_opts *opts);

/* Launch FILE under PLAN (posix_spawn's contract: 0 or an error number,
 * errno set too).  Refuses with exec.sandbox-unavailable (ENOSYS) and runs
 * nothing when bwrap, user namespaces or the seccomp filter are missing.
 * Leaves the report for pg_spawn_report(). */
int pg_envelope_spawn(pid_t *pid, pg_plan *plan, const char *file,
		      const posix_spawn_file_actions_t *actions,
		      const posix_spawnattr_t *attr,
		      char *const argv[], char *const envp[]);

/* Lend the host file HOST read-only at DEST inside the child; DEST must lie
 * in the envelope's private /tmp (so nothing is created on the host).  For
 * pathgate run's preload, which may live where the policy shows nothing.
 * Returns 0 or -1 with errno set. */
int pg_envelope_lend(pg_plan *plan, const char *host, const char *dest, const char *why);

/* Record PLAN's report (no launch) for pg_spawn_report(). */
void pg_envelope_report_plan(const pg_plan *plan);

/* The bwrap the envelope runs: PG_BWRAP_PATH unless set here (tests point
 * it at a missing path).  NULL restores the default.  Not thread-safe
 * against concurrent spawns. */
void pg_envelope_set_bwrap(const char *path);
const char *pg_envelope_bwrap(void);

/* Why the sandbox is unavailable on this host, or NULL when it is
 * available (probed once per bwrap path, cached). */
const char *pg_envelope_unavailable(void);

/* True unless this host's bwrap refuses --remount-ro over a tmpfs it has
 * just mounted (seed 000 reports 0.11.2 doing so); then directory masks
 * stay writable-mode tmpfs and the plan lists that as a seam. */
bool pg_envelope_masks_read_only(void);

#endif
