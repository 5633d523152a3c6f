/* harness.c - timing, medians, the ratio table and the scratch tree of
 * pg-bench. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"

static int n_pass, n_miss, n_unavailable;
static enum bench_clock timing_clock = BENCH_WALL;

void bench_use_clock(enum bench_clock clock)
{
	timing_clock = clock;
}

static uint64_t ts_ns(const struct timespec *ts)
{
	return (uint64_t)ts->tv_sec * 1000000000u + (uint64_t)ts->tv_nsec;
}

static uint64_t tv_ns(const struct timeval *tv)
{
	return (uint64_t)tv->tv_sec * 1000000000u + (uint64_t)tv->tv_usec * 1000u;
}

static uint64_t tick(void)
{
	struct timespec ts;
	struct rusage ru;

	switch (timing_clock) {
	case BENCH_THREAD_CPU:
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
		return ts_ns(&ts);
	case BENCH_PROCESS_CPU:
		/* Every thread of the process (io_uring's workers are threads
		 * of it) and every child it has waited for. */
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
		getrusage(RUSAGE_CHILDREN, &ru);
		return ts_ns(&ts) + tv_ns(&ru.ru_utime) + tv_ns(&ru.ru_stime);
	case BENCH_WALL:
		break;
	}
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts_ns(&ts);
}

