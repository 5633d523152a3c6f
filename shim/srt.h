/* srt.h - owns the conversion of sandbox-runtime settings (the
 * "filesystem" object: allowRead, denyRead, allowWrite, denyWrite) into a
 * pathgate policy. */
#ifndef PG_SRT_H
#define PG_SRT_H

#include <stddef.h>
#include <stdio.h>

/* Read the settings FILE, write the policy to OUT and one warning a line to
 * WARN for each place where the two tools' semantics differ.  Returns 0, or
 * -1 after printing why to WARN. */
int srt_convert(const char *file, FILE *out, FILE *warn);

/* One step of a path into a JSON document: an object's KEY, or (KEY
 * NULL) an array's element IDX. */
struct srt_step {
	const char *key;
	size_t      idx;
};

/* The offset in TEXT (LEN bytes of JSON json-c accepted) of the value
 * PATH (DEPTH steps) names, or of the nearest enclosing value present
 * (srt-pos.c). */
size_t srt_offset(const char *text, size_t len, const struct srt_step *path, size_t depth);
/* OFF's line and column in TEXT, both from 1 (columns count bytes). */
void srt_line_col(const char *text, size_t off, unsigned *line, unsigned *col);

#endif
