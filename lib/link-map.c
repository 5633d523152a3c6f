/* link-map.c - the other links of multi-linked files (see link-map.h).
 * Nothing here follows a symlink: directories are opened O_NOFOLLOW
 * beneath the root's own descriptor, names are judged as they are. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "link-map.h"
#include "refusal.h"

/* A file changed this long before a scan began counts as changed after
 * it: the kernel stamps ctimes from a coarse clock, some filesystems keep
 * whole seconds (FAT two), and the clock may be stepped back a little. */
#define CLOCK_MARGIN_SEC 3

/* Multi-linked files changed within the margin before a scan, recorded by
 * it, so that a tree just linked (a package manager's install) costs one
 * scan, not one each. */
#define SETTLED_MAX (1u << 18)

struct refused {
	dev_t          dev;
	ino_t          ino;
	enum pg_access access;
	uint32_t       name;   /* offset in the search's names */
};

struct settled {
	dev_t           dev;
	ino_t           ino;
	nlink_t         nlink;
	struct timespec ctime;
};

/* What one search of the workspace found.  Built privately by the thread
 * that searches, then published: no lock is held while the workspace is
 * read (a fork in another thread meanwhile leaves the child no lock held
 * by a thread it lacks). */
struct search {
	bool            complete;  /* it stayed within its bounds */
	struct timespec began;     /* its start, less the margin */
	struct timespec started;   /* its start, on the ctime clock */
	struct refused *v;
	size_t          n, cap;
	char           *names;
	size_t          names_len, names_cap;
	struct settled *settled;   /* sorted by (ino, dev) */
	size_t          nsettled, capsettled;
	/* The object the search was made for, as the search met it. */
	bool            target_seen;
	nlink_t         target_nlink;
	struct timespec target_ctime;
};

/* Where a search starts and by which policy it judges names: the root's
 * own, or for a sub-root (pg_root_open_at) its top root's, so that a link
 * outside the sub-root is found and judged as the top root judges it. */
struct view {
	int             fd;        /* O_PATH directory, owned when a top root's */
	const pg_policy *policy;
	pg_policy      *own_policy;/* the top root's policy, copied; else NULL */
	uint64_t        mnt_id;
	dev_t           dev;
	bool            any_mount;
	bool            refuses_read, refuses_write;
};

struct pg_link_map {
	pthread_mutex_t lock;      /* held only to read or swap LAST */
	struct view     top;       /* a sub-root's top root (top.own_policy set) */
	struct search  *last;      /* the latest search published, or NULL */
	atomic_uint     scans;     /* searches made, kept or not */
	/* Directory moves through this root: in progress, and done. */
	atomic_uint     moving;
	atomic_uint     moved;
};

struct scan {
	struct search      *se;
	const struct pg_object *target;
	const pg_policy    *policy;
	uint64_t            mnt_id;
	dev_t               dev;       /* the root's filesystem */
	bool                any_mount;
	unsigned            budget;
	char                name[PATH_MAX + PG_NAME_MAX + 2];
};

struct pg_link_map *pg_link_map_new(void)
{
	struct pg_link_map *map = calloc(1, sizeof(*map));

	if (map)
		pthread_mutex_init(&map->lock, NULL);
	return map;
}

static void search_free(struct search *se)
{
	if (!se)
		return;
	free(se->settled);
	free(se->v);
	free(se->names);
	free(se);
}

void pg_link_map_free(struct pg_link_map *map)
{
	if (!map)
		return;
	pthread_mutex_destroy(&map->lock);
	search_free(map->last);
	if (map->top.own_policy) {
		close(map->top.fd);
		pg_policy_free(map->top.own_policy);
	}
	free(map);
}

/* The root's write lock is held: nobody else looks at the map. */
void pg_link_map_reset(struct pg_link_map *map)
{
	if (!map)
		return;
	search_free(map->last);
	map->last = NULL;
}

unsigned pg_link_map_scans(const pg_root *root)
{
	return root->links ? atomic_load(&root->links->scans) : 0;
}

/* ------------------------------------------------------------ the scan */

