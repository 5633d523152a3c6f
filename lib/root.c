/* root.c - the workspace root: opening it, its private policy with the
 * rules derived from what is on disk, the identities of denied files, and
 * the judge every operation calls. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "path.h"
#include "refusal.h"
#include "resolve.h"
#include "root.h"

#define PG_DEFAULT_WRITE_LIMIT (64ull << 20)

struct pg_identity {
	dev_t          dev;
	ino_t          ino;
	enum pg_access access;
	char           rule[512];
};

struct pg_identity_set {
	size_t             n, cap;
	struct pg_identity *v;
	/* The names of the files literal rules named at refresh: looked at
	 * again when an object with other links misses the set (a denied
	 * file recreated since, then linked). */
	char             **files;
	size_t             nfiles;
	/* Read-only directories literal rules name: searched (within a budget)
	 * when a multi-linked object is written and misses the set. */
	char             **ro_dirs;
	size_t             nro_dirs;
};

static void ids_free(struct pg_identity_set *ids)
{
	if (!ids)
		return;
	for (size_t i = 0; i < ids->nfiles; i++)
		free(ids->files[i]);
	free(ids->files);
	for (size_t i = 0; i < ids->nro_dirs; i++)
		free(ids->ro_dirs[i]);
	free(ids->ro_dirs);
	free(ids->v);
	free(ids);
}

static int add_name(char ***list, size_t *n, const char *name)
{
	char **v = realloc(*list, (*n + 1) * sizeof(*v));

	if (!v)
		return -1;
	*list = v;
	v[*n] = strdup(name);
	if (!v[*n])
		return -1;
	(*n)++;
	return 0;
}

static int ids_add_file(struct pg_identity_set *ids, const char *name)
{
	return add_name(&ids->files, &ids->nfiles, name);
}

static int ids_add(struct pg_identity_set *ids, const struct statx *stx,
		   enum pg_access access, const char *rule)
{
	struct pg_identity *e;

	if (ids->n == ids->cap) {
		size_t cap = ids->cap ? ids->cap * 2 : 8;
		struct pg_identity *v = realloc(ids->v, cap * sizeof(*v));

		if (!v)
			return -1;
		ids->v = v;
		ids->cap = cap;
	}
	e = &ids->v[ids->n++];
	e->dev = makedev(stx->stx_dev_major, stx->stx_dev_minor);
	e->ino = stx->stx_ino;
	e->access = access;
	snprintf(e->rule, sizeof(e->rule), "%s", rule);
	return 0;
}

/* ------------------------------------------------------------- judging */

static enum pg_access needed_access(enum pg_op op)
{
	return op == PG_OP_READ ? PG_READ : PG_WRITE;
}

static int refuse_access(enum pg_access got, const char *display, const char *rule)
{
	return pg_refuse(got == PG_DENY ? PG_R_DENIED : PG_R_READ_ONLY, 0,
			 display, rule);
}

static void render_judgement(const struct pg_judgement *j, char *buf, size_t size)
{
	const struct pg_rule *r = j->cap ? j->cap : j->rule;

	if (r)
		pg_rule_render(r, buf, size);
	else
		snprintf(buf, size, "no rule covers the name");
}

int pg_root_judge_rule_locked(pg_root *root, const char *name, size_t len,
			      enum pg_op op, const char *display,
			      char *rule, size_t size)
{
	struct pg_judgement j;
	enum pg_access got = pg_policy_judge(root->policy, name, len, &j);

	if (got >= needed_access(op)) {
		if (rule && size) {
			if (j.rule)
				render_judgement(&j, rule, size);
			else
				rule[0] = '\0';
		}
		return 0;
	}
	char buf[512];

	render_judgement(&j, buf, sizeof(buf));
	if (rule && size)
		snprintf(rule, size, "%s", buf);
	return refuse_access(got, display, buf);
}

int pg_root_judge_locked(pg_root *root, const char *name, size_t len,
			 enum pg_op op, const char *display)
{
	struct pg_judgement j;
	enum pg_access got = pg_policy_judge(root->policy, name, len, &j);
	char buf[512];

