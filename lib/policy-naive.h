/* policy-naive.h - owns the rule-by-rule judge (the compiled judge's
 * fallback) and the accumulator both judges decide with, so that the two
 * cannot differ in how they break ties. */
#ifndef PG_POLICY_NAIVE_H
#define PG_POLICY_NAIVE_H

#include "policy-internal.h"

/* The deciding rule so far: deepest, then strictest, then first added;
 * and the strictest covering final rule (then first added). */
struct pg_verdict_acc {
	const struct pg_rule *best;
	unsigned              depth;
	unsigned long         rank;   /* depth, with rules above the root below every other */
	const struct pg_rule *cap;
};

void pg_acc_init(struct pg_verdict_acc *acc);
/* Rule R covers the name at DEPTH. */
void pg_acc_add(struct pg_verdict_acc *acc, const struct pg_rule *r, unsigned depth);
enum pg_access pg_acc_finish(const struct pg_verdict_acc *acc, struct pg_judgement *out);

/* Judge NAME (LEN bytes, normalised) rule by rule. */
enum pg_access pg_judge_naive(const pg_policy *p, const char *name, size_t len,
			      struct pg_judgement *out);
/* True when a deny or read rule lies strictly beneath NAME, NAME's last
 * component consumed by a pattern component other than '**'. */
bool pg_below_naive(const pg_policy *p, const char *name, size_t len);

#endif
