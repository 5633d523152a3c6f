# lib/more.mk: the calls an interpreter's file builtins need (issue 14):
# pg_utimens, pg_chown, pg_read_file, pg_remove_all, pg_root_open_at, the
# refusal codes, the version; their tests and their man pages.
lib_libpathgate_internal_la_SOURCES += \
	lib/ops-more.c lib/remove-all.c lib/subroot.c

check_PROGRAMS += tests/test_ops_more
tests_test_ops_more_SOURCES = tests/test_ops_more.c
tests_test_ops_more_CFLAGS = $(TEST_CFLAGS)
tests_test_ops_more_LDADD = $(CORE_TEST_LIBS)
TESTS += tests/test_ops_more
