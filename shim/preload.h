/* preload.h - owns the guard of libpathgate-preload.so: its configuration
 * (PATHGATE_ROOT, PATHGATE_POLICY, PATHGATE_ENVELOPE), the held root, the per-thread
 * re-entrancy depth, the real libc functions, and where a path argument
 * lands (inside the root, or a host path judged by the absolute rules).
 * PATHGATE_POLICY_TEXT carries the policy's text where its file is out of
 * sight.  preload-open.c, -stat.c, -names.c, -attr.c, -dir.c, -exec.c,
 * -walk.c (walkers, glob) and -spawn.c (posix_spawn's file actions) hold
 * the interposers; preload-more.c the rest of the path-taking calls
 * (tests/preload-symbols.txt).
 *
 * Not a boundary: a program that makes raw syscalls, or a static binary,
 * never meets it.  It gives the confined program precise, ordinary errors
 * (EACCES, EROFS, EBUSY) for what the envelope holds anyway. */
#ifndef PG_PRELOAD_H
#define PG_PRELOAD_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

#include "pathgate.h"

/* The guard's own functions stay inside this object: only the
 * interposed libc names are exported. */
#pragma GCC visibility push(hidden)

/* Enter the guard for one call: true when the call must be judged (the
 * preload is configured and this thread is not already inside it, e.g.
 * in the library's own libc calls).  Every true is paired with
 * pl_leave(), which keeps errno. */
bool pl_enter(void);
void pl_leave(void);

/* The next definition of NAME (libc's), looked up once into *SLOT. */
void *pl_real(const char *name, void **slot);
#define PL_REAL(fn) \
	((__typeof__(&fn))pl_real(#fn, (void **)&pl_real_##fn))
#define PL_DECLARE_REAL(fn) static __typeof__(&fn) pl_real_##fn

enum pl_where {
	PL_PASS,     /* nothing to judge (an fd operation): call libc as is */
	PL_INSIDE,   /* beneath the root: the library acts or judges */
	PL_OUTSIDE,  /* a host path: the policy's absolute rules judge */
};

struct pl_name {
	enum pl_where where;
	pg_root      *root;              /* with PL_INSIDE and PL_OUTSIDE */
	char          rel[PG_PATH_MAX + 2]; /* PL_INSIDE: root-relative ("." for the root) */
	char          abs[PATH_MAX];     /* lexically normal absolute name */
	int           held;              /* a /dev/fd/N-style name: N's O_ACCMODE; else -1 */
	bool          nofollow;          /* AT_SYMLINK_NOFOLLOW: a last symlink is itself the object */
	bool          cached;            /* the directory fd's name came from preload-cache.c */
};

/* Where PATH, relative to DIRFD (AT_FDCWD: the real cwd), lands.
 * Returns 0, or -1 with errno set when it cannot be known (the call is
 * then refused: a missing guarantee is a refusal). */
int pl_locate(int dirfd, const char *path, int at_flags, struct pl_name *n);
/* An AT_FLAGS bit for pl_locate: the name only, for pl_judge_name (never
 * re-opens the root, allocates nothing: safe in a vfork child). */
#define PL_LOCATE_NAME_ONLY 0x40000000
/* AT_FLAGS bits for pl_locate on a directory fd's name: PL_LOCATE_CACHED
 * may take it from preload-cache.c (N->cached says it did), else reads
 * /proc/self/fd/N and remembers it; PL_LOCATE_FILL always reads it and
 * remembers it.  A cached name may be stale: only a caller that acts
 * through the library by name and then checks the program's own call
 * reaches the same object may pass PL_LOCATE_CACHED (pl_cached_ok). */
#define PL_LOCATE_CACHED    0x20000000
#define PL_LOCATE_FILL      0x10000000

/* The bits above are the guard's own: a program's flags never carry
 * them into pl_locate (PL_AT strips them). */
#define PL_LOCATE_INTERNAL  (PL_LOCATE_NAME_ONLY | PL_LOCATE_CACHED | PL_LOCATE_FILL)
#define PL_AT(flags)        ((flags) & ~PL_LOCATE_INTERNAL)

/* preload-cache.c: directory fd -> the absolute name last seen for it. */
bool pl_dirs_get(int fd, char *buf, size_t size);
void pl_dirs_put(int fd, const char *name);
void pl_dirs_forget(int fd);
void pl_dirs_reset_in_child(void);
/* True when N, located with a cached name, lies in the root and names
 * no held descriptor: the only case a cached name may be acted on. */
bool pl_cached_ok(const struct pl_name *n);

/* Judge N for OP: inside the root with pg_check, outside by the absolute
 * rules (deny: EACCES; read for a write: EROFS).  A /dev/fd/N-style name
 * asking no more than descriptor N already allows is not judged: it gives
 * nothing the program does not hold.  0 or -1 with errno. */
int pl_judge(const struct pl_name *n, enum pg_op op);
/* After a host name N was opened for reading as FD: judge the object it
 * reached (a host symlink may lead into the root).  0, or -1 with errno
 * (the caller closes FD). */
int pl_judge_landing(const struct pl_name *n, int fd);
/* True when the last library refusal, on N for OP (N may be NULL), is not
 * the last word: workspace.read-only inside pathgate run's envelope (its
 * mounts answer), or a name leaving the root through an absolute symlink
 * that the absolute rules allow where it lands.  The caller then makes
 * the call with libc. */
bool pl_kernel_answers(const struct pl_name *n, enum pg_op op);
/* The absolute rules alone, allocating nothing (safe after vfork). */
int pl_judge_name(const struct pl_name *n, enum pg_op op);

/* Log a refusal to stderr when PATHGATE_LOG is set (keeps errno). */
void pl_log_refusal(const char *call, const char *path);

/* For the interposers.  pl_refused logs and returns -1; pl_lib_result
 * passes a library call's result through, logging a refusal;
 * pl_judge_at locates and judges (0 to go on, -1 refused); pl_judge_op
 * does the same as a whole guarded call (0 when the guard is not
 * entered).  The operation of open(2) flags is the library's
 * (pg_op_for_open_flags). */
int        pl_refused(const char *call, const char *path);
int        pl_lib_result(int rc, const char *call, const char *path);
/* A library call's result on N for OP, or (when pl_kernel_answers) the
 * same call made by libc, REAL_CALL, evaluated only then. */
#define pl_lib_or_kernel(rc, n, op, call, path, real_call) ({           \
	int pl_rc_ = (rc);                                               \
	pl_rc_ < 0 && pl_kernel_answers(n, op) ? (real_call)             \
					       : pl_lib_result(pl_rc_, call, path); })
