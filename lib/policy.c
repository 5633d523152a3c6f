/* policy.c - rules as written: the line format, adding rules one by one,
 * their normal form, copies and rendering.  The judge is in
 * policy-judge.c. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "glob.h"
#include "path.h"
#include "policy-internal.h"
#include "refusal.h"
#include "shim.h"

/* A policy file larger than this is refused (policy.invalid would hide
 * that the file is fine and merely huge: exhausted, EFBIG). */
#define POLICY_FILE_MAX (16u << 20)

/* ------------------------------------------------------------ components */

unsigned pg_split(const char *path, size_t len, const char **comp, size_t *clen,
		  unsigned max)
{
	size_t i = 0;
	unsigned n = 0;

	while (i < len) {
		size_t start;

		while (i < len && path[i] == '/')
			i++;
		if (i == len)
			break;
		start = i;
		while (i < len && path[i] != '/')
			i++;
		if (n == max)
			return (unsigned)-1;
		comp[n] = path + start;
		clen[n] = i - start;
		n++;
	}
	return n;
}

/* -------------------------------------------------------- the normal form */

/* A rule as prepared, before it joins a policy. */
struct prepared {
	enum pg_access access;
	bool           final;
	bool           absolute;
	bool           glob;
	unsigned       depth;
	unsigned       above;  /* pg_rule.above */
	size_t         len;
	char          *path;   /* PREPARED_MAX bytes of room */
};

#define PREPARED_MAX (PG_PATH_MAX + 2)

static const char *access_word(enum pg_access a)
{
	return a == PG_DENY ? "deny" : a == PG_READ ? "read" : "write";
}

/* Refuse as policy.invalid, prefixed with the line when there is one. */
__attribute__((format(printf, 3, 4)))
static int invalid(const char *file, unsigned line, const char *fmt, ...)
{
	char msg[240];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (line)
		return pg_refusef(PG_R_POLICY_INVALID, EINVAL, file, "line %u: %s", line, msg);
	return pg_refusef(PG_R_POLICY_INVALID, EINVAL, file, "%s", msg);
}

/* The home directory into BUF: $HOME when it is absolute, else the
 * password database. */
static const char *home_dir(char *buf, size_t size)
{
	const char *home = getenv("HOME");
	struct passwd pw, *found = NULL;

	if (home && home[0] == '/')
		return home;
	if (getpwuid_r(getuid(), &pw, buf, size, &found) != 0 || !found ||
	    !found->pw_dir || found->pw_dir[0] != '/')
		return NULL;
	return found->pw_dir;
}

/* "~" and "~/x" into BUF (PG_PATH_MAX + 1 bytes): the home directory. */
static int expand_tilde(const char *raw, size_t len, char *buf, const char *file,
			unsigned line)
{
	char pwbuf[4096];
	const char *home;
	size_t hlen;

	if (len == 0 || raw[0] != '~') {
		if (len > PG_PATH_MAX)
			return invalid(file, line, "a path over %d bytes", PG_PATH_MAX);
		memcpy(buf, raw, len);
		buf[len] = '\0';
		return 0;
	}
	if (len > 1 && raw[1] != '/')
		return invalid(file, line, "'%.*s': only '~' and '~/' are expanded",
			       (int)(len > 40 ? 40 : len), raw);
	home = home_dir(pwbuf, sizeof(pwbuf));
	if (!home)
		return invalid(file, line, "'~' but no home directory is known");
	hlen = strlen(home);
	if (hlen + len - 1 > PG_PATH_MAX)
		return invalid(file, line, "a path over %d bytes once '~' is expanded",
			       PG_PATH_MAX);
	memcpy(buf, home, hlen);
	memcpy(buf + hlen, raw + 1, len - 1);
	buf[hlen + len - 1] = '\0';
	return 0;
}

static bool is_dstar(const char *c, size_t len)
{
	return len == 2 && c[0] == '*' && c[1] == '*';
}

/* Within a component a run of '*' is one '*' ("a**b" is "a*b"); only a
 * whole "**" component spans components. */
static void append_component(struct prepared *out, const char *c, size_t n, bool dstar)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (!dstar && c[i] == '*' && i > 0 && c[i - 1] == '*')
			continue;
		out->path[out->len++] = c[i];
	}
}

/* Validate and normalise RAW (LEN bytes) into OUT.  Refuses with
 * policy.invalid naming LINE. */
