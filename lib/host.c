/* host.c - verdicts on names the core leaves to others (declared in
 * shim.h): absolute host paths, judged by the policy's absolute rules
 * where they land; workspace names that reach the host through an
 * absolute symlink (venv/bin/python3 -> /usr/bin/python3), judged where
 * they land; and names to create beneath directories that do not exist
 * yet.  The preload and pathgate check ask here, so both answer alike.
 *
 * Owned here: the host's side of a verdict.  The host is resolved with
 * realpath: what this answers is advice for cooperating programs, not a
 * boundary (the envelope is).  Inside the root every verdict is still
 * pg_check's. */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pathgate.h"
#include "shim.h"

/* Links from the workspace to the host and back, at most. */
#define HOST_HOPS 8

static int check_rel(pg_root *root, const char *rel, enum pg_op op, struct pg_verdict *out, int hops);

static void verdict_from_refusal(struct pg_verdict *out)
{
	const struct pg_refusal *r = pg_last_refusal();

	out->allowed = 0;
	out->name = r->name;
	out->err = r->name ? r->err : errno;
	snprintf(out->rule, sizeof(out->rule), "%s", r->name && r->rule ? r->rule : "");
}

static int plain_error(struct pg_verdict *out, int err)
{
	out->allowed = 0;
	out->name = NULL;
	out->err = err;
	out->rule[0] = '\0';
	errno = err;
	return -1;
}

/* An allowed verdict on NAME (root-relative or a host path), with the
 * rule that allows it. */
static int allowed_rule(pg_root *root, const char *name, struct pg_verdict *out)
{
	struct pg_explanation *e = calloc(1, sizeof(*e));

	out->allowed = 1;
	out->name = NULL;
	out->err = 0;
	out->rule[0] = '\0';
	if (e && pg_root_explain(root, name, e) == 0) {
		const char *rule = e->cap[0] ? e->cap : e->rule;
		size_t n = strnlen(rule, sizeof(out->rule) - 1);

		memcpy(out->rule, rule, n);
		out->rule[n] = '\0';
	}
	free(e);
	return 0;
}

/* The part of the host name ABS beneath the root ("." for the root), or
 * NULL when it lies outside. */
static const char *beneath(const pg_root *root, const char *abs)
{
	const char *top = pg_root_path(root);
	size_t n = strlen(top);

	if (strcmp(top, "/") == 0)
		return abs[1] ? abs + 1 : ".";
	if (strncmp(abs, top, n) != 0 || (abs[n] != '\0' && abs[n] != '/'))
		return NULL;
	return abs[n] ? abs + n + 1 : ".";
}

/* Where the host name ABS really leads, in OUT: every symlink resolved,
 * the last one too unless OP deletes the name itself; a last name that
 * does not exist is appended to its parent's real name.  -1 with errno
 * when its directory does not resolve. */
static int host_real(const char *abs, enum pg_op op, char *out)
{
	char parent[PATH_MAX];
	const char *base = strrchr(abs, '/');
	size_t plen;

	if (op != PG_OP_DELETE && realpath(abs, out))
		return 0;
	if (op != PG_OP_DELETE && errno != ENOENT)
		return -1;
	if (!base || !base[1] || strcmp(base, "/..") == 0 || strcmp(base, "/.") == 0)
		return realpath(abs, out) ? 0 : -1;
	plen = (size_t)(base - abs);
	snprintf(parent, sizeof(parent), "%.*s", (int)(plen ? plen : 1), plen ? abs : "/");
	if (!realpath(parent, out))
		return -1;
	if (strlen(out) + strlen(base) >= PATH_MAX) {
		errno = ENAMETOOLONG;
		return -1;
	}
	if (strcmp(out, "/") == 0)
		out[0] = '\0';
	strcat(out, base);
	return 0;
}

/* Fold ".", ".." and "//" of the absolute name S into OUT (PATH_MAX). */
static int fold(const char *s, char *out)
{
	size_t n = 0;

	while (*s) {
		size_t len;

		s += strspn(s, "/");
		len = strcspn(s, "/");
		if (len == 0 || (len == 1 && s[0] == '.')) {
			/* nothing */
		} else if (len == 2 && s[0] == '.' && s[1] == '.') {
			while (n > 0 && out[--n] != '/')
				;
		} else {
			if (n + 1 + len >= PATH_MAX) {
				errno = ENAMETOOLONG;
				return -1;
			}
			out[n++] = '/';
			memcpy(out + n, s, len);
			n += len;
		}
		s += len;
	}
	if (n == 0)
		out[n++] = '/';
	out[n] = '\0';
	return 0;
}

