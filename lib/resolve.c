/* resolve.c - resolution beneath the root: the one-openat2 fast path, the
 * component walk that handles symlinks, '..' and mounts itself, and the
 * check of where a created name landed. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/magic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "judge.h"
#include "path.h"
#include "refusal.h"
#include "resolve.h"
#include "root.h"

#define PG_MAX_LINKS 40
#define STX_MASK (STATX_BASIC_STATS | STATX_MNT_ID)

int pg_openat2(int dirfd, const char *path, int flags, mode_t mode, uint64_t resolve)
{
	struct open_how how = {
		.flags = (uint64_t)(unsigned)flags,
		.mode = ((flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE) ? mode : 0,
		.resolve = resolve,
	};

	return (int)syscall(SYS_openat2, dirfd, path, &how, sizeof(how));
}

static void res_init(struct pg_res *res)
{
	res->dirfd = -1;
	res->dirfd_owned = false;
	res->fd = -1;
	res->exists = false;
	res->is_root = false;
	res->via_link = false;
	res->must_dir = false;
	res->name_off = 0;
	res->real_len = 0;
	res->real[0] = '\0';
}

void pg_res_release(struct pg_res *res)
{
	if (res->dirfd_owned && res->dirfd >= 0)
		close(res->dirfd);
	if (res->fd >= 0)
		close(res->fd);
	res->dirfd = -1;
	res->fd = -1;
	res->dirfd_owned = false;
}

static int escape(const char *display, const char *why)
{
	return pg_refuse(PG_R_PATH_ESCAPE, EACCES, display, why);
}

static bool crosses_mount(const pg_root *root, const struct statx *stx)
{
	if (root->flags & PG_ROOT_XDEV)
		return false;
	return (stx->stx_mask & STATX_MNT_ID) && root->mnt_id &&
	       stx->stx_mnt_id != root->mnt_id;
}

/* --------------------------------------------------------------- walk */

struct walk {
	pg_root    *root;
	enum pg_op  op;
	unsigned    how;
	const char *display;
	int        *fds;      /* held directories; fds[0] is root->fd (not owned) */
	size_t     *ends;     /* real-name length at each level */
	size_t      n, cap;
	char       *pending;  /* the path still to walk */
	size_t      pos;      /* cursor in pending */
	size_t      link_end; /* pending[0, link_end) came from symlink targets */
	unsigned    links;
	unsigned    cross_max; /* the longest run cross_run may try (halved on a miss) */
	struct pg_res *res;
};

static int push(struct walk *w, int fd, size_t end)
{
	if (w->n == w->cap) {
		size_t cap = w->cap * 2;
		int *fds = realloc(w->fds, cap * sizeof(*fds));

		if (!fds)
			return -1;
		w->fds = fds;
		size_t *ends = realloc(w->ends, cap * sizeof(*ends));

		if (!ends)
			return -1;
		w->ends = ends;
		w->cap = cap;
	}
	w->fds[w->n] = fd;
	w->ends[w->n] = end;
	w->n++;
	return 0;
}

/* Close the held fd of the top level and go up one level. */
static void pop(struct walk *w)
{
	w->n--;
	if (w->fds[w->n] >= 0)
		close(w->fds[w->n]);
	w->res->real_len = w->ends[w->n - 1];
	w->res->real[w->res->real_len] = '\0';
}

static void walk_free(struct walk *w)
{
	for (size_t i = 1; i < w->n; i++)
		if (w->fds[i] >= 0)
			close(w->fds[i]);
	free(w->fds);
	free(w->ends);
	free(w->pending);
}

/* The fd of level I.  A level crossed inside a multi-component openat2 is
 * not held; it is opened again from the root by its real name, which had
 * no symlink when it was crossed (and must have none now). */
static int level_fd(struct walk *w, size_t i)
{
	char name[PG_REAL_MAX + 1];

	if (w->fds[i] >= 0)
		return w->fds[i];
	memcpy(name, w->res->real, w->ends[i]);
	name[w->ends[i]] = '\0';
	w->fds[i] = pg_openat2(w->root->fd, name, O_PATH | O_DIRECTORY | O_CLOEXEC, 0,
			       w->root->resolve | RESOLVE_NO_SYMLINKS);
	if (w->fds[i] < 0 && pg_needs_walk(errno))
		errno = EAGAIN; /* the tree changed under the walk */
	return w->fds[i];
}

static int top_fd(struct walk *w)
{
	return level_fd(w, w->n - 1);
}