static int prepare(enum pg_access access, bool final, const char *raw, size_t len,
		   const char *file, unsigned line, struct prepared *out)
{
	struct pg_path norm;   /* about 8 KiB: adds run at set-up, on a normal stack */
	char buf[PG_PATH_MAX + 1];
	const char *cursor, *comp;
	size_t clen;
	bool dotdot = false, raw_glob = false, prev_dstar = false;
	unsigned i;

	if ((unsigned)access > PG_WRITE)
		return invalid(file, line, "access %d is not deny, read or write", (int)access);
	if (final && access == PG_WRITE)
		return invalid(file, line, "'write!' means nothing: a final rule caps "
			       "the rules beneath it, and nothing is wider than write");
	if (!raw || len == 0)
		return invalid(file, line, "a rule without a path");
	if (memchr(raw, '\0', len))
		return invalid(file, line, "a NUL byte in the path");
	if (expand_tilde(raw, len, buf, file, line) < 0)
		return -1;
	if (pg_path_normalise(buf, true, &norm) < 0)
		return invalid(file, line, "'%.40s': %s", buf, pg_last_refusal()->rule);

	out->access = access;
	out->final = final;
	out->absolute = norm.absolute;
	out->glob = false;
	out->depth = 0;
	out->above = 0;
	out->len = 0;
	if (out->absolute)
		out->path[out->len++] = '/';
	/* Components again, from the raw text: '..' next to a glob has no
	 * lexical meaning, and '**' '**' is one '**'. */
	cursor = buf;
	while (pg_path_next(&cursor, &comp, &clen))
		if (clen == 2 && comp[0] == '.' && comp[1] == '.')
			dotdot = true;
		else if (pg_glob_is_pattern(comp, clen))
			raw_glob = true;
	for (i = 0; i < norm.ncomp; i++) {
		const char *c = norm.buf + norm.off[i];
		size_t n = pg_path_comp_len(&norm, i);
		bool dstar = is_dstar(c, n);

		if (pg_glob_is_pattern(c, n))
			out->glob = true;
		if (dstar && prev_dstar)
			continue;
		prev_dstar = dstar;
		if (out->depth)
			out->path[out->len++] = '/';
		append_component(out, c, n, dstar);
		out->depth++;
	}
	if (dotdot && raw_glob)
		return invalid(file, line, "'..' in a glob rule");
	if (out->absolute && out->len == 0)
		out->path[out->len++] = '/';
	out->path[out->len] = '\0';
	return 0;
}

/* ------------------------------------------------------------- the policy */

static const char *intern_file(pg_policy *p, const char *file)
{
	if (!file)
		return NULL;
	if (p->last_file && strcmp(p->last_file, file) == 0)
		return p->last_file;
	p->last_file = pg_arena_strndup(&p->arena, file, strlen(file));
	return p->last_file;
}

/* Room for the next rule's record: in the block while it lasts, else in
 * the arena with a pointer. */
static struct pg_rule *next_record(pg_policy *p)
{
	size_t own = p->nrules - p->nprefix;
	struct pg_rule *r;

	if (own < p->blockcap)
		return &p->block[own];
	if (own - p->blockcap == p->cap) {
		size_t cap = p->cap < 16 ? 16 : p->cap + p->cap / 2;  /* trimmed: maybe 1 */
		struct pg_rule **rules = realloc(p->rules, cap * sizeof(*rules));

		if (!rules)
			return NULL;
		p->rules = rules;
		p->cap = cap;
	}
	r = pg_arena_alloc_aligned(&p->arena, sizeof(*r), _Alignof(struct pg_rule));
	if (r)
		p->rules[own - p->blockcap] = r;
	return r;
}

/* Add the prepared rule; WRITTEN, when not NULL, is kept after its path. */
static int commit(pg_policy *p, const struct prepared *pr, const char *file,
		  unsigned line, bool derived, const char *written)
{
	size_t wlen = written ? strlen(written) + 1 : 0;
	struct pg_rule *r = next_record(p);
	char *text;

	if (!r)
		return -1;
	memset(r, 0, sizeof(*r));
	r->access = pr->access;
	r->final = pr->final;
	r->absolute = pr->absolute;
	r->glob = pr->glob;
	r->derived = derived;
	r->depth = pr->depth;
	r->above = pr->above;
	r->has_written = written != NULL;
	r->line = line;
	r->index = (uint32_t)p->nrules;
	text = pg_arena_alloc_bytes(&p->arena, pr->len + 1 + wlen);
	r->path = text;
	r->file = intern_file(p, file);
	if (!text || (file && !r->file))
		return -1;
	memcpy(text, pr->path, pr->len);
	text[pr->len] = '\0';
	if (written)
		memcpy(text + pr->len + 1, written, wlen);
	if (p->trie && pg_trie_insert(p, r) < 0)
		return -1;
	p->nrules++;
	return 0;
}

