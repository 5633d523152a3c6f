/* test_policy.c - the policy: its line format, the judge's semantics
 * (doc/design.md invariants 2, 5, 6), copies, rebasing and the default
 * profile. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "fuzz/judge_model.h"
#include "policy.h"
#include "refusal.h"

static pg_policy *policy_of(const char *text)
{
	pg_policy *p = pg_policy_new();

	assert_non_null(p);
	if (pg_policy_parse(p, text, strlen(text)) < 0)
		fail_msg("policy did not parse: %s", pg_last_refusal()->rule);
	return p;
}

/* Judge NAME and check the decision against the model as well. */
static enum pg_access judge(const pg_policy *p, const char *name, struct pg_judgement *j)
{
	struct pg_judgement m;

	pg_policy_judge(p, name, strlen(name), j);
	model_judge(p, name, &m);
	assert_int_equal(j->access, m.access);
	assert_ptr_equal(j->rule, m.rule);
	assert_int_equal(j->depth, m.depth);
	assert_ptr_equal(j->cap, m.cap);
	return j->access;
}

static const struct pg_rule *rule_of(const pg_policy *p, const char *name)
{
	struct pg_judgement j;

	judge(p, name, &j);
	return j.rule;
}

static enum pg_access access_of(const pg_policy *p, const char *name)
{
	struct pg_judgement j;

	return judge(p, name, &j);
}

static const char *decider(const pg_policy *p, const char *name, char *buf, size_t size)
{
	struct pg_judgement j;

	judge(p, name, &j);
	pg_rule_render(j.rule, buf, size);
	return buf;
}

static void expect_invalid_len(const char *text, size_t len, const char *message)
{
	pg_policy *p = pg_policy_new();

	assert_int_equal(pg_policy_parse(p, "write .\n", 8), 0);
	errno = 0;
	if (pg_policy_parse(p, text, len) != -1)
		fail_msg("'%.60s' parsed", text);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(pg_refusal_code(), PG_R_POLICY_INVALID);
	assert_string_equal(pg_last_refusal()->name, "policy.invalid");
	if (!strstr(pg_last_refusal()->rule, message))
		fail_msg("refusal '%s' does not say '%s'", pg_last_refusal()->rule, message);
	/* All or nothing: the one rule from before is all there is. */
	assert_int_equal(pg_policy_rule_count(p), 1);
	pg_policy_free(p);
}

static void expect_invalid(const char *text, const char *message)
{
	expect_invalid_len(text, strlen(text), message);
}

/* ----------------------------------------------------------- the format */

static void test_parse_lines(void **state)
{
	pg_policy *p;
	const struct pg_rule *r;

	(void)state;
	p = policy_of("# a comment\n"
		      "\n"
		      "write .\n"
		      "  read\t .git   # trailing comment\n"
		      "deny .env\r\n"
		      "deny! ./.ssh/\n"
		      "read! a//b/./c\n"
		      "read /usr/\n"
		      "read /\n"
		      "deny   a#b");
	assert_int_equal(pg_policy_rule_count(p), 8);
	r = pg_policy_rule(p, 0);
	assert_int_equal(r->access, PG_WRITE);
	assert_string_equal(r->path, "");
	assert_int_equal(r->depth, 0);
	assert_int_equal(r->line, 3);
	assert_string_equal(r->file, "<string>");
	r = pg_policy_rule(p, 1);
	assert_int_equal(r->access, PG_READ);
	assert_string_equal(r->path, ".git");
	assert_int_equal(r->line, 4);
	r = pg_policy_rule(p, 2);
	assert_string_equal(r->path, ".env");
	r = pg_policy_rule(p, 3);
	assert_true(r->final);
	assert_int_equal(r->access, PG_DENY);
	assert_string_equal(r->path, ".ssh");
	r = pg_policy_rule(p, 4);
	assert_true(r->final);
	assert_string_equal(r->path, "a/b/c");
	assert_int_equal(r->depth, 3);
	r = pg_policy_rule(p, 5);
	assert_true(r->absolute);
	assert_string_equal(r->path, "/usr");
	assert_int_equal(r->depth, 1);
	r = pg_policy_rule(p, 6);
	assert_string_equal(r->path, "/");
	assert_int_equal(r->depth, 0);
	r = pg_policy_rule(p, 7);
	assert_string_equal(r->path, "a#b");
	assert_int_equal(r->index, 7);
	pg_policy_free(p);
}

static void test_parse_errors_name_the_line(void **state)
{
	char longpath[PG_PATH_MAX + 40], longname[PG_NAME_MAX + 40];

	(void)state;
	expect_invalid("write .\ndeny .env\nalow x\n", "line 3: unknown rule word 'alow'");
	expect_invalid("deny\n", "line 1: 'deny' without a path");
	expect_invalid("deny # only a comment\n", "line 1: 'deny' without a path");
	expect_invalid("read a b\n", "line 1: a word after the path: 'b'");
	expect_invalid("write! .\n", "line 1: 'write!' means nothing");
	expect_invalid("Deny x\n", "unknown rule word 'Deny'");
	expect_invalid("read ../x\n", "line 1:");
	expect_invalid("read a/../../x\n", "'..' climbs above the root");
	expect_invalid("deny **/../x\n", "'..' in a glob rule");
	expect_invalid("deny ~bob/x\n", "only '~' and '~/' are expanded");
	expect_invalid_len("write .\n\n\ndeny a\0b\n", 19, "line 4: a NUL byte");
	memset(longpath, 'a', sizeof(longpath));
	memcpy(longpath, "deny ", 5);
	for (size_t i = 100; i < PG_PATH_MAX + 20; i += 100)
		longpath[i] = '/';
	longpath[PG_PATH_MAX + 20] = '\0';
	expect_invalid(longpath, "over 4000 bytes");
	memset(longname, 'n', sizeof(longname));
	memcpy(longname, "deny ", 5);
	longname[PG_NAME_MAX + 20] = '\0';
	expect_invalid(longname, "over 255 bytes");
}

