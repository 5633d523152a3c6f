/* rawprobe.c - what a child can really do to each name of a workspace.
 *
 * Usage: rawprobe ROOT < NAMES
 * NAMES holds workspace-relative names, one a line (any byte but NUL and
 * '\n'; "." is ROOT itself).  For each, in order, one line:
 *
 *   R=<errno> RI=<inode> W=<errno> WI=<inode> <name>
 *
 * R: open ROOT/name O_RDONLY (following symlinks, as any program would)
 * and read one byte of a file or list a directory; 0 when that worked.
 * An open that worked but read nothing is ENODATA: every file of the
 * differential test has content, so an empty one is a stand-in (a mask).
 * RI: the inode of what was opened (0 when nothing was), so the caller
 * can tell the real object from a mask laid over its name.
 * W: open ROOT/name O_WRONLY|O_APPEND and close it again: nothing is
 * written, truncated or created, so the host is left as it was (a
 * directory answers EISDIR: directories are probed for reading only).
 * WI: the inode of what was opened for writing.
 *
 * Built twice from this file: rawprobe, static and with raw system calls
 * only (no libc path wrapper, so an LD_PRELOAD guard never sees them),
 * and libcprobe (PG_PROBE_LIBC), dynamic and through libc's open(), so
 * that the preload guard judges every call. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifdef PG_PROBE_LIBC
static int p_open(const char *path, int flags)
{
	return open(path, flags);
}

static int p_fstat(int fd, struct stat *st)
{
	return fstat(fd, st);
}

static ssize_t p_read(int fd, void *buf, size_t n)
{
	return read(fd, buf, n);
}

static ssize_t p_list(int fd, void *buf, size_t n)
{
	return getdents64(fd, buf, n);
}

static void p_close(int fd)
{
	close(fd);
}
#else
static int p_open(const char *path, int flags)
{
	return (int)syscall(SYS_openat, AT_FDCWD, path, flags, 0);
}

static int p_fstat(int fd, struct stat *st)
{
	return (int)syscall(SYS_newfstatat, fd, "", st, AT_EMPTY_PATH);
}

static ssize_t p_read(int fd, void *buf, size_t n)
{
	return (ssize_t)syscall(SYS_read, fd, buf, n);
}

static ssize_t p_list(int fd, void *buf, size_t n)
{
	return (ssize_t)syscall(SYS_getdents64, fd, buf, n);
}

static void p_close(int fd)
{
	syscall(SYS_close, fd);
}
#endif

#define OPEN_FLAGS (O_CLOEXEC | O_NOCTTY | O_NONBLOCK)

/* Read one byte of a file, or list a directory: 0, or an errno. */
static int read_some(int fd, const struct stat *st)
{
	char buf[4096];
	ssize_t n;

	n = S_ISDIR(st->st_mode) ? p_list(fd, buf, sizeof(buf)) : p_read(fd, buf, 1);
	if (n < 0)
		return errno;
	return n == 0 ? ENODATA : 0;
}

static int probe_read(const char *path, unsigned long long *ino)
{
	struct stat st;
	int fd = p_open(path, O_RDONLY | OPEN_FLAGS), err;

	*ino = 0;
	if (fd < 0)
		return errno;
	if (p_fstat(fd, &st) < 0) {
		err = errno;
	} else {
		*ino = (unsigned long long)st.st_ino;
		err = read_some(fd, &st);
	}
	p_close(fd);
	return err;
}

static int probe_write(const char *path, unsigned long long *ino)
{
	struct stat st;
	int fd = p_open(path, O_WRONLY | O_APPEND | OPEN_FLAGS), err = 0;

	*ino = 0;
	if (fd < 0)
		return errno;
	if (p_fstat(fd, &st) < 0)
		err = errno;
	else
		*ino = (unsigned long long)st.st_ino;
	p_close(fd);
	return err;
}

int main(int argc, char **argv)
{
	char *name = NULL, *path = NULL;
	size_t cap = 0;
	ssize_t len;

	if (argc != 2) {
		fprintf(stderr, "usage: %s ROOT < NAMES\n", argv[0]);
		return 2;
	}
	while ((len = getline(&name, &cap, stdin)) > 0) {
		unsigned long long ri, wi;
		int r, w;

		if (name[len - 1] == '\n')
			name[--len] = '\0';
		free(path);
		if (asprintf(&path, "%s/%s", argv[1], name) < 0) {
			perror("rawprobe");
			return 1;
		}
		r = probe_read(path, &ri);
		w = probe_write(path, &wi);
		printf("R=%d RI=%llu W=%d WI=%llu %s\n", r, ri, w, wi, name);
	}
	free(path);
	free(name);
	return fflush(stdout) == 0 ? 0 : 1;
}
