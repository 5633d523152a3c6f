# bindings/python/python.mk: the Python binding (a CPython extension over
# libpathgate.so and the pathgate package around it), built and installed
# when configure found Python's headers, and its pytest suite.
if PYTHON_BINDING
pkgpyexec_LTLIBRARIES = bindings/python/_pathgate.la
pkgpyexec_PYTHON = bindings/python/pathgate/__init__.py
endif
bindings_python__pathgate_la_SOURCES = bindings/python/pathgate/_pathgate.c
bindings_python__pathgate_la_CFLAGS = $(AM_CFLAGS) $(PY_CFLAGS)
# The module uses the public API alone, through the installed library.
bindings_python__pathgate_la_CPPFLAGS = -I$(top_srcdir)/include
bindings_python__pathgate_la_LDFLAGS = $(AM_LDFLAGS) -module -avoid-version -shared \
	-shrext $(PY_EXT_SUFFIX)
bindings_python__pathgate_la_LIBADD = lib/libpathgate.la

# pip install ./bindings/python builds the same source against an
# installed library (pkg-config pathgate).
EXTRA_DIST += bindings/python/setup.py bindings/python/pyproject.toml \
	bindings/python/README.md bindings/python/tests \
	bindings/python/pathgate/__init__.py

dist_check_SCRIPTS += bindings/python/test-binding.sh
TESTS += bindings/python/test-binding.sh
AM_TESTS_ENVIRONMENT += PG_PYTHON='$(PYTHON)'; PG_PYTHON_BINDING='$(PG_PYTHON_BINDING)'; \
	export PG_PYTHON PG_PYTHON_BINDING;
