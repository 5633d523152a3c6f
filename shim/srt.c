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
#include <stdarg.h>
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

/* The settings file: its name and text (for FILE:LINE:COL), where the
 * "filesystem" object sits ("sandbox"."filesystem" in an agent's
 * settings), and where messages go. */
struct srt_doc {
	const char *file;
	char       *text;
	size_t      len;
	const char *outer;  /* "sandbox", or NULL at the top */
	FILE       *warn;
};

/* FILE:LINE:COL: message, at the value PATH names beneath the object
 * that holds "filesystem". */
static void __attribute__((format(printf, 4, 5)))
at(const struct srt_doc *d, const struct srt_step *path, size_t depth, const char *fmt, ...)
{
	struct srt_step full[4];
	size_t n = 0, i;
	unsigned line, col;
	va_list ap;

	if (d->outer)
		full[n++] = (struct srt_step){ d->outer, 0 };
	for (i = 0; i < depth && n < 4; i++)
		full[n++] = path[i];
	srt_line_col(d->text, srt_offset(d->text, d->len, full, n), &line, &col);
	fprintf(d->warn, "%s:%u:%u: ", d->file, line, col);
	va_start(ap, fmt);
	vfprintf(d->warn, fmt, ap);
	va_end(ap);
	fputc('\n', d->warn);
}

static const char *type_name(json_object *o)
{
	switch (json_object_get_type(o)) {
	case json_type_null:    return "null";
	case json_type_boolean: return "a boolean";
	case json_type_double:
	case json_type_int:     return "a number";
	case json_type_object:  return "an object";
	case json_type_array:   return "an array";
	case json_type_string:  return "a string";
	}
	return "a value";
}

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

static int read_list(const struct srt_doc *d, json_object *fs, enum srt_list l, struct srt_paths *sp)
{
	json_object *arr;
	size_t i, n;

	if (!json_object_object_get_ex(fs, list_key[l], &arr) || json_object_is_type(arr, json_type_null))
		return 0;
	if (!json_object_is_type(arr, json_type_array)) {
		at(d, (struct srt_step[]){ { "filesystem", 0 }, { list_key[l], 0 } }, 2,
		   "filesystem.%s is %s, not an array of paths", list_key[l], type_name(arr));
		return -1;
	}
	n = json_object_array_length(arr);
	sp->path[l] = calloc(n ? n : 1, sizeof(char *));
	if (!sp->path[l])
		return -1;
	for (i = 0; i < n; i++) {
		json_object *e = json_object_array_get_idx(arr, i);
		struct srt_step where[] = { { "filesystem", 0 }, { list_key[l], 0 }, { NULL, i } };
		const char *s;

		if (!json_object_is_type(e, json_type_string)) {
			at(d, where, 3, "filesystem.%s[%zu] is %s, not a path string", list_key[l], i, type_name(e));
			return -1;
		}
		s = json_object_get_string(e);
		if (!*s || strpbrk(s, "\n\r#")) {
			at(d, where, 3, "filesystem.%s[%zu]: %s", list_key[l], i,
			   *s ? "a path with a newline or '#' cannot be written as a policy line" : "an empty path");
			return -1;
		}
		sp->path[l][sp->n[l]] = normalise_entry(s);
		if (!sp->path[l][sp->n[l]])
			return -1;
		sp->n[l]++;
	}
	return 0;
}

/* Why each setting sandbox-runtime knows outside the four lists is not
 * kept: its own reason, not one for all. */
struct srt_reason {
	const char *key;
	const char *why;
};

#define NO_NETWORK "the envelope runs the child with no network of the host's, and --no-envelope leaves it unfiltered"

