/* envelope.c - the mount planner: rules in, bwrap argument vector out.
 *
 * Every rule is first made absolute (relative rules hang off the root's
 * host path).  Deny globs are expanded by a bounded walk of the regions a
 * child can see.  Then, shallow first, each named path is judged with the
 * deepest-rule logic of invariant 5 and laid as the mount its decision and
 * its shape call for, or, when nothing can or need be laid, recorded as a
 * skip or a seam.  Pins and the argument vector come last, when every
 * mount is known. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "envelope.h"
#include "envelope-plan.h"
#include "glob.h"
#include "resolve.h"

/* ------------------------------------------------------------ utilities */

static void *xrealloc_array(void *p, size_t *cap, size_t need, size_t size)
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

#define GROW(arr, n, cap) \
	((arr) = xrealloc_array((arr), &(cap), (n) + 1, sizeof(*(arr))))

static char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s = NULL;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	return s;
}

static unsigned path_depth(const char *p)
{
	unsigned d = 0;

	for (; *p; p++)
		if (*p == '/' && p[1] && p[1] != '/')
			d++;
	return d;
}

/* True when PATH (PLEN bytes) is ANC (ALEN bytes) or lies beneath it
 * (both absolute, normalised). */
static bool covers_n(const char *anc, size_t alen, const char *path, size_t plen)
{
	if (alen == 1 && anc[0] == '/')
		return path[0] == '/';
	return plen >= alen && (plen == alen || path[alen] == '/') &&
	       memcmp(path, anc, alen) == 0;
}

static bool covers(const char *anc, const char *path)
{
	return covers_n(anc, strlen(anc), path, strlen(path));
}

/* ------------------------------------------------------ path indexes */

/* Open-addressing index from a path to an array position (stored + 1),
 * so that a decision walks a path's ancestors, not every rule. */
static uint64_t hash_path(const char *s, size_t n)
{
	uint64_t h = 1469598103934665603ull;

	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
	return h;
}

/* The slot for KEY (LEN bytes) in IX: its own, or the empty one where it
 * would go.  NAME(i) gives the path of position i. */
static size_t *index_slot(struct path_index *ix, const char *key, size_t len,
			  const char *(*name)(const struct pg_plan *, size_t, size_t *),
			  const struct pg_plan *pl)
{
	size_t mask = ix->cap - 1, i = (size_t)hash_path(key, len) & mask;

	for (;; i = (i + 1) & mask) {
		size_t nlen;
		const char *n;

		if (!ix->slots[i])
			return &ix->slots[i];
		n = name(pl, ix->slots[i] - 1, &nlen);
		if (nlen == len && memcmp(n, key, len) == 0)
			return &ix->slots[i];
	}
}

static const char *entry_name(const struct pg_plan *pl, size_t i, size_t *len)
{
	*len = pl->entries[i].len;
	return pl->entries[i].path;
}

static const char *mount_name(const struct pg_plan *pl, size_t i, size_t *len)
{
	*len = pl->mounts[i].len;
	return pl->mounts[i].dest;
}

/* Make room for one more key; false on allocation failure. */
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

/* Entries: a slot holds the last entry of a path; each entry links to the
 * one before it with the same path (next, stored + 1). */
static bool entry_index_add(struct pg_plan *pl, size_t i)
{
	struct path_index *ix = &pl->entry_ix;
	size_t *slot;

	if (!index_reserve(ix))
		return false;
	if (ix->stale) {
		ix->stale = false;
		for (size_t j = 0; j < i; j++)
			entry_index_add(pl, j);
	}
	slot = index_slot(ix, pl->entries[i].path, pl->entries[i].len, entry_name, pl);
	if (!*slot)
		ix->used++;
	pl->entries[i].next = *slot;
	*slot = i + 1;
	return true;
}

/* Region mounts: a slot holds the last region mount of a mountpoint (the
 * one on top).  Rebuilt when the mounts are reordered. */
static bool is_region_mount(enum mount_kind k);

static bool mount_index_add(struct pg_plan *pl, size_t i)
{
	struct path_index *ix = &pl->mount_ix;
	size_t *slot;

	if (!is_region_mount(pl->mounts[i].kind))
		return true;
	if (!index_reserve(ix))
		return false;
	if (ix->stale) {
		ix->stale = false;
		for (size_t j = 0; j < i; j++)
			mount_index_add(pl, j);
	}
	slot = index_slot(ix, pl->mounts[i].dest, pl->mounts[i].len, mount_name, pl);
	if (!*slot)
		ix->used++;
	*slot = i + 1;
	return true;
}

static void mount_index_rebuild(struct pg_plan *pl)
{
	struct path_index *ix = &pl->mount_ix;

	if (ix->slots)
		memset(ix->slots, 0, ix->cap * sizeof(*ix->slots));
	ix->used = 0;
	for (size_t i = 0; i < pl->nmounts; i++)
		if (!mount_index_add(pl, i))
			pl->oom = true;
}

/* The position indexed under the first LEN bytes of PATH, or (size_t)-1. */
static size_t index_find(const struct path_index *ix, const char *path, size_t len,
			 const char *(*name)(const struct pg_plan *, size_t, size_t *),
			 const struct pg_plan *pl)
{
	size_t *slot;

	if (!ix->slots)
		return (size_t)-1;
	slot = index_slot((struct path_index *)ix, path, len, name, pl);
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

static bool strictly_beneath(const char *path, const char *anc)
{
	return covers(anc, path) && strcmp(anc, path) != 0;
}

/* The parent of absolute PATH, freshly allocated ("/" for "/x"). */
static char *parent_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (!slash || slash == path)
		return strdup("/");
	return strndup(path, (size_t)(slash - path));
}

/* The host path an O_PATH descriptor names now. */
static char *fd_path(int fd)
{
	char proc[64], buf[PATH_MAX + 1];
	ssize_t n;

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	n = readlink(proc, buf, sizeof(buf) - 1);
	if (n <= 0 || (size_t)n >= sizeof(buf) - 1 || buf[0] != '/')
		return NULL;
	buf[n] = '\0';
	return strdup(buf);
}

/* Open PATH (absolute, normalised) with FLAGS and give its canonical
 * name: one openat2 refusing symlinks proves PATH is already canonical;
 * only a path through a symlink costs an open and a readlink more. */
static int open_canonical(const char *path, int flags, char **canon)
{
	int fd = pg_openat2(AT_FDCWD, path, flags, 0, RESOLVE_NO_SYMLINKS);

	if (fd >= 0) {
		*canon = strdup(path);
		if (!*canon) {
			close(fd);
			errno = ENOMEM;
			return -1;
		}
		return fd;
	}
	if (!pg_needs_walk(errno) && errno != ENOSYS)
		return -1;
	fd = open(path, flags);
	if (fd < 0)
		return -1;
	*canon = fd_path(fd);
	if (!*canon) {
		close(fd);
		errno = ENAMETOOLONG;
		return -1;
	}
	return fd;
}

