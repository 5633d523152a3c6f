/* glob.c - one component against one pattern component. */
#include "config.h"

#include <pthread.h>
#include <string.h>
#include <unictype.h>
#include <unistr.h>

#include "pathgate.h"
#include "glob.h"
#include "policy.h"

bool pg_glob_is_pattern(const char *pat, size_t plen)
{
	return memchr(pat, '*', plen) || memchr(pat, '?', plen);
}

static size_t code_point_len(const char *s, size_t left)
{
	unsigned char c = (unsigned char)s[0];
	size_t need, i;

	if (c < 0xc2 || c > 0xf4)
		return 1;
	need = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : 2;
	if (need > left)
		return 1;
	for (i = 1; i < need; i++)
		if (((unsigned char)s[i] & 0xc0) != 0x80)
			return 1;
	return need;
}

/* A character is a code point and the combining marks after it: in the
 * NFD form denies match by, "e" + U+0301 is what the user wrote as one
 * character. */
size_t pg_glob_char_len(const char *s, size_t left)
{
	size_t n = code_point_len(s, left);

	while (n < left) {
		size_t m = code_point_len(s + n, left - n);
		ucs4_t uc;

		if (m == 1 || u8_mbtouc(&uc, (const uint8_t *)s + n, m) != (int)m ||
		    uc_combining_class(uc) == 0)
			break;
		n += m;
	}
	return n;
}

/* The classic single-backtrack matcher: on a mismatch, the last '*' takes
 * one more byte and the rest is tried again.  Only the last star needs
 * remembering: matching each run between stars as early as possible is
 * never worse, since the next star can take whatever is left over. */
bool pg_glob_match(const char *pat, size_t plen, const char *name, size_t nlen)
{
	size_t p = 0, n = 0, star_p = (size_t)-1, star_n = 0;

	while (n < nlen) {
		if (p < plen && pat[p] == '*') {
			star_p = ++p;
			star_n = n;
		} else if (p < plen && pat[p] == '?') {
			p++;
			n += pg_glob_char_len(name + n, nlen - n);
		} else if (p < plen && pat[p] == name[n]) {
			p++;
			n++;
		} else if (star_p != (size_t)-1) {
			p = star_p;
			n = ++star_n;
		} else {
			return false;
		}
	}
	while (p < plen && pat[p] == '*')
		p++;
	return p == plen;
}

/* The most characters one character folds to. */
#define FOLD_SPREAD 3

/* The folds that are more than one character (U+00DF "ss", U+FB00 "ff",
 * a Hangul syllable's jamo, ...): every one lies in the BMP (about 11,300
 * of them).  Built once, on the first '?' that may stand for several
 * characters, and sorted for lookups. */
#define MULTI_MAX 16384
#define MULTI_LEN 16

struct multi_fold {
	unsigned char len;
	char          text[MULTI_LEN - 1];
};

static struct {
	struct multi_fold v[MULTI_MAX];
	size_t            n;
} multi;

static int cmp_multi(const void *a, const void *b)
{
	const struct multi_fold *x = a, *y = b;

	if (x->len != y->len)
		return x->len < y->len ? -1 : 1;
	return memcmp(x->text, y->text, x->len);
}
static pthread_once_t multi_once = PTHREAD_ONCE_INIT;

static size_t char_count(const char *s, size_t len)
{
	size_t n = 0, at = 0;

	while (at < len) {
		at += pg_glob_char_len(s + at, len - at);
		n++;
	}
	return n;
}

static void multi_build(void)
{
	char in[4], out[MULTI_LEN];

	for (ucs4_t cp = 0x80; cp < 0x10000 && multi.n < MULTI_MAX; cp++) {
		int n;
		size_t f;

		if (cp >= 0xd800 && cp < 0xe000)
			continue;
		n = u8_uctomb((uint8_t *)in, cp, sizeof(in));
		if (n <= 0)
			continue;
		f = pg_fold(in, (size_t)n, out, sizeof(out));
		if (f == (size_t)-1 || f > sizeof(multi.v[0].text) || char_count(out, f) < 2)
			continue;
		memcpy(multi.v[multi.n].text, out, f);
		multi.v[multi.n++].len = (unsigned char)f;
	}
	qsort(multi.v, multi.n, sizeof(multi.v[0]), cmp_multi);
}

/* Is NAME (LEN bytes, several characters) what one character folds to? */
static bool one_character_folded(const char *name, size_t len)
{
	struct multi_fold key;

	if (len > sizeof(key.text))
		return false;
	pthread_once(&multi_once, multi_build);
	key.len = (unsigned char)len;
	memcpy(key.text, name, len);
	return bsearch(&key, multi.v, multi.n, sizeof(key), cmp_multi) != NULL;
}

/* Dynamic programming over (pattern, name) positions, one row of reached
 * name offsets per pattern byte: a '?' has up to three ways to go, which
 * the single-backtrack matcher above cannot follow.  A '?' takes one
 * character, or two or three that are the fold of one character. */
bool pg_glob_match_folded(const char *pat, size_t plen, const char *name, size_t nlen)
{
	bool rows[2][8 * PG_NAME_MAX + 9];
	bool *cur = rows[0], *next = rows[1], *swap;
	size_t p, n, k, at;

	if (nlen + 1 > sizeof(rows[0]) || !memchr(pat, '?', plen))
		return pg_glob_match(pat, plen, name, nlen);
	memset(cur, 0, nlen + 1);
	cur[0] = true;
	for (p = 0; p < plen; p++) {
		memset(next, 0, nlen + 1);
		for (n = 0; n <= nlen; n++) {
			if (!cur[n])
				continue;
			if (pat[p] == '*') {
				for (k = n; k <= nlen; k++)
					next[k] = true;
				break;
			}
			if (pat[p] == '?') {
				for (k = 0, at = n; k < FOLD_SPREAD && at < nlen; k++) {
					at += pg_glob_char_len(name + at, nlen - at);
					if (k == 0 || one_character_folded(name + n, at - n))
						next[at] = true;
				}
			} else if (n < nlen && name[n] == pat[p]) {
				next[n + 1] = true;
			}
		}
		swap = cur;
		cur = next;
		next = swap;
	}
	return cur[nlen];
}
