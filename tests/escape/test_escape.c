/* test_escape.c - runs the escape catalogue (cases.c) against both
 * resolvers: openat2, and the O_PATH|O_NOFOLLOW walk (PG_ROOT_NO_OPENAT2).
 *
 * Each case gets a fresh scratch area on each resolver.  A case passes when
 * both resolvers give the expected answer (return, errno, refusal name),
 * give each other the same answer, leave everything outside the root
 * unchanged, leave the root unchanged whenever they refused (or the call
 * only reads), return no fd whose object lies outside the root, and leak
 * no descriptor.  Anything that reached outside the root is counted as an
 * escape and printed in the figures line. */
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
#include <unistd.h>

#include <cmocka.h>

#include "adv.h"
#include "cases.h"
#include "pathgate.h"

struct outcome {
	int  ret;         /* 0 or -1 */
	int  err;
	char name[64];    /* refusal name, "" for none */
	char problem[512];/* an invariant broken, "" when none */
	bool escaped;     /* something outside the root was reached */
};

static unsigned n_run, n_passed, n_failed, n_skipped, n_escapes, n_xfail, n_xpass;

static void problem(struct outcome *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void problem(struct outcome *o, const char *fmt, ...)
{
	size_t len = strlen(o->problem);
	va_list ap;

	if (len + 3 >= sizeof(o->problem))
		return;
	if (len)
		len += (size_t)snprintf(o->problem + len, sizeof(o->problem) - len, "; ");
	va_start(ap, fmt);
	vsnprintf(o->problem + len, sizeof(o->problem) - len, fmt, ap);
	va_end(ap);
}

static bool reads_only(const struct esc_case *c)
{
	switch (c->op) {
	case OP_OPEN:
		return (c->flags & O_ACCMODE) == O_RDONLY && !(c->flags & (O_CREAT | O_TRUNC));
	case OP_STAT: case OP_LSTAT: case OP_READLINK: case OP_OPENDIR:
	case OP_CHECK_READ: case OP_CHECK_WRITE: case OP_CHECK_CREATE: case OP_CHECK_DELETE:
		return true;
	default:
		return false;
	}
}

static void check_fd(struct outcome *o, const struct adv_area *area, int fd)
{
	if (!adv_fd_within(fd, area->root)) {
		char link[64], where[4096] = "";
		ssize_t n;

		snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
		n = readlink(link, where, sizeof(where) - 1);
		where[n > 0 ? n : 0] = '\0';
		problem(o, "returned an fd outside the root: %s", where);
		o->escaped = true;
	}
}

static int call(pg_root *r, const struct esc_case *c, const char *a, const char *b,
		const struct adv_area *area, struct outcome *o)
{
	static const char content[] = "new content\n";
	struct stat st;
	char buf[4096];
	int fd, rc;
	DIR *d;

	switch (c->op) {
	case OP_OPEN:
		fd = pg_open(r, a, c->flags | O_CLOEXEC, 0644);
		if (fd >= 0) {
			check_fd(o, area, fd);
			close(fd);
		}
		return fd < 0 ? -1 : 0;
	case OP_STAT:     return pg_stat(r, a, &st, 0);
	case OP_LSTAT:    return pg_stat(r, a, &st, AT_SYMLINK_NOFOLLOW);
	case OP_MKDIR:    return pg_mkdir(r, a, 0755);
	case OP_MKDIR_ALL:return pg_mkdir_all(r, a, 0755);
	case OP_UNLINK:   return pg_unlink(r, a);
	case OP_RMDIR:    return pg_rmdir(r, a);
	case OP_RENAME:   return pg_rename(r, a, b, (unsigned)c->flags);
	case OP_LINK:     return pg_link(r, a, b);
	case OP_SYMLINK:  return pg_symlink(r, a, b);
	case OP_READLINK: return pg_readlink(r, a, buf, sizeof(buf)) < 0 ? -1 : 0;
	case OP_CHMOD:    return pg_chmod(r, a, 0600);
	case OP_TRUNCATE: return pg_truncate(r, a, 1);
	case OP_OPENDIR:
		d = pg_opendir(r, a);
		if (!d)
			return -1;
		check_fd(o, area, dirfd(d));
		closedir(d);
		return 0;
	case OP_WRITE_FILE:
		return pg_write_file(r, a, content, sizeof(content) - 1, 0644);
	case OP_CHECK_READ: case OP_CHECK_WRITE: case OP_CHECK_CREATE: case OP_CHECK_DELETE: {
		static const enum pg_op ops[] = { PG_OP_READ, PG_OP_WRITE, PG_OP_CREATE, PG_OP_DELETE };
		struct pg_verdict v;
		int saved;

		memset(&v, 0xa5, sizeof(v));
		rc = pg_check(r, a, ops[c->op - OP_CHECK_READ], &v);
		saved = errno;
		if (v.allowed != (rc == 0))
			problem(o, "verdict.allowed %d but pg_check returned %d", v.allowed, rc);
		if (rc < 0 && (v.err != saved || !v.name || !pg_last_refusal()->name ||
			       strcmp(v.name, pg_last_refusal()->name)))
			problem(o, "verdict (%s, %d) disagrees with the refusal record",
				v.name ? v.name : "NULL", v.err);
		/* pg_check_batch promises the verdicts of N pg_check calls,
		 * through io_uring and without it. */
		for (unsigned how = 0; how < 2; how++) {
			struct pg_verdict vb;
			const char *one[1] = { a };
			ssize_t refused;

			memset(&vb, 0x5a, sizeof(vb));
			refused = pg_check_batch(r, one, 1, ops[c->op - OP_CHECK_READ], &vb,
						 how ? PG_BATCH_NO_URING : 0);
			if (refused != (rc < 0 ? 1 : 0) || vb.allowed != v.allowed ||
			    vb.err != v.err || (vb.name != v.name &&
			    (!vb.name || !v.name || strcmp(vb.name, v.name))))
				problem(o, "pg_check_batch%s says %zd refused (%s, %d), pg_check %s (%d)",
					how ? " without io_uring" : "", refused,
					vb.name ? vb.name : "allowed", vb.err,
					v.name && !v.allowed ? v.name : "allowed", v.err);
		}
		/* The batch cleared this thread's refusal record: judge again
		 * (it only reads) so the record describes pg_check. */
		if (pg_check(r, a, ops[c->op - OP_CHECK_READ], &v) != rc)
			problem(o, "pg_check changed its answer on a second call");
		errno = saved;
		return rc;
	}
	}
	return -1;
}

/* Run case C once with RESOLVER; fills O.  Returns 77 to skip. */
static int run_once(const struct esc_case *c, unsigned resolver, struct outcome *o)
{
	struct adv_area area;
	const char *policy_text = c->policy ? c->policy : esc_standard_policy;
	char *root_before = NULL, *root_after = NULL, *out_before = NULL, *out_after = NULL;
	char marker[64] = "";
	pg_policy *policy;
	pg_root *r = NULL;
	const char *a, *b;
	int rc;

	memset(o, 0, sizeof(*o));
	if (adv_area_new(&area) < 0) {
		problem(o, "cannot make the scratch area: %s", strerror(errno));
		return -1;
	}
	rc = adv_apply(&area, c->tree);
	if (rc != 0)
		goto out;
	policy_text = adv_subst(&area, policy_text, 2);   /* rules on host paths */
	policy = pg_policy_new();
	if (!policy || pg_policy_parse(policy, policy_text, strlen(policy_text)) < 0) {
		problem(o, "the case's policy does not parse");
		pg_policy_free(policy);
		rc = -1;
		goto out;
	}
	r = pg_root_open(area.root, policy, c->root_flags | resolver);
	pg_policy_free(policy);
	if (!r) {
		problem(o, "pg_root_open failed: %s", strerror(errno));
		rc = -1;
		goto out;
	}
	if (resolver == 0 && !pg_root_uses_openat2(r))
		printf("# note: openat2 unavailable, both runs use the walk\n");
	if (resolver == PG_ROOT_NO_OPENAT2 && pg_root_uses_openat2(r))
		problem(o, "PG_ROOT_NO_OPENAT2 still resolves with openat2");
	a = adv_subst(&area, c->a, 0);
	b = adv_subst(&area, c->b, 1);
	if (c->between) {
		struct stat st;

		pg_stat(r, a, &st, 0);
		rc = adv_apply(&area, c->between);
		if (rc != 0)
			goto out;
		if (strstr(c->between, "#refresh") && pg_root_refresh(r) < 0)
			problem(o, "pg_root_refresh failed: %s", strerror(errno));
	}
	root_before = adv_snapshot(area.root);
	out_before = adv_snapshot(area.outside);

	errno = 0;
	o->ret = call(r, c, a, b, &area, o);
	o->err = o->ret < 0 ? errno : 0;
	if (o->ret < 0 && pg_last_refusal()->name) {
		snprintf(o->name, sizeof(o->name), "%s", pg_last_refusal()->name);
		if (pg_last_refusal()->err != o->err)
			problem(o, "errno %d but the refusal record says %d", o->err,
				pg_last_refusal()->err);
	}
	if (o->ret == 0 && pg_last_refusal()->name)
		problem(o, "succeeded but left refusal %s recorded", pg_last_refusal()->name);

	root_after = adv_snapshot(area.root);
	out_after = adv_snapshot(area.outside);
	if (!adv_snapshot_same("outside the root", out_before, out_after)) {
		problem(o, "something outside the root changed");
		o->escaped = true;
	}
	{
		char file[400];

		snprintf(file, sizeof(file), "%s/marker", area.outside);
		if (adv_read_file(file, marker, sizeof(marker)) != 4 || memcmp(marker, "MARK", 4)) {
			problem(o, "the outside marker is gone or changed");
			o->escaped = true;
		}
	}
	if ((o->ret < 0 || reads_only(c)) &&
	    !adv_snapshot_same(o->ret < 0 ? "refused call" : "read-only call", root_before, root_after))
		problem(o, "%s changed the tree", o->ret < 0 ? "a refused call" : "a reading call");
	rc = 0;
out:
	pg_root_close(r);
	free(root_before);
	free(root_after);
	free(out_before);
	free(out_after);
	adv_area_free(&area);
	return rc;
}

static void describe(char *buf, size_t size, int ret, int err, const char *name)
{
	if (ret == 0)
		snprintf(buf, size, "success");
	else
		snprintf(buf, size, "%s (%s)", name && *name ? name : "no refusal",
			 strerror(err));
}

static void run_case(void **state)
{
	const struct esc_case *c = *state;
	static const unsigned resolvers[2] = { 0, PG_ROOT_NO_OPENAT2 };
	static const char *const rname[2] = { "openat2", "walk" };
	struct outcome o[2];
	char want[128], got[128], other[128];
	const char *known = esc_known_failure(c->name);
	bool fail = false, wrong_answer = false;
	int i, fds = tu_fd_count();

	n_run++;
	for (i = 0; i < 2; i++) {
		int rc = run_once(c, resolvers[i], &o[i]);

		if (rc == 77) {
			n_skipped++;
			skip();
		}
		if (rc < 0) {
			printf("# %s [%s]: setup failed: %s\n", c->name, rname[i], o[i].problem);
			fail = true;
			continue;
		}
		describe(want, sizeof(want), c->want_err ? -1 : 0, c->want_err,
			 c->want_name == ANY_NAME ? "any refusal name" : c->want_name);
		describe(got, sizeof(got), o[i].ret, o[i].err, o[i].name);
		if (o[i].escaped)
			n_escapes++;
		if (o[i].problem[0]) {
			printf("# %s [%s] %s %s: %s\n", c->name, rname[i], esc_op_name(c->op),
			       c->a ? c->a : "", o[i].problem);
			fail = true;
		}
		if ((c->want_err == 0) != (o[i].ret == 0) ||
		    (c->want_err && o[i].err != c->want_err) ||
		    (c->want_name != ANY_NAME &&
		     strcmp(c->want_name ? c->want_name : "", o[i].name))) {
			printf("# %s%s [%s] %s: want %s, got %s\n", known ? "XFAIL " : "",
			       c->name, rname[i], esc_op_name(c->op), want, got);
			if (c->want_name && c->want_name != ANY_NAME &&
			    !strcmp(c->want_name, "workspace.path-escape") &&
			    o[i].ret == 0) {
				n_escapes++;
				fail = true;
			}
			wrong_answer = true;
		}
	}
	if (o[0].ret != o[1].ret || o[0].err != o[1].err || strcmp(o[0].name, o[1].name)) {
		bool excused = known && !strncmp(known, "split:", 6) && o[0].ret < 0 && o[1].ret < 0;

		describe(got, sizeof(got), o[0].ret, o[0].err, o[0].name);
		describe(other, sizeof(other), o[1].ret, o[1].err, o[1].name);
		printf("# %s%s: the resolvers disagree: openat2 %s, walk %s\n",
		       excused ? "XFAIL " : "", c->name, got, other);
		if (excused)
			wrong_answer = true;
		else
			fail = true;
	}
	if (tu_fd_count() != fds) {
		printf("# %s: %d descriptors leaked\n", c->name, tu_fd_count() - fds);
		fail = true;
	}
	if (wrong_answer && known && !fail) {
		printf("# XFAIL %s: %s\n", c->name, known);
		n_xfail++;
		return;
	}
	if (wrong_answer)
		fail = true;
	if (fail) {
		n_failed++;
		fail_msg("case %s failed", c->name);
	}
	if (known) {
		printf("# XPASS %s: the library now answers as the catalogue expects; "
		       "drop it from the known failures\n", c->name);
		n_xpass++;
	}
	n_passed++;
}

/* A casefolded directory treats .ENV and .env as one name; the deny must
 * hold there for real.  Needs CONFIG_UNICODE (tmpfs casefold). */
static void casefold_directory(void **state)
{
	struct adv_area area;
	char dir[600], file[700];
	const char *why;
	pg_policy *p;
	pg_root *r;
	int fd, flags = 0;

	(void)state;
	n_run++;
	if (!adv_private_mounts(&why)) {
		printf("SKIP casefold: %s\n", why);
		n_skipped++;
		skip();
	}
	assert_int_equal(adv_area_new(&area), 0);
	snprintf(dir, sizeof(dir), "%s/cf", area.root);
	assert_int_equal(mkdir(dir, 0755), 0);
	if (mount("pgadv", dir, "tmpfs", 0, "casefold=utf8") < 0) {
		printf("SKIP casefold: tmpfs refuses casefold=utf8 (%s): this kernel "
		       "lacks CONFIG_UNICODE, so no casefolded directory can be made\n",
		       strerror(errno));
		adv_area_free(&area);
		n_skipped++;
		skip();
	}
	snprintf(area.mounts[area.nmounts++], sizeof(area.mounts[0]), "%s", dir);
	snprintf(dir, sizeof(dir), "%s/cf/d", area.root);
	assert_int_equal(mkdir(dir, 0755), 0);
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_true(fd >= 0);
	flags = FS_CASEFOLD_FL;
	assert_int_equal(ioctl(fd, FS_IOC_SETFLAGS, &flags), 0);
	close(fd);
	snprintf(file, sizeof(file), "%s/.env", dir);
	fd = open(file, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "SECRET", 6), 6);
	close(fd);

	p = pg_policy_new();
	assert_int_equal(pg_policy_parse(p, "write .\ndeny cf/d/.env\n", 22), 0);
	for (int i = 0; i < 2; i++) {
		r = pg_root_open(area.root, p, PG_ROOT_XDEV | (i ? PG_ROOT_NO_OPENAT2 : 0));
		assert_non_null(r);
		assert_int_equal(pg_open(r, "cf/d/.ENV", O_RDONLY | O_CLOEXEC, 0), -1);
		assert_string_equal(pg_last_refusal()->name, "workspace.denied");
		assert_int_equal(pg_write_file(r, "cf/d/.Env", "x", 1, 0644), -1);
		assert_string_equal(pg_last_refusal()->name, "workspace.denied");
		pg_root_close(r);
	}
	pg_policy_free(p);
	adv_area_free(&area);
}

int main(void)
{
	size_t n, i;
	const struct esc_case *cases = esc_cases(&n);
	struct CMUnitTest *tests = calloc(n + 1, sizeof(*tests));
	const char *why;
	int failed;

	if (!tests)
		return 1;
	if (!adv_private_mounts(&why))
		printf("# mount cases will be skipped: %s\n", why);
	for (i = 0; i < n; i++) {
		tests[i].name = cases[i].name;
		tests[i].test_func = run_case;
		tests[i].initial_state = (void *)&cases[i];
	}
	tests[n].name = "casefold-directory";
	tests[n].test_func = casefold_directory;
	failed = _cmocka_run_group_tests("escape catalogue", tests, n + 1, NULL, NULL);
	printf("FIGURES escape-catalogue cases=%u resolvers=2 passed=%u failed=%u "
	       "known-failures=%u xpass=%u skipped=%u escapes=%u\n",
	       n_run, n_passed, n_failed, n_xfail, n_xpass, n_skipped, n_escapes);
	free(tests);
	return failed ? 1 : 0;
}
