/* srt-pos.c - where in a settings file's text a JSON value lies, as
 * LINE:COL, for srt.c's messages.  json-c keeps no positions in its
 * objects, so the text (already accepted by json-c in strict mode) is
 * walked again here: a small skipper over valid JSON that follows one
 * path of keys and indices. */
#include "config.h"

#include <stdbool.h>
#include <string.h>

#include "srt.h"

static size_t skip_ws(const char *t, size_t len, size_t i)
{
	while (i < len && t[i] && strchr(" \t\r\n", t[i]))
		i++;
	return i;
}

/* From an opening quote to just past the closing one. */
static size_t skip_string(const char *t, size_t len, size_t i)
{
	for (i++; i < len && t[i] != '"'; i++)
		if (t[i] == '\\')
			i++;
	return i < len ? i + 1 : len;
}

/* Past one value starting at I (a string, number, literal, object or
 * array); nesting is counted, strings skipped whole. */
static size_t skip_value(const char *t, size_t len, size_t i)
{
	size_t depth = 0;

	if (i < len && t[i] == '"')
		return skip_string(t, len, i);
	if (i < len && t[i] != '{' && t[i] != '[') {
		while (i < len && !strchr(",]} \t\r\n", t[i]))
			i++;
		return i;
	}
	while (i < len) {
		if (t[i] == '"') {
			i = skip_string(t, len, i);
			continue;
		}
		if (t[i] == '{' || t[i] == '[')
			depth++;
		else if ((t[i] == '}' || t[i] == ']') && --depth == 0)
			return i + 1;
		i++;
	}
	return len;
}

/* In the object at I, the value of KEY (the last one, as json-c keeps
 * the last of duplicates); LEN when absent. */
static size_t member(const char *t, size_t len, size_t i, const char *key)
{
	size_t found = len, klen = strlen(key);

	i = skip_ws(t, len, i + 1);
	while (i < len && t[i] == '"') {
		size_t k = i, v;

		i = skip_string(t, len, i);
		v = skip_ws(t, len, skip_ws(t, len, i) + 1);  /* past ':' */
		if (i - k == klen + 2 && memcmp(t + k + 1, key, klen) == 0)
			found = v;
		i = skip_ws(t, len, skip_value(t, len, v));
		if (i < len && t[i] == ',')
			i = skip_ws(t, len, i + 1);
	}
	return found;
}

/* In the array at I, element IDX; LEN when absent. */
static size_t element(const char *t, size_t len, size_t i, size_t idx)
{
	i = skip_ws(t, len, i + 1);
	while (i < len && t[i] != ']') {
		if (idx-- == 0)
			return i;
		i = skip_ws(t, len, skip_value(t, len, i));
		if (i < len && t[i] == ',')
			i = skip_ws(t, len, i + 1);
	}
	return len;
}

size_t srt_offset(const char *text, size_t len, const struct srt_step *path, size_t depth)
{
	size_t i = skip_ws(text, len, 0), d, at;

	for (d = 0; d < depth && i < len; d++) {
		if (path[d].key && text[i] == '{')
			at = member(text, len, i, path[d].key);
		else if (!path[d].key && text[i] == '[')
			at = element(text, len, i, path[d].idx);
		else
			break;
		if (at >= len)
			break;  /* not there: the nearest enclosing value */
		i = at;
	}
	return i < len ? i : len;
}

void srt_line_col(const char *text, size_t off, unsigned *line, unsigned *col)
{
	size_t i;

	*line = 1;
	*col = 1;
	for (i = 0; i < off; i++) {
		if (text[i] == '\n') {
			(*line)++;
			*col = 1;
		} else {
			(*col)++;
		}
	}
}
