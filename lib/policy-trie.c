/* policy-trie.c - compiling the policy (the judge that walks it is in
 * policy-judge.c; the layout both share in policy-trie.h).
 *
 * Rules are compiled, as they are added, into tries of pattern components:
 * one for write rules (matched as stored) and one for deny and read rules
 * (matched by collision class, keys folded), each with a relative and an
 * absolute root.  A judge walks the name's components once, carrying the
 * set of trie nodes the prefix so far reaches (an NFA: '**' nodes stay in
 * the set while they consume components).  Each step costs a hash lookup
 * per kind of child, not a look at each rule:
 *   literal   "name"    by the whole component;
 *   suffix    "*.pem"   by each suffix of the component whose length some
 *                       suffix child may have (a mask of lengths per node);
 *   prefix    "tmp*"    likewise by prefixes;
 *   '**'                one child per node;
 *   other patterns      "z?.c", "a*b*c": by the longer of their literal
 *                       prefix and suffix, to a bucket of the patterns
 *                       sharing it, each matched whole;
 *   no literal end      "*a*", "?": a list per node, each tried.
 * Edges of every node live in one open-addressing table keyed by (parent,
 * kind, text), so a node costs a few words whatever its fan-out.
 *
 * Judging allocates nothing: the state set is a fixed array on the stack.
 * A name whose matches outgrow it is judged rule by rule (policy-naive.c).
 * A name with a component over PG_NAME_MAX cannot exist and is denied
 * outright: folding it could fail, and a deny must not then miss it.
 * The tries are only read while judging, so many threads may judge at
 * once; adding rules must not race with judging (policy.h). */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "glob.h"
#include "path.h"
#include "policy-naive.h"
#include "policy-trie.h"

/* ----------------------------------------------------------------- growth */

static int grow(void **arr, uint32_t *cap, uint32_t need, size_t size)
{
	uint32_t ncap;
	void *n;

	if (need <= *cap)
		return 0;
	/* Grow by half: a big policy's arrays are most of its heap. */
	ncap = *cap ? *cap : 16;
	while (ncap < need) {
		if (ncap > UINT32_MAX / 3 * 2)
			return -1;
		ncap = ncap < 16 ? 16 : ncap + ncap / 2;  /* a trimmed array may hold 1 */
	}
	n = realloc(*arr, (size_t)ncap * size);
	if (!n)
		return -1;
	*arr = n;
	*cap = ncap;
	return 0;
}

static uint32_t new_node(struct pg_trie *t, uint32_t flags)
{
	struct node *n;

	if (grow((void **)&t->nodes, &t->capnodes, t->nnodes + 1, sizeof(*t->nodes)) < 0)
		return 0;
	n = &t->nodes[t->nnodes];
	memset(n, 0, sizeof(*n));
	n->flags = flags;
	return t->nnodes++;
}

static void edge_place(struct edge *edges, uint32_t cap, const struct edge *e)
{
	uint32_t i;

	for (i = edge_slot(e->hash, cap); edges[i].hash; i = edge_next(i, cap))
		;
	edges[i] = *e;
}

/* The edge table rebuilt with CAP slots (more than it holds). */
static int edge_rehash(struct pg_trie *t, uint32_t cap)
{
	struct edge *edges = calloc(cap, sizeof(*edges));
	uint32_t i;

	if (!edges)
		return -1;
	for (i = 0; i < t->capedges; i++)
		if (t->edges[i].hash)
			edge_place(edges, cap, &t->edges[i]);
	free(t->edges);
	t->edges = edges;
	t->capedges = cap;
	return 0;
}

static int edge_add(struct pg_trie *t, const struct edge *e)
{
	if ((uint64_t)(t->nedges + 1) * 4 > (uint64_t)t->capedges * 3) {
		uint32_t cap = t->capedges ? t->capedges * 2 : 1024;

		if (cap < t->capedges || edge_rehash(t, cap) < 0)
			return -1;
	}
	edge_place(t->edges, t->capedges, e);
	t->nedges++;
	return 0;
}

/* ------------------------------------------------------------ compiling */


/* How a pattern component is indexed; *KEY, *KLEN: the text indexed. */
static unsigned classify(const char *c, size_t len, const char **key, size_t *klen)
{
	size_t wild = 0, i;

	for (i = 0; i < len; i++)
		if (c[i] == '*' || c[i] == '?')
			wild++;
	*key = c;
	*klen = len;
	if (wild == 0)
		return EDGE_LIT;
	if (wild == 1 && c[0] == '*') {
		*key = c + 1;
		*klen = len - 1;
		return EDGE_SFX;
	}
	if (wild == 1 && c[len - 1] == '*') {
		*klen = len - 1;
		return EDGE_PFX;
	}
	/* Any other pattern: by the longer of its literal prefix and suffix,
	 * which lets a judge reach it by a lookup; with neither ("*a*", "?"),
	 * on the node's own short list. */
	{
		size_t lp = 0, ls = 0;

		while (lp < len && c[lp] != '*' && c[lp] != '?')
			lp++;
		while (ls < len && c[len - 1 - ls] != '*' && c[len - 1 - ls] != '?')
			ls++;
		if (lp == 0 && ls == 0)
			return 0;
		if (lp >= ls) {
			*klen = lp;
			return EDGE_GPFX;
		}
		*key = c + len - ls;
		*klen = ls;
		return EDGE_GSFX;
	}
}