/* Undo a partly applied batch: the compiled form is rebuilt from the rules
 * that stay.  If even that fails, the policy denies everything. */
static void roll_back(pg_policy *p, size_t keep)
{
	size_t i;

	p->nrules = keep;
	if (!p->trie)
		return;
	pg_trie_free(p);
	if (pg_trie_new(p) < 0) {
		p->broken = true;
		return;
	}
	for (i = 0; i < keep; i++) {
		if (pg_trie_insert(p, pg_rule_at(p, i)) < 0) {
			p->broken = true;
			return;
		}
	}
}

pg_policy *pg_policy_new(void)
{
	pg_policy *p;

	pg_refusal_clear();
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	if (pg_trie_new(p) < 0) {
		free(p);
		return NULL;
	}
	return p;
}

void pg_policy_free(pg_policy *p)
{
	if (!p)
		return;
	pg_trie_free(p);
	pg_arena_free(&p->arena);
	free(p->rules);
	free(p->block);
	free(p);
}

size_t pg_policy_rule_count(const pg_policy *p)
{
	pg_refusal_clear();
	return p ? p->nrules : 0;
}

const struct pg_rule *pg_policy_rule(const pg_policy *p, size_t i)
{
	return p && i < p->nrules ? pg_rule_at(p, i) : NULL;
}

int pg_policy_add_rule(pg_policy *p, enum pg_access access, bool final,
		       const char *path, const char *file, unsigned line, bool derived)
{
	char scratch[PREPARED_MAX];
	struct prepared pr = { .path = scratch };
	size_t keep;

	if (!p)
		return invalid(NULL, 0, "a NULL policy");
	if (prepare(access, final, path, path ? strlen(path) : 0, file, line, &pr) < 0)
		return -1;
	keep = p->nrules;
	if (commit(p, &pr, file, line, derived, NULL) < 0) {
		roll_back(p, keep);
		errno = ENOMEM;
		return -1;
	}
	return 0;
}

int pg_policy_add(pg_policy *p, enum pg_access access, const char *path)
{
	pg_refusal_clear();
	return pg_policy_add_rule(p, access, false, path, NULL, 0, false);
}

int pg_policy_add_final(pg_policy *p, enum pg_access access, const char *path)
{
	pg_refusal_clear();
	return pg_policy_add_rule(p, access, true, path, NULL, 0, false);
}

/* -------------------------------------------------------------- parsing */

/* A checked line waiting for the rest of the text to be checked; its path
 * lives in the parse's own arena. */
struct parsed_line {
	struct prepared rule;
	unsigned        line;
};

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/* The next word of [*S, END): skips blanks; a word starting with '#'
 * begins a comment, which ends the line.  Returns false at the end. */
static bool next_word(const char **s, const char *end, const char **w, size_t *wlen)
{
	const char *c = *s;

	while (c < end && is_space(*c))
		c++;
	if (c == end || *c == '#') {
		*s = end;
		return false;
	}
	*w = c;
	while (c < end && !is_space(*c))
		c++;
	*wlen = (size_t)(c - *w);
	*s = c;
	return true;
}

static int rule_word(const char *w, size_t len, enum pg_access *access, bool *final)
{
	static const struct { const char *word; enum pg_access access; bool final; } words[] = {
		{ "write", PG_WRITE, false }, { "read", PG_READ, false },
		{ "deny", PG_DENY, false },   { "read!", PG_READ, true },
		{ "deny!", PG_DENY, true },   { "write!", PG_WRITE, true },
	};
	size_t i;

	for (i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
		if (strlen(words[i].word) == len && memcmp(words[i].word, w, len) == 0) {
			*access = words[i].access;
			*final = words[i].final;
			return 0;
		}
	}
	return -1;
}

/* One line: 0 and *HAS_RULE false for a blank or comment line. */
static int parse_line(const char *s, const char *end, const char *file, unsigned line,
		      struct prepared *out, bool *has_rule)
{
	const char *w, *pathw, *extra;
	size_t wlen, plen, elen;
	enum pg_access access;
	bool final;

