/* plan-store.c - the plan's memory: mounts, notes and the index of
 * mountpoints, and what a child sees at a path given the mounts laid so
 * far.  Nothing here judges a name: the walk asks the root's judge and
 * records its answer here. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "envelope-plan.h"
#include "resolve.h"

void *pg_plan_grow(void *p, size_t *cap, size_t need, size_t size)
{
	size_t ncap;
	void *q;

	if (need <= *cap)
		return p;
	ncap = *cap ? *cap * 2 : 8;
	while (ncap < need)
		ncap *= 2;
	q = realloc(p, ncap * size);
	if (q)
		*cap = ncap;
	return q;
}

unsigned pg_path_depth(const char *p)
{
	unsigned d = 0;

	for (; *p; p++)
		if (*p == '/' && p[1] && p[1] != '/')
			d++;
	return d;
}

bool pg_covers_n(const char *anc, size_t alen, const char *path, size_t plen)
{
	if (alen == 1 && anc[0] == '/')
		return path[0] == '/';
	return plen >= alen && (plen == alen || path[alen] == '/') &&
	       memcmp(path, anc, alen) == 0;
}

bool pg_covers(const char *anc, const char *path)
{
	return pg_covers_n(anc, strlen(anc), path, strlen(path));
}

char *pg_parent_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (!slash || slash == path)
		return strdup("/");
	return strndup(path, (size_t)(slash - path));
}

bool pg_envelope_owned(const char *path)
{
	return strcmp(path, "/tmp") == 0 || pg_covers("/dev", path) || pg_covers("/proc", path);
}

/* DIR opened refusing a symlink in any component: openat2, else a walk
 * one component at a time. */