static const struct srt_reason network_reasons[] = {
	{ "allowedDomains", "a domain allowlist cannot be kept: pathgate does not filter network traffic by "
	  "destination; " NO_NETWORK },
	{ "deniedDomains", "a domain denylist cannot be kept: pathgate does not filter network traffic by "
	  "destination; " NO_NETWORK },
	{ "allowUnixSockets", "access to chosen Unix sockets cannot be kept: the envelope refuses every new "
	  "AF_UNIX socket (seccomp), with no exception by socket path" },
	{ "allowAllUnixSockets", "Unix-socket access cannot be kept: the envelope refuses every new AF_UNIX "
	  "socket (seccomp)" },
	{ "allowLocalBinding", "binding host ports cannot be granted: " NO_NETWORK },
	{ "httpProxyPort", "pathgate runs no HTTP proxy: " NO_NETWORK },
	{ "socksProxyPort", "pathgate runs no SOCKS proxy: " NO_NETWORK },
	{ NULL, "pathgate does not filter network traffic: " NO_NETWORK },
};

static const struct srt_reason outer_reasons[] = {
	{ "ignoreViolations", "pathgate ignores no refusal: every refused call fails and can be logged "
	  "(--log), with no exemption by command or path" },
	{ "enableWeakerNestedSandbox", "pathgate chooses its envelope itself (bwrap, else Landlock) and runs "
	  "a weaker one only when asked (--accept-weaker)" },
	{ "enabled", "whether to confine is the caller's choice: pathgate run confines whatever it runs" },
	{ "excludedCommands", "pathgate confines every command run under it: no exception by command name" },
	{ "allowUnsandboxedCommands", "pathgate confines every command run under it: no way out of the "
	  "envelope is offered" },
	{ "autoAllowBashIfSandboxed", "an agent's permission setting, not a confinement rule" },
	{ NULL, "not a setting this conversion knows: pathgate converts the filesystem rules only" },
};

static const char *reason(const struct srt_reason *r, const char *key)
{
	for (; r->key; r++)
		if (strcmp(r->key, key) == 0)
			break;
	return r->why;
}

static void warn_network(const struct srt_doc *d, json_object *net)
{
	if (!json_object_is_type(net, json_type_object)) {
		at(d, (struct srt_step[]){ { "network", 0 } }, 1, "warning: \"network\" is ignored: %s",
		   reason(network_reasons, ""));
		return;
	}
	json_object_object_foreach(net, key, val) {
		(void)val;
		at(d, (struct srt_step[]){ { "network", 0 }, { key, 0 } }, 2,
		   "warning: network.%s is ignored: %s", key, reason(network_reasons, key));
	}
}

