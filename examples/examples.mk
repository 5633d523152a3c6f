# examples/examples.mk: programs that use the library as a user would.
# hello-pathgate: the library's tour, built against the library in the
# build tree (a user builds it with pkg-config: see the file's head).
noinst_PROGRAMS += examples/hello-pathgate
examples_hello_pathgate_SOURCES = examples/hello-pathgate.c
examples_hello_pathgate_LDADD = lib/libpathgate.la

.PHONY: demo
demo: examples/hello-pathgate$(EXEEXT)
	./examples/hello-pathgate

# pgsh: a tiny line-oriented shell on the library (shim area).
noinst_PROGRAMS += examples/pgsh
examples_pgsh_SOURCES = examples/pgsh.c
examples_pgsh_LDADD = lib/libpathgate.la
