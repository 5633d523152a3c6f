/* glob.c - one component against one pattern component. */
#include "config.h"

#include <string.h>
#include <unictype.h>
#include <unistr.h>

#include "glob.h"

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
