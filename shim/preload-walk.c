/* preload-walk.c - the tree walkers and glob, which list and open
 * directories with glibc's internal calls, out of the guard's sight.
 *
 * The start name is judged as before.  Beneath it, what the walk reports
 * passes through the guard: a denied entry is reported by name only, the
 * way readdir shows it (nftw: FTW_NS, or FTW_DNR for a directory; fts:
 * FTS_NS, FTS_DNR; its stat zeroed), and a denied directory is not
 * descended into, so no name beneath it reaches the program.  Where the
 * walk has already listed a denied directory (nftw with FTW_DEPTH reads a
 * directory before reporting it), its entries are dropped: an entry is
 * reported only when its directory may be read.  glob gets the interposed
 * opendir, readdir, closedir, stat and lstat (GLOB_ALTDIRFUNC), so it
 * lists nothing the guard refuses to list. */
#include "config.h"
/* The interposers define the names themselves: no header redirects. */
#undef _FILE_OFFSET_BITS
#undef _FORTIFY_SOURCE

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fts.h>
#include <ftw.h>
#include <glob.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "pathgate.h"
#include "preload.h"

/* Judge PATH for reading as a whole guarded call: 0 to go on. */
static int judge_read(const char *path, const char *call)
{
	return pl_judge_op(AT_FDCWD, path, 0, PG_OP_READ, call);
}

/* May PATH (relative to the working directory) be read?  Quietly: a walk
 * meets many names, and the refusal shows as the entry's type. */
static bool readable(const char *path, bool nofollow)
{
	struct pl_name n;
	bool ok = true;

	if (!pl_enter())
		return true;
	if (pl_locate(AT_FDCWD, path, nofollow ? AT_SYMLINK_NOFOLLOW : 0, &n) < 0 ||
	    pl_judge(&n, PG_OP_READ) < 0)
		ok = false;
	pl_leave();
	return ok;
}

/* The directory holding the entry NAME (LEN bytes of it before its last
 * component), as a name relative to the working directory. */
static bool parent_readable(const char *name, size_t len)
{
	char dir[PATH_MAX];

	while (len > 1 && name[len - 1] == '/')
		len--;
	if (len == 0)
		return readable(".", false);
	if (len >= sizeof(dir))
		return false;
	memcpy(dir, name, len);
	dir[len] = '\0';
	return readable(dir, false);
}

/* ------------------------------------------------------------------ nftw */

enum entry_verdict { ENTRY_SHOW, ENTRY_DENIED, ENTRY_HIDE };

/* One nftw (or ftw) under way on this thread: the caller's callback and
 * flags, and the caller's own nonzero return when it stopped the walk.
 * Walks nest (a callback may walk): each frame points to the one below. */
struct walk {
	__nftw_func_t fn;
	__ftw_func_t  ftw_fn;   /* ftw's callback, run through nftw */
	int           flags;
	int           stopped;
	bool          stop;
	struct walk  *up;
};
static __thread struct walk *walking;

/* With FTW_CHDIR, nftw works in the entry's directory, except for a
 * directory's FTW_DP report, made from within that directory. */
static enum entry_verdict nftw_verdict(const char *path, int type, const struct FTW *ftw, int flags)
{
	bool chdir_mode = (flags & FTW_CHDIR) != 0, inside = chdir_mode && type == FTW_DP;
	const char *name = inside ? "." : chdir_mode ? path + ftw->base : path;

	if (ftw->level == 0)
		return ENTRY_SHOW;  /* the start, judged by nftw itself */
	if (!(chdir_mode ? readable(inside ? ".." : ".", false) : parent_readable(path, (size_t)ftw->base)))
		return ENTRY_HIDE;
	if (!readable(name, (flags & FTW_PHYS) || type == FTW_SL || type == FTW_SLN))
		return ENTRY_DENIED;
	return ENTRY_SHOW;
}

static int walk_entry(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	struct walk *w = walking;
	enum entry_verdict v = nftw_verdict(path, type, ftw, w->flags);
	bool preorder_dir = type == FTW_D && !(w->flags & FTW_DEPTH);
	struct stat none;
	int r;

	if (v == ENTRY_HIDE)
		return preorder_dir ? FTW_SKIP_SUBTREE : FTW_CONTINUE;
	if (v == ENTRY_DENIED) {
		memset(&none, 0, sizeof(none));
		st = &none;
		type = (type == FTW_D || type == FTW_DP || type == FTW_DNR) ? FTW_DNR : FTW_NS;
	}
	r = w->ftw_fn ? w->ftw_fn(path, st, type) : w->fn(path, st, type, ftw);
	if (w->flags & FTW_ACTIONRETVAL)
		return v == ENTRY_DENIED && preorder_dir && r == FTW_CONTINUE ? FTW_SKIP_SUBTREE : r;
	if (r != 0) {
		w->stopped = r;
		w->stop = true;
		return FTW_STOP;
	}
	return v == ENTRY_DENIED && preorder_dir ? FTW_SKIP_SUBTREE : FTW_CONTINUE;
}