	*has_rule = false;
	if (memchr(s, '\0', (size_t)(end - s)))
		return invalid(file, line, "a NUL byte");
	if (!next_word(&s, end, &w, &wlen))
		return 0;
	if (rule_word(w, wlen, &access, &final) < 0)
		return invalid(file, line, "unknown rule word '%.*s' (write, read, deny, "
			       "read!, deny!)", (int)(wlen > 40 ? 40 : wlen), w);
	if (!next_word(&s, end, &pathw, &plen))
		return invalid(file, line, "'%.*s' without a path", (int)wlen, w);
	if (next_word(&s, end, &extra, &elen))
		return invalid(file, line, "a word after the path: '%.*s' (paths "
			       "cannot hold blanks)", (int)(elen > 40 ? 40 : elen), extra);
	if (plen > PG_PATH_MAX)
		return invalid(file, line, "a path over %d bytes", PG_PATH_MAX);
	*has_rule = true;
	return prepare(access, final, pathw, plen, file, line, out);
}

/* Every error of the last parse on this thread, "FILE:LINE: message" a
 * line (pg_policy_errors): a user fixes a policy in one pass, not one
 * error a run.  Bounded: past it, one line says how many more there were. */
#define ERRORS_MAX 4096
static __thread char     errors[ERRORS_MAX];
static __thread size_t   errors_len;
static __thread unsigned errors_dropped;

struct first_error {
	unsigned line;
	char     msg[240];
};

static void errors_clear(void)
{
	errors[0] = '\0';
	errors_len = 0;
	errors_dropped = 0;
}

const char *pg_policy_errors(void)
{
	static __thread char out[ERRORS_MAX + 64];

	if (!errors_dropped)
		return errors;
	snprintf(out, sizeof(out), "%s(and %u more errors)\n", errors, errors_dropped);
	return out;
}

/* Record the refusal parse_line just made (its rule reads "line N: msg")
 * and keep the first for the refusal the parse ends with.  -1 only when
 * it is no policy error (out of memory: the parse stops there). */
static int note_error(const char *file, unsigned line, struct first_error *first)
{
	const char *rule = pg_last_refusal()->rule;
	const char *msg = rule ? strchr(rule, ':') : NULL;
	int n;

	if (pg_last_refusal()->code != PG_REFUSAL_POLICY_INVALID || !msg)
		return -1;
	msg += msg[1] == ' ' ? 2 : 1;
	if (!first->line) {
		first->line = line;
		snprintf(first->msg, sizeof(first->msg), "%s", msg);
	}
	n = snprintf(errors + errors_len, ERRORS_MAX - errors_len, "%s:%u: %s\n", file, line, msg);
	if (n < 0 || (size_t)n >= ERRORS_MAX - errors_len) {
		errors[errors_len] = '\0';
		errors_dropped++;
	} else {
		errors_len += (size_t)n;
	}
	return 0;
}

/* All or nothing: every line is checked before the first rule is added. */
static int parse_into(pg_policy *p, const char *text, size_t len, const char *file)
{
	char scratch[PREPARED_MAX];
	struct parsed_line *lines = NULL;
	struct pg_arena paths = { NULL };
	size_t n = 0, cap = 0, keep, i;
	const char *s = text, *end = text + len;
	struct first_error first = { 0, "" };
	unsigned line = 0;
	int ret = -1;

	errors_clear();

	while (s < end) {
		const char *eol = memchr(s, '\n', (size_t)(end - s));
		bool has_rule;

		if (!eol)
			eol = end;
		line++;
		if (n == cap) {
			struct parsed_line *more;

			cap = cap ? cap * 2 : 16;
			more = realloc(lines, cap * sizeof(*lines));
			if (!more) {
				errno = ENOMEM;
				goto out;
			}
			lines = more;
		}
		lines[n].rule.path = scratch;
		if (parse_line(s, eol, file, line, &lines[n].rule, &has_rule) < 0) {
			if (note_error(file, line, &first) < 0)
				goto out;
			has_rule = false;
		}
		if (has_rule) {
			lines[n].rule.path = pg_arena_strndup(&paths, scratch, lines[n].rule.len);
			if (!lines[n].rule.path) {
				errno = ENOMEM;
				goto out;
			}
			lines[n++].line = line;
		}
		s = eol + 1;
	}
	if (first.line) {
		/* The refusal stays the first error's, as it always was. */
		invalid(file, first.line, "%s", first.msg);
		goto out;
	}
	keep = p->nrules;
	for (i = 0; i < n; i++) {
		if (commit(p, &lines[i].rule, file, lines[i].line, false, NULL) < 0) {
			roll_back(p, keep);
			errno = ENOMEM;
			goto out;
		}
	}
	ret = 0;
out:
	pg_arena_free(&paths);
	free(lines);
	return ret;
}

