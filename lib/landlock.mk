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
