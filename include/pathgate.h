/* pathgate.h - the whole public API of libpathgate.
 *
 * libpathgate resolves every workspace operation beneath a pre-opened root
 * directory and judges it against a policy of write / read / deny rules.
 * Every call returns like its POSIX twin (an fd or 0; else -1 with errno
 * set) and records why it refused; pg_last_refusal() gives the details.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef PATHGATE_H
#define PATHGATE_H

#include <dirent.h>
#include <spawn.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The library is built with hidden visibility; what this header declares
 * is its exported API (the version script then names each symbol). */
#pragma GCC visibility push(default)

#define PATHGATE_VERSION_MAJOR 0
#define PATHGATE_VERSION_MINOR 1
#define PATHGATE_VERSION_PATCH 0

/* Limits every path argument must respect (workspace.bad-path otherwise). */
#define PG_PATH_MAX 4000
#define PG_NAME_MAX 255

/* ---------------------------------------------------------------- policy */

typedef struct pg_policy pg_policy;

enum pg_access { PG_DENY = 0, PG_READ = 1, PG_WRITE = 2 };

pg_policy *pg_policy_new(void);
/* Add one rule; path relative to the workspace root, or absolute (a host
 * path), or a glob ('*', '?', '**').  Never final; see pg_policy_add_final. */
int  pg_policy_add(pg_policy *p, enum pg_access access, const char *path);
/* A final rule (deny!, read!): no deeper rule can widen it. */
int  pg_policy_add_final(pg_policy *p, enum pg_access access, const char *path);
/* Parse the line format of the policy file ("write .", "deny! .ssh", ...).
 * On error nothing is added; pg_last_refusal() names policy.invalid and the
 * line. */
int  pg_policy_parse(pg_policy *p, const char *text, size_t len);
int  pg_policy_load(pg_policy *p, const char *file);
void pg_policy_free(pg_policy *p);
size_t pg_policy_rule_count(const pg_policy *p);

/* ------------------------------------------------------------------ root */

typedef struct pg_root pg_root;

/* Root flags. */
#define PG_ROOT_XDEV        0x1u /* allow crossing mount points beneath the root */
#define PG_ROOT_NO_OPENAT2  0x2u /* use the O_PATH|O_NOFOLLOW walk, never openat2 */
#define PG_ROOT_HIGH_FD     0x4u /* hold the root's fd above the numbers programs use */

/* Open DIR as a workspace root judged by POLICY (copied; NULL means
 * "write ."). */
pg_root *pg_root_open(const char *dir, const pg_policy *policy, unsigned flags);
void     pg_root_close(pg_root *root);
/* Re-read what the policy's names are on disk now (denied symlinks'
 * targets, denied files' identities).  Safe alongside other calls. */
int      pg_root_refresh(pg_root *root);
/* The byte bound of pg_write_file and the streaming writer (default 64 MiB). */
int      pg_root_set_write_limit(pg_root *root, uint64_t bytes);
uint64_t pg_root_write_limit(const pg_root *root);
/* The canonical host path of the root, as opened. */
const char *pg_root_path(const pg_root *root);
/* Non-zero when this root resolves with openat2 (0: the fallback walk). */
int      pg_root_uses_openat2(const pg_root *root);

/* ------------------------------------------------------------ operations */

int     pg_open(pg_root *root, const char *path, int flags, mode_t mode);
int     pg_stat(pg_root *root, const char *path, struct stat *st, int at_flags);
int     pg_mkdir(pg_root *root, const char *path, mode_t mode);
int     pg_mkdir_all(pg_root *root, const char *path, mode_t mode);
int     pg_unlink(pg_root *root, const char *path);
int     pg_rmdir(pg_root *root, const char *path);
int     pg_rename(pg_root *root, const char *from, const char *to, unsigned flags);
int     pg_link(pg_root *root, const char *from, const char *to);
int     pg_symlink(pg_root *root, const char *target, const char *linkpath);
ssize_t pg_readlink(pg_root *root, const char *path, char *buf, size_t size);
int     pg_chmod(pg_root *root, const char *path, mode_t mode);
int     pg_truncate(pg_root *root, const char *path, off_t length);
DIR    *pg_opendir(pg_root *root, const char *path);

/* Atomic, bounded replacement of PATH's content.  MODE applies to a new
 * file; an existing target keeps its mode. */
int     pg_write_file(pg_root *root, const char *path, const void *buf, size_t len, mode_t mode);

/* The streaming form of pg_write_file. */
typedef struct pg_atomic pg_atomic;
pg_atomic *pg_write_begin(pg_root *root, const char *path, mode_t mode);
ssize_t    pg_write_chunk(pg_atomic *w, const void *buf, size_t len);
int        pg_write_commit(pg_atomic *w);   /* frees w, whatever it returns */
void       pg_write_abort(pg_atomic *w);    /* frees w; the target is untouched */

