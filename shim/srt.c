/* srt.c - sandbox-runtime settings to a pathgate policy.
 *
 * The two tools decide differently.  sandbox-runtime reads everything not
 * denied, and a later allowRead wins over any denyRead (allow-wins); it
 * writes nothing not allowed, and a denyWrite wins over any allowWrite
 * (deny-wins).  pathgate lets the deepest rule decide.  The conversion
 * keeps sandbox-runtime's answer wherever one pathgate rule can express
 * it: reads start from `read /`, a denyWrite becomes a final `read!` so no
 * deeper allow can widen it, an allowRead beneath a denyRead becomes the
 * deeper rule.  Where pathgate must answer differently, a warning says
 * so. */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "pathgate.h"
#include "srt.h"

enum srt_list { ALLOW_READ, DENY_READ, ALLOW_WRITE, DENY_WRITE, SRT_LISTS };

static const char *const list_key[SRT_LISTS] = {
	[ALLOW_READ] = "allowRead", [DENY_READ] = "denyRead",
	[ALLOW_WRITE] = "allowWrite", [DENY_WRITE] = "denyWrite",
};

struct srt_paths {
	char  **path[SRT_LISTS];
	size_t  n[SRT_LISTS];
};

/* "./a/b/" -> "a/b", "./" -> ".", "/x/" -> "/x". */
static char *normalise_entry(const char *s)
{
	size_t len;
	char *out;

	while (s[0] == '.' && s[1] == '/')
		s += 2;
	while (s[0] == '/' && s[1] == '/')
		s++;
	len = strlen(s);
	while (len > 1 && s[len - 1] == '/')
		len--;
	if (len == 0)
		return strdup(".");
	out = strndup(s, len);
	return out;
}

/* True when rule path A covers path B (B is A or lies beneath it).  A
 * relative and an absolute path are never related: the workspace's place
 * on the host is not known here. */
static bool covers(const char *a, const char *b)
{
	size_t n = strlen(a);

	if (strcmp(a, ".") == 0)
		return b[0] != '/' && b[0] != '~';
	if (strcmp(a, "/") == 0)
		return b[0] == '/';
	return strncmp(a, b, n) == 0 && (b[n] == '\0' || b[n] == '/');
}

static bool is_glob(const char *s)
{
	return strpbrk(s, "*?[") != NULL;
}

static const char *covered_by(const struct srt_paths *sp, enum srt_list l, const char *p)
{
	size_t i;

	for (i = 0; i < sp->n[l]; i++)
		if (covers(sp->path[l][i], p))
			return sp->path[l][i];
	return NULL;
}

static bool listed(const struct srt_paths *sp, enum srt_list l, const char *p)
{
	size_t i;

	for (i = 0; i < sp->n[l]; i++)
		if (strcmp(sp->path[l][i], p) == 0)
			return true;
	return false;
}

static void free_paths(struct srt_paths *sp)
{
	size_t l, i;

	for (l = 0; l < SRT_LISTS; l++) {
		for (i = 0; i < sp->n[l]; i++)
			free(sp->path[l][i]);
		free(sp->path[l]);
	}
}

static int read_list(json_object *fs, enum srt_list l, struct srt_paths *sp, FILE *warn)
{
	json_object *arr;
	size_t i, n;

	if (!json_object_object_get_ex(fs, list_key[l], &arr) || json_object_is_type(arr, json_type_null))
		return 0;
	if (!json_object_is_type(arr, json_type_array)) {
		fprintf(warn, "pathgate: srt: filesystem.%s is not an array\n", list_key[l]);
		return -1;
	}
	n = json_object_array_length(arr);
	sp->path[l] = calloc(n ? n : 1, sizeof(char *));
	if (!sp->path[l])
		return -1;
	for (i = 0; i < n; i++) {
		json_object *e = json_object_array_get_idx(arr, i);
		const char *s;

		if (!json_object_is_type(e, json_type_string)) {
			fprintf(warn, "pathgate: srt: filesystem.%s[%zu] is not a string\n", list_key[l], i);
			return -1;
		}
		s = json_object_get_string(e);
		if (!*s || strpbrk(s, "\n\r#")) {
			fprintf(warn, "pathgate: srt: filesystem.%s[%zu]: a path pathgate cannot write in a policy line\n",
				list_key[l], i);
			return -1;
		}
		sp->path[l][sp->n[l]] = normalise_entry(s);
		if (!sp->path[l][sp->n[l]])
			return -1;
		sp->n[l]++;
	}
	return 0;
}