PL_DECLARE_REAL(nftw);

/* The walk runs with FTW_ACTIONRETVAL, so a denied directory's subtree
 * can be skipped; a caller that did not ask for it gets its own return
 * values back. */
static int guarded_nftw(const char *dir, struct walk *w, int nopenfd)
{
	int rc;

	w->up = walking;
	walking = w;
	rc = PL_REAL(nftw)(dir, walk_entry, nopenfd, w->flags | FTW_ACTIONRETVAL);
	walking = w->up;
	if (!(w->flags & FTW_ACTIONRETVAL) && w->stop)
		rc = w->stopped;
	return rc;
}

int nftw(const char *dir, __nftw_func_t fn, int nopenfd, int flags)
{
	int at = (flags & FTW_PHYS) ? AT_SYMLINK_NOFOLLOW : 0;
	struct walk w = { .fn = fn, .flags = flags };

	if (!pl_active())
		return PL_REAL(nftw)(dir, fn, nopenfd, flags);
	if (pl_judge_op(AT_FDCWD, dir, at, PG_OP_READ, "nftw") < 0)
		return -1;
	return guarded_nftw(dir, &w, nopenfd);
}

int nftw64(const char *dir, __nftw64_func_t fn, int nopenfd, int flags)
{
	return nftw(dir, (__nftw_func_t)fn, nopenfd, flags);
}

PL_DECLARE_REAL(ftw);

/* ftw is nftw without flags: walked the same way. */
int ftw(const char *dir, __ftw_func_t fn, int nopenfd)
{
	struct walk w = { .ftw_fn = fn };

	if (!pl_active())
		return PL_REAL(ftw)(dir, fn, nopenfd);
	if (judge_read(dir, "ftw") < 0)
		return -1;
	return guarded_nftw(dir, &w, nopenfd);
}

int ftw64(const char *dir, __ftw64_func_t fn, int nopenfd)
{
	return ftw(dir, (__ftw_func_t)fn, nopenfd);
}

/* ------------------------------------------------------------------- fts */

PL_DECLARE_REAL(fts_open);
PL_DECLARE_REAL(fts64_open);
PL_DECLARE_REAL(fts_read);
PL_DECLARE_REAL(fts64_read);

FTS *fts_open(char *const *argv, int options, int (*compar)(const FTSENT **, const FTSENT **))
{
	size_t i;

	for (i = 0; argv && argv[i]; i++)
		if (judge_read(argv[i], "fts_open") < 0)
			return NULL;
	return PL_REAL(fts_open)(argv, options, compar);
}

FTS64 *fts64_open(char *const *argv, int options, int (*compar)(const FTSENT64 **, const FTSENT64 **))
{
	size_t i;

	for (i = 0; argv && argv[i]; i++)
		if (judge_read(argv[i], "fts_open") < 0)
			return NULL;
	return PL_REAL(fts64_open)(argv, options, compar);
}

/* A denied entry beneath the start: its name only.  A directory becomes
 * FTS_DNR, which fts neither descends into nor lists (fts_children
 * answers only for FTS_D); fts itself never reads it.  fts_accpath names
 * the entry from the working directory fts keeps. */
#define FTS_GUARD_AS(ent, acc, options)                                                \
	do {                                                                           \
		if ((ent)->fts_level > FTS_ROOTLEVEL && (ent)->fts_info != FTS_DP &&  \
		    (!*(acc) || !readable((acc), ((options) & FTS_PHYSICAL) != 0))) { \
			(ent)->fts_info = (ent)->fts_info == FTS_D || (ent)->fts_info == FTS_DNR || \
					  (ent)->fts_info == FTS_DC ? FTS_DNR : FTS_NS;  \
			(ent)->fts_errno = EACCES;                                     \
			if ((ent)->fts_statp)                                          \
				memset((ent)->fts_statp, 0, sizeof(*(ent)->fts_statp)); \
		}                                                                      \
	} while (0)
