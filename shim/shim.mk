# shim/shim.mk: the pathgate command and the LD_PRELOAD interposer, with
# their tests (and pg_check_batch's, which pathgate check - drives).
# Both reach the library through pathgate.h and lib/shim.h alone.

# The command links the internal library: shim.h's calls (policy
# discovery, explain, the plan's lending) are not exported by
# libpathgate.so.
bin_PROGRAMS += shim/pathgate
shim_pathgate_SOURCES = shim/pathgate.c shim/cli.h shim/cli-explain.c \
	shim/cli-run.c shim/srt.c shim/srt-pos.c shim/srt.h
shim_pathgate_CFLAGS = $(AM_CFLAGS) $(JSONC_CFLAGS) \
	-DPG_PRELOAD_PATH='"$(pkglibdir)/libpathgate-preload.so"' -DPG_BINDIR='"$(bindir)"'
shim_pathgate_LDADD = lib/libpathgate-internal.la $(JSONC_LIBS)
# The preload's path is baked into cli-run's object: a configure with
# another --prefix rewrites Makefile, and the object must follow it, or
# an installed pathgate run looks for the preload under the old prefix.
shim/pathgate-cli-run.$(OBJEXT): Makefile

# The preload carries its own copy of the library (hidden symbols), so a
# program that links libpathgate itself never meets it twice.
pkglib_LTLIBRARIES = shim/libpathgate-preload.la
shim_libpathgate_preload_la_SOURCES = shim/preload.c shim/preload.h \
	shim/preload-open.c shim/preload-stat.c shim/preload-names.c \
	shim/preload-attr.c shim/preload-dir.c shim/preload-exec.c \
	shim/preload-more.c shim/preload-walk.c shim/preload-spawn.c shim/preload-cache.c
# glibc marks path arguments nonnull; programs pass NULL anyway, and the
# guard must see it rather than have the check optimised away.
shim_libpathgate_preload_la_CFLAGS = $(AM_CFLAGS) -fno-delete-null-pointer-checks
# lib/ after the system headers: lib/glob.h (the policy's matcher) must
# not hide <glob.h>, whose glob the preload interposes; "shim.h" is still
# found there.
shim_libpathgate_preload_la_CPPFLAGS = -I$(top_srcdir)/include -I$(top_builddir) -idirafter $(top_srcdir)/lib
# --exclude-libs: the library inside stays hidden; only the interposed
# libc names are exported, so a program linking libpathgate itself keeps
# its own copy.
shim_libpathgate_preload_la_LDFLAGS = $(AM_LDFLAGS) -module -avoid-version -shared \
	-Wl,--exclude-libs,ALL
shim_libpathgate_preload_la_LIBADD = lib/libpathgate-internal.la -ldl

dist_man_MANS += man/pathgate.1

check_PROGRAMS += tests/test_shim_api
tests_test_shim_api_SOURCES = tests/test_shim_api.c
tests_test_shim_api_CFLAGS = $(TEST_CFLAGS)
tests_test_shim_api_LDADD = tests/libtestutil.la $(TEST_LIBS)
TESTS += tests/test_shim_api

check_PROGRAMS += tests/test_batch
tests_test_batch_SOURCES = tests/test_batch.c
tests_test_batch_CFLAGS = $(TEST_CFLAGS) $(SECCOMP_CFLAGS)
tests_test_batch_LDADD = $(TEST_LIBS) $(SECCOMP_LIBS)
TESTS += tests/test_batch

# What the shell cannot do on demand (vfork, an empty envp, clobbered
# fds, threads), for test_preload.sh.
check_PROGRAMS += tests/preload_probe
tests_preload_probe_SOURCES = tests/preload_probe.c
tests_preload_probe_LDADD = -lpthread -ldl
# Only config.h: lib/glob.h must not hide <glob.h>.
tests_preload_probe_CPPFLAGS = -I$(top_builddir)

shim_tests = tests/test_cli.sh tests/test_cli_pgsh.sh tests/test_preload.sh \
	tests/test_run_envelope.sh tests/test_toolchains.sh tests/test_cli_conventions.sh \
	tests/test_run_holes.sh tests/test_cli_srt.sh tests/test_install.sh
dist_check_SCRIPTS += $(shim_tests)
EXTRA_DIST += tests/shim-lib.sh tests/preload-symbols.sh tests/preload-symbols.txt
TESTS += $(shim_tests)

# Where the preload is installed, for the relocated-install case of
# test_cli_conventions.sh.
AM_TESTS_ENVIRONMENT += PG_BINDIR='$(bindir)' PG_PKGLIBDIR='$(pkglibdir)'; export PG_BINDIR PG_PKGLIBDIR;
# And the rest of the configured directories with the make that installs,
# for test_install.sh (make install DESTDIR=..., then run what landed).
AM_TESTS_ENVIRONMENT += PG_PREFIX='$(prefix)' PG_LIBDIR='$(libdir)' PG_MANDIR='$(mandir)' MAKE='$(MAKE)'; \
	export PG_PREFIX PG_LIBDIR PG_MANDIR MAKE;

# An ASan-instrumented preload cannot load into uninstrumented programs:
# the preload tests skip in a sanitizer build and say so.
if SANITIZERS
AM_TESTS_ENVIRONMENT += PG_SANITIZERS=1; export PG_SANITIZERS;
endif
