/* refusal.c - the per-thread refusal record. */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "pathgate.h"
#include "refusal.h"

static const struct {
	const char *name;
	int err;
} codes[] = {
	[PG_R_NONE]                = { NULL, 0 },
	[PG_R_PATH_ESCAPE]         = { "workspace.path-escape", EACCES },
	[PG_R_DENIED]              = { "workspace.denied", EACCES },
	[PG_R_READ_ONLY]           = { "workspace.read-only", EROFS },
	[PG_R_PINNED]              = { "workspace.pinned", EBUSY },
	[PG_R_DANGLING]            = { "workspace.dangling-link", ENOENT },
	[PG_R_BAD_PATH]            = { "workspace.bad-path", EINVAL },
	[PG_R_EXHAUSTED]           = { "exhausted", EFBIG },
	[PG_R_POLICY_INVALID]      = { "policy.invalid", EINVAL },
	[PG_R_SANDBOX_UNAVAILABLE] = { "exec.sandbox-unavailable", ENOSYS },
};

/* Fixed buffers: recording a refusal never allocates, so it works in the
 * preload and in low-memory paths alike. */
struct refusal_record {
	enum pg_code code;
	struct pg_refusal pub;
	char path[PG_PATH_MAX + 1];
	char rule[512];
};

static __thread struct refusal_record last;

const char *pg_code_name(enum pg_code code)
{
	if ((size_t)code >= sizeof(codes) / sizeof(codes[0]))
		return NULL;
	return codes[code].name;
}

int pg_code_errno(enum pg_code code)
{
	if ((size_t)code >= sizeof(codes) / sizeof(codes[0]))
		return EINVAL;
	return codes[code].err;
}

static void copy_bounded(char *dst, size_t size, const char *src)
{
	size_t n = src ? strnlen(src, size - 1) : 0;

	memcpy(dst, src ? src : "", n);
	dst[n] = '\0';
}

static int record(enum pg_code code, int err)
{
	if (err == 0)
		err = pg_code_errno(code);
	last.code = code;
	last.pub.name = pg_code_name(code);
	last.pub.err = err;
	last.pub.path = last.path;
	last.pub.rule = last.rule;
	last.pub.code = (enum pg_refusal_code)code;
	errno = err;
	return -1;
}

int pg_refuse(enum pg_code code, int err, const char *path, const char *rule)
{
	copy_bounded(last.path, sizeof(last.path), path);
	copy_bounded(last.rule, sizeof(last.rule), rule);
	return record(code, err);
}

int pg_refusef(enum pg_code code, int err, const char *path, const char *fmt, ...)
{
	va_list ap;

	copy_bounded(last.path, sizeof(last.path), path);
	va_start(ap, fmt);
	vsnprintf(last.rule, sizeof(last.rule), fmt, ap);
	va_end(ap);
	return record(code, err);
}

void pg_refusal_clear(void)
{
	last.code = PG_R_NONE;
	last.pub.name = NULL;
	last.pub.err = 0;
	last.pub.path = NULL;
	last.pub.rule = NULL;
	last.pub.code = PG_REFUSAL_NONE;
}

enum pg_code pg_refusal_code(void)
{
	return last.code;
}

const struct pg_refusal *pg_last_refusal(void)
{
	return &last.pub;
}

/* The public codes are the internal ones: one table, two names. */
_Static_assert((int)PG_REFUSAL_PATH_ESCAPE == (int)PG_R_PATH_ESCAPE &&
	       (int)PG_REFUSAL_DENIED == (int)PG_R_DENIED &&
	       (int)PG_REFUSAL_READ_ONLY == (int)PG_R_READ_ONLY &&
	       (int)PG_REFUSAL_PINNED == (int)PG_R_PINNED &&
	       (int)PG_REFUSAL_DANGLING_LINK == (int)PG_R_DANGLING &&
	       (int)PG_REFUSAL_BAD_PATH == (int)PG_R_BAD_PATH &&
	       (int)PG_REFUSAL_EXHAUSTED == (int)PG_R_EXHAUSTED &&
	       (int)PG_REFUSAL_POLICY_INVALID == (int)PG_R_POLICY_INVALID &&
	       (int)PG_REFUSAL_SANDBOX_UNAVAILABLE == (int)PG_R_SANDBOX_UNAVAILABLE,
	       "enum pg_refusal_code and enum pg_code agree");

const char *pg_refusal_name(enum pg_refusal_code code)
{
	return pg_code_name((enum pg_code)code);
}
