# lib/landlock.mk: the Landlock envelope (translation, launch, seccomp
# floor), its helper program and its tests.
lib_libpathgate_internal_la_SOURCES += \
	lib/landlock.h lib/landlock-abi.h \
	lib/landlock-plan.c lib/landlock-spawn.c lib/landlock-seccomp.c
lib_libpathgate_internal_la_CPPFLAGS = $(AM_CPPFLAGS) \
	-DPG_LANDLOCK_EXEC='"$(pkglibexecdir)/pathgate-landlock-exec"'

# The helper: restricts itself with the ruleset the library built, execs.
pkglibexec_PROGRAMS = libexec/pathgate-landlock-exec
libexec_pathgate_landlock_exec_SOURCES = libexec/landlock-exec.c

# Real launches under Landlock: as this user, as root in a user namespace
# that can make no other (bwrap fails there), as nobody there, and with
# Landlock hidden (test_landlock.sh).
check_PROGRAMS += tests/test_landlock tests/landlock/nouserns
tests_test_landlock_SOURCES = tests/test_landlock.c
tests_test_landlock_CFLAGS = $(TEST_CFLAGS) $(JSONC_CFLAGS) $(SECCOMP_CFLAGS)
tests_test_landlock_LDADD = $(TEST_LIBS) $(JSONC_LIBS) $(SECCOMP_LIBS)
tests_landlock_nouserns_SOURCES = tests/landlock/nouserns.c
dist_check_SCRIPTS += tests/test_landlock.sh
TESTS += tests/test_landlock.sh