static void test_add_refusals(void **state)
{
	pg_policy *p = pg_policy_new();

	(void)state;
	assert_int_equal(pg_policy_add_final(p, PG_WRITE, "x"), -1);
	assert_int_equal(pg_refusal_code(), PG_R_POLICY_INVALID);
	assert_int_equal(pg_policy_add(p, PG_READ, ""), -1);
	assert_int_equal(pg_policy_add(p, PG_READ, NULL), -1);
	assert_int_equal(pg_policy_add(p, (enum pg_access)7, "x"), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(pg_policy_rule_count(p), 0);
	assert_int_equal(pg_policy_add(p, PG_READ, "x"), 0);
	assert_null(pg_last_refusal()->name);
	assert_int_equal(pg_policy_rule_count(p), 1);
	pg_policy_free(p);
}

static void test_load_records_file_and_line(void **state)
{
	char dir[] = "/tmp/pg-policy-XXXXXX", file[64], buf[256];
	const char *text = "write .\n\n# secrets\ndeny .env\n";
	pg_policy *p;
	int fd;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(file, sizeof(file), "%s/policy", dir);
	fd = open(file, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	p = pg_policy_new();
	assert_int_equal(pg_policy_load(p, file), 0);
	assert_int_equal(pg_policy_rule_count(p), 2);
	assert_string_equal(pg_policy_rule(p, 1)->file, file);
	assert_int_equal(pg_policy_rule(p, 1)->line, 4);
	pg_rule_render(pg_policy_rule(p, 1), buf, sizeof(buf));
	snprintf(file + strlen(file), sizeof(file) - strlen(file), ":4)");
	assert_non_null(strstr(buf, "deny .env ("));
	assert_non_null(strstr(buf, file));
	assert_int_equal(pg_policy_load(p, "/nonexistent/policy"), -1);
	assert_int_equal(errno, ENOENT);
	assert_int_equal(pg_refusal_code(), PG_R_POLICY_INVALID);
	assert_int_equal(pg_policy_rule_count(p), 2);
	pg_policy_free(p);
	snprintf(file, sizeof(file), "%s/policy", dir);
	assert_int_equal(unlink(file), 0);
	assert_int_equal(rmdir(dir), 0);
}

static void test_load_bounds(void **state)
{
	char dir[] = "/tmp/pg-policy-XXXXXX", file[64];
	pg_policy *p = pg_policy_new();
	int fd;

	(void)state;
	assert_non_null(mkdtemp(dir));
	/* A directory is not a policy. */
	assert_int_equal(pg_policy_load(p, dir), -1);
	assert_int_equal(errno, EISDIR);
	assert_int_equal(pg_refusal_code(), PG_R_POLICY_INVALID);
	/* Over 16 MiB: exhausted, and nothing added (a sparse file). */
	snprintf(file, sizeof(file), "%s/huge", dir);
	fd = open(file, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "write .\n", 8), 8);
	assert_int_equal(ftruncate(fd, (16 << 20) + 1), 0);
	close(fd);
	assert_int_equal(pg_policy_load(p, file), -1);
	assert_int_equal(errno, EFBIG);
	assert_int_equal(pg_refusal_code(), PG_R_EXHAUSTED);
	assert_int_equal(pg_policy_rule_count(p), 0);
	/* Exactly 16 MiB of a valid policy (the rest blank lines) loads. */
	fd = open(file, O_WRONLY | O_TRUNC | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "write .\n", 8), 8);
	for (size_t left = (16 << 20) - 8; left > 0;) {
		static char blank[1 << 16];
		size_t n = left < sizeof(blank) ? left : sizeof(blank);

		memset(blank, '\n', sizeof(blank));
		assert_int_equal(write(fd, blank, n), (ssize_t)n);
		left -= n;
	}
	close(fd);
	assert_int_equal(pg_policy_load(p, file), 0);
	assert_int_equal(pg_policy_rule_count(p), 1);
	assert_int_equal(unlink(file), 0);
	assert_int_equal(rmdir(dir), 0);
	pg_policy_free(p);
}

static void test_render(void **state)
{
	pg_policy *p = pg_policy_new();
	char buf[128];

	(void)state;
	assert_int_equal(pg_policy_add(p, PG_DENY, ".env"), 0);
	assert_int_equal(pg_policy_add(p, PG_WRITE, "."), 0);
	assert_int_equal(pg_policy_add_rule(p, PG_READ, true, "x", "policy", 4, false), 0);
	pg_rule_render(pg_policy_rule(p, 0), buf, sizeof(buf));
	assert_string_equal(buf, "deny .env");
	pg_rule_render(pg_policy_rule(p, 1), buf, sizeof(buf));
	assert_string_equal(buf, "write .");
	pg_rule_render(pg_policy_rule(p, 2), buf, sizeof(buf));
	assert_string_equal(buf, "read! x (policy:4)");
	pg_policy_free(p);
}

/* ------------------------------------------------------------ the judge */

static void test_deepest_rule_decides(void **state)
{
	pg_policy *p = policy_of("write .\nread a\nwrite a/b\ndeny a/b/c\n");
	char buf[128];

	(void)state;
	assert_int_equal(access_of(p, ""), PG_WRITE);
	assert_int_equal(access_of(p, "x"), PG_WRITE);
	assert_int_equal(access_of(p, "a"), PG_READ);
	assert_int_equal(access_of(p, "a/x/y"), PG_READ);
	assert_int_equal(access_of(p, "a/b"), PG_WRITE);
	assert_int_equal(access_of(p, "a/b/x"), PG_WRITE);
	assert_int_equal(access_of(p, "a/b/c"), PG_DENY);
	assert_int_equal(access_of(p, "a/b/c/d/e"), PG_DENY);
	assert_int_equal(access_of(p, "a/bc"), PG_READ);
	assert_string_equal(decider(p, "a/b/z", buf, sizeof(buf)), "write a/b (<string>:3)");
	pg_policy_free(p);
}

static void test_equal_depth_stricter_wins(void **state)
{
	pg_policy *p = policy_of("write x\nread x\nwrite y\ndeny y\nread z\ndeny z\nwrite z\n");
	struct pg_judgement j;

	(void)state;
	assert_int_equal(judge(p, "x/f", &j), PG_READ);
	assert_int_equal(j.rule->index, 1);
	assert_int_equal(judge(p, "y", &j), PG_DENY);
	assert_int_equal(j.rule->index, 3);
	assert_int_equal(judge(p, "z/q", &j), PG_DENY);
	assert_int_equal(j.rule->index, 5);
	pg_policy_free(p);
}

