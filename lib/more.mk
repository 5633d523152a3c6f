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

# libpathgate against the kernel itself (issue 11.11): every case run
# through the library and through the raw call on twin trees.
check_PROGRAMS += tests/test_posix_agree
tests_test_posix_agree_SOURCES = tests/test_posix_agree.c
tests_test_posix_agree_CFLAGS = $(TEST_CFLAGS)
tests_test_posix_agree_LDADD = $(CORE_TEST_LIBS)
TESTS += tests/test_posix_agree
