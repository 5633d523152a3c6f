/* policy-judge.c - the judge: walking the compiled tries (policy-trie.h)
 * for a name, carrying the set of nodes the prefix so far reaches (an
 * NFA: '**' nodes stay in the set while they consume components); the
 * pin test and the planner's pruning question ride on the same walk.
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

/* A pattern component against a component: the deny/read trie holds
 * folded patterns and is walked with folded names, where a '?' stands for
 * whatever one character of the name as written folds to. */
static bool match(const char *pat, size_t plen, const char *c, size_t len, bool folded)
{
	return folded ? pg_glob_match_folded(pat, plen, c, len) : pg_glob_match(pat, plen, c, len);
}

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
	dstar = t->nodes[node].extra ? t->extras[t->nodes[node].extra - 1].dstar : 0;
	return dstar ? add_state(t, s, dstar, false) : true;
}

static bool bit_set(uint64_t bits, size_t len)
{
	return bits >> (len % 64) & 1;
}

/* Follow edge E, found for component C: to its child node, or through
 * its bucket of patterns to each that matches C whole. */
static bool follow(const struct pg_trie *t, const struct edge *e, const char *c, size_t len,
		   bool folded,
		   struct states *out)
{
	uint32_t i;

	if (e->kind != EDGE_GSFX && e->kind != EDGE_GPFX)
		return add_state(t, out, e->child, true);
	for (i = e->child; i; i = t->globs[i - 1].next) {
		const struct glob_child *g = &t->globs[i - 1];

		if (match(g->pat, g->len, c, len, folded) && !add_state(t, out, g->child, true))
			return false;
	}
	return true;
}

/* Look C's suffixes (or prefixes) up among NODE's edges of KIND, for each
 * length the node's mask allows, extending one running hash. */
static bool step_affixes(const struct pg_trie *t, uint32_t node, unsigned kind, bool folded,
			 const char *c, size_t len, struct states *out)
{
	const struct affix *a = &t->affixes[node_extra(t, node).affix - 1];
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

			if (e && !follow(t, e, c, len, folded, out))
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
		      bool folded,
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
		if ((n->flags & kind_flag(kind)) && !step_affixes(t, node, kind, folded, c, len, out))
			return false;
	for (i = n->extra ? t->extras[n->extra - 1].globs : 0; i; i = t->globs[i - 1].next) {
		const struct glob_child *g = &t->globs[i - 1];

		if (match(g->pat, g->len, c, len, folded) && !add_state(t, out, g->child, true))
			return false;
	}
	return true;
}

static bool step(const struct pg_trie *t, const struct states *in, const char *c, size_t len,
		 bool folded,
		 struct states *out)
{
	uint32_t i;

	out->n = 0;
	for (i = 0; i < in->n; i++)
		if (!step_node(t, in->node[i], c, len, folded, out))
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
			pg_acc_add(acc, pg_rule_at(p, n->best - 1), depth);
		if (n->extra && p->trie->extras[n->extra - 1].cap)
			pg_acc_add(acc, pg_rule_at(p, p->trie->extras[n->extra - 1].cap - 1), depth);
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
		if (ex->n && !step(t, ex, c, clen, false, nex))
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
			if (!step(t, re, fc, f, true, nre))
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
