/* pg-bench.c - pathgate's benchmark: each guarded operation side by side
 * with the bare syscall it wraps, ratios of medians, PASS/MISS per target.
 *
 *   pg-bench [--strict] [SECTION...]    SECTION: ops policy atomic batch envelope
 *                                       preload links
 *
 * PG_BENCH_REPS (default 7) sets the repetitions, PG_BENCH_SCALE scales the
 * iterations, PG_BENCH_DIR says where the scratch trees go (default
 * $TMPDIR or /tmp).  Exit 0, or with --strict 1 when a target is missed. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"

static const struct {
	const char *name;
	void (*run)(void);
} sections[] = {
	{ "ops", bench_ops },
	{ "policy", bench_policy },
	{ "atomic", bench_atomic },
	{ "batch", bench_batch },
	{ "envelope", bench_envelope },
	{ "preload", bench_preload },
	{ "links", bench_links },
};

#define N_SECTIONS (sizeof sections / sizeof sections[0])

static void usage(FILE *f)
{
	fprintf(f, "usage: pg-bench [--strict] [SECTION...]\nsections:");
	for (size_t i = 0; i < N_SECTIONS; i++)
		fprintf(f, " %s", sections[i].name);
	fprintf(f, "\n");
}

int main(int argc, char **argv)
{
	bool strict = false, chosen[N_SECTIONS] = { false }, any = false;
	struct utsname u;
	uint64_t t0 = bench_now_ns();
	int misses;

	for (int i = 1; i < argc; i++) {
		size_t k;

		if (strcmp(argv[i], "--strict") == 0) {
			strict = true;
			continue;
		}
		if (strcmp(argv[i], "--help") == 0) {
			usage(stdout);
			return 0;
		}
		for (k = 0; k < N_SECTIONS; k++)
			if (strcmp(argv[i], sections[k].name) == 0)
				break;
		if (k == N_SECTIONS) {
			usage(stderr);
			return 2;
		}
		chosen[k] = any = true;
	}
	uname(&u);
	printf("pg-bench (%s %s): %s %s, %ld CPUs, %d repetitions, median of each; "
	       "ratio = guarded / bare\n", PACKAGE_NAME, PACKAGE_VERSION, u.sysname, u.release,
	       sysconf(_SC_NPROCESSORS_ONLN), bench_reps());
	for (size_t k = 0; k < N_SECTIONS; k++) {
		uint64_t t1 = bench_now_ns();

		if (any && !chosen[k])
			continue;
		sections[k].run();
		printf("(%s: %.1f s)\n", sections[k].name, (double)(bench_now_ns() - t1) / 1e9);
	}
	misses = bench_summary();
	printf("total time %.1f s\n", (double)(bench_now_ns() - t0) / 1e9);
	return strict && misses ? 1 : 0;
}
