/* judge_model.c - the reference judge (see judge_model.h). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unictype.h>
#include <unistr.h>

#include "judge_model.h"

#define MODEL_COMP 64
#define MODEL_FOLD (8 * PG_NAME_MAX + 8)

struct comps {
	unsigned n;
	const char *s[MODEL_COMP];
	size_t len[MODEL_COMP];
	char fold[MODEL_COMP][MODEL_FOLD];
	size_t flen[MODEL_COMP];
};

static bool split(const char *path, struct comps *c)
{
	const char *s = path;

	c->n = 0;
	while (*s) {
		const char *e;

		while (*s == '/')
			s++;
		if (!*s)
			break;
		e = strchrnul(s, '/');
		if (c->n == MODEL_COMP)
			return false;
		c->s[c->n] = s;
		c->len[c->n] = (size_t)(e - s);
		c->flen[c->n] = pg_fold(s, c->len[c->n], c->fold[c->n], MODEL_FOLD);
		if (c->flen[c->n] == (size_t)-1)
			return false;
		c->n++;
		s = e;
	}
	return true;
}

static size_t one_code_point(const char *s, size_t left)
{
	unsigned char c = (unsigned char)s[0];
	size_t need, i;

	if (c >= 0xf0 && c <= 0xf4)
		need = 4;
	else if (c >= 0xe0 && c <= 0xef)
		need = 3;
	else if (c >= 0xc2 && c <= 0xdf)
		need = 2;
	else
		return 1;
	if (need > left)
		return 1;
	for (i = 1; i < need; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 1;
	return need;
}

/* One character: a code point, then its combining marks. */
static size_t char_len(const char *s, size_t left)
{
	size_t n = one_code_point(s, left), m;
	ucs4_t uc;

	while (n < left && (m = one_code_point(s + n, left - n)) > 1) {
		if (u8_mbtouc(&uc, (const uint8_t *)s + n, m) != (int)m ||
		    !uc_combining_class(uc))
			break;
		n += m;
	}
	return n;
}

bool model_glob(const char *pat, size_t plen, const char *name, size_t nlen)
{
	size_t k;

	if (plen == 0)
		return nlen == 0;
	if (pat[0] == '*') {
		for (k = 0; k <= nlen; k++)
			if (model_glob(pat + 1, plen - 1, name + k, nlen - k))
				return true;
		return false;
	}
	if (nlen == 0)
		return false;
	if (pat[0] == '?') {
		k = char_len(name, nlen);
		return model_glob(pat + 1, plen - 1, name + k, nlen - k);
	}
	return pat[0] == name[0] && model_glob(pat + 1, plen - 1, name + 1, nlen - 1);
}

/* Is SPAN, several characters, the fold of one code point?  The folds of
 * every BMP code point, listed once (plainly, unsorted: independent of the
 * library's table), then searched one by one. */
static char (*model_folds)[16];
static size_t model_nfolds;

static void model_fold_list(void)
{
	char in[4], out[64];

	model_folds = calloc(0x10000, sizeof(*model_folds));
	for (ucs4_t cp = 0x80; model_folds && cp < 0x10000; cp++) {
		int n;
		size_t f;

		if (cp >= 0xd800 && cp < 0xe000)
			continue;
		n = u8_uctomb((uint8_t *)in, cp, sizeof(in));
		f = n > 0 ? pg_fold(in, (size_t)n, out, sizeof(out)) : (size_t)-1;
		/* Only folds unlike their code point can be several characters. */
		if (f != (size_t)-1 && f < sizeof(model_folds[0]) &&
		    (f != (size_t)n || memcmp(out, in, f) != 0))
			memcpy(model_folds[model_nfolds++], out, f);
	}
}

static bool model_one_char_fold(const char *span, size_t len)
{
	if (!model_folds)
		model_fold_list();
	for (size_t i = 0; model_folds && i < model_nfolds; i++)
		if (strlen(model_folds[i]) == len && memcmp(model_folds[i], span, len) == 0)
			return true;
	return false;
}

/* Folded space: a '?' is one character, or the several characters one
 * written character folds to. */
static bool model_glob_folded(const char *pat, size_t plen, const char *name, size_t nlen)
{
	size_t k, n, at;

	if (plen == 0)
		return nlen == 0;
	if (pat[0] == '*') {
		for (k = 0; k <= nlen; k++)
			if (model_glob_folded(pat + 1, plen - 1, name + k, nlen - k))
				return true;
		return false;
	}
	if (nlen == 0)
		return false;
	if (pat[0] == '?') {
		for (n = 1, at = 0; n <= 3 && at < nlen; n++) {
			at += char_len(name + at, nlen - at);
			if ((n == 1 || model_one_char_fold(name, at)) &&
			    model_glob_folded(pat + 1, plen - 1, name + at, nlen - at))
				return true;
		}
		return false;
	}
	return pat[0] == name[0] && model_glob_folded(pat + 1, plen - 1, name + 1, nlen - 1);
}

