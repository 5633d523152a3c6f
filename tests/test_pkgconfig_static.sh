#!/bin/sh
# test_pkgconfig_static.sh - pathgate.pc's Requires.private and
# Libs.private link a static program: the build tree's pathgate.pc, its
# libdir and includedir pointed at the build, pkg-config --static, cc
# -static, and the program runs.  Skips (77) where static linking cannot
# work here (no static glibc, the sanitizers), saying why.
set -u
: "${top_srcdir:?}" "${top_builddir:?}"
skip() { echo "SKIP: $*"; exit 77; }

[ -z "${PG_SANITIZERS:-}" ] || skip "a sanitizer build cannot link static"
[ -f "$top_builddir/lib/.libs/libpathgate.a" ] || skip "no libpathgate.a (--disable-static)"
tmp=$(mktemp -d "${TMPDIR:-/var/tmp}/pg-static.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
printf 'int main(void) { return 0; }\n' > "$tmp/empty.c"
$PG_CC -static -o "$tmp/empty" "$tmp/empty.c" 2>/dev/null || skip "$PG_CC cannot link a static program here"

pc() {
	PKG_CONFIG_PATH="$top_builddir" $PKG_CONFIG \
		--define-variable=libdir="$top_builddir/lib/.libs" \
		--define-variable=includedir="$top_srcdir/include" "$@" pathgate
}
libs=$(pc --static --libs) || { echo "FAIL: pkg-config --static --libs pathgate"; exit 1; }
cflags=$(pc --cflags)
echo "pkg-config --static --libs pathgate: $libs"
# shellcheck disable=SC2086
$PG_CC -static -o "$tmp/static" "$top_srcdir/tests/static_link.c" $cflags $libs ||
	{ echo "FAIL: the static link with pkg-config --static's flags"; exit 1; }
# And what failed before Requires.private: the same link without them.
# shellcheck disable=SC2086
if $PG_CC -static -o "$tmp/bare" "$top_srcdir/tests/static_link.c" $cflags \
	$(pc --libs) 2>/dev/null; then
	echo "FAIL: a static link without the private libraries succeeded: the test proves nothing"
	exit 1
fi
mkdir "$tmp/ws"
"$tmp/static" "$tmp/ws" || { echo "FAIL: the static program"; exit 1; }