static void warn_other_keys(json_object *top, json_object *fs, FILE *warn)
{
	json_object_object_foreach(top, key, val) {
		(void)val;
		if (strcmp(key, "filesystem") != 0)
			fprintf(warn, "pathgate: srt: warning: \"%s\" is ignored: pathgate confines files only "
				"(the envelope runs children with no network)\n", key);
	}
	json_object_object_foreach(fs, fkey, fval) {
		size_t l;
		bool known = false;

		(void)fval;
		for (l = 0; l < SRT_LISTS; l++)
			known |= strcmp(fkey, list_key[l]) == 0;
		if (!known)
			fprintf(warn, "pathgate: srt: warning: filesystem.%s is ignored: it has no pathgate equivalent\n",
				fkey);
	}
}

/* Where a denyRead lies in a region sandbox-runtime lets programs write,
 * or an allowRead would make it readable again from above. */
static void emit_read_denies(const struct srt_paths *sp, FILE *out, FILE *warn)
{
	size_t i;

	if (sp->n[DENY_READ])
		fputs("\n# denyRead: no access\n", out);
	for (i = 0; i < sp->n[DENY_READ]; i++) {
		const char *p = sp->path[DENY_READ][i];
		const char *w = covered_by(sp, ALLOW_WRITE, p);
		size_t j;

		fprintf(out, "deny %s\n", p);
		if (w && !covered_by(sp, DENY_WRITE, p))
			fprintf(warn, "pathgate: srt: warning: denyRead %s lies in the writable region allowWrite %s: "
				"sandbox-runtime still lets programs write it, pathgate's deny refuses writes too\n", p, w);
		for (j = 0; j < sp->n[ALLOW_READ]; j++) {
			const char *q = sp->path[ALLOW_READ][j];

			if (covers(q, p))
				fprintf(warn, "pathgate: srt: warning: allowRead %s covers denyRead %s: sandbox-runtime's "
					"reads are allow-wins, so %s was readable there; in pathgate the deeper rule "
					"decides and it stays denied (drop the deny if you meant it readable)\n", q, p, p);
		}
		if (is_glob(p))
			fprintf(warn, "pathgate: srt: warning: denyRead %s is a glob: pathgate matches '*' within "
				"one name and '**' across names, at the depth of the name matched\n", p);
	}
}

static void emit_write_denies(const struct srt_paths *sp, FILE *out, FILE *warn)
{
	size_t i, j;

	if (sp->n[DENY_WRITE])
		fputs("\n# denyWrite: deny-wins in sandbox-runtime, so final here: no deeper rule widens it\n", out);
	for (i = 0; i < sp->n[DENY_WRITE]; i++) {
		const char *d = sp->path[DENY_WRITE][i];

		if (covered_by(sp, DENY_READ, d) && !covered_by(sp, ALLOW_READ, d))
			continue;  /* its deny already refuses writes */
		fprintf(out, "read! %s\n", d);
		for (j = 0; j < sp->n[ALLOW_WRITE]; j++) {
			const char *w = sp->path[ALLOW_WRITE][j];

			if (covers(d, w) && strcmp(d, w) != 0)
				fprintf(warn, "pathgate: srt: note: allowWrite %s lies beneath denyWrite %s: read-only "
					"in both tools (a final read! here, deny-wins there)\n", w, d);
		}
	}
}

