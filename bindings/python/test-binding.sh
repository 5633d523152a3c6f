#!/bin/sh
# test-binding.sh - the Python binding's pytest suite against the build
# tree: the package staged from the source and the built extension, the
# library from lib/.libs.  Skips (77), saying why, when the binding was
# not built, when pytest is missing, or under the sanitizers.
set -eu
: "${top_srcdir:?}" "${top_builddir:?}"

skip() { echo "SKIP: $*"; exit 77; }

[ "${PG_PYTHON_BINDING:-no}" = yes ] ||
	skip "the Python binding was not built (configure found no Python headers, or --without-python)"
[ -z "${PG_SANITIZERS:-}" ] ||
	skip "an ASan-instrumented extension cannot load into an uninstrumented python"
"$PG_PYTHON" -c 'import pytest' 2>/dev/null ||
	skip "pytest is missing for $PG_PYTHON (Debian: apt-get install python3-pytest; or configure PYTHON=a python3 with pytest)"

ext=$(ls "$top_builddir"/bindings/python/.libs/_pathgate*.so 2>/dev/null | head -1)
[ -n "$ext" ] || { echo "FAIL: no built extension in bindings/python/.libs"; exit 1; }

stage=$(mktemp -d "${TMPDIR:-/var/tmp}/pg-pytest.XXXXXX")
trap 'rm -rf "$stage"' EXIT
mkdir "$stage/pathgate"
cp "$top_srcdir/bindings/python/pathgate/__init__.py" "$stage/pathgate/"
cp "$ext" "$stage/pathgate/"
chmod -R a+rX "$stage"

PYTHONPATH="$stage" LD_LIBRARY_PATH="$top_builddir/lib/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
PYTHONDONTWRITEBYTECODE=1 \
	"$PG_PYTHON" -m pytest -q -p no:cacheprovider "$top_srcdir/bindings/python/tests"
