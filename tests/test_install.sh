#!/bin/sh
# test_install.sh - what `make install` puts down works where it lands:
# the build tree is installed into a DESTDIR staging (its configured
# --prefix beneath it), and the installed pathgate, run from there, finds
# the installed preload beside its own executable (not the build tree's,
# not one at the configured path) and the preload refuses a denied read
# while an allowed one works.
. "$top_srcdir/tests/shim-lib.sh"

[ -n "${PG_SANITIZERS:-}" ] && skip "sanitizer build: an instrumented preload cannot load into uninstrumented programs"
[ -n "${PG_PREFIX:-}" ] && [ -n "${PG_BINDIR:-}" ] && [ -n "${PG_PKGLIBDIR:-}" ] ||
	skip "run through make check: the configured directories are not known"
case ${PG_PKGLIBDIR#"$(dirname "$PG_BINDIR")"/} in
/*) skip "pkglibdir ($PG_PKGLIBDIR) is not beneath bindir's prefix: a staged install cannot find its preload beside bin/" ;;
esac
command -v timeout >/dev/null || skip "timeout(1) is missing: make install is not run unbounded"

scratch
D="$SCRATCH/dest"
# A make of its own, not the jobserver of the make check that runs us.
if ! (cd "$top_builddir" && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL \
	timeout 600 "${MAKE:-make}" -s install DESTDIR="$D" >"$SCRATCH/install.log" 2>&1); then
	cat "$SCRATCH/install.log"
	fail "make install DESTDIR=$D"
	finish
fi
ok
BIN="$D$PG_BINDIR/pathgate"
SO="$D$PG_PKGLIBDIR/libpathgate-preload.so"
[ -x "$BIN" ] && ok || fail "no installed $BIN"
[ -f "$SO" ] && ok || fail "no installed $SO"
[ -f "$D$PG_PREFIX/share/man/man1/pathgate.1" ] || [ -f "$D$PG_MANDIR/man1/pathgate.1" ] && ok ||
	fail "no installed pathgate(1)"

W="$SCRATCH/ws"
mkdir -p "$W"
echo TOKEN=x > "$W/.env"
echo hello > "$W/notes.txt"
unset PATHGATE_PRELOAD
export LD_LIBRARY_PATH="$D$PG_LIBDIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
inst() { (cd "$W" && "$BIN" "$@"); }
expect_status 0 "the installed pathgate runs" inst -V
expect_status 1 "installed run --no-envelope: a denied read" inst run --no-envelope -- cat .env
expect_in "$ERR" "Permission denied" "the installed preload refuses .env"
expect_not_in "$OUT" "TOKEN" "the installed preload: .env not leaked"
expect_status 0 "installed run --no-envelope: an allowed read" inst run --no-envelope -- cat notes.txt
expect_in "$OUT" "hello" "an allowed read works"
# The preload the child carries is the staged one, not the build tree's
# nor one installed at the configured path.
expect_status 0 "the child's maps" inst run --no-envelope -- cat /proc/self/maps
expect_in "$OUT" "$SO" "the child loaded the staged preload"
finish
