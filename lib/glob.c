/* glob.c - one component against one pattern component. */
#include "config.h"

#include <string.h>

#include "glob.h"

bool pg_glob_is_pattern(const char *pat, size_t plen)
{
	return memchr(pat, '*', plen) || memchr(pat, '?', plen);
}

size_t pg_glob_char_len(const char *s, size_t left)
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

/* The classic single-backtrack matcher: on a mismatch, the last '*' takes
 * one more character and the rest is tried again.  Only the last star
 * needs remembering, because any earlier star could only have taken what
 * the later one can take instead. */
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
			star_n += pg_glob_char_len(name + star_n, nlen - star_n);
			n = star_n;
		} else {
			return false;
		}
	}
	while (p < plen && pat[p] == '*')
		p++;
	return p == plen;
}
