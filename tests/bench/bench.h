/* bench.h - the benchmark harness of pg-bench: timing by repetitions and
 * medians, the side-by-side table of ratios with PASS/MISS per target, the
 * allocation counter, and the scratch tree each section works in.
 *
 * The library's entry points are referenced weakly (see the pragmas
 * below): the bench links the whole internal library, and a part of it
 * that has not been built yet shows as "not available" in its rows instead
 * of breaking the build. */
#ifndef PG_BENCH_H
#define PG_BENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pathgate.h"
#include "policy.h"

#pragma weak pg_policy_new
#pragma weak pg_policy_add
#pragma weak pg_policy_add_final
#pragma weak pg_policy_parse
#pragma weak pg_policy_free
#pragma weak pg_policy_rule_count
#pragma weak pg_policy_judge
#pragma weak pg_root_open
#pragma weak pg_root_close
#pragma weak pg_root_uses_openat2
#pragma weak pg_open
#pragma weak pg_stat
#pragma weak pg_mkdir
#pragma weak pg_rmdir
#pragma weak pg_rename
#pragma weak pg_write_file
#pragma weak pg_check_batch
#pragma weak pg_check
#pragma weak pg_last_refusal
#pragma weak pg_plan_build
#pragma weak pg_plan_free
#pragma weak pg_plan_argv
#pragma weak pg_plan_mount_count
#pragma weak pg_spawn

/* ------------------------------------------------------------- timing */

/* Run the operation N times; return 0, or -1 (errno set) when an
 * operation failed, which voids the row. */
typedef int (*bench_fn)(void *ctx, size_t n);

struct bench_side {
	const char *label;    /* "pg_open", "openat2" ... */
	bench_fn    fn;
	void       *ctx;
	double      median;   /* ns per operation, filled by bench_run */
	double      wall;     /* the same on the wall clock, whatever the clock */
	double      spread;   /* (max - min) / median over the repetitions */
	int         err;      /* errno of a failed operation, 0 when fine */
	size_t      iters;    /* iterations per repetition, after the budget */
};

/* Time NSIDES sides side by side: REPS repetitions of N operations each
 * (fewer for a side whose repetition would overrun the time budget), the
 * sides interleaved within every repetition so drift hits them alike,
 * after a warm-up round.  Returns 0 when every side ran. */
int bench_run(struct bench_side *sides, size_t nsides, size_t n, int reps);

/* The clock bench_run times with.  BENCH_WALL (the default) suits
 * anything that waits (fsync, a child's namespaces).  BENCH_THREAD_CPU
 * suits operations that run wholly in the calling thread (a syscall, a
 * judgement): it leaves out the time other processes on a shared machine
 * hold the CPU.  BENCH_PROCESS_CPU adds every thread of the process (so
 * io_uring's workers) and the children it has waited for (so a shell
 * pipeline run by system()). */
enum bench_clock { BENCH_WALL, BENCH_THREAD_CPU, BENCH_PROCESS_CPU };
void bench_use_clock(enum bench_clock clock);

/* Monotonic clock in nanoseconds. */
uint64_t bench_now_ns(void);

/* Median of N doubles (sorts V). */
double bench_median(double *v, size_t n);

/* Scale of the run: 1.0 by default, PG_BENCH_SCALE in the environment
 * multiplies every iteration count (0.1 for a smoke run). */
size_t bench_iters(size_t n);
int bench_reps(void);

/* -------------------------------------------------------------- table */

enum bench_unit { BENCH_NS, BENCH_BYTES, BENCH_COUNT };

/* A ratio row: guarded against bare, TARGET the highest ratio that passes
 * (0: no target, the row only informs). */
void bench_row_ratio(const char *what, const struct bench_side *guarded,
		     const struct bench_side *bare, double target);
/* A row of one measured value against an absolute bound (0: none). */
void bench_row_value(const char *what, double value, enum bench_unit unit,
		     double bound);
/* A row that could not be measured, and why. */
void bench_row_unavailable(const char *what, const char *why);
void bench_section(const char *title);
/* Print the counts of PASS / MISS / not available; returns the misses. */
int bench_summary(void);

/* ---------------------------------------------------------- allocation */

/* Whether the malloc interposer is linked in (false under sanitizers,
 * which bring their own allocator). */
bool bench_alloc_available(void);
/* Calls to malloc, calloc, realloc and the aligned allocators so far. */
uint64_t bench_alloc_calls(void);
/* Bytes currently allocated (usable sizes) and the peak since the last
 * bench_alloc_reset_peak. */
int64_t bench_alloc_live(void);
int64_t bench_alloc_peak(void);
void bench_alloc_reset_peak(void);

/* Allocations per operation of FN over N operations, after one warm-up
 * call; -1 when FN failed or counting is unavailable. */
double bench_allocs_per_op(bench_fn fn, void *ctx, size_t n);

/* ---------------------------------------------------------- scratch */

/* A fresh directory under $PG_BENCH_DIR, else (MEMORY) /dev/shm, else
 * $TMPDIR, else /tmp (never the source tree); returns its malloc'd path or
 * NULL.  MEMORY suits a big tree whose creation on a journalled disk
 * would cost more than what is measured in it (lookups hit the dcache
 * either way). */
char *bench_mkdtemp(const char *tag, bool memory);
/* Remove the tree at PATH (best effort). */
void bench_rmtree(const char *path);
/* Create every directory of REL (relative to DIRFD), and REL's last
 * component as a file when FILE is true. */
int bench_make_path(int dirfd, const char *rel, bool file);

/* ---------------------------------------------------------- sections */

void bench_ops(void);
void bench_policy(void);
void bench_atomic(void);
void bench_batch(void);
void bench_envelope(void);
void bench_preload(void);
void bench_links(void);

#endif
