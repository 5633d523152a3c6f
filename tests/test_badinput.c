/* test_badinput.c - every public function handed bad input: NULL, empty,
 * NUL-embedded (where a length is taken), over-long and non-UTF-8
 * arguments, invalid flags and enums, a root that is a file, missing, or
 * removed under an open pg_root.  Each must give a clear refusal or errno
 * (-1 / NULL with errno set, and a refusal record whose errno agrees when
 * there is one), never crash, and change nothing on disk (snapshot of the
 * whole scratch area), on both resolvers, without leaking a descriptor. */
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

#include "escape/adv.h"
#include "pathgate.h"

struct fixture {
	struct adv_area area;
	pg_root *root[2];   /* openat2, walk */
	char *before;
	int fds;
	char longpath[PG_PATH_MAX + 64];
	char longname[PG_NAME_MAX + 2];
	char hugetarget[5000];
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	pg_policy *p = pg_policy_new();
	static const char policy[] = "write .\ndeny .env\ndeny secret\nread ro\n";
	size_t i;

	if (!f || !p)
		return -1;
	f->fds = tu_fd_count();
	if (adv_area_new(&f->area) < 0 || pg_policy_parse(p, policy, sizeof(policy) - 1) < 0)
		return -1;
	f->root[0] = pg_root_open(f->area.root, p, 0);
	f->root[1] = pg_root_open(f->area.root, p, PG_ROOT_NO_OPENAT2);
	pg_policy_free(p);
	if (!f->root[0] || !f->root[1])
		return -1;
	for (i = 0; i < sizeof(f->longpath) - 1; i++)
		f->longpath[i] = (i % 4 == 3) ? '/' : 'x';
	f->longpath[sizeof(f->longpath) - 1] = '\0';
	memset(f->hugetarget, 't', sizeof(f->hugetarget) - 1);
	f->hugetarget[sizeof(f->hugetarget) - 1] = '\0';
	memset(f->longname, 'n', sizeof(f->longname) - 1);
	f->longname[sizeof(f->longname) - 1] = '\0';
	f->before = adv_snapshot(f->area.base);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	char *after = adv_snapshot(f->area.base);
	bool same = adv_snapshot_same("bad input", f->before, after);
	int fds;

	pg_root_close(f->root[0]);
	pg_root_close(f->root[1]);
	adv_area_free(&f->area);
	free(after);
	free(f->before);
	fds = f->fds;
	free(f);
	if (!same) {
		printf("# bad input changed the tree\n");
		return -1;
	}
	if (tu_fd_count() != fds) {
		printf("# %d descriptors leaked\n", tu_fd_count() - fds);
		return -1;
	}
	return 0;
}

/* The call returned RC (-1 expected) with errno ERR: one of the allowed
 * errnos, and a refusal record, if any, that names the same errno. */
static void refused_(long rc, int err, const char *what, int line, int n, ...)
{
	const struct pg_refusal *ref = pg_last_refusal();
	bool ok = false;
	va_list ap;
	int i;

	if (rc != -1)
		fail_msg("line %d: %s returned %ld, not -1", line, what, rc);
	va_start(ap, n);
	for (i = 0; i < n; i++)
		if (va_arg(ap, int) == err)
			ok = true;
	va_end(ap);
	if (!ok)
		fail_msg("line %d: %s failed with errno %d (%s), not an expected one",
			 line, what, err, strerror(err));
	assert_non_null(ref);
	if (ref->name && ref->err != err)
		fail_msg("line %d: %s: refusal %s records errno %d but errno is %d",
			 line, what, ref->name, ref->err, err);
}

#define REFUSED(call, ...) do { \
	long rc_; \
	errno = 0; \
	rc_ = (long)(call); \
	refused_(rc_, errno, #call, __LINE__, \
		 (int)(sizeof((int[]){ __VA_ARGS__ }) / sizeof(int)), __VA_ARGS__); \
} while (0)

