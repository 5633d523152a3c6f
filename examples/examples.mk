# examples/examples.mk: programs that use the library as a user would.
.PHONY: demo
demo:
	@echo "pathgate: demo placeholder"

# pgsh: a tiny line-oriented shell on the library (shim area).
noinst_PROGRAMS += examples/pgsh
examples_pgsh_SOURCES = examples/pgsh.c
examples_pgsh_LDADD = lib/libpathgate.la
