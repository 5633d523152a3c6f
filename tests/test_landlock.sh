#!/bin/sh
# test_landlock.sh - the Landlock envelope's real-spawn suite
# (tests/test_landlock) where it matters: on the host as it is (the
# automatic choice picks bwrap where bwrap works), as root in a user
# namespace that can make no further namespace (bwrap fails with ENOSPC:
# the automatic choice must pick Landlock), as nobody there, and with
# Landlock hidden (everything refused); then pathgate run there, with the
# preload inside.  Skips, saying why, where the kernel has no Landlock.
set -u
: "${top_builddir:=.}"
prog="$top_builddir/tests/test_landlock"
nouserns="$top_builddir/tests/landlock/nouserns"
PATHGATE="$top_builddir/shim/pathgate"
export PATHGATE_LANDLOCK_EXEC="$top_builddir/libexec/pathgate-landlock-exec"
export PATHGATE_PRELOAD="$top_builddir/shim/.libs/libpathgate-preload.so"
fail=0

"$prog"
st=$?
[ $st -eq 77 ] && exit 77            # no Landlock: the reason is printed
[ $st -eq 0 ] || fail=1

echo "# Landlock hidden by seccomp: every launch refused"
PG_TEST_NO_LANDLOCK=1 "$prog" || fail=1

echo "# root in a user namespace that can make no other"
"$nouserns" sh -c 'cat /proc/sys/user/max_user_namespaces' >/dev/null 2>&1
case $? in
0) ;;
77) echo "SKIP (namespaced runs): no user namespace can be made here"; exit $fail ;;
*) echo "FAIL: nouserns does not work here"; exit 1 ;;
esac
PG_TEST_EXPECT_ENVELOPE=landlock "$nouserns" "$prog" || fail=1

if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null 2>&1; then
	dir=$(mktemp -d "${TMPDIR:-/var/tmp}/pg-ll-nobody-XXXXXX") || exit 99
	trap 'rm -rf "$dir"' EXIT INT TERM
	chown 65534:65534 "$dir" && chmod 0700 "$dir"
	if setpriv --reuid=65534 --regid=65534 --clear-groups test -x "$prog" &&
	   setpriv --reuid=65534 --regid=65534 --clear-groups test -w "$dir"; then
		echo "# nobody in that namespace"
		"$nouserns" setpriv --reuid=65534 --regid=65534 --clear-groups \
			env TMPDIR="$dir" PG_TEST_EXPECT_ENVELOPE=landlock "$prog" || fail=1
	else
		echo "SKIP (nobody): the build tree or TMPDIR is closed to nobody"
	fi
fi

# pathgate run, automatic choice, inside that namespace: Landlock runs,
# the report says so, and the preload holds the absent denied name.
if [ -x "$PATHGATE" ] && [ -f "$PATHGATE_PRELOAD" ] && [ -z "${PG_SANITIZERS:-}" ]; then
	w=$(mktemp -d "${TMPDIR:-/var/tmp}/pg-ll-run-XXXXXX") || exit 99
	mkdir -p "$w/ws/sub" "$w/ws/other" && echo ok > "$w/ws/ok.txt" && echo k > "$w/ws/sub/k"
	printf 'read /\nwrite .\ndeny other/.env\ndeny sub/k\n' > "$w/policy"
	# other/ is granted whole (nothing narrower exists in it): Landlock
	# would let the absent .env be made; the preload refuses it.
	out=$("$nouserns" "$PATHGATE" run --root "$w/ws" --policy "$w/policy" --report "$w/report.json" \
		-- sh -c 'cat ok.txt; echo y > other/fine; echo x > other/.env; cat sub/k; echo rc=$?' 2>&1)
	st=$?
	echo "$out" | sed 's/^/  run: /'
	grep -q '"envelope": "landlock"' "$w/report.json" 2>/dev/null || { echo "FAIL: run's report does not say landlock"; fail=1; }
	[ ! -e "$w/ws/other/.env" ] || { echo "FAIL: run: the absent denied other/.env was created"; fail=1; }
	[ -e "$w/ws/other/fine" ] || { echo "FAIL: run: other/fine was not made"; fail=1; }
	case $out in *ok*rc=1*) ;; *) echo "FAIL: run: unexpected output"; fail=1 ;; esac
	[ $st -eq 0 ] || { echo "FAIL: run exited $st"; fail=1; }
	out=$("$nouserns" "$PATHGATE" plan --root "$w/ws" --policy "$w/policy" 2>&1)
	case $out in *"landlock "*) ;; *) echo "FAIL: plan under a blocked namespace shows no grants"; fail=1 ;; esac
	out=$("$nouserns" "$PATHGATE" run --envelope=bwrap --root "$w/ws" --policy "$w/policy" -- sh -c "echo ran > '$w/ws/ran'" 2>&1)
	st=$?
	[ $st -eq 125 ] && [ ! -e "$w/ws/ran" ] || { echo "FAIL: --envelope=bwrap ran where bwrap cannot ($st): $out"; fail=1; }
	rm -rf "$w"
fi
[ $fail -eq 0 ] && echo "PASS: landlock scenarios" 
exit $fail