int pg_open_dir_nofollow(const char *dir)
{
	int fd = pg_openat2(AT_FDCWD, dir, O_PATH | O_DIRECTORY | O_CLOEXEC, 0,
			    RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS);
	char *copy, *save = NULL, *tok;

	if (fd >= 0 || (errno != ENOSYS && errno != EAGAIN))
		return fd;
	if (!(copy = strdup(dir)))
		return -1;
	fd = open(dir[0] == '/' ? "/" : ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	for (tok = strtok_r(copy, "/", &save); tok && fd >= 0; tok = strtok_r(NULL, "/", &save)) {
		int next = openat(fd, tok, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		int err = errno;

		close(fd);
		fd = next;
		errno = err;
	}
	free(copy);
	return fd;
}

/* ------------------------------------------------------ the mount index */

/* Open addressing from a mountpoint to the top region mount there
 * (stored + 1), so that "what covers this path" walks the path's
 * ancestors, not every mount. */
static uint64_t hash_path(const char *s, size_t n)
{
	uint64_t h = 1469598103934665603ull;

	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
	return h;
}

static size_t *index_slot(const struct pg_plan *pl, const char *key, size_t len)
{
	const struct path_index *ix = &pl->mount_ix;
	size_t mask = ix->cap - 1, i = (size_t)hash_path(key, len) & mask;

	for (;; i = (i + 1) & mask) {
		const struct plan_mount *m;

		if (!ix->slots[i])
			return &ix->slots[i];
		m = &pl->mounts[ix->slots[i] - 1];
		if (m->len == len && memcmp(m->dest, key, len) == 0)
			return &ix->slots[i];
	}
}

static bool index_reserve(struct path_index *ix)
{
	if ((ix->used + 1) * 2 <= ix->cap)
		return true;
	free(ix->slots);
	ix->cap = ix->cap ? ix->cap * 2 : 64;
	ix->slots = calloc(ix->cap, sizeof(*ix->slots));
	ix->used = 0;
	ix->stale = true;   /* the caller re-inserts everything */
	return ix->slots != NULL;
}

bool pg_plan_is_region_mount(enum mount_kind k)
{
	return k == MK_BIND || k == MK_ROBIND || k == MK_MASK_DIR || k == MK_MASK_FILE;
}

static bool index_add(struct pg_plan *pl, size_t i)
{
	struct path_index *ix = &pl->mount_ix;
	size_t *slot;

	if (!pg_plan_is_region_mount(pl->mounts[i].kind))
		return true;
	if (!index_reserve(ix))
		return false;
	if (ix->stale) {
		ix->stale = false;
		for (size_t j = 0; j < i; j++)
			index_add(pl, j);
	}
	slot = index_slot(pl, pl->mounts[i].dest, pl->mounts[i].len);
	if (!*slot)
		ix->used++;
	*slot = i + 1;
	return true;
}

void pg_plan_reindex(struct pg_plan *pl)
{
	struct path_index *ix = &pl->mount_ix;

	if (ix->slots)
		memset(ix->slots, 0, ix->cap * sizeof(*ix->slots));
	ix->used = 0;
	for (size_t i = 0; i < pl->nmounts; i++)
		if (!index_add(pl, i))
			pl->oom = true;
}

static size_t index_find(const struct pg_plan *pl, const char *path, size_t len)
{
	size_t *slot;

	if (!pl->mount_ix.slots)
		return (size_t)-1;
	slot = index_slot(pl, path, len);
	return *slot ? *slot - 1 : (size_t)-1;
}

/* The length of PATH's next ancestor-or-self prefix after one of length
 * LEN ("/" is 1), or 0 past the end. */
static size_t next_prefix(const char *path, size_t plen, size_t len)
{
	if (len == 0)
		return plen ? 1 : 0;
	if (len >= plen)
		return 0;
	for (size_t i = len + 1; i < plen; i++)
		if (path[i] == '/')
			return i;
	return plen;
}

size_t pg_plan_nearest_mount(const struct pg_plan *pl, const char *path)
{
	return pg_plan_region_mount(pl, path, (size_t)-1);
}

size_t pg_plan_region_mount(const struct pg_plan *pl, const char *path, size_t n)
{
	size_t best = (size_t)-1, plen = strlen(path);

	for (size_t len = next_prefix(path, plen, 0); len; len = next_prefix(path, plen, len)) {
		size_t i = index_find(pl, path, len);

		if (i != (size_t)-1 && i < n)
			best = i;
	}
	return best;
}

static enum region kind_of_mount(enum mount_kind k)
{
	switch (k) {
	case MK_BIND:     return REGION_RW;
	case MK_ROBIND:   return REGION_RO;
	default:          return REGION_HIDDEN;
	}
}

enum region pg_plan_region_at(const struct pg_plan *pl, const char *path)
{
	size_t i = pg_plan_nearest_mount(pl, path);

	if (i != (size_t)-1)
		return kind_of_mount(pl->mounts[i].kind);
	if (pg_covers("/tmp", path) || pg_covers("/dev", path) || pg_covers("/proc", path))
		return REGION_PRIVATE;
	return pl->base;
}

bool pg_plan_in_made_tmpfs(const struct pg_plan *pl, const char *path)
{
	size_t i = pg_plan_nearest_mount(pl, path);

	if (i != (size_t)-1)
		return pl->mounts[i].kind == MK_MASK_DIR;
	if (pg_covers("/tmp", path))
		return true;
	if (pg_covers("/dev", path) || pg_covers("/proc", path))
		return false;
	return pl->base == REGION_HIDDEN;
}

const char *pg_region_name(enum region r)
{
	switch (r) {
	case REGION_RW:      return "writable";
	case REGION_RO:      return "read-only";
	case REGION_PRIVATE: return "private to the child";
	default:             return "hidden";
	}
}

/* ------------------------------------------------------------ notes */

static int add_note(struct pg_plan *pl, bool seam, const char *path,
		    const char *rule, const char *why)
{
	struct plan_note **arr = seam ? &pl->seams : &pl->skips;
	size_t *n = seam ? &pl->nseams : &pl->nskips;
	size_t *cap = seam ? &pl->capseams : &pl->capskips;
	struct plan_note *nt;

	if (!PLAN_GROW(*arr, *n, *cap))
		return -1;
	nt = &(*arr)[*n];
	nt->path = strdup(path ? path : "");
	nt->rule = strdup(rule ? rule : "");
	nt->why = strdup(why);
	if (!nt->path || !nt->rule || !nt->why) {
		free(nt->path);
		free(nt->rule);
		free(nt->why);
		return -1;
	}
	(*n)++;
	return 0;
}

int pg_plan_note(struct pg_plan *pl, bool seam, const char *path,
		 const char *rule, const char *fmt, ...)
{
	va_list ap;
	char why[512];

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	if (add_note(pl, seam, path, rule, why) < 0) {
		pl->oom = true;
		return -1;
	}
	return 0;
}

struct plan_mount *pg_plan_add_mount(struct pg_plan *pl, enum mount_kind kind,
				     char *dest, char *src, int fd, const char *rule)
{
	struct plan_mount *m;

	if (!dest || !PLAN_GROW(pl->mounts, pl->nmounts, pl->capmounts)) {
		free(dest);
		free(src);
		if (fd >= 0)
			close(fd);
		pl->oom = true;
		return NULL;
	}
	m = &pl->mounts[pl->nmounts++];
	memset(m, 0, sizeof(*m));
	m->kind = kind;
	m->dest = dest;
	m->len = strlen(dest);
	m->src = src;
	m->fd = fd;
	m->rule = strdup(rule ? rule : "");
	m->after = (size_t)-1;
	if (!m->rule || !index_add(pl, pl->nmounts - 1))
		pl->oom = true;
	return m;
}

static void free_notes(struct plan_note *arr, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(arr[i].path);
		free(arr[i].rule);
		free(arr[i].why);
	}
	free(arr);
}

void pg_plan_free(pg_plan *pl)
{
	if (!pl)
		return;
	for (size_t i = 0; i < pl->nmounts; i++) {
		free(pl->mounts[i].dest);
		free(pl->mounts[i].src);
		free(pl->mounts[i].rule);
		if (pl->mounts[i].fd >= 0)
			close(pl->mounts[i].fd);
	}
	free(pl->mounts);
	for (size_t i = 0; i < pl->nrequested; i++)
		free(pl->requested[i]);
	free(pl->requested);
	free_notes(pl->skips, pl->nskips);
	free_notes(pl->seams, pl->nseams);
	free_notes(pl->pins, pl->npins);
	free(pl->mount_ix.slots);
	for (size_t i = 0; i < pl->nargs; i++)
		free(pl->args[i]);
	free(pl->args);
	free(pl->pub_mounts);
	free(pl->pub_skips);
	free(pl->pub_seams);
	free(pl->order);
	free(pl->root);
	free(pl->bwrap);
	free(pl->chdir);
	if (pl->landlock_free)
		pl->landlock_free(pl->landlock);
	free(pl);
}

