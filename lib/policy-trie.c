/* policy-trie.c - the compiled policy and the judge.
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

/* LIT, SFX, PFX lead to a child node; GSFX, GPFX to a bucket of general
 * patterns sharing a literal suffix or prefix, each still matched whole. */
enum edge_kind { EDGE_LIT = 1, EDGE_SFX, EDGE_PFX, EDGE_GSFX, EDGE_GPFX };

#define NODE_HAS_LIT  0x01u
#define NODE_HAS_SFX  0x02u
#define NODE_HAS_PFX  0x04u
#define NODE_DSTAR    0x08u  /* this node is a '**' component */
#define NODE_BELOW    0x10u  /* a deny or read rule ends strictly beneath */
#define NODE_HAS_GSFX 0x20u
#define NODE_HAS_GPFX 0x40u
#define NODE_ANY_BELOW 0x80u /* some rule, of any access, ends strictly beneath */

/* Which suffix (prefix) lengths a node's affix children have: bit L % 64.
 * A judge tries each length of the component whose bit is set; for names
 * over 63 bytes a set bit can stand for several lengths, costing a lookup
 * that misses, never a wrong answer. */

struct node {
	uint32_t best;    /* 1 + index of the strictest, first rule ending here */
	uint32_t cap;     /* 1 + index of the strictest, first final rule ending here */
	uint32_t dstar;   /* the '**' child, or 0 */
	uint32_t globs;   /* 1 + index of the first unindexed pattern child */
	uint32_t affix;   /* 1 + index of the affix length bitmaps */
	uint32_t flags;
};

struct edge {
	uint32_t    hash;    /* 0: an empty slot */
	uint32_t    parent;
	uint32_t    child;
	uint16_t    len;
	uint8_t     kind;
	const char *key;
};

struct glob_child {
	const char *pat;
	uint32_t    len;
	uint32_t    child;
	uint32_t    next;    /* 1 + index of the next in the list, or 0 */
};

struct affix {
	uint64_t len[EDGE_GPFX + 1];   /* by edge kind */
	/* The byte every key of a kind must end (suffix) or start (prefix)
	 * with, bit B % 64; all bits for an empty key.  A component whose
	 * byte is not set reaches no affix child of that kind, which spares
	 * the '**' state of a rule like "deny **", "*.pem" beneath it, a probe
	 * per length at every component of every name. */
	uint64_t anchor[EDGE_GPFX - EDGE_SFX + 1];
};

/* Roots: [absolute][restrictive] (restrictive: the deny/read trie). */
struct pg_trie {
	struct node       *nodes;
	uint32_t           nnodes, capnodes;
	struct edge       *edges;
	uint32_t           nedges, capedges;   /* capedges: a power of two */
	struct glob_child *globs;
	uint32_t           nglobs, capglobs;
	struct affix      *affixes;
	uint32_t           naffixes, capaffixes;
	uint32_t           root[2][2];
};

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
		ncap += ncap / 2;
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

/* ----------------------------------------------------------------- hashes */

#define HASH_MUL UINT64_C(0x100000001b3)

static uint32_t mix(uint64_t h, uint32_t parent, unsigned kind)
{
	h ^= (uint64_t)parent * UINT64_C(0x9e3779b97f4a7c15) ^ (uint64_t)kind << 59;
	h ^= h >> 33;
	h *= UINT64_C(0xff51afd7ed558ccd);
	h ^= h >> 33;
	/* Never 0, which marks an empty slot; the low bits pick the slot, so
	 * they must stay as mixed as the rest. */
	return (uint32_t)h ? (uint32_t)h : 1u;
}

/* Literal and prefix keys hash left to right, suffix keys right to left,
 * so a judge extends one running hash across every prefix or suffix of a
 * component. */
static uint64_t hash_forward(const char *s, size_t len)
{
	uint64_t h = UINT64_C(0xcbf29ce484222325);
	size_t i;

	for (i = 0; i < len; i++)
		h = (h ^ (unsigned char)s[i]) * HASH_MUL;
	return h;
}

static uint64_t hash_backward(const char *s, size_t len)
{
	uint64_t h = UINT64_C(0xcbf29ce484222325);

	while (len--)
		h = (h ^ (unsigned char)s[len]) * HASH_MUL;
	return h;
}

static const struct edge *edge_find(const struct pg_trie *t, uint32_t hash, uint32_t parent,
				    unsigned kind, const char *key, size_t len)
{
	uint32_t mask = t->capedges - 1, i;

	if (!t->capedges)
		return NULL;
	for (i = hash & mask; t->edges[i].hash; i = (i + 1) & mask) {
		const struct edge *e = &t->edges[i];

		if (e->hash == hash && e->parent == parent && e->kind == kind &&
		    e->len == len && memcmp(e->key, key, len) == 0)
			return e;
	}
	return NULL;
}