static bool dstar(const struct comps *p, unsigned i)
{
	return p->len[i] == 2 && p->s[i][0] == '*' && p->s[i][1] == '*';
}

static bool comp_match(const struct pg_rule *r, const struct comps *p, unsigned pi,
		       const struct comps *n, unsigned ni)
{
	if (r->access == PG_WRITE)
		return model_glob(p->s[pi], p->len[pi], n->s[ni], n->len[ni]);
	return model_glob_folded(p->fold[pi], p->flen[pi], n->fold[ni], n->flen[ni]);
}

/* The deepest END such that pattern [PI, PE) matches name [NI, END). */
static int deepest(const struct pg_rule *r, const struct comps *p, unsigned pi,
		   unsigned pe, const struct comps *n, unsigned ni)
{
	int best = -1, d;
	unsigned k;

	if (pi == pe)
		return (int)ni;
	if (dstar(p, pi)) {
		for (k = ni; k <= n->n; k++) {
			d = deepest(r, p, pi + 1, pe, n, k);
			if (d > best)
				best = d;
		}
		return best;
	}
	if (ni == n->n || !comp_match(r, p, pi, n, ni))
		return -1;
	return deepest(r, p, pi + 1, pe, n, ni + 1);
}

/* True when pattern [PI, PE) matches name [NI, n) exactly. */
static bool whole(const struct pg_rule *r, const struct comps *p, unsigned pi, unsigned pe,
		  const struct comps *n, unsigned ni)
{
	unsigned k;

	if (pi == pe)
		return ni == n->n;
	if (dstar(p, pi)) {
		for (k = ni; k <= n->n; k++)
			if (whole(r, p, pi + 1, pe, n, k))
				return true;
		return false;
	}
	return ni < n->n && comp_match(r, p, pi, n, ni) && whole(r, p, pi + 1, pe, n, ni + 1);
}

static __thread struct comps model_name, model_pat;

enum pg_access model_judge(const pg_policy *p, const char *name, struct pg_judgement *out)
{
	const struct pg_rule *best = NULL, *cap = NULL;
	int best_depth = -1;
	long best_eff = 0;
	bool absolute = name[0] == '/';
	size_t i, count = pg_policy_rule_count(p);

	memset(out, 0, sizeof(*out));
	out->access = PG_DENY;
	if (!split(name, &model_name))
		return PG_DENY;
	for (i = 0; i < count; i++) {
		const struct pg_rule *r = pg_policy_rule(p, i);
		long eff;
		int d;

		if (r->absolute != absolute || !split(r->path, &model_pat))
			continue;
		d = deepest(r, &model_pat, 0, model_pat.n, &model_name, 0);
		if (d < 0)
			continue;
		/* A rule copied from an ancestor of the root decides below
		 * every rule at or beneath the root, by its ancestor's depth. */
		eff = r->above ? (long)r->above - 100001 : d;
		if (!best || eff > best_eff || (eff == best_eff && r->access < best->access)) {
			best = r;
			best_depth = d;
			best_eff = eff;
		}
		if (r->final && (!cap || r->access < cap->access))
			cap = r;
	}
	if (!best)
		return PG_DENY;
	out->rule = best;
	out->depth = (unsigned)best_depth;
	out->access = best->access;
	if (cap && cap->access < best->access) {
		out->access = cap->access;
		out->cap = cap;
	}
	return out->access;
}

static bool restrictive_beneath(const pg_policy *p, const char *name)
{
	bool absolute = name[0] == '/';
	size_t i, count = pg_policy_rule_count(p);
	unsigned j;

	if (!split(name, &model_name))
		return false;
	for (i = 0; i < count; i++) {
		const struct pg_rule *r = pg_policy_rule(p, i);

		if (r->access == PG_WRITE || r->absolute != absolute ||
		    !split(r->path, &model_pat))
			continue;
		for (j = 1; j < model_pat.n; j++)
			if (!dstar(&model_pat, j - 1) &&
			    whole(r, &model_pat, 0, j, &model_name, 0))
				return true;
	}
	return false;
}

bool model_pinned(const pg_policy *p, const char *name)
{
	struct pg_judgement j;
	char parent[PG_PATH_MAX + 2];
	char *slash;

	if (strcmp(name, "") == 0 || strcmp(name, "/") == 0)
		return false;
	if (!restrictive_beneath(p, name))
		return false;
	if (model_judge(p, name, &j) != PG_WRITE)
		return false;
	snprintf(parent, sizeof(parent), "%s", name);
	slash = strrchr(parent, '/');
	if (!slash)
		parent[0] = '\0';
	else if (slash == parent)
		parent[1] = '\0';
	else
		*slash = '\0';
	return model_judge(p, parent, &j) == PG_WRITE;
}