static void test_no_rule_denies(void **state)
{
	pg_policy *p = policy_of("write src\n");
	struct pg_judgement j;

	(void)state;
	assert_int_equal(judge(p, "", &j), PG_DENY);
	assert_null(j.rule);
	assert_int_equal(judge(p, "README", &j), PG_DENY);
	assert_null(j.rule);
	assert_int_equal(judge(p, "src/x", &j), PG_WRITE);
	/* A relative rule says nothing of host paths, nor the other way. */
	assert_int_equal(judge(p, "/src", &j), PG_DENY);
	pg_policy_free(p);
	p = policy_of("write /src\n");
	assert_int_equal(judge(p, "src", &j), PG_DENY);
	assert_int_equal(judge(p, "/src/a", &j), PG_WRITE);
	assert_int_equal(judge(p, "/", &j), PG_DENY);
	pg_policy_free(p);
	p = pg_policy_new();
	assert_int_equal(judge(p, "", &j), PG_DENY);
	pg_policy_free(p);
}

static void test_final_caps_deeper_rules(void **state)
{
	pg_policy *p = policy_of("write .\ndeny! .ssh\nwrite .ssh/pub\nread! .git\n"
				 "write .git/x\ndeny .git/y\n");
	struct pg_judgement j;

	(void)state;
	assert_int_equal(judge(p, ".ssh/pub/k", &j), PG_DENY);
	assert_string_equal(j.rule->path, ".ssh/pub");
	assert_non_null(j.cap);
	assert_string_equal(j.cap->path, ".ssh");
	assert_int_equal(judge(p, ".git/x/f", &j), PG_READ);
	assert_string_equal(j.cap->path, ".git");
	/* A cap never widens: deeper and stricter still decides. */
	assert_int_equal(judge(p, ".git/y", &j), PG_DENY);
	assert_null(j.cap);
	assert_int_equal(judge(p, ".git/z", &j), PG_READ);
	assert_null(j.cap);
	pg_policy_free(p);
	/* Without the !, the deeper rule widens. */
	p = policy_of("write .\ndeny .ssh\nwrite .ssh/pub\n");
	assert_int_equal(judge(p, ".ssh/pub/k", &j), PG_WRITE);
	assert_null(j.cap);
	pg_policy_free(p);
}

static void test_deny_and_read_match_by_collision_class(void **state)
{
	pg_policy *p = policy_of("write .\ndeny .env\nread Docs\n"
				 "deny caf\xc3\xa9\n"              /* NFC e-acute */
				 "deny stra\xc3\x9f" "e\n");      /* sharp s */

	(void)state;
	assert_int_equal(access_of(p, ".env"), PG_DENY);
	assert_int_equal(access_of(p, ".ENV"), PG_DENY);
	assert_int_equal(access_of(p, ".Env/x"), PG_DENY);
	assert_int_equal(access_of(p, "docs/a"), PG_READ);
	assert_int_equal(access_of(p, "DOCS"), PG_READ);
	assert_int_equal(access_of(p, "cafe\xcc\x81"), PG_DENY);  /* NFD */
	assert_int_equal(access_of(p, "CAF\xc3\x89"), PG_DENY);   /* upper NFC */
	assert_int_equal(access_of(p, "CAFE\xcc\x81/x"), PG_DENY);
	assert_int_equal(access_of(p, "STRASSE"), PG_DENY);
	assert_int_equal(access_of(p, "cafe"), PG_WRITE);
	assert_int_equal(access_of(p, ".envx"), PG_WRITE);
	/* Not UTF-8: only ASCII folds, the other bytes compare as they are. */
	pg_policy_free(p);
	p = policy_of("write .\ndeny A\xff\n");
	assert_int_equal(access_of(p, "a\xff"), PG_DENY);
	assert_int_equal(access_of(p, "a\xfe"), PG_WRITE);
	pg_policy_free(p);
}

static void test_over_long_component_is_denied(void **state)
{
	pg_policy *p = policy_of("write .\n");
	struct pg_judgement j;
	char name[PG_NAME_MAX * 3 + 8];
	size_t i;

	(void)state;
	/* 256 two-byte characters: no such name exists; denied, never judged
	 * by the write rule alone because the fold could not be taken. */
	memcpy(name, "a/", 2);
	for (i = 0; i < PG_NAME_MAX + 1; i++)
		memcpy(name + 2 + 2 * i, "\xc3\x89", 2);
	name[2 + 2 * (PG_NAME_MAX + 1)] = '\0';
	assert_int_equal(pg_policy_judge(p, name, strlen(name), &j), PG_DENY);
	assert_null(j.rule);
	name[2 + 2 * 100] = '\0';
	assert_int_equal(pg_policy_judge(p, name, strlen(name), &j), PG_WRITE);
	pg_policy_free(p);
}

static void test_write_matches_as_stored(void **state)
{
	pg_policy *p = policy_of("read .\nwrite Foo\nwrite caf\xc3\xa9\n");

	(void)state;
	assert_int_equal(access_of(p, "Foo/x"), PG_WRITE);
	assert_int_equal(access_of(p, "foo/x"), PG_READ);
	assert_int_equal(access_of(p, "FOO"), PG_READ);
	assert_int_equal(access_of(p, "caf\xc3\xa9"), PG_WRITE);
	assert_int_equal(access_of(p, "cafe\xcc\x81"), PG_READ);
	pg_policy_free(p);
}

static void test_fold(void **state)
{
	char buf[64];
	size_t n;

	(void)state;
	n = pg_fold("AbC", 3, buf, sizeof(buf));
	assert_int_equal(n, 3);
	assert_memory_equal(buf, "abc", 3);
	n = pg_fold("\xc3\x89", 2, buf, sizeof(buf));       /* E-acute */
	assert_int_equal(n, 3);
	assert_memory_equal(buf, "e\xcc\x81", 3);
	n = pg_fold("\xc3\x9f", 2, buf, sizeof(buf));       /* sharp s */
	assert_int_equal(n, 2);
	assert_memory_equal(buf, "ss", 2);
	n = pg_fold("A\xc3", 2, buf, sizeof(buf));           /* truncated UTF-8 */
	assert_int_equal(n, 2);
	assert_memory_equal(buf, "a\xc3", 2);
	assert_int_equal(pg_fold("ABCD", 4, buf, 3), (size_t)-1);
	assert_int_equal(pg_fold("\xc3\x89\xc3\x89", 4, buf, 3), (size_t)-1);
}

/* ------------------------------------------------------------------ globs */

