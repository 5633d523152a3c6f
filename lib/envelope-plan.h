/* envelope-plan.h - owns struct pg_plan, the planner's output, and the
 * calls the planner's modules share:
 *   plan-store.c  plan memory: mounts, notes, the index of mountpoints,
 *                 what a child sees at a path given the mounts so far;
 *   plan-walk.c   the judge-guided walk of the host that lays the mounts;
 *   envelope.c    the planner proper: base, walk, absent names, pins;
 *   plan-argv.c   the bwrap argument vector, the public view, lending.
 * The launcher (spawn.c) and the report read the struct; nothing else
 * does: the public view is pg_plan_argv() and the pg_plan_* getters.
 *
 * The planner decides nothing itself (design invariant 5, one judge):
 * every name's access comes from the root's judge (pg_policy_judge on the
 * root's policy: root-relative names beneath the root, host paths
 * elsewhere), every pin from pg_policy_pinned, every hard link from the
 * root's identity judge.  The planner only chooses the shape of the mount
 * that shows the child what the judge said. */
#ifndef PG_ENVELOPE_PLAN_H
#define PG_ENVELOPE_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "pathgate.h"
#include "policy.h"

/* What a child sees at a path. */
enum region {
	REGION_HIDDEN = 0, /* a mask, or bwrap's empty root */
	REGION_PRIVATE,    /* the child's own /tmp, /dev, /proc */
	REGION_RO,         /* a read-only view of the host */
	REGION_RW,         /* a writable view of the host */
};

enum mount_kind {
	MK_BASE,       /* --ro-bind / / or --bind / / */
	MK_PIN,        /* --ro-bind-fd D D beneath every other mount */
	MK_PSEUDO,     /* --dev /dev, --proc /proc, --tmpfs /tmp */
	MK_BIND,       /* write: --bind-fd */
	MK_ROBIND,     /* read: --ro-bind-fd */
	MK_MASK_DIR,   /* deny of a directory: --perms 0000|0111 --tmpfs */
	MK_MASK_FILE,  /* deny of anything else: --ro-bind /dev/null */
	MK_SYMLINK,    /* --symlink T P inside a tmpfs bwrap made */
	MK_PIN_RW,     /* --bind-fd D D right after its region (no host base) */
	MK_REMOUNT,    /* --remount-ro of a directory mask, after everything */
};

struct plan_mount {
	enum mount_kind kind;
	char       *dest;     /* canonical host path, owned */
	size_t      len;      /* strlen(dest) */
	char       *src;      /* owned, or NULL */
	char       *rule;     /* rendered rule, owned ("" for base mounts) */
	const char *op;       /* bwrap option, set when emitted */
	const char *why;      /* static */
	int         fd;       /* O_PATH descriptor lent to bwrap, owned, or -1 */
	bool        traverse; /* directory mask with a carve-out beneath: 0111 */
	bool        emitted;
	size_t      after;    /* MK_PIN_RW: the region mount it follows */
};

struct path_index {           /* plan-store.c: path -> position + 1 */
	size_t *slots;
	size_t  cap, used;
	bool    stale;
};

struct plan_note {            /* a skip, a seam, or a pin candidate */
	char *path, *rule, *why;
};

struct pg_plan {
	char   *root;             /* canonical host path of the workspace */
	size_t  root_len;
	char   *bwrap;
	char   *chdir;
	enum region base;

	char  **requested;        /* every rule, rendered */
	size_t  nrequested;

	struct plan_mount *mounts;
	size_t  nmounts, capmounts;
	struct path_index mount_ix;   /* region mounts by mountpoint, the top one */
	size_t *order;            /* argv order of mounts */
	size_t  norder;

	struct plan_note *skips, *seams;
	size_t  nskips, capskips, nseams, capseams;
	struct plan_note *pins;   /* directories the judge pins, laid last */
	size_t  npins, cappins;

	char  **args;             /* NULL-terminated bwrap argv (no command) */
	size_t  nargs, capargs;

	struct pg_mount *pub_mounts;
	struct pg_seam  *pub_skips, *pub_seams;

