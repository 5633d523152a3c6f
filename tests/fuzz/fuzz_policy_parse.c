/* fuzz_policy_parse.c - the policy parser under libFuzzer.
 *
 * The input is policy text.  Whatever it is, parsing never crashes and is
 * all or nothing: refused, the policy is exactly as before and the
 * refusal is policy.invalid naming a line; accepted, every rule is in
 * normal form, and writing the rules back out and parsing that gives the
 * same rules (the normal form is a fixed point).  Each accepted policy
 * then judges a few names against the reference model.
 * With -DPG_FUZZ_REPLAY (tests/fuzz/replay.c) it replays the corpus. */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "judge_model.h"
#include "policy.h"
#include "refusal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FAIL(...) do { \
	fprintf(stderr, "fuzz_policy_parse: invariant broken: " __VA_ARGS__); \
	fputc('\n', stderr); \
	abort(); \
} while (0)

static const char *const probes[] = {
	"", "a", "a/b", ".env", "x/.ENV", "a/b/c.pem", "/", "/etc/passwd",
	"/home/fuzz/.ssh/id", ".git/hooks/pre-commit", "caf\xc3\xa9", "cafe\xcc\x81",
};

static void check_rule(const struct pg_rule *r, size_t i)
{
	size_t len = strlen(r->path);

	if (r->index != i || r->line == 0 || !r->file)
		FAIL("rule %zu: index %zu line %u", i, (size_t)r->index, r->line);
	if (r->access > PG_WRITE || (r->final && r->access == PG_WRITE))
		FAIL("rule %zu: access %d final %d", i, r->access, r->final);
	if (r->absolute != (r->path[0] == '/'))
		FAIL("rule %zu: absolute flag of '%s'", i, r->path);
	if (len > PG_PATH_MAX + 1 || strstr(r->path, "//") || strstr(r->path, "/./") ||
	    (len > 1 && r->path[len - 1] == '/') || strcmp(r->path, ".") == 0 ||
	    strncmp(r->path, "./", 2) == 0)
		FAIL("rule %zu: '%s' is not in normal form", i, r->path);
}

/* Write P's rules back out as text. */
static char *render_all(const pg_policy *p, size_t *len)
{
	size_t n = pg_policy_rule_count(p), i, cap = n * (PG_PATH_MAX + 16) + 1, off = 0;
	char *text = malloc(cap);

	if (!text)
		abort();
	for (i = 0; i < n; i++) {
		const struct pg_rule *r = pg_policy_rule(p, i);
		const char *word = r->access == PG_DENY ? "deny" : r->access == PG_READ ? "read" : "write";

		/* "./" only where the text needs it: within the length limit. */
		bool dot = !r->path[0] || r->path[0] == '#' || r->path[0] == '~';

		off += (size_t)snprintf(text + off, cap - off, "%s%s %s%s\n", word,
					r->final ? "!" : "", dot ? "./" : "", r->path);
	}
	*len = off;
	return text;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	pg_policy *p, *again;
	const char *text = (const char *)data;
	size_t before, n, i, len;
	char *round;

	if (size > (1u << 16))
		return 0;
	setenv("HOME", "/home/fuzz", 1);
	p = pg_policy_new();
	if (!p || pg_policy_add(p, PG_WRITE, ".") < 0)
		abort();
	before = pg_policy_rule_count(p);
	errno = 0;
	if (pg_policy_parse(p, text, size) < 0) {
		const struct pg_refusal *why = pg_last_refusal();
		char rule[256];
		const char *name = why->name;
		int err = errno;

		/* Read the refusal first: every public call clears it. */
		snprintf(rule, sizeof(rule), "%s", why->rule ? why->rule : "");
		if (pg_policy_rule_count(p) != before)
			FAIL("a refused parse added %zu rules", pg_policy_rule_count(p) - before);
		if (err == ENOMEM) {
			pg_policy_free(p);
			return 0;
		}
		if (!name || strcmp(name, "policy.invalid") != 0 || err != EINVAL)
			FAIL("refused with %s, errno %d", name ? name : "(none)", err);
		if (strncmp(rule, "line ", 5) != 0)
			FAIL("the refusal names no line: %s", rule);
		pg_policy_free(p);
		return 0;
	}
	if (pg_last_refusal()->name)
		FAIL("an accepted parse left a refusal");
	n = pg_policy_rule_count(p);
	for (i = 1; i < n; i++)
		check_rule(pg_policy_rule(p, i), i);
	/* The normal form is a fixed point. */
	round = render_all(p, &len);
	again = pg_policy_new();
	if (pg_policy_parse(again, round, len) < 0)
		FAIL("rules written back do not parse: %s", pg_last_refusal()->rule);
	if (pg_policy_rule_count(again) != n)
		FAIL("%zu rules written back give %zu", n, pg_policy_rule_count(again));
	for (i = 0; i < n; i++) {
		const struct pg_rule *a = pg_policy_rule(p, i), *b = pg_policy_rule(again, i);

		if (strcmp(a->path, b->path) || a->access != b->access || a->final != b->final ||
		    a->glob != b->glob || a->depth != b->depth)
			FAIL("rule %zu '%s' written back is '%s'", i, a->path, b->path);
	}
	free(round);
	pg_policy_free(again);
	for (i = 0; i < n; i++)
		if (pg_policy_rule(p, i)->depth > 8)
			n = 0;   /* the model is exponential in '**': keep it quick */
	if (n > 0 && n <= 64) {
		for (i = 0; i < sizeof(probes) / sizeof(probes[0]); i++) {
			struct pg_judgement j, m;

			pg_policy_judge(p, probes[i], strlen(probes[i]), &j);
			model_judge(p, probes[i], &m);
			if (j.access != m.access || j.rule != m.rule || j.depth != m.depth ||
			    j.cap != m.cap)
				FAIL("'%s': judge %d, model %d", probes[i], j.access, m.access);
		}
	}
	pg_policy_free(p);
	return 0;
}
