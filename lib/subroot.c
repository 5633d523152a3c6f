/* subroot.c - owns pg_root_open_at: a directory of a root opened as a root
 * of its own, judging every object as its parent does.
 *
 * The sub-root gets the parent's policy rebased onto the directory S:
 *  - S itself is decided as the parent decides it, which becomes the
 *    sub-root's rule for "." (final when a final rule covers S, so a cap
 *    above S still caps everything beneath it);
 *  - every relative rule is run over S's components (policy-rebase.c's
 *    pg_policy_for_root, with the rules written as "/rule" and S as "/S"):
 *    what a pattern has left when S is used up applies beneath the
 *    sub-root at the same relative depth, so the deepest rule still
 *    decides, and deny and read rules match S by collision class as the
 *    judge does;
 *  - absolute rules stay host rules, rebased by pg_root_open as for any
 *    root.
 * The directory is handed over by descriptor (/proc/self/fd/N), never by
 * walking its host path again. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "glob.h"
#include "link-map.h"
#include "ops.h"
#include "path.h"
#include "policy.h"
#include "refusal.h"
#include "resolve.h"
#include "root.h"

/* ------------------------------------------ does a final rule cover S? */

struct cover {
	const char *pat[PG_PATH_MAX_COMPONENTS];
	size_t      plen[PG_PATH_MAX_COMPONENTS];
	bool        at[PG_PATH_MAX_COMPONENTS + 1];
	bool        next[PG_PATH_MAX_COMPONENTS + 1];
};

static bool dstar(const char *c, size_t len)
{
	return len == 2 && c[0] == '*' && c[1] == '*';
}

static void close_dstar(struct cover *c, bool *set, unsigned npat)
{
	for (unsigned i = 0; i < npat; i++)
		if (set[i] && dstar(c->pat[i], c->plen[i]))
			set[i + 1] = true;
}

/* True when relative rule R matches S or one of its ancestors: it covers
 * S.  Runs R's pattern over S's components. */
static bool rule_covers(struct cover *c, const struct pg_rule *r, const struct pg_path *s)
{
	const char *cur = r->path, *comp;
	unsigned npat = 0, i, k;
	size_t len;

	while (npat < PG_PATH_MAX_COMPONENTS && pg_path_next(&cur, &comp, &len)) {
		c->pat[npat] = comp;
		c->plen[npat++] = len;
	}
	memset(c->at, 0, npat + 1);
	c->at[0] = true;
	close_dstar(c, c->at, npat);
	for (k = 0;; k++) {
		if (c->at[npat])
			return true;
		if (k == s->ncomp)
			return false;
		memset(c->next, 0, npat + 1);
		for (i = 0; i < npat; i++) {
			if (!c->at[i])
				continue;
			if (dstar(c->pat[i], c->plen[i]))
				c->next[i] = true;
			else if (pg_rule_component_matches(r, c->pat[i], c->plen[i], s->buf + s->off[k],
					      pg_path_comp_len(s, k)))
				c->next[i + 1] = true;
		}
		close_dstar(c, c->next, npat);
		memcpy(c->at, c->next, npat + 1);
	}
}

static bool final_covers(const pg_policy *p, const struct pg_path *s)
{
	struct cover *c = malloc(sizeof(*c));
	bool found = false;

	if (!c)
		return true; /* the stricter answer */
	for (size_t i = 0; !found && i < pg_policy_rule_count(p); i++) {
		const struct pg_rule *r = pg_policy_rule(p, i);

		found = r->final && !r->absolute && rule_covers(c, r, s);
	}
	free(c);
	return found;
}

/* ------------------------------------------------------------- rebasing */

static int copy_rule(pg_policy *dst, const struct pg_rule *r, const char *path)
{
	return pg_policy_add_rule(dst, r->access, r->final, path[0] ? path : ".", r->file,
				  r->line, r->derived);
}

/* The relative rules of P, each written "/rule", rebased onto "/S": their
 * tails beneath S, added to OUT. */