static void render_rule(const struct pg_rule *r, char *buf, size_t size)
{
	static const char *const names[] = { "deny", "read", "write" };
	const char *acc = (unsigned)r->access <= PG_WRITE ? names[r->access] : "?";
	const char *path = r->path[0] ? r->path : ".";

	if (r->file && r->line)
		snprintf(buf, size, "%s%s %s (%s:%u)", acc, r->final ? "!" : "", path,
			 r->file, r->line);
	else if (r->derived)
		snprintf(buf, size, "%s%s %s (derived)", acc, r->final ? "!" : "", path);
	else
		snprintf(buf, size, "%s%s %s", acc, r->final ? "!" : "", path);
}

static void fold_cache_clear(struct pg_plan *pl);

/* ---------------------------------------------------------- plan memory */

static int add_note(struct pg_plan *pl, bool seam, const char *path,
		    const char *rule, const char *why)
{
	struct plan_note **arr = seam ? &pl->seams : &pl->skips;
	size_t *n = seam ? &pl->nseams : &pl->nskips;
	size_t *cap = seam ? &pl->capseams : &pl->capskips;
	struct plan_note *nt;

	if (!GROW(*arr, *n, *cap))
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

static int note(struct pg_plan *pl, bool seam, const char *path,
		const char *rule, const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static int note(struct pg_plan *pl, bool seam, const char *path,
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

/* Append a mount; takes DEST, SRC (may be NULL) and FD (may be -1). */
static struct plan_mount *add_mount(struct pg_plan *pl, enum mount_kind kind,
				    char *dest, char *src, int fd, const char *rule)
{
	struct plan_mount *m;

	if (!dest || !GROW(pl->mounts, pl->nmounts, pl->capmounts)) {
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
	if (!m->rule || !mount_index_add(pl, pl->nmounts - 1))
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
	for (size_t i = 0; i < pl->nentries; i++) {
		free(pl->entries[i].path);
		free(pl->entries[i].rule);
	}
	free(pl->entries);
	for (size_t i = 0; i < pl->nrequested; i++)
		free(pl->requested[i]);
	free(pl->requested);
	free_notes(pl->skips, pl->nskips);
	free_notes(pl->seeds, pl->nseeds);
	fold_cache_clear(pl);
	free(pl->entry_ix.slots);
	free(pl->mount_ix.slots);
	free_notes(pl->seams, pl->nseams);
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
	free(pl);
}

/* ------------------------------------------------------------- entries */

static char *absolute_of(const char *root, const struct pg_rule *r)
{
	const char *p = r->path;
	size_t n;
	char *s;

	if (r->absolute || p[0] == '/') {
		s = strdup(p[0] ? p : "/");
	} else if (!p[0]) {
		s = strdup(root);
	} else if (strcmp(root, "/") == 0) {
		s = xasprintf("/%s", p);
	} else {
		s = xasprintf("%s/%s", root, p);
	}
	if (!s)
		return NULL;
	n = strlen(s);
	while (n > 1 && s[n - 1] == '/')
		s[--n] = '\0';
	return s;
}

static int add_entry(struct pg_plan *pl, char *path, enum pg_access access,
		     bool final, const char *rule, bool from_glob)
{
	struct plan_entry *e;

	if (!path || !GROW(pl->entries, pl->nentries, pl->capentries)) {
		free(path);
		pl->oom = true;
		return -1;
	}
	e = &pl->entries[pl->nentries];
	e->path = path;
	e->len = strlen(path);
	e->access = access;
	e->final = final;
	e->from_glob = from_glob;
	e->depth = path_depth(path);
	e->next = 0;
	e->rule = strdup(rule);
	if (!e->rule) {
		free(path);
		pl->oom = true;
		return -1;
	}
	pl->nentries++;
	if (!entry_index_add(pl, pl->nentries - 1))
		pl->oom = true;
	return 0;
}

/* Invariant 5 over absolute paths: the deepest covering rule decides, the
 * stricter at equal depth, never wider than a covering final rule; no rule
 * means deny.  RULE gets the deciding (or capping) rule's text. */
static enum pg_access decide(const struct pg_plan *pl, const char *path,
			     const char **rule)
{
	const struct plan_entry *best = NULL, *cap = NULL;
	size_t plen = strlen(path);

	for (size_t len = next_prefix(path, plen, 0); len; len = next_prefix(path, plen, len)) {
		size_t i = index_find(&pl->entry_ix, path, len, entry_name, pl);

		for (; i != (size_t)-1; i = pl->entries[i].next - 1) {
			const struct plan_entry *e = &pl->entries[i];

			if (!best || e->depth > best->depth ||
			    (e->depth == best->depth && e->access < best->access))
				best = e;
			if (e->final && (!cap || e->access < cap->access))
				cap = e;
			if (!e->next)
				break;
		}
	}
	if (!best) {
		*rule = NULL;
		return PG_DENY;
	}
	if (cap && cap->access < best->access) {
		*rule = cap->rule;
		return cap->access;
	}
	*rule = best->rule;
	return best->access;
}

/* ------------------------------------------------------------- regions */

static bool is_region_mount(enum mount_kind k)
{
	return k == MK_BIND || k == MK_ROBIND || k == MK_MASK_DIR || k == MK_MASK_FILE;
}

static enum region kind_of_mount(enum mount_kind k)
{
	switch (k) {
	case MK_BIND:     return REGION_RW;
	case MK_ROBIND:   return REGION_RO;
	default:          return REGION_HIDDEN;
	}
}

/* The nearest rule mount covering PATH (index), or (size_t)-1. */
static size_t nearest_mount(const struct pg_plan *pl, const char *path)
{
	size_t best = (size_t)-1, plen = strlen(path);

	for (size_t len = next_prefix(path, plen, 0); len; len = next_prefix(path, plen, len)) {
		size_t i = index_find(&pl->mount_ix, path, len, mount_name, pl);

		if (i != (size_t)-1)
			best = i;
	}
	return best;
}

/* What a child sees at PATH given the mounts laid so far: a writable or
 * read-only host view, or something hidden (a mask, a private tmpfs, or
 * bwrap's own empty root). */
static enum region region_at(const struct pg_plan *pl, const char *path)
{
	size_t i = nearest_mount(pl, path);

	if (i != (size_t)-1)
		return kind_of_mount(pl->mounts[i].kind);
	if (covers("/tmp", path) || covers("/dev", path) || covers("/proc", path))
		return REGION_PRIVATE;
	return pl->base;
}

/* True when PATH, hidden, lies in a tmpfs bwrap made (not a host view):
 * a name made there is made in memory only. */
static bool in_made_tmpfs(const struct pg_plan *pl, const char *path)
{
	size_t i = nearest_mount(pl, path);

	if (i != (size_t)-1)
		return pl->mounts[i].kind == MK_MASK_DIR;
	if (covers("/tmp", path))
		return true;
	if (covers("/dev", path) || covers("/proc", path))
		return false;
	return pl->base == REGION_HIDDEN;
}

static const char *region_name(enum region r)
{
	switch (r) {
	case REGION_RW:      return "writable";
	case REGION_RO:      return "read-only";
	case REGION_PRIVATE: return "private to the child";
	default:             return "hidden";
	}
}

/* ----------------------------------------------------------- laying */

/* An absent read or deny name in a writable region still pins the
 * directories that exist above it (invariant 6 is about the rule, not
 * about what exists yet). */
static void add_pin_seed(struct pg_plan *pl, const char *path, const char *rule)
{
	struct plan_note *n;

	if (!GROW(pl->seeds, pl->nseeds, pl->capseeds)) {
		pl->oom = true;
		return;
	}
	n = &pl->seeds[pl->nseeds];
	n->path = strdup(path);
	n->rule = strdup(rule ? rule : "");
	n->why = NULL;
	if (!n->path || !n->rule) {
		free(n->path);
		free(n->rule);
		pl->oom = true;
		return;
	}
	pl->nseeds++;
}

static const char SEAM_ABSENT[] =
	"absent denied name in a writable region: held in process only; a child can create it for this launch, every later launch masks it";

static void lay_absent_deny(struct pg_plan *pl, const char *path, const char *rule)
{
	enum region r = region_at(pl, path);

	if (r == REGION_RW) {
		note(pl, true, path, rule, SEAM_ABSENT);
		add_pin_seed(pl, path, rule);
	} else {
		note(pl, false, path, rule,
		     "absent: nothing to mask (its region is %s, creation is already refused)",
		     region_name(r));
	}
}

static void lay_mask(struct pg_plan *pl, char *canon, const struct stat *st,
		     const char *rule, const char *why)
{
	enum region r = region_at(pl, canon);
	struct plan_mount *m;

	if (r == REGION_HIDDEN || r == REGION_PRIVATE) {
		note(pl, false, canon, rule, "already hidden (region %s): no mask needed",
		     region_name(r));
		free(canon);
		return;
	}
	if (S_ISDIR(st->st_mode)) {
		m = add_mount(pl, MK_MASK_DIR, canon, NULL, -1, rule);
	} else {
		m = add_mount(pl, MK_MASK_FILE, canon, strdup("/dev/null"), -1, rule);
	}
	if (m)
		m->why = why;
}

/* A denied symlink: nothing can be mounted on the link itself (its name
 * is a seam in a writable region); its target is masked.  Takes CANON,
 * the link's own canonical path. */
static void lay_deny_link(struct pg_plan *pl, const char *path, char *canon, const char *rule)
{
	char *dir = parent_of(canon);
	struct stat st;
	int fd;

	if (dir && region_at(pl, dir) == REGION_RW)
		note(pl, true, canon, rule,
		     "denied symlink in a writable region: a mount cannot sit on a symlink, so a child can replace the link's own name for this launch (its target stays masked)");
	free(dir);
	free(canon);
	fd = open_canonical(path, O_PATH | O_CLOEXEC, &canon);
	if (fd < 0) {
		int err = errno;

		if (err == ENOENT && region_at(pl, path) == REGION_RW)
			note(pl, true, path, rule,
			     "denied symlink whose target is absent: held in process only for this launch");
		else
			note(pl, false, path, rule, "symlink target cannot be reached: %s: nothing to mask",
			     strerror(err));
		return;
	}
	if (fstat(fd, &st) < 0) {
		note(pl, false, path, rule, "cannot inspect the symlink's target: %s", strerror(errno));
		free(canon);
		close(fd);
		return;
	}
	close(fd);
	lay_mask(pl, canon, &st, rule, "mask (symlink target)");
}

static void lay_deny(struct pg_plan *pl, const char *path, const char *rule)
{
	char *canon = NULL;
	int fd = open_canonical(path, O_PATH | O_NOFOLLOW | O_CLOEXEC, &canon);
	struct stat st;

	if (fd < 0) {
		if (errno == ENOENT || errno == ENOTDIR)
			lay_absent_deny(pl, path, rule);
		else
			note(pl, false, path, rule, "cannot inspect: %s: nothing masked (the child cannot reach it either)",
			     strerror(errno));
		return;
	}
	if (fstat(fd, &st) < 0) {
		note(pl, false, path, rule, "cannot inspect: %s", strerror(errno));
		free(canon);
		close(fd);
		return;
	}
	close(fd);
	if (S_ISLNK(st.st_mode))
		lay_deny_link(pl, path, canon, rule);
	else
		lay_mask(pl, canon, &st, rule, "mask");
}

/* A read or write rule naming a symlink whose own name lies in a tmpfs
 * bwrap made: make the name there too (it costs the host nothing), so
 * /bin -> usr/bin still works without "read /". */
static void lay_link_name(struct pg_plan *pl, const char *path, const char *rule)
{
	char target[PATH_MAX + 1], *dir;
	struct stat st;
	ssize_t n;
	int fd;

	if (lstat(path, &st) < 0 || !S_ISLNK(st.st_mode))
		return;
	dir = parent_of(path);
	if (!dir)
		return;
	fd = open(dir, O_PATH | O_CLOEXEC | O_DIRECTORY);
	if (fd >= 0) {
		char *canon = fd_path(fd);

		/* Only a parent spelled canonically: the name is made where the
		 * rule says. */
		if (canon && strcmp(canon, dir) == 0 && in_made_tmpfs(pl, path) &&
		    (n = readlink(path, target, sizeof(target) - 1)) > 0) {
			struct plan_mount *m;

			target[n] = '\0';
			m = add_mount(pl, MK_SYMLINK, strdup(path), strdup(target), -1, rule);
			if (m)
				m->why = "symlink (made in the envelope's own tmpfs)";
		}
		free(canon);
		close(fd);
	}
	free(dir);
}

/* True when a child could have made PATH (or one of its ancestors) a
 * symlink: some rule gives it or an ancestor write. */
static bool plantable(const struct pg_plan *pl, const char *path)
{
	char *p = strdup(path);
	bool found = false;

	while (p && !found) {
		const char *rule;
		char *up;

		found = decide(pl, p, &rule) == PG_WRITE;
		if (strcmp(p, "/") == 0)
			break;
		up = parent_of(p);
		free(p);
		p = up;
	}
	free(p);
	return found;
}

static void lay_grant(struct pg_plan *pl, const char *path, enum pg_access acc,
		      const char *rule)
{
	char *canon = NULL;
	int fd = open_canonical(path, O_PATH | O_CLOEXEC, &canon);
	enum region want = acc == PG_WRITE ? REGION_RW : REGION_RO;
	struct plan_mount *m;

	if (fd < 0) {
		int err = errno;

		if (err != ENOENT && err != ENOTDIR) {
			note(pl, false, path, rule, "cannot inspect: %s: nothing mounted", strerror(err));
		} else if (acc == PG_READ && region_at(pl, path) == REGION_RW) {
			note(pl, true, path, rule,
			     "absent read-only name in a writable region: a child can create and write it for this launch (held in process only); every later launch binds it read-only");
			add_pin_seed(pl, path, rule);
		} else {
			note(pl, false, path, rule, "absent: nothing mounted");
		}
		return;
	}
	if (strcmp(canon, path) != 0) {
		const char *target_rule;
		enum pg_access at_target = decide(pl, canon, &target_rule);

		/* A symlink a child could have planted only narrows: never mount
		 * more than the rules give the target itself. */
		if (plantable(pl, path) && at_target < acc) {
			if (at_target == PG_DENY) {
				note(pl, false, path, rule,
				     "reaches %s through a symlink in a writable region, and no rule grants that: nothing mounted",
				     canon);
				free(canon);
				close(fd);
				return;
			}
			note(pl, false, path, rule,
			     "reaches %s through a symlink in a writable region: narrowed to read, as the rules give the target",
			     canon);
			acc = at_target;
			want = REGION_RO;
		}
		lay_link_name(pl, path, rule);
	}
	if (region_at(pl, canon) == want) {
		note(pl, false, path, rule, "covered: its region is already %s", region_name(want));
		free(canon);
		close(fd);
		return;
	}
	m = add_mount(pl, want == REGION_RW ? MK_BIND : MK_ROBIND, canon, NULL, fd, rule);
	if (m) {
		m->why = acc == PG_WRITE ? "write" : "read";
		m->src = strdup(m->dest);
	}
}

/* --------------------------------------------------------------- globs */

/* One deny or read glob, made absolute and split: the literal base
 * ("/ws") and the pattern components after it ("**", "*.pem"). */
struct glob_pat {
	char          *copy;      /* owns the component strings */
	char          *folded;    /* owns their folded forms */
	const char    *comps[PG_PATH_MAX / 2 + 1];
	size_t         ncomps;
	char           base[PATH_MAX];
	enum pg_access access;
	bool           final;
	const char    *rule;      /* the plan's copy of the rendered rule */
};

#define GLOB_NAME_FOLDED (PG_NAME_MAX * 4 + 1)

struct glob_walk {
	struct pg_plan         *pl;
	struct glob_pat *const *pats;  /* the patterns sharing this base */
	size_t                  npats;
	unsigned                max_depth;
	unsigned                max_entries;
	const char             *names[64];   /* folded components below the base */
	char                  (*folded)[GLOB_NAME_FOLDED];
};

/* Fold NAME into its collision class in BUF (GLOB_NAME_FOLDED bytes); a
 * name that cannot be folded is kept as it is. */
static const char *fold_into(const char *name, char *buf)
{
	size_t n = pg_fold(name, strlen(name), buf, GLOB_NAME_FOLDED - 1);

	if (n == (size_t)-1)
		return name;
	buf[n] = '\0';
	return buf;
}

/* Does the folded NAME match the folded pattern component PAT?  The
 * policy's own component matcher: a deny or read glob matches every
 * spelling of a name, only ever more. */
static bool component_match(const char *pat, const char *name)
{
	return pg_glob_match(pat, strlen(pat), name, strlen(name));
}

/* Does the component list NAMES[0..N) match PAT[0..NP)?  '**' matches any
 * number of components. */
static bool glob_match(const char *const *pat, size_t np, const char *const *names, size_t n)
{
	if (np == 0)
		return n == 0;
	if (strcmp(pat[0], "**") == 0) {
		for (size_t k = 0; k <= n; k++)
			if (glob_match(pat + 1, np - 1, names + k, n - k))
				return true;
		return false;
	}
	if (n == 0 || !component_match(pat[0], names[0]))
		return false;
	return glob_match(pat + 1, np - 1, names + 1, n - 1);
}

/* Could a name below NAMES[0..N) still match? (prunes the walk) */
static bool glob_may_descend(const char *const *pat, size_t np, const char *const *names, size_t n)
{
	if (n == 0)
		return np > 0;
	if (np == 0)
		return false;
	if (strcmp(pat[0], "**") == 0)
		return true;
	if (!component_match(pat[0], names[0]))
		return false;
	return glob_may_descend(pat + 1, np - 1, names + 1, n - 1);
}

/* True when a rule grants something strictly beneath PATH (a carve-out). */
static bool entry_beneath(const struct pg_plan *pl, const char *path)
{
	for (size_t i = 0; i < pl->nentries; i++)
		if (pl->entries[i].access != PG_DENY && strictly_beneath(pl->entries[i].path, path))
			return true;
	return false;
}

static bool write_beneath(const struct pg_plan *pl, const char *path)
{
	for (size_t i = 0; i < pl->nentries; i++)
		if (pl->entries[i].access == PG_WRITE && strictly_beneath(pl->entries[i].path, path))
			return true;
	return false;
}

/* Count one entry against the bound; false (reported once) past it. */
static bool walk_counted(struct glob_walk *w, const char *path)
{
	struct pg_plan *pl = w->pl;

	if (pl->glob_count_hit)
		return false;
	if (++pl->glob_entries > w->max_entries) {
		note(pl, false, path, w->pats[0]->rule,
		     "glob walk stopped after %u entries: further matches are held in process only",
		     w->max_entries);
		pl->glob_count_hit = true;
		return false;
	}
	return true;
}

/* May the walk go below DEPTH?  Reports the first time it may not. */
static bool walk_deeper(struct glob_walk *w, const char *path, size_t depth)
{
	struct pg_plan *pl = w->pl;

	if (depth < w->max_depth)
		return true;
	if (!pl->glob_depth_hit)
		note(pl, false, path, w->pats[0]->rule,
		     "glob walk stopped at depth %u: deeper matches are held in process only",
		     w->max_depth);
	pl->glob_depth_hit = true;
	return false;
}

/* The cheap test first: unless the pattern ends in '**', its last
 * component must match the entry's own name. */
static bool tail_may_match(const struct glob_pat *g, const char *name)
{
	const char *last = g->ncomps ? g->comps[g->ncomps - 1] : "";

	return g->ncomps == 0 || strcmp(last, "**") == 0 || component_match(last, name);
}

/* Match the entry at PATH (its components NAMES[0..N)) against every
 * pattern; true when the walk should descend into it. */
static bool glob_visit(struct glob_walk *w, const char *path, size_t n)
{
	const char *rule;
	bool hidden = decide(w->pl, path, &rule) == PG_DENY;
	bool descend = false, masked = false;

	if (hidden && !entry_beneath(w->pl, path))
		return false;   /* a child cannot see it: nothing to match */
	for (size_t i = 0; i < w->npats; i++) {
		const struct glob_pat *g = w->pats[i];

		if (!hidden && tail_may_match(g, w->names[n - 1]) &&
		    glob_match(g->comps, g->ncomps, w->names, n)) {
			add_entry(w->pl, strdup(path), g->access, g->final, g->rule, true);
			masked |= g->access == PG_DENY;
		}
		descend |= glob_may_descend(g->comps, g->ncomps, w->names, n);
	}
	return descend && (!masked || entry_beneath(w->pl, path));
}

static void glob_walk_dir(struct glob_walk *w, int dfd, char *path, size_t plen, size_t depth)
{
	struct dirent *de;
	DIR *d = fdopendir(dfd);

	if (!d) {
		close(dfd);
		return;
	}
	while ((de = readdir(d))) {
		size_t nlen = strlen(de->d_name);
		bool dir;

		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (!walk_counted(w, path))
			break;
		if (plen + 1 + nlen >= PATH_MAX)
			continue;
		path[plen] = '/';
		memcpy(path + plen + 1, de->d_name, nlen + 1);
		w->names[depth] = fold_into(de->d_name, w->folded[depth]);
		dir = de->d_type == DT_DIR;
		if (de->d_type == DT_UNKNOWN) {
			struct stat st;

			dir = fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
			      S_ISDIR(st.st_mode);
		}
		if (glob_visit(w, path, depth + 1) && dir && walk_deeper(w, path, depth + 1)) {
			int sub = openat(dirfd(d), de->d_name,
					 O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

			if (sub >= 0)
				glob_walk_dir(w, sub, path, plen + 1 + nlen, depth + 1);
		}
		path[plen] = '\0';
		if (w->pl->glob_count_hit)
			break;
	}
	closedir(d);
}

/* Split the absolute glob PATTERN into its literal base and the pattern
 * components after it. */
static int glob_split(struct glob_pat *g, const char *pattern)
{
	char *save = NULL, *tok;
	size_t nc = 0, first = (size_t)-1;
	const char *all[PG_PATH_MAX / 2 + 1];

	g->copy = strdup(pattern);
	if (!g->copy)
		return -1;
	for (tok = strtok_r(g->copy, "/", &save); tok && nc < sizeof(all) / sizeof(all[0]);
	     tok = strtok_r(NULL, "/", &save)) {
		if (first == (size_t)-1 && pg_glob_is_pattern(tok, strlen(tok)))
			first = nc;
		all[nc++] = tok;
	}
	if (first == (size_t)-1)
		first = nc;
	g->base[0] = '\0';
	for (size_t i = 0; i < first; i++) {
		strncat(g->base, "/", sizeof(g->base) - strlen(g->base) - 1);
		strncat(g->base, all[i], sizeof(g->base) - strlen(g->base) - 1);
	}
	if (!g->base[0])
		strcpy(g->base, "/");
	g->ncomps = nc - first;
	g->folded = calloc(g->ncomps + 1, GLOB_NAME_FOLDED);
	if (!g->folded)
		return -1;
	for (size_t i = 0; i < g->ncomps; i++)
		g->comps[i] = fold_into(all[first + i], g->folded + i * GLOB_NAME_FOLDED);
	return 0;
}

/* Absent names a glob matches in a writable region: held in process. */
static void glob_seam(struct pg_plan *pl, const struct glob_pat *g)
{
	const char *rule;

	if (decide(pl, g->base, &rule) != PG_WRITE && !write_beneath(pl, g->base))
		return;
	note(pl, true, g->base, g->rule, g->access == PG_DENY
	     ? "absent names matching a denied glob in a writable region: held in process only for this launch"
	     : "absent names matching a read-only glob in a writable region: a child can create and write them for this launch (held in process only); later launches bind them read-only");
}

/* Walk each distinct base once, matching all the globs that share it. */
static void expand_globs(struct pg_plan *pl, struct glob_pat **pats, size_t n,
			 const struct pg_envelope_opts *o)
{
	struct glob_walk w = { .pl = pl };

	w.folded = calloc(sizeof(w.names) / sizeof(w.names[0]), GLOB_NAME_FOLDED);
	if (!w.folded) {
		pl->oom = true;
		return;
	}

	w.max_depth = o && o->glob_max_depth ? o->glob_max_depth : PG_GLOB_MAX_DEPTH;
	if (w.max_depth > sizeof(w.names) / sizeof(w.names[0]))
		w.max_depth = sizeof(w.names) / sizeof(w.names[0]);
	w.max_entries = o && o->glob_max_entries ? o->glob_max_entries : PG_GLOB_MAX_ENTRIES;
	for (size_t i = 0; i < n; i++)
		glob_seam(pl, pats[i]);
	for (size_t i = 0; i < n && !pl->oom; i++) {
		char path[PATH_MAX];
		size_t j = i, plen;
		int fd;

		if (i > 0 && strcmp(pats[i]->base, pats[i - 1]->base) == 0)
			continue;
		while (j < n && strcmp(pats[j]->base, pats[i]->base) == 0)
			j++;
		w.pats = pats + i;
		w.npats = j - i;
		fd = open(pats[i]->base, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0)
			continue;
		plen = strcmp(pats[i]->base, "/") == 0 ? 0 : strlen(pats[i]->base);
		memcpy(path, pats[i]->base, plen);
		path[plen] = '\0';
		glob_walk_dir(&w, fd, path, plen, 0);
	}
	free(w.folded);
}

static int cmp_glob_base(const void *a, const void *b)
{
	const struct glob_pat *const *x = a, *const *y = b;

	return strcmp((*x)->base, (*y)->base);
}

/* Deny and read globs: their existing matches become entries.  A write
 * glob lays nothing (a missing grant only narrows). */
static void lay_globs(struct pg_plan *pl, const char *root, const struct pg_rule *const *rules,
		      size_t n, const struct pg_envelope_opts *o)
{
	struct glob_pat **pats = calloc(n + 1, sizeof(*pats));
	size_t np = 0;

	if (!pats) {
		pl->oom = true;
		return;
	}
	for (size_t i = 0; i < n && !pl->oom; i++) {
		struct glob_pat *g;
		char *pattern;

		if (!rules[i]->glob)
			continue;
		if (rules[i]->access == PG_WRITE) {
			note(pl, false, rules[i]->path, pl->requested[i],
			     "a write glob lays no mount: only the names it matches in process are writable");
			continue;
		}
		g = calloc(1, sizeof(*g));
		pattern = absolute_of(root, rules[i]);
		if (!g || !pattern || glob_split(g, pattern) < 0) {
			free(pattern);
			if (g) {
				free(g->copy);
				free(g->folded);
			}
			free(g);
			pl->oom = true;
			break;
		}
		free(pattern);
		g->access = rules[i]->access;
		g->final = rules[i]->final;
		g->rule = pl->requested[i];
		pats[np++] = g;
	}
	qsort(pats, np, sizeof(*pats), cmp_glob_base);
	if (!pl->oom)
		expand_globs(pl, pats, np, o);
	for (size_t i = 0; i < np; i++) {
		free(pats[i]->copy);
		free(pats[i]->folded);
		free(pats[i]);
	}
	free(pats);
}

/* ---------------------------------------------------------------- pins */

/* Open DIR refusing a symlink in any component (openat2, else a walk
 * component by component); the fd or -1. */
static int open_verified_dir(const char *dir)
{
	int fd = pg_openat2(AT_FDCWD, dir, O_PATH | O_DIRECTORY | O_CLOEXEC, 0,
			    RESOLVE_NO_SYMLINKS);
	char *copy, *save = NULL, *tok;

	if (fd >= 0 || (errno != ENOSYS && errno != EAGAIN))
		return fd;
	copy = strdup(dir);
	fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);

	if (!copy) {
		if (fd >= 0)
			close(fd);
		errno = ENOMEM;
		return -1;
	}
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

static bool pinned_already(const struct pg_plan *pl, const char *dir)
{
	for (size_t i = 0; i < pl->nmounts; i++)
		if ((pl->mounts[i].kind == MK_PIN || pl->mounts[i].kind == MK_PIN_RW) &&
		    strcmp(pl->mounts[i].dest, dir) == 0)
			return true;
	return false;
}

static void pin_dir(struct pg_plan *pl, const char *dir, size_t region, const char *rule)
{
	struct plan_mount *m;
	int fd;

	if (pinned_already(pl, dir))
		return;
	fd = open_verified_dir(dir);
	if (fd < 0) {
		note(pl, false, dir, rule, "pin dropped: the path cannot be verified free of symlinks (%s)",
		     strerror(errno));
		return;
	}
	/* Over a host view a pin lies beneath every mount (read-only, it only
	 * makes the directory a mountpoint); without one, it has to follow its
	 * region's mount and stay writable. */
	if (pl->base == REGION_HIDDEN && region != (size_t)-1) {
		m = add_mount(pl, MK_PIN_RW, strdup(dir), strdup(dir), fd, rule);
		if (m) {
			m->after = region;
			pl->npins_rw++;
		}
	} else {
		m = add_mount(pl, MK_PIN, strdup(dir), strdup(dir), fd, rule);
	}
	if (m)
		m->why = "pin";
}

/* The rule mount PATH lies in, among the first N mounts (index), or
 * (size_t)-1 for the base. */
static size_t region_mount(const struct pg_plan *pl, const char *path, size_t n)
{
	size_t r = (size_t)-1, plen = strlen(path);

	for (size_t len = next_prefix(path, plen, 0); len && len < plen;
	     len = next_prefix(path, plen, len)) {
		size_t i = index_find(&pl->mount_ix, path, len, mount_name, pl);

		if (i != (size_t)-1 && i < n)
			r = i;
	}
	return r;
}

/* Pin every directory strictly between PATH's writable region and PATH,
 * top down; with ABSENT_OK, stop quietly where the directories end. */
static void pin_between(struct pg_plan *pl, const char *path, size_t before,
			const char *rule_text, bool absent_ok)
{
	size_t r = region_mount(pl, path, before);
	char *chain[PG_PATH_MAX / 2 + 1];
	size_t depth = 0;
	const char *top;
	char *dir, *rule;

	if (r != (size_t)-1 && pl->mounts[r].kind != MK_BIND)
		return;
	if (r == (size_t)-1 && (pl->base != REGION_RW || covers("/tmp", path)))
		return;
	/* pin_dir grows the array: copy what the walk needs first. */
	top = r == (size_t)-1 ? "/" : pl->mounts[r].dest;
	rule = strdup(rule_text);
	dir = parent_of(path);
	while (rule && dir && strictly_beneath(dir, top) && depth < sizeof(chain) / sizeof(chain[0])) {
		chain[depth++] = dir;
		dir = parent_of(dir);
	}
	free(dir);
	while (depth > 0) {
		struct stat st;

		dir = chain[--depth];
		if (absent_ok && (lstat(dir, &st) < 0 || !S_ISDIR(st.st_mode))) {
			while (depth > 0)
				free(chain[--depth]);
		} else {
			pin_dir(pl, dir, r, rule);
		}
		free(dir);
	}
	if (!rule)
		pl->oom = true;
	free(rule);
}

static void lay_pins(struct pg_plan *pl)
{
	size_t nrule = pl->nmounts;

	for (size_t i = 0; i < nrule; i++)
		if (is_region_mount(pl->mounts[i].kind) && pl->mounts[i].kind != MK_BIND)
			pin_between(pl, pl->mounts[i].dest, i, pl->mounts[i].rule, false);
	for (size_t i = 0; i < pl->nseeds; i++)
		pin_between(pl, pl->seeds[i].path, nrule, pl->seeds[i].rule, true);
}

/* --------------------------------------------------------------- argv */

static int push(struct pg_plan *pl, const char *s)
{
	char *d;

	if (!GROW(pl->args, pl->nargs, pl->capargs) || !(d = strdup(s))) {
		pl->oom = true;
		return -1;
	}
	pl->args[pl->nargs++] = d;
	return 0;
}

static void push_fd(struct pg_plan *pl, int fd)
{
	char num[16];

	snprintf(num, sizeof(num), "%d", fd);
	push(pl, num);
}

static void emit_mount(struct pg_plan *pl, struct plan_mount *m)
{
	switch (m->kind) {
	case MK_BASE:
		push(pl, m->op = pl->base == REGION_RW ? "--bind" : "--ro-bind");
		push(pl, "/");
		break;
	case MK_PSEUDO:
		push(pl, m->op);
		break;
	case MK_PIN:
	case MK_ROBIND:
		push(pl, m->op = "--ro-bind-fd");
		push_fd(pl, m->fd);
		break;
	case MK_PIN_RW:
	case MK_BIND:
		push(pl, m->op = "--bind-fd");
		push_fd(pl, m->fd);
		break;
	case MK_MASK_DIR:
		push(pl, "--perms");
		push(pl, m->traverse ? "0111" : "0000");
		push(pl, m->op = "--tmpfs");
		break;
	case MK_MASK_FILE:
		push(pl, m->op = "--ro-bind");
		push(pl, "/dev/null");
		break;
	case MK_SYMLINK:
		push(pl, m->op = "--symlink");
		push(pl, m->src);
		break;
	case MK_REMOUNT:
		push(pl, m->op = "--remount-ro");
		break;
	}
	push(pl, m->dest);
	m->emitted = true;
}

static void add_pseudo(struct pg_plan *pl, const char *op, const char *dest)
{
	struct plan_mount *m = add_mount(pl, MK_PSEUDO, strdup(dest), NULL, -1, "");

	if (m) {
		m->op = op;
		m->why = "base";
	}
}

/* The argv order: base, read-only pins (beneath everything), /dev /proc
 * /tmp, rule mounts by depth (each followed by its writable pins), then
 * the remounts that make directory masks read-only. */
enum phase { PHASE_BASE, PHASE_PINS, PHASE_PSEUDO, PHASE_RULES, PHASE_REMOUNTS, PHASE_FOLLOWS };

static enum phase phase_of(enum mount_kind k)
{
	switch (k) {
	case MK_BASE:    return PHASE_BASE;
	case MK_PIN:     return PHASE_PINS;
	case MK_PSEUDO:  return PHASE_PSEUDO;
	case MK_REMOUNT: return PHASE_REMOUNTS;
	case MK_PIN_RW:  return PHASE_FOLLOWS;
	default:         return PHASE_RULES;
	}
}

static void emit_at(struct pg_plan *pl, size_t i)
{
	pl->order[pl->norder++] = i;
	emit_mount(pl, &pl->mounts[i]);
	for (size_t j = 0; pl->npins_rw && j < pl->nmounts; j++)
		if (pl->mounts[j].kind == MK_PIN_RW && pl->mounts[j].after == i)
			emit_at(pl, j);
}

static void emit_phase(struct pg_plan *pl, enum phase ph)
{
	for (size_t i = 0; i < pl->nmounts; i++)
		if (!pl->mounts[i].emitted && phase_of(pl->mounts[i].kind) == ph)
			emit_at(pl, i);
}

/* The public list of mounts follows argv order. */
static void assemble(struct pg_plan *pl)
{
	size_t nrule;

	for (size_t j = 0; j < pl->nmounts; j++) {
		const char *d = pl->mounts[j].dest;
		size_t dlen = pl->mounts[j].len;

		if (pl->mounts[j].kind == MK_PIN)
			continue;
		for (size_t len = next_prefix(d, dlen, 0); len && len < dlen;
		     len = next_prefix(d, dlen, len)) {
			size_t i = index_find(&pl->mount_ix, d, len, mount_name, pl);

			if (i != (size_t)-1 && pl->mounts[i].kind == MK_MASK_DIR)
				pl->mounts[i].traverse = true;
		}
	}
	add_pseudo(pl, "--dev", "/dev");
	add_pseudo(pl, "--proc", "/proc");
	add_pseudo(pl, "--tmpfs", "/tmp");
	nrule = pl->nmounts;
	for (size_t i = 0; i < nrule && !pl->masks_read_only; i++)
		if (pl->mounts[i].kind == MK_MASK_DIR)
			note(pl, true, pl->mounts[i].dest, pl->mounts[i].rule,
			     "this bwrap refuses --remount-ro over its own tmpfs: the child can chmod the empty mask back and use it as private scratch (never the denied directory)");
	for (size_t i = 0; i < nrule && pl->masks_read_only; i++)
		if (pl->mounts[i].kind == MK_MASK_DIR) {
			struct plan_mount *m = add_mount(pl, MK_REMOUNT, strdup(pl->mounts[i].dest),
							 NULL, -1, pl->mounts[i].rule);
			if (m)
				m->why = "mask (read-only: its mode cannot be changed back)";
		}
	if (pl->oom)
		return;

	push(pl, pl->bwrap);
	push(pl, "--unshare-all");
	push(pl, "--unshare-user");
	push(pl, "--disable-userns");
	push(pl, "--cap-drop");
	push(pl, "ALL");
	push(pl, "--die-with-parent");
	push(pl, "--new-session");

	pl->order = calloc(pl->nmounts + 1, sizeof(*pl->order));
	if (!pl->order) {
		pl->oom = true;
		return;
	}
	for (int ph = PHASE_BASE; ph <= PHASE_REMOUNTS; ph++)
		emit_phase(pl, (enum phase)ph);
	push(pl, "--chdir");
	push(pl, pl->chdir);
}

static void publish(struct pg_plan *pl)
{
	pl->pub_mounts = calloc(pl->norder + 1, sizeof(*pl->pub_mounts));
	pl->pub_skips = calloc(pl->nskips + 1, sizeof(*pl->pub_skips));
	pl->pub_seams = calloc(pl->nseams + 1, sizeof(*pl->pub_seams));
	if (!pl->pub_mounts || !pl->pub_skips || !pl->pub_seams) {
		pl->oom = true;
		return;
	}
	for (size_t k = 0; k < pl->norder; k++) {
		const struct plan_mount *m = &pl->mounts[pl->order[k]];

		pl->pub_mounts[k] = (struct pg_mount){ m->op, m->src, m->dest, m->rule,
						       m->why ? m->why : "" };
	}
	for (size_t i = 0; i < pl->nskips; i++)
		pl->pub_skips[i] = (struct pg_seam){ pl->skips[i].path, pl->skips[i].rule, pl->skips[i].why };
	for (size_t i = 0; i < pl->nseams; i++)
		pl->pub_seams[i] = (struct pg_seam){ pl->seams[i].path, pl->seams[i].rule, pl->seams[i].why };
	/* argv ends with NULL */
	if (GROW(pl->args, pl->nargs, pl->capargs))
		pl->args[pl->nargs] = NULL;
	else
		pl->oom = true;
}

/* ---------------------------------------------------------------- plan */

/* A deny covers the name's collision class (invariant 2): mask the other
 * spellings that exist beside it ("deny .env" also masks ".ENV"), found by
 * one bounded listing of its directory.  Denies are laid sorted by path,
 * so those of one directory come together: the folded listing of the last
 * directory is kept for the next. */
#define FOLD_MAX_ENTRIES 4096

struct folded_name {
	char *folded;
	char *name;
};

static void fold_cache_clear(struct pg_plan *pl)
{
	for (size_t i = 0; i < pl->fold_n; i++) {
		free(pl->fold_names[i].folded);
		free(pl->fold_names[i].name);
	}
	free(pl->fold_names);
	free(pl->fold_dir);
	pl->fold_names = NULL;
	pl->fold_dir = NULL;
	pl->fold_n = 0;
}

static int cmp_folded(const void *a, const void *b)
{
	return strcmp(((const struct folded_name *)a)->folded, ((const struct folded_name *)b)->folded);
}

/* List DIR once, folding every name; false when it cannot be listed. */
static bool fold_cache_load(struct pg_plan *pl, const char *dir, const char *rule)
{
	char buf[GLOB_NAME_FOLDED];
	struct dirent *de;
	size_t cap = 0;
	DIR *d;
	int fd;

	if (pl->fold_dir && strcmp(pl->fold_dir, dir) == 0)
		return true;
	fold_cache_clear(pl);
	if (!(pl->fold_dir = strdup(dir)))
		return false;
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || !(d = fdopendir(fd))) {
		if (fd >= 0)
			close(fd);
		return true;   /* nothing listed: nothing else to mask */
	}
	while ((de = readdir(d))) {
		struct folded_name *f;

		if (pl->fold_n >= FOLD_MAX_ENTRIES) {
			note(pl, false, dir, rule,
			     "over %u entries: other spellings of denied names here are not looked for (held in process only)",
			     FOLD_MAX_ENTRIES);
			break;
		}
		if (!GROW(pl->fold_names, pl->fold_n, cap))
			break;
		f = &pl->fold_names[pl->fold_n];
		f->name = strdup(de->d_name);
		f->folded = strdup(fold_into(de->d_name, buf));
		if (!f->name || !f->folded) {
			free(f->name);
			free(f->folded);
			break;
		}
		pl->fold_n++;
	}
	closedir(d);
	qsort(pl->fold_names, pl->fold_n, sizeof(*pl->fold_names), cmp_folded);
	return true;
}

static void lay_fold_siblings(struct pg_plan *pl, const char *path, const char *rule)
{
	char want[GLOB_NAME_FOLDED];
	const char *name = strrchr(path, '/') + 1;
	struct folded_name key, *hit;
	char *dir = parent_of(path);

	if (!dir || !*name)
		goto out;
	if (region_at(pl, dir) != REGION_RW && region_at(pl, dir) != REGION_RO)
		goto out;
	if (!fold_cache_load(pl, dir, rule) || pl->fold_n == 0)
		goto out;
	key.folded = (char *)fold_into(name, want);
	hit = bsearch(&key, pl->fold_names, pl->fold_n, sizeof(key), cmp_folded);
	if (!hit)
		goto out;
	while (hit > pl->fold_names && strcmp(hit[-1].folded, key.folded) == 0)
		hit--;
	for (; hit < pl->fold_names + pl->fold_n && strcmp(hit->folded, key.folded) == 0; hit++) {
		char *other;

		if (strcmp(hit->name, name) == 0)
			continue;
		other = strcmp(dir, "/") == 0 ? xasprintf("/%s", hit->name)
					     : xasprintf("%s/%s", dir, hit->name);
		if (other)
			lay_deny(pl, other, rule);
		free(other);
	}
out:
	free(dir);
}

static int cmp_entry(const void *a, const void *b)
{
	const struct plan_entry *x = a, *y = b;

	if (x->depth != y->depth)
		return x->depth < y->depth ? -1 : 1;
	return strcmp(x->path, y->path);
}

static void lay_base(struct pg_plan *pl)
{
	const char *rule;
	enum pg_access acc = decide(pl, "/", &rule);
	bool named = false;
	struct plan_mount *m;

	for (size_t i = 0; i < pl->nentries; i++)
		if (strcmp(pl->entries[i].path, "/") == 0)
			named = true;
	pl->base = REGION_HIDDEN;
	if (!named)
		return;
	if (acc == PG_DENY)
		return;
	pl->base = acc == PG_WRITE ? REGION_RW : REGION_RO;
	m = add_mount(pl, MK_BASE, strdup("/"), strdup("/"), -1, rule);
	if (m)
		m->why = "base";
}

/* /tmp itself, /dev and /proc belong to the envelope (a private tmpfs, a
 * fresh devtmpfs and procfs); a workspace beneath /tmp is still bound. */
static bool envelope_owned(const char *path)
{
	return strcmp(path, "/tmp") == 0 || covers("/dev", path) || covers("/proc", path);
}

static void lay_rules(struct pg_plan *pl)
{
	size_t n = pl->nentries;
	struct plan_entry *sorted = malloc((n ? n : 1) * sizeof(*sorted));

	if (!sorted) {
		pl->oom = true;
		return;
	}
	memcpy(sorted, pl->entries, n * sizeof(*sorted));
	qsort(sorted, n, sizeof(*sorted), cmp_entry);
	for (size_t i = 0; i < n && !pl->oom; i++) {
		const char *rule;
		enum pg_access acc;

		if (strcmp(sorted[i].path, "/") == 0)
			continue;
		if (i > 0 && strcmp(sorted[i].path, sorted[i - 1].path) == 0)
			continue;   /* one path, one decision */
		if (envelope_owned(sorted[i].path)) {
			note(pl, false, sorted[i].path, sorted[i].rule,
			     "the envelope gives every child its own /tmp, /dev and /proc: no host mount here");
			continue;
		}
		acc = decide(pl, sorted[i].path, &rule);
		if (acc == PG_DENY) {
			lay_deny(pl, sorted[i].path, rule ? rule : sorted[i].rule);
			if (!sorted[i].from_glob)
				lay_fold_siblings(pl, sorted[i].path, rule ? rule : sorted[i].rule);
		} else
			lay_grant(pl, sorted[i].path, acc, rule);
	}
	fold_cache_clear(pl);
	free(sorted);
}

/* A symlink's target can be shallower than its name: lay the mounts by
 * the depth of their mountpoints, shallow first, keeping the order of
 * equals (invariant 5 holds for what is mounted, not how it was named). */
static void sort_by_depth(struct pg_plan *pl)
{
	for (size_t i = 1; i < pl->nmounts; i++) {
		struct plan_mount m = pl->mounts[i];
		unsigned d = path_depth(m.dest);
		size_t j = i;

		while (j > 0 && path_depth(pl->mounts[j - 1].dest) > d) {
			pl->mounts[j] = pl->mounts[j - 1];
			j--;
		}
		pl->mounts[j] = m;
	}
	mount_index_rebuild(pl);
}

static void choose_chdir(struct pg_plan *pl)
{
	enum region r = region_at(pl, pl->root);

	if (r == REGION_RW || r == REGION_RO) {
		pl->chdir = strdup(pl->root);
	} else {
		pl->chdir = strdup("/");
		note(pl, false, pl->root, "",
		     "the workspace root is not visible in the envelope: the child starts in /");
	}
	if (!pl->chdir)
		pl->oom = true;
}

pg_plan *pg_envelope_plan(const char *root, const struct pg_rule *const *rules,
			  size_t n, const struct pg_envelope_opts *opts)
{
	struct pg_plan *pl;
	char buf[PG_PATH_MAX + 600];

	if (!root || root[0] != '/' || (n && !rules)) {
		errno = EINVAL;
		return NULL;
	}
	pl = calloc(1, sizeof(*pl));
	if (!pl)
		return NULL;
	pl->root = strdup(root);
	pl->bwrap = strdup(pg_envelope_bwrap());
	pl->masks_read_only = pg_envelope_masks_read_only();
	pl->requested = calloc(n + 1, sizeof(*pl->requested));
	if (!pl->root || !pl->bwrap || !pl->requested)
		pl->oom = true;
	pl->glob_max_depth = opts && opts->glob_max_depth ? opts->glob_max_depth : PG_GLOB_MAX_DEPTH;
	pl->glob_max_entries = opts && opts->glob_max_entries ? opts->glob_max_entries : PG_GLOB_MAX_ENTRIES;
	for (size_t i = 0; i < n && !pl->oom; i++) {
		render_rule(rules[i], buf, sizeof(buf));
		if (!(pl->requested[pl->nrequested++] = strdup(buf)))
			pl->oom = true;
		else if (!rules[i]->glob)
			add_entry(pl, absolute_of(root, rules[i]), rules[i]->access,
				  rules[i]->final, buf, false);
	}
	if (!pl->oom)
		lay_globs(pl, root, rules, n, opts);
	if (!pl->oom)
		lay_base(pl);
	if (!pl->oom)
		lay_rules(pl);
	if (!pl->oom)
		sort_by_depth(pl);
	if (!pl->oom)
		lay_pins(pl);
	if (!pl->oom)
		choose_chdir(pl);
	if (!pl->oom)
		assemble(pl);
	if (!pl->oom)
		publish(pl);
	if (pl->oom) {
		pg_plan_free(pl);
		errno = ENOMEM;
		return NULL;
	}
	return pl;
}

/* Lend the host file HOST read-only to the child at DEST, which must lie in
 * the envelope's private /tmp: its mountpoint is made in that tmpfs, never
 * on the host.  The file is opened here and lent by descriptor, so what is
 * mounted is what was opened. */
int pg_envelope_lend(pg_plan *pl, const char *host, const char *dest, const char *why)
{
	struct plan_mount *m;
	struct stat st;
	size_t *order;
	int fd;

	if (!pl || !host || !dest || strncmp(dest, "/tmp/", 5) != 0 || strstr(dest, "/..")) {
		errno = EINVAL;
		return -1;
	}
	fd = open(host, O_PATH | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		errno = EINVAL;
		return -1;
	}
	order = realloc(pl->order, (pl->nmounts + 2) * sizeof(*order));
	if (!order) {
		close(fd);
		return -1;
	}
	pl->order = order;
	m = add_mount(pl, MK_ROBIND, strdup(dest), strdup(host), fd, why);
	if (!m || pl->oom)
		return -1;
	m->why = "lent";
	/* Append the mount over the argv terminator, publish again. */
	emit_at(pl, pl->nmounts - 1);
	free(pl->pub_mounts);
	free(pl->pub_skips);
	free(pl->pub_seams);
	publish(pl);
	if (pl->oom) {
		errno = ENOMEM;
		return -1;
	}
	return 0;
}

/* ------------------------------------------------------ public getters */

char *const *pg_plan_argv(const pg_plan *pl)
{
	return pl ? pl->args : NULL;
}

size_t pg_plan_mount_count(const pg_plan *pl)
{
	return pl ? pl->norder : 0;
}

const struct pg_mount *pg_plan_mount(const pg_plan *pl, size_t i)
{
	return pl && i < pl->norder ? &pl->pub_mounts[i] : NULL;
}

size_t pg_plan_seam_count(const pg_plan *pl)
{
	return pl ? pl->nseams : 0;
}

const struct pg_seam *pg_plan_seam(const pg_plan *pl, size_t i)
{
	return pl && i < pl->nseams ? &pl->pub_seams[i] : NULL;
}

size_t pg_plan_skip_count(const pg_plan *pl)
{
	return pl ? pl->nskips : 0;
}

const struct pg_seam *pg_plan_skip(const pg_plan *pl, size_t i)
{
	return pl && i < pl->nskips ? &pl->pub_skips[i] : NULL;
}
