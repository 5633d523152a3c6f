/* landlock.h - owns the Landlock envelope: the second envelope, for hosts
 * where bubblewrap cannot make a user namespace.  It takes every decision
 * from the plan the one judge made (envelope-plan.h): each region mount
 * becomes a Landlock grant, and where a narrower mount lies beneath a
 * wider region the region is granted entry by entry instead (a "split"
 * directory, which then cannot get new names: a named seam).
 *   landlock-plan.c   the translation: grants, splits, seams, the ruleset
 *                     fd (built here, in the caller, so every error is
 *                     known before anything runs);
 *   landlock-spawn.c  the launch through pathgate-landlock-exec, which
 *                     sets no_new_privs, drops capabilities, restricts
 *                     itself, installs the seccomp filter and execs;
 *                     and the report's Landlock section;
 *   landlock-seccomp.c  this envelope's seccomp floor.
 * Nothing here judges a name. */
#ifndef PG_LANDLOCK_H
#define PG_LANDLOCK_H

#include <pthread.h>
#include <spawn.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "pathgate.h"

struct pg_plan;

/* One grant of the ruleset, for the plan's view and the report. */
struct pg_ll_grant {
	char       *path;    /* host path, owned */
	uint64_t    access;  /* LANDLOCK_ACCESS_FS_* */
	char       *rule;    /* rendered rule, owned ("" for the envelope's own) */
	const char *why;     /* static */
	char        text[96];/* access in words, for the public view */
};

struct pg_landlock {
	int       abi;            /* the kernel's Landlock ABI, 0 when absent */
	uint64_t  handled_fs, handled_net, scoped;
	bool      accept_weaker;  /* PG_PLAN_ACCEPT_WEAKER */
	int       ruleset;        /* the ruleset fd, owned, or -1 */
	const char *why;          /* why this envelope cannot run, or NULL */
	char      whybuf[512];
	char     *weaker;         /* the first weaker-than-bwrap item, or NULL */
	size_t    nweaker;
	struct pg_ll_grant *grants;
	size_t    ngrants, capgrants;
	struct pg_grant *pub;     /* the public view */
	unsigned  entries;        /* entries listed for splits */
	size_t    nsplits;
	bool      oom;
	char      chosen[256];    /* why this envelope was chosen */
};

/* The kernel's Landlock ABI (probed once), or 0 with *WHY set. */
int pg_landlock_abi(const char **why);

/* Translate PL (built for ROOT, whose judge names the seams' rules, or
 * NULL) into a Landlock ruleset; attaches the result to PL (freed with
 * it).  FLAGS: PG_PLAN_ACCEPT_WEAKER.  CHOSEN says why this envelope
 * runs, for the report.  Returns 0, or -1 with errno set on allocation
 * failure; an envelope that cannot run here is recorded (why), not an
 * error. */
struct pg_root;
int pg_landlock_translate(struct pg_plan *pl, struct pg_root *root, unsigned flags,
			  const char *chosen);

/* Grant read on the host file HOST (pathgate run's preload, which the
 * child loads from where it lies: there are no mounts).  0 or -1. */
int pg_landlock_lend(struct pg_plan *pl, const char *host, const char *why);

/* Launch FILE under PL's Landlock envelope: pg_spawn's contract. */
int pg_landlock_spawn(pid_t *pid, struct pg_plan *pl, const char *file,
		      const posix_spawn_file_actions_t *actions,
		      const posix_spawnattr_t *attr,
		      char *const argv[], char *const envp[]);

/* The helper program (PG_LANDLOCK_EXEC unless set here; tests point it at
 * the build tree).  NULL restores the default. */
void pg_landlock_set_helper(const char *path);
const char *pg_landlock_helper(void);

/* The lock every launch that lends descriptors takes (bwrap's and this
 * envelope's), so that no launch inherits another's descriptors. */
pthread_mutex_t *pg_launch_fd_lock(void);

/* A fresh memfd holding this envelope's seccomp filter (BPF) for ABI,
 * or -1 with errno set. */
int pg_landlock_seccomp_fd(int abi);
/* The calls it refuses, as the report names them (NULL-terminated). */
extern const char *const pg_landlock_seccomp_names[];

#endif
