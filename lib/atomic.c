/* atomic.c - whole-or-nothing bounded writes. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "atomic.h"
#include "judge.h"
#include "ops.h"
#include "path.h"
#include "refusal.h"
#include "resolve.h"
#include "root.h"

struct pg_atomic {
	pg_root       *root;
	struct pg_res  res;        /* the target: parent and final name */
	int            dirfd;      /* the target's directory, O_RDONLY (for fsync) */
	int            tmpfd;
	char           tmpname[64]; /* "" while the temporary is unnamed */
	uint64_t       written;
	uint64_t       limit;
	bool           failed;     /* a chunk was refused: commit refuses too */
	char          *display;
};

static bool force_named;

void pg_atomic_force_named_temporaries(bool on)
{
	force_named = on;
}

static void lock(pg_root *root)
{
	pthread_rwlock_rdlock(&root->lock);
}

static void unlock(pg_root *root)
{
	int err = errno;

	pthread_rwlock_unlock(&root->lock);
	errno = err;
}

static void random_name(char *buf, size_t size)
{
	unsigned char r[8];
	char hex[17];

	if (getrandom(r, sizeof(r), GRND_NONBLOCK) != (ssize_t)sizeof(r)) {
		uint64_t x = (uint64_t)getpid() ^ (uint64_t)(uintptr_t)buf ^ (uint64_t)rand();

		memcpy(r, &x, sizeof(r));
	}
	for (size_t i = 0; i < sizeof(r); i++)
		snprintf(hex + 2 * i, 3, "%02x", r[i]);
	snprintf(buf, size, "%s%s", PG_TMP_PREFIX, hex);
}

static int open_named_temporary(struct pg_atomic *w, mode_t mode)
{
	for (int i = 0; i < 16; i++) {
		int fd;

		random_name(w->tmpname, sizeof(w->tmpname));
		fd = openat(w->dirfd, w->tmpname,
			    O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW | O_CLOEXEC, mode);
		if (fd >= 0 || errno != EEXIST)
			return fd;
	}
	return -1;
}

static int open_temporary(struct pg_atomic *w, mode_t mode)
{
	int fd;

	w->tmpname[0] = '\0';
	if (!force_named) {
		fd = openat(w->dirfd, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, mode);
		if (fd >= 0 || (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL))
			return fd;
	}
	return open_named_temporary(w, mode);
}

static void atomic_free(struct pg_atomic *w)
{
	if (w->tmpfd >= 0)
		close(w->tmpfd);
	if (w->dirfd >= 0)
		close(w->dirfd);
	pg_res_release(&w->res);
	free(w->display);
	free(w);
}

/* "file/" with the file there: the resolution's ENOTDIR is the kernel's
 * EISDIR for open(O_CREAT), unless something before the last component
 * was the non-directory ("file/x/" stays ENOTDIR).  Returns -1. */
static int slash_on_a_file(struct pg_atomic *w, const char *path, const struct pg_path *lex)
{
	struct pg_path *bare;
	struct pg_res res;

	if (errno != ENOTDIR || !lex->trailing_slash || pg_refusal_code() != PG_R_NONE)
		return -1;
	bare = malloc(sizeof(*bare));
	if (!bare)
		return -1;
	memcpy(bare, lex, sizeof(*bare));
	bare->trailing_slash = false;
	if (pg_resolve_locked(w->root, path, bare, PG_OP_CREATE, PG_RES_FOLLOW, &res) == 0) {
		pg_res_release(&res);
		errno = EISDIR;
	} else if (pg_refusal_code() == PG_R_NONE) {
		errno = ENOTDIR;
	}
	free(bare);
	return -1;
}