#define FTS_GUARD(ent, options) FTS_GUARD_AS(ent, (ent)->fts_accpath, options)

FTSENT *fts_read(FTS *fts)
{
	FTSENT *ent = PL_REAL(fts_read)(fts);

	if (ent && pl_active())
		FTS_GUARD(ent, fts->fts_options);
	return ent;
}

FTSENT64 *fts64_read(FTS64 *fts)
{
	FTSENT64 *ent = PL_REAL(fts64_read)(fts);

	if (ent && pl_active())
		FTS_GUARD(ent, fts->fts_options);
	return ent;
}

/* fts_children lists the current directory's entries, stat and all:
 * each is judged by the directory's name from the working directory
 * (its path, FTS_NOCHDIR, cut at fts_pathlen: fts builds the children's
 * names in the same buffer; else its access name) and the entry's own.
 * A name too long to build is taken as refused. */
#define FTS_GUARD_CHILDREN(fts, list, options)                                         \
	do {                                                                           \
		char name_[PATH_MAX];                                                  \
		__typeof__(list) c_;                                                   \
		__typeof__(list) d_ = (fts)->fts_cur;                                  \
		for (c_ = (list); c_ && d_; c_ = c_->fts_link) {                      \
			int n_ = ((options) & FTS_NOCHDIR)                             \
				? snprintf(name_, sizeof(name_), "%.*s/%s", (int)d_->fts_pathlen, \
					   d_->fts_path, c_->fts_name)                 \
				: snprintf(name_, sizeof(name_), "%s/%s", d_->fts_accpath, \
					   c_->fts_name);                              \
			if (n_ < 0 || (size_t)n_ >= sizeof(name_))                     \
				name_[0] = '\0';                                      \
			FTS_GUARD_AS(c_, name_, options);                              \
		}                                                                      \
	} while (0)

PL_DECLARE_REAL(fts_children);
PL_DECLARE_REAL(fts64_children);

FTSENT *fts_children(FTS *fts, int options)
{
	FTSENT *list = PL_REAL(fts_children)(fts, options);

	if (list && pl_active())
		FTS_GUARD_CHILDREN(fts, list, fts->fts_options);
	return list;
}

FTSENT64 *fts64_children(FTS64 *fts, int options)
{
	FTSENT64 *list = PL_REAL(fts64_children)(fts, options);

	if (list && pl_active())
		FTS_GUARD_CHILDREN(fts, list, fts->fts_options);
	return list;
}

/* ------------------------------------------------------------------ glob */

/* glob's directory functions, through the interposed calls. */
static void *glob_opendir(const char *path)
{
	return opendir(path);
}

static void glob_closedir(void *d)
{
	closedir(d);
}

static struct dirent *glob_readdir(void *d)
{
	return readdir(d);
}

static struct dirent64 *glob_readdir64(void *d)
{
	return readdir64(d);
}

PL_DECLARE_REAL(glob);
PL_DECLARE_REAL(glob64);

/* A caller's own GLOB_ALTDIRFUNC functions are its own business (they
 * call the interposed names or none). */
int glob(const char *pattern, int flags, int (*errfunc)(const char *, int), glob_t *g)
{
	int rc;

	if (!pl_active() || (flags & GLOB_ALTDIRFUNC))
		return PL_REAL(glob)(pattern, flags, errfunc, g);
	g->gl_opendir = glob_opendir;
	g->gl_readdir = glob_readdir;
	g->gl_closedir = glob_closedir;
	g->gl_stat = stat;
	g->gl_lstat = lstat;
	rc = PL_REAL(glob)(pattern, flags | GLOB_ALTDIRFUNC, errfunc, g);
	g->gl_flags &= ~GLOB_ALTDIRFUNC;
	return rc;
}

int glob64(const char *pattern, int flags, int (*errfunc)(const char *, int), glob64_t *g)
{
	int rc;

	if (!pl_active() || (flags & GLOB_ALTDIRFUNC))
		return PL_REAL(glob64)(pattern, flags, errfunc, g);
	g->gl_opendir = glob_opendir;
	g->gl_readdir = glob_readdir64;
	g->gl_closedir = glob_closedir;
	g->gl_stat = stat64;
	g->gl_lstat = lstat64;
	rc = PL_REAL(glob64)(pattern, flags | GLOB_ALTDIRFUNC, errfunc, g);
	g->gl_flags &= ~GLOB_ALTDIRFUNC;
	return rc;
}
