#!/bin/sh
# test_run_envelope.sh - pathgate run with the preload inside the envelope:
# the preload must agree with the mounts it runs among.  The envelope binds
# read regions read-only beneath the workspace; the preload there must read
# them, write the write regions and refuse the denied names, as root and
# as nobody.  Git is the program that found the disagreement (it stat()s
# .git and reads the index across those mounts), so it runs here too,
# under a small policy and under the built-in default one.
. "$top_srcdir/tests/shim-lib.sh"

if [ -n "$PG_SANITIZERS" ]; then
	skip "sanitizer build: an ASan-instrumented preload cannot load into uninstrumented programs (sh, git, python3); the plain build runs these"
fi
[ -f "$PRELOAD" ] || { echo "ERROR: $PRELOAD is not built"; exit 99; }
command -v git >/dev/null || skip "git is not installed"
# The envelope's PATH: a python3 only in the host's (pyenv shims) is not there.
PY=
for p in /usr/bin/python3 /usr/local/bin/python3; do
	[ -x "$p" ] && { PY=$p; break; }
done

scratch
chmod 755 "$SCRATCH"
mkdir -p "$SCRATCH/home"
PD="Permission denied"
RO="Read-only file system"

# as USER CMD...: CMD from the current directory, as root or as nobody.
as() {
	u=$1
	shift
	if [ "$u" = nobody ]; then
		setpriv --reuid=65534 --regid=65534 --clear-groups env HOME="$SCRATCH/home" "$@"
	else
		env HOME="$SCRATCH/home" "$@"
	fi
}

GIT_ENV="GIT_CONFIG_NOSYSTEM=1 GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.org GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.org"

# A workspace at $SCRATCH/USER-NAME, owned by USER, where the host ran git
# init and one commit.  Sets W.
workspace() {
	W="$SCRATCH/$1-$2"
	rm -rf "$W"
	mkdir -p "$W/docs" "$W/src/lib/build" "$W/src/lib/private"
	echo hi > "$W/docs/a.txt"
	echo lib > "$W/src/lib/b.txt"
	echo key > "$W/src/lib/private/k"
	echo TOKEN=x > "$W/.env"
	[ "$1" = nobody ] && chown -R 65534:65534 "$W"
	(cd "$W" && as "$1" env $GIT_ENV sh -c 'git init -q && git add -A && git commit -qm init') ||
		fail "$1: git init in $W"
}

# inside USER DESCRIPTION WANT CMD...: pathgate run CMD in $W (the preload
# inside the envelope), as USER; its status must be WANT.  OUT, ERR.
inside() {
	u=$1 desc=$2 want=$3
	shift 3
	OUT=$(cd "$W" && as "$u" env PATHGATE_PRELOAD="$PRELOAD" "$PATHGATE" run \
		--env GIT_CONFIG_NOSYSTEM=1 --env GIT_AUTHOR_NAME=t --env GIT_AUTHOR_EMAIL=t@example.org \
		--env GIT_COMMITTER_NAME=t --env GIT_COMMITTER_EMAIL=t@example.org -- "$@" 2>"$SCRATCH/.stderr")
	got=$?
	ERR=$(cat "$SCRATCH/.stderr")
	if [ "$got" -ne "$want" ]; then
		fail "$u: $desc: exit $got, want $want; stdout: $OUT; stderr: $ERR"
	else
		ok
	fi
}

# The README's policy: the workspace writable, .git and docs read-only.
readme_policy() {
	u=$1
	workspace "$u" readme
	printf 'read /\nwrite .\nread .git\nread docs\n' > "$W/.pathgate"
	[ "$u" = nobody ] && chown 65534:65534 "$W/.pathgate"
	inside "$u" "git status (README policy)" 0 git status
	expect_not_in "$ERR" "not a git repository" "$u: git status finds the repository"
	inside "$u" "cat docs/a.txt" 0 cat docs/a.txt
	[ "$OUT" = hi ] && ok || fail "$u: cat docs/a.txt printed '$OUT'"
	inside "$u" "ls docs" 0 ls docs
	[ "$OUT" = a.txt ] && ok || fail "$u: ls docs printed '$OUT'"
	if [ -n "$PY" ]; then
		inside "$u" "python3 reads docs/a.txt" 0 "$PY" -c 'print(open("docs/a.txt").read(), end="")'
		[ "$OUT" = hi ] && ok || fail "$u: python3 printed '$OUT'"
	fi
	inside "$u" "write the workspace" 0 sh -c 'echo new > new.txt && cat new.txt'
	[ "$OUT" = new ] && ok || fail "$u: the write region gave '$OUT'"
	inside "$u" "write into docs" 2 sh -c 'echo x > docs/a.txt'
	expect_in "$ERR" "$RO" "$u: docs is read-only"
	[ "$(cat "$W/docs/a.txt")" = hi ] && ok || fail "$u: docs/a.txt was written"
}

