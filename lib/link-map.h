/* link-map.h - owns the search for a file's other links: a map, built
 * lazily by one scan of the workspace, of every multi-linked file whose
 * name the policy refuses something (a literal rule, a glob, a case
 * variant, a file beneath a denied directory: whatever the judge says),
 * with the verdict on an object by the strictest of its names.
 *
 * The scan costs one readdir of every directory beneath the root and one
 * judgement per name; only refused names are stat'ed.  It runs the first
 * time an operation reaches a multi-linked file, and again only when such
 * a file's links may have changed since the last scan began: its ctime is
 * not older than the scan's start, and no scan since has seen it with
 * that ctime.  link(2), rename(2) and unlink(2) all set the ctime of the
 * file they name, so a new name of the file is always noticed. */
#ifndef PG_LINK_MAP_H
#define PG_LINK_MAP_H

#include <stdbool.h>
#include <stddef.h>

#include "judge.h"

/* The scan's bounds: entries listed, and directory depth. */
#define PG_LINK_SCAN_BUDGET 1000000u
#define PG_LINK_SCAN_DEPTH  256u

struct pg_link_map;

struct pg_link_map *pg_link_map_new(void);
void pg_link_map_free(struct pg_link_map *map);
/* Forget everything (the policy changed); the caller holds the root's
 * write lock. */
void pg_link_map_reset(struct pg_link_map *map);

/* Judge OBJ (a non-directory with other links, reached by OP) by the
 * names of its other links in the workspace, the root's read lock held.
 * 0 when allowed; -1 with the refusal recorded when another name of it is
 * refused OP, or when the workspace is too large to search (over
 * PG_LINK_SCAN_BUDGET entries) so that no answer can be given. */
int pg_link_map_judge(pg_root *root, const struct pg_object *obj, enum pg_op op,
		      const char *display);

/* A directory of the workspace is about to move, and has moved (or the
 * move failed): a search that overlaps such a move may have missed the
 * names moved and is made again. */
void pg_link_map_moving(pg_root *root);
void pg_link_map_moved(pg_root *root);

/* SUB was opened at a directory of PARENT (pg_root_open_at): its
 * searches start at PARENT's top root and judge names by that root's
 * policy (copied now), and identities are checked wherever PARENT checks
 * them.  0, or -1 (no memory, or no descriptor). */
int pg_link_map_adopt_top(pg_root *sub, pg_root *parent);

/* Does the top root a sub-root adopted make OP judge identities? */
bool pg_link_map_top_refuses(const pg_root *root, enum pg_op op);

/* How many searches ran (for tests and benchmarks). */
unsigned pg_link_map_scans(const pg_root *root);

#endif
