/* policy-copy.c - whole-policy copies: a deep copy, a copy of the rules
 * only (what a root keeps of its caller's policy), a policy that borrows
 * another's rules, and compiling a policy once after its last bulk add
 * (cheaper than compiling rule by rule, and its arrays cut to size).
 * Rule by rule adds are in policy.c. */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "policy-internal.h"

pg_policy *pg_policy_new_uncompiled(void)
{
	pg_policy *p = calloc(1, sizeof(*p));

	if (p)
		p->uncompiled = true;
	return p;
}

pg_policy *pg_policy_extend(const pg_policy *base)
{
	pg_policy *p;

	if (!base)
		return errno = EINVAL, NULL;
	p = pg_policy_new_uncompiled();
	if (!p)
		return NULL;
	p->broken = base->broken;
	/* One level of borrowing: a base that borrows lends its own lender's
	 * rules, and its own rules by pointer. */
	p->prefix = base->nprefix ? base->prefix : base;
	p->nprefix = base->nprefix ? base->nprefix : base->nrules;
	p->nrules = p->nprefix;
	if (base->nprefix && base->nrules > base->nprefix) {
		size_t own = base->nrules - base->nprefix, j;

		p->rules = malloc(own * sizeof(*p->rules));
		if (!p->rules) {
			free(p);
			return NULL;
		}
		for (j = 0; j < own; j++)
			p->rules[j] = (struct pg_rule *)pg_own_rule(base, j);
		p->cap = own;
		p->nrules = base->nrules;
	}
	return p;
}

int pg_policy_compile(pg_policy *p)
{
	size_t i, own;

	if (!p->uncompiled)
		return 0;
	if (pg_trie_new(p) < 0)
		return errno = ENOMEM, -1;
	for (i = 0; i < p->nrules; i++) {
		if (pg_trie_insert(p, pg_rule_at(p, i)) < 0) {
			pg_trie_free(p);
			return errno = ENOMEM, -1;
		}
	}
	p->uncompiled = false;
	pg_trie_trim(p);
	own = p->nrules - p->nprefix;
	own = own > p->blockcap ? own - p->blockcap : 0;
	if (own && own < p->cap) {
		struct pg_rule **rules = realloc(p->rules, own * sizeof(*rules));

		if (rules) {
			p->rules = rules;
			p->cap = own;
		}
	}
	return 0;
}

pg_policy *pg_policy_dup(const pg_policy *p)
{
	pg_policy *d = pg_policy_dup_rules(p);

	/* Compiled once, after the last rule: no array regrown on the way. */
	if (d && pg_policy_compile(d) < 0) {
		pg_policy_free(d);
		return errno = ENOMEM, NULL;
	}
	return d;
}

pg_policy *pg_policy_dup_rules(const pg_policy *p)
{
	pg_policy *d;
	size_t i;

	if (!p)
		return errno = EINVAL, NULL;
	d = pg_policy_new_uncompiled();
	if (!d)
		return NULL;
	if (p->nrules) {
		d->block = malloc(p->nrules * sizeof(*d->block));
		if (!d->block) {
			free(d);
			return NULL;
		}
		d->blockcap = p->nrules;
	}
	d->broken = p->broken;
	for (i = 0; i < p->nrules; i++) {
		const struct pg_rule *r = pg_rule_at(p, i);

		if (pg_policy_copy_rule(d, r, r->path, r->above) < 0) {
			pg_policy_free(d);
			return NULL;
		}
	}
	return d;
}
