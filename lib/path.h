/* path.h - owns path text: validation of untrusted path arguments against
 * the limits of doc/design.md, splitting into components, and the lexical
 * normal form ("a/./b/../c/" -> "a/c") that the policy judges.  Nothing
 * here touches the filesystem. */
#ifndef PG_PATH_H
#define PG_PATH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pathgate.h"

#define PG_PATH_MAX_COMPONENTS (PG_PATH_MAX / 2 + 1)

/* A lexically normalised path: no ".", no empty component, ".." folded into
 * its parent.  Components are joined by '/' in buf; "" is the root. */
struct pg_path {
	char     buf[PG_PATH_MAX + 1];
	size_t   len;
	uint16_t ncomp;
	uint16_t off[PG_PATH_MAX_COMPONENTS];  /* offset of each component */
	bool     absolute;       /* began with '/' */
	bool     trailing_slash; /* ended with '/' (or "/." ...): must be a directory */
	bool     had_dotdot;     /* a ".." was folded: the kernel's answer may differ across symlinks */
};

/* Check RAW (LEN bytes, or strlen when LEN is (size_t)-1) against the
 * limits: not NULL, not empty, no NUL inside LEN, at most PG_PATH_MAX
 * bytes, no component over PG_NAME_MAX.  Returns 0, or refuses with
 * workspace.bad-path and returns -1. */
int pg_path_validate(const char *raw, size_t len);

/* Validate and normalise RAW into OUT.  With ALLOW_ABSOLUTE false an
 * absolute path, and in any case a ".." that climbs above the start, is
 * refused with workspace.path-escape.  Returns 0 or -1 (refusal recorded). */
int pg_path_normalise(const char *raw, bool allow_absolute, struct pg_path *out);

/* Length of component I of P. */
size_t pg_path_comp_len(const struct pg_path *p, unsigned i);
/* Byte length of the first N components joined ("a/b" for N=2). */
size_t pg_path_prefix_len(const struct pg_path *p, unsigned n);

/* Iterate the components of a raw string: skips empty components and ".",
 * returns ".." as is.  Returns false at the end. */
bool pg_path_next(const char **cursor, const char **comp, size_t *len);

#endif
