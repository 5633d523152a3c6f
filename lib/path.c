/* path.c - validation and lexical normalisation of path text. */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "path.h"
#include "refusal.h"

int pg_path_validate(const char *raw, size_t len)
{
	size_t i, comp = 0;

	if (!raw)
		return pg_refuse(PG_R_BAD_PATH, EINVAL, NULL, "a NULL path");
	if (len == (size_t)-1)
		len = strnlen(raw, PG_PATH_MAX + 1);
	if (len == 0)
		return pg_refuse(PG_R_BAD_PATH, ENOENT, raw, "an empty path");
	if (memchr(raw, '\0', len))
		return pg_refuse(PG_R_BAD_PATH, EINVAL, raw, "a NUL byte inside the path");
	if (len > PG_PATH_MAX)
		return pg_refusef(PG_R_BAD_PATH, ENAMETOOLONG, NULL,
				  "a path over %d bytes", PG_PATH_MAX);
	for (i = 0; i < len; i++) {
		if (raw[i] == '/') {
			comp = 0;
		} else if (++comp > PG_NAME_MAX) {
			return pg_refusef(PG_R_BAD_PATH, ENAMETOOLONG, raw,
					  "a component over %d bytes", PG_NAME_MAX);
		}
	}
	return 0;
}

bool pg_path_next(const char **cursor, const char **comp, size_t *len)
{
	const char *s = *cursor;

	for (;;) {
		const char *end;

		while (*s == '/')
			s++;
		if (*s == '\0') {
			*cursor = s;
			return false;
		}
		end = strchrnul(s, '/');
		if (end - s == 1 && s[0] == '.') {
			s = end;
			continue;
		}
		*comp = s;
		*len = (size_t)(end - s);
		*cursor = end;
		return true;
	}
}

static bool ends_as_directory(const char *raw, size_t len)
{
	if (raw[len - 1] == '/')
		return true;
	if (len >= 2 && raw[len - 1] == '.' && raw[len - 2] == '/')
		return true;
	if (len >= 3 && raw[len - 1] == '.' && raw[len - 2] == '.' && raw[len - 3] == '/')
		return true;
	return (len == 1 && raw[0] == '.') || (len == 2 && raw[0] == '.' && raw[1] == '.');
}

int pg_path_normalise(const char *raw, bool allow_absolute, struct pg_path *out)
{
	const char *cursor, *comp;
	size_t len, clen;

	if (pg_path_validate(raw, (size_t)-1) < 0)
		return -1;
	len = strlen(raw);
	out->absolute = raw[0] == '/';
	out->trailing_slash = ends_as_directory(raw, len);
	out->had_dotdot = false;
	out->ncomp = 0;
	out->len = 0;
	if (out->absolute && !allow_absolute)
		return pg_refuse(PG_R_PATH_ESCAPE, EACCES, raw, "an absolute path");

	cursor = raw;
	while (pg_path_next(&cursor, &comp, &clen)) {
		if (clen == 2 && comp[0] == '.' && comp[1] == '.') {
			out->had_dotdot = true;
			if (out->ncomp == 0) {
				if (out->absolute)
					continue; /* "/.." is "/" */
				return pg_refuse(PG_R_PATH_ESCAPE, EACCES, raw,
						 "'..' climbs above the root");
			}
			out->ncomp--;
			out->len = out->ncomp ? out->off[out->ncomp] - 1 : 0;
			continue;
		}
		if (out->ncomp)
			out->buf[out->len++] = '/';
		out->off[out->ncomp++] = (uint16_t)out->len;
		memcpy(out->buf + out->len, comp, clen);
		out->len += clen;
	}
	out->buf[out->len] = '\0';
	return 0;
}

size_t pg_path_comp_len(const struct pg_path *p, unsigned i)
{
	size_t end = (i + 1 < p->ncomp) ? (size_t)p->off[i + 1] - 1 : p->len;

	return end - p->off[i];
}

size_t pg_path_prefix_len(const struct pg_path *p, unsigned n)
{
	if (n == 0)
		return 0;
	if (n >= p->ncomp)
		return p->len;
	return (size_t)p->off[n] - 1;
}
