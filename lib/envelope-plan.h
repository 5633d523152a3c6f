/* envelope-plan.h - owns struct pg_plan, the planner's output, shared by
 * the planner (envelope.c) and the launcher (spawn.c).  Nothing else reads
 * it: the public view is pg_plan_argv() and the pg_plan_* getters. */
#ifndef PG_ENVELOPE_PLAN_H
#define PG_ENVELOPE_PLAN_H

#include <stdbool.h>
#include <stddef.h>

#include "pathgate.h"

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

struct plan_entry {           /* one rule, made absolute */
	char          *path;
	size_t         len;       /* strlen(path) */
	size_t         next;      /* the previous entry with this path, + 1; 0: none */
	char          *rule;      /* rendered */
	enum pg_access access;
	bool           final;
	bool           from_glob;
	unsigned       depth;
};

struct folded_name;           /* envelope.c: a name and its collision class */

struct path_index {           /* envelope.c: path -> position + 1 */
	size_t *slots;
	size_t  cap, used;
	bool    stale;
};

struct plan_note {            /* a skip or a seam */
	char *path, *rule, *why;
};

struct pg_plan {
	char   *root;             /* canonical host path of the workspace */
	char   *bwrap;
	char   *chdir;
	enum region base;

	char  **requested;        /* every rule, rendered */
	size_t  nrequested;

	struct plan_entry *entries;
	size_t  nentries, capentries;
	struct path_index entry_ix;   /* entries by path */

	struct plan_mount *mounts;
	size_t  nmounts, capmounts;
	struct path_index mount_ix;   /* region mounts by mountpoint, the top one */
	size_t *order;            /* argv order of mounts */
	size_t  norder;

	struct plan_note *skips, *seams;
	size_t  nskips, capskips, nseams, capseams;
	struct plan_note *seeds;  /* absent read/deny names that still pin */
	size_t  nseeds, capseeds;

	char  **args;             /* NULL-terminated bwrap argv (no command) */
	size_t  nargs, capargs;

	struct pg_mount *pub_mounts;
	struct pg_seam  *pub_skips, *pub_seams;

	size_t  npins_rw;

	struct folded_name *fold_names;  /* the folded listing of fold_dir */
	size_t  fold_n;
	char   *fold_dir;

	unsigned glob_max_depth, glob_max_entries, glob_entries;
	bool    glob_depth_hit, glob_count_hit;
	bool    masks_read_only;  /* directory masks get --remount-ro */
	bool    oom;
};

#endif