uint64_t bench_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double bench_median(double *v, size_t n)
{
	if (n == 0)
		return 0;
	qsort(v, n, sizeof *v, cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static double scale(void)
{
	const char *s = getenv("PG_BENCH_SCALE");
	double f = s ? strtod(s, NULL) : 1.0;

	return f > 0 ? f : 1.0;
}

size_t bench_iters(size_t n)
{
	size_t k = (size_t)((double)n * scale());

	return k ? k : 1;
}

int bench_reps(void)
{
	const char *s = getenv("PG_BENCH_REPS");
	int r = s ? atoi(s) : 7;

	return r >= 1 && r <= 101 ? r : 7;
}

#define BENCH_MAX_REPS 101

/* Longest a side may take in one repetition: a slow side gets fewer
 * iterations rather than stretching the run (PG_BENCH_BUDGET_MS). */
static double budget_ns(void)
{
	const char *s = getenv("PG_BENCH_BUDGET_MS");
	double ms = s ? strtod(s, NULL) : 250;

	return (ms > 0 ? ms : 250) * 1e6;
}

int bench_run(struct bench_side *sides, size_t nsides, size_t n, int reps)
{
	double t[8][BENCH_MAX_REPS], wt[8][BENCH_MAX_REPS];
	size_t iters[8];
	int ok = 0;

	if (nsides > 8 || reps > BENCH_MAX_REPS)
		return -1;
	for (size_t s = 0; s < nsides; s++) {
		size_t w = 1, done = 0;
		uint64_t t0 = bench_now_ns(), spent = 0;
		double per_op;

		sides[s].err = 0;
		/* Warm-up (caches, dentries, lazily compiled state) of about
		 * n/20 operations, growing from one so that a slow side stops
		 * within a tenth of the budget; it measures how many iterations
		 * fit the budget, on the wall clock whatever clock times the
		 * run, since the budget bounds how long `make bench` takes. */
		for (;;) {
			if (sides[s].fn(sides[s].ctx, w) < 0) {
				sides[s].err = errno ? errno : EIO;
				break;
			}
			done += w;
			spent = bench_now_ns() - t0;
			if (done >= n / 20 || (double)spent > budget_ns() / 10)
				break;
			w = done;
		}
		if (sides[s].err)
			continue;
		per_op = (double)spent / (double)done;
		iters[s] = n;
		if (per_op * (double)n > budget_ns())
			iters[s] = (size_t)(budget_ns() / per_op) ? (size_t)(budget_ns() / per_op) : 1;
		sides[s].iters = iters[s];
	}
	for (int r = 0; r < reps; r++) {
		for (size_t k = 0; k < nsides; k++) {
			/* Rotate which side goes first in each repetition. */
			size_t s = (k + (size_t)r) % nsides;
			uint64_t t0, w0;

			if (sides[s].err)
				continue;
			w0 = bench_now_ns();
			t0 = tick();
			if (sides[s].fn(sides[s].ctx, iters[s]) < 0) {
				sides[s].err = errno ? errno : EIO;
				continue;
			}
			t[s][r] = (double)(tick() - t0) / (double)iters[s];
			wt[s][r] = (double)(bench_now_ns() - w0) / (double)iters[s];
		}
	}
	for (size_t s = 0; s < nsides; s++) {
		if (sides[s].err) {
			ok = -1;
			continue;
		}
		sides[s].median = bench_median(t[s], (size_t)reps);
		sides[s].wall = bench_median(wt[s], (size_t)reps);
		sides[s].spread = sides[s].median > 0 ?
			(t[s][reps - 1] - t[s][0]) / sides[s].median : 0;
	}
	return ok;
}

/* ------------------------------------------------------------- table */

static void fmt_value(char *buf, size_t size, double v, enum bench_unit unit)
{
	switch (unit) {
	case BENCH_NS:
		if (v < 1e3)
			snprintf(buf, size, "%.0f ns", v);
		else if (v < 1e6)
			snprintf(buf, size, "%.2f us", v / 1e3);
		else if (v < 1e9)
			snprintf(buf, size, "%.2f ms", v / 1e6);
		else
			snprintf(buf, size, "%.2f s", v / 1e9);
		break;
	case BENCH_BYTES:
		if (v < 1024 * 1024)
			snprintf(buf, size, "%.1f KiB", v / 1024);
		else
			snprintf(buf, size, "%.1f MiB", v / (1024 * 1024));
		break;
	case BENCH_COUNT:
		snprintf(buf, size, "%.2f", v);
		break;
	}
}

void bench_section(const char *title)
{
	printf("\n== %s\n", title);
	printf("%-52s %11s %11s %7s %10s  %s\n", "measure", "guarded", "bare", "ratio",
	       "target", "");
	fflush(stdout);
}

static void verdict(double v, double bound)
{
	if (bound <= 0) {
		printf("\n");
	} else if (v <= bound) {
		printf("  PASS\n");
		n_pass++;
	} else {
		printf("  MISS\n");
		n_miss++;
	}
	fflush(stdout);
}

void bench_row_ratio(const char *what, const struct bench_side *guarded,
		     const struct bench_side *bare, double target)
{
	char g[32], b[32], t[16] = "", r[16];
	double ratio;

	if (guarded->err || bare->err) {
		char why[96];

		snprintf(why, sizeof why, "%s failed: %s",
			 guarded->err ? guarded->label : bare->label,
			 strerror(guarded->err ? guarded->err : bare->err));
		bench_row_unavailable(what, why);
		return;
	}
	fmt_value(g, sizeof g, guarded->median, BENCH_NS);
	fmt_value(b, sizeof b, bare->median, BENCH_NS);
	if (target > 0)
		snprintf(t, sizeof t, "<=%.2f", target);
	ratio = guarded->median / bare->median;
	snprintf(r, sizeof r, ratio < 10 ? "%.2f" : ratio < 100 ? "%.1f" : "%.0f", ratio);
	printf("%-52s %11s %11s %7s %10s", what, g, b, r, t);
	verdict(ratio, target);
}

void bench_row_value(const char *what, double value, enum bench_unit unit, double bound)
{
	char v[32], t[32] = "";

	fmt_value(v, sizeof v, value, unit);
	if (bound > 0) {
		char bv[24];

		fmt_value(bv, sizeof bv, bound, unit);
		snprintf(t, sizeof t, "<=%s", bv);
	} else if (bound == 0 && unit == BENCH_COUNT) {
		/* A count with bound 0 is the "no allocation" target. */
		snprintf(t, sizeof t, "0");
	}
	printf("%-52s %11s %11s %7s %10s", what, v, "", "", t);
	if (unit == BENCH_COUNT && bound == 0) {
		if (value == 0) {
			printf("  PASS\n");
			n_pass++;
		} else {
			printf("  MISS\n");
			n_miss++;
		}
		fflush(stdout);
		return;
	}
	verdict(value, bound);
}

void bench_row_unavailable(const char *what, const char *why)
{
	printf("%-52s %11s   (%s)\n", what, "not available", why);
	n_unavailable++;
	fflush(stdout);
}

int bench_summary(void)
{
	printf("\n%d PASS, %d MISS, %d not available\n", n_pass, n_miss, n_unavailable);
	return n_miss;
}

/* ----------------------------------------------------------- scratch */

char *bench_mkdtemp(const char *tag, bool memory)
{
	const char *base = getenv("PG_BENCH_DIR");
	char buf[PATH_MAX];

	if ((!base || !*base) && memory && access("/dev/shm", W_OK | X_OK) == 0)
		base = "/dev/shm";
	if (!base || !*base)
		base = getenv("TMPDIR");
	if (!base || !*base)
		base = "/tmp";
	if ((size_t)snprintf(buf, sizeof buf, "%s/pg-bench-%s.XXXXXX", base, tag) >= sizeof buf)
		return NULL;
	if (!mkdtemp(buf))
		return NULL;
	return strdup(buf);
}

static int rm_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (type == FTW_DP)
		return rmdir(path) < 0 ? 0 : 0;
	(void)unlink(path);
	return 0;
}

void bench_rmtree(const char *path)
{
	if (path)
		(void)nftw(path, rm_one, 64, FTW_DEPTH | FTW_PHYS);
}

int bench_make_path(int dirfd, const char *rel, bool file)
{
	char buf[PATH_MAX];
	size_t len = strlen(rel);

	if (len >= sizeof buf)
		return errno = ENAMETOOLONG, -1;
	memcpy(buf, rel, len + 1);
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdirat(dirfd, buf, 0755) < 0 && errno != EEXIST)
			return -1;
		*p = '/';
	}
	if (file) {
		int fd = openat(dirfd, buf, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);

		if (fd < 0)
			return -1;
		close(fd);
		return 0;
	}
	return mkdirat(dirfd, buf, 0755) < 0 && errno != EEXIST ? -1 : 0;
}
