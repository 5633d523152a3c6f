/* glob.h - owns the matching of one path component against one pattern
 * component: '*' any run of bytes (none included), '?' exactly one
 * character (a UTF-8 code point with the combining marks after it, or one
 * byte that is not valid UTF-8).  '*' works on bytes so that a "*.pem"
 * pattern can be looked up by suffix; it can only match more than a
 * character-wise '*' would, never less.
 * No other metacharacters, no escapes: '[' and '\\' are literal.  '**'
 * as a whole component is the policy's business, not this module's. */
#ifndef PG_GLOB_H
#define PG_GLOB_H

#include <stdbool.h>
#include <stddef.h>

/* True when component PAT (PLEN bytes) has a '*' or '?'. */
bool pg_glob_is_pattern(const char *pat, size_t plen);

/* True when NAME (NLEN bytes) matches PAT (PLEN bytes).  Costs at most
 * O(PLEN * NLEN), allocates nothing. */
bool pg_glob_match(const char *pat, size_t plen, const char *name, size_t nlen);

/* The same in folded space (both sides case-folded and NFD): '?' matches
 * one character, or the two or three characters that one character folds
 * to (U+FB00 to "ff", U+FB03 to "ffi", U+00DF to "ss"), so that a deny
 * glob covers every name whose collision class holds a match ("*.p?m"
 * covers "key.p\u{FB00}m", which folds to "key.pffm").  Allocates
 * nothing; the table of multi-character folds is built once. */
bool pg_glob_match_folded(const char *pat, size_t plen, const char *name, size_t nlen);

/* Length of the character starting at S (at most LEFT bytes): a whole
 * UTF-8 sequence and the combining marks after it when one starts there,
 * else 1. */
size_t pg_glob_char_len(const char *s, size_t left);

#endif
