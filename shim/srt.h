/* srt.h - owns the conversion of sandbox-runtime settings (the
 * "filesystem" object: allowRead, denyRead, allowWrite, denyWrite) into a
 * pathgate policy. */
#ifndef PG_SRT_H
#define PG_SRT_H

#include <stdio.h>

/* Read the settings FILE, write the policy to OUT and one warning a line to
 * WARN for each place where the two tools' semantics differ.  Returns 0, or
 * -1 after printing why to WARN. */
int srt_convert(const char *file, FILE *out, FILE *warn);

#endif
