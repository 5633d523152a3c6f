/* test_casefold.c - invariant 2 on a filesystem that folds case: in a
 * casefolded directory ".ENV" *is* ".env", so every spelling of a denied
 * name must be refused, and creating any spelling of an absent denied
 * name must be refused before the filesystem maps it onto the real one.
 *
 * Needs a kernel with CONFIG_UNICODE (tmpfs mounted with -o casefold, or
 * ext4 with the casefold feature) and the privilege to mount; where either
 * is missing the test says why and is skipped (exit 77), never passed. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "pathgate.h"
#include "testutil.h"

#ifndef FS_CASEFOLD_FL
#define FS_CASEFOLD_FL 0x40000000
#endif

static char *g_mnt;
static char *g_ws;
static unsigned g_flags;

/* Mount a casefolding tmpfs and make an empty casefolded directory in it;
 * NULL and a reason when this host cannot. */
static const char *casefold_dir(char **mnt, char **ws)
{
	static char why[256];
	int fd, flags;

	*mnt = tu_mkdtemp("casefold");
	if (mount("tmpfs", *mnt, "tmpfs", 0, "casefold=utf8-12.1.0,size=4m") < 0 &&
	    mount("tmpfs", *mnt, "tmpfs", 0, "casefold,size=4m") < 0) {
		snprintf(why, sizeof(why),
			 "cannot mount a casefolding tmpfs (%s): the kernel lacks CONFIG_UNICODE "
			 "or this user may not mount", strerror(errno));
		return why;
	}
	assert_true(asprintf(ws, "%s/ws", *mnt) > 0);
	assert_int_equal(mkdir(*ws, 0755), 0);
	fd = open(*ws, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_true(fd >= 0);
	if (ioctl(fd, FS_IOC_GETFLAGS, &flags) < 0 ||
	    (flags |= FS_CASEFOLD_FL, ioctl(fd, FS_IOC_SETFLAGS, &flags)) < 0) {
		snprintf(why, sizeof(why), "cannot set +F on a directory (%s)", strerror(errno));
		close(fd);
		return why;
	}
	close(fd);
	return NULL;
}

static pg_root *root_with(const char *text)
{
	pg_policy *p = pg_policy_new();
	pg_root *r;

	assert_int_equal(pg_policy_parse(p, text, strlen(text)), 0);
	r = pg_root_open(g_ws, p, g_flags);
	pg_policy_free(p);
	assert_non_null(r);
	return r;
}

static void refused(long rc, const char *what)
{
	const struct pg_refusal *r = pg_last_refusal();

	if (rc != -1 || !r->name || strcmp(r->name, "workspace.denied") != 0)
		fail_msg("%s: not refused as denied", what);
}

static void test_every_case_of_an_existing_denied_name(void **state)
{
	static const char *const spellings[] = { ".env", ".ENV", ".Env", "./.eNv", "d/../.ENV" };
	pg_root *r;
	struct stat st;

	(void)state;
	tu_build(g_ws, "f .env SECRET\nd d\n");
	r = root_with("write .\ndeny .env\n");
	for (size_t i = 0; i < sizeof(spellings) / sizeof(spellings[0]); i++) {
		refused(pg_open(r, spellings[i], O_RDONLY, 0), spellings[i]);
		refused(pg_stat(r, spellings[i], &st, 0), spellings[i]);
		refused(pg_write_file(r, spellings[i], "x", 1, 0600), spellings[i]);
	}
	/* The filesystem really treats them as one name. */
	assert_true(tu_exists(g_ws, ".ENV"));
	pg_root_close(r);
	{
		char p[4200];

		snprintf(p, sizeof(p), "%s/.env", g_ws);
		unlink(p);
	}
}

static void test_no_case_of_an_absent_denied_name_is_created(void **state)
{
	static const char *const spellings[] = { ".SECRET", ".Secret", ".secret", "d/../.SeCrEt" };
	pg_root *r;

	(void)state;
	tu_build(g_ws, "d d\n");
	r = root_with("write .\ndeny .secret\n");
	for (size_t i = 0; i < sizeof(spellings) / sizeof(spellings[0]); i++) {
		refused(pg_open(r, spellings[i], O_CREAT | O_WRONLY, 0600), spellings[i]);
		refused(pg_mkdir(r, spellings[i], 0755), spellings[i]);
		refused(pg_symlink(r, "x", spellings[i]), spellings[i]);
	}
	assert_false(tu_exists(g_ws, ".secret"));
	pg_root_close(r);
}

int main(void)
{
	static const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_case_of_an_existing_denied_name),
		cmocka_unit_test(test_no_case_of_an_absent_denied_name_is_created),
	};
	const char *why = casefold_dir(&g_mnt, &g_ws);
	int failed;

	if (why) {
		printf("SKIP: %s\n", why);
		umount(g_mnt);
		tu_rmtree(g_mnt);
		free(g_mnt);
		free(g_ws);
		return 77;
	}
	g_flags = 0;
	failed = cmocka_run_group_tests_name("casefold (openat2)", tests, NULL, NULL);
	g_flags = PG_ROOT_NO_OPENAT2;
	failed += cmocka_run_group_tests_name("casefold (walk)", tests, NULL, NULL);
	umount(g_mnt);
	tu_rmtree(g_mnt);
	free(g_mnt);
	free(g_ws);
	return failed ? 1 : 0;
}