static int add_tails(pg_policy *out, const pg_policy *p, const struct pg_path *s)
{
	pg_policy *tmp = pg_policy_new(), *moved = NULL;
	char *buf = malloc(PG_PATH_MAX + 2);
	int rc = -1;

	if (!tmp || !buf)
		goto out;
	for (size_t i = 0; i < pg_policy_rule_count(p); i++) {
		const struct pg_rule *r = pg_policy_rule(p, i);

		if (r->absolute)
			continue;
		snprintf(buf, PG_PATH_MAX + 2, "/%s", r->path);
		if (pg_policy_add_rule(tmp, r->access, r->final, buf, r->file, r->line,
				       r->derived) < 0)
			goto out;
	}
	snprintf(buf, PG_PATH_MAX + 2, "/%s", s->buf);
	moved = pg_policy_for_root(tmp, buf);
	if (!moved)
		goto out;
	rc = 0;
	for (size_t i = 0; rc == 0 && i < pg_policy_rule_count(moved); i++) {
		const struct pg_rule *r = pg_policy_rule(moved, i);

		if (!r->absolute)
			rc = copy_rule(out, r, r->path);
	}
out:
	pg_policy_free(moved);
	pg_policy_free(tmp);
	free(buf);
	return rc;
}

/* ROOT's policy (lock held) rebased onto its directory S. */
static pg_policy *rebased(pg_root *root, const struct pg_path *s)
{
	const pg_policy *p = root->policy;
	pg_policy *out = pg_policy_new();
	struct pg_judgement j;
	bool final;

	if (!out)
		return NULL;
	pg_policy_judge(p, s->buf, s->len, &j);
	final = j.access != PG_WRITE && final_covers(p, s);
	if (pg_policy_add_rule(out, j.access, final, ".", j.rule ? j.rule->file : NULL,
			       j.rule ? j.rule->line : 0, false) < 0)
		goto fail;
	for (size_t i = 0; i < pg_policy_rule_count(p); i++) {
		const struct pg_rule *r = pg_policy_rule(p, i);

		if (r->absolute && copy_rule(out, r, r->path) < 0)
			goto fail;
	}
	if (add_tails(out, p, s) < 0)
		goto fail;
	return out;
fail:
	pg_policy_free(out);
	return NULL;
}

/* ----------------------------------------------------------------- open */

/* Resolve PATH as a directory ROOT may read; its O_PATH fd (owned by the
 * caller) and, in *POLICY, ROOT's policy rebased onto it. */
static int open_dir_locked(pg_root *root, const char *path, const struct pg_path *lex,
			   pg_policy **policy)
{
	struct pg_path *s = malloc(sizeof(*s));
	struct pg_res res;
	int fd = -1;

	if (!s)
		return -1;
	if (pg_resolve_locked(root, path, lex, PG_OP_READ, PG_RES_FOLLOW | PG_RES_EXIST,
			      &res) < 0)
		goto out;
	if (!S_ISDIR(res.stx.stx_mode))
		errno = ENOTDIR;
	else if (pg_path_normalise(res.real_len ? res.real : ".", false, s) == 0)
		fd = pg_res_reopen(root, &res, O_PATH | O_DIRECTORY | O_CLOEXEC, 0);
	pg_res_release(&res);
	if (fd >= 0 && !(*policy = rebased(root, s))) {
		int err = errno ? errno : ENOMEM;

		close(fd);
		fd = -1;
		errno = err;
	}
out:
	free(s);
	return fd;
}

pg_root *pg_root_open_at(pg_root *root, const char *path, unsigned flags)
{
	pg_policy *policy = NULL;
	struct pg_path lex;
	pg_root *sub = NULL;
	char proc[64];
	int fd, err;

	pg_refusal_clear();
	if (root && (flags & PG_ROOT_XDEV) && !(root->flags & PG_ROOT_XDEV)) {
		errno = EINVAL;
		return NULL;
	}
	if (pg_ops_prepare(root, path, &lex) < 0)
		return NULL;
	flags |= root->flags & PG_ROOT_NO_OPENAT2;
	pg_ops_lock(root);
	fd = open_dir_locked(root, path, &lex, &policy);
	pg_ops_unlock(root);
	if (fd < 0)
		return NULL;
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	sub = pg_root_open(proc, policy, flags);
	err = errno;
	if (sub && pg_link_map_adopt_top(sub, root) < 0) {
		err = errno;
		pg_root_close(sub);
		sub = NULL;
	}
	if (sub)
		pg_root_set_write_limit(sub, pg_root_write_limit(root));
	close(fd);
	pg_policy_free(policy);
	errno = err;
	return sub;
}
