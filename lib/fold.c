/* fold.c - the collision class of a name: case-folded and NFD-normalised,
 * the spelling a casefolded or case-insensitive filesystem treats as one.
 * Denies and reads match by it (doc/design.md invariant 2). */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <unicase.h>
#include <unistr.h>

#include "policy.h"

static size_t fold_ascii(const char *name, size_t len, char *buf, size_t size)
{
	size_t i;

	if (len > size)
		return (size_t)-1;
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)name[i];

		buf[i] = (char)(c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c);
	}
	return len;
}

static bool is_ascii(const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if ((unsigned char)name[i] >= 0x80)
			return false;
	return true;
}

size_t pg_fold(const char *name, size_t len, char *buf, size_t size)
{
	uint8_t *out;
	size_t outlen = size;

	/* ASCII folds to ASCII and is already NFD; invalid UTF-8 has no
	 * Unicode class, so only its ASCII letters fold. */
	if (is_ascii(name, len) || u8_check((const uint8_t *)name, len))
		return fold_ascii(name, len, buf, size);
	/* With a result buffer libunistring writes into it when the result
	 * fits, and allocates only when it does not: then we refuse. */
	out = u8_casefold((const uint8_t *)name, len, NULL, UNINORM_NFD,
			  (uint8_t *)buf, &outlen);
	if (!out)
		return (size_t)-1;
	if (out != (uint8_t *)buf) {
		free(out);
		return (size_t)-1;
	}
	return outlen;
}