#define NULLED(call, ...) do { \
	void *p_; \
	errno = 0; \
	p_ = (void *)(call); \
	if (p_) \
		fail_msg("line %d: %s returned an object", __LINE__, #call); \
	refused_(-1, errno, #call, __LINE__, \
		 (int)(sizeof((int[]){ __VA_ARGS__ }) / sizeof(int)), __VA_ARGS__); \
} while (0)

static void null_root_everywhere(void **state)
{
	struct stat st;
	char buf[16];
	struct pg_verdict v;
	const char *paths[1] = { "file" };

	(void)state;
	REFUSED(pg_open(NULL, "file", O_RDONLY, 0), EINVAL);
	REFUSED(pg_stat(NULL, "file", &st, 0), EINVAL);
	REFUSED(pg_mkdir(NULL, "d", 0755), EINVAL);
	REFUSED(pg_mkdir_all(NULL, "d/e", 0755), EINVAL);
	REFUSED(pg_unlink(NULL, "file"), EINVAL);
	REFUSED(pg_rmdir(NULL, "dir"), EINVAL);
	REFUSED(pg_rename(NULL, "file", "x", 0), EINVAL);
	REFUSED(pg_link(NULL, "file", "x"), EINVAL);
	REFUSED(pg_symlink(NULL, "file", "x"), EINVAL);
	REFUSED(pg_readlink(NULL, "file", buf, sizeof(buf)), EINVAL);
	REFUSED(pg_chmod(NULL, "file", 0600), EINVAL);
	REFUSED(pg_truncate(NULL, "file", 0), EINVAL);
	NULLED(pg_opendir(NULL, "dir"), EINVAL);
	REFUSED(pg_write_file(NULL, "file", "x", 1, 0644), EINVAL);
	NULLED(pg_write_begin(NULL, "file", 0644), EINVAL);
	REFUSED(pg_write_chunk(NULL, "x", 1), EINVAL);
	REFUSED(pg_write_commit(NULL), EINVAL);
	pg_write_abort(NULL);
	REFUSED(pg_clear_temporaries(NULL, "."), EINVAL);
	REFUSED(pg_check(NULL, "file", PG_OP_READ, &v), EINVAL);
	REFUSED(pg_check_batch(NULL, paths, 1, PG_OP_READ, &v, 0), EINVAL);
	REFUSED(pg_root_refresh(NULL), EINVAL);
	REFUSED(pg_root_set_write_limit(NULL, 1), EINVAL);
	NULLED(pg_plan_build(NULL, 0), EINVAL);
	pg_root_close(NULL);
	pg_plan_free(NULL);
	pg_policy_free(NULL);
	assert_non_null(pg_last_refusal());
}

static void null_and_empty_paths(void **state)
{
	struct fixture *f = *state;
	struct stat st;
	char buf[16];
	struct pg_verdict v;
	int i;

	for (i = 0; i < 2; i++) {
		pg_root *r = f->root[i];
		const char *bad[2] = { NULL, "" };
		int j;

		for (j = 0; j < 2; j++) {
			const char *p = bad[j];

			REFUSED(pg_open(r, p, O_RDONLY, 0), EINVAL, ENOENT);
			REFUSED(pg_open(r, p, O_WRONLY | O_CREAT, 0644), EINVAL, ENOENT);
			REFUSED(pg_stat(r, p, &st, 0), EINVAL, ENOENT);
			REFUSED(pg_mkdir(r, p, 0755), EINVAL, ENOENT);
			REFUSED(pg_mkdir_all(r, p, 0755), EINVAL, ENOENT);
			REFUSED(pg_unlink(r, p), EINVAL, ENOENT);
			REFUSED(pg_rmdir(r, p), EINVAL, ENOENT);
			REFUSED(pg_rename(r, p, "x", 0), EINVAL, ENOENT);
			REFUSED(pg_rename(r, "file", p, 0), EINVAL, ENOENT);
			REFUSED(pg_link(r, p, "x"), EINVAL, ENOENT);
			REFUSED(pg_link(r, "file", p), EINVAL, ENOENT);
			REFUSED(pg_symlink(r, p, "x"), EINVAL, ENOENT);
			REFUSED(pg_symlink(r, "file", p), EINVAL, ENOENT);
			REFUSED(pg_readlink(r, p, buf, sizeof(buf)), EINVAL, ENOENT);
			REFUSED(pg_chmod(r, p, 0600), EINVAL, ENOENT);
			REFUSED(pg_truncate(r, p, 0), EINVAL, ENOENT);
			NULLED(pg_opendir(r, p), EINVAL, ENOENT);
			REFUSED(pg_write_file(r, p, "x", 1, 0644), EINVAL, ENOENT);
			NULLED(pg_write_begin(r, p, 0644), EINVAL, ENOENT);
			REFUSED(pg_clear_temporaries(r, p), EINVAL, ENOENT);
			REFUSED(pg_check(r, p, PG_OP_READ, &v), EINVAL, ENOENT);
		}
	}
}

