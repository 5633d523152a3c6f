/* batch.c - judging 100 000 paths at once: pg_check_batch against a
 * plain openat2 loop over the same paths on the same filesystem (the
 * scratch directory, not tmpfs), interleaved, after checking that its
 * verdicts are pg_check's one by one; beside them the floors (each parent
 * held once with a statx per leaf; openat2 + close submitted 64 at a time
 * through a ring), the PG_BATCH_NO_URING form, and `realpath -e` as a
 * shell user would run it over the same list. */
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
		for (unsigned b = 0; b < 10; b++) {
			char sub[16];
			int dfd;

			/* One directory fd for its 100 files: the tree is on a
			 * real disk, where each path walk per file would cost. */
			snprintf(sub, sizeof sub, "d%02u/e%u", a, b);
			if (bench_make_path(c->rootfd, sub, false) < 0 ||
			    (dfd = openat(c->rootfd, sub, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
				goto fail;
			for (unsigned f = 0; f < 100; f++) {
				char path[64], name[16];
				int fd;

				snprintf(name, sizeof name, "f%03u.txt", f);
				snprintf(path, sizeof path, "%s/%s", sub, name);
				fd = openat(dfd, name, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
				if (fd < 0 || close(fd) < 0 || !(c->paths[k++] = strdup(path))) {
					close(dfd);
					goto fail;
				}
				fprintf(list, "%s\n", path);
			}
			close(dfd);
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

/* Paths beside the list whose verdicts take the other ways: a symlink, a
 * missing name, a missing parent, a file as a parent, the root's own
 * entries, and a run that repeats a parent after another. */
static const char *const odd_paths[] = {
	"d00/e0/link", "d00/e0/link", "d00/e0/nothere", "d00/e0/nothere2",
	"nodir/x", "nodir/y", "d00/e0/f000.txt/x", "d00/e0/f000.txt/y",
	"d00", "d01", "d00/e0/f001.txt", "d00/../d00/e0/f002.txt", "d00/e0/",
	"d00/e0/f003.txt", "d00/e1/f000.txt", "d00/e0/f004.txt", "d00/e0/f005.txt",
};
#define N_ODD (sizeof odd_paths / sizeof odd_paths[0])

static bool same_verdict(const struct pg_verdict *a, const struct pg_verdict *b)
{
	return a->allowed == b->allowed && a->err == b->err && a->code == b->code &&
	       strcmp(a->rule, b->rule) == 0;
}

/* How many of PATHS (N) pg_check_batch (with FLAGS) judges otherwise than
 * pg_check one at a time, for every operation; -1 when it failed. */
static long verdict_differences(pg_root *root, const char *const *paths, size_t n,
				unsigned flags)
{
	struct pg_verdict *batch = calloc(n, sizeof *batch), one;
	long diff = 0;

	if (!batch)
		return -1;
	for (int op = PG_OP_READ; op <= PG_OP_DELETE; op++) {
		if (pg_check_batch(root, paths, n, (enum pg_op)op, batch, flags) < 0) {
			diff = -1;
			break;
		}
		for (size_t k = 0; k < n; k++) {
			memset(&one, 0, sizeof one);
			pg_check(root, paths[k], (enum pg_op)op, &one);
			diff += !same_verdict(&batch[k], &one);
		}
	}
	free(batch);
	return diff;
}

static void verdict_rows(struct batch_ctx *c)
{
	const char **all = malloc((c->n + N_ODD) * sizeof *all);
	long d0, d1;

	if (!all || !pg_check || symlinkat("f000.txt", c->rootfd, "d00/e0/link") < 0) {
		bench_row_unavailable("verdicts: pg_check_batch vs pg_check", strerror(errno));
		free(all);
		return;
	}
	memcpy(all, odd_paths, sizeof odd_paths);
	memcpy(all + N_ODD, c->paths, c->n * sizeof *all);
	d0 = verdict_differences(c->root, all, c->n + N_ODD, 0);
	d1 = verdict_differences(c->root, all, c->n + N_ODD, PG_BATCH_NO_URING);
	unlinkat(c->rootfd, "d00/e0/link", 0);
	free(all);
	if (d0 < 0 || d1 < 0) {
		bench_row_unavailable("verdicts: pg_check_batch vs pg_check", strerror(errno));
		return;
	}
	bench_row_value("verdicts differing from pg_check (4 ops x 100017 paths)",
			(double)(d0 + d1), BENCH_COUNT, 0);
}

void bench_batch(void)
{
	struct batch_ctx c = { .rootfd = -1 };
	struct bench_side wall[2];
	char *dir = bench_mkdtemp("batch", false);
	char listpath[4200] = "";
	uint64_t t0;

	bench_section("batch: judging 100000 paths (CPU time of the process, its io_uring workers "
		      "and children, per batch, median; all sides interleaved)");
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
	verdict_rows(&c);

	struct batch_ctx seq = c;
	struct bench_side s[5] = {
		{ .label = "pg_check_batch", .fn = run_check_batch, .ctx = &c },
		{ .label = "openat2 loop", .fn = run_openat2_loop, .ctx = &c },
		{ .label = "parent + statx loop", .fn = run_parent_statx, .ctx = &c },
		{ .label = "PG_BATCH_NO_URING", .fn = run_check_batch, .ctx = &seq },
		{ .label = "io_uring openat2 x64", .fn = run_uring_floor, .ctx = &c },
	};
	seq.flags = PG_BATCH_NO_URING;
	seq.out = calloc(c.n, sizeof *seq.out);
	if (!seq.out) {
		bench_row_unavailable("pg_check_batch", strerror(errno));
		goto out;
	}
	bench_run(s, 5, 1, bench_reps() < 5 ? 5 : bench_reps());
	bench_row_ratio("pg_check_batch / openat2 loop (CPU)", &s[0], &s[1], 0.5);
	bench_row_ratio("pg_check_batch / openat2 loop (wall)",
			on_wall(&s[0], &wall[0]), on_wall(&s[1], &wall[1]), 0);
	bench_row_ratio("floor: held parent + statx loop / openat2 loop (CPU)", &s[2], &s[1], 0);
	bench_row_ratio("pg_check_batch PG_BATCH_NO_URING / openat2 loop (CPU)", &s[3], &s[1], 0);
	bench_row_ratio("floor: io_uring openat2+close x64 / openat2 loop (CPU)", &s[4], &s[1], 0);
	free(seq.out);

	struct bench_side rp = { .label = "xargs realpath -e", .fn = run_realpath, .ctx = &c };
	bench_run(&rp, 1, 1, 2);
	bench_row_ratio("pg_check_batch / xargs realpath -e (CPU)", &s[0], &rp, 0);
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
