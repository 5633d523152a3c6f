/* link-map.c - the other links of multi-linked files (see link-map.h).
 * Nothing here follows a symlink: directories are opened O_NOFOLLOW
 * beneath the root's own descriptor, names are judged as they are. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
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
	uint32_t       name;   /* offset in map->names */
};

struct settled {
	dev_t           dev;
	ino_t           ino;
	nlink_t         nlink;
	struct timespec ctime;
};

struct pg_link_map {
	pthread_mutex_t lock;
	bool            built;
	bool            complete;  /* the last scan stayed within its bounds */
	struct timespec began;     /* the last scan's start, less the margin */
	struct timespec started;   /* the last scan's start, on the ctime clock */
	unsigned        scans;
	struct refused *v;
	size_t          n, cap;
	char           *names;
	size_t          names_len, names_cap;
	struct settled *settled;   /* sorted by (ino, dev) */
	size_t          nsettled, capsettled;
};

struct scan {
	struct pg_link_map *map;
	const pg_policy    *policy;
	uint64_t            mnt_id;
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

void pg_link_map_free(struct pg_link_map *map)
{
	if (!map)
		return;
	pthread_mutex_destroy(&map->lock);
	free(map->settled);
	free(map->v);
	free(map->names);
	free(map);
}

static void forget_scan(struct pg_link_map *map)
{
	map->built = false;
	map->n = 0;
	map->names_len = 0;
	map->nsettled = 0;
}

void pg_link_map_reset(struct pg_link_map *map)
{
	if (map)
		forget_scan(map);
}

unsigned pg_link_map_scans(const pg_root *root)
{
	return root->links ? root->links->scans : 0;
}

/* ------------------------------------------------------------ the scan */

static int keep_name(struct pg_link_map *map, const char *name, size_t len, uint32_t *off)
{
	if (map->names_len + len + 1 > map->names_cap) {
		size_t cap = map->names_cap ? map->names_cap * 2 : 4096;
		char *v;

		while (cap < map->names_len + len + 1)
			cap *= 2;
		if (cap > UINT32_MAX || !(v = realloc(map->names, cap)))
			return -1;
		map->names = v;
		map->names_cap = cap;
	}
	*off = (uint32_t)map->names_len;
	memcpy(map->names + map->names_len, name, len + 1);
	map->names_len += len + 1;
	return 0;
}

static int record(struct pg_link_map *map, const struct statx *stx, enum pg_access access,
		  const char *name, size_t len)
{
	struct refused *e;

	if (map->n == map->cap) {
		size_t cap = map->cap ? map->cap * 2 : 16;
		struct refused *v = realloc(map->v, cap * sizeof(*v));

		if (!v)
			return -1;
		map->v = v;
		map->cap = cap;
	}
	e = &map->v[map->n];
	if (keep_name(map, name, len, &e->name) < 0)
		return -1;
	e->dev = makedev(stx->stx_dev_major, stx->stx_dev_minor);
	e->ino = stx->stx_ino;
	e->access = access;
	map->n++;
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

static void settle(struct pg_link_map *map, const struct statx *stx)
{
	struct timespec ctime = { stx->stx_ctime.tv_sec, stx->stx_ctime.tv_nsec };

	if (!ctime_will_move(ctime, map->started))
		return;  /* a later scan must look again */
	if (map->nsettled == map->capsettled) {
		size_t cap = map->capsettled ? map->capsettled * 2 : 256;
		struct settled *v;

		if (cap > SETTLED_MAX || !(v = realloc(map->settled, cap * sizeof(*v))))
			return;  /* unsettled: looked at again, never wrongly trusted */
		map->settled = v;
		map->capsettled = cap;
	}
	map->settled[map->nsettled++] = (struct settled){
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
		return 0;  /* gone since readdir: it has no name to fear */
	if (S_ISDIR(stx.stx_mode) || S_ISLNK(stx.stx_mode) || stx.stx_nlink <= 1)
		return 0;
	if (!before((struct timespec){ stx.stx_ctime.tv_sec, stx.stx_ctime.tv_nsec },
		    sc->map->began))
		settle(sc->map, &stx);
	access = pg_policy_judge(sc->policy, sc->name, len, &j);
	if (access == PG_WRITE)
		return 0;
	return record(sc->map, &stx, access, sc->name, len);
}

static int scan_dir(struct scan *sc, int fd, size_t len, unsigned depth);

static int descend(struct scan *sc, int dirfd, const char *entry, size_t len, unsigned depth)
{
	struct statx stx;
	int fd;

	if (depth >= PG_LINK_SCAN_DEPTH) {
		sc->map->complete = false;
		return 0;
	}
	fd = openat(dirfd, entry, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return 0;  /* not a directory after all, or not ours to list */
	if (!sc->any_mount &&
	    (statx(fd, "", AT_EMPTY_PATH, STATX_MNT_ID, &stx) < 0 || stx.stx_mnt_id != sc->mnt_id)) {
		close(fd);
		return 0;  /* another mount: no link crosses into it */
	}
	return scan_dir(sc, fd, len, depth + 1);
}

static int scan_entry(struct scan *sc, int dirfd, const struct dirent *e, size_t len,
		      unsigned depth)
{
	size_t n = strlen(e->d_name);
	size_t full = len ? len + 1 + n : n;

	if (full >= sizeof(sc->name)) {
		sc->map->complete = false;
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
			sc->map->complete = false;
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

static int scan(pg_root *root, struct pg_link_map *map)
{
	struct scan *sc = malloc(sizeof(*sc));
	int fd, rc;

	if (!sc)
		return -1;
	forget_scan(map);
	clock_gettime(CLOCK_REALTIME_COARSE, &map->started);
	map->began = map->started;
	map->began.tv_sec -= CLOCK_MARGIN_SEC;
	map->complete = true;
	map->scans++;
	*sc = (struct scan){ .map = map, .policy = root->policy, .mnt_id = root->mnt_id,
			     .any_mount = root->flags & PG_ROOT_XDEV,
			     .budget = PG_LINK_SCAN_BUDGET };
	fd = openat(root->fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	rc = fd < 0 ? (map->complete = false, 0) : scan_dir(sc, fd, 0, 0);
	free(sc);
	if (rc < 0) {
		forget_scan(map);
		return -1;
	}
	if (map->n)
		qsort(map->v, map->n, sizeof(*map->v), cmp_refused);
	if (map->nsettled)
		qsort(map->settled, map->nsettled, sizeof(*map->settled), cmp_settled);
	map->built = true;
	return 0;
}

/* ------------------------------------------------------------- lookups */

static const struct refused *find(const struct pg_link_map *map, dev_t dev, ino_t ino)
{
	struct refused key = { .dev = dev, .ino = ino, .access = PG_DENY };
	size_t lo = 0, hi = map->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (cmp_refused(&map->v[mid], &key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < map->n && map->v[lo].ino == ino && map->v[lo].dev == dev)
		return &map->v[lo];
	return NULL;
}

static bool same_time(struct timespec a, struct timespec b)
{
	return a.tv_sec == b.tv_sec && a.tv_nsec == b.tv_nsec;
}

/* Has the last scan seen OBJ's links as they are now?  Yes when OBJ last
 * changed before the scan began (margin included), or when the scan
 * recorded it with the ctime and link count it has now. */
static bool seen_as_is(const struct pg_link_map *map, const struct pg_object *obj)
{
	struct settled key = { .dev = obj->dev, .ino = obj->ino };
	const struct settled *s;

	if (before(obj->ctime, map->began))
		return true;
	s = map->nsettled ? bsearch(&key, map->settled, map->nsettled, sizeof(key), cmp_settled)
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

int pg_link_map_judge(pg_root *root, const struct pg_object *obj, enum pg_op op,
		      const char *display)
{
	struct pg_link_map *map = root->links;
	const struct refused *e;
	enum pg_access access = PG_WRITE;
	char name[PATH_MAX];
	bool complete;

	if (!map || obj->nlink <= 1)
		return 0;
	pthread_mutex_lock(&map->lock);
	if (!map->built || !seen_as_is(map, obj)) {
		if (scan(root, map) < 0) {
			pthread_mutex_unlock(&map->lock);
			return pg_refuse(PG_R_EXHAUSTED, ENOMEM, display,
					 "no memory to search for the file's other links");
		}
	}
	complete = map->complete;
	e = find(map, obj->dev, obj->ino);
	if (e) {
		access = e->access;
		snprintf(name, sizeof(name), "%s", map->names + e->name);
	}
	pthread_mutex_unlock(&map->lock);
	if (access < needed_access(op))
		return refuse_other_link(access, name, display);
	if (!complete)
		return pg_refuse(PG_R_DENIED, 0, display,
				 "another link to the same file may be refused: the workspace is "
				 "too large or too deep to search for it");
	return 0;
}
