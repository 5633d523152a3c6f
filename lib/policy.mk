# lib/policy.mk: the policy (rules, parser, compiled judge, folding, globs),
# its unit tests and its fuzz harnesses.
lib_libpathgate_internal_la_SOURCES += \
	lib/policy.c lib/policy.h lib/policy-internal.h \
	lib/policy-trie.c lib/policy-naive.c lib/policy-naive.h \
	lib/policy-default.c lib/fold.c lib/glob.c lib/glob.h

check_PROGRAMS += tests/test_policy
tests_test_policy_SOURCES = tests/test_policy.c \
	tests/fuzz/judge_model.c tests/fuzz/judge_model.h
tests_test_policy_CFLAGS = $(TEST_CFLAGS)
tests_test_policy_LDADD = $(TEST_LIBS)
TESTS += tests/test_policy