	size_t  npins_rw;

	unsigned glob_max_depth, glob_max_entries, glob_entries;
	bool    glob_depth_hit, glob_count_hit;
	bool    accept_walk_bound;  /* issue 10.7: the caller accepts the seam */
	bool    masks_read_only;  /* directory masks get --remount-ro */
	bool    oom;

	/* landlock.c's translation, when the Landlock envelope runs this
	 * plan (struct pg_landlock), freed with landlock_free; else NULL. */
	void   *landlock;
	void  (*landlock_free)(void *);
};

/* ------------------------------------------------------- plan-store.c */

void *pg_plan_grow(void *p, size_t *cap, size_t need, size_t size);
#define PLAN_GROW(arr, n, cap) \
	((arr) = pg_plan_grow((arr), &(cap), (n) + 1, sizeof(*(arr))))

/* True when PATH (PLEN bytes) is ANC (ALEN bytes) or lies beneath it
 * (both absolute, normalised). */
bool pg_covers_n(const char *anc, size_t alen, const char *path, size_t plen);
bool pg_covers(const char *anc, const char *path);
unsigned pg_path_depth(const char *p);
char *pg_parent_of(const char *path);

/* A skip (SEAM false) or a seam; records oom on failure. */
int  pg_plan_note(struct pg_plan *pl, bool seam, const char *path,
		  const char *rule, const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* Append a mount; takes DEST, SRC (may be NULL) and FD (may be -1). */
struct plan_mount *pg_plan_add_mount(struct pg_plan *pl, enum mount_kind kind,
				     char *dest, char *src, int fd, const char *rule);
bool pg_plan_is_region_mount(enum mount_kind k);
/* The region mount on top at PATH or nearest above it, or (size_t)-1;
 * among the first N mounts with pg_plan_region_mount. */
size_t pg_plan_nearest_mount(const struct pg_plan *pl, const char *path);
size_t pg_plan_region_mount(const struct pg_plan *pl, const char *path, size_t n);
/* What a child sees at PATH given the mounts laid so far. */
enum region pg_plan_region_at(const struct pg_plan *pl, const char *path);
/* True when PATH lies in a tmpfs bwrap made (a name made there costs the
 * host nothing). */
bool pg_plan_in_made_tmpfs(const struct pg_plan *pl, const char *path);
const char *pg_region_name(enum region r);
/* Re-index after the mounts were reordered. */
void pg_plan_reindex(struct pg_plan *pl);
/* DIR (absolute, or relative to the working directory) opened O_PATH,
 * refusing a symlink in any component: openat2, else a walk one
 * component at a time.  The fd, or -1 with errno set. */
int pg_open_dir_nofollow(const char *dir);

/* /tmp itself, /dev and /proc belong to the envelope. */
bool pg_envelope_owned(const char *path);

/* -------------------------------------------------------- plan-walk.c */

struct pg_root;

/* Walk the host from "/" wherever the root's policy may decide, judge
 * every name met with the root's judge and lay the mount that shows the
 * child that decision; directories the judge pins are recorded in
 * pl->pins.  The root's lock is held by the caller (read). */
void pg_plan_walk(struct pg_plan *pl, struct pg_root *root);

/* The judge, for a host path: beneath the root as the root-relative name
 * pg_check judges, elsewhere as the host path. */
enum pg_access pg_plan_judge(const struct pg_plan *pl, const struct pg_root *root,
			     const char *path, struct pg_judgement *j);

/* ------------------------------------------------------- plan-alias.c */

/* Mask every other host path to the workspace (a bind mount of it, or of
 * a part of it, elsewhere) that the child would see; DEV is the
 * workspace's device.  Reads /proc/self/mountinfo. */
void pg_plan_mask_aliases(struct pg_plan *pl, dev_t dev);

/* -------------------------------------------------------- plan-argv.c */

/* Order the mounts into bwrap's argument vector and publish the view. */
void pg_plan_assemble(struct pg_plan *pl);
void pg_plan_publish(struct pg_plan *pl);

#endif
