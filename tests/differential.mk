# tests/differential.mk: the enforcers compared with each other.  Random
# workspaces and policies; pg_check's verdict on every name against what
# a child can really do under pg_spawn (a static probe making raw system
# calls), under the preload alone and under pathgate run (a libc probe),
# as root and as nobody; and real programs under pathgate run.
check_PROGRAMS += tests/test_differential tests/differential/rawprobe \
	tests/differential/libcprobe
tests_test_differential_SOURCES = tests/differential/test_differential.c \
	tests/testutil.c tests/testutil.h
tests_test_differential_CFLAGS = $(TEST_CFLAGS)
tests_test_differential_LDADD = $(TEST_LIBS)

# Static and raw: no LD_PRELOAD sees what it does.  Where configure could
# not link statically it is dynamic, and test_differential skips.
# Never instrumented: a sanitizer runtime cannot be linked static.
tests_differential_rawprobe_SOURCES = tests/differential/rawprobe.c
tests_differential_rawprobe_CFLAGS = $(PG_PROBE_CFLAGS)
if STATIC_PROBE
tests_differential_rawprobe_LDFLAGS = -all-static
else
tests_differential_rawprobe_LDFLAGS =
endif

# The same probe through libc's open(), for the preload to judge.
tests_differential_libcprobe_SOURCES = tests/differential/rawprobe.c
tests_differential_libcprobe_CPPFLAGS = $(AM_CPPFLAGS) -DPG_PROBE_LIBC

differential_tests = tests/test_differential_unpriv.sh tests/test_realwork.sh
dist_check_SCRIPTS += $(differential_tests)
TESTS += tests/test_differential $(differential_tests)