	if (got >= needed_access(op))
		return 0;
	render_judgement(&j, buf, sizeof(buf));
	return refuse_access(got, display, buf);
}

static int cmp_identity(const void *a, const void *b)
{
	const struct pg_identity *x = a, *y = b;

	if (x->ino != y->ino)
		return x->ino < y->ino ? -1 : 1;
	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	return (int)x->access - (int)y->access; /* the strictest first */
}

static int refuse_link(enum pg_access access, const char *rule, const char *display)
{
	char why[600];

	snprintf(why, sizeof(why), "%s (another link to the same file)", rule);
	return refuse_access(access, display, why);
}

static int probe(pg_root *root, const char *name, unsigned how, struct pg_res *res);

/* An object with other links missed the set: is one of the files the
 * rules name that object now? */
static int recheck_named_files(pg_root *root, dev_t dev, ino_t ino, enum pg_op op,
			       const char *display)
{
	const struct pg_identity_set *ids = root->ids;

	for (size_t i = 0; i < ids->nfiles; i++) {
		struct pg_judgement j;
		struct pg_res res;
		bool same;

		if (probe(root, ids->files[i], PG_RES_FOLLOW, &res) < 0) {
			pg_refusal_clear();
			continue;
		}
		same = res.exists && res.stx.stx_ino == ino &&
		       (dev_t)makedev(res.stx.stx_dev_major, res.stx.stx_dev_minor) == dev;
		pg_res_release(&res);
		if (!same)
			continue;
		enum pg_access access = pg_policy_judge(root->policy, ids->files[i],
							strlen(ids->files[i]), &j);
		if (access < needed_access(op)) {
			char rule[512];

			render_judgement(&j, rule, sizeof(rule));
			return refuse_link(access, rule, display);
		}
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
static int search_read_only_dirs(pg_root *root, dev_t dev, ino_t ino, const char *display)
{
	const struct pg_identity_set *ids = root->ids;
	struct search *se = malloc(sizeof(*se));
	int rc = 0;

	if (!se)
		return -1;
	se->dev = dev;
	se->ino = ino;
	se->budget = PG_ID_SEARCH_BUDGET;
	for (size_t i = 0; i < ids->nro_dirs && rc == 0 && se->budget > 0; i++) {
		struct pg_res res;
		int fd;

		if (probe(root, ids->ro_dirs[i], PG_RES_FOLLOW, &res) < 0) {
			pg_refusal_clear();
			continue;
		}
		fd = res.exists && S_ISDIR(res.stx.stx_mode) ?
		     pg_res_reopen(root, &res, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0) : -1;
		se->mnt_id = res.stx.stx_mnt_id;
		memcpy(se->name, res.real, res.real_len + 1);
		if (fd >= 0 && search_dir(se, fd, res.real_len, 0)) {
			struct pg_judgement j;
			enum pg_access access = pg_policy_judge(root->policy, se->name,
								strlen(se->name), &j);

			if (access < PG_WRITE) {
				char rule[512];

				render_judgement(&j, rule, sizeof(rule));
				rc = refuse_link(access, rule, display);
			}
		}
		pg_res_release(&res);
	}
	free(se);
	return rc;
}

int pg_root_judge_identity_locked(pg_root *root, dev_t dev, ino_t ino, nlink_t nlink,
				  enum pg_op op, const char *display)
{
	const struct pg_identity_set *ids = root->ids;
	struct pg_identity key = { .dev = dev, .ino = ino, .access = PG_DENY };
	const struct pg_identity *e;
	size_t lo = 0, hi;

	if (!ids)
		return 0;
	/* The first entry not below KEY: the strictest for this identity. */
	hi = ids->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (cmp_identity(&ids->v[mid], &key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	e = lo < ids->n ? &ids->v[lo] : NULL;
	if (!e || e->ino != ino || e->dev != dev) {
		if (nlink <= 1)
			return 0;
		if (recheck_named_files(root, dev, ino, op, display) < 0)
			return -1;
		if (op != PG_OP_READ && ids->nro_dirs)
			return search_read_only_dirs(root, dev, ino, display);
		return 0;
	}
	if (e->access >= needed_access(op))
		return 0;
	return refuse_link(e->access, e->rule, display);
}

/* ------------------------------------------------------------- refresh */

struct derived {
	pg_policy              *policy;
	struct pg_identity_set *ids;
};

/* Resolve NAME (a literal rule's path) without judging. */
static int probe(pg_root *root, const char *name, unsigned how, struct pg_res *res)
{
	struct pg_path lex;

	if (pg_path_normalise(name[0] ? name : ".", false, &lex) < 0)
		return -1;
	return pg_resolve_locked(root, name[0] ? name : ".", &lex, PG_OP_READ,
				 how | PG_RES_NO_JUDGE, res);
}

/* A deny rule naming a symlink denies what it points at: add a final deny
 * of the target's real name (even when the target does not exist yet). */
static int derive_symlink_target(pg_root *root, pg_policy *policy, const char *name)
{
	struct pg_res res;
	int rc = 0;

	if (probe(root, name, PG_RES_FOLLOW, &res) < 0)
		return 0; /* leaves the root, or unreadable: nothing inside to deny */
	if (res.real_len)
		rc = pg_policy_add_rule(policy, PG_DENY, true, res.real, NULL, 0, true);
	pg_res_release(&res);
	return rc;
}

/* Files beneath denied directories are recorded too, within a budget per
 * refresh: a denied directory holds secrets, rarely many files. */
#define PG_ID_SCAN_BUDGET 4096
#define PG_ID_SCAN_DEPTH  16

struct scan {
	pg_root         *root;
	struct derived  *d;
	unsigned         budget;
	uint64_t         mnt_id;
	char             name[PG_REAL_MAX + PG_NAME_MAX + 2];
};

static int record_stx(struct derived *d, const char *name, size_t len, const struct statx *stx)
{
	struct pg_judgement j;
	enum pg_access access = pg_policy_judge(d->policy, name, len, &j);
	char rule[512];

	if (access == PG_WRITE)
		return 0;
	render_judgement(&j, rule, sizeof(rule));
	return ids_add(d->ids, stx, access, rule);
}

/* Record every non-directory beneath directory FD (owned), named
 * sc->name[0, len), staying on its mount. */
static int scan_dir(struct scan *sc, int fd, size_t len, unsigned depth)
{
	DIR *dir = fdopendir(fd);
	struct dirent *e;
	int rc = 0;

	if (!dir) {
		close(fd);
		return 0;
	}
	while (rc == 0 && sc->budget > 0 && (e = readdir(dir))) {
		size_t n = strlen(e->d_name);
		struct statx stx;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") ||
		    len + 1 + n >= sizeof(sc->name))
			continue;
		sc->budget--;
		if (statx(dirfd(dir), e->d_name, AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT,
			  STATX_TYPE | STATX_INO | STATX_MNT_ID, &stx) < 0)
			continue;
		sc->name[len] = '/';
		memcpy(sc->name + len + 1, e->d_name, n + 1);
		if (S_ISLNK(stx.stx_mode))
			continue;
		if (!S_ISDIR(stx.stx_mode)) {
			rc = record_stx(sc->d, sc->name, len + 1 + n, &stx);
		} else if (depth < PG_ID_SCAN_DEPTH && stx.stx_mnt_id == sc->mnt_id) {
			int sub = openat(dirfd(dir), e->d_name,
					 O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

			if (sub >= 0)
				rc = scan_dir(sc, sub, len + 1 + n, depth + 1);
		}
	}
	closedir(dir);
	return rc;
}

/* Record the identity of what NAME reaches (following a symlink) when the
 * policy refuses NAME something: the file itself, or the files beneath a
 * denied directory. */
static int record_identity(pg_root *root, struct derived *d, const char *name, size_t len,
			   unsigned *budget)
{
	struct pg_res res;
	int rc = 0;

	if (probe(root, name, PG_RES_FOLLOW, &res) < 0)
		return 0;
	if (res.exists && !S_ISDIR(res.stx.stx_mode)) {
		rc = record_stx(d, name, len, &res.stx);
		if (rc == 0)
			rc = ids_add_file(d->ids, name);
	} else if (res.exists &&
		   pg_policy_judge(d->policy, res.real, res.real_len,
				   &(struct pg_judgement){ 0 }) == PG_READ) {
		rc = add_name(&d->ids->ro_dirs, &d->ids->nro_dirs, res.real);
	} else if (res.exists && *budget > 0 &&
		   pg_policy_judge(d->policy, res.real, res.real_len,
				   &(struct pg_judgement){ 0 }) == PG_DENY) {
		struct scan sc = { .root = root, .d = d, .budget = *budget,
				   .mnt_id = res.stx.stx_mnt_id };
		int fd = pg_res_reopen(root, &res, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0);

		memcpy(sc.name, res.real, res.real_len + 1);
		if (fd >= 0)
			rc = scan_dir(&sc, fd, res.real_len, 0);
		*budget = sc.budget;
	}
	pg_res_release(&res);
	return rc;
}

static bool is_literal_inside(const struct pg_rule *r)
{
	return !r->absolute && !r->glob && !r->derived && r->path[0];
}

static int derive(pg_root *root, struct derived *d)
{
	unsigned budget = PG_ID_SCAN_BUDGET;
	size_t i, n;

	if (root->base)
		d->policy = pg_policy_for_root(root->base, root->path);
	else {
		pg_policy *p = pg_policy_new();

		if (p && pg_policy_add(p, PG_WRITE, ".") == 0)
			d->policy = pg_policy_for_root(p, root->path);
		pg_policy_free(p);
	}
	d->ids = calloc(1, sizeof(*d->ids));
	if (!d->policy || !d->ids)
		return -1;

	n = pg_policy_rule_count(d->policy);
	for (i = 0; i < n; i++) {
		const struct pg_rule *r = pg_policy_rule(d->policy, i);
		struct pg_res res;
		bool link;

		if (!is_literal_inside(r) || r->access != PG_DENY)
			continue;
		if (probe(root, r->path, 0, &res) < 0)
			continue;
		link = res.exists && S_ISLNK(res.stx.stx_mode);
		pg_res_release(&res);
		if (link && derive_symlink_target(root, d->policy, r->path) < 0)
			return -1;
	}
	n = pg_policy_rule_count(d->policy);
	for (i = 0; i < n; i++) {
		const struct pg_rule *r = pg_policy_rule(d->policy, i);

		if (r->absolute || r->glob || !r->path[0] || r->access == PG_WRITE)
			continue;
		if (record_identity(root, d, r->path, strlen(r->path), &budget) < 0)
			return -1;
	}
	if (d->ids->n)  /* qsort's base must not be NULL, even for none */
		qsort(d->ids->v, d->ids->n, sizeof(*d->ids->v), cmp_identity);
	/* Warm the compiled form before other threads judge with it. */
	struct pg_judgement j;

	pg_policy_judge(d->policy, "", 0, &j);
	return 0;
}

static void derived_free(struct derived *d)
{
	pg_policy_free(d->policy);
	ids_free(d->ids);
}

int pg_root_refresh(pg_root *root)
{
	struct derived d = { 0 };
	pg_policy *old_policy;
	struct pg_identity_set *old_ids;

	pg_refusal_clear();
	if (!root) {
		errno = EINVAL;
		return -1;
	}
	if (derive(root, &d) < 0) {
		int err = errno ? errno : ENOMEM;

		derived_free(&d);
		errno = err;
		return -1;
	}
	pthread_rwlock_wrlock(&root->lock);
	old_policy = root->policy;
	old_ids = root->ids;
	root->policy = d.policy;
	root->ids = d.ids;
	root->has_deny_ids = false;
	root->has_read_ids = false;
	for (size_t i = 0; i < d.ids->n; i++) {
		if (d.ids->v[i].access == PG_DENY)
			root->has_deny_ids = true;
		else
			root->has_read_ids = true;
	}
	if (d.ids->nro_dirs)
		root->has_read_ids = true; /* writes look at their objects */
	pthread_rwlock_unlock(&root->lock);
	pg_policy_free(old_policy);
	ids_free(old_ids);
	return 0;
}

/* ---------------------------------------------------------------- open */

static bool openat2_usable(int fd)
{
	int probe_fd = pg_openat2(fd, ".", O_PATH | O_CLOEXEC, 0,
				  RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS);

	if (probe_fd >= 0) {
		close(probe_fd);
		return true;
	}
	/* ENOSYS: an old kernel; EPERM: a seccomp filter; E2BIG / EINVAL: a
	 * kernel that knows openat2 but not these flags. */
	return false;
}

static char *canonical_path(int fd, const char *dir)
{
	char proc[64], buf[PATH_MAX];
	ssize_t n;
	struct stat a, b;

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	n = readlink(proc, buf, sizeof(buf) - 1);
	if (n > 0 && buf[0] == '/') {
		buf[n] = '\0';
		if (stat(buf, &a) == 0 && fstat(fd, &b) == 0 &&
		    a.st_dev == b.st_dev && a.st_ino == b.st_ino)
			return strdup(buf);
	}
	return realpath(dir, NULL);
}

static int root_identity(pg_root *root)
{
	struct statx stx;

	if (statx(root->fd, "", AT_EMPTY_PATH, STATX_TYPE | STATX_INO | STATX_MNT_ID, &stx) < 0)
		return -1;
	struct statfs sfs;

	root->maybe_proc = (root->flags & PG_ROOT_XDEV) ||
			   fstatfs(root->fd, &sfs) < 0 || sfs.f_type == PROC_SUPER_MAGIC;
	root->dev = makedev(stx.stx_dev_major, stx.stx_dev_minor);
	root->ino = stx.stx_ino;
	root->mnt_id = (stx.stx_mask & STATX_MNT_ID) ? stx.stx_mnt_id : 0;
	return 0;
}

pg_root *pg_root_open(const char *dir, const pg_policy *policy, unsigned flags)
{
	pg_root *root;
	int err;

	pg_refusal_clear();
	if (!dir || !dir[0]) {
		pg_refuse(PG_R_BAD_PATH, dir ? ENOENT : EINVAL, dir, "no root directory given");
		return NULL;
	}
	if (flags & ~(PG_ROOT_XDEV | PG_ROOT_NO_OPENAT2)) {
		errno = EINVAL;
		return NULL;
	}
	root = calloc(1, sizeof(*root));
	if (!root)
		return NULL;
	root->fd = -1;
	root->flags = flags;
	root->write_limit = PG_DEFAULT_WRITE_LIMIT;
	pthread_rwlock_init(&root->lock, NULL);
	root->fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (root->fd < 0)
		goto fail;
	root->path = canonical_path(root->fd, dir);
	if (!root->path || root_identity(root) < 0)
		goto fail;
	root->path_len = strlen(root->path);
	root->resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS;
	if (!(flags & PG_ROOT_XDEV))
		root->resolve |= RESOLVE_NO_XDEV;
	root->openat2 = !(flags & PG_ROOT_NO_OPENAT2) && openat2_usable(root->fd);
	if (policy && !(root->base = pg_policy_dup(policy)))
		goto fail;
	if (pg_root_refresh(root) < 0)
		goto fail;
	return root;
fail:
	err = errno ? errno : ENOMEM;
	pg_root_close(root);
	errno = err;
	return NULL;
}

void pg_root_close(pg_root *root)
{
	if (!root)
		return;
	if (root->fd >= 0)
		close(root->fd);
	pg_policy_free(root->policy);
	pg_policy_free(root->base);
	ids_free(root->ids);
	pthread_rwlock_destroy(&root->lock);
	free(root->path);
	free(root);
}

int pg_root_set_write_limit(pg_root *root, uint64_t bytes)
{
	pg_refusal_clear();
	if (!root) {
		errno = EINVAL;
		return -1;
	}
	__atomic_store_n(&root->write_limit, bytes, __ATOMIC_RELAXED);
	return 0;
}

uint64_t pg_root_write_limit(const pg_root *root)
{
	return root ? __atomic_load_n(&root->write_limit, __ATOMIC_RELAXED) : 0;
}

const char *pg_root_path(const pg_root *root)
{
	return root ? root->path : NULL;
}

int pg_root_uses_openat2(const pg_root *root)
{
	return root && root->openat2;
}
