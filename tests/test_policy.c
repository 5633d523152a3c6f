/* test_policy.c - the policy: its line format, the judge's semantics
 * (design.md invariants 2, 5, 6), copies, rebasing and the default
 * profile. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_lines),
		cmocka_unit_test(test_parse_errors_name_the_line),
		cmocka_unit_test(test_add_refusals),
		cmocka_unit_test(test_load_records_file_and_line),
		cmocka_unit_test(test_render),
		cmocka_unit_test(test_deepest_rule_decides),
		cmocka_unit_test(test_equal_depth_stricter_wins),
		cmocka_unit_test(test_no_rule_denies),
		cmocka_unit_test(test_final_caps_deeper_rules),
		cmocka_unit_test(test_deny_and_read_match_by_collision_class),
		cmocka_unit_test(test_write_matches_as_stored),
		cmocka_unit_test(test_fold),
	};

	return cmocka_run_group_tests_name("policy", tests, NULL, NULL);
}
