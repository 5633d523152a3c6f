/* judge.c - the policy judge against policies of 10, 1 000 and 100 000
 * rules, plain and glob: the cost must stay flat as rules grow.  Also the
 * heap a compiled 100 000-rule policy holds, and the allocations per
 * judgement. */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

/* PLAIN: literal rules.  GLOB: globs spread over many directories.
 * SHARED: every glob under the same '**' node, so an index of patterns
 * per node is all that keeps the cost flat. */
enum shape { PLAIN, GLOB, SHARED };

/* Names judged, the same for every size: some hit a rule that exists in
 * every policy (index < 10), some hit only the root rule, some sit under a
 * rule's subtree.  Depths 2 to 8. */
static const char *const plain_names[] = {
	"dir1/sub1/secret",
	"dir1/sub1/secret/deeper/file.txt",
	"dir2/ro2/a/b/c.c",
	"dir3/w3/out.o",
	"src/lib/module/file.c",
	"src/lib/module/sub/x/y/z.h",
	"dir4/other/name",
	"docs/readme.md",
};

static const char *const glob_names[] = {
	"dir1/x.key1",
	"dir2/deep/er/cache2/blob",
	"a/b/c/tok3.pem",
	"dir4/file4",
	"src/lib/module/file.c",
	"src/main.c",
	"dir5/notakey.txt",
	"x/y/z/w/v/u/tok6.pem",
};

static const char *const shared_names[] = {
	"a/b/c/file.x6",
	"docs/y4.txt",
	"src/lib/z5q.c",
	"src/z2a.c",
	"src/a/b/main.c",
	"src/x/y/z/w.h",
	"deep/a/b/c/d/e/f/g.c",
	"b/file.x44",
};

#define N_NAMES (sizeof plain_names / sizeof plain_names[0])

struct judge_ctx {
	pg_policy         *policy;
	const char *const *names;
	size_t             lens[N_NAMES];
	unsigned           sink;
};

/* Rule I of a policy of SHAPE; rule 0 is "write .". */
static int add_rule(pg_policy *p, enum shape shape, size_t i)
{
	char path[128];
	enum pg_access a;

	if (i == 0)
		return pg_policy_add(p, PG_WRITE, ".");
	if (shape == PLAIN) {
		switch (i % 3) {
		case 0:  a = PG_DENY;  snprintf(path, sizeof path, "dir%zu/sub%zu/secret", i % 1000, i); break;
		case 1:  a = PG_READ;  snprintf(path, sizeof path, "dir%zu/ro%zu", i % 1000, i); break;
		default: a = PG_WRITE; snprintf(path, sizeof path, "dir%zu/w%zu", i % 1000, i); break;
		}
		/* Make the rules the names above hit exist in every size. */
		if (i == 1) { a = PG_DENY;  snprintf(path, sizeof path, "dir1/sub1/secret"); }
		if (i == 2) { a = PG_READ;  snprintf(path, sizeof path, "dir2/ro2"); }
		if (i == 3) { a = PG_WRITE; snprintf(path, sizeof path, "dir3/w3"); }
	} else if (shape == SHARED) {
		a = PG_DENY;
		switch (i % 3) {
		case 0:  snprintf(path, sizeof path, "**/*.x%zu", i); break;
		case 1:  snprintf(path, sizeof path, "**/y%zu.*", i); break;
		default: snprintf(path, sizeof path, "src/**/z%zu?.c", i); break;
		}
	} else {
		switch (i % 4) {
		case 0:  a = PG_DENY;  snprintf(path, sizeof path, "dir%zu/*.key%zu", i, i); break;
		case 1:  a = PG_DENY;  snprintf(path, sizeof path, "**/tok%zu.pem", i); break;
		case 2:  a = PG_READ;  snprintf(path, sizeof path, "dir%zu/**/cache%zu", i, i); break;
		default: a = PG_DENY;  snprintf(path, sizeof path, "dir%zu/f?le%zu", i, i); break;
		}
		if (i == 1) { a = PG_DENY; snprintf(path, sizeof path, "dir1/*.key1"); }
		if (i == 2) { a = PG_READ; snprintf(path, sizeof path, "dir2/**/cache2"); }
		if (i == 3) { a = PG_DENY; snprintf(path, sizeof path, "**/tok3.pem"); }
		if (i == 4) { a = PG_DENY; snprintf(path, sizeof path, "dir4/f?le4"); }
		if (i == 5) { a = PG_DENY; snprintf(path, sizeof path, "**/tok6.pem"); }
	}
	return pg_policy_add(p, a, path);
}

static pg_policy *make_policy(enum shape shape, size_t n)
{
	pg_policy *p = pg_policy_new();

	if (!p)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		if (add_rule(p, shape, i) < 0) {
			const struct pg_refusal *r = pg_last_refusal ? pg_last_refusal() : NULL;

			fprintf(stderr, "pg-bench: rule %zu refused: %s %s\n", i,
				r && r->name ? r->name : strerror(errno),
				r && r->rule ? r->rule : "");
			pg_policy_free(p);
			return NULL;
		}
	}
	return p;
}

static int run_judge(void *p, size_t n)
{
	struct judge_ctx *c = p;
	struct pg_judgement j;

	for (size_t i = 0; i < n; i++) {
		size_t k = i % N_NAMES;

		c->sink += (unsigned)pg_policy_judge(c->policy, c->names[k], c->lens[k], &j);
	}
	return 0;
}