/* The next component; START is its offset in pending. */
static bool next_comp(struct walk *w, const char **comp, size_t *len, size_t *start)
{
	const char *cursor = w->pending + w->pos;
	bool more = pg_path_next(&cursor, comp, len);

	if (more) {
		*start = (size_t)(*comp - w->pending);
		w->pos = (size_t)(cursor - w->pending);
	}
	return more;
}

static bool at_end(const struct walk *w)
{
	const char *cursor = w->pending + w->pos, *comp;
	size_t len;

	return !pg_path_next(&cursor, &comp, &len);
}

static bool is_dotdot(const char *c, size_t len)
{
	return len == 2 && c[0] == '.' && c[1] == '.';
}

static bool ends_as_directory(const char *s, size_t n)
{
	if (n >= 1 && s[n - 1] == '/')
		return true;
	if (n >= 1 && s[n - 1] == '.' && (n == 1 || s[n - 2] == '/'))
		return true;
	return n >= 2 && s[n - 1] == '.' && s[n - 2] == '.' && (n == 2 || s[n - 3] == '/');
}

/* Append "/COMP" (or "COMP" at the root) to the real name. */
static int append_real(struct pg_res *res, const char *comp, size_t len)
{
	size_t need = res->real_len + (res->real_len ? 1 : 0) + len;

	if (need > PG_REAL_MAX) {
		errno = ENAMETOOLONG;
		return -1;
	}
	if (res->real_len)
		res->real[res->real_len++] = '/';
	memcpy(res->real + res->real_len, comp, len);
	res->real_len += len;
	res->real[res->real_len] = '\0';
	return 0;
}

static bool judging(const struct walk *w)
{
	return !(w->how & PG_RES_NO_JUDGE);
}

/* Judge a name made of the real name so far, COMP, and the rest of the
 * pending path (normalised lexically): what the operation would reach. */
static int judge_would_be(struct walk *w, const char *comp, size_t len)
{
	struct pg_path *p;
	char *s;
	int rc = 0;
	size_t rest = strlen(w->pending + w->pos);
	size_t n = w->res->real_len + 1 + len + 1 + rest + 1;

	s = malloc(n);
	p = malloc(sizeof(*p));
	if (!s || !p) {
		free(s);
		free(p);
		return -1;
	}
	snprintf(s, n, "%s/%.*s/%s", w->res->real, (int)len, comp, w->pending + w->pos);
	if (pg_path_normalise(s[0] == '/' ? s + 1 : s, false, p) == 0)
		rc = pg_judge_locked(w->root, p->buf, p->len, w->op, w->display);
	else
		pg_refusal_clear(); /* no such name inside the root: not a refusal of its own */
	free(s);
	free(p);
	return rc;
}

/* A component is missing before the end of the path. */
static int missing(struct walk *w, const char *comp, size_t len, bool via)
{
	if (judging(w)) {
		if (judge_would_be(w, comp, len) < 0)
			return -1;
		if (w->op == PG_OP_CREATE && via)
			return pg_refuse(PG_R_DANGLING, ENOENT, w->display,
					 "a symlink on the way points at a name that does not exist");
	}
	errno = ENOENT;
	return -1;
}