static void test_globs_cover_at_their_depth(void **state)
{
	pg_policy *p = policy_of("write .\ndeny **/*.pem\nread src/*.c\nwrite src/gen*\n"
				 "deny f?le\nread a/**/b\nwrite a/x/b/w\n");
	struct pg_judgement j;

	(void)state;
	assert_int_equal(judge(p, "a/b/c.pem", &j), PG_DENY);
	assert_int_equal(j.depth, 3);
	assert_int_equal(judge(p, "a/b/c.pem/under", &j), PG_DENY);
	assert_int_equal(j.depth, 3);
	assert_int_equal(judge(p, "c.PEM", &j), PG_DENY);        /* folded */
	assert_int_equal(j.depth, 1);
	assert_int_equal(access_of(p, "x/b/c.pemx"), PG_WRITE);
	assert_int_equal(access_of(p, "src/main.c"), PG_READ);
	assert_int_equal(access_of(p, "src/sub/main.c"), PG_WRITE); /* '*' stays in its component */
	assert_int_equal(access_of(p, "src/gen.c"), PG_READ);       /* tie: read > write */
	assert_int_equal(access_of(p, "src/generated/x.c"), PG_WRITE);
	assert_int_equal(access_of(p, "file"), PG_DENY);
	assert_int_equal(access_of(p, "fIle"), PG_DENY);
	assert_int_equal(access_of(p, "f\xc3\xa9le"), PG_DENY);    /* '?' is one character */
	assert_int_equal(access_of(p, "fle"), PG_WRITE);
	assert_int_equal(access_of(p, "fiile"), PG_WRITE);
	/* '**' spans zero or more components. */
	assert_int_equal(judge(p, "a/b", &j), PG_READ);
	assert_int_equal(j.depth, 2);
	assert_int_equal(judge(p, "a/x/y/b/z", &j), PG_READ);
	assert_int_equal(j.depth, 4);
	assert_int_equal(access_of(p, "a/x/b/w/f"), PG_WRITE);
	assert_int_equal(access_of(p, "a/x/y"), PG_WRITE);
	assert_int_equal(access_of(p, "x.pem"), PG_DENY);
	pg_policy_free(p);
}

static void test_glob_deepest_match_of_one_rule(void **state)
{
	/* One '**' rule can match a name at several depths: it covers at the
	 * deepest, so a write rule in between does not win. */
	pg_policy *p = policy_of("write .\ndeny **/x\nwrite x/x/ok\n");
	struct pg_judgement j;

	(void)state;
	assert_int_equal(judge(p, "x/x/ok/x/f", &j), PG_DENY);
	assert_int_equal(j.depth, 4);
	assert_int_equal(judge(p, "x/x/ok/f", &j), PG_WRITE);
	assert_int_equal(judge(p, "x/x/f", &j), PG_DENY);
	pg_policy_free(p);
}

static void test_star_runs_and_dstar_runs(void **state)
{
	pg_policy *p = policy_of("write .\ndeny a/**/**/b\ndeny c**d\n");

	(void)state;
	assert_string_equal(pg_policy_rule(p, 1)->path, "a/**/b");
	assert_int_equal(pg_policy_rule(p, 1)->depth, 3);
	assert_true(pg_policy_rule(p, 1)->glob);
	assert_string_equal(pg_policy_rule(p, 2)->path, "c*d");
	pg_policy_free(p);
	p = policy_of("deny a/**\ndeny **/**/x/**/**\nread /**/**\nread ***\n");
	assert_string_equal(pg_policy_rule(p, 0)->path, "a/**");
	assert_int_equal(pg_policy_rule(p, 0)->depth, 2);
	assert_string_equal(pg_policy_rule(p, 1)->path, "**/x/**");
	assert_string_equal(pg_policy_rule(p, 2)->path, "/**");
	assert_string_equal(pg_policy_rule(p, 3)->path, "*");
	assert_int_equal(access_of(p, "a"), PG_DENY);
	assert_int_equal(access_of(p, "q/x"), PG_DENY);
	assert_int_equal(access_of(p, "q"), PG_READ);
	assert_int_equal(access_of(p, "/"), PG_READ);
	pg_policy_free(p);
	p = policy_of("write .\ndeny a/**/**/b\ndeny c**d\n");
	assert_int_equal(access_of(p, "a/b"), PG_DENY);
	assert_int_equal(access_of(p, "c/d"), PG_WRITE);
	assert_int_equal(access_of(p, "cxyd"), PG_DENY);
	pg_policy_free(p);
}

static void test_absolute_and_relative(void **state)
{
	pg_policy *p = policy_of("read /\nwrite /tmp\ndeny /etc/shadow\nwrite .\ndeny /**/*.key\n");

	(void)state;
	assert_int_equal(access_of(p, "/"), PG_READ);
	assert_int_equal(access_of(p, "/usr/lib/libc.so"), PG_READ);
	assert_int_equal(access_of(p, "/tmp/x"), PG_WRITE);
	assert_int_equal(access_of(p, "/etc/shadow"), PG_DENY);
	assert_int_equal(access_of(p, "/ETC/Shadow"), PG_DENY);
	assert_int_equal(access_of(p, "/tmp/a.key"), PG_DENY);
	assert_int_equal(access_of(p, "etc/shadow"), PG_WRITE);
	assert_int_equal(access_of(p, "a.key"), PG_WRITE);
	assert_int_equal(access_of(p, "tmp"), PG_WRITE);
	pg_policy_free(p);
}

static void test_tilde_expands_from_home(void **state)
{
	char *old = getenv("HOME") ? strdup(getenv("HOME")) : NULL;
	pg_policy *p;

	(void)state;
	setenv("HOME", "/home/tester", 1);
	p = policy_of("deny ~/.ssh\nread ~\n");
	assert_string_equal(pg_policy_rule(p, 0)->path, "/home/tester/.ssh");
	assert_true(pg_policy_rule(p, 0)->absolute);
	assert_string_equal(pg_policy_rule(p, 1)->path, "/home/tester");
	assert_int_equal(access_of(p, "/home/tester/.ssh/id_rsa"), PG_DENY);
	assert_int_equal(access_of(p, "/home/tester/x"), PG_READ);
	pg_policy_free(p);
	/* Without $HOME, the password database. */
	unsetenv("HOME");
	p = policy_of("deny ~/.ssh\n");
	assert_true(pg_policy_rule(p, 0)->absolute);
	assert_non_null(strstr(pg_policy_rule(p, 0)->path, "/.ssh"));
	pg_policy_free(p);
	if (old) {
		setenv("HOME", old, 1);
		free(old);
	}
}

/* ------------------------------------------------------------------- pins */

static void expect_pinned(const pg_policy *p, const char *name, bool want)
{
	bool got = pg_policy_pinned(p, name, strlen(name));

	if (got != want)
		fail_msg("'%s' %s pinned", name, got ? "is" : "is not");
	assert_int_equal(model_pinned(p, name), want);
}

