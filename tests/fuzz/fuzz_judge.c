/* fuzz_judge.c - the compiled judge against the reference model under
 * libFuzzer.
 *
 * The input is lines: each line but the last is a rule, its first byte
 * choosing the access ((byte & 3) % 3: deny, read, write) and whether it is final
 * (byte & 4), the rest its path; the last line is a name.  Rules the
 * library refuses are skipped.  The name, normalised, and each of its
 * ancestors are judged by the compiled judge and by the model
 * (judge_model.c): access, deciding rule, depth and cap must be equal, and
 * so must the pin test.  Sizes are kept small so the model, exponential in
 * the number of '**', stays quick. */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "judge_model.h"
#include "path.h"
#include "policy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_RULES 16
#define MAX_DEPTH 12

#define FAIL(...) do { \
	fprintf(stderr, "fuzz_judge: compiled judge and model differ: " __VA_ARGS__); \
	fputc('\n', stderr); \
	abort(); \
} while (0)

static void render(const struct pg_rule *r, char *buf, size_t size)
{
	if (r)
		pg_rule_render(r, buf, size);
	else
		snprintf(buf, size, "(none)");
}

static void compare(const pg_policy *p, const char *name, size_t len)
{
	struct pg_judgement j, m;
	char a[PG_PATH_MAX + 64], b[PG_PATH_MAX + 64], n[PG_PATH_MAX + 1];

	memcpy(n, name, len);
	n[len] = '\0';
	pg_policy_judge(p, name, len, &j);
	model_judge(p, n, &m);
	if (j.access != m.access || j.rule != m.rule || j.depth != m.depth || j.cap != m.cap) {
		render(j.rule, a, sizeof(a));
		render(m.rule, b, sizeof(b));
		FAIL("'%s': judge %d by %s at %u, model %d by %s at %u", n, j.access, a, j.depth,
		     m.access, b, m.depth);
	}
	if (pg_policy_pinned(p, name, len) != model_pinned(p, n))
		FAIL("'%s': pinned %d, model %d", n, pg_policy_pinned(p, name, len),
		     model_pinned(p, n));
}

/* The name and each ancestor, as the resolver asks while it walks. */
static void compare_walk(const pg_policy *p, const struct pg_path *name)
{
	size_t i;

	compare(p, name->buf, name->len);
	for (i = name->len; i-- > 0;)
		if (name->buf[i] == '/')
			compare(p, name->buf, i ? i : (name->absolute ? 1 : 0));
	if (!name->absolute)
		compare(p, "", 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct pg_path name;
	const char *s = (const char *)data, *end = s + size;
	char line[PG_PATH_MAX + 1];
	pg_policy *p, *base = NULL, *bulk = NULL;
	unsigned rules = 0;
	size_t len;

	if (size > 4096)
		return 0;
	p = pg_policy_new();
	if (!p)
		abort();
	for (;;) {
		const char *eol = memchr(s, '\n', (size_t)(end - s));

		len = (size_t)((eol ? eol : end) - s);

		if (len > PG_PATH_MAX)
			len = PG_PATH_MAX;
		memcpy(line, s, len);
		line[len] = '\0';
		if (!eol)
			break;
		s = eol + 1;
		if (len < 2 || rules == MAX_RULES || memchr(line, '\0', len))
			continue;
		{
			enum pg_access access = (enum pg_access)((line[0] & 3) % 3);
			bool final = (line[0] & 4) && access != PG_WRITE;

			if (pg_policy_add_rule(p, access, final, line + 1, NULL, 0, false) == 0) {
				if (pg_policy_rule(p, pg_policy_rule_count(p) - 1)->depth > MAX_DEPTH)
					goto out;
				rules++;
			}
		}
	}
	if (len == 0 || memchr(line, '\0', len) ||
	    pg_path_normalise(line, true, &name) < 0 || name.ncomp > MAX_DEPTH)
		goto out;
	if (name.absolute && name.len == 0) {
		name.buf[0] = '/';
		name.buf[1] = '\0';
		name.len = 1;
	} else if (name.absolute) {
		memmove(name.buf + 1, name.buf, name.len + 1);
		name.buf[0] = '/';
		name.len++;
	}
	compare_walk(p, &name);
	/* And the policy built as a root builds its own: borrowing the rules
	 * of an uncompiled copy, compiled once, its arrays cut to size. */
	base = pg_policy_dup_rules(p);
	bulk = base ? pg_policy_extend(base) : NULL;
	if (!bulk || pg_policy_compile(bulk) < 0)
		abort();
	compare_walk(bulk, &name);
out:
	pg_policy_free(bulk);
	pg_policy_free(base);
	pg_policy_free(p);
	return 0;
}