static int begin_locked(struct pg_atomic *w, const char *path, const struct pg_path *lex,
			mode_t mode)
{
	struct pg_res *res = &w->res;

	if (pg_resolve_locked(w->root, path, lex, PG_OP_CREATE, PG_RES_FOLLOW, res) < 0)
		return slash_on_a_file(w, path, lex);
	/* As open(O_CREAT) answers "name/", whatever is there. */
	if (res->is_root || lex->trailing_slash || (res->exists && S_ISDIR(res->stx.stx_mode))) {
		errno = EISDIR;
		return -1;
	}
	w->dirfd = openat(res->dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (w->dirfd < 0)
		return -1;
	w->tmpfd = open_temporary(w, mode);
	return w->tmpfd < 0 ? -1 : 0;
}

static pg_atomic *write_begin(pg_root *root, const char *path, mode_t mode)
{
	struct pg_path *lex = malloc(sizeof(*lex));
	struct pg_atomic *w = calloc(1, sizeof(*w));
	int rc = -1;

	if (!lex || !w)
		goto fail;
	w->root = root;
	w->dirfd = -1;
	w->tmpfd = -1;
	w->res.dirfd = -1;
	w->res.fd = -1;
	if (pg_ops_prepare(root, path, lex) < 0)
		goto fail;
	w->display = strdup(path);
	if (!w->display)
		goto fail;
	w->limit = pg_root_write_limit(root);
	lock(root);
	rc = begin_locked(w, path, lex, mode);
	unlock(root);
	if (rc < 0)
		goto fail;
	free(lex);
	return w;
fail:
	{
		int err = errno;

		free(lex);
		if (w)
			atomic_free(w);
		errno = err;
	}
	return NULL;
}

pg_atomic *pg_write_begin(pg_root *root, const char *path, mode_t mode)
{
	pg_refusal_clear();
	return write_begin(root, path, mode);
}

static int refuse_exhausted(const struct pg_atomic *w)
{
	return pg_refusef(PG_R_EXHAUSTED, EFBIG, w->display,
			  "the root's write limit of %llu bytes",
			  (unsigned long long)w->limit);
}

static ssize_t write_chunk(pg_atomic *w, const void *buf, size_t len)
{
	const char *p = buf;
	size_t left = len;

	if (w->failed)
		return refuse_exhausted(w);
	if (len > w->limit || w->written > w->limit - len) {
		w->failed = true;
		return refuse_exhausted(w);
	}
	while (left > 0) {
		ssize_t n = write(w->tmpfd, p, left);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += n;
		left -= (size_t)n;
	}
	w->written += len;
	return (ssize_t)len;
}

ssize_t pg_write_chunk(pg_atomic *w, const void *buf, size_t len)
{
	pg_refusal_clear();
	if (!w || (!buf && len)) {
		errno = EINVAL;
		return -1;
	}
	return write_chunk(w, buf, len);
}

/* An existing target keeps its mode (and, where we may, its owner). */
static int keep_attributes(struct pg_atomic *w)
{
	struct stat st;

	if (fstatat(w->dirfd, pg_res_name(&w->res), &st, AT_SYMLINK_NOFOLLOW) < 0)
		return errno == ENOENT ? 0 : -1;
	if (S_ISDIR(st.st_mode)) {
		errno = EISDIR;
		return -1;
	}
	if (fchmod(w->tmpfd, st.st_mode & 07777) < 0)
		return -1;
	if (geteuid() == 0)
		(void)fchown(w->tmpfd, st.st_uid, st.st_gid);
	return 0;
}

static int name_temporary(struct pg_atomic *w)
{
	char proc[64];

	if (w->tmpname[0])
		return 0;
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", w->tmpfd);
	for (int i = 0; i < 16; i++) {
		random_name(w->tmpname, sizeof(w->tmpname));
		if (linkat(AT_FDCWD, proc, w->dirfd, w->tmpname, AT_SYMLINK_FOLLOW) == 0)
			return 0;
		if (errno == ENOENT && linkat(w->tmpfd, "", w->dirfd, w->tmpname, AT_EMPTY_PATH) == 0)
			return 0;
		if (errno != EEXIST)
			break;
	}
	w->tmpname[0] = '\0';
	return -1;
}

static void drop_temporary(struct pg_atomic *w)
{
	if (w->tmpname[0]) {
		unlinkat(w->dirfd, w->tmpname, 0);
		w->tmpname[0] = '\0';
	}
}

static int commit_locked(struct pg_atomic *w)
{
	const char *name = pg_res_name(&w->res);

	if (keep_attributes(w) < 0 || fsync(w->tmpfd) < 0 || name_temporary(w) < 0)
		return -1;
	/* Where the parent moved meanwhile, judge again before replacing. */
	if (pg_landing_ok_locked(w->root, &w->res, w->display) < 0)
		return -1;
	if (renameat(w->dirfd, w->tmpname, w->dirfd, name) < 0)
		return -1;
	w->tmpname[0] = '\0';
	if (pg_verify_landing_locked(w->root, &w->res, false, w->display) < 0)
		return -1;
	return fsync(w->dirfd);
}

int pg_write_commit(pg_atomic *w)
{
	int rc;

	pg_refusal_clear();
	if (!w) {
		errno = EINVAL;
		return -1;
	}
	if (w->failed) {
		rc = refuse_exhausted(w);
	} else {
		lock(w->root);
		rc = commit_locked(w);
		unlock(w->root);
	}
	if (rc < 0) {
		int err = errno;

		drop_temporary(w);
		errno = err;
	}
	{
		int err = errno;

		atomic_free(w);
		errno = err;
	}
	return rc;
}

void pg_write_abort(pg_atomic *w)
{
	int err = errno;

	if (!w)
		return;
	drop_temporary(w);
	atomic_free(w);
	errno = err;
}

int pg_write_file(pg_root *root, const char *path, const void *buf, size_t len, mode_t mode)
{
	pg_atomic *w;

	pg_refusal_clear();
	if (!root || (!buf && len)) {
		errno = EINVAL;
		return -1;
	}
	if (len > pg_root_write_limit(root))
		return pg_refusef(PG_R_EXHAUSTED, EFBIG, path,
				  "the root's write limit of %llu bytes",
				  (unsigned long long)pg_root_write_limit(root));
	w = write_begin(root, path, mode);
	if (!w)
		return -1;
	if (write_chunk(w, buf, len) < 0) {
		pg_write_abort(w);
		return -1;
	}
	return pg_write_commit(w);
}

/* -------------------------------------------------------- temporaries */

static bool is_temporary(const char *name)
{
	return strncmp(name, PG_TMP_PREFIX, sizeof(PG_TMP_PREFIX) - 1) == 0;
}

static int clear_in(pg_root *root, const struct pg_res *dir, int fd, const char *display)
{
	DIR *d;
	struct dirent *e;
	int count = 0, dup_fd = fcntl(fd, F_DUPFD_CLOEXEC, 3);

	if (dup_fd < 0)
		return -1;
	d = fdopendir(dup_fd);
	if (!d) {
		close(dup_fd);
		return -1;
	}
	while ((e = readdir(d))) {
		char name[PG_REAL_MAX + PG_NAME_MAX + 2];
		struct stat st;
		int n;

		if (!is_temporary(e->d_name))
			continue;
		if (fstatat(fd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(st.st_mode))
			continue;
		n = snprintf(name, sizeof(name), "%s%s%s", dir->real, dir->real_len ? "/" : "",
			     e->d_name);
		if (n < 0 || (size_t)n >= sizeof(name) ||
		    pg_judge_locked(root, name, (size_t)n, PG_OP_DELETE, display) < 0) {
			pg_refusal_clear();
			continue;
		}
		if (unlinkat(fd, e->d_name, 0) == 0)
			count++;
	}
	closedir(d);
	return count;
}

int pg_clear_temporaries(pg_root *root, const char *path)
{
	struct pg_path lex;
	struct pg_res res;
	int rc = -1;

	pg_refusal_clear();
	if (pg_ops_prepare(root, path, &lex) < 0)
		return -1;
	lock(root);
	if (pg_resolve_locked(root, path, &lex, PG_OP_WRITE, PG_RES_FOLLOW | PG_RES_EXIST, &res) == 0) {
		int fd = S_ISDIR(res.stx.stx_mode) ?
			 pg_res_reopen(root, &res, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0) : -1;

		if (!S_ISDIR(res.stx.stx_mode))
			errno = ENOTDIR;
		if (fd >= 0) {
			rc = clear_in(root, &res, fd, path);
			close(fd);
		}
		pg_res_release(&res);
	}
	unlock(root);
	return rc;
}