static void test_pins_seed_003(void **state)
{
	/* mv .git aside && mkdir .git && echo > .git/hooks/pre-commit must
	 * fail: .git is pinned; hooks itself is read-only, not pinned. */
	pg_policy *p = policy_of("write .\nread .git/hooks\ndeny a/b/c/.env\n");

	(void)state;
	expect_pinned(p, ".git", true);
	expect_pinned(p, ".GIT", true);            /* the deny's collision class */
	expect_pinned(p, ".git/hooks", false);
	expect_pinned(p, ".git/objects", false);
	expect_pinned(p, "", false);
	expect_pinned(p, "a", true);
	expect_pinned(p, "a/b", true);
	expect_pinned(p, "a/b/c", true);
	expect_pinned(p, "a/b/c/.env", false);
	expect_pinned(p, "a/x", false);
	expect_pinned(p, "src", false);
	pg_policy_free(p);
	/* Inside a read region nothing is pinned: it cannot be moved anyway. */
	p = policy_of("write .\nread .git\nread .git/hooks\n");
	expect_pinned(p, ".git", false);
	pg_policy_free(p);
	/* A nested write root inside a write region can be moved: pinned. */
	p = policy_of("write .\nwrite a\ndeny a/b/secret\n");
	expect_pinned(p, "a", true);
	expect_pinned(p, "a/b", true);
	pg_policy_free(p);
	/* The outermost write root itself is not: its parent is not write. */
	p = policy_of("read .\nwrite w\ndeny w/secret\n");
	expect_pinned(p, "w", false);
	pg_policy_free(p);
}

static void test_pins_of_globs(void **state)
{
	pg_policy *p = policy_of("write .\nread! **/.git/hooks\ndeny **/*.pem\n"
				 "read src/**/gen/out\n");

	(void)state;
	expect_pinned(p, ".git", true);
	expect_pinned(p, "vendor/lib/.git", true);
	expect_pinned(p, "vendor", false);        /* consumed by '**' only */
	expect_pinned(p, "vendor/lib", false);
	expect_pinned(p, "x.pem", false);         /* the rule ends there: not beneath */
	expect_pinned(p, "src", true);
	expect_pinned(p, "src/a", false);
	expect_pinned(p, "src/a/gen", true);
	pg_policy_free(p);
}

static void test_seed_004_layout(void **state)
{
	/* A write path inside a read carve-out inside a denied directory. */
	pg_policy *p = policy_of("read /\ndeny /home/user\nread /home/user/project\n"
				 "write /home/user/project/state\n");

	(void)state;
	assert_int_equal(access_of(p, "/home/user/.bashrc"), PG_DENY);
	assert_int_equal(access_of(p, "/home/user/project/src/a.c"), PG_READ);
	assert_int_equal(access_of(p, "/home/user/project/state/probe"), PG_WRITE);
	assert_int_equal(access_of(p, "/home/other"), PG_READ);
	expect_pinned(p, "/home/user/project/state", false);
	expect_pinned(p, "/home/user/project", false);
	pg_policy_free(p);
	p = policy_of("write /w\nread /w/a/ro\nwrite /w/a/ro/rw\ndeny /w/a/ro/rw/s\n");
	expect_pinned(p, "/w/a", true);
	expect_pinned(p, "/w/a/ro", false);
	expect_pinned(p, "/w/a/ro/rw", false);    /* its parent is read-only */
	expect_pinned(p, "/w", false);
	pg_policy_free(p);
}

/* --------------------------------------------------------- copies, roots */

static void test_dup_is_deep(void **state)
{
	pg_policy *p = policy_of("write .\ndeny! .env\nread **/*.c\n"), *d;

	(void)state;
	d = pg_policy_dup(p);
	assert_non_null(d);
	assert_int_equal(pg_policy_rule_count(d), 3);
	pg_policy_free(p);
	assert_int_equal(access_of(d, ".env"), PG_DENY);
	assert_int_equal(access_of(d, "a/b.c"), PG_READ);
	assert_int_equal(access_of(d, "x"), PG_WRITE);
	assert_string_equal(pg_policy_rule(d, 1)->file, "<string>");
	assert_int_equal(pg_policy_rule(d, 1)->line, 2);
	assert_true(pg_policy_rule(d, 1)->final);
	pg_policy_free(d);
}

/* A copy is compiled once and its arrays cut to size (one node list of
 * one pattern, one rule pointer); rules added after must still grow them. */
static void test_dup_grows_after_compile(void **state)
{
	pg_policy *p = policy_of("deny ?\n"), *d;
	char path[32];

	(void)state;
	d = pg_policy_dup(p);
	assert_non_null(d);
	pg_policy_free(p);
	for (int i = 0; i < 40; i++) {
		snprintf(path, sizeof(path), "d%d/?%d*", i, i);
		assert_int_equal(pg_policy_add(d, PG_READ, path), 0);
		snprintf(path, sizeof(path), "w%d", i);
		assert_int_equal(pg_policy_add(d, PG_WRITE, path), 0);
	}
	assert_int_equal(pg_policy_rule_count(d), 81);
	assert_int_equal(access_of(d, "x"), PG_DENY);
	assert_int_equal(access_of(d, "w39/x"), PG_WRITE);
	assert_int_equal(access_of(d, "d39/a39b"), PG_READ);
	assert_int_equal(access_of(d, "d39/ab39"), PG_DENY);
	assert_string_equal(pg_policy_rule(d, 80)->path, "w39");
	pg_policy_free(d);
}

/* The root's way: a policy borrowing another's rules, extended in place,
 * rebased and compiled once, judges as the copying pg_policy_for_root. */
