/* fuzz_resolve.c - differential fuzzing of the two resolvers.
 *
 * One tree, built once, full of ways out (links to / and to the outside,
 * '..' links, dangling links, loops, a chain of 41 links, denied and
 * read-only names), and two roots on it: openat2 and the O_PATH walk
 * (PG_ROOT_NO_OPENAT2).  Each input is one selector byte (which read-only
 * call) and a path.  Both roots must give the same answer (success, errno
 * and refusal name), every fd handed out must lie beneath the root, and
 * the tree, inside and outside the root, must never change.
 *
 * Only calls that change nothing are fuzzed, so every input meets the same
 * tree; the catalogue covers the mutating calls.  With -DPG_FUZZ_REPLAY
 * this is a plain program replaying the committed corpus (make check).
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../escape/adv.h"
#include "pathgate.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct adv_area area;
static pg_root *roots[2];
static char *snap_before;
static unsigned long runs;
#ifdef PG_FUZZ_REPLAY
static unsigned disagreements;
#endif

#define FAIL(...) do { \
	fprintf(stderr, "fuzz_resolve: " __VA_ARGS__); \
	fputc('\n', stderr); \
	abort(); \
} while (0)

static void finish(void)
{
	char *after;

	if (!roots[0])
		return;
	after = adv_snapshot(area.base);
	if (!adv_snapshot_same("fuzzed tree", snap_before, after))
		FAIL("the tree changed under read-only calls");
	free(after);
	free(snap_before);
	pg_root_close(roots[0]);
	pg_root_close(roots[1]);
	roots[0] = roots[1] = NULL;
	adv_area_free(&area);
}

static void init(void)
{
	static const char policy_text[] =
		"write .\ndeny .env\ndeny secret\nread ro\ndeny absent-deny\ndeny **/*.pem\n";
	char chain[41 * 24 + 64];
	size_t len = 0;
	pg_policy *p;
	int i;

	if (adv_area_new(&area) < 0)
		FAIL("cannot make the scratch area");
	for (i = 1; i < 41; i++)
		len += (size_t)snprintf(chain + len, sizeof(chain) - len, "l c%d c%d\n", i, i + 1);
	snprintf(chain + len, sizeof(chain) - len, "l c41 dir\n");
	if (adv_apply(&area,
		      "l esc_abs @OUT@\nl esc_rel ../outside\nl esc_file @OUT@/marker\n"
		      "l esc_slash /\nl esc_dotdot ..\nl up dir/..\nl dir/up ..\n"
		      "l dir/sub/out ../../../outside\nl dl nothere\nl dl_deny absent-deny\n"
		      "l loop1 loop2\nl loop2 loop1\nl self self\nl toenv .env\n"
		      "l tosecret secret\nl p_root /proc/self/root\nl p_fd /proc/self/fd/0\n"
		      "f k.pem PEM\nl innocent k.pem\nd a\nd a/b\nd a/b/c\nl a/b/c/top ../../..\n"
		      "h alias .env\nl deep dir/sub\nf dir/sub/.ENV x\n") < 0 ||
	    adv_apply(&area, chain) < 0)
		FAIL("cannot build the tree");
	p = pg_policy_new();
	if (!p || pg_policy_parse(p, policy_text, sizeof(policy_text) - 1) < 0)
		FAIL("policy");
	roots[0] = pg_root_open(area.root, p, 0);
	roots[1] = pg_root_open(area.root, p, PG_ROOT_NO_OPENAT2);
	pg_policy_free(p);
	if (!roots[0] || !roots[1])
		FAIL("pg_root_open: %s", strerror(errno));
	snap_before = adv_snapshot(area.base);
	atexit(finish);
}

struct answer { long ret; int err; const char *name; };

static void check_fd(int fd, const char *path, int which)
{
	if (!adv_fd_within(fd, area.root))
		FAIL("resolver %d handed out an fd outside the root for \"%s\"", which, path);
}

static struct answer ask(int which, unsigned sel, const char *path)
{
	static const enum pg_op ops[] = { PG_OP_READ, PG_OP_WRITE, PG_OP_CREATE, PG_OP_DELETE };
	pg_root *r = roots[which];
	struct answer a;
	struct stat st;
	struct pg_verdict v;
	char buf[256];
	DIR *d;
	int fd;