/* Prefix of every temporary name the writer makes (recognisable after a
 * crash; see pg_clear_temporaries). */
#define PG_TMP_PREFIX ".pathgate-tmp-"
/* Remove leftover temporaries in directory PATH; returns how many. */
int     pg_clear_temporaries(pg_root *root, const char *path);

/* -------------------------------------------------------------- judging */

enum pg_op { PG_OP_READ = 0, PG_OP_WRITE = 1, PG_OP_CREATE = 2, PG_OP_DELETE = 3 };

/* The refusal a program can switch on; the stable names of the table in
 * libpathgate(3) are pg_refusal_name(code).  New codes are only ever
 * appended. */
enum pg_refusal_code {
	PG_REFUSAL_NONE = 0,            /* not refused                           */
	PG_REFUSAL_PATH_ESCAPE,         /* workspace.path-escape     EACCES      */
	PG_REFUSAL_DENIED,              /* workspace.denied          EACCES      */
	PG_REFUSAL_READ_ONLY,           /* workspace.read-only       EROFS       */
	PG_REFUSAL_PINNED,              /* workspace.pinned          EBUSY       */
	PG_REFUSAL_DANGLING_LINK,       /* workspace.dangling-link   ENOENT      */
	PG_REFUSAL_BAD_PATH,            /* workspace.bad-path        EINVAL ...  */
	PG_REFUSAL_EXHAUSTED,           /* exhausted                 EFBIG       */
	PG_REFUSAL_POLICY_INVALID,      /* policy.invalid            EINVAL      */
	PG_REFUSAL_SANDBOX_UNAVAILABLE, /* exec.sandbox-unavailable  ENOSYS      */
};

struct pg_verdict {
	int         allowed;   /* 1 allowed, 0 refused */
	const char *name;      /* refusal name, NULL when allowed */
	int         err;       /* errno of the refusal, 0 when allowed */
	char        rule[256]; /* the deciding rule, rendered, "" when none */
	enum pg_refusal_code code; /* the refusal's code, PG_REFUSAL_NONE when none
	                            * (appended in 0.1.0: libpathgate.so.1) */
};

/* Judge PATH for OP without acting on it: resolve it as the operation
 * would, then apply the policy.  Returns 0 when allowed, -1 when refused
 * (errno and pg_last_refusal() set). */
int     pg_check(pg_root *root, const char *path, enum pg_op op, struct pg_verdict *out);

/* The operation pg_open judges open(2) FLAGS as: CREATE with O_CREAT;
 * WRITE with O_WRONLY, O_RDWR, O_TRUNC or O_TMPFILE; else READ. */
enum pg_op pg_op_for_open_flags(int flags);

#define PG_BATCH_NO_URING 0x1u /* judge one path at a time, no io_uring */
/* Judge N paths; verdicts identical to N calls of pg_check.  Returns the
 * number of refused paths, or -1 on error. */
ssize_t pg_check_batch(pg_root *root, const char *const *paths, size_t n,
                       enum pg_op op, struct pg_verdict *out, unsigned flags);

/* ------------------------------------------------------------- refusals */

/* NAME, PATH and RULE point into a per-thread record: valid until this
 * thread's next call into the library.  CODE was appended in 0.1.0. */
struct pg_refusal {
	const char *name;
	int err;
	const char *path;
	const char *rule;
	enum pg_refusal_code code;
};
/* This thread's last refusal; name NULL if the last call was not refused. */
const struct pg_refusal *pg_last_refusal(void);

/* ------------------------------------------------------------- envelope */

typedef struct pg_plan pg_plan;

struct pg_mount {
	const char *op;      /* the bwrap option, e.g. "--ro-bind" */
	const char *src;     /* source, or NULL */
	const char *dest;    /* mountpoint (host path, identical inside) */
	const char *rule;    /* the rule that caused it, rendered */
	const char *why;     /* "write", "read", "mask", "pin", "base", ... */
};

struct pg_seam {
	const char *path;    /* host path */
	const char *rule;    /* the rule */
	const char *why;     /* e.g. "absent denied name in a writable region: held in process only" */
};

pg_plan    *pg_plan_build(pg_root *root, unsigned flags);
void        pg_plan_free(pg_plan *plan);
/* The bwrap argument vector, NULL-terminated, argv[0] the bwrap path. */
char *const *pg_plan_argv(const pg_plan *plan);
size_t      pg_plan_mount_count(const pg_plan *plan);
const struct pg_mount *pg_plan_mount(const pg_plan *plan, size_t i);
size_t      pg_plan_seam_count(const pg_plan *plan);
const struct pg_seam *pg_plan_seam(const pg_plan *plan, size_t i);
/* Rules that laid nothing, and why; NULL past the end. */
size_t      pg_plan_skip_count(const pg_plan *plan);
const struct pg_seam *pg_plan_skip(const pg_plan *plan, size_t i);