static void over_long_paths_and_names(void **state)
{
	struct fixture *f = *state;
	struct stat st;
	char buf[16], *name;
	int i;

	if (asprintf(&name, "dir/%s", f->longname) < 0)
		fail();
	for (i = 0; i < 2; i++) {
		pg_root *r = f->root[i];
		const char *bad[2] = { f->longpath, name };
		int j;

		for (j = 0; j < 2; j++) {
			const char *p = bad[j];

			REFUSED(pg_open(r, p, O_WRONLY | O_CREAT, 0644), ENAMETOOLONG);
			REFUSED(pg_stat(r, p, &st, 0), ENAMETOOLONG);
			REFUSED(pg_mkdir_all(r, p, 0755), ENAMETOOLONG);
			REFUSED(pg_unlink(r, p), ENAMETOOLONG);
			REFUSED(pg_rename(r, "file", p, 0), ENAMETOOLONG);
			REFUSED(pg_link(r, "file", p), ENAMETOOLONG);
			REFUSED(pg_symlink(r, "file", p), ENAMETOOLONG);
			REFUSED(pg_readlink(r, p, buf, sizeof(buf)), ENAMETOOLONG);
			REFUSED(pg_write_file(r, p, "x", 1, 0644), ENAMETOOLONG);
			assert_string_equal(pg_last_refusal()->name, "workspace.bad-path");
		}
		/* A link's target is text, but text over the kernel's limit. */
		REFUSED(pg_symlink(r, f->hugetarget, "newlink"), ENAMETOOLONG, EINVAL);
	}
	free(name);
}

static void bad_buffers_and_sizes(void **state)
{
	struct fixture *f = *state;
	char buf[16];
	int i;

	for (i = 0; i < 2; i++) {
		pg_root *r = f->root[i];

		REFUSED(pg_readlink(r, "file", NULL, 16), EINVAL, EFAULT);
		REFUSED(pg_readlink(r, "file", buf, 0), EINVAL);
		REFUSED(pg_stat(r, "file", NULL, 0), EINVAL, EFAULT);
		REFUSED(pg_write_file(r, "newfile", NULL, 5, 0644), EINVAL, EFAULT);
		/* A NULL verdict may mean "only the answer": no crash either way. */
		(void)pg_check(r, "file", PG_OP_READ, NULL);
		REFUSED(pg_check_batch(r, NULL, 2, PG_OP_READ, NULL, 0), EINVAL, EFAULT);
		REFUSED(pg_truncate(r, "dir/f", -1), EINVAL);
	}
}