/* A host path: its name as written, then the name it reaches. */
static int check_abs(pg_root *root, const char *raw, enum pg_op op, struct pg_verdict *out, int hops)
{
	char abs[PATH_MAX], real[PATH_MAX];
	const char *tail;

	if (fold(raw, abs) < 0)
		return plain_error(out, errno);
	tail = beneath(root, abs);

	if (tail)
		return check_rel(root, tail, op, out, hops);
	if (pg_root_judge_name(root, abs, op, abs) < 0) {
		verdict_from_refusal(out);
		return -1;
	}
	if (host_real(abs, op, real) < 0)
		return plain_error(out, errno);
	if (op == PG_OP_READ && access(real, F_OK) < 0)
		return plain_error(out, errno);
	tail = beneath(root, real);
	if (tail)
		return hops > 0 ? check_rel(root, tail, op, out, hops - 1) : plain_error(out, ELOOP);
	if (strcmp(real, abs) != 0 && pg_root_judge_name(root, real, op, abs) < 0) {
		verdict_from_refusal(out);
		return -1;
	}
	return allowed_rule(root, real, out);
}

/* The host path REL reaches through the first absolute symlink on its
 * way (the link's target, then the rest of REL), in HOST; false when no
 * absolute symlink is crossed.  Each prefix is read by pg_readlink, so
 * the links before it are the library's to follow and judge. */
static bool through_absolute_link(pg_root *root, const char *rel, char *host, size_t size)
{
	char prefix[PG_PATH_MAX + 1], target[PATH_MAX];
	size_t len = strlen(rel), end = 0;

	if (len > PG_PATH_MAX)
		return false;
	while (end < len) {
		ssize_t n;

		end += strcspn(rel + end, "/");
		memcpy(prefix, rel, end);
		prefix[end] = '\0';
		n = pg_readlink(root, prefix, target, sizeof(target) - 1);
		if (n > 0 && target[0] == '/') {
			target[n] = '\0';
			return snprintf(host, size, "%s%s", target, rel + end) < (int)size;
		}
		if (n < 0 && pg_last_refusal()->name)
			return false;
		end += strspn(rel + end, "/");
	}
	return false;
}

/* A name to create whose parent does not exist yet (mkdir -p, then
 * create): the nearest existing directory must resolve for the library,
 * then every missing name from there down is judged for creation. */
static int check_create_deep(pg_root *root, const char *rel, struct pg_verdict *out)
{
	char name[PG_PATH_MAX + 1];
	char *slash;
	size_t len = strlen(rel), exists;

	if (len > PG_PATH_MAX)
		return plain_error(out, ENAMETOOLONG);
	memcpy(name, rel, len + 1);
	while ((slash = strrchr(name, '/'))) {
		*slash = '\0';
		if (pg_check(root, name, PG_OP_READ, out) == 0)
			break;
		if (out->name || out->err != ENOENT)
			return -1;
	}
	exists = slash ? strlen(name) : 0;
	memcpy(name, rel, len + 1);
	for (slash = name + exists; (slash = strchr(slash + 1, '/'));) {
		*slash = '\0';
		if (pg_root_judge_name(root, name, PG_OP_CREATE, rel) < 0) {
			verdict_from_refusal(out);
			return -1;
		}
		*slash = '/';
	}
	if (pg_root_judge_name(root, name, PG_OP_CREATE, rel) < 0) {
		verdict_from_refusal(out);
		return -1;
	}
	return allowed_rule(root, rel, out);
}

static int check_rel(pg_root *root, const char *rel, enum pg_op op, struct pg_verdict *out, int hops)
{
	char host[PATH_MAX];
	int err;

	if (pg_check(root, rel, op, out) == 0)
		return 0;
	err = errno;
	if (out->name && strcmp(out->name, "workspace.path-escape") == 0 && hops > 0 &&
	    through_absolute_link(root, rel, host, sizeof(host)))
		return check_abs(root, host, op, out, hops - 1);
	if (op == PG_OP_CREATE && !out->name && out->err == ENOENT && strchr(rel, '/'))
		return check_create_deep(root, rel, out);
	/* the walk above may have left another refusal: this one stands */
	if (pg_check(root, rel, op, out) == 0)
		return 0;
	errno = err;
	return -1;
}

int pg_root_check_host(pg_root *root, const char *raw, enum pg_op op, struct pg_verdict *out)
{
	struct pg_verdict scratch;

	if (!out)
		out = &scratch;
	memset(out, 0, sizeof(*out));
	if (!root || !raw || !*raw)
		return pg_check(root, raw, op, out);
	if (raw[0] == '/')
		return check_abs(root, raw, op, out, HOST_HOPS);
	return check_rel(root, raw, op, out, HOST_HOPS);
}