static void edge_place(struct edge *edges, uint32_t cap, const struct edge *e)
{
	uint32_t i;

	for (i = e->hash & (cap - 1); edges[i].hash; i = (i + 1) & (cap - 1))
		;
	edges[i] = *e;
}

static int edge_add(struct pg_trie *t, const struct edge *e)
{
	if ((uint64_t)(t->nedges + 1) * 4 > (uint64_t)t->capedges * 3) {
		uint32_t cap = t->capedges ? t->capedges * 2 : 1024, i;
		struct edge *edges;

		if (cap < t->capedges)
			return -1;
		edges = calloc(cap, sizeof(*edges));
		if (!edges)
			return -1;
		for (i = 0; i < t->capedges; i++)
			if (t->edges[i].hash)
				edge_place(edges, cap, &t->edges[i]);
		free(t->edges);
		t->edges = edges;
		t->capedges = cap;
	}
	edge_place(t->edges, t->capedges, e);
	t->nedges++;
	return 0;
}

/* ------------------------------------------------------------ compiling */

static bool is_dstar(const char *c, size_t len)
{
	return len == 2 && c[0] == '*' && c[1] == '*';
}

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

static bool backward(unsigned kind)
{
	return kind == EDGE_SFX || kind == EDGE_GSFX;
}

static uint32_t kind_flag(unsigned kind)
{
	static const uint32_t flags[] = {
		[EDGE_LIT] = NODE_HAS_LIT, [EDGE_SFX] = NODE_HAS_SFX, [EDGE_PFX] = NODE_HAS_PFX,
		[EDGE_GSFX] = NODE_HAS_GSFX, [EDGE_GPFX] = NODE_HAS_GPFX,
	};

	return flags[kind];
}

static void set_len_bit(uint64_t *bits, size_t len)
{
	*bits |= UINT64_C(1) << (len % 64);
}

