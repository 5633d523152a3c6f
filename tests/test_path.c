/* test_path.c - validation and lexical normalisation of path text. */
#include "config.h"

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "path.h"
#include "refusal.h"

static void expect_normal(const char *raw, const char *want, bool trailing)
{
	struct pg_path p;

	assert_int_equal(pg_path_normalise(raw, false, &p), 0);
	assert_string_equal(p.buf, want);
	assert_int_equal(p.len, strlen(want));
	assert_int_equal(p.trailing_slash, trailing);
}

static void expect_refusal(const char *raw, enum pg_code code, int err)
{
	struct pg_path p;

	errno = 0;
	assert_int_equal(pg_path_normalise(raw, false, &p), -1);
	assert_int_equal(errno, err);
	assert_int_equal(pg_refusal_code(), code);
	assert_string_equal(pg_last_refusal()->name, pg_code_name(code));
}

static void test_normalises_dots_and_slashes(void **state)
{
	(void)state;
	expect_normal("a", "a", false);
	expect_normal("./a", "a", false);
	expect_normal("a//b/./c", "a/b/c", false);
	expect_normal("a/b/../c", "a/c", false);
	expect_normal("a/", "a", true);
	expect_normal("a/.", "a", true);
	expect_normal(".", "", true);
	expect_normal("a/..", "", true);
	expect_normal("x/y/../../z/", "z", true);
}

static void test_counts_components(void **state)
{
	struct pg_path p;

	(void)state;
	assert_int_equal(pg_path_normalise("aa/b/cccc", false, &p), 0);
	assert_int_equal(p.ncomp, 3);
	assert_int_equal(pg_path_comp_len(&p, 0), 2);
	assert_int_equal(pg_path_comp_len(&p, 1), 1);
	assert_int_equal(pg_path_comp_len(&p, 2), 4);
	assert_int_equal(pg_path_prefix_len(&p, 2), 4);
	assert_int_equal(pg_path_prefix_len(&p, 3), 9);
}

static void test_refuses_escapes(void **state)
{
	(void)state;
	expect_refusal("..", PG_R_PATH_ESCAPE, EACCES);
	expect_refusal("a/../..", PG_R_PATH_ESCAPE, EACCES);
	expect_refusal("a/b/../../../c", PG_R_PATH_ESCAPE, EACCES);
	expect_refusal("/etc/passwd", PG_R_PATH_ESCAPE, EACCES);
}

static void test_refuses_bad_paths(void **state)
{
	char name[PG_NAME_MAX + 2], path[PG_PATH_MAX + 2];

	(void)state;
	expect_refusal("", PG_R_BAD_PATH, ENOENT);
	memset(name, 'n', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	expect_refusal(name, PG_R_BAD_PATH, ENAMETOOLONG);
	name[PG_NAME_MAX] = '\0';
	expect_normal(name, name, false);
	memset(path, 'a', sizeof(path) - 1);
	for (size_t i = 100; i < sizeof(path) - 1; i += 100)
		path[i] = '/';
	path[sizeof(path) - 1] = '\0';
	expect_refusal(path, PG_R_BAD_PATH, ENAMETOOLONG);
	assert_int_equal(pg_path_validate(NULL, 0), -1);
	assert_int_equal(pg_path_validate("a\0b", 3), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(pg_path_validate("ab", 2), 0);
}

static void test_absolute_when_allowed(void **state)
{
	struct pg_path p;

	(void)state;
	assert_int_equal(pg_path_normalise("/usr/../etc/", true, &p), 0);
	assert_true(p.absolute);
	assert_string_equal(p.buf, "etc");
	assert_int_equal(pg_path_normalise("/..", true, &p), 0);
	assert_string_equal(p.buf, "");
}

static void test_clear_forgets(void **state)
{
	(void)state;
	expect_refusal("..", PG_R_PATH_ESCAPE, EACCES);
	pg_refusal_clear();
	assert_null(pg_last_refusal()->name);
	assert_int_equal(pg_refusal_code(), PG_R_NONE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_normalises_dots_and_slashes),
		cmocka_unit_test(test_counts_components),
		cmocka_unit_test(test_refuses_escapes),
		cmocka_unit_test(test_refuses_bad_paths),
		cmocka_unit_test(test_absolute_when_allowed),
		cmocka_unit_test(test_clear_forgets),
	};
	return cmocka_run_group_tests_name("path", tests, NULL, NULL);
}
