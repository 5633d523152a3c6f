/* policy.h - owns the policy: rules as written (parse, load, add), their
 * compiled form, and the judge that says which rule decides a name.
 *
 * Semantics (doc/design.md invariant 5): a rule covers its path and everything
 * beneath it; the deepest covering rule decides; at equal depth the
 * stricter wins (deny > read > write); no covering rule means deny.  A
 * final rule (deny!, read!) caps every deeper rule: the decision is never
 * wider than a covering final rule.  Globs ('*', '?' within a component,
 * '**' for any number of components) cover at the depth of the name they
 * match.  deny and read rules match a name by collision class (case-folded,
 * NFD-normalised), write rules match the name as stored: a spelling can
 * only make the answer stricter, never wider.
 *
 * Relative rules are relative to the workspace root; absolute rules are
 * host paths.  "~/x" is expanded from $HOME when the rule is added.
 *
 * Judging costs time proportional to the path's length, not to the number
 * of rules, allocates nothing, and is safe from many threads on a policy
 * nobody is adding to.  Adding a rule compiles it at once; adds must not
 * race with each other or with judging.
 *
 * Line format (pg_policy_parse, pg_policy_load): one rule a line, "WORD
 * PATH", WORD one of write, read, deny, read!, deny!; blanks anywhere; a
 * word starting with '#' starts a comment to the end of the line (so a
 * path starting with '#' is written "./#x").  "write!" is refused: a final
 * rule caps the rules beneath it, and nothing is wider than write.  Paths
 * cannot hold blanks.  Within a component a run of '*' is one '*'; a
 * component that is exactly "**" spans any number of components. */
#ifndef PG_POLICY_H
#define PG_POLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "pathgate.h"

struct pg_rule {
	const char    *path;      /* normalised: "a/b", "" for ".", "/usr" */
	const char    *file;      /* source file, or NULL ("<string>" when parsed) */
	uint32_t       index;     /* position in the policy */
	unsigned       line;      /* 1-based line in file, 0 when added by call */
	/* Narrow fields: a policy holds one record per rule, and a root's
	 * policy of a million rules should fit in well under 150 MiB.  A path
	 * has at most PG_PATH_MAX_COMPONENTS (2049) components. */
	unsigned       depth : 16; /* number of components of path */
	/* A host rule on a strict ancestor of a root, copied to the root
	 * itself ("", by pg_policy_for_root): the ancestor's host depth + 1.
	 * It decides beneath the root only where no rule at or beneath the
	 * root does, and a deeper ancestor's rule beats it; a final one caps
	 * the root and everything beneath it.  0 for every other rule. */
	unsigned       above : 16;
	enum pg_access access : 8;
	bool           final : 1;
	bool           absolute : 1;  /* a host path */
	bool           glob : 1;      /* has a '*', '?' or '**' component */
	bool           derived : 1;   /* added by the library (e.g. a denied symlink's target) */
	/* The path as written (for messages, on above rules) follows PATH's
	 * NUL: a pointer in every record would cost a million-rule policy
	 * 8 MB for the few rules that have one. */
	bool           has_written : 1;
};

/* The path rule R was written with, or NULL (see has_written). */
static inline const char *pg_rule_written(const struct pg_rule *r)
{
	return r->has_written ? r->path + strlen(r->path) + 1 : NULL;
}

struct pg_judgement {
	enum pg_access        access;  /* the decision */
	const struct pg_rule *rule;    /* the deciding rule; NULL: no rule covers (deny) */
	unsigned              depth;   /* depth at which rule covers the name */
	const struct pg_rule *cap;     /* a shallower final rule that narrowed the decision, or NULL */
};

/* The rule at position I (0 <= I < pg_policy_rule_count). */
const struct pg_rule *pg_policy_rule(const pg_policy *p, size_t i);

/* Add a rule with full detail (the public add functions call this).
 * FILE may be NULL.  Returns 0 or -1 with policy.invalid recorded. */
int pg_policy_add_rule(pg_policy *p, enum pg_access access, bool final,
		       const char *path, const char *file, unsigned line, bool derived);

/* A deep copy. */
pg_policy *pg_policy_dup(const pg_policy *p);

