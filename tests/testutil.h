/* testutil.h - helpers shared by the tests: a temporary tree built from a
 * compact description, a snapshot of a tree (to prove a refused operation
 * changed nothing), and a check that no file descriptor leaked. */
#ifndef PG_TESTUTIL_H
#define PG_TESTUTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <time.h>

/* A fresh directory under $TMPDIR (or /tmp); returns its malloc'ed path. */
char *tu_mkdtemp(const char *tag);
/* rm -rf DIR (it must be a test directory: refuses "/" and ""). */
void tu_rmtree(const char *dir);

/* Build entries under DIR, one per line of SPEC:
 *   "d path"          a directory
 *   "f path content"  a file (content up to the end of the line)
 *   "l path target"   a symlink
 *   "h path existing" a hard link to an existing entry
 * Paths are relative to DIR.  Aborts the test on failure. */
void tu_build(const char *dir, const char *spec);

/* Write / read whole small files by host path. */
void tu_write(const char *dir, const char *rel, const char *content);
/* Content of DIR/REL (malloc'ed), or NULL if absent. */
char *tu_read(const char *dir, const char *rel);
bool tu_exists(const char *dir, const char *rel);   /* lstat succeeds */

/* A snapshot of every entry beneath DIR: path, type, mode, size, inode,
 * mtime and (for symlinks) target, sorted.  Two snapshots compare equal
 * only if nothing changed. */
struct tu_snapshot;
struct tu_snapshot *tu_snapshot(const char *dir);
/* NULL when equal, else a malloc'ed description of the first difference. */
char *tu_snapshot_diff(const struct tu_snapshot *a, const struct tu_snapshot *b);
void tu_snapshot_free(struct tu_snapshot *s);
/* The mtime recorded for REL ("" for the directory itself); aborts if absent. */
struct timespec tu_snapshot_mtime(const struct tu_snapshot *s, const char *rel);

/* Number of open file descriptors of this process. */
int tu_fd_count(void);

/* Where fd FD points (readlink /proc/self/fd/FD), into BUF. */
const char *tu_fd_path(int fd, char *buf, size_t size);

#endif
