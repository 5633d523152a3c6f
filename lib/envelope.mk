# lib/envelope.mk: the envelope (mount planner, launcher, seccomp floor),
# its real-spawn tests and their probe program.
lib_libpathgate_internal_la_SOURCES += \
	lib/envelope.c lib/envelope.h lib/envelope-plan.h \
	lib/plan-store.c lib/plan-walk.c lib/plan-alias.c lib/plan-argv.c \
	lib/spawn.c lib/seccomp.c lib/seccomp-filter.h
# The launcher's probe of bwrap and its report, each a module of its own.
lib_libpathgate_internal_la_SOURCES += lib/bwrap-probe.c lib/bwrap-probe.h \
	lib/spawn-report.c lib/spawn-report.h
# What a launcher holds around a launch (policy files, its own writes, the
# audit after the child): issue 10.
lib_libpathgate_internal_la_SOURCES += lib/launch-guard.c

# Every case launches a real child under bwrap (as root here; as nobody
# from test_envelope_unpriv.sh).
check_PROGRAMS += tests/test_envelope tests/envelope/probe
tests_test_envelope_SOURCES = tests/test_envelope.c
tests_test_envelope_CFLAGS = $(TEST_CFLAGS) $(JSONC_CFLAGS)
tests_test_envelope_LDADD = $(TEST_LIBS) $(JSONC_LIBS)
tests_envelope_probe_SOURCES = tests/envelope/probe.c
TESTS += tests/test_envelope
dist_check_SCRIPTS += tests/test_envelope_unpriv.sh
TESTS += tests/test_envelope_unpriv.sh
dist_man_MANS += man/pg_spawn.3 man/pg_plan_build.3

# Another host path to the workspace (a bind mount in a private mount
# namespace of the test) is masked: issue 10.8.
dist_check_SCRIPTS += tests/test_alias.sh
TESTS += tests/test_alias.sh
