/* explain.c - what decides a name, for pathgate explain (declared in
 * shim.h): the name as the policy sees it, the deciding rule and its cap,
 * the rule's collision class and the pinned directories on the way.  The
 * command prints it; the policy is read only here, under the root's lock. */
#include "config.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "path.h"
#include "policy.h"
#include "root.h"
#include "shim.h"

/* Where RAW (normalised into P) lies: in the root (OUT->name relative) or
 * outside it (an absolute host path). */
static void place(const pg_root *root, const struct pg_path *p, struct pg_explanation *out)
{
	const char *body = p->buf[0] == '/' ? p->buf + 1 : p->buf;
	const char *rbody = root->path[0] == '/' ? root->path + 1 : root->path;
	size_t bl = strlen(rbody);

	if (!p->absolute) {
		out->inside = true;
		snprintf(out->name, sizeof(out->name), "%s", p->buf);
	} else if (strncmp(body, rbody, bl) == 0 && (body[bl] == '\0' || body[bl] == '/')) {
		out->inside = true;
		snprintf(out->name, sizeof(out->name), "%s", body[bl] ? body + bl + 1 : "");
	} else {
		out->inside = false;
		snprintf(out->name, sizeof(out->name), "/%s", body);
	}
	if (out->inside)
		snprintf(out->abs, sizeof(out->abs), "%s%s%s", root->path,
			 out->name[0] ? "/" : "", out->name);
	else
		snprintf(out->abs, sizeof(out->abs), "%s", out->name);
}

/* The deciding rule of J, its cap and the rule's parts. */
static void describe(const struct pg_judgement *j, struct pg_explanation *out)
{
	const struct pg_rule *r = j->rule;
	size_t n;

	out->access = j->access;
	if (j->cap)
		pg_rule_render(j->cap, out->cap, sizeof(out->cap));
	if (!r)
		return;
	out->has_rule = true;
	pg_rule_render(r, out->rule, sizeof(out->rule));
	out->rule_access = r->access;
	out->rule_glob = r->glob;
	out->rule_absolute = r->absolute;
	snprintf(out->rule_path, sizeof(out->rule_path), "%s", r->path);
	n = pg_fold(r->path, strlen(r->path), out->rule_folded, sizeof(out->rule_folded));
	if (n == (size_t)-1 || !r->path[0] || strcmp(r->path, "/") == 0)
		out->rule_folded[0] = '\0';
	else
		out->rule_folded[n < sizeof(out->rule_folded) ? n : sizeof(out->rule_folded) - 1] = '\0';
}

/* Every directory on the way to the name (itself included) that the
 * policy pins; pins protect names inside the root only.  The name is
 * normal: its prefixes end at each '/' and at its end. */
static void pins(const pg_root *root, struct pg_explanation *out)
{
	size_t len, n = strlen(out->name);

	if (!out->inside || n == 0)
		return;
	for (len = 1; len <= n; len++) {
		if (len < n && out->name[len] != '/')
			continue;
		if (pg_policy_pinned(root->policy, out->name, len))
			out->pins[out->npins++] = (uint16_t)len;
	}
}

int pg_root_explain(pg_root *root, const char *raw, struct pg_explanation *out)
{
	struct pg_path *p = malloc(sizeof(*p));
	struct pg_judgement j;

	memset(out, 0, sizeof(*out));
	if (!p)
		return -1;
	if (pg_path_normalise(raw, true, p) < 0) {
		free(p);
		return -1;
	}
	place(root, p, out);
	pthread_rwlock_rdlock(&root->lock);
	pg_policy_judge(root->policy, out->name, strlen(out->name), &j);
	describe(&j, out);
	pins(root, out);
	pthread_rwlock_unlock(&root->lock);
	free(p);
	return 0;
}
