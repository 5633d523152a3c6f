/* atomic.c - pg_write_file of 4 KiB and 1 MiB against the sequence a
 * careful programmer writes by hand: open the parent beneath the root,
 * create a temporary, write, fsync, rename over the target, fsync the
 * directory. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "bench.h"

struct write_ctx {
	pg_root    *root;
	int         rootfd;
	const char *path;     /* guarded target, "w/target" */
	const char *dir;      /* bare: the parent, "w" */
	const char *name;     /* bare: the target's name in dir */
	const char *buf;
	size_t      len;
};

static int run_pg_write(void *p, size_t n)
{
	struct write_ctx *c = p;

	for (size_t i = 0; i < n; i++)
		if (pg_write_file(c->root, c->path, c->buf, c->len, 0644) < 0)
			return -1;
	return 0;
}

static int write_all(int fd, const char *buf, size_t len)
{
	while (len) {
		ssize_t k = write(fd, buf, len);

		if (k < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		buf += k;
		len -= (size_t)k;
	}
	return 0;
}

static int hand_write_once(struct write_ctx *c)
{
	struct open_how how = {
		.flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC,
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS | RESOLVE_NO_XDEV,
	};
	char tmp[64];
	int dfd, fd, ret = -1;

	dfd = (int)syscall(SYS_openat2, c->rootfd, c->dir, &how, sizeof how);
	if (dfd < 0)
		return -1;
	snprintf(tmp, sizeof tmp, ".%s.tmp", c->name);
	fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0)
		goto out;
	if (write_all(fd, c->buf, c->len) < 0 || fsync(fd) < 0) {
		close(fd);
		unlinkat(dfd, tmp, 0);
		goto out;
	}
	close(fd);
	if (renameat(dfd, tmp, dfd, c->name) < 0 || fsync(dfd) < 0)
		goto out;
	ret = 0;
out:
	close(dfd);
	return ret;
}

static int run_hand_write(void *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (hand_write_once(p) < 0)
			return -1;
	return 0;
}

static void write_row(struct write_ctx *c, const char *label, size_t len, size_t iters)
{
	char what[96];
	struct bench_side s[2] = {
		{ .label = "pg_write_file", .fn = run_pg_write, .ctx = c },
		{ .label = "hand-written", .fn = run_hand_write, .ctx = c },
	};

	c->len = len;
	/* fsync makes single writes noisy: twice the repetitions. */
	bench_run(s, 2, bench_iters(iters), 2 * bench_reps() + 1);
	snprintf(what, sizeof what, "atomic write %s: pg_write_file / by hand", label);
	bench_row_ratio(what, &s[0], &s[1], 1.1);
}

void bench_atomic(void)
{
	struct write_ctx c = { .rootfd = -1, .path = "w/target", .dir = "w", .name = "target" };
	char *dir = bench_mkdtemp("atomic", false);
	char *buf = malloc(1 << 20);

	bench_section("atomic write: guarded vs by hand (per write, median; fsync to disk)");
	if (!pg_root_open || !pg_write_file) {
		bench_row_unavailable("atomic write", "pg_write_file not built yet");
		goto out;
	}
	if (!dir || !buf || (c.rootfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0 ||
	    bench_make_path(c.rootfd, "w", false) < 0) {
		bench_row_unavailable("atomic write", strerror(errno));
		goto out;
	}
	memset(buf, 'x', 1 << 20);
	c.buf = buf;
	c.root = pg_root_open(dir, NULL, 0);
	if (!c.root) {
		bench_row_unavailable("atomic write", "pg_root_open failed");
		goto out;
	}
	write_row(&c, "4 KiB", 4096, 20);
	write_row(&c, "1 MiB", 1 << 20, 10);
	pg_root_close(c.root);
out:
	if (c.rootfd >= 0)
		close(c.rootfd);
	bench_rmtree(dir);
	free(dir);
	free(buf);
}