static void test_extend_rebase_compile(void **state)
{
	pg_policy *p = policy_of("read /\nwrite /ws\ndeny! /ws/.env\ndeny /**/*.key\n");
	pg_policy *base = pg_policy_dup_rules(p), *e, *r;
	const char *names[] = { "", "src", ".env", ".ENV/x", "a/b.key", "b" };
	char a[128], b[128];

	(void)state;
	assert_non_null(base);
	pg_policy_free(p);
	/* Uncompiled, it denies everything (the model would say read). */
	assert_int_equal(pg_policy_judge(base, "/ws", 3, &(struct pg_judgement){ 0 }), PG_DENY);
	e = pg_policy_extend(base);
	r = pg_policy_dup(base);
	assert_non_null(e);
	assert_non_null(r);
	assert_int_equal(pg_policy_add(e, PG_WRITE, "/ws/b"), 0);
	assert_int_equal(pg_policy_add(r, PG_WRITE, "/ws/b"), 0);
	assert_int_equal(pg_policy_rebase(e, "/ws"), 0);
	assert_int_equal(pg_policy_rebase(r, "/ws"), 0);
	assert_int_equal(pg_policy_compile(e), 0);
	assert_int_equal(pg_policy_rule_count(e), pg_policy_rule_count(r));
	assert_ptr_equal(pg_policy_rule(e, 1), pg_policy_rule(base, 1));
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		assert_int_equal(access_of(e, names[i]), access_of(r, names[i]));
	for (size_t i = 0; i < pg_policy_rule_count(e); i++) {
		pg_rule_render(pg_policy_rule(e, i), a, sizeof(a));
		pg_rule_render(pg_policy_rule(r, i), b, sizeof(b));
		assert_string_equal(a, b);
	}
	pg_policy_free(e);
	pg_policy_free(r);
	pg_policy_free(base);
}

static void test_for_root_rebases_host_rules(void **state)
{
	pg_policy *p = policy_of("read /\nwrite /ws\ndeny! /ws/.env\nread /ws/docs/\n"
				 "deny /other\ndeny /**/*.key\nread /*/x*/y\n"), *r;
	size_t n;
	char buf[128];

	(void)state;
	r = pg_policy_for_root(p, "/ws");
	assert_non_null(r);
	n = pg_policy_rule_count(r);
	assert_true(n > pg_policy_rule_count(p));
	assert_int_equal(access_of(r, ""), PG_WRITE);
	assert_int_equal(access_of(r, "src"), PG_WRITE);
	assert_int_equal(access_of(r, ".env"), PG_DENY);
	assert_int_equal(access_of(r, ".ENV"), PG_DENY);
	assert_int_equal(access_of(r, "docs/a"), PG_READ);
	assert_int_equal(access_of(r, "other"), PG_WRITE);
	assert_int_equal(access_of(r, "a/b.key"), PG_DENY);
	assert_int_equal(access_of(r, "xa/y"), PG_READ);
	assert_int_equal(access_of(r, "xa/z"), PG_WRITE);
	/* The host rules stay. */
	assert_int_equal(access_of(r, "/ws/.env"), PG_DENY);
	assert_int_equal(access_of(r, "/usr"), PG_READ);
	/* Rebased rules keep their source. */
	{
		struct pg_judgement j;

		judge(r, ".env", &j);
		assert_false(j.rule->absolute);
		assert_true(j.rule->final);
		assert_int_equal(j.rule->line, 3);
		pg_rule_render(j.rule, buf, sizeof(buf));
		assert_string_equal(buf, "deny! .env (<string>:3)");
	}
	pg_policy_free(r);
	/* Trailing slashes and a root the rule only shares a prefix with. */
	r = pg_policy_for_root(p, "/ws2");
	/* Only "read /" covers the root: a rule above the root decides
	 * beneath it, and names itself as written. */
	assert_int_equal(access_of(r, ".env"), PG_READ);
	assert_non_null(rule_of(r, "x"));
	pg_rule_render(rule_of(r, "x"), buf, sizeof(buf));
	assert_string_equal(buf, "read / (<string>:1)");
	pg_policy_free(r);
	/* Host rules on ancestors of the root: the deepest ancestor decides
	 * ("deny /other" over "read /"). */
	r = pg_policy_for_root(p, "/other/ws");
	assert_int_equal(access_of(r, "x"), PG_DENY);
	pg_rule_render(rule_of(r, "x"), buf, sizeof(buf));
	assert_string_equal(buf, "deny /other (<string>:5)");
	pg_policy_free(r);
	pg_policy_free(p);
}

/* Issue 11.1: a final rule on an ancestor of the root caps the root and
 * everything beneath it, in the default profile too. */
static void test_final_rule_above_the_root_caps_it(void **state)
{
	char *old = getenv("HOME") ? strdup(getenv("HOME")) : NULL;
	pg_policy *p, *r;

	(void)state;
	p = policy_of("read /\nwrite .\ndeny! /home/u/.ssh\nread! /home/u/.config/git\n");
	r = pg_policy_for_root(p, "/home/u/.ssh/keys");
	assert_int_equal(access_of(r, "id_rsa"), PG_DENY);
	assert_int_equal(access_of(r, ""), PG_DENY);
	pg_policy_free(r);
	r = pg_policy_for_root(p, "/home/u/.config/git/sub");
	assert_int_equal(access_of(r, "config"), PG_READ);
	pg_policy_free(r);
	/* A non-final rule above loses to every rule at or beneath the root. */
	r = pg_policy_for_root(p, "/srv/ws");
	assert_int_equal(access_of(r, "x"), PG_WRITE);
	pg_policy_free(r);
	pg_policy_free(p);
	setenv("HOME", "/home/u", 1);
	p = policy_of(pg_default_policy_text);
	r = pg_policy_for_root(p, "/home/u/.ssh/keys");
	assert_int_equal(access_of(r, "id_ed25519"), PG_DENY);
	pg_policy_free(r);
	r = pg_policy_for_root(p, "/home/u/.config/git/x");
	assert_int_equal(access_of(r, "config"), PG_READ);
	pg_policy_free(r);
	pg_policy_free(p);
	if (old)
		setenv("HOME", old, 1);
	else
		unsetenv("HOME");
	free(old);
}

/* ------------------------------------------------------ the default policy */

