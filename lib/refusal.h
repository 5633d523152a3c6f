/* refusal.h - owns the error model: the stable refusal names, their errnos,
 * and the per-thread record behind pg_last_refusal().  Every refusal in the
 * library goes through pg_refuse(), so name, errno and record never
 * disagree. */
#ifndef PG_REFUSAL_H
#define PG_REFUSAL_H

#include <stddef.h>

enum pg_code {
	PG_R_NONE = 0,
	PG_R_PATH_ESCAPE,        /* workspace.path-escape     EACCES */
	PG_R_DENIED,             /* workspace.denied          EACCES */
	PG_R_READ_ONLY,          /* workspace.read-only       EROFS  */
	PG_R_PINNED,             /* workspace.pinned          EBUSY  */
	PG_R_DANGLING,           /* workspace.dangling-link   ENOENT */
	PG_R_BAD_PATH,           /* workspace.bad-path        EINVAL / ENAMETOOLONG */
	PG_R_EXHAUSTED,          /* exhausted                 EFBIG / EAGAIN */
	PG_R_POLICY_INVALID,     /* policy.invalid            EINVAL */
	PG_R_SANDBOX_UNAVAILABLE,/* exec.sandbox-unavailable  ENOSYS */
};

/* The stable name of CODE ("workspace.denied"), NULL for PG_R_NONE. */
const char *pg_code_name(enum pg_code code);
/* The default errno of CODE. */
int pg_code_errno(enum pg_code code);

/* Record a refusal for this thread, set errno to ERR (0: the code's default)
 * and return -1.  PATH and RULE are copied (truncated if over-long); either
 * may be NULL. */
int pg_refuse(enum pg_code code, int err, const char *path, const char *rule);
/* Like pg_refuse, the rule rendered from a printf format. */
int pg_refusef(enum pg_code code, int err, const char *path, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* Forget this thread's last refusal: every public entry point calls this
 * first, so a call that succeeds (or fails with a plain errno) leaves
 * pg_last_refusal()->name NULL. */
void pg_refusal_clear(void);

/* The code of this thread's last refusal (PG_R_NONE when none). */
enum pg_code pg_refusal_code(void);

#endif
