/* resolve-walk.c - the component walk of resolution (see resolve.h):
 * a directory fd held per level, each component opened O_PATH|O_NOFOLLOW
 * beneath its parent, symlinks read through their fd and expanded in
 * place, '..' popping the held stack, mounts checked by id (without
 * openat2: of the deepest level held, before any step but one down; see
 * settle_mounts); and the small
 * pieces the fast path shares with it.  Calls the judge, never back into
 * resolve.c. */
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
#include "resolve-walk.h"
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

void pg_res_init(struct pg_res *res)
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

int pg_res_escape(const char *display, const char *why)
{
	return pg_refuse(PG_R_PATH_ESCAPE, EACCES, display, why);
}

bool pg_res_crosses_mount(const pg_root *root, const struct statx *stx)
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
	bool        unsettled; /* fallback: the top's mount not looked at yet */
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

/* A component before the end is not a directory: inside a denied region
 * that answers like an absent name would, with the refusal, so that what
 * exists there does not show (issue 11.6); elsewhere ENOTDIR. */
static int not_a_directory(struct walk *w, const char *comp, size_t len)
{
	if (judging(w) && judge_would_be(w, comp, len) < 0)
		return -1;
	errno = ENOTDIR;
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
			return pg_res_escape(w->display, "a symlink in /proc");
		errno = ENOTDIR;
		return -1;
	}
	n = fd >= 0 ? readlinkat(fd, "", target, sizeof(target) - 1) :
		      readlinkat(dirfd, comp, target, sizeof(target) - 1);
	if (n < 0 && errno == EINVAL && fd < 0)
		return not_a_directory(w, comp, len); /* read by name: it is not a symlink */
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
		return pg_res_escape(w->display, "a symlink to an absolute path");

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

		if (pg_is_dotdot(comp, len) || !pg_path_next(&after, &c2, &l2))
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
		return pg_res_escape(w->display, "a mount point on the way");
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
			return pg_res_escape(w->display, "a mount point on the way");
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
	if (pg_res_crosses_mount(w->root, &res->stx)) {
		if (fd >= 0)
			close(fd);
		return pg_res_escape(w->display, "a mount point on the way");
	}
	if (S_ISLNK(res->stx.stx_mode) && follow) {
		int rc = expand(w, top, fd, name, len);

		if (fd >= 0)
			close(fd);
		return rc;
	}
	return finish_final(w, fd, true, name, len, via) < 0 ? -1 : 2;
}

/* The fallback walk pushes a directory without looking at its mount
 * (step_openat); before it does anything but go down one more directory
 * it looks at the top's.  A lookup of one name in a directory stays on
 * that directory's mount or enters one stacked on it, a descendant in the
 * mount tree, never an ancestor: the top on the root's mount proves every
 * held level beneath it is.  The check is on the held fd, whose mount
 * cannot change.  Returns 0, or -1 with the escape refused. */
static int settle_mounts(struct walk *w)
{
	struct statx stx;

	if (!w->unsettled)
		return 0;
	if (statx(w->fds[w->n - 1], "", AT_EMPTY_PATH, STATX_MNT_ID, &stx) < 0)
		return -1;
	if (pg_res_crosses_mount(w->root, &stx))
		return pg_res_escape(w->display, "a mount point on the way");
	w->unsettled = false;
	return 0;
}

/* The fallback walk's step for anything but a directory (or after a
 * race): openat(O_PATH|O_NOFOLLOW), then statx for the type and the
 * mount id.  The levels below are settled. */
static int step_other(struct walk *w, const char *name, size_t len, bool via)
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
	if (pg_res_crosses_mount(w->root, &res->stx)) {
		close(fd);
		return pg_res_escape(w->display, "a mount point on the way");
	}
	if (S_ISLNK(res->stx.stx_mode)) {
		rc = expand(w, top, fd, name, len);
		close(fd);
		return rc;
	}
	if (!S_ISDIR(res->stx.stx_mode)) {
		close(fd);
		return not_a_directory(w, name, len);
	}
	if (append_real(res, name, len) < 0 || push(w, fd, res->real_len) < 0) {
		close(fd);
		return -1;
	}
	return 0;
}

/* The fallback walk's step: one openat(O_PATH|O_DIRECTORY|O_NOFOLLOW)
 * finds a directory that is no symlink; its mount waits for
 * settle_mounts.  Anything else goes to step_other once the levels below
 * are settled, so a symlink, a missing name or an error on a foreign
 * mount is refused as the mount, as before. */
static int step_openat(struct walk *w, const char *name, size_t len, bool via)
{
	int fd = openat(w->fds[w->n - 1], name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0) {
		bool absent = errno == ENOENT;

		if (settle_mounts(w) < 0)
			return -1;
		return absent ? missing(w, name, len, via) : step_other(w, name, len, via);
	}
	if (append_real(w->res, name, len) < 0 || push(w, fd, w->res->real_len) < 0) {
		int err = errno;

		close(fd);
		/* As before: a mount on the way is told before the name's length. */
		if (settle_mounts(w) < 0)
			return -1;
		errno = err;
		return -1;
	}
	w->unsettled = true;
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
			return settle_mounts(w) < 0 ? -1 : finish_on_stack(w);
		via = start < w->link_end;
		last = at_end(w);
		if ((last || pg_is_dotdot(comp, len) || len > PG_NAME_MAX) && settle_mounts(w) < 0)
			return -1;
		if (pg_is_dotdot(comp, len)) {
			if (w->n == 1)
				return pg_res_escape(w->display, "'..' climbs above the root");
			pop(w);
			continue;
		}
		if (len > PG_NAME_MAX) {
			errno = ENAMETOOLONG;
			return -1;
		}
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

int pg_resolve_walk(pg_root *root, const char *raw, enum pg_op op, unsigned how,
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
