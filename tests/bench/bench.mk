# tests/bench/bench.mk: the benchmark (issue 6).  pg-bench is built with the
# check programs so CI keeps it compiling, but it is not in TESTS: speed is
# measured by `make bench`, never in a timed test.
#
# It links the whole internal library (--whole-archive) and references the
# entry points weakly, so a module that is not built yet reads "not
# available" in its rows instead of breaking the link.
check_PROGRAMS += tests/bench/pg-bench
tests_bench_pg_bench_SOURCES = \
	tests/bench/bench.h \
	tests/bench/pg-bench.c \
	tests/bench/harness.c \
	tests/bench/alloc.c \
	tests/bench/ops.c \
	tests/bench/judge.c \
	tests/bench/atomic.c \
	tests/bench/batch.c \
	tests/bench/envelope.c \
	tests/bench/preload.c \
	tests/bench/links.c
tests_bench_pg_bench_CFLAGS = $(AM_CFLAGS) $(URING_CFLAGS)
tests_bench_pg_bench_LDFLAGS = $(AM_LDFLAGS) \
	-Wl,--whole-archive,lib/.libs/libpathgate-internal.a,--no-whole-archive
tests_bench_pg_bench_LDADD = $(URING_LIBS) $(SECCOMP_LIBS) $(UNISTRING_LIBS) $(JSONC_LIBS)
EXTRA_tests_bench_pg_bench_DEPENDENCIES = lib/libpathgate-internal.la

# PG_BENCH_ARGS picks sections (ops policy atomic batch envelope preload links) and
# --strict; PG_BENCH_REPS, PG_BENCH_SCALE and PG_BENCH_DIR are read from the
# environment.
bench: tests/bench/pg-bench
	$(builddir)/tests/bench/pg-bench $(PG_BENCH_ARGS)
.PHONY: bench