static void set_len_bit(uint64_t *bits, size_t len)
{
	*bits |= UINT64_C(1) << (len % 64);
}

/* NODE's extra record, made if absent; NULL when out of memory.  Valid
 * until the next record is made. */
static struct extra *extra_of(struct pg_trie *t, uint32_t node)
{
	struct node *n = &t->nodes[node];

	if (!n->extra) {
		if (grow((void **)&t->extras, &t->capextras, t->nextras + 1,
			 sizeof(*t->extras)) < 0)
			return NULL;
		memset(&t->extras[t->nextras], 0, sizeof(*t->extras));
		n->extra = ++t->nextras;
	}
	return &t->extras[n->extra - 1];
}

static int affix_of(struct pg_trie *t, uint32_t node, struct affix **out)
{
	struct extra *n = extra_of(t, node);

	if (!n)
		return -1;
	if (!n->affix) {
		if (grow((void **)&t->affixes, &t->capaffixes, t->naffixes + 1,
			 sizeof(*t->affixes)) < 0)
			return -1;
		memset(&t->affixes[t->naffixes], 0, sizeof(*t->affixes));
		n->affix = ++t->naffixes;
	}
	*out = &t->affixes[n->affix - 1];
	return 0;
}

/* A new general pattern child of NODE, pushed on the list at *HEAD (an
 * index + 1 into t->globs); 0 when out of memory. */
static uint32_t new_glob(struct pg_trie *t, const char *pat, size_t len, uint32_t next,
			 uint32_t *index)
{
	uint32_t child;

	if (grow((void **)&t->globs, &t->capglobs, t->nglobs + 1, sizeof(*t->globs)) < 0)
		return 0;
	child = new_node(t, 0);
	if (!child)
		return 0;
	t->globs[t->nglobs] = (struct glob_child){ pat, (uint32_t)len, child, next };
	*index = ++t->nglobs;
	return child;
}

static uint32_t find_glob(const struct pg_trie *t, uint32_t i, const char *c, size_t len)
{
	for (; i; i = t->globs[i - 1].next)
		if (t->globs[i - 1].len == len && memcmp(t->globs[i - 1].pat, c, len) == 0)
			return t->globs[i - 1].child;
	return 0;
}

/* The child of NODE for pattern component C (LEN bytes, already folded
 * for the restrictive trie), made if absent; 0 when out of memory.  KEEP:
 * C lives as long as the policy. */
static uint32_t child_for(pg_policy *p, uint32_t node, const char *c, size_t len, bool keep)
{
	struct pg_trie *t = p->trie;
	const struct edge *found;
	struct edge e;
	const char *key;
	size_t klen;
	unsigned kind;
	uint32_t child, index;
	struct affix *a;

	if (is_dstar(c, len)) {
		if (!node_extra(t, node).dstar) {
			child = new_node(t, NODE_DSTAR);
			if (!child || !extra_of(t, node))
				return 0;
			extra_of(t, node)->dstar = child;
		}
		return node_extra(t, node).dstar;
	}
	kind = classify(c, len, &key, &klen);
	if (kind == 0) {
		child = find_glob(t, node_extra(t, node).globs, c, len);
		if (child)
			return child;
		if (!keep && !(c = pg_arena_strndup(&p->arena, c, len)))
			return 0;
		if (!extra_of(t, node))
			return 0;
		child = new_glob(t, c, len, node_extra(t, node).globs, &index);
		if (child)
			extra_of(t, node)->globs = index;
		return child;
	}
	e.hash = mix(backward(kind) ? hash_backward(key, klen) : hash_forward(key, klen),
		     node, kind);
	found = edge_find(t, e.hash, node, kind, key, klen);
	if (found && (kind == EDGE_GSFX || kind == EDGE_GPFX)) {
		uint32_t head = found->child;

		/* Into the bucket after its head, so the edge stays as it is. */
		child = find_glob(t, head, c, len);
		if (child)
			return child;
		if (!keep && !(c = pg_arena_strndup(&p->arena, c, len)))
			return 0;
		child = new_glob(t, c, len, t->globs[head - 1].next, &index);
		if (child)
			t->globs[head - 1].next = index;
		return child;
	}
	if (found)
		return found->child;
	if (!keep) {
		size_t off = (size_t)(key - c);

		if (!(c = pg_arena_strndup(&p->arena, c, len)))
			return 0;
		key = c + off;
	}
	if (kind != EDGE_LIT) {
		if (affix_of(t, node, &a) < 0)
			return 0;
		set_len_bit(&a->len[kind], klen);
		a->anchor[kind - EDGE_SFX] |= klen == 0 ? ~UINT64_C(0)
			: UINT64_C(1) << ((unsigned char)(backward(kind) ? key[klen - 1] : key[0]) % 64);
	}
	if (kind == EDGE_GSFX || kind == EDGE_GPFX) {
		child = new_glob(t, c, len, 0, &index);
		e.child = index;
	} else {
		child = new_node(t, 0);
		e.child = child;
	}
	if (!child)
		return 0;
	e.parent = node;
	e.len = (uint16_t)klen;
	e.kind = (uint8_t)kind;
	e.key = key;
	if (edge_add(t, &e) < 0)
		return 0;
	t->nodes[node].flags |= kind_flag(kind);
	return child;
}

