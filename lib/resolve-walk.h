/* resolve-walk.h - what resolve.c takes from resolve-walk.c: the
 * component walk and the small pieces both paths share.  Nothing outside
 * resolution includes this. */
#ifndef PG_RESOLVE_WALK_H
#define PG_RESOLVE_WALK_H

#include <stdbool.h>

#include "resolve.h"

/* Resolve RAW for OP by the component walk (the slow path of
 * pg_resolve_locked; MUST_DIR: RAW ended in '/'). */
int  pg_resolve_walk(pg_root *root, const char *raw, enum pg_op op, unsigned how,
		     struct pg_res *res, bool must_dir);

/* RES with nothing held. */
void pg_res_init(struct pg_res *res);
/* Refuse DISPLAY as workspace.path-escape, saying WHY. */
int  pg_res_escape(const char *display, const char *why);
/* True when STX lies on another mount than the root (and the root does
 * not allow crossing). */
bool pg_res_crosses_mount(const pg_root *root, const struct statx *stx);

static inline bool pg_is_dotdot(const char *c, size_t len)
{
	return len == 2 && c[0] == '.' && c[1] == '.';
}

#endif