/* A policy of rules only: adds are checked and kept, not compiled, and
 * judging it denies everything until pg_policy_compile.  A root keeps the
 * caller's policy so, to derive its own from on every refresh. */
pg_policy *pg_policy_new_uncompiled(void);

/* An uncompiled policy whose first rules are BASE's, borrowed, not copied:
 * BASE must outlive it and gain no rules meanwhile. */
pg_policy *pg_policy_extend(const pg_policy *base);

/* Compile an uncompiled policy (once, after its last bulk add), and
 * return the slack of its arrays to the allocator.  0, or -1 (ENOMEM)
 * with the policy still uncompiled. */
int pg_policy_compile(pg_policy *p);

/* A copy that is not compiled (pg_policy_new_uncompiled). */
pg_policy *pg_policy_dup_rules(const pg_policy *p);

/* Append to P, in place, the relative rules its absolute rules mean for a
 * root at host path ROOT (pg_policy_for_root without the copy). */
int pg_policy_rebase(pg_policy *p, const char *root);

/* A copy for a root at host path ROOT (canonical, absolute): absolute rules
 * naming ROOT or a path beneath it are added again as relative rules (the
 * absolute rule stays, for the envelope and the preload). */
pg_policy *pg_policy_for_root(const pg_policy *p, const char *root);

/* Judge the normalised name PATH (LEN bytes; "" is the root itself;
 * relative unless it starts with '/').  Always fills OUT; returns
 * OUT->access. */
enum pg_access pg_policy_judge(const pg_policy *p, const char *path, size_t len,
			       struct pg_judgement *out);

/* True when directory PATH is pinned (invariant 6): PATH and its parent
 * are both decided write (so a rename or removal of PATH is otherwise
 * allowed: this covers a decision by a rule strictly above PATH, and also
 * a nested "write PATH" inside a write region, which the seed's walk "up
 * to the outermost covering write root" pins too), and a deny or read
 * rule lies strictly beneath it: a literal rule whose path continues
 * below PATH, or a glob where PATH's own name is consumed by a component
 * of the pattern other than '**' and more of the pattern follows (a deny
 * of ".git/hooks" at any depth pins every ".git" inside a write region,
 * never every directory).  The root ("" or "/") is never pinned. */
bool pg_policy_pinned(const pg_policy *p, const char *path, size_t len);

/* True when some rule could cover a name strictly beneath PATH (LEN
 * bytes, normalised as for pg_policy_judge) at that name's own depth, so
 * that the decision may differ beneath PATH; false when every name beneath
 * is decided exactly as PATH is (the envelope's planner prunes its walk of
 * the host with this).  Allocates nothing. */
bool pg_policy_decides_beneath(const pg_policy *p, const char *path, size_t len);

/* Does one pattern component PAT (PLEN bytes) of rule R match the name
 * component NAME (NLEN bytes), as the judge matches: deny and read by
 * collision class (with '?' as pg_glob_match_folded has it), write as
 * stored?  For code that runs a rule over a path of its own (rebasing a
 * policy onto a root or a sub-root). */
bool pg_rule_component_matches(const struct pg_rule *r, const char *pat, size_t plen,
			       const char *name, size_t nlen);

/* Render a rule for messages: "deny .env (file.pg:4)". */
void pg_rule_render(const struct pg_rule *r, char *buf, size_t size);

/* A buffer of PG_FOLD_MAX bytes holds the fold of any name of at most
 * PG_NAME_MAX bytes: case folding and NFD grow a code point at most
 * threefold (U+0390), checked over all of Unicode; the rest is margin. */
#define PG_FOLD_MAX (8 * PG_NAME_MAX + 8)

/* Fold NAME (LEN bytes) into its collision class: case-folded, NFD.
 * Non-UTF-8 input folds ASCII letters only.  Writes at most SIZE bytes and
 * returns the folded length, or (size_t)-1 if SIZE is too small. */
size_t pg_fold(const char *name, size_t len, char *buf, size_t size);

/* pg_policy_parse, the rules naming NAME as their file ("<default>"). */
int pg_policy_parse_named(pg_policy *p, const char *text, size_t len, const char *name);

/* The embedded default profile (pathgate policy --default), with comments. */
extern const char pg_default_policy_text[];

#endif
