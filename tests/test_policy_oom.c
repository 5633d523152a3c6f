/* test_policy_oom.c - the policy when memory runs out: every allocation of
 * a parse, a copy and a rebase is made to fail in turn (the library's
 * calls to malloc, calloc and realloc are wrapped at link time).  A failed
 * parse must leave the policy exactly as it was (all or nothing holds
 * under ENOMEM too), and nothing may leak. */
#include "config.h"

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "policy.h"

void *__real_malloc(size_t size);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *ptr, size_t size);
void *__wrap_malloc(size_t size);
void *__wrap_calloc(size_t n, size_t size);
void *__wrap_realloc(void *ptr, size_t size);

static long fail_at = -1;   /* the allocation to fail, counting from 0 */
static long seen;

static bool should_fail(void)
{
	return fail_at >= 0 && seen++ == fail_at;
}

void *__wrap_malloc(size_t size)
{
	return should_fail() ? NULL : __real_malloc(size);
}

void *__wrap_calloc(size_t n, size_t size)
{
	return should_fail() ? NULL : __real_calloc(n, size);
}

void *__wrap_realloc(void *ptr, size_t size)
{
	return should_fail() ? NULL : __real_realloc(ptr, size);
}

static void arm(long n)
{
	seen = 0;
	fail_at = n;
}

static void disarm(void)
{
	fail_at = -1;
}

static const char base_text[] = "write .\ndeny .env\nread src\n";

static const char *const names[] = {
	"", "x", ".env", ".ENV", "src/a.c", "a/b/c.pem", "k/tok7.pem", "d3/f/x.key3",
	"cache/q", "/usr/lib", "/tmp/z", "g/h/i/j",
};

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

/* Enough rules that the tables grow and rehash while they are added. */
static char *big_text(void)
{
	size_t cap = 64 * 1024, off = 0;
	char *t = malloc(cap);
	unsigned i;

	assert_non_null(t);
	for (i = 0; i < 300; i++)
		off += (size_t)snprintf(t + off, cap - off,
					"deny **/tok%u.pem\nread d%u/**/x.key%u\nwrite w%u/*.o\n"
					"deny! caf\xc3\xa9%u/f?le\n", i, i, i, i, i);
	off += (size_t)snprintf(t + off, cap - off, "read /\nwrite /tmp\n");
	return t;
}

static void expect_like_base(const pg_policy *p)
{
	static const enum pg_access want[] = {
		PG_WRITE, PG_WRITE, PG_DENY, PG_DENY, PG_READ, PG_WRITE, PG_WRITE, PG_WRITE,
		PG_WRITE, PG_DENY, PG_DENY, PG_WRITE,
	};
	size_t i;

	assert_int_equal(pg_policy_rule_count(p), 3);
	for (i = 0; i < NELEM(names); i++) {
		struct pg_judgement j;

		assert_int_equal(pg_policy_judge(p, names[i], strlen(names[i]), &j), want[i]);
	}
}

static void test_failed_parse_changes_nothing(void **state)
{
	char *text = big_text();
	long n;
	unsigned failures = 0;

	(void)state;
	for (n = 0;; n++) {
		pg_policy *p = pg_policy_new();
		int rc;

		assert_non_null(p);
		assert_int_equal(pg_policy_parse(p, base_text, strlen(base_text)), 0);
		arm(n);
		errno = 0;
		rc = pg_policy_parse(p, text, strlen(text));
		disarm();
		if (rc == 0) {
			/* Past the last allocation: the whole text went in. */
			assert_int_equal(pg_policy_rule_count(p), 3 + 4 * 300 + 2);
			pg_policy_free(p);
			break;
		}
		failures++;
		assert_int_equal(errno, ENOMEM);
		expect_like_base(p);
		/* And it still takes rules afterwards. */
		assert_int_equal(pg_policy_add(p, PG_DENY, "x"), 0);
		assert_int_equal(pg_policy_judge(p, "x", 1, &(struct pg_judgement){ 0 }), PG_DENY);
		pg_policy_free(p);
	}
	print_message("%u failed allocations, each left the policy as it was\n", failures);
	assert_true(failures > 20);
	free(text);
}

static void test_failed_copies_leak_nothing(void **state)
{
	char *text = big_text();
	pg_policy *p = pg_policy_new();
	long n;

	(void)state;
	assert_int_equal(pg_policy_parse(p, text, strlen(text)), 0);
	for (n = 0;; n++) {
		pg_policy *d;

		arm(n);
		d = pg_policy_for_root(p, "/tmp");
		disarm();
		if (d) {
			assert_true(pg_policy_rule_count(d) > pg_policy_rule_count(p));
			pg_policy_free(d);
			break;
		}
	}
	for (n = 0;; n++) {
		pg_policy *d;

		arm(n);
		d = pg_policy_new();
		disarm();
		if (d) {
			pg_policy_free(d);
			break;
		}
	}
	pg_policy_free(p);
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_failed_parse_changes_nothing),
		cmocka_unit_test(test_failed_copies_leak_nothing),
	};

	return cmocka_run_group_tests_name("policy-oom", tests, NULL, NULL);
}