static void test_default_policy(void **state)
{
	char *old = getenv("HOME") ? strdup(getenv("HOME")) : NULL;
	pg_policy *p, *r;
	size_t i;

	(void)state;
	setenv("HOME", "/home/u", 1);
	p = policy_of(pg_default_policy_text);
	assert_true(pg_policy_rule_count(p) > 40);
	/* Every rule line says why. */
	for (const char *l = pg_default_policy_text; *l; l = strchr(l, '\n') + 1) {
		if (strncmp(l, "deny! ", 6) == 0 || strncmp(l, "read! ", 6) == 0) {
			const char *eol = strchr(l, '\n'), *hash = strchr(l, '#');

			if (!hash || hash > eol)
				fail_msg("default rule without a reason: %.*s", (int)(eol - l), l);
		}
	}
	r = pg_policy_for_root(p, "/home/u/proj");
	assert_non_null(r);
	assert_int_equal(access_of(r, "src/main.c"), PG_WRITE);
	assert_int_equal(access_of(r, ".env"), PG_DENY);
	assert_int_equal(access_of(r, ".ENV"), PG_DENY);
	assert_int_equal(access_of(r, "sub/dir/.env"), PG_DENY);
	assert_int_equal(access_of(r, ".env.local"), PG_DENY);
	assert_int_equal(access_of(r, "a/b/key.pem"), PG_DENY);
	assert_int_equal(access_of(r, "server.key"), PG_DENY);
	assert_int_equal(access_of(r, ".git/hooks/pre-commit"), PG_READ);
	assert_int_equal(access_of(r, "vendor/x/.git/config"), PG_READ);
	assert_int_equal(access_of(r, ".git/objects/ab"), PG_WRITE);
	assert_int_equal(access_of(r, ".vscode/tasks.json"), PG_READ);
	assert_int_equal(access_of(r, ".mcp.json"), PG_READ);
	expect_pinned(r, ".git", true);
	assert_int_equal(access_of(r, "/home/u/.ssh/id_rsa"), PG_DENY);
	assert_int_equal(access_of(r, "/home/u/.aws/credentials"), PG_DENY);
	assert_int_equal(access_of(r, "/home/u/.docker/config.json"), PG_DENY);
	assert_int_equal(access_of(r, "/home/u/.bashrc"), PG_READ);
	assert_int_equal(access_of(r, "/usr/bin/cc"), PG_READ);
	assert_int_equal(access_of(r, "/tmp/build.o"), PG_WRITE);
	assert_int_equal(access_of(r, "/etc/passwd"), PG_READ);
	pg_policy_free(r);
	/* A workspace that is the home directory: home's rules rebase. */
	r = pg_policy_for_root(p, "/home/u");
	assert_int_equal(access_of(r, ".ssh/id_rsa"), PG_DENY);
	assert_int_equal(access_of(r, ".bashrc"), PG_READ);
	assert_int_equal(access_of(r, ".cargo/credentials.toml"), PG_DENY);
	assert_int_equal(access_of(r, "proj/a.c"), PG_WRITE);
	pg_policy_free(r);
	/* Final: a user rule beneath cannot open them again. */
	{
		const char *more = "write .ssh\nwrite .git/hooks\nwrite sub/.env\n";

		assert_int_equal(pg_policy_parse(p, more, strlen(more)), 0);
	}
	r = pg_policy_for_root(p, "/home/u");
	assert_int_equal(access_of(r, ".git/hooks/x"), PG_READ);
	assert_int_equal(access_of(r, "sub/.env"), PG_DENY);
	pg_policy_free(r);
	for (i = 0; i < pg_policy_rule_count(p); i++)
		assert_true(pg_policy_rule(p, i)->line > 0);
	pg_policy_free(p);
	if (old) {
		setenv("HOME", old, 1);
		free(old);
	} else {
		unsetenv("HOME");
	}
}

/* ------------------------------------------------ against the reference */

static const char *const pattern_parts[] = {
	"a", "b", "A", "ab", ".env", ".ENV", "caf\xc3\xa9", "cafe\xcc\x81", "CAF\xc3\x89",
	"*", "?", "**", "*b", "a*", "a?b", "*a*", "?*", "*\xc3\xa9", "x", "\xff",
};
static const char *const name_parts[] = {
	"a", "b", "A", "B", "ab", "aab", "axb", "ba", ".env", ".Env", "caf\xc3\xa9",
	"cafe\xcc\x81", "CAFE\xcc\x81", "x", "\xff", "\xc3\xa9", "e\xcc\x81", "a\xc3\xa9" "b",
};

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

static unsigned rnd(unsigned *seed, unsigned n)
{
	*seed = *seed * 1103515245u + 12345u;
	return (*seed >> 16) % n;
}

static void random_path(unsigned *seed, const char *const *parts, size_t nparts,
			bool absolute, unsigned maxcomp, char *buf, size_t size)
{
	unsigned n = rnd(seed, maxcomp + 1), i;
	size_t len = 0;

	buf[0] = '\0';
	if (absolute)
		len += (size_t)snprintf(buf + len, size - len, "/");
	for (i = 0; i < n; i++)
		len += (size_t)snprintf(buf + len, size - len, "%s%s",
					i && len > (absolute ? 1u : 0u) ? "/" : "",
					parts[rnd(seed, (unsigned)nparts)]);
}

static void test_judge_agrees_with_model(void **state)
{
	unsigned seed = 20261130, round, checks = 0;

	(void)state;
	for (round = 0; round < 3000; round++) {
		pg_policy *p = pg_policy_new();
		unsigned nrules = 1 + rnd(&seed, 10), k;
		char path[256];

		for (k = 0; k < nrules; k++) {
			enum pg_access a = (enum pg_access)rnd(&seed, 3);
			bool final = a != PG_WRITE && rnd(&seed, 3) == 0;

			random_path(&seed, pattern_parts, NELEM(pattern_parts), rnd(&seed, 4) == 0,
				    4, path, sizeof(path));
			if (!path[0])
				snprintf(path, sizeof(path), ".");
			if (pg_policy_add_rule(p, a, final, path, NULL, 0, false) < 0)
				fail_msg("rule '%s' refused: %s", path, pg_last_refusal()->rule);
		}
		for (k = 0; k < 30; k++) {
			bool absolute = rnd(&seed, 4) == 0;

			random_path(&seed, name_parts, NELEM(name_parts), absolute, 6, path,
				    sizeof(path));
			access_of(p, path);    /* checks against the model */
			expect_pinned(p, path, model_pinned(p, path));
			checks++;
		}
		pg_policy_free(p);
	}
	print_message("%u names judged by both\n", checks);
}

/* Matches that outgrow the compiled judge's state array: the rule-by-rule
 * fallback must give the same answers. */