static void set_names(struct judge_ctx *c, const char *const *names)
{
	c->names = names;
	for (size_t k = 0; k < N_NAMES; k++)
		c->lens[k] = strlen(names[k]);
}

static const size_t sizes[] = { 10, 1000, 100000 };
#define N_SIZES (sizeof sizes / sizeof sizes[0])

static void judge_shape(enum shape shape)
{
	static const char *const tags[] = { "plain", "glob", "glob, one node" };
	static const char *const *const names[] = { plain_names, glob_names, shared_names };
	const char *tag = tags[shape];
	struct judge_ctx ctx[N_SIZES] = { 0 };
	struct bench_side s[N_SIZES];
	char what[96];
	int64_t heap = 0;

	for (size_t k = 0; k < N_SIZES; k++) {
		int64_t before = bench_alloc_live();

		ctx[k].policy = make_policy(shape, sizes[k]);
		if (!ctx[k].policy) {
			snprintf(what, sizeof what, "judge %s, %zu rules", tag, sizes[k]);
			bench_row_unavailable(what, "building the policy failed");
			goto out;
		}
		set_names(&ctx[k], names[shape]);
		/* The first judgement compiles the policy if it compiles lazily. */
		run_judge(&ctx[k], N_NAMES);
		if (k == N_SIZES - 1)
			heap = bench_alloc_live() - before;
		s[k] = (struct bench_side){ .label = "judge", .fn = run_judge, .ctx = &ctx[k] };
	}
	/* Nanosecond calls on a shared VM: twice the repetitions. */
	bench_run(s, N_SIZES, bench_iters(200000), 2 * bench_reps() + 1);
	for (size_t k = 0; k < N_SIZES; k++) {
		snprintf(what, sizeof what, "judge %s, %zu rules", tag, sizes[k]);
		if (s[k].err)
			bench_row_unavailable(what, strerror(s[k].err));
		else
			bench_row_value(what, s[k].median, BENCH_NS, -1);
	}
	snprintf(what, sizeof what, "judge %s: 100000 rules / 10 rules", tag);
	bench_row_ratio(what, &s[2], &s[0], 1.2);
	snprintf(what, sizeof what, "judge %s: 1000 rules / 10 rules", tag);
	bench_row_ratio(what, &s[1], &s[0], 1.2);

	snprintf(what, sizeof what, "heap of a compiled %s policy, 100000 rules", tag);
	if (bench_alloc_available())
		bench_row_value(what, (double)heap, BENCH_BYTES, 32.0 * 1024 * 1024);
	else
		bench_row_unavailable(what, "no malloc interposer in a sanitizer build");
	snprintf(what, sizeof what, "heap allocations per judgement (%s, 100000)", tag);
	if (bench_alloc_available())
		bench_row_value(what, bench_allocs_per_op(run_judge, &ctx[2],
							   s[2].iters < 10000 ? s[2].iters : 10000),
				BENCH_COUNT, 0);
	else
		bench_row_unavailable(what, "no malloc interposer in a sanitizer build");
out:
	for (size_t k = 0; k < N_SIZES; k++)
		if (ctx[k].policy)
			pg_policy_free(ctx[k].policy);
}

/* The heap a root holds over N plain rules once the caller has freed
 * its policy (what a long-lived program pays), and the time pg_root_open
 * takes to compile them; BOUND and OPEN_BOUND are the targets. */
static void root_heap(size_t n, double bound, double open_bound)
{
	char *dir = bench_mkdtemp("rootheap", false);
	int64_t before = bench_alloc_live();
	pg_policy *pol = make_policy(PLAIN, n);
	pg_root *root = NULL;
	char what[96];
	uint64_t t0;
	double open_ns = 0;

	if (dir && pol) {
		t0 = bench_now_ns();
		root = pg_root_open(dir, pol, 0);
		open_ns = (double)(bench_now_ns() - t0);
	}
	if (pol)
		pg_policy_free(pol);
	snprintf(what, sizeof what, "heap of a root, %zu plain rules, policy freed", n);
	if (!root)
		bench_row_unavailable(what, "pg_root_open failed");
	else if (!bench_alloc_available())
		bench_row_unavailable(what, "no malloc interposer in a sanitizer build");
	else
		bench_row_value(what, (double)(bench_alloc_live() - before), BENCH_BYTES, bound);
	snprintf(what, sizeof what, "pg_root_open, %zu plain rules", n);
	if (root)
		bench_row_value(what, open_ns, BENCH_NS, open_bound);
	if (root)
		pg_root_close(root);
	if (dir) {
		bench_rmtree(dir);
		free(dir);
	}
}

void bench_policy(void)
{
	bench_section("policy: judging a name (thread CPU time per judgement, median)");
	if (!pg_policy_new || !pg_policy_add || !pg_policy_judge || !pg_policy_free) {
		bench_row_unavailable("judge", "lib/policy.c not built yet");
		return;
	}
	bench_use_clock(BENCH_THREAD_CPU);
	judge_shape(PLAIN);
	judge_shape(GLOB);
	judge_shape(SHARED);
	bench_use_clock(BENCH_WALL);
	if (pg_root_open && pg_root_close) {
		root_heap(100000, 12.0 * 1024 * 1024, -1);
		root_heap(1000000, 150.0 * 1024 * 1024, 1e9);
	}
}
