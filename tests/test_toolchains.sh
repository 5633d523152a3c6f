#!/bin/sh
# test_toolchains.sh - the real-work suite: toolchains doing a job under
# pathgate run with the built-in default policy (no --policy, no
# .pathgate) and the preload inside the envelope:
#   - git: init, commit, branch, merge, rebase, stash, log, and a clone of
#     a local repository; hooks and config read-only on the next launch;
#   - python3 -m venv, then pip install --no-index of a package made here;
#   - make of a small C program;
#   - tar and cp -a of a tree;
#   - sqlite3 on a database in the workspace;
#   - a shell pipeline;
#   - a workspace symlink to a host file (ln -s /usr/include/stdio.h).
# Each job must succeed and leave what it made in the workspace; the host
# outside the workspace must be exactly as it was (paths, types, modes,
# sizes, inodes, mtimes, contents).  A tool that is missing skips its job
# with the reason printed.  As root, the script runs itself again as
# nobody.
. "$top_srcdir/tests/shim-lib.sh"

if [ -n "${PG_SANITIZERS:-}" ]; then
	skip "sanitizer build: an ASan-instrumented preload cannot load into uninstrumented programs"
fi
[ -f "$PRELOAD" ] || { echo "ERROR: $PRELOAD is not built"; exit 99; }
command -v bwrap >/dev/null 2>&1 || skip "no bwrap: the envelope cannot be built"

scratch
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
# The jobs make repositories (git init, clone): what they make under
# .git would be moved aside by run's audit (issue 10.10); they ask to keep it.
ENVS="--accept-seam=created --env GIT_CONFIG_NOSYSTEM --env GIT_AUTHOR_NAME --env GIT_AUTHOR_EMAIL --env GIT_COMMITTER_NAME --env GIT_COMMITTER_EMAIL"

# have TOOL WHY: true when TOOL is on PATH; else says the job is skipped.
have() {
	if command -v "$1" >/dev/null 2>&1; then
		return 0
	fi
	echo "SKIP job: $1 is not installed: $2"
	return 1
}

outside() {
	(cd "$T" && find . -path ./ws -prune -o -printf '%p %y %m %s %i %T@\n' | sort &&
	 find . -path ./ws -prune -o -type f -print0 | sort -z | xargs -0 -r md5sum)
}

# job DESCRIPTION SCRIPT: run sh -c SCRIPT in the workspace under pathgate
# run (default policy, preload, 120 s at most); it must exit 0 and leave
# the host outside the workspace as it was.  Its stdout is in $OUT.
job() {
	desc=$1
	before=$(outside)
	# shellcheck disable=SC2086
	OUT=$(cd "$W" && timeout 120 "$PATHGATE" run $ENVS -- sh -c "$2" 2>"$SCRATCH/.stderr")
	got=$?
	ERR=$(cat "$SCRATCH/.stderr")
	[ $got -eq 0 ] && ok || fail "$desc: exit $got: $ERR"
	after=$(outside)
	[ "$before" = "$after" ] && ok ||
		fail "$desc: the host outside the workspace changed: $(echo "$before" > "$SCRATCH/.b"; echo "$after" > "$SCRATCH/.a"; diff "$SCRATCH/.b" "$SCRATCH/.a")"
}

[ ! -e "$W/.pathgate" ] && ok || fail "the workspace has a .pathgate: the default policy would not apply"

# ---- git: a repository made inside the envelope, the whole cycle.
if have git "git init/commit/branch/merge/rebase/stash/clone"; then
	job "git init, commit, branch, merge, rebase, stash, log" '
		set -e
		git init -q -b main repo && cd repo
		echo one > one.txt && git add one.txt && git commit -qm one
		git checkout -qb feature && echo two > two.txt && git add -A && git commit -qm two
		git checkout -q main && echo three > three.txt && git add three.txt && git commit -qm three
		git merge -q --no-edit feature
		git checkout -qb topic HEAD~1 && echo four > four.txt && git add four.txt && git commit -qm four
		git rebase -q main
		echo more >> one.txt && git stash -q && git stash pop -q && git checkout -q one.txt
		git log --oneline'
	for c in one two three four Merge; do expect_in "$OUT" " $c" "git log shows the commit $c"; done
	[ "$(git -C "$W/repo" log --oneline 2>/dev/null | wc -l)" -eq 5 ] && ok ||
		fail "the host does not see the five commits: $(git -C "$W/repo" log --oneline 2>&1)"
	[ -d "$W/repo/.git/hooks" ] && [ -f "$W/repo/.git/config" ] && ok ||
		fail "git init left no hooks or config"
	job "git clone of a local repository" 'git clone -q repo copy && git -C copy log --oneline && git -C copy branch -a'
	expect_in "$OUT" " four" "the clone has the history"
	expect_in "$OUT" "remotes/origin/topic" "the clone has the remote branches"
	# The next launch binds what git init made read-only.
	before=$(snapshot "$W/repo/.git")
	(cd "$W" && "$PATHGATE" run -- sh -c 'echo "[core] fsmonitor = evil" >> repo/.git/config') 2>/dev/null
	[ $? -ne 0 ] && ok || fail "a later launch could append to .git/config"
	(cd "$W" && "$PATHGATE" run -- sh -c 'echo evil > repo/.git/hooks/pre-commit') 2>/dev/null
	[ $? -ne 0 ] && ok || fail "a later launch could plant a hook"
	(cd "$W" && "$PATHGATE" run --no-preload -- sh -c 'echo evil > copy/.git/hooks/post-checkout') 2>/dev/null
	[ $? -ne 0 ] && ok || fail "a later launch without the preload could plant a hook in the clone"
	[ "$before" = "$(snapshot "$W/repo/.git")" ] && ok || fail "the refused writes changed .git"
