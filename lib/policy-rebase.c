/* policy-rebase.c - a policy's copy for a root: absolute rules that name
 * the root or reach beneath it are added again as root-relative rules
 * (the absolute rule stays, for the envelope and the preload).  A rule's
 * pattern is run over the root's components; every pattern position left
 * when the root is used up applies beneath the root. */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "glob.h"
#include "path.h"
#include "policy-internal.h"

static bool dstar(const char *c, size_t len)
{
	return len == 2 && c[0] == '*' && c[1] == '*';
}

#define REBASE_MAX_COMP PG_PATH_MAX_COMPONENTS

struct rebase {
	const char  *pat[REBASE_MAX_COMP];
	size_t       plen[REBASE_MAX_COMP];
	const char  *root[REBASE_MAX_COMP];
	size_t       rlen[REBASE_MAX_COMP];
	bool         at[REBASE_MAX_COMP + 1];
	bool         next[REBASE_MAX_COMP + 1];
	char         path[PG_PATH_MAX + 1];
};

bool pg_rule_component_matches(const struct pg_rule *r, const char *pat, size_t plen,
			       const char *name, size_t nlen)
{
	char fp[PG_FOLD_MAX], fn[PG_FOLD_MAX];
	size_t a, b;

	if (r->access == PG_WRITE)
		return pg_glob_match(pat, plen, name, nlen);
	a = pg_fold(pat, plen, fp, sizeof(fp));
	b = pg_fold(name, nlen, fn, sizeof(fn));
	if (a == (size_t)-1 || b == (size_t)-1)
		return pg_glob_match(pat, plen, name, nlen);
	return pg_glob_match_folded(fp, a, fn, b);
}

/* Positions reachable without consuming: a '**' may match nothing. */
static void rebase_close(struct rebase *rb, bool *set, unsigned npat)
{
	unsigned i;

	for (i = 0; i < npat; i++)
		if (set[i] && dstar(rb->pat[i], rb->plen[i]))
			set[i + 1] = true;
}

/* The relative rules R means beneath a root of NROOT components: run the
 * pattern over the root's components; every pattern position reached when
 * the root is used up leaves its tail to apply beneath the root.  A
 * pattern used up first names an ancestor of the root: it still decides
 * beneath the root, as a rule on the root itself that ranks below every
 * rule at or beneath the root (pg_rule.above: the ancestor's depth + 1),
 * so that "read /" never ties with "write .", and a final one caps the
 * root ("deny! ~/.ssh" with the root at ~/.ssh/keys). */
static int rebase_rule(struct rebase *rb, pg_policy *dst, const struct pg_rule *r,
		       unsigned nroot)
{
	unsigned npat, i, ri, above = 0;

	npat = pg_split(r->path, strlen(r->path), rb->pat, rb->plen, REBASE_MAX_COMP);
	if (npat == (unsigned)-1)
		return 0;
	memset(rb->at, 0, sizeof(bool) * (npat + 1));
	rb->at[0] = true;
	rebase_close(rb, rb->at, npat);
	for (ri = 0; ri < nroot; ri++) {
		bool any = false;

		if (rb->at[npat])
			above = ri + 1;   /* the deepest ancestor it names */
		memset(rb->next, 0, sizeof(bool) * (npat + 1));
		for (i = 0; i < npat; i++) {
			if (!rb->at[i])
				continue;
			if (dstar(rb->pat[i], rb->plen[i]))
				rb->next[i] = any = true;
			else if (pg_rule_component_matches(r, rb->pat[i], rb->plen[i], rb->root[ri], rb->rlen[ri]))
				rb->next[i + 1] = any = true;
		}
		if (!any)
			return above ? pg_policy_copy_rule(dst, r, "", above) : 0;
		rebase_close(rb, rb->next, npat);
		memcpy(rb->at, rb->next, sizeof(bool) * (npat + 1));
	}
	if (above && pg_policy_copy_rule(dst, r, "", above) < 0)
		return -1;
	for (i = 0; i <= npat; i++) {
		size_t len = 0;
		unsigned j;

		if (!rb->at[i] || (i > 0 && rb->at[i - 1] && dstar(rb->pat[i - 1], rb->plen[i - 1])))
			continue; /* "**" "x" already says what "x" says */
		for (j = i; j < npat; j++) {
			if (len)
				rb->path[len++] = '/';
			memcpy(rb->path + len, rb->pat[j], rb->plen[j]);
			len += rb->plen[j];
		}
		rb->path[len] = '\0';
		if (pg_policy_copy_rule(dst, r, rb->path, 0) < 0)
			return -1;
	}
	return 0;
}

int pg_policy_rebase(pg_policy *p, const char *root)
{
	struct rebase *rb;
	unsigned nroot;
	size_t i, n;
	int rc = -1;

	if (!p || !root || root[0] != '/')
		return errno = EINVAL, -1;
	rb = malloc(sizeof(*rb));
	if (!rb)
		return -1;
	nroot = pg_split(root, strlen(root), rb->root, rb->rlen, REBASE_MAX_COMP);
	if (nroot == (unsigned)-1) {
		errno = ENAMETOOLONG;
		goto out;
	}
	/* The rules as they were: the copies appended are relative. */
	n = p->nrules;
	for (i = 0; i < n; i++) {
		const struct pg_rule *r = pg_rule_at(p, i);

		if (r->absolute && rebase_rule(rb, p, r, nroot) < 0)
			goto out;
	}
	rc = 0;
out:
	free(rb);
	return rc;
}

pg_policy *pg_policy_for_root(const pg_policy *p, const char *root)
{
	pg_policy *d;

	if (!p || !root || root[0] != '/')
		return errno = EINVAL, NULL;
	d = pg_policy_dup(p);
	if (d && pg_policy_rebase(d, root) < 0) {
		int err = errno;

		pg_policy_free(d);
		errno = err;
		return NULL;
	}
	return d;
}