static int keep_name(struct search *se, const char *name, size_t len, uint32_t *off)
{
	if (se->names_len + len + 1 > se->names_cap) {
		size_t cap = se->names_cap ? se->names_cap * 2 : 4096;
		char *v;

		while (cap < se->names_len + len + 1)
			cap *= 2;
		if (cap > UINT32_MAX || !(v = realloc(se->names, cap)))
			return -1;
		se->names = v;
		se->names_cap = cap;
	}
	*off = (uint32_t)se->names_len;
	memcpy(se->names + se->names_len, name, len + 1);
	se->names_len += len + 1;
	return 0;
}

static int record(struct search *se, const struct statx *stx, enum pg_access access,
		  const char *name, size_t len)
{
	struct refused *e;

	if (se->n == se->cap) {
		size_t cap = se->cap ? se->cap * 2 : 16;
		struct refused *v = realloc(se->v, cap * sizeof(*v));

		if (!v)
			return -1;
		se->v = v;
		se->cap = cap;
	}
	e = &se->v[se->n];
	if (keep_name(se, name, len, &e->name) < 0)
		return -1;
	e->dev = makedev(stx->stx_dev_major, stx->stx_dev_minor);
	e->ino = stx->stx_ino;
	e->access = access;
	se->n++;
	return 0;
}

static bool before(struct timespec a, struct timespec b)
{
	return a.tv_sec < b.tv_sec || (a.tv_sec == b.tv_sec && a.tv_nsec < b.tv_nsec);
}

/* Will any later change of a file that now has ctime CTIME show in its
 * ctime?  Only when the clock has moved past it since: a change in the
 * same tick (or, where whole seconds are kept, the same seconds) could
 * leave it as it is. */
static bool ctime_will_move(struct timespec ctime, struct timespec now)
{
	if (ctime.tv_nsec == 0)
		ctime.tv_sec += CLOCK_MARGIN_SEC;
	return before(ctime, now);
}

static void settle(struct search *se, const struct statx *stx)
{
	struct timespec ctime = { stx->stx_ctime.tv_sec, stx->stx_ctime.tv_nsec };

	if (!ctime_will_move(ctime, se->started))
		return;  /* a later scan must look again */
	if (se->nsettled == se->capsettled) {
		size_t cap = se->capsettled ? se->capsettled * 2 : 256;
		struct settled *v;

		if (cap > SETTLED_MAX || !(v = realloc(se->settled, cap * sizeof(*v))))
			return;  /* unsettled: looked at again, never wrongly trusted */
		se->settled = v;
		se->capsettled = cap;
	}
	se->settled[se->nsettled++] = (struct settled){
		makedev(stx->stx_dev_major, stx->stx_dev_minor), stx->stx_ino, stx->stx_nlink, ctime };
}

/* A non-directory: record it when it has other links and its name is
 * refused something; remember it when it changed just before the scan. */
static int look_at_file(struct scan *sc, int dirfd, const char *entry, size_t len)
{
	struct pg_judgement j;
	enum pg_access access;
	struct statx stx;

	if (statx(dirfd, entry, AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT,
		  STATX_TYPE | STATX_INO | STATX_NLINK | STATX_CTIME, &stx) < 0)
		return 0;  /* gone since readdir: its new name, if any, moved its ctime */
	if (stx.stx_ino == sc->target->ino &&
	    makedev(stx.stx_dev_major, stx.stx_dev_minor) == sc->target->dev) {
		sc->se->target_seen = true;
		sc->se->target_nlink = stx.stx_nlink;
		sc->se->target_ctime = (struct timespec){ stx.stx_ctime.tv_sec, stx.stx_ctime.tv_nsec };
	}
	if (S_ISDIR(stx.stx_mode) || S_ISLNK(stx.stx_mode) || stx.stx_nlink <= 1)
		return 0;
	if (!before((struct timespec){ stx.stx_ctime.tv_sec, stx.stx_ctime.tv_nsec },
		    sc->se->began))
		settle(sc->se, &stx);
	access = pg_policy_judge(sc->policy, sc->name, len, &j);
	if (access == PG_WRITE)
		return 0;
	return record(sc->se, &stx, access, sc->name, len);
}

static int scan_dir(struct scan *sc, int fd, size_t len, unsigned depth);

