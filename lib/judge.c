/* judge.c - the verdict of a root's policy on a name, and the identity
 * set with the verdict on an object by its identity.  Nothing here
 * resolves a path (see judge.h). */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>

#include "judge.h"
#include "refusal.h"
#include "shim.h"

struct pg_identity {
	dev_t          dev;
	ino_t          ino;
	enum pg_access access;
	char           rule[512];
};

struct pg_identity_set {
	size_t             n, cap;
	struct pg_identity *v;
};

/* ------------------------------------------------------------ by name */

static enum pg_access needed_access(enum pg_op op)
{
	return op == PG_OP_READ ? PG_READ : PG_WRITE;
}

static int refuse_access(enum pg_access got, const char *display, const char *rule)
{
	return pg_refuse(got == PG_DENY ? PG_R_DENIED : PG_R_READ_ONLY, 0, display, rule);
}

/* The rule that decided: the final rule that capped it when one did. */
static void render_judgement(const struct pg_judgement *j, char *buf, size_t size)
{
	const struct pg_rule *r = j->cap ? j->cap : j->rule;

	if (r)
		pg_rule_render(r, buf, size);
	else
		snprintf(buf, size, "no rule covers the name");
}

int pg_judge_rule_locked(pg_root *root, const char *name, size_t len, enum pg_op op,
			 const char *display, char *rule, size_t size)
{
	struct pg_judgement j;
	enum pg_access got = pg_policy_judge(root->policy, name, len, &j);
	char buf[512];

	if (got >= needed_access(op)) {
		if (rule && size) {
			if (j.rule)
				render_judgement(&j, rule, size);
			else
				rule[0] = '\0';
		}
		return 0;
	}
	render_judgement(&j, buf, sizeof(buf));
	if (rule && size)
		snprintf(rule, size, "%s", buf);
	return refuse_access(got, display, buf);
}

int pg_judge_locked(pg_root *root, const char *name, size_t len, enum pg_op op,
		    const char *display)
{
	struct pg_judgement j;
	enum pg_access got = pg_policy_judge(root->policy, name, len, &j);
	char buf[512];

	if (got >= needed_access(op))
		return 0;
	render_judgement(&j, buf, sizeof(buf));
	return refuse_access(got, display, buf);
}

/* Declared in shim.h: the preload's verdict on a host path. */
int pg_root_judge_name(pg_root *root, const char *name, enum pg_op op, const char *display)
{
	int rc;

	pthread_rwlock_rdlock(&root->lock);
	rc = pg_judge_locked(root, name, strlen(name), op, display);
	pthread_rwlock_unlock(&root->lock);
	return rc;
}

static int refuse_link(enum pg_access access, const char *rule, const char *display)
{
	char why[600];

	snprintf(why, sizeof(why), "%s (another link to the same file)", rule);
	return refuse_access(access, display, why);
}

int pg_judge_link_locked(pg_root *root, const char *name, size_t len, enum pg_op op,
			 const char *display)
{
	struct pg_judgement j;
	enum pg_access access = pg_policy_judge(root->policy, name, len, &j);
	char rule[512];

	if (access >= needed_access(op))
		return 0;
	render_judgement(&j, rule, sizeof(rule));
	return refuse_link(access, rule, display);
}

/* ----------------------------------------------------- the identity set */

struct pg_identity_set *pg_ids_new(void)
{
	return calloc(1, sizeof(struct pg_identity_set));
}

void pg_ids_free(struct pg_identity_set *ids)
{
	if (!ids)
		return;
	free(ids->v);
	free(ids);
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

int pg_ids_record(struct pg_identity_set *ids, const pg_policy *policy,
		  const char *name, size_t len, const struct statx *stx)
{
	struct pg_judgement j;
	enum pg_access access = pg_policy_judge(policy, name, len, &j);
	char rule[512];

	if (access == PG_WRITE)
		return 0;
	render_judgement(&j, rule, sizeof(rule));
	return ids_add(ids, stx, access, rule);
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

void pg_ids_seal(struct pg_identity_set *ids, bool *has_deny, bool *has_read)
{
	*has_deny = false;
	*has_read = false;
	if (ids->n)  /* qsort's base must not be NULL, even for none */
		qsort(ids->v, ids->n, sizeof(*ids->v), cmp_identity);
	for (size_t i = 0; i < ids->n; i++) {
		if (ids->v[i].access == PG_DENY)
			*has_deny = true;
		else
			*has_read = true;
	}
}

/* The strictest entry for (DEV, INO), or NULL. */
static const struct pg_identity *ids_find(const struct pg_identity_set *ids, dev_t dev, ino_t ino)
{
	struct pg_identity key = { .dev = dev, .ino = ino, .access = PG_DENY };
	size_t lo = 0, hi = ids->n;

	/* The first entry not below KEY. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (cmp_identity(&ids->v[mid], &key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < ids->n && ids->v[lo].ino == ino && ids->v[lo].dev == dev)
		return &ids->v[lo];
	return NULL;
}

int pg_judge_identity_locked(pg_root *root, const struct pg_object *obj, enum pg_op op,
			     const char *display)
{
	const struct pg_identity_set *ids = root->ids;
	const struct pg_identity *e;

	e = ids ? ids_find(ids, obj->dev, obj->ino) : NULL;
	if (e && e->access < needed_access(op))
		return refuse_link(e->access, e->rule, display);
	/* Allowed by what the set holds; its other names may say otherwise. */
	return obj->nlink <= 1 ? 0 : PG_JUDGE_LOOK_AGAIN;
}
