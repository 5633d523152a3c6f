# tests/tests.mk: the shared test helpers and the unit tests of path and refusal.
check_PROGRAMS += tests/test_path
tests_test_path_SOURCES = tests/test_path.c
tests_test_path_CFLAGS = $(TEST_CFLAGS)
tests_test_path_LDADD = $(TEST_LIBS)
TESTS += tests/test_path

# The module structure: no call cycle of any length among lib/'s objects,
# no lib/*.c over 800 lines but the listed ones.
dist_check_SCRIPTS += tests/test_structure.sh
TESTS += tests/test_structure.sh