int        pl_judge_at(int dirfd, const char *path, int at_flags, enum pg_op op, const char *call);
int        pl_judge_op(int dirfd, const char *path, int at_flags, enum pg_op op, const char *call);

/* Children keep the preload: ENVP with LD_PRELOAD and PATHGATE_* (the
 * envelope flag as this process has it) put back
 * into OUT (room for env_count(ENVP) + PL_ENV_EXTRA pointers); BUF (PL_ENV_BUF
 * bytes) holds a merged LD_PRELOAD.  Allocates nothing (vfork). */
#define PL_ENV_EXTRA 8
#define PL_ENV_BUF   (PATH_MAX * 2 + 16)
size_t pl_env_count(char *const envp[]);
void   pl_env_inject(char *const envp[], char **out, char *buf);
/* The same for environ itself (system, popen): setenv what is missing. */
void   pl_environ_ensure(void);
/* True when the preload is active (configured), so children need it. */
bool   pl_active(void);
/* PATH as the child of a posix_spawn with file-action LIST meets it,
 * absolute, into ABS (SIZE bytes): relative to the last chdir action's
 * directory, else to the working directory.  0, or an error number
 * (EACCES: the child's directory is not known here) (preload-spawn.c). */
int    pl_spawn_absolute(const void *list, const char *path, char *abs, size_t size);

#pragma GCC visibility pop

/* glibc symbols no public header declares. */
int __open_2(const char *path, int flags);
int __open64_2(const char *path, int flags);
int __openat_2(int dirfd, const char *path, int flags);
int __openat64_2(int dirfd, const char *path, int flags);
int __xstat(int ver, const char *path, struct stat *st);
int __lxstat(int ver, const char *path, struct stat *st);
int __fxstatat(int ver, int dirfd, const char *path, struct stat *st, int flags);
int __xstat64(int ver, const char *path, struct stat64 *st);
int __lxstat64(int ver, const char *path, struct stat64 *st);
int __fxstatat64(int ver, int dirfd, const char *path, struct stat64 *st, int flags);
int newfstatat(int dirfd, const char *path, struct stat *st, int flags);

#endif
