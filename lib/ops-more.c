/* ops-more.c - owns the calls an interpreter's file builtins need beyond
 * the POSIX set of ops.c: change times (pg_utimens), owner (pg_chown),
 * the bounded whole-file read (pg_read_file*), the default policy for
 * callers of the public API alone (pg_policy_parse_default) and the
 * runtime version.  Each resolves with resolve.c and acts relative to the
 * directory it holds, as ops.c's calls do. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ops.h"
#include "policy.h"
#include "refusal.h"
#include "resolve.h"
#include "root.h"

#define PG_STR2(x) #x
#define PG_STR(x) PG_STR2(x)

const char *pg_version(void)
{
	return PG_STR(PATHGATE_VERSION_MAJOR) "." PG_STR(PATHGATE_VERSION_MINOR) "."
	       PG_STR(PATHGATE_VERSION_PATCH);
}

int pg_policy_parse_default(pg_policy *p)
{
	pg_refusal_clear();
	if (!p) {
		errno = EINVAL;
		return -1;
	}
	return pg_policy_parse(p, pg_default_policy_text, strlen(pg_default_policy_text));
}

/* ------------------------------------------- attributes of the final object */

/* An attribute change, applied to the name NAME in directory DIRFD
 * (never followed: resolution already followed what was to be). */
typedef int (*attr_fn)(int dirfd, const char *name, const void *arg);

/* Resolve PATH for a write (following a final symlink unless
 * AT_SYMLINK_NOFOLLOW), then apply ACT to the object reached through
 * the parent resolution holds. */
static int with_final(pg_root *root, const char *path, int at_flags, attr_fn act,
		      const void *arg)
{
	unsigned how = PG_RES_EXIST;
	struct pg_path lex;
	struct pg_res res;
	int rc = -1;

	if (at_flags & ~AT_SYMLINK_NOFOLLOW) {
		errno = EINVAL;
		return -1;
	}
	if (!(at_flags & AT_SYMLINK_NOFOLLOW))
		how |= PG_RES_FOLLOW;
	if (pg_ops_prepare(root, path, &lex) < 0)
		return -1;
	pg_ops_lock(root);
	if (pg_resolve_locked(root, path, &lex, PG_OP_WRITE, how, &res) == 0) {
		if (res.is_root)
			rc = act(root->fd, ".", arg);
		else
			rc = act(res.dirfd, pg_res_name(&res), arg);
		pg_res_release(&res);
	}
	pg_ops_unlock(root);
	return rc;
}

static int utimens_at(int dirfd, const char *name, const void *arg)
{
	const struct timespec *times = arg;

	return utimensat(dirfd, name, times, AT_SYMLINK_NOFOLLOW);
}

int pg_utimens(pg_root *root, const char *path, const struct timespec times[2], int at_flags)
{
	pg_refusal_clear();
	return with_final(root, path, at_flags, utimens_at, times);
}

struct owner {
	uid_t uid;
	gid_t gid;
};

static int chown_at(int dirfd, const char *name, const void *arg)
{
	const struct owner *o = arg;

	return fchownat(dirfd, name, o->uid, o->gid, AT_SYMLINK_NOFOLLOW);
}

int pg_chown(pg_root *root, const char *path, uid_t uid, gid_t gid, int at_flags)
{
	struct owner o = { uid, gid };

	pg_refusal_clear();
	return with_final(root, path, at_flags, chown_at, &o);
}

/* ------------------------------------------------------------ whole reads */

/* Open PATH for reading and check it is a regular file: a FIFO would block
 * a whole read, a directory has no content to give. */
static int open_regular(pg_root *root, const char *path, struct stat *st)
{
	int fd = pg_open(root, path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK, 0);
	int err;

	if (fd < 0)
		return -1;
	if (fstat(fd, st) < 0)
		err = errno;
	else if (S_ISDIR(st->st_mode))
		err = EISDIR;
	else if (!S_ISREG(st->st_mode))
		err = EINVAL;
	else
		return fd;
	close(fd);
	errno = err;
	return -1;
}

/* read(2), again after a signal. */
static ssize_t read_some(int fd, char *buf, size_t size)
{
	ssize_t n;

	do
		n = read(fd, buf, size);
	while (n < 0 && errno == EINTR);
	return n;
}

/* Read FD to its end into BUF (SIZE bytes).  Returns the length, -1
 * (errno), or -2 when the file holds more than SIZE bytes. */
static ssize_t read_bounded(int fd, char *buf, size_t size)
{
	size_t got = 0;
	char probe;

	for (;;) {
		ssize_t n = got < size ? read_some(fd, buf + got, size - got)
				       : read_some(fd, &probe, 1);

		if (n < 0)
			return -1;
		if (n == 0)
			return (ssize_t)got;
		if (got == size)
			return -2;
		got += (size_t)n;
	}
}

static int refuse_over(const char *path, size_t bound)
{
	return pg_refusef(PG_R_EXHAUSTED, EFBIG, path,
			  "the file is over the read bound of %zu bytes", bound);
}

ssize_t pg_read_file(pg_root *root, const char *path, void *buf, size_t size)
{
	struct stat st;
	ssize_t n;
	int fd;

	pg_refusal_clear();
	if (!buf && size) {
		errno = EINVAL;
		return -1;
	}
	fd = open_regular(root, path, &st);
	if (fd < 0)
		return -1;
	n = read_bounded(fd, buf, size);
	close(fd);
	if (n == -2)
		return refuse_over(path, size);
	return n;
}

/* The room to start with: the size fstat saw (a file may grow while read)
 * plus the byte that proves the end, never over the bound. */
static size_t first_room(const struct stat *st, size_t limit)
{
	size_t want = (size_t)st->st_size + 1;

	if (want < 64)
		want = 64;
	return want > limit ? limit : want;
}

/* Read FD to its end into *BUF, grown from ROOM bytes up to LIMIT.  The
 * length, -1 (errno) or -2 over the bound; *BUF is the caller's to free. */
static ssize_t read_growing(int fd, char **buf, size_t room, size_t limit)
{
	size_t got = 0;

	for (;;) {
		char *grown;
		ssize_t n;

		if (got == room) {
			if (room == limit) {
				char probe;

				n = read_some(fd, &probe, 1);
				return n < 0 ? -1 : n > 0 ? -2 : (ssize_t)got;
			}
			room = room > limit / 2 ? limit : room * 2;
		}
		grown = realloc(*buf, room + 1);
		if (!grown)
			return -1;
		*buf = grown;
		n = read_some(fd, *buf + got, room - got);
		if (n < 0)
			return -1;
		if (n == 0)
			return (ssize_t)got;
		got += (size_t)n;
	}
}

ssize_t pg_read_file_alloc(pg_root *root, const char *path, void **out, size_t limit)
{
	struct stat st;
	char *buf = NULL;
	ssize_t n;
	int fd, err;

	pg_refusal_clear();
	if (!out) {
		errno = EINVAL;
		return -1;
	}
	*out = NULL;
	if (limit == 0)
		limit = (size_t)pg_root_write_limit(root);
	fd = open_regular(root, path, &st);
	if (fd < 0)
		return -1;
	n = read_growing(fd, &buf, first_room(&st, limit), limit);
	err = errno;
	close(fd);
	if (n < 0) {
		free(buf);
		if (n == -2)
			return refuse_over(path, limit);
		errno = err;
		return -1;
	}
	if (!buf && !(buf = malloc(1)))
		return -1;
	buf[n] = '\0';
	*out = buf;
	return n;
}