static int affix_of(struct pg_trie *t, uint32_t node, struct affix **out)
{
	struct node *n = &t->nodes[node];

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
		if (!t->nodes[node].dstar) {
			child = new_node(t, NODE_DSTAR);
			if (!child)
				return 0;
			t->nodes[node].dstar = child;
		}
		return t->nodes[node].dstar;
	}
	kind = classify(c, len, &key, &klen);
	if (kind == 0) {
		child = find_glob(t, t->nodes[node].globs, c, len);
		if (child)
			return child;
		if (!keep && !(c = pg_arena_strndup(&p->arena, c, len)))
			return 0;
		child = new_glob(t, c, len, t->nodes[node].globs, &index);
		if (child)
			t->nodes[node].globs = index;
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

static bool stricter(const pg_policy *p, uint32_t have, const struct pg_rule *r)
{
	const struct pg_rule *h = have ? p->rules[have - 1] : NULL;

	/* Rules arrive in index order: only a strictly stricter one replaces. */
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
	if (r->final && stricter(p, n->cap, r))
		n->cap = (uint32_t)r->index + 1;
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

void pg_trie_free(pg_policy *p)
{
	struct pg_trie *t = p->trie;

	if (!t)
		return;
	free(t->nodes);
	free(t->edges);
	free(t->globs);
	free(t->affixes);
	free(t);
	p->trie = NULL;
}

/* ---------------------------------------------------------------- judging */

/* More states than this at one depth and the name is judged rule by rule.
 * Ordinary policies keep a handful: one literal path, its '**' nodes, and
 * the globs that match the current component. */
#define MAX_STATES 128

struct states {
	uint32_t n;
	uint32_t node[MAX_STATES];
	bool     direct[MAX_STATES];  /* reached by consuming with a non-'**' component */
};

/* Add NODE (and the '**' child it implies); false on overflow. */
static bool add_state(const struct pg_trie *t, struct states *s, uint32_t node, bool direct)
{
	uint32_t i, dstar;

	for (i = 0; i < s->n; i++) {
		if (s->node[i] == node) {
			s->direct[i] |= direct;
			return true;
		}
	}
	if (s->n == MAX_STATES)
		return false;
	s->node[s->n] = node;
	s->direct[s->n++] = direct;
	dstar = t->nodes[node].dstar;
	return dstar ? add_state(t, s, dstar, false) : true;
}

static bool bit_set(uint64_t bits, size_t len)
{
	return bits >> (len % 64) & 1;
}

/* Follow edge E, found for component C: to its child node, or through
 * its bucket of patterns to each that matches C whole. */
static bool follow(const struct pg_trie *t, const struct edge *e, const char *c, size_t len,
		   struct states *out)
{
	uint32_t i;

	if (e->kind != EDGE_GSFX && e->kind != EDGE_GPFX)
		return add_state(t, out, e->child, true);
	for (i = e->child; i; i = t->globs[i - 1].next) {
		const struct glob_child *g = &t->globs[i - 1];

		if (pg_glob_match(g->pat, g->len, c, len) && !add_state(t, out, g->child, true))
			return false;
	}
	return true;
}

/* Look C's suffixes (or prefixes) up among NODE's edges of KIND, for each
 * length the node's mask allows, extending one running hash. */
static bool step_affixes(const struct pg_trie *t, uint32_t node, unsigned kind,
			 const char *c, size_t len, struct states *out)
{
	const struct affix *a = &t->affixes[t->nodes[node].affix - 1];
	uint64_t bits = a->len[kind];
	uint64_t h = UINT64_C(0xcbf29ce484222325);
	bool back = backward(kind);
	size_t k = 0;

	if (len && !(a->anchor[kind - EDGE_SFX] &
		     (UINT64_C(1) << ((unsigned char)(back ? c[len - 1] : c[0]) % 64))))
		return true;
	for (;;) {
		if (bit_set(bits, k)) {
			const char *key = back ? c + len - k : c;
			const struct edge *e = edge_find(t, mix(h, node, kind), node, kind, key, k);

			if (e && !follow(t, e, c, len, out))
				return false;
		}
		if (k == len)
			return true;
		h = (h ^ (unsigned char)(back ? c[len - 1 - k] : c[k])) * HASH_MUL;
		k++;
	}
}

/* The children of NODE that component C (LEN bytes) reaches; false on
 * overflow. */
static bool step_node(const struct pg_trie *t, uint32_t node, const char *c, size_t len,
		      struct states *out)
{
	const struct node *n = &t->nodes[node];
	const struct edge *e;
	unsigned kind;
	uint32_t i;

	if ((n->flags & NODE_DSTAR) && !add_state(t, out, node, false))
		return false;
	if (n->flags & NODE_HAS_LIT) {
		e = edge_find(t, mix(hash_forward(c, len), node, EDGE_LIT), node, EDGE_LIT, c, len);
		if (e && !add_state(t, out, e->child, true))
			return false;
	}
	for (kind = EDGE_SFX; kind <= EDGE_GPFX; kind++)
		if ((n->flags & kind_flag(kind)) && !step_affixes(t, node, kind, c, len, out))
			return false;
	for (i = n->globs; i; i = t->globs[i - 1].next) {
		const struct glob_child *g = &t->globs[i - 1];

		if (pg_glob_match(g->pat, g->len, c, len) && !add_state(t, out, g->child, true))
			return false;
	}
	return true;
}

static bool step(const struct pg_trie *t, const struct states *in, const char *c, size_t len,
		 struct states *out)
{
	uint32_t i;

	out->n = 0;
	for (i = 0; i < in->n; i++)
		if (!step_node(t, in->node[i], c, len, out))
			return false;
	return true;
}

static void collect(const pg_policy *p, const struct states *s, unsigned depth,
		    struct pg_verdict_acc *acc)
{
	uint32_t i;

	for (i = 0; i < s->n; i++) {
		const struct node *n = &p->trie->nodes[s->node[i]];

		if (n->best)
			pg_acc_add(acc, p->rules[n->best - 1], depth);
		if (n->cap)
			pg_acc_add(acc, p->rules[n->cap - 1], depth);
	}
}

/* The walk both the judge and the pin test make. */
struct walk {
	struct pg_verdict_acc acc;
	struct states         ex[2];   /* the write trie, this step and the next */
	struct states         re[2];   /* the deny/read trie */
	unsigned              cur;
};

enum walk_end {
	WALK_DONE,
	WALK_OVERFLOW,  /* too many states: judge rule by rule */
	WALK_BAD_NAME,  /* a component over PG_NAME_MAX: no such name can exist */
};

/* ASCII without capitals is its own collision class. */
static bool folds_to_itself(const char *c, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if ((unsigned char)c[i] >= 0x80 || (c[i] >= 'A' && c[i] <= 'Z'))
			return false;
	return true;
}

static enum walk_end walk(const pg_policy *p, const char *name, size_t len, struct walk *w)
{
	const struct pg_trie *t = p->trie;
	bool absolute = len > 0 && name[0] == '/';
	const char *s = name, *end = name + len;
	char folded[PG_FOLD_MAX];
	unsigned depth = 0;

	pg_acc_init(&w->acc);
	w->cur = 0;
	w->ex[0].n = w->re[0].n = 0;
	if (!add_state(t, &w->ex[0], t->root[absolute][0], false) ||
	    !add_state(t, &w->re[0], t->root[absolute][1], false))
		return WALK_OVERFLOW;
	collect(p, &w->ex[0], 0, &w->acc);
	collect(p, &w->re[0], 0, &w->acc);
	while (s < end) {
		const struct states *ex = &w->ex[w->cur], *re = &w->re[w->cur];
		struct states *nex = &w->ex[!w->cur], *nre = &w->re[!w->cur];
		const char *c;
		size_t clen;

		while (s < end && *s == '/')
			s++;
		if (s == end)
			break;
		c = s;
		while (s < end && *s != '/')
			s++;
		clen = (size_t)(s - c);
		if (clen > PG_NAME_MAX)
			return WALK_BAD_NAME;
		depth++;
		nex->n = nre->n = 0;
		if (ex->n && !step(t, ex, c, clen, nex))
			return WALK_OVERFLOW;
		if (re->n) {
			const char *fc = c;
			size_t f = clen;

			if (!folds_to_itself(c, clen)) {
				f = pg_fold(c, clen, folded, sizeof(folded));
				if (f == (size_t)-1)
					return WALK_BAD_NAME;
				fc = folded;
			}
			if (!step(t, re, fc, f, nre))
				return WALK_OVERFLOW;
		}
		w->cur = !w->cur;
		collect(p, nex, depth, &w->acc);
		collect(p, nre, depth, &w->acc);
	}
	return WALK_DONE;
}

static void deny_all(struct pg_judgement *out)
{
	out->access = PG_DENY;
	out->rule = NULL;
	out->depth = 0;
	out->cap = NULL;
}

enum pg_access pg_policy_judge(const pg_policy *p, const char *path, size_t len,
			       struct pg_judgement *out)
{
	struct walk w;

	if (!p || p->broken || !path || !p->trie) {
		deny_all(out);
		return PG_DENY;
	}
	switch (walk(p, path, len, &w)) {
	case WALK_DONE:
		return pg_acc_finish(&w.acc, out);
	case WALK_OVERFLOW:
		return pg_judge_naive(p, path, len, out);
	case WALK_BAD_NAME:
		break;
	}
	deny_all(out);
	return PG_DENY;
}

/* Is a deny or read rule strictly beneath NAME, NAME's last component
 * consumed by a pattern component other than '**'? */
static bool restrictive_below(const pg_policy *p, const char *name, size_t len)
{
	struct walk w;
	const struct states *re;
	uint32_t i;

	switch (walk(p, name, len, &w)) {
	case WALK_DONE:
		break;
	case WALK_OVERFLOW:
		return pg_below_naive(p, name, len);
	case WALK_BAD_NAME:
		return false;
	}
	re = &w.re[w.cur];
	for (i = 0; i < re->n; i++)
		if (re->direct[i] && (p->trie->nodes[re->node[i]].flags & NODE_BELOW))
			return true;
	return false;
}

static bool decided_write(const pg_policy *p, const char *path, size_t len)
{
	struct pg_judgement j;

	return pg_policy_judge(p, path, len, &j) == PG_WRITE;
}

/* Length of NAME's parent: "a/b" -> "a", "a" -> "", "/a" -> "/". */
static size_t parent_len(const char *name, size_t len)
{
	while (len > 0 && name[len - 1] == '/')
		len--;
	while (len > 0 && name[len - 1] != '/')
		len--;
	while (len > 1 && name[len - 1] == '/')
		len--;
	if (len == 1 && name[0] == '/')
		return 1;
	return len > 0 && name[len - 1] == '/' ? len - 1 : len;
}

static bool is_top(const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (name[i] != '/')
			return false;
	return true;
}

bool pg_policy_pinned(const pg_policy *p, const char *path, size_t len)
{
	if (!p || p->broken || !path || !p->trie || is_top(path, len))
		return false;
	return restrictive_below(p, path, len) && decided_write(p, path, len) &&
	       decided_write(p, path, parent_len(path, len));
}

/* Could a rule cover a name strictly beneath NAME at that name's own
 * depth?  Then the decision may change beneath NAME and a planner must
 * look there; otherwise everything beneath is decided as NAME is. */
static bool states_reach_below(const struct pg_trie *t, const struct states *s)
{
	uint32_t i;

	for (i = 0; i < s->n; i++)
		if (t->nodes[s->node[i]].flags & (NODE_ANY_BELOW | NODE_DSTAR))
			return true;
	return false;
}

bool pg_policy_decides_beneath(const pg_policy *p, const char *path, size_t len)
{
	struct walk w;

	if (!p || p->broken || !path || !p->trie)
		return false;   /* everything is denied alike */
	switch (walk(p, path, len, &w)) {
	case WALK_DONE:
		return states_reach_below(p->trie, &w.ex[w.cur]) ||
		       states_reach_below(p->trie, &w.re[w.cur]);
	case WALK_OVERFLOW:
		return true;
	case WALK_BAD_NAME:
		break;
	}
	return false;
}
