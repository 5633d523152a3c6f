/* links.c - what judging hard links by identity costs on a tree like a
 * package manager's (pnpm, uv, cargo's hard-linking caches): every file a
 * link into a store outside the workspace, all of them linked just now.
 * A fresh root's first pass over the tree (the one search for other
 * links included) against a bare openat2 pass, the steady state per
 * file, and how many searches the pass took. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "bench.h"
#include "link-map.h"

#pragma weak pg_link_map_scans

#define LINKED_FILES 5000
#define PER_PACKAGE  50

static const char links_policy_text[] =
	"write .\n"
	"deny .env\n"
	"deny **/*.pem\n"
	"read! **/.git/hooks\n";

struct links_ctx {
	const char *dir;
	int         rootfd;
	pg_policy  *policy;
	pg_root    *root;     /* the steady-state side's root */
	pg_root    *single;   /* the same names, each a file of its own */
	char      (*names)[64];
	size_t      nnames;
	unsigned    scans;    /* of the last fresh pass */
};

/* The names of the tree, each a file of its own, under DIR. */
static int make_single_tree(const struct links_ctx *c, const char *dir)
{
	char path[4200];
	int dirfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);

	if (dirfd < 0)
		return -1;
	for (size_t i = 0; i < c->nnames; i++) {
		snprintf(path, sizeof(path), "node_modules/pkg%zu", i / PER_PACKAGE);
		if (i % PER_PACKAGE == 0 && bench_make_path(dirfd, path, false) < 0)
			break;
		if (bench_make_path(dirfd, c->names[i], true) < 0)
			break;
	}
	close(dirfd);
	return 0;
}

static int make_linked_tree(struct links_ctx *c, const char *store)
{
	char src[4200], dst[4200];

	for (size_t i = 0; i < c->nnames; i++) {
		int fd;

		snprintf(c->names[i], sizeof(c->names[i]), "node_modules/pkg%zu/f%zu.js",
			 i / PER_PACKAGE, i);
		snprintf(src, sizeof(src), "%s/f%zu", store, i);
		snprintf(dst, sizeof(dst), "%s/%s", c->dir, c->names[i]);
		fd = open(src, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (fd < 0 || close(fd) < 0)
			return -1;
		if (i % PER_PACKAGE == 0) {
			char pkg[64];

			snprintf(pkg, sizeof(pkg), "node_modules/pkg%zu", i / PER_PACKAGE);
			if (bench_make_path(c->rootfd, pkg, false) < 0)
				return -1;
		}
		if (link(src, dst) < 0)
			return -1;
	}
	return 0;
}

static int open_all(pg_root *root, struct links_ctx *c)
{
	for (size_t i = 0; i < c->nnames; i++) {
		int fd = pg_open(root, c->names[i], O_RDONLY | O_CLOEXEC, 0);

		if (fd < 0)
			return -1;
		close(fd);
	}
	return 0;
}

static int run_fresh_pass(void *p, size_t n)
{
	struct links_ctx *c = p;

	for (size_t k = 0; k < n; k++) {
		pg_root *root = pg_root_open(c->dir, c->policy, 0);
		int rc;

		if (!root)
			return -1;
		rc = open_all(root, c);
		c->scans = pg_link_map_scans ? pg_link_map_scans(root) : 0;
		pg_root_close(root);
		if (rc < 0)
			return -1;
	}
	return 0;
}

static int run_bare_pass(void *p, size_t n)
{
	struct links_ctx *c = p;

	for (size_t k = 0; k < n; k++)
		for (size_t i = 0; i < c->nnames; i++) {
			struct open_how how = { .flags = O_RDONLY | O_CLOEXEC,
						.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS |
							   RESOLVE_NO_XDEV };
			int fd = (int)syscall(SYS_openat2, c->rootfd, c->names[i], &how, sizeof(how));

			if (fd < 0)
				return -1;
			close(fd);
		}
	return 0;
}

static int run_steady_pass(void *p, size_t n)
{
	struct links_ctx *c = p;

	for (size_t k = 0; k < n; k++)
		if (open_all(c->root, c) < 0)
			return -1;
	return 0;
}

static int run_single_pass(void *p, size_t n)
{
	struct links_ctx *c = p;

	for (size_t k = 0; k < n; k++)
		if (open_all(c->single, c) < 0)
			return -1;
	return 0;
}

void bench_links(void)
{
	struct links_ctx c = { .rootfd = -1, .nnames = bench_iters(LINKED_FILES) };
	char *base = bench_mkdtemp("links", false);
	char store[1024], dir[1024], single[1024];

	bench_section("hard links: identity judging on a hard-linked tree (thread CPU time per pass, median)");
	bench_use_clock(BENCH_THREAD_CPU);
	if (!pg_root_open || !pg_open || !pg_policy_parse) {
		bench_row_unavailable("hard links", "pg_root_open / pg_open not built yet");
		goto out;
	}
	if (c.nnames < PER_PACKAGE)
		c.nnames = PER_PACKAGE;
	c.names = calloc(c.nnames, sizeof(*c.names));
	snprintf(store, sizeof(store), "%s/store", base ? base : "");
	snprintf(dir, sizeof(dir), "%s/ws", base ? base : "");
	snprintf(single, sizeof(single), "%s/single", base ? base : "");
	c.dir = dir;
	if (!base || !c.names || mkdir(store, 0755) < 0 || mkdir(dir, 0755) < 0 ||
	    (c.rootfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0 ||
	    make_linked_tree(&c, store) < 0 || !(c.policy = pg_policy_new()) ||
	    pg_policy_parse(c.policy, links_policy_text, strlen(links_policy_text)) < 0 ||
	    !(c.root = pg_root_open(dir, c.policy, 0)) || mkdir(single, 0755) < 0 ||
	    make_single_tree(&c, single) < 0 || !(c.single = pg_root_open(single, c.policy, 0))) {
		bench_row_unavailable("hard links", strerror(errno));
		goto out;
	}

	struct bench_side s[4] = {
		{ .label = "fresh root, pg_open pass", .fn = run_fresh_pass, .ctx = &c },
		{ .label = "openat2 pass", .fn = run_bare_pass, .ctx = &c },
		{ .label = "pg_open pass, links known", .fn = run_steady_pass, .ctx = &c },
		{ .label = "pg_open pass, single links", .fn = run_single_pass, .ctx = &c },
	};
	char what[160];

	bench_run(s, 4, 1, bench_reps());
	snprintf(what, sizeof(what),
		 "%zu files, each linked from outside just now: fresh root's pg_open pass / openat2",
		 c.nnames);
	bench_row_ratio(what, &s[0], &s[1], 0);
	bench_row_ratio("the same, links known (steady state): pg_open pass / openat2",
			&s[2], &s[1], 0);
	bench_row_ratio("identity's own cost: pg_open pass, links known / the same names single-linked",
			&s[2], &s[3], 1.15);
	bench_row_value("searches of the workspace in a fresh root's pass", c.scans, BENCH_COUNT, 1);
out:
	if (c.root)
		pg_root_close(c.root);
	if (c.single)
		pg_root_close(c.single);
	if (c.policy)
		pg_policy_free(c.policy);
	if (c.rootfd >= 0)
		close(c.rootfd);
	free(c.names);
	if (base)
		bench_rmtree(base);
	free(base);
}
