#!/bin/sh
# test_realwork.sh - real programs under pathgate run (the envelope with
# the preload inside), doing ordinary work the policy allows:
#   - git status, add, commit and log in a repository the host made, under
#     the built-in default policy (no --policy, no .pathgate);
#   - cat, ls and python3 reading files in read regions one and two levels
#     deep, under the README's policy (read /, write ., read .git, read
#     docs) plus read docs/inner.
# Every command must succeed and print what it read; the host tree outside
# the workspace (and, for the read-only work, inside it) must be exactly
# as it was.  As root, the script then runs itself again as nobody.
. "$top_srcdir/tests/shim-lib.sh"

if [ -n "${PG_SANITIZERS:-}" ]; then
	skip "sanitizer build: an ASan-instrumented preload cannot load into uninstrumented programs (git, cat, python3)"
fi
[ -f "$PRELOAD" ] || { echo "ERROR: $PRELOAD is not built"; exit 99; }
# The envelope's PATH: what the child will find.
ENVELOPE_PATH=/usr/local/bin:/usr/bin:/bin
for prog in bwrap git python3 cat ls; do
	PATH=$ENVELOPE_PATH command -v $prog >/dev/null 2>&1 ||
		skip "$prog is not in $ENVELOPE_PATH, where the envelope looks for programs"
done

scratch
# The tree the snapshots cover; the test's own files stay beside it.
T="$SCRATCH/tree"
W="$T/ws"
mkdir -p "$W" "$T/home"
echo outside > "$T/home/marker"
"$PATHGATE" run --root "$W" --no-preload -- true 2>"$SCRATCH/.stderr"
if [ $? -eq 125 ]; then
	skip "the envelope cannot be built here: $(cat "$SCRATCH/.stderr")"
fi

export HOME="$T/home" GIT_CONFIG_NOSYSTEM=1 \
	GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.org \
	GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.org
GIT_ENV="--env GIT_CONFIG_NOSYSTEM --env GIT_AUTHOR_NAME --env GIT_AUTHOR_EMAIL --env GIT_COMMITTER_NAME --env GIT_COMMITTER_EMAIL"

# Everything under $T but the workspace: paths, types, modes, sizes,
# inodes, mtimes, contents.
outside() {
	(cd "$T" && find . -path ./ws -prune -o -printf '%p %y %m %s %i %T@\n' | sort &&
	 find . -path ./ws -prune -o -type f -print0 | sort -z | xargs -0 -r md5sum)
}

same_outside() {
	after=$(outside)
	[ "$1" = "$after" ] && ok || fail "$2: the host outside the workspace changed: $(echo "$1" > "$SCRATCH/.b"; echo "$after" > "$SCRATCH/.a"; diff "$SCRATCH/.b" "$SCRATCH/.a")"
}

# ---- git under the default policy, in a repository the host made; with
# the preload (pathgate run's default), then with the envelope alone, so
# that a failure says which of the two refused.
for mode in "" --no-preload; do
	what="git status/add/commit/log under the default policy${mode:+ ($mode)}"
	rm -rf "$W"
	mkdir -p "$W"
	(cd "$W" && git init -q && echo one > one.txt && git add one.txt && git commit -qm one) ||
		{ echo "ERROR: the host's git cannot make the repository"; exit 99; }
	echo two > "$W/two.txt"
	[ ! -e "$W/.pathgate" ] && ok || fail "the workspace has a .pathgate: the default policy would not apply"
	before=$(outside)
	# shellcheck disable=SC2086
	OUT=$(cd "$W" && "$PATHGATE" run $mode $GIT_ENV -- \
		sh -c 'git status && git add -A && git commit -qm x && git log --oneline' 2>"$SCRATCH/.stderr")
	got=$?
	ERR=$(cat "$SCRATCH/.stderr")
	[ $got -eq 0 ] && ok || fail "$what: exit $got: $ERR"
	expect_in "$OUT" " x" "$what: git log shows the new commit"
	expect_in "$OUT" " one" "$what: git log shows the host's commit"
	[ "$(git -C "$W" log --oneline 2>/dev/null | wc -l)" -eq 2 ] && ok ||
		fail "$what: the host does not see the commit made in the envelope: $(git -C "$W" log --oneline 2>&1)"
	[ -z "$(git -C "$W" status --porcelain 2>&1)" ] && ok ||
		fail "$what: the commit left changes behind: $(git -C "$W" status --porcelain 2>&1)"
	same_outside "$before" "$what"
