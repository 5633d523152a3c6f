/* test_shim_api.c - what lib/shim.h gives the pathgate command and the
 * preload: where a policy comes from (in order: named file, its text,
 * ROOT/.pathgate, the default), the verdict on a name alone, the root's
 * identity check, and a root held at a high descriptor. */
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

#include "pathgate.h"
#include "shim.h"
#include "testutil.h"

/* A scratch directory by its canonical name (the library's names are). */
static char *scratch(void)
{
	char *made = tu_mkdtemp("shim-api"), *dir = realpath(made, NULL);

	assert_non_null(dir);
	free(made);
	return dir;
}

/* Load the policy of DIR with FILE and TEXT; the verdict of NAME for
 * reading through a root opened with it (0 allowed, -1 refused). */
static int read_verdict(const char *dir, const char *file, const char *text,
			const char *name, char **source)
{
	pg_policy *p = pg_policy_new();
	pg_root *root;
	int rc;

	assert_non_null(p);
	assert_int_equal(pg_policy_discover(p, dir, file, text, source), 0);
	root = pg_root_open(dir, p, 0);
	assert_non_null(root);
	rc = pg_root_judge_name(root, name, PG_OP_READ, name);
	pg_root_close(root);
	pg_policy_free(p);
	return rc;
}

static void test_discover_order(void **state)
{
	char *dir = scratch(), *named, *source = NULL;
	pg_policy *p;

	(void)state;
	tu_build(dir, "f a x\nf b y\n");
	assert_true(asprintf(&named, "%s/named", dir) > 0);
	/* No file: the embedded default (the workspace readable). */
	assert_int_equal(read_verdict(dir, NULL, NULL, "a", &source), 0);
	assert_null(source);
	/* ROOT/.pathgate. */
	tu_write(dir, ".pathgate", "write .\ndeny a\n");
	assert_int_equal(read_verdict(dir, NULL, NULL, "a", &source), -1);
	assert_string_equal(pg_last_refusal()->name, "workspace.denied");
	assert_non_null(source);
	assert_non_null(strstr(source, "/.pathgate"));
	free(source);
	/* TEXT over ROOT/.pathgate. */
	assert_int_equal(read_verdict(dir, NULL, "write .\ndeny b\n", "a", &source), 0);
	assert_null(source);
	/* A named file over both. */
	tu_write(dir, "named", "write .\ndeny b\n");
	assert_int_equal(read_verdict(dir, named, "write .\ndeny a\n", "b", &source), -1);
	assert_string_equal(source, named);
	free(source);
	/* A named file out of sight: its text. */
	unlink(named);
	assert_int_equal(read_verdict(dir, named, "write .\ndeny a\n", "a", &source), -1);
	free(source);
	/* A named file out of sight and no text: refused, the name said. */
	p = pg_policy_new();
	assert_int_equal(pg_policy_discover(p, dir, named, NULL, &source), -1);
	assert_string_equal(source, named);
	free(source);
	pg_policy_free(p);
	/* A bad text: policy.invalid with its line. */
	p = pg_policy_new();
	assert_int_equal(pg_policy_discover(p, dir, NULL, "write .\nalow x\n", NULL), -1);
	assert_string_equal(pg_last_refusal()->name, "policy.invalid");
	pg_policy_free(p);
	assert_non_null(strstr(pg_policy_default_text(), "deny! **/.env"));
	free(named);
	tu_rmtree(dir);
	free(dir);
}

static void test_judge_name(void **state)
{
	char *dir = scratch();
	pg_policy *p = pg_policy_new();
	pg_root *root;
	static const char text[] = "write .\nread /usr\ndeny /usr/secret\n";

	(void)state;
	assert_int_equal(pg_policy_parse(p, text, strlen(text)), 0);
	root = pg_root_open(dir, p, 0);
	assert_non_null(root);
	assert_int_equal(pg_root_judge_name(root, "/usr/lib/x", PG_OP_READ, "/usr/lib/x"), 0);
	assert_int_equal(pg_root_judge_name(root, "/usr/lib/x", PG_OP_WRITE, "/usr/lib/x"), -1);
	assert_int_equal(errno, EROFS);
	assert_string_equal(pg_last_refusal()->name, "workspace.read-only");
	assert_int_equal(pg_root_judge_name(root, "/usr/secret/k", PG_OP_READ, "shown"), -1);
	assert_int_equal(errno, EACCES);
	assert_string_equal(pg_last_refusal()->path, "shown");
	assert_non_null(strstr(pg_last_refusal()->rule, "deny /usr/secret"));
	assert_int_equal(pg_root_judge_name(root, "/etc/passwd", PG_OP_READ, "/etc/passwd"), -1);
	assert_int_equal(pg_root_judge_name(root, "any/name", PG_OP_CREATE, "any/name"), 0);
	pg_root_close(root);
	pg_policy_free(p);
	tu_rmtree(dir);
	free(dir);
}

/* The root held high, and its identity checked after the program closed
 * or replaced its descriptor. */
static void test_high_fd_and_intact(void **state)
{
	char *dir = scratch(), *other = scratch();
	pg_root *root = pg_root_open(dir, NULL, PG_ROOT_HIGH_FD);
	int fd, hi;

	(void)state;
	assert_non_null(root);
	assert_true(pg_root_intact(root));
	/* The descriptor is at the floor or above: find it by its link. */
	for (hi = 0, fd = 10; fd < 4096 && !hi; fd++) {
		char buf[4096];

		if (fcntl(fd, F_GETFD) >= 0 && strcmp(tu_fd_path(fd, buf, sizeof(buf)), dir) == 0 &&
		    fd >= 900)
			hi = fd;
	}
	assert_true(hi >= 900);
	fd = open(other, O_PATH | O_DIRECTORY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(dup2(fd, hi), hi);   /* the program took the number */
	close(fd);
	assert_false(pg_root_intact(root));
	assert_false(pg_root_intact(NULL));
	pg_root_close(root);                  /* closes the program's: a test may */
	tu_rmtree(dir);
	tu_rmtree(other);
	free(dir);
	free(other);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_discover_order),
		cmocka_unit_test(test_judge_name),
		cmocka_unit_test(test_high_fd_and_intact),
	};

	return cmocka_run_group_tests_name("shim api", tests, NULL, NULL);
}