static void invalid_flags_and_enums(void **state)
{
	struct fixture *f = *state;
	struct stat st;
	struct pg_verdict v;
	int i, rc[2], err[2];

	for (i = 0; i < 2; i++) {
		pg_root *r = f->root[i];

		REFUSED(pg_rename(r, "file", "x", 0x80), EINVAL);
		REFUSED(pg_rename(r, "file", "dir/f", RENAME_NOREPLACE | RENAME_EXCHANGE), EINVAL);
		REFUSED(pg_rename(r, "file", "x", RENAME_WHITEOUT), EINVAL, EPERM);
		REFUSED(pg_stat(r, "file", &st, 0x40000000), EINVAL);
		REFUSED(pg_check(r, "file", (enum pg_op)99, &v), EINVAL);
		REFUSED(pg_check(r, "file", (enum pg_op)-1, &v), EINVAL);
		/* An open flag no kernel knows: both resolvers must answer
		 * alike (openat2 refuses unknown bits; a walk must not
		 * silently accept what openat2 refuses). */
		errno = 0;
		rc[i] = pg_open(r, "file", O_RDONLY | 0x40000000, 0);
		err[i] = rc[i] < 0 ? errno : 0;
		if (rc[i] >= 0)
			close(rc[i]);
	}
	/* Both refuse it with EINVAL. */
	if (rc[0] >= 0 || rc[1] >= 0 || err[0] != EINVAL || err[1] != EINVAL)
		fail_msg("open with an unknown flag: openat2 gives %d (%s), the walk %d (%s)",
			 rc[0], strerror(err[0]), rc[1], strerror(err[1]));
	{
		pg_policy *p = pg_policy_new();

		REFUSED(pg_policy_add(p, (enum pg_access)7, "x"), EINVAL);
		REFUSED(pg_policy_add(p, (enum pg_access)-1, "x"), EINVAL);
		REFUSED(pg_policy_add_final(p, PG_WRITE, "x"), EINVAL);
		REFUSED(pg_policy_add(p, PG_DENY, NULL), EINVAL);
		REFUSED(pg_policy_add(p, PG_DENY, ""), EINVAL);
		REFUSED(pg_policy_add(NULL, PG_DENY, "x"), EINVAL);
		assert_int_equal(pg_policy_rule_count(p), 0);
		assert_int_equal(pg_policy_rule_count(NULL), 0);
		pg_policy_free(p);
	}
	NULLED(pg_root_open(f->area.root, NULL, 0x100), EINVAL);
}

static void policy_text(void **state)
{
	static const char nul_inside[] = "write .\ndeny .e\0nv\n";
	static const char bad_utf8[] = "write .\ndeny \xff\xfe\xc0\xaf\n";
	pg_policy *p = pg_policy_new();
	char *huge;

	(void)state;
	REFUSED(pg_policy_parse(p, nul_inside, sizeof(nul_inside) - 1), EINVAL);
	assert_string_equal(pg_last_refusal()->name, "policy.invalid");
	assert_int_equal(pg_policy_rule_count(p), 0);
	REFUSED(pg_policy_parse(p, NULL, 5), EINVAL, EFAULT);
	REFUSED(pg_policy_parse(NULL, "write .\n", 8), EINVAL);
	REFUSED(pg_policy_parse(p, "wrte .\n", 7), EINVAL);
	assert_string_equal(pg_last_refusal()->name, "policy.invalid");
	REFUSED(pg_policy_parse(p, "write\n", 6), EINVAL);
	REFUSED(pg_policy_parse(p, "deny! \n", 7), EINVAL);
	/* Non-UTF-8 names are names: accepted, or refused by name, never a
	 * crash; either way nothing half-added. */
	if (pg_policy_parse(p, bad_utf8, sizeof(bad_utf8) - 1) == 0)
		assert_int_equal(pg_policy_rule_count(p), 2);
	else
		assert_int_equal(pg_policy_rule_count(p), 0);
	pg_policy_free(p);

	p = pg_policy_new();
	huge = malloc(PG_PATH_MAX + 32);
	assert_non_null(huge);
	memcpy(huge, "deny ", 5);
	memset(huge + 5, 'a', PG_PATH_MAX + 20);
	huge[PG_PATH_MAX + 25] = '\n';
	REFUSED(pg_policy_parse(p, huge, PG_PATH_MAX + 26), EINVAL, ENAMETOOLONG);
	assert_int_equal(pg_policy_rule_count(p), 0);
	free(huge);
	assert_int_equal(pg_policy_parse(p, "", 0), 0);
	assert_int_equal(pg_policy_rule_count(p), 0);
	REFUSED(pg_policy_load(p, NULL), EINVAL);
	REFUSED(pg_policy_load(p, ""), ENOENT, EINVAL);
	REFUSED(pg_policy_load(p, "/nonexistent/policy"), ENOENT);
	REFUSED(pg_policy_load(p, "/"), EISDIR, EINVAL);
	pg_policy_free(p);
}