static void emit_read_allows(const struct srt_paths *sp, FILE *out, FILE *warn)
{
	size_t i;
	bool header = false;

	for (i = 0; i < sp->n[ALLOW_READ]; i++) {
		const char *q = sp->path[ALLOW_READ][i];
		const char *p = covered_by(sp, DENY_READ, q);
		bool writable;

		if (!p || strcmp(p, q) == 0)
			continue;  /* readable anyway, or warned about above */
		if (!header) {
			fputs("\n# allowRead beneath a denyRead: the deeper rule reopens it\n", out);
			header = true;
		}
		writable = covered_by(sp, ALLOW_WRITE, q) && !covered_by(sp, DENY_WRITE, q);
		fprintf(out, "%s %s\n", writable ? "write" : "read", q);
		if (writable)
			fprintf(warn, "pathgate: srt: note: allowRead %s is also writable (allowWrite): written as "
				"`write %s` so the carve-out keeps both\n", q, q);
	}
}

static int emit_policy(const char *file, const struct srt_paths *sp, FILE *out, FILE *warn)
{
	size_t i;

	fprintf(out, "# pathgate policy converted from the sandbox-runtime settings %s\n", file);
	fputs("# sandbox-runtime reads everything it does not deny\nread /\n", out);
	if (sp->n[ALLOW_WRITE])
		fputs("\n# allowWrite\n", out);
	for (i = 0; i < sp->n[ALLOW_WRITE]; i++) {
		const char *w = sp->path[ALLOW_WRITE][i];

		if (covered_by(sp, DENY_READ, w) && !listed(sp, DENY_READ, w) &&
		    !covered_by(sp, ALLOW_READ, w))
			fprintf(warn, "pathgate: srt: warning: allowWrite %s lies beneath denyRead %s: pathgate's deeper "
				"write rule makes it readable as well, sandbox-runtime kept it unreadable\n",
				w, covered_by(sp, DENY_READ, w));
		fprintf(out, "write %s\n", w);
	}
	emit_write_denies(sp, out, warn);
	emit_read_denies(sp, out, warn);
	emit_read_allows(sp, out, warn);
	fputs("pathgate: srt: note: sandbox-runtime also refuses writes to a built-in list of files "
	      "(shell start-up files, .git/hooks, ...); `pathgate policy --default` has pathgate's list: "
	      "merge its read-only rules if you relied on them\n", warn);
	return 0;
}

int srt_convert(const char *file, FILE *out, FILE *warn)
{
	struct srt_paths sp = { 0 };
	json_object *doc = json_object_from_file(file), *top = doc, *fs = NULL;
	size_t l;
	int rc = -1;

	if (!doc) {
		fprintf(warn, "pathgate: srt: %s: %s\n", file, json_util_get_last_err());
		return -1;
	}
	if (!json_object_is_type(top, json_type_object)) {
		fprintf(warn, "pathgate: srt: %s: not a JSON object\n", file);
		goto out;
	}
	/* sandbox-runtime's own file has "filesystem" at the top; an agent's
	 * settings file nests the same object under "sandbox". */
	if (!json_object_object_get_ex(top, "filesystem", &fs)) {
		json_object *sandbox;

		if (json_object_object_get_ex(top, "sandbox", &sandbox) &&
		    json_object_is_type(sandbox, json_type_object) &&
		    json_object_object_get_ex(sandbox, "filesystem", &fs))
			top = sandbox;
	}
	if (!fs || !json_object_is_type(fs, json_type_object)) {
		fprintf(warn, "pathgate: srt: %s: no \"filesystem\" object (nor \"sandbox\".\"filesystem\")\n",
			file);
		goto out;
	}
	for (l = 0; l < SRT_LISTS; l++)
		if (read_list(fs, (enum srt_list)l, &sp, warn) < 0)
			goto out;
	warn_other_keys(top, fs, warn);
	rc = emit_policy(file, &sp, out, warn);
out:
	free_paths(&sp);
	json_object_put(doc);
	return rc;
}