/* posix_spawn's contract, plus the root: the child runs under bwrap in the
 * envelope built from the root's policy.  Refuses with
 * exec.sandbox-unavailable when the envelope cannot be built. */
int pg_spawn(pid_t *pid, pg_root *root, const char *file,
             const posix_spawn_file_actions_t *actions, const posix_spawnattr_t *attr,
             char *const argv[], char *const envp[]);

/* The requested-versus-applied report of this thread's last pg_spawn (or
 * plan), a JSON document owned by the library until the next call. */
const char *pg_spawn_report(void);

/* ---------------------------------------------------- envelope choice */

/* Which envelope runs a child.  AUTO: bwrap where it can build its
 * namespaces, else Landlock (see pg_spawn(3) for what each holds). */
enum pg_envelope { PG_ENVELOPE_AUTO = 0, PG_ENVELOPE_BWRAP = 1, PG_ENVELOPE_LANDLOCK = 2 };

/* pg_plan_build flags (none: AUTO). */
#define PG_PLAN_BWRAP         0x1u /* the namespace envelope only */
#define PG_PLAN_LANDLOCK      0x2u /* the Landlock envelope only */
#define PG_PLAN_ACCEPT_WEAKER 0x4u /* let Landlock run where it holds less than bwrap would */
#define PG_SPAWN_ACCEPT_WEAKER PG_PLAN_ACCEPT_WEAKER

struct pg_spawn_options {
	size_t           size;     /* sizeof(struct pg_spawn_options) */
	enum pg_envelope envelope;
	unsigned         flags;    /* PG_SPAWN_ACCEPT_WEAKER */
};

/* pg_spawn with a choice of envelope (OPTS NULL: as pg_spawn, AUTO). */
int pg_spawn2(pid_t *pid, pg_root *root, const char *file,
	      const posix_spawn_file_actions_t *actions, const posix_spawnattr_t *attr,
	      char *const argv[], char *const envp[], const struct pg_spawn_options *opts);

/* The envelope PLAN would run under. */
enum pg_envelope pg_plan_envelope(const pg_plan *plan);

/* The Landlock envelope's grants (none for bwrap). */
struct pg_grant {
	const char *path;    /* host path */
	const char *access;  /* "read,list,execute", "read,list,...,create,remove", ... */
	const char *rule;    /* the rule, rendered ("" for the envelope's own) */
	const char *why;     /* "read", "write", "split: listing only", "lent", ... */
};
size_t pg_plan_grant_count(const pg_plan *plan);
const struct pg_grant *pg_plan_grant(const pg_plan *plan, size_t i);

/* ------------------------------------------------- more operations */

/* The library's version, "MAJOR.MINOR.PATCH" as PATHGATE_VERSION_*. */
const char *pg_version(void);
/* The stable name of CODE ("workspace.denied"); NULL for PG_REFUSAL_NONE
 * and codes this library does not know. */
const char *pg_refusal_name(enum pg_refusal_code code);

/* Parse the embedded default policy (pathgate policy --default) into P. */
int     pg_policy_parse_default(pg_policy *p);

/* utimensat(2) beneath the root: TIMES as utimensat's (NULL: now);
 * AT_FLAGS 0 or AT_SYMLINK_NOFOLLOW.  Judged as a write. */
int     pg_utimens(pg_root *root, const char *path, const struct timespec times[2],
                   int at_flags);
/* fchownat(2) beneath the root; (uid_t)-1 / (gid_t)-1 leave one alone;
 * AT_FLAGS 0 or AT_SYMLINK_NOFOLLOW.  Judged as a write. */
int     pg_chown(pg_root *root, const char *path, uid_t uid, gid_t gid, int at_flags);

/* Remove PATH and everything beneath it, by descriptor: symlinks are
 * removed, never followed; every name is judged for a delete; a pinned
 * directory is refused; a mount point is not crossed.  An absent PATH is
 * success.  Stops at the first refusal or error. */
int     pg_remove_all(pg_root *root, const char *path);

/* Read regular file PATH whole into BUF (SIZE bytes); a file of more than
 * SIZE bytes is refused with exhausted (EFBIG) and nothing is returned.
 * Returns the length read. */
ssize_t pg_read_file(pg_root *root, const char *path, void *buf, size_t size);
/* The same into a malloc'd buffer *OUT (NUL-terminated, free(3) it) of
 * at most LIMIT bytes (0: the root's write limit). */
ssize_t pg_read_file_alloc(pg_root *root, const char *path, void **out, size_t limit);

/* Open directory PATH of ROOT as a root of its own (like Go's
 * os.Root.OpenRoot): it holds the directory by descriptor, and its policy
 * is ROOT's, rebased, so it judges every object as ROOT would.  FLAGS
 * are PG_ROOT_*; PG_ROOT_XDEV only when ROOT has it.  Independent of
 * ROOT afterwards: either may be closed first. */
pg_root *pg_root_open_at(pg_root *root, const char *path, unsigned flags);

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif
#endif /* PATHGATE_H */