static void warn_other_keys(const struct srt_doc *d, json_object *top, json_object *fs)
{
	json_object_object_foreach(top, key, val) {
		if (strcmp(key, "filesystem") == 0)
			continue;
		if (strcmp(key, "network") == 0)
			warn_network(d, val);
		else
			at(d, (struct srt_step[]){ { key, 0 } }, 1, "warning: \"%s\" is ignored: %s", key,
			   reason(outer_reasons, key));
	}
	json_object_object_foreach(fs, fkey, fval) {
		size_t l;
		bool known = false;

		(void)fval;
		for (l = 0; l < SRT_LISTS; l++)
			known |= strcmp(fkey, list_key[l]) == 0;
		if (!known)
			at(d, (struct srt_step[]){ { "filesystem", 0 }, { fkey, 0 } }, 2,
			   "warning: filesystem.%s is ignored: this conversion knows allowRead, denyRead, "
			   "allowWrite and denyWrite only", fkey);
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

/* Said on every conversion, in the policy and on standard error. */
#define CANNOT_KEEP "not kept: network rules (domain allowlists and denylists, Unix-socket access, " \
	"local binding, proxy ports): pathgate confines files only; its envelope gives the child no network " \
	"of the host's and no new Unix socket, and --no-envelope filters neither"

static int emit_policy(const char *file, const struct srt_paths *sp, FILE *out, FILE *warn)
{
	size_t i;

	fprintf(out, "# pathgate policy converted from the sandbox-runtime settings %s\n", file);
	fprintf(out, "# %s\n", CANNOT_KEEP);
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
	fprintf(warn, "pathgate: srt: %s\n", CANNOT_KEEP);
	fputs("pathgate: srt: note: sandbox-runtime also refuses writes to a built-in list of files "
	      "(shell start-up files, .git/hooks, ...); `pathgate policy --default` has pathgate's list: "
	      "merge its read-only rules if you relied on them\n", warn);
	return 0;
}

/* The whole file, NUL-terminated, into D. */
static int slurp(struct srt_doc *d)
{
	FILE *f = fopen(d->file, "r");
	size_t cap = 0;

	if (!f) {
		fprintf(d->warn, "pathgate: srt: %s: %s\n", d->file, strerror(errno));
		return -1;
	}
	for (;;) {
		char *t;

		if (d->len + 4096 + 1 > cap) {
			cap = cap * 2 + 8192;
			if (!(t = realloc(d->text, cap)))
				break;
			d->text = t;
		}
		d->len += fread(d->text + d->len, 1, cap - d->len - 1, f);
		if (feof(f) || ferror(f))
			break;
	}
	if (!d->text || ferror(f) || !feof(f)) {
		fprintf(d->warn, "pathgate: srt: %s: %s\n", d->file, strerror(errno ? errno : EIO));
		fclose(f);
		return -1;
	}
	fclose(f);
	d->text[d->len] = '\0';
	return 0;
}

/* Strict JSON, as sandbox-runtime's JSON.parse reads it; an error at
 * the line and column where json-c stopped. */
static json_object *parse(const struct srt_doc *d)
{
	json_tokener *tok = json_tokener_new();
	json_object *doc = NULL;
	const char *why = NULL;
	size_t end = d->len;
	unsigned line, col;

	if (!tok)
		return NULL;
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
	if (strlen(d->text) != d->len) {
		end = strlen(d->text);
		why = "a NUL byte in the text";
	} else {
		doc = json_tokener_parse_ex(tok, d->text, (int)d->len);
		end = json_tokener_get_parse_end(tok);
		if (!doc && json_tokener_get_error(tok) == json_tokener_continue)
			why = "the text ends inside a value";
		else if (!doc)
			why = json_tokener_error_desc(json_tokener_get_error(tok));
		else if (d->text[end + strspn(d->text + end, " \t\r\n")] != '\0') {
			end += strspn(d->text + end, " \t\r\n");
			why = "text after the JSON value";
		}
	}
	json_tokener_free(tok);
	if (why) {
		json_object_put(doc);
		srt_line_col(d->text, end, &line, &col);
		fprintf(d->warn, "%s:%u:%u: %s\n", d->file, line, col, why);
		return NULL;
	}
	return doc;
}

int srt_convert(const char *file, FILE *out, FILE *warn)
{
	struct srt_paths sp = { 0 };
	struct srt_doc d = { .file = file, .warn = warn };
	json_object *doc = NULL, *top, *fs = NULL;
	size_t l;
	int rc = -1;

	if (slurp(&d) < 0 || !(doc = parse(&d)))
		goto out;
	top = doc;
	if (!json_object_is_type(top, json_type_object)) {
		at(&d, NULL, 0, "the settings are %s, not a JSON object", type_name(top));
		goto out;
	}
	/* sandbox-runtime's own file has "filesystem" at the top; an agent's
	 * settings file nests the same object under "sandbox". */
	if (!json_object_object_get_ex(top, "filesystem", &fs)) {
		json_object *sandbox;

		if (json_object_object_get_ex(top, "sandbox", &sandbox) &&
		    json_object_is_type(sandbox, json_type_object) &&
		    json_object_object_get_ex(sandbox, "filesystem", &fs)) {
			top = sandbox;
			d.outer = "sandbox";
		}
	}
	if (!fs) {
		at(&d, NULL, 0, "no \"filesystem\" object (nor \"sandbox\".\"filesystem\")");
		goto out;
	}
	if (!json_object_is_type(fs, json_type_object)) {
		at(&d, (struct srt_step[]){ { "filesystem", 0 } }, 1, "\"filesystem\" is %s, not an object",
		   type_name(fs));
		goto out;
	}
	for (l = 0; l < SRT_LISTS; l++)
		if (read_list(&d, fs, (enum srt_list)l, &sp) < 0)
			goto out;
	warn_other_keys(&d, top, fs);
	rc = emit_policy(file, &sp, out, warn);
out:
	free_paths(&sp);
	json_object_put(doc);
	free(d.text);
	return rc;
}