static void bad_roots(void **state)
{
	struct fixture *f = *state;
	char file[600], missing[600];

	snprintf(file, sizeof(file), "%s/file", f->area.root);
	snprintf(missing, sizeof(missing), "%s/missing", f->area.root);
	NULLED(pg_root_open(NULL, NULL, 0), EINVAL);
	NULLED(pg_root_open("", NULL, 0), ENOENT, EINVAL);
	NULLED(pg_root_open(file, NULL, 0), ENOTDIR);
	NULLED(pg_root_open(missing, NULL, 0), ENOENT);
	NULLED(pg_root_open(f->longpath, NULL, 0), ENAMETOOLONG, ENOENT);
	NULLED(pg_root_open(file, NULL, PG_ROOT_NO_OPENAT2), ENOTDIR);
}

/* The root's directory removed while a pg_root holds it: every call
 * fails plainly and nothing is created anywhere. */
static void removed_root(void **state)
{
	struct fixture *f = *state;
	struct adv_area gone;
	struct stat st;
	pg_root *r[2];
	char *before, *after;
	int i;

	(void)f;
	assert_int_equal(adv_area_new(&gone), 0);
	r[0] = pg_root_open(gone.root, NULL, 0);
	r[1] = pg_root_open(gone.root, NULL, PG_ROOT_NO_OPENAT2);
	assert_non_null(r[0]);
	assert_non_null(r[1]);
	adv_apply(&gone, "r ../root\n");
	before = adv_snapshot(gone.base);
	for (i = 0; i < 2; i++) {
		int fd;

		errno = 0;
		fd = pg_open(r[i], "new", O_WRONLY | O_CREAT, 0644);
		assert_int_equal(fd, -1);
		REFUSED(pg_mkdir(r[i], "d", 0755), ENOENT);
		REFUSED(pg_write_file(r[i], "f", "x", 1, 0644), ENOENT, EPERM);
		REFUSED(pg_stat(r[i], "file", &st, 0), ENOENT);
	}
	after = adv_snapshot(gone.base);
	assert_true(adv_snapshot_same("removed root", before, after));
	free(before);
	free(after);
	pg_root_close(r[0]);
	pg_root_close(r[1]);
	adv_area_free(&gone);
}

/* The streaming writer misused: chunks after abort are impossible (it is
 * freed), so misuse here is a bound and a NULL chunk. */
static void stream_misuse(void **state)
{
	struct fixture *f = *state;
	int i;

	for (i = 0; i < 2; i++) {
		pg_atomic *w;

		assert_int_equal(pg_root_set_write_limit(f->root[i], 4), 0);
		w = pg_write_begin(f->root[i], "dir/streamed", 0644);
		assert_non_null(w);
		REFUSED(pg_write_chunk(w, NULL, 3), EINVAL, EFAULT);
		REFUSED(pg_write_chunk(w, "too long", 8), EFBIG, EAGAIN);
		assert_string_equal(pg_last_refusal()->name, "exhausted");
		pg_write_abort(w);
		REFUSED(pg_write_file(f->root[i], "dir/f", "too long", 8, 0644), EFBIG, EAGAIN);
		assert_int_equal(pg_root_set_write_limit(f->root[i], 64u << 20), 0);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(null_root_everywhere),
		cmocka_unit_test_setup_teardown(null_and_empty_paths, setup, teardown),
		cmocka_unit_test_setup_teardown(over_long_paths_and_names, setup, teardown),
		cmocka_unit_test_setup_teardown(bad_buffers_and_sizes, setup, teardown),
		cmocka_unit_test_setup_teardown(invalid_flags_and_enums, setup, teardown),
		cmocka_unit_test(policy_text),
		cmocka_unit_test_setup_teardown(bad_roots, setup, teardown),
		cmocka_unit_test_setup_teardown(removed_root, setup, teardown),
		cmocka_unit_test_setup_teardown(stream_misuse, setup, teardown),
	};

	return cmocka_run_group_tests_name("bad input", tests, NULL, NULL);
}