# Read regions one and two levels deep, a write region inside the deeper
# one, and denied names at the top and inside a read region.
nested_policy() {
	u=$1
	workspace "$u" nested
	printf 'read /\nwrite .\nread .git\nread docs\nread src/lib\nwrite src/lib/build\ndeny .env\ndeny src/lib/private\n' \
		> "$W/.pathgate"
	[ "$u" = nobody ] && chown 65534:65534 "$W/.pathgate"
	inside "$u" "cat at depths one and two" 0 sh -c 'cat docs/a.txt src/lib/b.txt'
	[ "$OUT" = "hi
lib" ] && ok || fail "$u: nested reads printed '$OUT'"
	inside "$u" "ls src/lib" 0 ls src/lib
	expect_in "$OUT" "b.txt" "$u: ls src/lib"
	if [ -n "$PY" ]; then
		inside "$u" "python3 reads src/lib/b.txt" 0 "$PY" -c 'print(open("src/lib/b.txt").read(), end="")'
		[ "$OUT" = lib ] && ok || fail "$u: python3 printed '$OUT'"
	fi
	inside "$u" "git status from inside a read region" 0 sh -c 'cd src/lib && git status'
	inside "$u" "write region inside a read region" 0 sh -c 'echo o > src/lib/build/o && cat src/lib/build/o'
	[ "$OUT" = o ] && ok || fail "$u: src/lib/build gave '$OUT'"
	inside "$u" "write into src/lib" 2 sh -c 'echo x > src/lib/new'
	expect_in "$ERR" "$RO" "$u: src/lib is read-only"
	inside "$u" "cat .env" 1 cat .env
	expect_in "$ERR" "$PD" "$u: .env is denied"
	expect_not_in "$OUT" "TOKEN" "$u: .env leaked"
	inside "$u" "cat a denied name inside a read region" 1 cat src/lib/private/k
	expect_not_in "$OUT" "key" "$u: src/lib/private/k leaked"
	inside "$u" "ls a denied directory inside a read region" 2 ls src/lib/private
}

# No .pathgate: the built-in default policy (read! **/.git/hooks and
# read! **/.git/config among its rules).
default_policy() {
	u=$1
	workspace "$u" default
	echo more > "$W/c.txt"
	inside "$u" "git status, add, commit, log (default policy)" 0 \
		sh -c 'git status && git add -A && git commit -qm x && git log --oneline'
	[ "$(printf '%s\n' "$OUT" | grep -c ' init$\| x$')" = 2 ] && ok ||
		fail "$u: git log after the commit: $OUT"
	[ "$(cd "$W" && as "$u" git log --oneline | wc -l)" = 2 ] && ok ||
		fail "$u: the commit is not on the host"
}

"$PATHGATE" run --root "$SCRATCH" --no-preload -- true 2>"$SCRATCH/.stderr"
if [ $? -eq 125 ]; then
	skip "the envelope is unavailable here: $(cat "$SCRATCH/.stderr")"
fi

users=root
if [ "$(id -u)" -ne 0 ]; then
	users=$(id -un)
	as() { shift; env HOME="$SCRATCH/home" "$@"; }
elif ! command -v setpriv >/dev/null; then
	echo "no setpriv: the cases as nobody are not run"
elif ! setpriv --reuid=65534 --regid=65534 --clear-groups sh -c \
	"test -x '$PATHGATE' && test -r '$PRELOAD' && test -x '$SCRATCH'"; then
	echo "nobody cannot reach the build tree here: the cases as nobody are not run"
else
	chown 65534:65534 "$SCRATCH/home"
	users="root nobody"
fi

for u in $users; do
	readme_policy "$u"
	nested_policy "$u"
	default_policy "$u"
done

# Outside an envelope the preload never crosses a mount, whatever the
# environment says: a privileged process told PATHGATE_ENVELOPE=1 still
# refuses a mount beneath its root as an escape.
if [ "$(id -u)" -eq 0 ] && command -v unshare >/dev/null; then
	W="$SCRATCH/mounted"
	mkdir -p "$W/m" "$SCRATCH/elsewhere"
	echo outside > "$SCRATCH/elsewhere/f"
	OUT=$(unshare -m sh -c "mount --make-rprivate / && mount --bind '$SCRATCH/elsewhere' '$W/m' &&
		cd '$W' && env LD_PRELOAD='$PRELOAD' PATHGATE_ROOT='$W' PATHGATE_ENVELOPE=1 \
		PATHGATE_POLICY_TEXT='write .' cat m/f" 2>&1)
	case $OUT in
	*"Operation not permitted"*mount*|*"unshare failed"*)
		echo "cannot make a mount namespace here: the outside-envelope case is not run" ;;
	*)
		expect_in "$OUT" "$PD" "outside an envelope a mount beneath the root is refused"
		expect_not_in "$OUT" "outside" "outside an envelope the mount was crossed" ;;
	esac
fi

finish
