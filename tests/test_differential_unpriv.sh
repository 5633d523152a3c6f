#!/bin/sh
# test_differential_unpriv.sh - the differential test again, as nobody, on
# workspaces nobody owns (a mkdtemp directory chowned to 65534): bwrap
# then builds the envelope in an unprivileged user namespace, and the
# probes meet the permissions of an ordinary user.  Fewer workspaces
# than as root (PG_DIFF_UNPRIV_WORKSPACES, default 100).
set -u
prog="${top_builddir:-.}/tests/test_differential"
if [ "$(id -u)" != 0 ]; then
	echo "SKIP: not root: tests/test_differential already ran as this unprivileged user"
	exit 77
fi
if ! command -v setpriv >/dev/null 2>&1; then
	echo "SKIP: setpriv (util-linux) is missing"
	exit 77
fi
nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
if ! nobody test -x "$prog"; then
	echo "SKIP: nobody cannot reach $prog (build directory not world-traversable)"
	exit 77
fi
dir=$(mktemp -d "${TMPDIR:-/var/tmp}/pg-diff-nobody-XXXXXX") || exit 99
trap 'rm -rf "$dir"' EXIT INT TERM
chown 65534:65534 "$dir" && chmod 0700 "$dir" || exit 99
if ! nobody test -w "$dir"; then
	echo "SKIP: nobody cannot reach $dir (TMPDIR's parents are closed to it)"
	exit 77
fi
nobody env TMPDIR="$dir" PG_DIFF_WORKSPACES="${PG_DIFF_UNPRIV_WORKSPACES:-100}" "$prog"
