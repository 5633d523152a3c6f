# tests/adversarial.mk: the standing attack suite (issue 5).  Bounded forms
# run in make check; tools/check-long (make check-long) runs the long form
# and prints its figures.

# --- the path fuzzer: make check replays the committed corpus through a
# plain driver; with clang, make fuzz-path FUZZ_SECONDS=N fuzzes for real.
check_PROGRAMS += tests/fuzz/fuzz_path_replay
tests_fuzz_fuzz_path_replay_SOURCES = tests/fuzz/fuzz_path.c tests/fuzz/replay.c
tests_fuzz_fuzz_path_replay_CFLAGS = $(TEST_CFLAGS) -DPG_FUZZ_REPLAY \
	-DPG_FUZZ_CORPUS='"path"'
tests_fuzz_fuzz_path_replay_LDADD = $(TEST_LIBS)
TESTS += tests/fuzz/fuzz_path_replay
EXTRA_DIST += tests/fuzz/corpus/path

FUZZ_SECONDS ?= 60
# On a failure: the finding, the executions until then, where the input is.
FUZZ_FAILED = { f=tests/fuzz/work/$(1).log; grep -a -E '^fuzz_|ERROR|SUMMARY' $$f >&2; \
	echo "fuzz_$(1): FAILED after $$(sed -n 's/^stat::number_of_executed_units: *//p' $$f) executions; input saved as $$(sed -n "s/.*Test unit written to //p" $$f)"; exit 1; }
FUZZ_CFLAGS = -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
	-I$(top_builddir) -I$(top_srcdir)/include -I$(top_srcdir)/lib
FUZZ_PATH_SRC = $(top_srcdir)/tests/fuzz/fuzz_path.c \
	$(top_srcdir)/lib/path.c $(top_srcdir)/lib/refusal.c

tests/fuzz/fuzz_path: $(FUZZ_PATH_SRC)
	@test -n "$(CLANG)" || { echo "fuzz-path: configure found no clang" >&2; exit 1; }
	@mkdir -p tests/fuzz
	$(AM_V_CCLD)$(CLANG) $(FUZZ_CFLAGS) $(FUZZ_PATH_SRC) -o $@

# New inputs go to the build tree; the committed corpus is only read.
# libFuzzer's final "stat::number_of_executed_units" gives the figure.
fuzz-path: tests/fuzz/fuzz_path
	@mkdir -p tests/fuzz/work/path
	@./tests/fuzz/fuzz_path -max_total_time=$(FUZZ_SECONDS) -max_len=4200 \
		-print_final_stats=1 -artifact_prefix=tests/fuzz/work/path- \
		tests/fuzz/work/path $(top_srcdir)/tests/fuzz/corpus/path \
		2>tests/fuzz/work/path.log || $(call FUZZ_FAILED,path)
	@echo "fuzz_path: $$(sed -n 's/^stat::number_of_executed_units: *//p' tests/fuzz/work/path.log) executions in $(FUZZ_SECONDS) s, no failure"

# --- differential fuzzing of the two resolvers (read-only calls on one
# tree full of ways out); make check replays its corpus, every call on
# every input.
check_PROGRAMS += tests/fuzz/fuzz_resolve_replay
tests_fuzz_fuzz_resolve_replay_SOURCES = tests/fuzz/fuzz_resolve.c \
	tests/escape/adv.c tests/escape/adv.h tests/testutil.c tests/testutil.h
tests_fuzz_fuzz_resolve_replay_CFLAGS = $(TEST_CFLAGS) -DPG_FUZZ_REPLAY
tests_fuzz_fuzz_resolve_replay_LDADD = $(TEST_LIBS)
TESTS += tests/fuzz/fuzz_resolve_replay
EXTRA_DIST += tests/fuzz/corpus/resolve

FUZZ_RESOLVE_SRC = $(top_srcdir)/tests/fuzz/fuzz_resolve.c $(top_srcdir)/tests/escape/adv.c \
	$(top_srcdir)/tests/testutil.c \
	$(top_srcdir)/lib/root.c $(top_srcdir)/lib/resolve.c $(top_srcdir)/lib/resolve-walk.c $(top_srcdir)/lib/judge.c \
	$(top_srcdir)/lib/ops.c $(top_srcdir)/lib/ops-names.c $(top_srcdir)/lib/ops-final.c $(top_srcdir)/lib/link-map.c \
	$(top_srcdir)/lib/atomic.c $(top_srcdir)/lib/check.c $(top_srcdir)/lib/policy.c $(top_srcdir)/lib/policy-copy.c $(top_srcdir)/lib/policy-rebase.c $(top_srcdir)/lib/arena.c \
	$(top_srcdir)/lib/policy-trie.c $(top_srcdir)/lib/policy-judge.c $(top_srcdir)/lib/policy-naive.c \
	$(top_srcdir)/lib/policy-default.c $(top_srcdir)/lib/fold.c $(top_srcdir)/lib/glob.c \
	$(top_srcdir)/lib/path.c $(top_srcdir)/lib/refusal.c

tests/fuzz/fuzz_resolve: $(FUZZ_RESOLVE_SRC)
	@test -n "$(CLANG)" || { echo "fuzz-resolve: configure found no clang" >&2; exit 1; }
	@mkdir -p tests/fuzz
	$(AM_V_CCLD)$(CLANG) $(FUZZ_CFLAGS) $(FUZZ_RESOLVE_SRC) -o $@ $(UNISTRING_LIBS)

fuzz-resolve: tests/fuzz/fuzz_resolve
	@mkdir -p tests/fuzz/work/resolve
	@./tests/fuzz/fuzz_resolve -max_total_time=$(FUZZ_SECONDS) -max_len=600 \
		-print_final_stats=1 -artifact_prefix=tests/fuzz/work/resolve- \
		tests/fuzz/work/resolve $(top_srcdir)/tests/fuzz/corpus/resolve \
		2>tests/fuzz/work/resolve.log || $(call FUZZ_FAILED,resolve)
	@echo "fuzz_resolve: $$(sed -n 's/^stat::number_of_executed_units: *//p' tests/fuzz/work/resolve.log) executions in $(FUZZ_SECONDS) s, no failure"

CLEANFILES += tests/fuzz/fuzz_path tests/fuzz/fuzz_resolve
.PHONY: fuzz-path fuzz-resolve

# --- the escape catalogue, the race attack, the crash harness, bad input.
ADV_HELPERS = tests/escape/adv.c tests/escape/adv.h tests/testutil.c tests/testutil.h

check_PROGRAMS += tests/test_escape
tests_test_escape_SOURCES = tests/escape/test_escape.c tests/escape/cases.c \
	tests/escape/cases.h $(ADV_HELPERS)
tests_test_escape_CFLAGS = $(TEST_CFLAGS)
tests_test_escape_LDADD = $(TEST_LIBS)
TESTS += tests/test_escape

# Bounded here (PG_RACE_SECONDS, default 2 s per resolver); long in check-long.
check_PROGRAMS += tests/test_race_attack
tests_test_race_attack_SOURCES = tests/test_race_attack.c $(ADV_HELPERS)
tests_test_race_attack_CFLAGS = $(TEST_CFLAGS)
tests_test_race_attack_LDADD = $(TEST_LIBS)
TESTS += tests/test_race_attack

# Bounded here (PG_CRASH_KILLS, default 20: tests/test_atomic_crash.c is the
# bounded crash test); 300 and more in check-long.
check_PROGRAMS += tests/test_crash
tests_test_crash_SOURCES = tests/test_crash.c $(ADV_HELPERS)
tests_test_crash_CFLAGS = $(TEST_CFLAGS)
tests_test_crash_LDADD = $(TEST_LIBS)
TESTS += tests/test_crash


check_PROGRAMS += tests/test_badinput
tests_test_badinput_SOURCES = tests/test_badinput.c $(ADV_HELPERS)
tests_test_badinput_CFLAGS = $(TEST_CFLAGS)
tests_test_badinput_LDADD = $(TEST_LIBS)
TESTS += tests/test_badinput

# --- the long form: one command, figures at the end.
EXTRA_DIST += tools/check-long
CHECK_LONG_FLAGS =
check-long:
	$(top_srcdir)/tools/check-long --builddir $(abs_top_builddir) $(CHECK_LONG_FLAGS)

# tools/check-long runs these under valgrind.
print-check-tests:
	@echo $(TESTS)

.PHONY: check-long print-check-tests
