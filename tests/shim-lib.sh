# shim-lib.sh - what the pathgate(1), preload and pgsh tests share:
# where the built programs are, a scratch workspace, snapshots of a tree,
# and assertions that count failures.  Sourced, not run.

: "${top_builddir:?run through make check}"
: "${top_srcdir:?run through make check}"

PATHGATE="$top_builddir/shim/pathgate"
PRELOAD="$top_builddir/shim/.libs/libpathgate-preload.so"
PGSH="$top_builddir/examples/pgsh"
export PATHGATE_PRELOAD="$PRELOAD"
unset PATHGATE_ROOT PATHGATE_POLICY PATHGATE_LOG PATHGATE_NO_URING LD_PRELOAD
export LC_ALL=C

failures=0
checks=0

skip() {
	echo "SKIP: $*"
	exit 77
}

fail() {
	echo "FAIL: $*" >&2
	failures=$((failures + 1))
}

ok() {
	checks=$((checks + 1))
}

# A scratch directory under $TMPDIR, removed on exit.
scratch() {
	SCRATCH=$(mktemp -d "${TMPDIR:-/tmp}/pg-shim-XXXXXX") || exit 99
	trap 'chmod -R u+rwx "$SCRATCH" 2>/dev/null; rm -rf "$SCRATCH"' EXIT
}

# Paths, types, modes, sizes, inodes, mtimes and contents of a tree.
snapshot() {
	(cd "$1" && find . -printf '%p %y %m %s %i %T@\n' | sort &&
	 find . -type f -print0 | sort -z | xargs -0 -r md5sum)
}

# expect_status WANT DESCRIPTION CMD...: run CMD, compare its status.
# Its stderr is kept in $ERR, stdout in $OUT.
expect_status() {
	want=$1 desc=$2
	shift 2
	OUT=$("$@" 2>"$SCRATCH/.stderr")
	got=$?
	ERR=$(cat "$SCRATCH/.stderr")
	if [ "$got" -ne "$want" ]; then
		fail "$desc: exit $got, want $want; stderr: $ERR"
	else
		ok
	fi
}

# expect_in HAYSTACK NEEDLE DESCRIPTION
expect_in() {
	case $1 in
	*"$2"*) ok ;;
	*) fail "$3: '$2' not in: $1" ;;
	esac
}

expect_not_in() {
	case $1 in
	*"$2"*) fail "$3: '$2' unexpectedly in: $1" ;;
	*) ok ;;
	esac
}

finish() {
	echo "$checks checks passed, $failures failed"
	[ "$failures" -eq 0 ]
	exit $?
}
