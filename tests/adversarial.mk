# tests/adversarial.mk: the standing attack suite (issue 5).  Bounded forms
# run in make check; tools/check-long (make check-long) runs the long form
# and prints its figures.

# --- the path fuzzer: make check replays the committed corpus through a
# plain driver; with clang, make fuzz-path FUZZ_SECONDS=N fuzzes for real.
check_PROGRAMS += tests/fuzz/fuzz_path_replay
tests_fuzz_fuzz_path_replay_SOURCES = tests/fuzz/fuzz_path.c
tests_fuzz_fuzz_path_replay_CFLAGS = $(TEST_CFLAGS) -DPG_FUZZ_REPLAY
tests_fuzz_fuzz_path_replay_LDADD = $(TEST_LIBS)
TESTS += tests/fuzz/fuzz_path_replay
EXTRA_DIST += tests/fuzz/corpus/path

FUZZ_SECONDS ?= 60
FUZZ_CFLAGS = -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
	-I$(top_builddir) -I$(top_srcdir)/include -I$(top_srcdir)/lib
FUZZ_PATH_SRC = $(top_srcdir)/tests/fuzz/fuzz_path.c \
	$(top_srcdir)/lib/path.c $(top_srcdir)/lib/refusal.c

tests/fuzz/fuzz_path: $(FUZZ_PATH_SRC)
	@test -n "$(CLANG)" || { echo "fuzz-path: configure found no clang" >&2; exit 1; }
	@mkdir -p tests/fuzz
	$(AM_V_CCLD)$(CLANG) $(FUZZ_CFLAGS) $(FUZZ_PATH_SRC) -o $@

# New inputs go to the build tree; the committed corpus is only read.
fuzz-path: tests/fuzz/fuzz_path
	@mkdir -p tests/fuzz/work/path
	./tests/fuzz/fuzz_path -max_total_time=$(FUZZ_SECONDS) -max_len=4200 \
		-print_final_stats=1 tests/fuzz/work/path $(top_srcdir)/tests/fuzz/corpus/path

CLEANFILES += tests/fuzz/fuzz_path
.PHONY: fuzz-path