done

# ---- reading nested read regions under the README's policy.
rm -rf "$W"
mkdir -p "$W/.git" "$W/docs/inner" "$W/src"
echo ref > "$W/.git/HEAD"
echo one-level > "$W/docs/a.txt"
echo two-levels > "$W/docs/inner/b.txt"
echo source > "$W/src/c.txt"
cat > "$T/policy" <<EOF
read /
write .
read .git
read docs
read docs/inner
EOF
# read_ok DESCRIPTION WANT CMD...: CMD succeeds in the workspace, prints
# WANT, and changes nothing anywhere under $T; under pathgate run with
# $mode (the preload, or --no-preload: the envelope alone).
read_ok() {
	desc="$1${mode:+ ($mode)}" want=$2
	shift 2
	before=$(snapshot "$T")
	# shellcheck disable=SC2086
	OUT=$(cd "$W" && "$PATHGATE" run $mode --policy "$T/policy" -- "$@" 2>"$SCRATCH/.stderr")
	got=$?
	ERR=$(cat "$SCRATCH/.stderr")
	[ $got -eq 0 ] && ok || fail "$desc: exit $got: $ERR"
	expect_in "$OUT" "$want" "$desc"
	after=$(snapshot "$T")
	[ "$before" = "$after" ] && ok || fail "$desc: the host changed"
}
for mode in "" --no-preload; do
	read_ok "cat, one level deep" one-level cat docs/a.txt
	read_ok "cat, two levels deep" two-levels cat docs/inner/b.txt
	read_ok "cat in .git" ref cat .git/HEAD
	read_ok "cat in the write region" source cat src/c.txt
	read_ok "ls, one level deep" a.txt ls docs
	read_ok "ls, two levels deep" b.txt ls docs/inner
	read_ok "python3, one level deep" one-level python3 -c 'print(open("docs/a.txt").read())'
	read_ok "python3, two levels deep" two-levels python3 -c 'print(open("docs/inner/b.txt").read())'
done
# The region stays read-only: the refusal is the one that must happen.
before=$(snapshot "$T")
(cd "$W" && "$PATHGATE" run --policy "$T/policy" -- sh -c 'echo x >> docs/inner/b.txt') 2>/dev/null
[ $? -ne 0 ] && ok || fail "appending to docs/inner/b.txt succeeded in a read region"
[ "$before" = "$(snapshot "$T")" ] && ok || fail "the refused append changed the host"

# ---- as nobody, on a directory nobody owns (once, from the root run).
if [ "$(id -u)" = 0 ] && [ -z "${PG_REALWORK_NOBODY:-}" ]; then
	if ! command -v setpriv >/dev/null 2>&1; then
		echo "note: setpriv is missing: not run as nobody"
	else
		nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
		ndir=$(mktemp -d "${TMPDIR:-/var/tmp}/pg-realwork-nobody-XXXXXX") || exit 99
		chown 65534:65534 "$ndir" && chmod 0700 "$ndir"
		if nobody test -x "$PATHGATE" && nobody test -r "$PRELOAD" && nobody test -r "$0" &&
		   nobody test -w "$ndir"; then
			echo "--- again as nobody"
			nobody env PG_REALWORK_NOBODY=1 TMPDIR="$ndir" HOME="$ndir" sh "$0"
			[ $? -eq 0 ] && ok || fail "the run as nobody failed (above)"
		else
			echo "note: nobody cannot reach the build tree or $ndir: not run as nobody"
		fi
		rm -rf "$ndir"
	fi
fi
finish
