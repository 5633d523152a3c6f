/* batch.c - judging 100 000 paths at once: pg_check_batch through
 * io_uring against its sequential fallback, against `realpath -e` as a
 * shell user would run it over the same list, and the bare floors (an
 * openat2 loop, and openat2 + close submitted 64 at a time through a
 * ring). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <liburing.h>
#include <stdio.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "bench.h"

#define N_PATHS 100000
#define RING_BATCH 64

struct batch_ctx {
	pg_root           *root;
	int                rootfd;
	const char        *dir;
	const char        *list;     /* file of the paths, one a line */
	char             **paths;
	size_t             n;
	struct pg_verdict *out;
	unsigned           flags;
};

static int run_check_batch(void *p, size_t iters)
{
	struct batch_ctx *c = p;

	for (size_t i = 0; i < iters; i++) {
		ssize_t refused = pg_check_batch(c->root, (const char *const *)c->paths, c->n,
						 PG_OP_READ, c->out, c->flags);

		if (refused < 0)
			return -1;
		if (refused > 0) {
			/* Every path is allowed: a refusal means the bench measured the wrong thing. */
			errno = EACCES;
			return -1;
		}
	}
	return 0;
}

static int run_openat2_loop(void *p, size_t iters)
{
	struct batch_ctx *c = p;
	struct open_how how = {
		.flags = O_PATH | O_CLOEXEC,
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS | RESOLVE_NO_XDEV,
	};

	for (size_t i = 0; i < iters; i++)
		for (size_t k = 0; k < c->n; k++) {
			int fd = (int)syscall(SYS_openat2, c->rootfd, c->paths[k], &how, sizeof how);

			if (fd < 0)
				return -1;
			close(fd);
		}
	return 0;
}

/* What a batch could cost without one descriptor per path: hold each
 * parent (openat2 without symlinks, beneath), statx the last component
 * without following it.  Consecutive paths sharing a parent share the
 * open, as sorted lists do. */
static int run_parent_statx(void *p, size_t iters)
{
	struct batch_ctx *c = p;
	struct open_how how = {
		.flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS | RESOLVE_NO_XDEV |
			   RESOLVE_NO_SYMLINKS,
	};

	for (size_t i = 0; i < iters; i++) {
		char parent[PATH_MAX] = "";
		int dfd = -1;

		for (size_t k = 0; k < c->n; k++) {
			const char *slash = strrchr(c->paths[k], '/');
			size_t plen = slash ? (size_t)(slash - c->paths[k]) : 0;
			struct statx sx;

			if (dfd < 0 || strncmp(parent, c->paths[k], plen) != 0 || parent[plen]) {
				if (dfd >= 0)
					close(dfd);
				memcpy(parent, c->paths[k], plen);
				parent[plen] = '\0';
				dfd = (int)syscall(SYS_openat2, c->rootfd, plen ? parent : ".", &how,
						   sizeof how);
				if (dfd < 0)
					return -1;
			}
			if (statx(dfd, slash ? slash + 1 : c->paths[k], AT_SYMLINK_NOFOLLOW,
				  STATX_TYPE | STATX_INO, &sx) < 0) {
				close(dfd);
				return -1;
			}
		}
		if (dfd >= 0)
			close(dfd);
	}
	return 0;
}

static int reap(struct io_uring *ring, unsigned count, int *fds)
{
	for (unsigned k = 0; k < count; k++) {
		struct io_uring_cqe *cqe;
		int r = io_uring_wait_cqe(ring, &cqe);

		if (r < 0)
			return errno = -r, -1;
		if (cqe->res < 0) {
			errno = -cqe->res;
			io_uring_cqe_seen(ring, cqe);
			return -1;
		}
		if (fds)
			fds[io_uring_cqe_get_data64(cqe)] = cqe->res;
		io_uring_cqe_seen(ring, cqe);
	}
	return 0;
}

static int run_uring_floor(void *p, size_t iters)
{
	struct batch_ctx *c = p;
	struct open_how how = {
		.flags = O_PATH | O_CLOEXEC,
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS | RESOLVE_NO_XDEV,
	};
	struct io_uring ring;
	int fds[RING_BATCH], r, ret = 0;

	r = io_uring_queue_init(2 * RING_BATCH, &ring, 0);
	if (r < 0)
		return errno = -r, -1;
	for (size_t i = 0; i < iters && ret == 0; i++) {
		for (size_t base = 0; base < c->n && ret == 0; base += RING_BATCH) {
			unsigned m = c->n - base < RING_BATCH ? (unsigned)(c->n - base) : RING_BATCH;

			for (unsigned k = 0; k < m; k++) {
				struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);

				io_uring_prep_openat2(sqe, c->rootfd, c->paths[base + k], &how);
				io_uring_sqe_set_data64(sqe, k);
			}
			io_uring_submit(&ring);
			if (reap(&ring, m, fds) < 0) {
				ret = -1;
				break;
			}
			for (unsigned k = 0; k < m; k++)
				io_uring_prep_close(io_uring_get_sqe(&ring), fds[k]);
			io_uring_submit(&ring);
			if (reap(&ring, m, NULL) < 0)
				ret = -1;
		}
	}
	io_uring_queue_exit(&ring);
	return ret;
}

