/* policy-naive.c - the judge rule by rule: each rule's pattern run over
 * the name as a small automaton.  The compiled judge (policy-trie.c) falls
 * back to it for a name whose matches outgrow its fixed state array, so a
 * pathological policy is judged slowly, never wrongly.  It allocates
 * nothing and keeps its state on the stack (about 6 KiB). */
#include "config.h"

#include <stdint.h>
#include <string.h>

#include "glob.h"
#include "policy-naive.h"

/* A set of positions in a rule's text: the byte offset where a component
 * starts, or END (the pattern used up). */
#define POS_WORDS ((PG_PATH_MAX + 4 + 63) / 64)

struct posset {
	uint64_t w[POS_WORDS];
};

static void pos_add(struct posset *s, size_t pos)
{
	s->w[pos / 64] |= UINT64_C(1) << (pos % 64);
}

static bool pos_has(const struct posset *s, size_t pos)
{
	return s->w[pos / 64] >> (pos % 64) & 1;
}

/* The pattern of rule R: its text, and where its components start. */
struct pattern {
	const char *s;
	size_t      len;
	size_t      first;  /* offset of the first component */
	size_t      end;    /* the position past the last component */
};

static void pattern_of(const struct pg_rule *r, struct pattern *p)
{
	p->s = r->path;
	p->len = strlen(r->path);
	p->first = r->absolute ? 1 : 0;
	p->end = p->len + 1;
	if (p->first >= p->len)
		p->first = p->end;
}

static size_t comp_end(const struct pattern *p, size_t pos)
{
	const char *slash = memchr(p->s + pos, '/', p->len - pos);

	return slash ? (size_t)(slash - p->s) : p->len;
}

static bool is_dstar(const char *c, size_t len)
{
	return len == 2 && c[0] == '*' && c[1] == '*';
}

/* Positions reachable without consuming: '**' may match nothing. */
static void close_over(const struct pattern *p, struct posset *s)
{
	size_t pos = p->first;

	while (pos < p->end) {
		size_t e = comp_end(p, pos);

		if (pos_has(s, pos) && is_dstar(p->s + pos, e - pos))
			pos_add(s, e + 1);
		pos = e + 1;
	}
}

static bool comp_match(const struct pg_rule *r, const char *pat, size_t plen,
		       const char *name, size_t nlen, const char *fname, size_t fnlen)
{
	char fp[PG_FOLD_MAX];
	size_t f;

	if (r->access == PG_WRITE)
		return pg_glob_match(pat, plen, name, nlen);
	f = pg_fold(pat, plen, fp, sizeof(fp));
	return f != (size_t)-1 && pg_glob_match_folded(fp, f, fname, fnlen);
}

/* Run R over NAME.  Returns the deepest depth at which R matches a prefix
 * of NAME, or -1; *BELOW: the last component was consumed by a component
 * other than '**' with more of the pattern after it. */
static int run_rule(const struct pg_rule *r, const char *name, size_t len, bool *below)
{
	struct posset at, next;
	struct pattern p;
	const char *cursor = name, *end = name + len;
	char fname[PG_FOLD_MAX];
	int deepest = -1;
	unsigned depth = 0;

	pattern_of(r, &p);
	memset(&at, 0, sizeof(at));
	pos_add(&at, p.first);
	close_over(&p, &at);
	if (pos_has(&at, p.end))
		deepest = 0;
	*below = false;
	while (cursor < end) {
		const char *c;
		size_t clen, fnlen = 0, pos = p.first;
		bool any = false;

		while (cursor < end && *cursor == '/')
			cursor++;
		if (cursor == end)
			break;
		c = cursor;
		while (cursor < end && *cursor != '/')
			cursor++;
		clen = (size_t)(cursor - c);
		if (r->access != PG_WRITE) {
			fnlen = pg_fold(c, clen, fname, sizeof(fname));
			if (fnlen == (size_t)-1)
				return -1;
		}
		depth++;
		*below = false;
		memset(&next, 0, sizeof(next));
		for (; pos < p.end; pos = comp_end(&p, pos) + 1) {
			size_t e = comp_end(&p, pos);

			if (!pos_has(&at, pos))
				continue;
			if (is_dstar(p.s + pos, e - pos)) {
				pos_add(&next, pos);
				any = true;
			} else if (comp_match(r, p.s + pos, e - pos, c, clen, fname, fnlen)) {
				pos_add(&next, e + 1);
				if (e + 1 < p.end)
					*below = true;
				any = true;
			}
		}
		if (!any)
			return *below = false, deepest;
		close_over(&p, &next);
		at = next;
		if (pos_has(&at, p.end))
			deepest = (int)depth;
	}
	return deepest;
}

static bool is_absolute(const char *name, size_t len)
{
	return len > 0 && name[0] == '/';
}

enum pg_access pg_judge_naive(const pg_policy *p, const char *name, size_t len,
			      struct pg_judgement *out)
{
	struct pg_verdict_acc acc;
	bool absolute = is_absolute(name, len), below;
	size_t k;

	pg_acc_init(&acc);
	for (k = 0; k < p->nrules; k++) {
		const struct pg_rule *r = pg_rule_at(p, k);
		int d;

		if (r->absolute != absolute)
			continue;
		d = run_rule(r, name, len, &below);
		if (d >= 0)
			pg_acc_add(&acc, r, (unsigned)d);
	}
	return pg_acc_finish(&acc, out);
}

bool pg_below_naive(const pg_policy *p, const char *name, size_t len)
{
	bool absolute = is_absolute(name, len), below;
	size_t k;

	for (k = 0; k < p->nrules; k++) {
		const struct pg_rule *r = pg_rule_at(p, k);

		if (r->absolute != absolute || r->access == PG_WRITE)
			continue;
		run_rule(r, name, len, &below);
		if (below)
			return true;
	}
	return false;
}

void pg_acc_init(struct pg_verdict_acc *acc)
{
	acc->best = NULL;
	acc->depth = 0;
	acc->rank = 0;
	acc->cap = NULL;
}

/* How deep a rule decides: a rule copied from an ancestor of the root
 * ranks by the ancestor's host depth, below every rule at or beneath the
 * root (pg_rule.above). */
static unsigned long rank_of(const struct pg_rule *r, unsigned depth)
{
	return r->above ? (unsigned long)r->above - 1 : (unsigned long)PG_PATH_MAX + depth;
}

void pg_acc_add(struct pg_verdict_acc *acc, const struct pg_rule *r, unsigned depth)
{
	const struct pg_rule *b = acc->best;
	unsigned long rank = rank_of(r, depth);

	if (!b || rank > acc->rank ||
	    (rank == acc->rank && (r->access < b->access ||
				   (r->access == b->access && r->index < b->index)))) {
		acc->best = r;
		acc->depth = depth;
		acc->rank = rank;
	}
	if (r->final && (!acc->cap || r->access < acc->cap->access ||
			 (r->access == acc->cap->access && r->index < acc->cap->index)))
		acc->cap = r;
}

enum pg_access pg_acc_finish(const struct pg_verdict_acc *acc, struct pg_judgement *out)
{
	out->rule = acc->best;
	out->depth = acc->best ? acc->depth : 0;
	out->access = acc->best ? acc->best->access : PG_DENY;
	out->cap = NULL;
	if (acc->best && acc->cap && acc->cap->access < out->access) {
		out->access = acc->cap->access;
		out->cap = acc->cap;
	}
	return out->access;
}
