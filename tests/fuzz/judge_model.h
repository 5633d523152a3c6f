/* judge_model.h - the reference judge for tests and fuzzing: the policy's
 * semantics written the plainest way, a loop over every rule with a
 * recursive matcher, sharing nothing with the compiled judge but the rule
 * list and pg_fold. */
#ifndef PG_JUDGE_MODEL_H
#define PG_JUDGE_MODEL_H

#include <stdbool.h>

#include "policy.h"

/* Judge NAME (normalised, NUL-terminated) against every rule of P. */
enum pg_access model_judge(const pg_policy *p, const char *name, struct pg_judgement *out);

/* Invariant 6 as the model reads it. */
bool model_pinned(const pg_policy *p, const char *name);

/* Matching of one component: '*' any run of bytes, '?' one character. */
bool model_glob(const char *pat, size_t plen, const char *name, size_t nlen);

#endif