static int run_realpath(void *p, size_t iters)
{
	struct batch_ctx *c = p;
	char cmd[8192];

	if ((size_t)snprintf(cmd, sizeof cmd,
			     "cd '%s' && xargs -d '\\n' -a '%s' realpath -e -- >/dev/null",
			     c->dir, c->list) >= sizeof cmd)
		return errno = ENAMETOOLONG, -1;
	for (size_t i = 0; i < iters; i++)
		if (system(cmd) != 0)
			return errno = ECHILD, -1;
	return 0;
}

static int make_tree(struct batch_ctx *c, const char *listpath)
{
	FILE *list = fopen(listpath, "we");
	size_t k = 0;

	if (!list)
		return -1;
	c->paths = calloc(N_PATHS, sizeof *c->paths);
	if (!c->paths)
		goto fail;
	for (unsigned a = 0; a < 100; a++)
		for (unsigned b = 0; b < 10; b++)
			for (unsigned f = 0; f < 100; f++) {
				char path[64];

				snprintf(path, sizeof path, "d%02u/e%u/f%03u.txt", a, b, f);
				if (bench_make_path(c->rootfd, path, true) < 0 ||
				    !(c->paths[k++] = strdup(path)))
					goto fail;
				fprintf(list, "%s\n", path);
			}
	c->n = k;
	return fclose(list) == 0 ? 0 : -1;
fail:
	fclose(list);
	return -1;
}

/* SIDE as timed on the wall clock, in OUT. */
static const struct bench_side *on_wall(const struct bench_side *side, struct bench_side *out)
{
	*out = *side;
	out->median = side->wall;
	return out;
}

void bench_batch(void)
{
	struct batch_ctx c = { .rootfd = -1 };
	struct bench_side wall[2];
	char *dir = bench_mkdtemp("batch", true);
	char listpath[4200] = "";
	uint64_t t0;

	bench_section("batch: judging 100000 paths (CPU time of the process, its io_uring workers "
		      "and children, per batch, median)");
	if (!dir || (c.rootfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0) {
		bench_row_unavailable("batch", strerror(errno));
		goto out;
	}
	snprintf(listpath, sizeof listpath, "%s.list", dir);
	t0 = bench_now_ns();
	if (make_tree(&c, listpath) < 0) {
		bench_row_unavailable("batch", strerror(errno));
		goto out;
	}
	printf("(%zu files in %s, made in %.2f s)\n", c.n, dir,
	       (double)(bench_now_ns() - t0) / 1e9);
	c.dir = dir;
	c.list = listpath;
	bench_use_clock(BENCH_PROCESS_CPU);

	struct bench_side floor[3] = {
		{ .label = "io_uring openat2 x64", .fn = run_uring_floor, .ctx = &c },
		{ .label = "openat2 loop", .fn = run_openat2_loop, .ctx = &c },
		{ .label = "parent + statx loop", .fn = run_parent_statx, .ctx = &c },
	};
	bench_run(floor, 3, 1, 3);
	bench_row_ratio("floor: io_uring openat2+close x64 / openat2 loop (CPU)", &floor[0], &floor[1], 0);
	bench_row_ratio("floor: io_uring openat2+close x64 / openat2 loop (wall)",
			on_wall(&floor[0], &wall[0]), on_wall(&floor[1], &wall[1]), 0);
	bench_row_ratio("floor: held parent + statx loop / openat2 loop (CPU)", &floor[2], &floor[1], 0);

	if (!pg_root_open || !pg_check_batch) {
		bench_row_unavailable("pg_check_batch", "lib/batch.c not built yet");
		goto out;
	}
	c.root = pg_root_open(dir, NULL, 0);
	c.out = calloc(c.n, sizeof *c.out);
	if (!c.root || !c.out) {
		bench_row_unavailable("pg_check_batch", "pg_root_open failed");
		goto out;
	}

	struct batch_ctx seq = c;
	struct bench_side s[2] = {
		{ .label = "pg_check_batch", .fn = run_check_batch, .ctx = &c },
		{ .label = "PG_BATCH_NO_URING", .fn = run_check_batch, .ctx = &seq },
	};
	seq.flags = PG_BATCH_NO_URING;
	bench_run(s, 2, 1, 5);
	bench_row_ratio("pg_check_batch: io_uring / PG_BATCH_NO_URING (CPU)", &s[0], &s[1], 0);
	bench_row_ratio("pg_check_batch: io_uring / PG_BATCH_NO_URING (wall)",
			on_wall(&s[0], &wall[0]), on_wall(&s[1], &wall[1]), 0.5);
	bench_row_ratio("pg_check_batch io_uring / bare openat2 loop", &s[0], &floor[1], 0);

	struct bench_side rp = { .label = "xargs realpath -e", .fn = run_realpath, .ctx = &c };
	bench_run(&rp, 1, 1, 2);
	bench_row_ratio("pg_check_batch io_uring / xargs realpath -e", &s[0], &rp, 0);
out:
	bench_use_clock(BENCH_WALL);
	if (c.root)
		pg_root_close(c.root);
	if (c.rootfd >= 0)
		close(c.rootfd);
	if (c.paths)
		for (size_t k = 0; k < N_PATHS; k++)
			free(c.paths[k]);
	free(c.paths);
	free(c.out);
	if (*listpath)
		unlink(listpath);
	bench_rmtree(dir);
	free(dir);
}
