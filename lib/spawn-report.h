/* spawn-report.h - owns the requested-versus-applied report: the JSON
 * document that says, for the last plan or launch of this thread, which
 * bwrap ran (version, availability), the mounts with their rules, what
 * was skipped and the seams, the glob walk's bounds, the seccomp floor and
 * the environment's names; for a plan translated for the Landlock
 * envelope, its ABI, grants and what became of each rule.  pg_spawn_report() (pathgate.h) returns it; it
 * lives until the thread's next report. */
#ifndef PG_SPAWN_REPORT_H
#define PG_SPAWN_REPORT_H

#include <stdbool.h>

#include "pathgate.h"

/* Record the report of PLAN.  LAUNCHED: -1 a plan only, 0 refused (with
 * REFUSAL, the reason), 1 launched; SECCOMP: the floor was applied;
 * ENVP_NAMES: the caller's environment (only the names are reported). */
void pg_spawn_report_write(const pg_plan *plan, int launched, bool seccomp,
			   const char *refusal, char *const envp_names[]);

/* Record PLAN's report with no launch (as envelope.h declares too). */
void pg_envelope_report_plan(const pg_plan *plan);

#endif
