/* shim.h - the shim's one window into the library: what the pathgate
 * command and libpathgate-preload.so need beyond the public API
 * (pathgate.h), and nothing else.  The files of shim/ include this
 * header and pathgate.h and no other header of lib/; every decision
 * about a policy (where it comes from, what a name's verdict is and why,
 * what an open asks) is made by the library, once.
 *
 * Owned here: the declarations only.  The definitions live with the
 * modules that own the data: policy discovery in discover.c, the
 * explanation of a name in explain.c, judging a name by the policy alone
 * in judge.c, the root's identity in root.c, the plan's lending and
 * launch in spawn.c.  Nothing here is exported from libpathgate.so: the
 * shim links the internal library. */
#ifndef PG_SHIM_H
#define PG_SHIM_H

#include <limits.h>
#include <spawn.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "pathgate.h"

/* ------------------------------------------------------ policy discovery */

/* Load into P (empty) the policy of the workspace at ROOT: FILE when given
 * (its TEXT when FILE does not load and TEXT is given: inside the
 * envelope the file beside the root is out of sight), else TEXT when
 * given, else ROOT/.pathgate when it is a regular file, else the embedded
 * default.  *SOURCE (SOURCE may be NULL) gets the canonical name of the
 * file named or found, malloc'd, even when it did not load; NULL for TEXT
 * alone or the default.  Returns 0, or -1 with errno set and the refusal
 * (policy.invalid and its line) recorded. */
int pg_policy_discover(pg_policy *p, const char *root, const char *file, const char *text,
		       char **source);

/* Every error the last policy parse or load on this thread met (the
 * refusal names only the first), one "FILE:LINE: message" a line ("" when
 * none); a bounded list, its last line saying how many more there were. */
const char *pg_policy_errors(void);

/* The nearest directory from START upward (START itself first) that
 * holds a regular file .pathgate, canonical and malloc'd; NULL when none
 * does (the caller's workspace is then START). */
char *pg_policy_find_root(const char *start);

/* The embedded default policy's text (pathgate policy --default). */
const char *pg_policy_default_text(void);

/* ------------------------------------------------------------------ root */

/* True while ROOT's descriptor is still open on the directory the root
 * opened (a program may close it or dup2 over it: the preload then opens
 * the root again). */
bool pg_root_intact(const pg_root *root);

/* Judge NAME by ROOT's policy alone, without resolving it: a host path
 * (absolute) by the absolute rules, or a root-relative name as written.
 * Takes the root's lock; allocates nothing (safe in a vfork child).
 * Returns 0 when OP is allowed, else records workspace.denied (EACCES)
 * or workspace.read-only (EROFS) naming DISPLAY and the deciding rule,
 * and returns -1. */
int pg_root_judge_name(pg_root *root, const char *name, enum pg_op op, const char *display);

/* pg_check's verdict on RAW for OP, where the core leaves off (host.c):
 * an absolute RAW beneath the root is the workspace name it spells;
 * another absolute RAW is judged by the absolute rules, on the name as
 * written and on the name it reaches (a host symlink into the root is
 * judged there); a workspace name that leaves the root through an
 * absolute symlink (venv/bin/python3 -> /usr/bin/python3) is judged
 * where it lands, after the library has judged the way there; a name to
 * create beneath directories that do not exist yet is judged for
 * creation from its nearest existing directory down.  The host is
 * resolved with realpath: advice, not a boundary.  Returns 0 when
 * allowed; else -1 with *OUT (may be NULL) filled as pg_check fills it:
 * a refusal, or a plain error (ENOENT: a name to read does not exist). */
int pg_root_check_host(pg_root *root, const char *raw, enum pg_op op, struct pg_verdict *out);

/* ------------------------------------------------------------- explain */

/* What decides a name, for pathgate explain. */
struct pg_explanation {
	bool           inside;                 /* the name lies in the root */
	char           name[PG_PATH_MAX + 2];  /* root-relative ("" the root), or "/usr/x" outside */
	char           abs[PATH_MAX + PG_PATH_MAX + 2]; /* the host path */
	enum pg_access access;                 /* the decision */
	bool           has_rule;               /* false: no rule covers it (deny) */
	char           rule[512];              /* the deciding rule, rendered */
	char           cap[512];               /* the final rule that capped it, "" when none */
	enum pg_access rule_access;            /* the deciding rule's word */
	bool           rule_glob;
	bool           rule_absolute;
	char           rule_path[PG_PATH_MAX + 1]; /* as normalised: "a/b", "" for ".", "/usr" */
	char           rule_folded[PG_PATH_MAX + 1]; /* its collision class, "" when it has none */
	size_t         npins;                  /* pinned directories on the way to NAME */
	uint16_t       pins[PG_PATH_MAX / 2 + 1]; /* each as a byte length of NAME's prefix */
};

