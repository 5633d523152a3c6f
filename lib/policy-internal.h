/* policy-internal.h - what the policy modules share (policy.c: rules as
 * written; policy-trie.c: the compiled form and the judge).  Nothing
 * outside lib/policy*.c includes this. */
#ifndef PG_POLICY_INTERNAL_H
#define PG_POLICY_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "policy.h"

/* Bump allocation for everything a policy owns that lives as long as it:
 * rules, their text, trie keys.  Freed all at once. */
struct pg_arena {
	struct pg_arena_block *head;
};

void *pg_arena_alloc(struct pg_arena *a, size_t size);
/* Aligned to ALIGN (a power of two), for records smaller than
 * max_align_t needs: a policy holds a rule record per rule. */
void *pg_arena_alloc_aligned(struct pg_arena *a, size_t size, size_t align);
/* Unaligned, for text. */
void *pg_arena_alloc_bytes(struct pg_arena *a, size_t size);
char *pg_arena_strndup(struct pg_arena *a, const char *s, size_t len);
void  pg_arena_free(struct pg_arena *a);

struct pg_trie;

struct pg_policy {
	/* Rules [0, nprefix) are borrowed from PREFIX (pg_policy_extend),
	 * which owns them and must outlive this policy unchanged; rules
	 * [nprefix, nrules) are RULES[i - nprefix]. */
	const struct pg_policy *prefix;
	size_t           nprefix;
	/* Own rule J is BLOCK[J] for J < BLOCKCAP (a copy knows its size and
	 * keeps its records in one array, no pointer each), else
	 * RULES[J - BLOCKCAP]. */
	struct pg_rule  *block;
	size_t           blockcap;
	struct pg_rule **rules;
	size_t           nrules;
	size_t           cap;
	struct pg_arena  arena;
	const char      *last_file;   /* interned file name of the last add */
	struct pg_trie  *trie;        /* the compiled form; NULL: broken or uncompiled */
	bool             uncompiled;  /* rules only, until pg_policy_compile */
	bool             broken;      /* a failed add could not be undone: deny all */
};

static inline const struct pg_rule *pg_own_rule(const struct pg_policy *p, size_t j)
{
	return j < p->blockcap ? &p->block[j] : p->rules[j - p->blockcap];
}

/* Rule I (< p->nrules).  A lender borrows from no one (pg_policy_extend). */
static inline const struct pg_rule *pg_rule_at(const struct pg_policy *p, size_t i)
{
	return i < p->nprefix ? pg_own_rule(p->prefix, i) : pg_own_rule(p, i - p->nprefix);
}

/* The compiled form: built rule by rule as rules are added. */
int  pg_trie_new(struct pg_policy *p);
int  pg_trie_insert(struct pg_policy *p, const struct pg_rule *r);
void pg_trie_free(struct pg_policy *p);

/* The trie's arrays cut to what they hold (after a bulk compile). */
void pg_trie_trim(struct pg_policy *p);

/* Split the normalised rule or name PATH into components; returns the
 * count (at most MAX; more is an error: (unsigned)-1). */
unsigned pg_split(const char *path, size_t len, const char **comp, size_t *clen,
		  unsigned max);

/* Add rule R to DST with PATH (already in normal form) in place of its
 * own path, and ABOVE as its pg_rule.above (policy.c; the rebasing copy
 * uses it).  A copy keeps the path R was written with for messages. */
int pg_policy_copy_rule(pg_policy *dst, const struct pg_rule *r, const char *path,
			unsigned above);

#endif