/* A rule copied from an ancestor of the root ranks below every other
 * rule ending at the same node (pg_rule.above), a deeper ancestor above a
 * shallower one. */
static unsigned long node_rank(const struct pg_rule *r)
{
	return r->above ? (unsigned long)r->above - 1 : ~0ul;
}

static bool stricter(const pg_policy *p, uint32_t have, const struct pg_rule *r)
{
	const struct pg_rule *h = have ? pg_rule_at(p, have - 1) : NULL;

	if (!h || node_rank(r) != node_rank(h))
		return !h || node_rank(r) > node_rank(h);
	/* Rules arrive in index order: only a strictly stricter one replaces. */
	return r->access < h->access;
}

static bool stricter_final(const pg_policy *p, uint32_t have, const struct pg_rule *r)
{
	const struct pg_rule *h = have ? pg_rule_at(p, have - 1) : NULL;

	return !h || r->access < h->access;
}

int pg_trie_insert(pg_policy *p, const struct pg_rule *r)
{
	struct pg_trie *t = p->trie;
	bool restrictive = r->access != PG_WRITE;
	uint32_t node = t->root[r->absolute][restrictive];
	const char *cursor = r->path, *c;
	char folded[PG_FOLD_MAX];
	size_t len;
	struct node *n;

	while (pg_path_next(&cursor, &c, &len)) {
		bool keep = true;

		if (restrictive) {
			size_t f = pg_fold(c, len, folded, sizeof(folded));

			if (f == (size_t)-1)
				return errno = ENAMETOOLONG, -1;
			if (f != len || memcmp(folded, c, len) != 0) {
				c = folded;
				len = f;
				keep = false;
			}
		}
		if (restrictive)
			t->nodes[node].flags |= NODE_BELOW;
		t->nodes[node].flags |= NODE_ANY_BELOW;
		node = child_for(p, node, c, len, keep);
		if (!node)
			return errno = ENOMEM, -1;
	}
	n = &t->nodes[node];
	if (stricter(p, n->best, r))
		n->best = (uint32_t)r->index + 1;
	if (r->final && stricter_final(p, node_extra(t, node).cap, r)) {
		struct extra *x = extra_of(t, node);

		if (!x)
			return errno = ENOMEM, -1;
		x->cap = (uint32_t)r->index + 1;
	}
	return 0;
}

int pg_trie_new(pg_policy *p)
{
	unsigned a, k;

	p->trie = calloc(1, sizeof(*p->trie));
	if (!p->trie)
		return -1;
	/* Node 0 is "none". */
	if (new_node(p->trie, 0) != 0)
		goto fail;
	for (a = 0; a < 2; a++)
		for (k = 0; k < 2; k++)
			if (!(p->trie->root[a][k] = new_node(p->trie, 0)))
				goto fail;
	return 0;
fail:
	pg_trie_free(p);
	return -1;
}

#define EDGE_TRIM_MIN 4096u

/* Shrink *ARR of *CAP records of SIZE bytes to N; a failed shrink keeps
 * the larger array, which is no harm. */
static void trim(void **arr, uint32_t *cap, uint32_t n, size_t size)
{
	void *t;

	if (n == 0 || n >= *cap)
		return;
	t = realloc(*arr, (size_t)n * size);
	if (t) {
		*arr = t;
		*cap = n;
	}
}

void pg_trie_trim(pg_policy *p)
{
	struct pg_trie *t = p->trie;

	if (!t)
		return;
	trim((void **)&t->nodes, &t->capnodes, t->nnodes, sizeof(*t->nodes));
	trim((void **)&t->globs, &t->capglobs, t->nglobs, sizeof(*t->globs));
	trim((void **)&t->affixes, &t->capaffixes, t->naffixes, sizeof(*t->affixes));
	trim((void **)&t->extras, &t->capextras, t->nextras, sizeof(*t->extras));
	/* Edges at a load of 2/3: at 3/4, the most edge_add lets a table
	 * reach, a judgement over 100 000 rules took a fifth longer (longer
	 * probes for the names a table lacks); a failed rehash keeps the
	 * larger table.
	 * A small table stays as it is: a few KiB are not worth longer
	 * probes. */
	if (t->capedges >= EDGE_TRIM_MIN && (uint64_t)t->nedges * 3 / 2 + 1 < t->capedges)
		edge_rehash(t, (uint32_t)((uint64_t)t->nedges * 3 / 2 + 1));
}

void pg_trie_free(pg_policy *p)
{
	struct pg_trie *t = p->trie;

	if (!t)
		return;
	free(t->nodes);
	free(t->edges);
	free(t->globs);
	free(t->affixes);
	free(t->extras);
	free(t);
	p->trie = NULL;
}
