/* root.c - the workspace root: opening it, and its private policy with
 * the rules and the identity set derived from what is on disk (judge.c
 * owns the set and judges with it). */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/magic.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "judge.h"
#include "link-map.h"
#include "path.h"
#include "refusal.h"
#include "resolve.h"
#include "root.h"
#include "shim.h"

#define PG_DEFAULT_WRITE_LIMIT (64ull << 20)

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
/* Add a derived rule once: refreshes keep what earlier ones derived. */
static int add_derived(pg_policy *policy, enum pg_access access, bool final, const char *path)
{
	size_t n = pg_policy_rule_count(policy);

	for (size_t i = 0; i < n; i++) {
		const struct pg_rule *r = pg_policy_rule(policy, i);

		if (r->derived && r->access == access && r->final == final &&
		    strcmp(r->path, path[0] == '.' && !path[1] ? "" : path) == 0)
			return 0;
	}
	return pg_policy_add_rule(policy, access, final, path, NULL, 0, true);
}

static int derive_symlink_target(pg_root *root, pg_policy *policy, const char *name)
{
	struct pg_res res;
	int rc = 0;

	if (probe(root, name, PG_RES_FOLLOW, &res) < 0)
		return 0; /* leaves the root, or unreadable: nothing inside to deny */
	if (res.real_len)
		rc = add_derived(policy, PG_DENY, true, res.real);
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
			rc = pg_ids_record(sc->d->ids, sc->d->policy, sc->name, len + 1 + n, &stx);
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
		rc = pg_ids_record(d->ids, d->policy, name, len, &res.stx);
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

/* The canonical forms of the last few parent directories looked up: a
 * policy's host rules mostly sit in a few directories ("~/.ssh",
 * "~/.aws", "~/.config/gh", ...), and every process the preload starts
 * opens a root. */
#define CANON_MEMO 8

struct canon_memo {
	struct {
		char parent[PATH_MAX];
		char canon[PATH_MAX];
		bool valid, found;
	} e[CANON_MEMO];
	unsigned next;   /* the entry replaced next */
};

/* The entry for parent directory HEAD[0, PLEN), resolved if new. */
static bool memo_parent(struct canon_memo *m, const char *head, size_t plen, const char **canon)
{
	unsigned i;
	char *c;

	for (i = 0; i < CANON_MEMO; i++)
		if (m->e[i].valid && !strncmp(m->e[i].parent, head, plen) && !m->e[i].parent[plen])
			break;
	if (i == CANON_MEMO) {
		i = m->next;
		m->next = (m->next + 1) % CANON_MEMO;
		memcpy(m->e[i].parent, head, plen);
		m->e[i].parent[plen] = '\0';
		c = realpath(m->e[i].parent, NULL);
		m->e[i].valid = true;
		m->e[i].found = c && strlen(c) < sizeof(m->e[i].canon);
		if (m->e[i].found)
			strcpy(m->e[i].canon, c);
		free(c);
	}
	*canon = m->e[i].canon;
	return m->e[i].found;
}

/* realpath(HEAD) (an absolute, normalised path), its parent resolved once
 * for a run of rules in the same directory: a last component that is no
 * symlink (readlink says EINVAL) is the canonical parent's entry, as
 * realpath would find; a symlink, or any doubt, asks realpath itself. */
static char *canonical_head(const char *head, struct canon_memo *m)
{
	const char *slash = strrchr(head, '/'), *last = slash + 1;
	size_t plen = slash == head ? 1 : (size_t)(slash - head);
	char cand[PATH_MAX + 1], link[1];
	const char *pc;

	if (!strcmp(last, ".") || !strcmp(last, "..") || plen >= PATH_MAX)
		return realpath(head, NULL);
	if (!memo_parent(m, head, plen, &pc))
		return NULL;   /* no parent, no entry: realpath fails alike */
	if ((size_t)snprintf(cand, sizeof(cand), "%s/%s", strcmp(pc, "/") ? pc : "",
			     last) >= sizeof(cand))
		return realpath(head, NULL);
	if (readlink(cand, link, sizeof(link)) < 0)
		return errno == EINVAL ? strdup(cand) : NULL;
	return realpath(head, NULL);
}

/* The literal head of absolute rule PATH (its components before the first
 * pattern) as the host spells it canonically, into BUF with the rest of
 * PATH after it; false when the head is canonical already or cannot be
 * resolved.  A rule spelled through a symlinked host path ("/home" ->
 * "/usr/home") then still meets the root's canonical path. */
static bool canonical_spelling(const char *path, char *buf, size_t size,
			       struct canon_memo *memo)
{
	char head[PATH_MAX], *canon;
	size_t len = 0, i = 0, n = strlen(path), c;

	while (i < n) {
		while (i < n && path[i] == '/')
			i++;
		c = strcspn(path + i, "/");
		if (!c || memchr(path + i, '*', c) || memchr(path + i, '?', c))
			break;
		len = i + c;
		i += c;
	}
	if (!len || len >= sizeof(head))
		return false;
	memcpy(head, path, len);
	head[len] = '\0';
	canon = canonical_head(head, memo);
	if (!canon || strcmp(canon, head) == 0 ||
	    (size_t)snprintf(buf, size, "%s%s", canon, path + len) >= size) {
		free(canon);
		return false;
	}
	free(canon);
	return true;
}

/* The root's policy: the caller's rules (borrowed from root->base, not
 * copied), each absolute rule also in its canonical spelling (issue
 * 11.3), then rebased onto the root, compiled once. */
static pg_policy *host_policy(const pg_root *root)
{
	pg_policy *p = root->base ? pg_policy_extend(root->base) : pg_policy_new_uncompiled();
	char canon[PG_PATH_MAX + PATH_MAX];
	struct canon_memo *memo = calloc(1, sizeof(*memo));
	size_t n;

	if (!memo || (p && !root->base && pg_policy_add(p, PG_WRITE, ".") < 0))
		goto fail;
	n = p ? pg_policy_rule_count(p) : 0;
	for (size_t i = 0; i < n; i++) {
		const struct pg_rule *r = pg_policy_rule(p, i);

		if (r->absolute && !r->derived && canonical_spelling(r->path, canon, sizeof(canon), memo) &&
		    pg_policy_add_rule(p, r->access, r->final, canon, r->file, r->line, false) < 0)
			goto fail;
	}
	if (p && (pg_policy_rebase(p, root->path) < 0 || pg_policy_compile(p) < 0))
		goto fail;
	free(memo);
	return p;
fail:
	free(memo);
	pg_policy_free(p);
	return NULL;
}

/* A denied symlink's target stays denied after the link is re-pointed: a
 * planted link can only widen a deny, never narrow it (issue 11.2).  The
 * root keeps every target it derived; a new root knows only what the
 * links say when it opens. */
static int keep_derived(pg_root *root, pg_policy *policy)
{
	int rc = 0;

	pthread_rwlock_rdlock(&root->lock);
	for (size_t i = 0; root->policy && rc == 0 && i < pg_policy_rule_count(root->policy); i++) {
		const struct pg_rule *r = pg_policy_rule(root->policy, i);

		if (r->derived)
			rc = add_derived(policy, r->access, r->final, r->path[0] ? r->path : ".");
	}
	pthread_rwlock_unlock(&root->lock);
	return rc;
}

/* The directories a refresh has looked at, and whether a rule's name can
 * lie in them: a rule whose parent directory is missing (or not a
 * directory) names nothing on disk, so it is not probed.  A policy of a
 * million rules under a few missing directories then costs a few probes,
 * not a million. */
struct dir_memo {
	char  **keys;
	bool   *usable;
	size_t  cap, n;
};

static size_t memo_hash(const char *s, size_t len)
{
	size_t h = 1469598103934665603ull;

	while (len--)
		h = (h ^ (unsigned char)*s++) * 1099511628211ull;
	return h;
}

/* The slot of KEY (LEN bytes): its entry, or the empty slot it would take. */
static size_t memo_slot(const struct dir_memo *m, const char *key, size_t len)
{
	size_t i = memo_hash(key, len) & (m->cap - 1);

	while (m->keys[i] && (strncmp(m->keys[i], key, len) != 0 || m->keys[i][len]))
		i = (i + 1) & (m->cap - 1);
	return i;
}

static int memo_grow(struct dir_memo *m)
{
	struct dir_memo big = { .cap = m->cap ? m->cap * 2 : 256 };

	big.keys = calloc(big.cap, sizeof(*big.keys));
	big.usable = calloc(big.cap, sizeof(*big.usable));
	if (!big.keys || !big.usable) {
		free(big.keys);
		free(big.usable);
		return -1;
	}
	for (size_t i = 0; i < m->cap; i++)
		if (m->keys[i]) {
			size_t j = memo_slot(&big, m->keys[i], strlen(m->keys[i]));

			big.keys[j] = m->keys[i];
			big.usable[j] = m->usable[i];
		}
	big.n = m->n;
	free(m->keys);
	free(m->usable);
	*m = big;
	return 0;
}

static void memo_free(struct dir_memo *m)
{
	for (size_t i = 0; i < m->cap; i++)
		free(m->keys[i]);
	free(m->keys);
	free(m->usable);
}

/* Can a name lie in directory PATH[0, LEN) of the workspace (resolved as
 * a rule's name is, symlinks on the way followed)?  Asked of the parent
 * first, so only the first missing directory of a branch is probed.  On
 * no memory the answer is yes: the rule is probed as before. */
static bool dir_usable(pg_root *root, struct dir_memo *m, const char *path, size_t len)
{
	const char *slash = memrchr(path, '/', len);
	struct pg_res res;
	char *key;
	bool usable;
	size_t i;

	if (len == 0)
		return true;
	if (m->cap) {
		i = memo_slot(m, path, len);
		if (m->keys[i])
			return m->usable[i];
	}
	if (slash && !dir_usable(root, m, path, (size_t)(slash - path)))
		return false;
	if ((m->n + 1) * 3 > m->cap * 2 && memo_grow(m) < 0)
		return true;
	key = strndup(path, len);
	if (!key)
		return true;
	if (probe(root, key, PG_RES_FOLLOW, &res) == 0) {
		usable = res.exists && S_ISDIR(res.stx.stx_mode);
		pg_res_release(&res);
	} else {
		usable = false;  /* outside the root, or unreadable: as the rule's own probe */
		pg_refusal_clear();
	}
	i = memo_slot(m, key, len);
	m->keys[i] = key;
	m->usable[i] = usable;
	m->n++;
	return usable;
}

/* Can the rule's own name exist? */
static bool may_exist(pg_root *root, struct dir_memo *m, const char *path)
{
	const char *slash = strrchr(path, '/');

	return !slash || dir_usable(root, m, path, (size_t)(slash - path));
}

static int derive(pg_root *root, struct derived *d)
{
	unsigned budget = PG_ID_SCAN_BUDGET;
	struct dir_memo memo = { 0 };
	int rc = -1;
	size_t i, n;

	d->policy = host_policy(root);
	if (d->policy && keep_derived(root, d->policy) < 0)
		return -1;
	d->ids = pg_ids_new();
	if (!d->policy || !d->ids)
		return -1;

	n = pg_policy_rule_count(d->policy);
	for (i = 0; i < n; i++) {
		const struct pg_rule *r = pg_policy_rule(d->policy, i);
		struct pg_res res;
		bool link;

		if (!is_literal_inside(r) || r->access != PG_DENY || !may_exist(root, &memo, r->path))
			continue;
		if (probe(root, r->path, 0, &res) < 0)
			continue;
		link = res.exists && S_ISLNK(res.stx.stx_mode);
		pg_res_release(&res);
		if (link && derive_symlink_target(root, d->policy, r->path) < 0)
			goto out;
	}
	n = pg_policy_rule_count(d->policy);
	for (i = 0; i < n; i++) {
		const struct pg_rule *r = pg_policy_rule(d->policy, i);

		if (r->absolute || r->glob || !r->path[0] || r->access == PG_WRITE ||
		    !may_exist(root, &memo, r->path))
			continue;
		if (record_identity(root, d, r->path, strlen(r->path), &budget) < 0)
			goto out;
	}
	/* Warm the compiled form before other threads judge with it. */
	struct pg_judgement j;

	pg_policy_judge(d->policy, "", 0, &j);
	rc = 0;
out:
	memo_free(&memo);
	return rc;
}

static void derived_free(struct derived *d)
{
	pg_policy_free(d->policy);
	pg_ids_free(d->ids);
}

/* Does POLICY give ACCESS to some name in the workspace: a rule at or
 * beneath the root (or above it, copied to the root), or no rule at all
 * covering the root (a name no rule covers is denied)? */
static bool may_refuse(const pg_policy *policy, enum pg_access access)
{
	size_t n = pg_policy_rule_count(policy);
	struct pg_judgement j;

	for (size_t i = 0; i < n; i++) {
		const struct pg_rule *r = pg_policy_rule(policy, i);

		if (!r->absolute && r->access == access)
			return true;
	}
	return pg_policy_judge(policy, "", 0, &j) == access;
}

int pg_root_refresh(pg_root *root)
{
	struct derived d = { 0 };
	pg_policy *old_policy;
	struct pg_identity_set *old_ids;
	bool has_deny, has_read;

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
	pg_ids_seal(d.ids, &has_deny, &has_read);
	has_deny = has_deny || may_refuse(d.policy, PG_DENY) ||
		   pg_link_map_top_refuses(root, PG_OP_READ);
	has_read = has_read || may_refuse(d.policy, PG_READ) ||
		   pg_link_map_top_refuses(root, PG_OP_WRITE);
	pthread_rwlock_wrlock(&root->lock);
	pg_link_map_reset(root->links);
	old_policy = root->policy;
	old_ids = root->ids;
	root->policy = d.policy;
	root->ids = d.ids;
	root->has_deny_ids = has_deny;
	root->has_read_ids = has_read;
	pthread_rwlock_unlock(&root->lock);
	pg_policy_free(old_policy);
	pg_ids_free(old_ids);
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

/* Move FD above the numbers programs use and expect free (daemons that
 * close(0) and reopen, shells that dup2 onto 3..9): at 1000, or 64 below
 * the descriptor limit when that is lower.  FD itself when it cannot. */
static int move_high(int fd)
{
	struct rlimit rl;
	long floor = 1000;
	int hi;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
	    (long)rl.rlim_cur - 64 < floor)
		floor = (long)rl.rlim_cur - 64;
	if (floor <= 10)
		return fd;
	hi = fcntl(fd, F_DUPFD_CLOEXEC, (int)floor);
	if (hi < 0)
		return fd;
	close(fd);
	return hi;
}

/* Declared in shim.h. */
bool pg_root_intact(const pg_root *root)
{
	struct stat st;

	return root && fstat(root->fd, &st) == 0 && S_ISDIR(st.st_mode) &&
	       st.st_dev == root->dev && st.st_ino == root->ino;
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
	if (flags & ~(PG_ROOT_XDEV | PG_ROOT_NO_OPENAT2 | PG_ROOT_HIGH_FD)) {
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
	if (flags & PG_ROOT_HIGH_FD)
		root->fd = move_high(root->fd);
	root->path = canonical_path(root->fd, dir);
	if (!root->path || root_identity(root) < 0)
		goto fail;
	root->path_len = strlen(root->path);
	root->resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS;
	if (!(flags & PG_ROOT_XDEV))
		root->resolve |= RESOLVE_NO_XDEV;
	root->openat2 = !(flags & PG_ROOT_NO_OPENAT2) && openat2_usable(root->fd);
	root->links = pg_link_map_new();
	if (!root->links)
		goto fail;
	/* Rules only: the root's own policy borrows them and is compiled. */
	if (policy && !(root->base = pg_policy_dup_rules(policy)))
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
	pg_ids_free(root->ids);
	pg_link_map_free(root->links);
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