static int descend(struct scan *sc, int dirfd, const char *entry, size_t len, unsigned depth)
{
	struct statx stx;
	int fd;

	if (depth >= PG_LINK_SCAN_DEPTH) {
		sc->se->complete = false;
		return 0;
	}
	fd = openat(dirfd, entry, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return 0;  /* not a directory after all, or not ours to list */
	/* Another mount of the root's own filesystem (a bind mount inside the
	 * workspace) may hold other links of its files: searched too. */
	if (!sc->any_mount &&
	    (statx(fd, "", AT_EMPTY_PATH, STATX_MNT_ID, &stx) < 0 ||
	     (stx.stx_mnt_id != sc->mnt_id &&
	      makedev(stx.stx_dev_major, stx.stx_dev_minor) != sc->dev))) {
		close(fd);
		return 0;  /* another filesystem: no link crosses into it */
	}
	return scan_dir(sc, fd, len, depth + 1);
}

static int scan_entry(struct scan *sc, int dirfd, const struct dirent *e, size_t len,
		      unsigned depth)
{
	size_t n = strlen(e->d_name);
	size_t full = len ? len + 1 + n : n;

	if (full >= sizeof(sc->name)) {
		sc->se->complete = false;
		return 0;
	}
	if (len)
		sc->name[len] = '/';
	memcpy(sc->name + (len ? len + 1 : 0), e->d_name, n + 1);
	if (e->d_type == DT_DIR || e->d_type == DT_UNKNOWN) {
		int rc = descend(sc, dirfd, e->d_name, full, depth);

		if (rc < 0 || e->d_type == DT_DIR)
			return rc;
	}
	if (e->d_type == DT_LNK || e->d_type == DT_DIR)
		return 0;
	return look_at_file(sc, dirfd, e->d_name, full);
}

/* Every entry beneath directory FD (owned), named sc->name[0, len). */
static int scan_dir(struct scan *sc, int fd, size_t len, unsigned depth)
{
	DIR *dir = fdopendir(fd);
	struct dirent *e;
	int rc = 0;

	if (!dir) {
		close(fd);
		return 0;
	}
	while (rc == 0 && (e = readdir(dir))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (sc->budget == 0) {
			sc->se->complete = false;
			break;
		}
		sc->budget--;
		rc = scan_entry(sc, dirfd(dir), e, len, depth);
	}
	closedir(dir);
	return rc;
}

static int cmp_refused(const void *a, const void *b)
{
	const struct refused *x = a, *y = b;

	if (x->ino != y->ino)
		return x->ino < y->ino ? -1 : 1;
	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	return (int)x->access - (int)y->access; /* the strictest first */
}

static int cmp_settled(const void *a, const void *b)
{
	const struct settled *x = a, *y = b;

	if (x->ino != y->ino)
		return x->ino < y->ino ? -1 : 1;
	return x->dev < y->dev ? -1 : x->dev > y->dev;
}

/* Search the workspace for the other names of TARGET: a new search, or
 * NULL (no memory). */
static struct view view_of(const pg_root *root)
{
	if (root->links && root->links->top.own_policy)
		return root->links->top;
	return (struct view){ root->fd, root->policy, NULL, root->mnt_id, root->dev,
			      root->flags & PG_ROOT_XDEV, false, false };
}

int pg_link_map_adopt_top(pg_root *sub, pg_root *parent)
{
	struct view top;
	int err;

	if (!sub->links)
		return 0;
	pthread_rwlock_rdlock(&parent->lock);
	top = view_of(parent);
	top.refuses_read = parent->has_deny_ids ||
			   (parent->links && parent->links->top.refuses_read);
	top.refuses_write = parent->has_read_ids || top.refuses_read ||
			    (parent->links && parent->links->top.refuses_write);
	top.own_policy = pg_policy_dup(top.policy);
	top.fd = top.own_policy ? fcntl(top.fd, F_DUPFD_CLOEXEC, 0) : -1;
	err = errno;
	pthread_rwlock_unlock(&parent->lock);
	if (top.fd < 0) {
		pg_policy_free(top.own_policy);
		errno = err;
		return -1;
	}
	top.policy = top.own_policy;
	pthread_rwlock_wrlock(&sub->lock);
	sub->links->top = top;
	sub->has_deny_ids = sub->has_deny_ids || top.refuses_read;
	sub->has_read_ids = sub->has_read_ids || top.refuses_write;
	pthread_rwlock_unlock(&sub->lock);
	return 0;
}

bool pg_link_map_top_refuses(const pg_root *root, enum pg_op op)
{
	const struct pg_link_map *map = root->links;

	if (!map || !map->top.own_policy)
		return false;
	return op == PG_OP_READ ? map->top.refuses_read : map->top.refuses_write;
}

static struct search *search_workspace(pg_root *root, const struct pg_object *target)
{
	struct view v = view_of(root);
	struct search *se = calloc(1, sizeof(*se));
	struct scan *sc = malloc(sizeof(*sc));
	int fd, rc;

	if (!se || !sc) {
		free(sc);
		free(se);
		return NULL;
	}
	clock_gettime(CLOCK_REALTIME_COARSE, &se->started);
	se->began = se->started;
	se->began.tv_sec -= CLOCK_MARGIN_SEC;
	se->complete = true;
	*sc = (struct scan){ .se = se, .target = target, .policy = v.policy,
			     .mnt_id = v.mnt_id, .dev = v.dev, .any_mount = v.any_mount,
			     .budget = PG_LINK_SCAN_BUDGET };
	fd = openat(v.fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	rc = fd < 0 ? (se->complete = false, 0) : scan_dir(sc, fd, 0, 0);
	free(sc);
	if (rc < 0) {
		search_free(se);
		return NULL;
	}
	if (se->n)
		qsort(se->v, se->n, sizeof(*se->v), cmp_refused);
	if (se->nsettled)
		qsort(se->settled, se->nsettled, sizeof(*se->settled), cmp_settled);
	return se;
}

/* ------------------------------------------------------------- lookups */

static const struct refused *find(const struct search *se, dev_t dev, ino_t ino)
{
	struct refused key = { .dev = dev, .ino = ino, .access = PG_DENY };
	size_t lo = 0, hi = se->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (cmp_refused(&se->v[mid], &key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < se->n && se->v[lo].ino == ino && se->v[lo].dev == dev)
		return &se->v[lo];
	return NULL;
}

static bool same_time(struct timespec a, struct timespec b)
{
	return a.tv_sec == b.tv_sec && a.tv_nsec == b.tv_nsec;
}

/* Has the last scan seen OBJ's links as they are now?  Yes when OBJ last
 * changed before the scan began (margin included), or when the scan
 * recorded it with the ctime and link count it has now. */
static bool seen_as_is(const struct search *se, const struct pg_object *obj)
{
	struct settled key = { .dev = obj->dev, .ino = obj->ino };
	const struct settled *s;

	if (before(obj->ctime, se->began))
		return true;
	s = se->nsettled ? bsearch(&key, se->settled, se->nsettled, sizeof(key), cmp_settled)
			  : NULL;
	return s && s->nlink == obj->nlink && same_time(s->ctime, obj->ctime);
}

static enum pg_access needed_access(enum pg_op op)
{
	return op == PG_OP_READ ? PG_READ : PG_WRITE;
}

static int refuse_other_link(enum pg_access access, const char *name, const char *display)
{
	char why[PATH_MAX + 64];

	snprintf(why, sizeof(why), "another link to the same file: %s", name);
	return pg_refuse(access == PG_DENY ? PG_R_DENIED : PG_R_READ_ONLY, 0, display, why);
}

/* OBJ's verdict by SE: the strictest access of its refused names (PG_WRITE
 * when none), that name in NAME, and whether SE is complete. */
static enum pg_access verdict(const struct search *se, const struct pg_object *obj,
			      char *name, size_t size, bool *complete)
{
	const struct refused *e = find(se, obj->dev, obj->ino);

	*complete = se->complete;
	if (!e)
		return PG_WRITE;
	snprintf(name, size, "%s", se->names + e->name);
	return e->access;
}

void pg_link_map_moving(pg_root *root)
{
	if (root->links)
		atomic_fetch_add(&root->links->moving, 1);
}

void pg_link_map_moved(pg_root *root)
{
	if (root->links) {
		atomic_fetch_add(&root->links->moved, 1);
		atomic_fetch_sub(&root->links->moving, 1);
	}
}

/* How far a search may be trusted for OBJ. */
enum steadiness {
	STEADY,   /* OBJ and the workspace's directories kept still throughout */
	UNSURE,   /* nothing seen moving, but OBJ was not met, or changed in
		   * the clock tick the search began in */
	MOVED,    /* OBJ's links or a directory moved meanwhile: search again */
};

static enum steadiness object_steady(const struct pg_object *obj, const struct search *se)
{
	struct statx stx;

	if (obj->at_name) {
		if (statx(obj->at_fd, obj->at_name, obj->at_flags,
			  STATX_INO | STATX_NLINK | STATX_CTIME, &stx) < 0 ||
		    stx.stx_ino != obj->ino ||
		    makedev(stx.stx_dev_major, stx.stx_dev_minor) != obj->dev ||
		    stx.stx_nlink != obj->nlink ||
		    !same_time((struct timespec){ stx.stx_ctime.tv_sec, stx.stx_ctime.tv_nsec },
			       obj->ctime))
			return MOVED;
	}
	if (se->target_seen &&
	    (se->target_nlink != obj->nlink || !same_time(se->target_ctime, obj->ctime)))
		return MOVED;
	if (!se->target_seen || !before(obj->ctime, se->started))
		return UNSURE;
	return STEADY;
}

static void publish(struct pg_link_map *map, struct search *fresh)
{
	struct search *old;

	pthread_mutex_lock(&map->lock);
	old = map->last;
	map->last = fresh;
	pthread_mutex_unlock(&map->lock);
	search_free(old);
}

#define SEARCH_TRIES 3

/* Search until a search held still for OBJ (SEARCH_TRIES at most), judge
 * OBJ by it, publish it.  0; -1 with the refusal recorded. */
static int search_and_judge(pg_root *root, const struct pg_object *obj, const char *display,
			    enum pg_access *access, char *name, size_t size, bool *complete)
{
	struct pg_link_map *map = root->links;

	for (int attempt = 1;; attempt++) {
		unsigned moved = atomic_load(&map->moved);
		bool moving = atomic_load(&map->moving) != 0;
		struct search *fresh = search_workspace(root, obj);
		enum steadiness how;

		atomic_fetch_add(&map->scans, 1);
		if (!fresh)
			return pg_refuse(PG_R_EXHAUSTED, ENOMEM, display,
					 "no memory to search for the file's other links");
		how = moving || atomic_load(&map->moving) != 0 || atomic_load(&map->moved) != moved ?
		      MOVED : object_steady(obj, fresh);
		if (how == STEADY || (how == UNSURE && attempt == SEARCH_TRIES)) {
			*access = verdict(fresh, obj, name, size, complete);
			publish(map, fresh);
			return 0;
		}
		search_free(fresh);
		if (attempt == SEARCH_TRIES)
			return pg_refuse(PG_R_DENIED, 0, display,
					 "another link to the same file may be refused: its links or "
					 "the directories holding them kept moving while they were "
					 "searched for");
	}
}

int pg_link_map_judge(pg_root *root, const struct pg_object *obj, enum pg_op op,
		      const char *display)
{
	struct pg_link_map *map = root->links;
	enum pg_access access = PG_WRITE;
	char name[PATH_MAX] = "";
	bool known = false, complete = true;

	if (!map || obj->nlink <= 1)
		return 0;
	pthread_mutex_lock(&map->lock);
	if (map->last && seen_as_is(map->last, obj)) {
		access = verdict(map->last, obj, name, sizeof(name), &complete);
		known = true;
	}
	pthread_mutex_unlock(&map->lock);
	if (!known && search_and_judge(root, obj, display, &access, name, sizeof(name),
				       &complete) < 0)
		return -1;
	if (access < needed_access(op))
		return refuse_other_link(access, name, display);
	if (!complete)
		return pg_refuse(PG_R_DENIED, 0, display,
				 "another link to the same file may be refused: the workspace is "
				 "too large or too deep to search for it");
	return 0;
}
