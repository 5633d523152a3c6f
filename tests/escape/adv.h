/* adv.h - helpers of the adversarial suite: a scratch area holding a root
 * and an "outside" next to it, trees described in a few lines of text, a
 * snapshot of everything under the scratch area (to prove a refused call
 * changed nothing) and mounts in a private namespace.  The fd count that
 * proves nothing leaked is testutil.h's tu_fd_count(). */
#ifndef PG_ADV_H
#define PG_ADV_H

#include <stdbool.h>
#include <stddef.h>

#include "pathgate.h"

/* A scratch directory BASE holding BASE/root (the workspace) and
 * BASE/outside (markers that must never be touched). */
struct adv_area {
	char base[256];
	char root[300];
	char outside[300];
	char mounts[8][1024]; /* mounted paths, unmounted on teardown */
	int  nmounts;
};

/* Create a fresh scratch area with the standard markers; 0 or -1. */
int adv_area_new(struct adv_area *a);
/* Unmount and remove everything. */
void adv_area_free(struct adv_area *a);

/* Apply SPEC, one entry a line, paths relative to the root; "@ROOT@" and
 * "@OUT@" in any field are replaced by the absolute root and outside:
 *   d PATH            mkdir
 *   f PATH [TEXT]     a file holding TEXT
 *   l PATH TARGET     a symlink
 *   h PATH EXISTING   a hard link
 *   r PATH            remove (recursively)
 *   m PATH            mkdir + a tmpfs mounted there, holding a file "x"
 *   b PATH SOURCE     mkdir + a bind mount of SOURCE there
 * Returns 0, -1 on error (printed), or 77 when a mount is impossible here
 * (the reason printed). */
int adv_apply(struct adv_area *a, const char *spec);

/* Replace @ROOT@, @OUT@ and @BASE@ (the root's parent) in IN; the result
 * is static per slot (0..3). */
const char *adv_subst(const struct adv_area *a, const char *in, int slot);

/* Enter a private mount namespace once (mounts vanish with the process).
 * Returns true when mounting is possible; else REASON says why. */
bool adv_private_mounts(const char **reason);

/* A snapshot: one line per object under DIR (path, type, mode, size,
 * inode, nlink, mtime, ctime, link target, content hash), sorted. */
char *adv_snapshot(const char *dir);
/* Compare two snapshots; print the first differing lines under LABEL.
 * Returns true when equal. */
bool adv_snapshot_same(const char *label, const char *before, const char *after);

/* The fd count is tests/testutil.h's tu_fd_count(). */
#include "../testutil.h"

/* True when FD's object lies beneath (or is) directory ROOT, by its
 * /proc/self/fd link (the kernel's own name for the object). */
bool adv_fd_within(int fd, const char *root);

/* Read the whole (small) file FILE into BUF; returns bytes or -1. */
ssize_t adv_read_file(const char *file, char *buf, size_t size);

#endif
