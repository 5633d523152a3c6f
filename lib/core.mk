# lib/core.mk: the core library (root, resolution, judging, operations,
# atomic writes, pg_check and pg_check_batch), its shared test helpers
# and its unit, race, crash and casefold tests.
lib_libpathgate_internal_la_SOURCES += \
	lib/root.c lib/root.h \
	lib/resolve.c lib/resolve-walk.c lib/resolve-walk.h lib/resolve.h \
	lib/judge.c lib/judge.h lib/link-map.c lib/link-map.h \
	lib/ops.c lib/ops-names.c lib/ops-final.c lib/ops.h \
	lib/atomic.c lib/atomic.h \
	lib/check.c lib/check.h \
	lib/batch.c lib/batch.h

# What the shim (pathgate, the preload) may use beyond pathgate.h: one
# header, shim.h, and the modules that decide for it.
lib_libpathgate_internal_la_SOURCES += lib/shim.h lib/discover.c lib/explain.c lib/host.c \
	lib/plan-cwd.c

# Shared test helpers (temp trees, snapshots, fd-leak checks): other areas'
# tests may link tests/libtestutil.la.
check_LTLIBRARIES += tests/libtestutil.la
tests_libtestutil_la_SOURCES = tests/testutil.c tests/testutil.h
tests_libtestutil_la_CFLAGS = $(TEST_CFLAGS)
CORE_TEST_LIBS = tests/libtestutil.la $(TEST_LIBS)

check_PROGRAMS += tests/test_links
tests_test_links_SOURCES = tests/test_links.c
tests_test_links_CFLAGS = $(TEST_CFLAGS)
tests_test_links_LDADD = $(CORE_TEST_LIBS)
TESTS += tests/test_links

check_PROGRAMS += tests/test_ops
tests_test_ops_SOURCES = tests/test_ops.c
tests_test_ops_CFLAGS = $(TEST_CFLAGS)
tests_test_ops_LDADD = $(CORE_TEST_LIBS)
TESTS += tests/test_ops

check_PROGRAMS += tests/test_race_core
tests_test_race_core_SOURCES = tests/test_race_core.c
tests_test_race_core_CFLAGS = $(TEST_CFLAGS)
tests_test_race_core_LDADD = $(CORE_TEST_LIBS)
TESTS += tests/test_race_core

check_PROGRAMS += tests/test_atomic_crash
tests_test_atomic_crash_SOURCES = tests/test_atomic_crash.c
tests_test_atomic_crash_CFLAGS = $(TEST_CFLAGS)
tests_test_atomic_crash_LDADD = $(CORE_TEST_LIBS)
TESTS += tests/test_atomic_crash

# Skips (exit 77, reason printed) where the kernel has no CONFIG_UNICODE.
check_PROGRAMS += tests/test_casefold
tests_test_casefold_SOURCES = tests/test_casefold.c
tests_test_casefold_CFLAGS = $(TEST_CFLAGS)
tests_test_casefold_LDADD = $(CORE_TEST_LIBS)
TESTS += tests/test_casefold

# The module call graph (tools/lib-calls): no cycle between root and resolve.
dist_check_SCRIPTS += tests/test_lib_calls.sh
TESTS += tests/test_lib_calls.sh
EXTRA_DIST += tools/lib-calls

dist_man_MANS += man/libpathgate.3