fi

# ---- python3 -m venv (ensurepip puts certifi's cacert.pem into the
# workspace), then pip install --no-index of a package made here.
PY=$(PATH=/usr/local/bin:/usr/bin:/bin command -v python3)
if [ -z "$PY" ]; then
	echo "SKIP job: python3 is not installed: python3 -m venv and pip"
elif ! "$PY" -c 'import ensurepip, venv' 2>/dev/null; then
	echo "SKIP job: $PY has no ensurepip (Debian: python3-venv): python3 -m venv and pip"
else
	mkdir -p "$W/pkg/hello"
	printf 'from setuptools import setup\nsetup(name="hello", version="1.0", packages=["hello"])\n' > "$W/pkg/setup.py"
	echo 'def hi(): return "hi from hello"' > "$W/pkg/hello/__init__.py"
	job "python3 -m venv, pip install --no-index" "
		$PY -m venv venv &&
		venv/bin/pip install -q --no-cache-dir --no-index --no-build-isolation ./pkg &&
		venv/bin/python -c 'import hello; print(hello.hi())' &&
		head -c 4 venv/bin/python3 | od -c | head -1"
	expect_in "$OUT" "hi from hello" "the installed package imports"
	expect_in "$OUT" "E   L   F" "venv/bin/python3, a symlink to the host's python, reads"
	ls "$W"/venv/lib/python3*/site-packages/pip/_vendor/certifi/cacert.pem >/dev/null 2>&1 && ok ||
		fail "the venv's pip has no cacert.pem"
fi

# ---- make of a small C program.
if have make "make of a C program" && have cc "make of a C program"; then
	mkdir -p "$W/cprog"
	printf '#include <stdio.h>\nint main(void) { puts("built and ran"); return 0; }\n' > "$W/cprog/main.c"
	printf 'hello: main.o\n\t$(CC) -o $@ main.o\nmain.o: main.c\n\t$(CC) -c -o $@ main.c\n' > "$W/cprog/Makefile"
	job "make of a C program" 'make -s -C cprog && ./cprog/hello'
	expect_in "$OUT" "built and ran" "the program make built runs"
fi

# ---- tar and cp -a of a tree.
if have tar "tar of a tree"; then
	mkdir -p "$W/src/sub"
	echo a > "$W/src/a.txt"
	echo b > "$W/src/sub/b.txt"
	ln -s a.txt "$W/src/link"
	job "tar c/x and cp -a of a tree" '
		tar cf src.tar src && mkdir -p unpacked && tar xf src.tar -C unpacked &&
		cp -a src copied && cat unpacked/src/sub/b.txt copied/link && readlink copied/link'
	expect_in "$OUT" "b
a
a.txt" "tar and cp -a keep contents and links"
fi

# ---- sqlite3 on a database in the workspace.
if have sqlite3 "sqlite3 on a workspace database"; then
	job "sqlite3 on a database in the workspace" '
		sqlite3 db.sqlite "create table t(x); insert into t values (42); select x from t;"'
	expect_in "$OUT" "42" "sqlite3 answers from its database"
	[ "$(sqlite3 "$W/db.sqlite" 'select x from t' 2>&1)" = 42 ] && ok || fail "the host cannot read the database"
fi

# ---- a pipeline, and a symlink to a host file.
job "a shell pipeline" 'seq 1 1000 | sort -r | grep -c 9 > count.txt && cat count.txt | tr -d " "'
expect_in "$OUT" "271" "the pipeline's answer"
if [ -r /usr/include/stdio.h ]; then
	job "a workspace symlink to a host file" 'ln -sf /usr/include/stdio.h stdio-link && grep -c "#" stdio-link >/dev/null && echo read'
	expect_in "$OUT" "read" "the host file is read through the workspace link"
fi

# ---- as nobody, on a directory nobody owns (once, from the root run).
if [ "$(id -u)" = 0 ] && [ -z "${PG_TOOLCHAINS_NOBODY:-}" ]; then
	if ! command -v setpriv >/dev/null 2>&1; then
		echo "note: setpriv is missing: not run as nobody"
	else
		nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
		ndir=$(mktemp -d "${TMPDIR:-/var/tmp}/pg-toolchains-nobody-XXXXXX") || exit 99
		chown 65534:65534 "$ndir" && chmod 0700 "$ndir"
		if nobody test -x "$PATHGATE" && nobody test -r "$PRELOAD" && nobody test -r "$0" &&
		   nobody test -w "$ndir"; then
			echo "--- again as nobody"
			nobody env PG_TOOLCHAINS_NOBODY=1 TMPDIR="$ndir" HOME="$ndir" sh "$0"
			[ $? -eq 0 ] && ok || fail "the run as nobody failed (above)"
		else
			echo "note: nobody cannot reach the build tree or $ndir: not run as nobody"
		fi
		rm -rf "$ndir"
	fi
fi
finish