/* Explain RAW (as given: relative to the root, or an absolute host path)
 * under ROOT's policy.  Returns 0, or -1 with the refusal recorded when
 * RAW is not a path (workspace.bad-path, workspace.path-escape). */
int pg_root_explain(pg_root *root, const char *raw, struct pg_explanation *out);

/* ------------------------------------------------------------- envelope */

/* Lend the host file HOST read-only at DEST in the envelope's private
 * /tmp (pathgate run's preload).  0 or -1 with errno set. */
int pg_plan_lend(pg_plan *plan, const char *host, const char *dest, const char *why);

/* Start the child in DIR (canonical, the root or beneath it) instead of
 * the root, when the plan shows DIR (read or write region; plan-cwd.c).
 * 0, or -1 with errno: EINVAL not beneath the root, EACCES masked there. */
int pg_plan_chdir(pg_plan *plan, const char *dir);

/* Launch FILE under PLAN: pg_spawn's contract with a plan the caller
 * built (and lent into).  0 or an error number; the report is left for
 * pg_spawn_report(). */
int pg_plan_spawn(pid_t *pid, pg_plan *plan, const char *file,
		  const posix_spawn_file_actions_t *actions, const posix_spawnattr_t *attr,
		  char *const argv[], char *const envp[]);

/* The Landlock envelope's helper program, where it is not installed yet
 * (pathgate run from a build tree: PATHGATE_LANDLOCK_EXEC).  NULL
 * restores the installed one.  Defined in landlock-spawn.c. */
void pg_landlock_set_helper(const char *path);

/* ---- issue 10: what a launcher holds around a launch (launch-guard.c) */

/* Add to P, as final read rules, every policy file a later launch may
 * load: SOURCE (the file this one loaded, may be NULL), ROOT/.pathgate
 * and each ancestor's, and any .pathgate beneath the root.  Their rules
 * name their file "<pathgate run: a policy file a later launch loads>".
 * 0, or -1 with errno set. */
int pg_policy_guard_files(pg_policy *p, const char *root, const char *source);

/* 0 when PLAN shows the child the host file PATH (its canonical name in
 * a read or write region), else -1 with errno (ENOENT: hidden, masked or
 * in the envelope's private /tmp). */
int pg_plan_shows_file(const pg_plan *plan, const char *path);

/* Create or truncate PATH for writing without following a symlink in
 * any component (openat2 RESOLVE_NO_SYMLINKS, else a component walk,
 * then O_NOFOLLOW): a link, a FIFO, a device or a file with another
 * hard link makes it fail (ELOOP, EEXIST), never redirects it.  The fd,
 * or -1 with errno set. */
int pg_create_guarded(const char *path, mode_t mode);

/* After the child of PLAN is gone: plan ROOT again (its identities
 * refreshed) and move aside, as NAME.pathgate-quarantine-PID in its own
 * directory (renameat2 RENAME_NOREPLACE beneath a parent opened without
 * following links), every name the judge now shows read-only or masked
 * where PLAN showed a writable view and laid nothing: what the child
 * created in a seam.  PG_AUDIT_KEEP only reports.  Returns a malloc'd
 * text, one line per name, "PATH\tMOVED-TO|kept|ERROR\tRULE\n" ("" when
 * the child made none), or NULL with errno set. */
#define PG_AUDIT_KEEP 0x1u

/* Launch PLAN although the guarantee SEAM names does not hold, the plan
 * and the report saying so (issue 10.7).  PG_SEAM_WALK_BOUND: the
 * planner's walk reached its bound (otherwise exec.sandbox-unavailable);
 * names past it are held in process only.  0, or -1 with EINVAL. */
#define PG_SEAM_WALK_BOUND 0x1u
int pg_plan_accept_seam(pg_plan *plan, unsigned seam);
char *pg_plan_audit(pg_root *root, const pg_plan *plan, unsigned flags);

#endif
