/* cases.h - the escape catalogue: each case is a tree, a policy, one call
 * of the API and the answer it must get (a refusal name and errno, a plain
 * errno, or success), the same on both resolvers. */
#ifndef PG_ESCAPE_CASES_H
#define PG_ESCAPE_CASES_H

#include <stddef.h>

enum esc_op {
	OP_OPEN, OP_STAT, OP_LSTAT, OP_MKDIR, OP_MKDIR_ALL, OP_UNLINK, OP_RMDIR,
	OP_RENAME, OP_LINK, OP_SYMLINK, OP_READLINK, OP_CHMOD, OP_TRUNCATE,
	OP_OPENDIR, OP_WRITE_FILE, OP_CHECK_READ, OP_CHECK_WRITE, OP_CHECK_CREATE,
	OP_CHECK_DELETE,
};

/* want_name: the refusal name, NULL for a plain errno (or success), or
 * ANY_NAME when any record is acceptable (still identical across the two
 * resolvers). */
#define ANY_NAME ((const char *)1)

struct esc_case {
	const char *name;
	const char *tree;     /* adv_apply spec on top of the standard tree */
	const char *policy;   /* NULL: the standard policy */
	unsigned    root_flags;
	const char *between;  /* applied after a first call (pg_stat of a); a line
			       * "#refresh" then calls pg_root_refresh */
	enum esc_op op;
	const char *a, *b;    /* paths (b: rename/link destination, symlink's linkpath) */
	int         flags;    /* open flags, rename flags, stat at_flags */
	int         want_err; /* 0: success */
	const char *want_name;
};

/* The standard policy of the catalogue. */
extern const char esc_standard_policy[];

/* All cases (static table plus generated ones); *N receives the count. */
const struct esc_case *esc_cases(size_t *n);

const char *esc_op_name(enum esc_op op);

/* Cases whose answer the library does not give yet, with the reason (see
 * cases.c).  Only the answer is excused: a known case that escapes, changes
 * a refused tree, leaks an fd or splits the resolvers still fails. */
const char *esc_known_failure(const char *name);

#endif