	errno = 0;
	switch (sel % 10) {
	case 0: a.ret = pg_stat(r, path, &st, 0); break;
	case 1: a.ret = pg_stat(r, path, &st, AT_SYMLINK_NOFOLLOW); break;
	case 2: case 3: case 4: {
		static const int flags[] = { O_RDONLY, O_PATH, O_RDONLY | O_DIRECTORY };

		fd = pg_open(r, path, flags[sel % 10 - 2] | O_CLOEXEC, 0);
		a.ret = fd < 0 ? -1 : 0;
		if (fd >= 0) {
			check_fd(fd, path, which);
			close(fd);
		}
		break;
	}
	case 5: a.ret = pg_readlink(r, path, buf, sizeof(buf)) < 0 ? -1 : 0; break;
	case 6:
		d = pg_opendir(r, path);
		a.ret = d ? 0 : -1;
		if (d) {
			check_fd(dirfd(d), path, which);
			closedir(d);
		}
		break;
	default:
		a.ret = pg_check(r, path, ops[sel % 10 - 7 + (sel & 0x10 ? 1 : 0)], &v);
		break;
	}
	a.err = a.ret < 0 ? errno : 0;
	a.name = a.ret < 0 ? pg_last_refusal()->name : NULL;
	return a;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char path[PG_PATH_MAX + 64];
	struct answer a, b;
	size_t len;

	if (!roots[0])
		init();
	if (size < 2)
		return 0;
	len = size - 1 < sizeof(path) - 1 ? size - 1 : sizeof(path) - 1;
	memcpy(path, data + 1, len);
	path[len] = '\0';
	a = ask(0, data[0], path);
	b = ask(1, data[0], path);
	if (a.ret != b.ret || a.err != b.err ||
	    (a.name != b.name && (!a.name || !b.name || strcmp(a.name, b.name)))) {
		fprintf(stderr, "fuzz_resolve: the resolvers disagree on call %u \"%s\": "
			"openat2 %ld %s %s, walk %ld %s %s\n",
			data[0] % 10u + (data[0] % 10u >= 7 && (data[0] & 0x10) ? 1 : 0), path,
			a.ret, strerror(a.err), a.name ? a.name : "-",
			b.ret, strerror(b.err), b.name ? b.name : "-");
#ifdef PG_FUZZ_REPLAY
		disagreements++;   /* replay lists them all, then fails */
#else
		abort();
#endif
	}
	if (++runs % 8192 == 0) {
		char *now = adv_snapshot(area.base);

		if (!adv_snapshot_same("fuzzed tree", snap_before, now))
			FAIL("the tree changed under read-only calls");
		free(now);
	}
	return 0;
}

#ifdef PG_FUZZ_REPLAY
static int replay_dir(const char *dir, unsigned *count)
{
	static uint8_t data[PG_PATH_MAX + 64];
	struct dirent **names;
	char file[4400];
	int i, n = scandir(dir, &names, NULL, alphasort);

	if (n < 0) {
		perror(dir);
		return -1;
	}
	for (i = 0; i < n; i++) {
		FILE *f;

		if (names[i]->d_name[0] != '.') {
			snprintf(file, sizeof(file), "%s/%s", dir, names[i]->d_name);
			f = fopen(file, "rbe");
			if (f) {
				size_t got = fread(data, 1, sizeof(data), f);

				fclose(f);
				/* Every call on every input, not only the one
				 * its selector names. */
				for (uint8_t sel = 0; sel < 20; sel++) {
					data[0] = sel;
					LLVMFuzzerTestOneInput(data, got);
				}
				(*count)++;
			}
		}
		free(names[i]);
	}
	free(names);
	return 0;
}

int main(int argc, char **argv)
{
	const char *srcdir = getenv("top_srcdir");
	char dir[4096];
	unsigned count = 0;
	int fds = tu_fd_count(), rc;

	snprintf(dir, sizeof(dir), "%s/tests/fuzz/corpus/resolve", srcdir ? srcdir : ".");
	rc = replay_dir(argc > 1 ? argv[1] : dir, &count);
	finish();
	printf("fuzz_resolve: replayed %u inputs x 20 calls on both resolvers, %u disagreements\n",
	       count, disagreements);
	if (tu_fd_count() != fds) {
		fprintf(stderr, "fuzz_resolve: %d descriptors leaked\n", tu_fd_count() - fds);
		return 1;
	}
	return rc < 0 || count == 0 || disagreements;
}
#endif