int pg_policy_parse(pg_policy *p, const char *text, size_t len)
{
	pg_refusal_clear();
	errors_clear();
	if (!p)
		return invalid(NULL, 0, "a NULL policy");
	if (!text && len)
		return invalid(NULL, 0, "a NULL text");
	return parse_into(p, text ? text : "", len, "<string>");
}

int pg_policy_load(pg_policy *p, const char *file)
{
	struct stat st;
	char *text = NULL;
	size_t len = 0;
	ssize_t n;
	int fd, ret = -1;

	pg_refusal_clear();
	errors_clear();
	if (!p)
		return invalid(NULL, 0, "a NULL policy");
	if (!file || !file[0])
		return invalid(NULL, 0, "no policy file named");
	fd = open(file, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return pg_refusef(PG_R_POLICY_INVALID, errno, file, "cannot open %s: %m", file);
	if (fstat(fd, &st) < 0 || S_ISDIR(st.st_mode)) {
		pg_refusef(PG_R_POLICY_INVALID, S_ISDIR(st.st_mode) ? EISDIR : errno, file,
			   "%s is not a file", file);
		goto out;
	}
	text = malloc(POLICY_FILE_MAX + 1);
	if (!text) {
		errno = ENOMEM;
		goto out;
	}
	/* Read to the end, not to st_size: a pipe or /dev/stdin has none. */
	while ((n = read(fd, text + len, POLICY_FILE_MAX + 1 - len)) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			pg_refusef(PG_R_POLICY_INVALID, errno, file, "cannot read %s: %m", file);
			goto out;
		}
		len += (size_t)n;
		if (len > POLICY_FILE_MAX) {
			pg_refusef(PG_R_EXHAUSTED, EFBIG, file, "%s is over %u bytes",
				   file, POLICY_FILE_MAX);
			goto out;
		}
	}
	ret = parse_into(p, text, len, file);
out:
	free(text);
	close(fd);
	return ret;
}

/* ------------------------------------------------------ copies, rebasing */

/* Add rule R to DST with PATH (already in normal form) in place of its own. */
int pg_policy_copy_rule(pg_policy *dst, const struct pg_rule *r, const char *path,
			unsigned above)
{
	char scratch[PREPARED_MAX];
	struct prepared pr = { .path = scratch };
	size_t i, len = strlen(path);
	const char *written;
	const char *cursor = path, *c;
	size_t n;

	if (len > PG_PATH_MAX + 1)
		return invalid(NULL, 0, "a path over %d bytes", PG_PATH_MAX);
	pr.access = r->access;
	pr.final = r->final;
	pr.above = above;
	pr.absolute = path[0] == '/';
	pr.glob = false;
	pr.depth = 0;
	while (pg_path_next(&cursor, &c, &n)) {
		pr.depth++;
		if (pg_glob_is_pattern(c, n))
			pr.glob = true;
	}
	for (i = 0; i <= len; i++)
		pr.path[i] = path[i];
	pr.len = len;
	written = pg_rule_written(r);
	if (commit(dst, &pr, r->file, r->line, r->derived,
		   above || written ? (written ? written : r->path) : NULL) < 0)
		return errno = ENOMEM, -1;
	return 0;
}

/* ------------------------------------------------------------- rendering */

void pg_rule_render(const struct pg_rule *r, char *buf, size_t size)
{
	const char *path;

	if (!buf || size == 0)
		return;
	if (!r) {
		snprintf(buf, size, "no rule (deny)");
		return;
	}
	path = pg_rule_written(r);
	if (!path)
		path = r->path[0] ? r->path : ".";
	if (r->file && r->line)
		snprintf(buf, size, "%s%s %s (%s:%u)", access_word(r->access),
			 r->final ? "!" : "", path, r->file, r->line);
	else if (r->derived)
		snprintf(buf, size, "%s%s %s (derived)", access_word(r->access),
			 r->final ? "!" : "", path);
	else
		snprintf(buf, size, "%s%s %s", access_word(r->access), r->final ? "!" : "",
			 path);
}

/* ---- issue 12 (realwork): a text parsed under a name of its own, so the
 * embedded default's rules read "<default>:LINE" (declared in policy.h). */
int pg_policy_parse_named(pg_policy *p, const char *text, size_t len, const char *name)
{
	pg_refusal_clear();
	if (!p)
		return invalid(NULL, 0, "a NULL policy");
	if (!text && len)
		return invalid(NULL, 0, "a NULL text");
	return parse_into(p, text ? text : "", len, name ? name : "<string>");
}