static int open_comp(const struct walk *w, int dirfd, const char *name)
{
	const pg_root *root = w->root;

	if (root->openat2)
		return pg_openat2(dirfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC, 0, root->resolve);
	return openat(dirfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
}

/* Replace the symlink COMP (in directory DIRFD; FD is the link itself, or
 * -1) by its target in the pending path. */
static int expand(struct walk *w, int dirfd, int fd, const char *comp, size_t len)
{
	struct statfs sfs;
	char target[PG_REAL_MAX + 2];
	size_t saved = w->res->real_len, rest_len, old_link_rest;
	ssize_t n;
	char *next;

	/* Links in /proc are magic or name things outside: never followed
	 * (nor read: reading some needs privileges).  Only reachable when
	 * mounts may be crossed or the root is in /proc. */
	if (w->root->maybe_proc && fstatfs(fd >= 0 ? fd : dirfd, &sfs) == 0 &&
	    sfs.f_type == PROC_SUPER_MAGIC) {
		struct statx stx;

		if (fd >= 0 || (statx(dirfd, comp, AT_SYMLINK_NOFOLLOW, STATX_TYPE, &stx) == 0 &&
				S_ISLNK(stx.stx_mode)))
			return escape(w->display, "a symlink in /proc");
		errno = ENOTDIR;
		return -1;
	}
	n = fd >= 0 ? readlinkat(fd, "", target, sizeof(target) - 1) :
		      readlinkat(dirfd, comp, target, sizeof(target) - 1);
	if (n < 0 && errno == EINVAL && fd < 0) {
		errno = ENOTDIR; /* read by name: it is not a symlink */
		return -1;
	}
	if (n < 0)
		return errno == EINVAL || errno == ENOENT ? 1 : -1; /* changed: look again */
	/* Counted once known to be a link: a file met after the kernel's 40
	 * links is ENOTDIR, as the kernel says, not ELOOP. */
	if (++w->links > PG_MAX_LINKS || (w->how & PG_RES_NO_LINKS)) {
		errno = ELOOP;
		return -1;
	}
	if ((size_t)n > PG_REAL_MAX) {
		errno = ENAMETOOLONG;
		return -1;
	}
	if (n == 0) {
		errno = ENOENT;
		return -1;
	}
	target[n] = '\0';
	/* The link's own name is judged too: a deny on it denies its target. */
	if (judging(w)) {
		if (append_real(w->res, comp, len) < 0)
			return -1;
		int rc = pg_judge_locked(w->root, w->res->real, w->res->real_len,
					 w->op, w->display);

		w->res->real_len = saved;
		w->res->real[saved] = '\0';
		if (rc < 0)
			return -1;
	}
	if (target[0] == '/')
		return escape(w->display, "a symlink to an absolute path");

	rest_len = strlen(w->pending + w->pos);
	if (rest_len == 0 && ends_as_directory(target, (size_t)n))
		w->res->must_dir = true;
	old_link_rest = w->link_end > w->pos ? w->link_end - w->pos : 0;
	next = malloc((size_t)n + 1 + rest_len + 1);
	if (!next)
		return -1;
	memcpy(next, target, (size_t)n);
	next[n] = '/';
	memcpy(next + n + 1, w->pending + w->pos, rest_len + 1);
	free(w->pending);
	w->pending = next;
	w->pos = 0;
	w->link_end = (size_t)n + (old_link_rest ? 1 + old_link_rest : 0);
	w->cross_max = UINT_MAX;
	return 0;
}

/* The walk ended on a directory already on the stack ("a/.." or "."): it
 * is the final object, and the level below it is its parent. */
static int finish_on_stack(struct walk *w)
{
	struct pg_res *res = w->res;
	int top = top_fd(w);
	const char *slash;

	if (top < 0 || statx(top, "", AT_EMPTY_PATH, STX_MASK, &res->stx) < 0)
		return -1;
	res->exists = true;
	if (w->n == 1) {
		res->is_root = true;
		res->dirfd = w->root->fd;
		res->dirfd_owned = false;
		res->name_off = 0;
		if (w->how & PG_RES_FD) {
			res->fd = fcntl(top, F_DUPFD_CLOEXEC, 3);
			if (res->fd < 0)
				return -1;
		}
		return 0;
	}
	if (w->n > 2 && level_fd(w, w->n - 2) < 0)
		return -1;
	w->n--;
	if (w->how & PG_RES_FD)
		res->fd = top;
	else
		close(top);
	res->dirfd = w->fds[w->n - 1];
	res->dirfd_owned = w->n > 1;
	if (res->dirfd_owned)
		w->n--;
	slash = strrchr(res->real, '/');
	res->name_off = slash ? (size_t)(slash - res->real) + 1 : 0;
	return 0;
}

/* The final component COMP: FD is its O_PATH fd (or -1 when absent or not
 * opened), res->stx describes it when it exists. */
static int finish_final(struct walk *w, int fd, bool exists, const char *comp, size_t len,
			bool via)
{
	struct pg_res *res = w->res;
	int top = w->fds[w->n - 1];
	size_t name_off = res->real_len + (res->real_len ? 1 : 0);

	if (append_real(res, comp, len) < 0) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	res->name_off = name_off;
	res->via_link = via;
	res->exists = exists;
	if (fd >= 0 && (w->how & PG_RES_FD))
		res->fd = fd;
	else if (fd >= 0)
		close(fd);
	res->dirfd = top;
	res->dirfd_owned = w->n > 1;
	if (res->dirfd_owned)
		w->n--;
	return 0;
}

/* The run of plain components starting at the cursor, up to (not
 * including) the last component and any "..": how many, and where it ends. */
static unsigned plain_run(const struct walk *w, const char *first, size_t *end)
{
	const char *cursor = first, *comp;
	size_t len;
	unsigned n = 0;

	*end = (size_t)(first - w->pending);
	while (pg_path_next(&cursor, &comp, &len)) {
		const char *after = cursor, *c2;
		size_t l2;

		if (is_dotdot(comp, len) || !pg_path_next(&after, &c2, &l2))
			break;
		n++;
		*end = (size_t)(comp + len - w->pending);
	}
	return n;
}

/* The offset in pending after N components from COMP. */
static size_t after_components(const struct walk *w, const char *comp, unsigned n)
{
	const char *cursor = comp, *c;
	size_t len;

	for (unsigned i = 0; i < n; i++)
		pg_path_next(&cursor, &c, &len);
	return (size_t)(cursor - w->pending);
}

/* openat2 only: cross a run of two or more plain directories in one call,
 * halving the run while it holds something else (a symlink, a mount, a
 * file).  Returns 1 when crossed, 0 when the walk must take one component,
 * -1 on error. */
static int cross_run(struct walk *w, const char *comp)
{
	char run[PG_PATH_MAX + PG_REAL_MAX + 2];
	size_t end, start = (size_t)(comp - w->pending);
	unsigned n = plain_run(w, comp, &end);
	const char *cursor, *c;
	size_t len;
	int top, fd = -1;

	top = top_fd(w);
	if (top < 0)
		return -1;
	for (; n >= 2; n /= 2) {
		if (n > w->cross_max)
			n = w->cross_max;
		if (n < 2)
			break;
		end = after_components(w, comp, n);
		if (end - start >= sizeof(run))
			continue;
		memcpy(run, comp, end - start);
		run[end - start] = '\0';
		fd = pg_openat2(top, run, O_PATH | O_DIRECTORY | O_CLOEXEC, 0,
				w->root->resolve | RESOLVE_NO_SYMLINKS);
		if (fd >= 0)
			break;
		w->cross_max = n / 2; /* what stopped it lies within these n */
	}
	if (fd < 0)
		return 0;
	cursor = comp;
	for (unsigned i = 0; i < n; i++) {
		pg_path_next(&cursor, &c, &len);
		if (append_real(w->res, c, len) < 0 ||
		    push(w, i + 1 == n ? fd : -1, w->res->real_len) < 0) {
			close(fd);
			return -1;
		}
	}
	w->pos = end;
	return 1;
}

/* openat2 only: one intermediate component, found as a directory with one
 * call; anything else is looked at with statx. */
static int step_dir(struct walk *w, const char *name, size_t len, bool via)
{
	struct pg_res *res = w->res;
	int top = top_fd(w), fd;

	if (top < 0)
		return -1;
	fd = pg_openat2(top, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC, 0,
			w->root->resolve);
	if (fd >= 0) {
		if (append_real(res, name, len) < 0 || push(w, fd, res->real_len) < 0) {
			close(fd);
			return -1;
		}
		return 0;
	}
	if (errno == EXDEV)
		return escape(w->display, "a mount point on the way");
	if (errno == ENOENT)
		return missing(w, name, len, via);
	if (errno != ENOTDIR && errno != ELOOP)
		return -1;
	/* Not a directory: a symlink (expand reads it; EINVAL from readlinkat
	 * there means it is not one: ENOTDIR) or anything else. */
	return expand(w, top, -1, name, len);
}

/* The last component, without an fd unless the caller wants one. */
static int step_final(struct walk *w, const char *name, size_t len, bool via)
{
	struct pg_res *res = w->res;
	int top = top_fd(w), fd = -1;
	bool follow = (w->how & PG_RES_FOLLOW) || res->must_dir;

	if (top < 0)
		return -1;
	if (w->how & PG_RES_FD) {
		fd = open_comp(w, top, name);
		if (fd < 0 && errno == EXDEV)
			return escape(w->display, "a mount point on the way");
		if (fd < 0 && errno != ENOENT)
			return -1;
		if (fd < 0)
			return finish_final(w, -1, false, name, len, via) < 0 ? -1 : 2;
		if (statx(fd, "", AT_EMPTY_PATH, STX_MASK, &res->stx) < 0) {
			close(fd);
			return -1;
		}
	} else if (statx(top, name, AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT, STX_MASK,
			 &res->stx) < 0) {
		if (errno != ENOENT)
			return -1;
		return finish_final(w, -1, false, name, len, via) < 0 ? -1 : 2;
	}
	if (crosses_mount(w->root, &res->stx)) {
		if (fd >= 0)
			close(fd);
		return escape(w->display, "a mount point on the way");
	}
	if (S_ISLNK(res->stx.stx_mode) && follow) {
		int rc = expand(w, top, fd, name, len);

		if (fd >= 0)
			close(fd);
		return rc;
	}
	return finish_final(w, fd, true, name, len, via) < 0 ? -1 : 2;
}

/* The fallback walk's step: openat(O_PATH|O_NOFOLLOW), then statx for the
 * type and the mount id. */
static int step_openat(struct walk *w, const char *name, size_t len, bool via)
{
	struct pg_res *res = w->res;
	int top = w->fds[w->n - 1], fd, rc;

	fd = open_comp(w, top, name);
	if (fd < 0)
		return errno == ENOENT ? missing(w, name, len, via) : -1;
	if (statx(fd, "", AT_EMPTY_PATH, STX_MASK, &res->stx) < 0) {
		close(fd);
		return -1;
	}
	if (crosses_mount(w->root, &res->stx)) {
		close(fd);
		return escape(w->display, "a mount point on the way");
	}
	if (S_ISLNK(res->stx.stx_mode)) {
		rc = expand(w, top, fd, name, len);
		close(fd);
		return rc;
	}
	if (!S_ISDIR(res->stx.stx_mode)) {
		close(fd);
		errno = ENOTDIR;
		return -1;
	}
	if (append_real(res, name, len) < 0 || push(w, fd, res->real_len) < 0) {
		close(fd);
		return -1;
	}
	return 0;
}

/* Steps return -1 (error), 0 (go on), 1 (look at the same component
 * again: it changed under us), 2 (the walk is done). */
static int walk(struct walk *w)
{
	char name[PG_NAME_MAX + 1];
	const char *comp;
	size_t len, start;
	unsigned retries = 0;

	for (;;) {
		size_t before = w->pos;
		bool via, last;
		int rc;

		if (!next_comp(w, &comp, &len, &start))
			return finish_on_stack(w);
		via = start < w->link_end;
		if (is_dotdot(comp, len)) {
			if (w->n == 1)
				return escape(w->display, "'..' climbs above the root");
			pop(w);
			continue;
		}
		if (len > PG_NAME_MAX) {
			errno = ENAMETOOLONG;
			return -1;
		}
		last = at_end(w);
		if (!last && w->root->openat2) {
			rc = cross_run(w, comp);
			if (rc != 0) {
				if (rc < 0)
					return -1;
				continue;
			}
		}
		memcpy(name, comp, len);
		name[len] = '\0';
		if (last)
			rc = step_final(w, name, len, via);
		else if (w->root->openat2)
			rc = step_dir(w, name, len, via);
		else
			rc = step_openat(w, name, len, via);
		if (rc < 0 || rc == 2)
			return rc < 0 ? -1 : 0;
		if (rc == 1) {
			if (++retries > PG_MAX_LINKS) {
				errno = EAGAIN;
				return -1;
			}
			w->pos = before;
		}
	}
}

static int slow_resolve(pg_root *root, const char *raw, enum pg_op op, unsigned how,
			struct pg_res *res, bool must_dir)
{
	struct walk w = {
		.root = root, .op = op, .how = how, .display = raw, .res = res,
	};
	int rc = -1;

	w.cap = 16;
	w.cross_max = UINT_MAX;
	w.fds = malloc(w.cap * sizeof(*w.fds));
	w.ends = malloc(w.cap * sizeof(*w.ends));
	w.pending = strdup(raw);
	if (!w.fds || !w.ends || !w.pending)
		goto out;
	w.fds[0] = root->fd;
	w.ends[0] = 0;
	w.n = 1;
	res->must_dir = must_dir;
	rc = walk(&w);
out:
	walk_free(&w);
	return rc;
}

/* ---------------------------------------------------------- fast path */

/* Split RAW into its parent (copied into PARENT, "." when none) and its
 * final component.  False when the final component is "." or "..". */
static bool split_final(const char *raw, char *parent, const char **name, size_t *name_len)
{
	size_t n = strlen(raw), end, begin;

	end = n;
	while (end > 0 && raw[end - 1] == '/')
		end--;
	begin = end;
	while (begin > 0 && raw[begin - 1] != '/')
		begin--;
	*name = raw + begin;
	*name_len = end - begin;
	if (*name_len == 0 || (*name_len == 1 && raw[begin] == '.') ||
	    is_dotdot(raw + begin, *name_len))
		return false;
	if (begin == 0) {
		strcpy(parent, ".");
	} else {
		memcpy(parent, raw, begin);
		parent[begin] = '\0';
	}
	return true;
}

enum { FAST_DONE = 0, FAST_FAILED = -1, FAST_SLOW = 1 };


static int fast_resolve(pg_root *root, const char *raw, const struct pg_path *lex,
			unsigned how, struct pg_res *res)
{
	char parent[PG_PATH_MAX + 2];
	char name[PG_NAME_MAX + 1];
	const char *final;
	size_t final_len;
	int dirfd = root->fd, fd = -1;

	if (!split_final(raw, parent, &final, &final_len) || final_len > PG_NAME_MAX)
		return FAST_SLOW;
	memcpy(name, final, final_len);
	name[final_len] = '\0';
	if (strcmp(parent, ".") != 0) {
		dirfd = pg_openat2(root->fd, parent, O_PATH | O_DIRECTORY | O_CLOEXEC, 0,
				   root->resolve | RESOLVE_NO_SYMLINKS);
		if (dirfd < 0)
			return pg_needs_walk(errno) ? FAST_SLOW : FAST_FAILED;
		res->dirfd_owned = true;
	}
	res->dirfd = dirfd;
	if (how & PG_RES_FD) {
		fd = pg_openat2(dirfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC, 0, root->resolve);
		if (fd >= 0 && statx(fd, "", AT_EMPTY_PATH, STX_MASK, &res->stx) < 0) {
			close(fd);
			return FAST_FAILED;
		}
	} else {
		fd = statx(dirfd, name, AT_SYMLINK_NOFOLLOW, STX_MASK, &res->stx);
	}
	if (fd < 0 && errno != ENOENT)
		return pg_needs_walk(errno) ? FAST_SLOW : FAST_FAILED;
	res->exists = fd >= 0;
	if (how & PG_RES_FD)
		res->fd = fd;
	if (res->exists &&
	    ((S_ISLNK(res->stx.stx_mode) && ((how & PG_RES_FOLLOW) || lex->trailing_slash)) ||
	     crosses_mount(root, &res->stx)))
		return FAST_SLOW;
	memcpy(res->real, lex->buf, lex->len + 1);
	res->real_len = lex->len;
	res->name_off = lex->len - final_len;
	res->must_dir = lex->trailing_slash;
	return FAST_DONE;
}

/* ------------------------------------------------------------ resolve */

/* What the walk found, judged: the real name, a dangling creation, the
 * object's identity, a trailing slash on a non-directory. */
static int judge_result(pg_root *root, const char *raw, const struct pg_path *lex,
			enum pg_op op, unsigned how, struct pg_res *res)
{
	bool want_dir = res->must_dir || (how & PG_RES_DIR);

	if (!(how & PG_RES_NO_JUDGE)) {
		bool same = res->real_len == lex->len && memcmp(res->real, lex->buf, lex->len) == 0;

		if (!same && pg_judge_locked(root, res->real, res->real_len, op, raw) < 0)
			return -1;
		if (!res->exists && res->via_link && op == PG_OP_CREATE)
			return pg_refuse(PG_R_DANGLING, ENOENT, raw,
					 "a symlink points at a name that does not exist");
		/* A refusal comes before the kernel's ENOTDIR (the fast path
		 * hands an ENOTDIR to the walk when identities are checked). */
		if (res->exists && !S_ISDIR(res->stx.stx_mode) &&
		    pg_judge_needs_identity(root, op) &&
		    pg_resolve_identity_locked(root,
					       makedev(res->stx.stx_dev_major, res->stx.stx_dev_minor),
					       res->stx.stx_ino, res->stx.stx_nlink, op, raw) < 0)
			return -1;
	}
	if (res->exists && want_dir && !S_ISDIR(res->stx.stx_mode) &&
	    (!S_ISLNK(res->stx.stx_mode) || (how & PG_RES_DIR))) {
		errno = ENOTDIR;
		return -1;
	}
	if (!res->exists && (how & PG_RES_EXIST)) {
		errno = ENOENT;
		return -1;
	}
	return 0;
}

int pg_resolve_locked(pg_root *root, const char *raw, const struct pg_path *lex,
		      enum pg_op op, unsigned how, struct pg_res *res)
{
	int rc = FAST_SLOW;

	res_init(res);
	if (!(how & PG_RES_NO_JUDGE) &&
	    pg_judge_locked(root, lex->buf, lex->len, op, raw) < 0)
		return -1;
	if (root->openat2 && !(how & PG_RES_WALK)) {
		rc = fast_resolve(root, raw, lex, how, res);
		if (rc == FAST_FAILED) {
			int err = errno;

			pg_res_release(res);
			errno = err;
			return -1;
		}
		if (rc == FAST_SLOW) {
			pg_res_release(res);
			res_init(res);
		}
	}
	if (rc == FAST_SLOW && slow_resolve(root, raw, op, how, res, lex->trailing_slash) < 0)
		goto fail;
	if (judge_result(root, raw, lex, op, how, res) < 0)
		goto fail;
	return 0;
fail:
	{
		int err = errno;

		pg_res_release(res);
		errno = err;
	}
	return -1;
}

int pg_res_reopen(const pg_root *root, const struct pg_res *res, int flags, mode_t mode)
{
	int dirfd = res->is_root ? root->fd : res->dirfd;
	const char *name = res->is_root ? "." : pg_res_name(res);

	if (root->openat2)
		return pg_openat2(dirfd, name, flags | O_NOFOLLOW, mode, root->resolve);
	return openat(dirfd, name, flags | O_NOFOLLOW, mode);
}

/* ------------------------------------------------------------ landing */

static bool same_object(const struct statx *a, const struct statx *b)
{
	return a->stx_ino == b->stx_ino && a->stx_dev_major == b->stx_dev_major &&
	       a->stx_dev_minor == b->stx_dev_minor;
}

/* Is directory DIRFD still at root-relative NAME (LEN bytes)? */
static bool still_at(pg_root *root, int dirfd, const char *name, size_t len)
{
	struct statx here, there;
	struct pg_res res;
	struct pg_path *lex;
	bool same = false;
	char buf[PG_REAL_MAX + 1];

	if (statx(dirfd, "", AT_EMPTY_PATH, STATX_INO, &here) < 0)
		return false;
	if (len == 0)
		return here.stx_ino == root->ino &&
		       (dev_t)makedev(here.stx_dev_major, here.stx_dev_minor) == root->dev;
	lex = malloc(sizeof(*lex));
	if (!lex)
		return false;
	memcpy(buf, name, len);
	buf[len] = '\0';
	if (pg_path_normalise(buf, false, lex) == 0 &&
	    pg_resolve_locked(root, buf, lex, PG_OP_READ,
			      PG_RES_NO_JUDGE | PG_RES_NO_LINKS | PG_RES_EXIST, &res) == 0) {
		there = res.stx;
		same = same_object(&here, &there);
		pg_res_release(&res);
	}
	free(lex);
	return same;
}

/* Where directory DIRFD is now, relative to the root; false if outside or
 * unknown. */
static bool where_now(const pg_root *root, int dirfd, char *out, size_t size)
{
	char proc[64], buf[PG_REAL_MAX + 64];
	ssize_t n;

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", dirfd);
	n = readlink(proc, buf, sizeof(buf) - 1);
	if (n <= 0 || (size_t)n >= sizeof(buf) - 1)
		return false;
	buf[n] = '\0';
	if (strstr(buf, " (deleted)"))
		return false;
	if (strncmp(buf, root->path, root->path_len) != 0)
		return false;
	const char *rel;

	if (root->path_len == 1) /* the root is "/" */
		rel = buf + 1;
	else if (buf[root->path_len] == '\0')
		rel = "";
	else if (buf[root->path_len] == '/')
		rel = buf + root->path_len + 1;
	else
		return false;
	if (strlen(rel) >= size)
		return false;
	strcpy(out, rel);
	return true;
}

int pg_landing_ok_locked(pg_root *root, const struct pg_res *res, const char *display)
{
	size_t parent_len = res->name_off ? res->name_off - 1 : 0;
	char now[PG_REAL_MAX + 1];

	if (res->is_root || still_at(root, res->dirfd, res->real, parent_len))
		return 0;
	pg_refusal_clear();
	if (where_now(root, res->dirfd, now, sizeof(now))) {
		size_t len = strlen(now);

		if (len + 1 + strlen(pg_res_name(res)) < sizeof(now)) {
			struct pg_path *lex = malloc(sizeof(*lex));
			int rc = -1;

			snprintf(now + len, sizeof(now) - len, "%s%s", len ? "/" : "",
				 pg_res_name(res));
			if (lex && pg_path_normalise(now[0] ? now : ".", false, lex) == 0)
				rc = pg_judge_locked(root, lex->buf, lex->len,
						     PG_OP_CREATE, display);
			free(lex);
			if (rc == 0)
				return 0;
		}
	}
	if (pg_refusal_code() != PG_R_NONE)
		return -1;
	return escape(display, "the parent directory moved while the name was created");
}

int pg_verify_landing_locked(pg_root *root, const struct pg_res *res, bool is_dir,
			     const char *display)
{
	int err;

	if (pg_landing_ok_locked(root, res, display) == 0)
		return 0;
	/* Denied, outside the root, or unknown: undo. */
	err = errno;
	unlinkat(res->dirfd, pg_res_name(res), is_dir ? AT_REMOVEDIR : 0);
	errno = err;
	return -1;
}

/* ------------------------------------------------------------ identity */

/* Resolve NAME (a literal rule's path) without judging. */
static int probe(pg_root *root, const char *name, unsigned how, struct pg_res *res)
{
	struct pg_path lex;

	if (pg_path_normalise(name[0] ? name : ".", false, &lex) < 0)
		return -1;
	return pg_resolve_locked(root, name[0] ? name : ".", &lex, PG_OP_READ,
				 how | PG_RES_NO_JUDGE, res);
}

/* An object with other links missed the set: is one of the files the
 * rules name that object now? */
static int recheck_named_files(pg_root *root, dev_t dev, ino_t ino, enum pg_op op,
			       const char *display)
{
	const struct pg_identity_set *ids = root->ids;

	for (size_t i = 0; i < pg_ids_file_count(ids); i++) {
		const char *name = pg_ids_file(ids, i);
		struct pg_res res;
		bool same;

		if (probe(root, name, PG_RES_FOLLOW, &res) < 0) {
			pg_refusal_clear();
			continue;
		}
		same = res.exists && res.stx.stx_ino == ino &&
		       (dev_t)makedev(res.stx.stx_dev_major, res.stx.stx_dev_minor) == dev;
		pg_res_release(&res);
		if (same && pg_judge_link_locked(root, name, strlen(name), op, display) < 0)
			return -1;
	}
	return 0;
}

#define PG_ID_SEARCH_BUDGET 4096
#define PG_ID_SEARCH_DEPTH  16

struct search {
	dev_t    dev;
	ino_t    ino;
	uint64_t mnt_id;
	unsigned budget;
	char     name[PG_REAL_MAX + PG_NAME_MAX + 2];
};

/* Is (dev, ino) a non-directory beneath directory FD (owned), named
 * se->name[0, len)?  1 with its name in se->name, else 0. */
static int search_dir(struct search *se, int fd, size_t len, unsigned depth)
{
	DIR *dir = fdopendir(fd);
	struct dirent *e;
	int found = 0;

	if (!dir) {
		close(fd);
		return 0;
	}
	while (!found && se->budget > 0 && (e = readdir(dir))) {
		size_t n = strlen(e->d_name);
		struct statx stx;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") ||
		    len + 1 + n >= sizeof(se->name))
			continue;
		se->budget--;
		if (e->d_type != DT_DIR && e->d_type != DT_UNKNOWN && e->d_ino != se->ino)
			continue;
		if (statx(dirfd(dir), e->d_name, AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT,
			  STATX_TYPE | STATX_INO | STATX_MNT_ID, &stx) < 0)
			continue;
		se->name[len] = '/';
		memcpy(se->name + len + 1, e->d_name, n + 1);
		if (S_ISDIR(stx.stx_mode)) {
			if (depth < PG_ID_SEARCH_DEPTH && stx.stx_mnt_id == se->mnt_id) {
				int sub = openat(dirfd(dir), e->d_name,
						 O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

				if (sub >= 0)
					found = search_dir(se, sub, len + 1 + n, depth + 1);
			}
		} else if (!S_ISLNK(stx.stx_mode) && stx.stx_ino == se->ino &&
			   (dev_t)makedev(stx.stx_dev_major, stx.stx_dev_minor) == se->dev) {
			found = 1;
		}
	}
	closedir(dir);
	return found;
}

/* A multi-linked object is about to be written: is another link of it
 * inside a read-only directory a rule names? */
static int search_read_only_dirs(pg_root *root, dev_t dev, ino_t ino, enum pg_op op,
				 const char *display)
{
	const struct pg_identity_set *ids = root->ids;
	struct search *se = malloc(sizeof(*se));
	int rc = 0;

	if (!se)
		return -1;
	se->dev = dev;
	se->ino = ino;
	se->budget = PG_ID_SEARCH_BUDGET;
	for (size_t i = 0; i < pg_ids_ro_dir_count(ids) && rc == 0 && se->budget > 0; i++) {
		struct pg_res res;
		int fd;

		if (probe(root, pg_ids_ro_dir(ids, i), PG_RES_FOLLOW, &res) < 0) {
			pg_refusal_clear();
			continue;
		}
		fd = res.exists && S_ISDIR(res.stx.stx_mode) ?
		     pg_res_reopen(root, &res, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0) : -1;
		se->mnt_id = res.stx.stx_mnt_id;
		memcpy(se->name, res.real, res.real_len + 1);
		if (fd >= 0 && search_dir(se, fd, res.real_len, 0))
			rc = pg_judge_link_locked(root, se->name, strlen(se->name), op, display);
		pg_res_release(&res);
	}
	free(se);
	return rc;
}

int pg_resolve_identity_locked(pg_root *root, dev_t dev, ino_t ino, nlink_t nlink,
			       enum pg_op op, const char *display)
{
	int rc = pg_judge_identity_locked(root, dev, ino, nlink, op, display);

	if (rc != PG_JUDGE_LOOK_AGAIN)
		return rc;
	if (recheck_named_files(root, dev, ino, op, display) < 0)
		return -1;
	if (op != PG_OP_READ && pg_ids_ro_dir_count(root->ids))
		return search_read_only_dirs(root, dev, ino, op, display);
	return 0;
}