static void test_many_simultaneous_matches(void **state)
{
	pg_policy *p = pg_policy_new();
	char pat[300], name[300];
	unsigned i;

	(void)state;
	assert_int_equal(pg_policy_add(p, PG_WRITE, "."), 0);
	for (i = 1; i <= 250; i++) {
		memset(pat, 'a', i);
		pat[i] = '*';
		snprintf(pat + i + 1, sizeof(pat) - i - 1, "/d%u", i);
		assert_int_equal(pg_policy_add(p, i % 2 ? PG_READ : PG_DENY, pat), 0);
		memset(pat, 'a', i);
		snprintf(pat + i, sizeof(pat) - i, "?*/**/w%u", i);
		assert_int_equal(pg_policy_add(p, PG_WRITE, pat), 0);
	}
	memset(name, 'a', 255);
	name[255] = '\0';
	assert_int_equal(access_of(p, name), PG_WRITE);
	snprintf(name + 255, sizeof(name) - 255, "/d7/x");
	assert_int_equal(access_of(p, name), PG_READ);
	snprintf(name + 255, sizeof(name) - 255, "/d8");
	assert_int_equal(access_of(p, name), PG_DENY);
	snprintf(name + 255, sizeof(name) - 255, "/q/w9/x");
	assert_int_equal(access_of(p, name), PG_WRITE);
	expect_pinned(p, "aaaa", true);
	name[255] = '\0';
	expect_pinned(p, name, true);
	pg_policy_free(p);
}

/* Many general patterns under one node: reached through their literal
 * prefix or suffix, several sharing one, each still matched whole. */
static void test_many_general_globs_under_one_node(void **state)
{
	pg_policy *p = pg_policy_new();
	char pat[64];
	unsigned i;

	(void)state;
	assert_int_equal(pg_policy_add(p, PG_WRITE, "."), 0);
	for (i = 0; i < 400; i++) {
		snprintf(pat, sizeof(pat), "src/**/z%u?.c", i);
		assert_int_equal(pg_policy_add(p, PG_DENY, pat), 0);
		snprintf(pat, sizeof(pat), "**/x?%u.H", i);
		assert_int_equal(pg_policy_add(p, PG_READ, pat), 0);
		snprintf(pat, sizeof(pat), "q/z*%u*", i % 7);       /* shared prefix "z" */
		assert_int_equal(pg_policy_add(p, i % 2 ? PG_READ : PG_DENY, pat), 0);
	}
	assert_int_equal(pg_policy_add(p, PG_READ, "q/*a*"), 0);
	assert_int_equal(access_of(p, "src/a/b/z17q.c"), PG_DENY);
	assert_int_equal(access_of(p, "src/z399\xc3\xa9.c"), PG_DENY);
	assert_int_equal(access_of(p, "src/z.c"), PG_WRITE);
	assert_int_equal(access_of(p, "src/z17qq.c"), PG_WRITE);
	assert_int_equal(access_of(p, "a/xy123.h"), PG_READ);
	assert_int_equal(access_of(p, "a/XY123.H/f"), PG_READ);
	assert_int_equal(access_of(p, "a/xy1234.h"), PG_WRITE);
	assert_int_equal(access_of(p, "q/z5"), PG_DENY);   /* read and deny tie: deny */
	assert_int_equal(access_of(p, "q/z4"), PG_DENY);
	assert_int_equal(access_of(p, "q/zz"), PG_WRITE);
	assert_int_equal(access_of(p, "q/bab"), PG_READ);
	pg_policy_free(p);
}

struct judge_thread {
	const pg_policy *p;
	unsigned         mismatches;
};

static const char *const thread_names[] = {
	"a/b/c.pem", ".env", "src/x.c", "x/y/z", ".git/hooks/pre-commit", "/etc/passwd",
	"/tmp/q", "A/B", "deep/er/.ENV",
};

static void *judge_loop(void *arg)
{
	struct judge_thread *t = arg;
	struct pg_judgement want[NELEM(thread_names)], got;
	unsigned i, k;

	for (k = 0; k < NELEM(thread_names); k++)
		pg_policy_judge(t->p, thread_names[k], strlen(thread_names[k]), &want[k]);
	for (i = 0; i < 20000; i++) {
		k = i % NELEM(thread_names);
		pg_policy_judge(t->p, thread_names[k], strlen(thread_names[k]), &got);
		if (got.access != want[k].access || got.rule != want[k].rule)
			t->mismatches++;
	}
	return NULL;
}

static void test_judges_from_many_threads(void **state)
{
	pg_policy *p = policy_of("write .\nread /\nwrite /tmp\ndeny **/*.pem\ndeny! **/.env\n"
				 "read! **/.git/hooks\nread src\n");
	struct judge_thread t[4];
	pthread_t tid[4];
	unsigned i;

	(void)state;
	for (i = 0; i < 4; i++) {
		t[i].p = p;
		t[i].mismatches = 0;
		assert_int_equal(pthread_create(&tid[i], NULL, judge_loop, &t[i]), 0);
	}
	for (i = 0; i < 4; i++) {
		assert_int_equal(pthread_join(tid[i], NULL), 0);
		assert_int_equal(t[i].mismatches, 0);
	}
	pg_policy_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_lines),
		cmocka_unit_test(test_parse_errors_name_the_line),
		cmocka_unit_test(test_add_refusals),
		cmocka_unit_test(test_load_records_file_and_line),
		cmocka_unit_test(test_load_bounds),
		cmocka_unit_test(test_render),
		cmocka_unit_test(test_deepest_rule_decides),
		cmocka_unit_test(test_equal_depth_stricter_wins),
		cmocka_unit_test(test_no_rule_denies),
		cmocka_unit_test(test_final_caps_deeper_rules),
		cmocka_unit_test(test_deny_and_read_match_by_collision_class),
		cmocka_unit_test(test_write_matches_as_stored),
		cmocka_unit_test(test_over_long_component_is_denied),
		cmocka_unit_test(test_fold),
		cmocka_unit_test(test_globs_cover_at_their_depth),
		cmocka_unit_test(test_glob_deepest_match_of_one_rule),
		cmocka_unit_test(test_star_runs_and_dstar_runs),
		cmocka_unit_test(test_absolute_and_relative),
		cmocka_unit_test(test_tilde_expands_from_home),
		cmocka_unit_test(test_pins_seed_003),
		cmocka_unit_test(test_pins_of_globs),
		cmocka_unit_test(test_seed_004_layout),
		cmocka_unit_test(test_dup_is_deep),
		cmocka_unit_test(test_dup_grows_after_compile),
		cmocka_unit_test(test_extend_rebase_compile),
		cmocka_unit_test(test_for_root_rebases_host_rules),
		cmocka_unit_test(test_final_rule_above_the_root_caps_it),
		cmocka_unit_test(test_default_policy),
		cmocka_unit_test(test_judge_agrees_with_model),
		cmocka_unit_test(test_many_simultaneous_matches),
		cmocka_unit_test(test_many_general_globs_under_one_node),
		cmocka_unit_test(test_judges_from_many_threads),
	};

	return cmocka_run_group_tests_name("policy", tests, NULL, NULL);
}
