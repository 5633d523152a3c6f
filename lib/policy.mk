# lib/policy.mk: the policy (rules, parser, compiled judge, folding, globs),
# its unit tests and its fuzz harnesses.
lib_libpathgate_internal_la_SOURCES += \
	lib/policy.c lib/policy-copy.c lib/policy-rebase.c lib/arena.c lib/policy.h lib/policy-internal.h \
	lib/policy-trie.c lib/policy-trie.h lib/policy-judge.c lib/policy-naive.c lib/policy-naive.h \
	lib/policy-default.c lib/fold.c lib/glob.c lib/glob.h

check_PROGRAMS += tests/test_policy
tests_test_policy_SOURCES = tests/test_policy.c \
	tests/fuzz/judge_model.c tests/fuzz/judge_model.h
tests_test_policy_CFLAGS = $(TEST_CFLAGS)
tests_test_policy_LDADD = $(TEST_LIBS)
TESTS += tests/test_policy

# --- the policy fuzzers (issue 5).  make check replays the committed
# corpora through a plain driver; with clang, make fuzz-policy
# FUZZ_SECONDS=N runs each fuzzer for N seconds and prints its executions.
check_PROGRAMS += tests/fuzz/fuzz_policy_parse_replay tests/fuzz/fuzz_judge_replay
tests_fuzz_fuzz_policy_parse_replay_SOURCES = tests/fuzz/fuzz_policy_parse.c \
	tests/fuzz/replay.c tests/fuzz/judge_model.c tests/fuzz/judge_model.h
tests_fuzz_fuzz_policy_parse_replay_CFLAGS = $(TEST_CFLAGS) -DPG_FUZZ_REPLAY \
	-DPG_FUZZ_CORPUS='"policy_parse"'
tests_fuzz_fuzz_policy_parse_replay_LDADD = $(TEST_LIBS)
tests_fuzz_fuzz_judge_replay_SOURCES = tests/fuzz/fuzz_judge.c \
	tests/fuzz/replay.c tests/fuzz/judge_model.c tests/fuzz/judge_model.h
tests_fuzz_fuzz_judge_replay_CFLAGS = $(TEST_CFLAGS) -DPG_FUZZ_REPLAY \
	-DPG_FUZZ_CORPUS='"judge"'
tests_fuzz_fuzz_judge_replay_LDADD = $(TEST_LIBS)
TESTS += tests/fuzz/fuzz_policy_parse_replay tests/fuzz/fuzz_judge_replay
EXTRA_DIST += tests/fuzz/corpus/policy_parse tests/fuzz/corpus/judge

POLICY_FUZZ_CFLAGS = -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
	-I$(top_builddir) -I$(top_srcdir)/include -I$(top_srcdir)/lib \
	-I$(top_srcdir)/tests/fuzz
POLICY_FUZZ_LIB = $(top_srcdir)/lib/policy.c $(top_srcdir)/lib/policy-copy.c $(top_srcdir)/lib/policy-rebase.c $(top_srcdir)/lib/arena.c $(top_srcdir)/lib/policy-trie.c $(top_srcdir)/lib/policy-judge.c \
	$(top_srcdir)/lib/policy-naive.c $(top_srcdir)/lib/policy-default.c \
	$(top_srcdir)/lib/fold.c $(top_srcdir)/lib/glob.c $(top_srcdir)/lib/path.c \
	$(top_srcdir)/lib/refusal.c $(top_srcdir)/tests/fuzz/judge_model.c

tests/fuzz/fuzz_policy_parse: $(top_srcdir)/tests/fuzz/fuzz_policy_parse.c $(POLICY_FUZZ_LIB)
	@test -n "$(CLANG)" || { echo "fuzz-policy: configure found no clang" >&2; exit 1; }
	@mkdir -p tests/fuzz
	$(AM_V_CCLD)$(CLANG) $(POLICY_FUZZ_CFLAGS) $^ -o $@ $(UNISTRING_LIBS)

tests/fuzz/fuzz_judge: $(top_srcdir)/tests/fuzz/fuzz_judge.c $(POLICY_FUZZ_LIB)
	@test -n "$(CLANG)" || { echo "fuzz-policy: configure found no clang" >&2; exit 1; }
	@mkdir -p tests/fuzz
	$(AM_V_CCLD)$(CLANG) $(POLICY_FUZZ_CFLAGS) $^ -o $@ $(UNISTRING_LIBS)

# New inputs go to the build tree; the committed corpora are only read.
# libFuzzer's final stats line "stat::number_of_executed_units" is the
# count of executions; it is printed again as a summary.
fuzz-policy: tests/fuzz/fuzz_policy_parse tests/fuzz/fuzz_judge
	@mkdir -p tests/fuzz/work/policy_parse tests/fuzz/work/judge
	@set -e; for f in policy_parse judge; do \
	  bin=tests/fuzz/fuzz_$$f; \
	  ./$$bin -max_total_time=$(FUZZ_SECONDS) -max_len=4096 -print_final_stats=1 \
	    tests/fuzz/work/$$f $(top_srcdir)/tests/fuzz/corpus/$$f 2>tests/fuzz/work/$$f.log \
	    || { tail -40 tests/fuzz/work/$$f.log >&2; exit 1; }; \
	  echo "fuzz_$$f: $$(sed -n 's/^stat::number_of_executed_units: *//p' tests/fuzz/work/$$f.log) executions in $(FUZZ_SECONDS) s, no failure"; \
	done

CLEANFILES += tests/fuzz/fuzz_policy_parse tests/fuzz/fuzz_judge
.PHONY: fuzz-policy

# Allocation failures: the library's malloc, calloc and realloc are wrapped
# at link time so each can be made to fail in turn.
check_PROGRAMS += tests/test_policy_oom
tests_test_policy_oom_SOURCES = tests/test_policy_oom.c
tests_test_policy_oom_CFLAGS = $(TEST_CFLAGS)
tests_test_policy_oom_LDFLAGS = $(AM_LDFLAGS) \
	-Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc
tests_test_policy_oom_LDADD = $(TEST_LIBS)
TESTS += tests/test_policy_oom
