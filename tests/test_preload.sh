#!/bin/sh
# test_preload.sh - real programs under libpathgate-preload.so, with a
# policy that writes the workspace and denies .env and secrets/.  Every
# denied action fails with the ordinary message and leaves the tree
# exactly as it was (snapshots before and after); every allowed one works.
. "$top_srcdir/tests/shim-lib.sh"

if [ -n "$PG_SANITIZERS" ]; then
	skip "sanitizer build: an ASan-instrumented preload cannot load into uninstrumented programs (cat, sh, git); the plain build runs these"
fi
[ -f "$PRELOAD" ] || { echo "ERROR: $PRELOAD is not built"; exit 99; }

scratch
W="$SCRATCH/ws"
POL="$SCRATCH/policy"
mkdir -p "$SCRATCH/outside" "$SCRATCH/hidden" "$SCRATCH/home"
echo hidden > "$SCRATCH/hidden/f"
cat > "$POL" <<EOF
read /
write .
deny .env
deny secrets
write /tmp
write /dev/null
read $SCRATCH/outside
deny $SCRATCH/hidden
write $SCRATCH/home
EOF
export OUTSIDE_VAR=1 HOME="$SCRATCH/home" GIT_CONFIG_NOSYSTEM=1 \
	GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.org \
	GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.org
PY=$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null)

populate() {
	rm -rf "$W"
	mkdir -p "$W/dir/sub" "$W/secrets"
	echo hello > "$W/file.txt"
	echo TOKEN=x > "$W/.env"
	echo s3cret > "$W/secrets/key"
	echo a > "$W/dir/sub/a.txt"
}

# Run CMD in the workspace under the preload.
guarded() {
	(cd "$W" && env LD_PRELOAD="$PRELOAD" PATHGATE_ROOT="$W" PATHGATE_POLICY="$POL" "$@")
}

# denied MESSAGE DESCRIPTION CMD...: fails, says MESSAGE, changes nothing.
denied() {
	msg=$1 desc=$2
	shift 2
	before=$(snapshot "$W")
	OUT=$(guarded "$@" 2>"$SCRATCH/.stderr")
	got=$?
	ERR=$(cat "$SCRATCH/.stderr")
	after=$(snapshot "$W")
	[ "$got" -ne 0 ] && ok || fail "$desc: succeeded (stdout: $OUT)"
	expect_in "$ERR" "$msg" "$desc"
	[ "$before" = "$after" ] && ok || fail "$desc: the tree changed: $(echo "$before" > "$SCRATCH/b"; echo "$after" > "$SCRATCH/a"; diff "$SCRATCH/b" "$SCRATCH/a")"
	expect_not_in "$OUT" "TOKEN=x" "$desc: leaked .env"
	expect_not_in "$OUT" "s3cret" "$desc: leaked secrets/key"
}

# allowed DESCRIPTION CMD...: succeeds.
allowed() {
	desc=$1
	shift
	OUT=$(guarded "$@" 2>"$SCRATCH/.stderr")
	got=$?
	ERR=$(cat "$SCRATCH/.stderr")
	[ "$got" -eq 0 ] && ok || fail "$desc: exit $got: $ERR"
}

populate
PD="Permission denied"

# ---- denied: each fails with the ordinary message and changes nothing
denied "$PD" "cat .env" cat .env
denied "$PD" "cat secrets/key" cat secrets/key
denied "$PD" "cat through dir/.." cat dir/../.env
denied "$PD" "cat .ENV (another case of .env)" cat .ENV
denied "$PD" "cp onto .env" cp file.txt .env
denied "$PD" "cp .env away" cp .env stolen.txt
denied "$PD" "cp -r secrets away" cp -r secrets stolen
denied "$PD" "mv into secrets/" mv file.txt secrets/
denied "$PD" "mv .env away" mv .env gone
denied "$PD" "rm -f .env" rm -f .env
denied "$PD" "rm -rf secrets" rm -rf secrets
denied "$PD" "mkdir -p under secrets" mkdir -p secrets/new/deep
denied "$PD" "touch .env" touch .env
denied "$PD" "touch .ENV" touch .ENV
denied "$PD" "touch secrets/new" touch secrets/new
denied "$PD" "ln -s into secrets" ln -s ../file.txt secrets/link
denied "$PD" "ln -sf over .env" ln -sf /etc/passwd .env
denied "$PD" "sh -c 'echo > .env'" sh -c 'echo > .env'
denied "$PD" "sh appends to secrets/key" sh -c 'echo x >> secrets/key'
denied "$PD" "env -i child keeps the preload" env -i /bin/sh -c 'cat .env'
denied "$PD" "a child that unsets LD_PRELOAD keeps it" sh -c 'unset LD_PRELOAD PATHGATE_ROOT PATHGATE_POLICY; exec cat .env'
denied "$PD" "relative cwd: cat ../../.env from dir/sub" sh -c 'cd dir/sub && cat ../../.env'
# A host symlink into the root carries no access the root's own names lack.
ln -s "$W/.env" "$SCRATCH/envlink"
ln -s "$W/secrets" "$SCRATCH/seclink"
denied "$PD" "cat a host symlink to .env" cat "$SCRATCH/envlink"
denied "$PD" "write through a host symlink to .env" sh -c "echo x > '$SCRATCH/envlink'"
denied "$PD" "cat through a host symlink to secrets/" cat "$SCRATCH/seclink/key"
denied "$PD" "mkdir through a host symlink to secrets/" mkdir "$SCRATCH/seclink/new"
allowed "rm of the host symlink itself" rm "$SCRATCH/envlink"
[ ! -L "$SCRATCH/envlink" ] && [ "$(cat "$W/.env")" = TOKEN=x ] && ok || fail "rm of a host symlink to .env"
rm -f "$SCRATCH/seclink"

# A relative PATHGATE_ROOT: children started elsewhere still get the root.
before=$(snapshot "$W")
OUT=$(cd "$W" && env LD_PRELOAD="$PRELOAD" PATHGATE_ROOT=. PATHGATE_POLICY="$POL" \
	sh -c 'cd dir/sub && sh -c "cat ../../.env; echo x > ../../.env; cat ../../file.txt"' 2>&1)
expect_in "$OUT" "$PD" "relative PATHGATE_ROOT: refused from a subdirectory's child"
expect_in "$OUT" "hello" "relative PATHGATE_ROOT: allowed from a subdirectory's child"
expect_not_in "$OUT" "TOKEN" "relative PATHGATE_ROOT: .env leaked"
[ "$before" = "$(snapshot "$W")" ] && ok || fail "relative PATHGATE_ROOT: the tree changed"
denied "$PD" "tar cannot archive secrets" tar -cf "$SCRATCH/secrets.tar" secrets
denied "$PD" "cat a host path under a deny" cat "$SCRATCH/hidden/f"
denied "Read-only file system" "write a host path under read" sh -c "echo x > '$SCRATCH/outside/new'"
[ ! -e "$SCRATCH/outside/new" ] && ok || fail "a write under a read rule outside the root landed"

# /dev/fd/N names a descriptor the program holds: no more than it allows.
echo ro > "$SCRATCH/outside/f"
denied "Read-only file system" "reopen a read fd of a read-only file for writing" \
	sh -c "exec 3< '$SCRATCH/outside/f'; echo x > /dev/fd/3"
[ "$(cat "$SCRATCH/outside/f")" = ro ] && ok || fail "a read-only file was written through /dev/fd"
allowed "write /dev/stderr redirected to a file" sh -c "echo to-stderr > /dev/stderr" 2>"$SCRATCH/err.log"
allowed "ls -l /proc/self/fd reads the links themselves" ls -l /proc/self/fd/
expect_not_in "$ERR" "cannot read symbolic link" "ls -l /proc/self/fd"
allowed "write /dev/null, read /dev/zero" sh -c 'echo x > /dev/null && head -c 1 /dev/zero > /dev/null'

if [ -n "$PY" ]; then
	denied "$PD" "python open('.env','w')" "$PY" -c "open('.env','w')"
	denied "$PD" "python subprocess (vfork) child" "$PY" -c "import subprocess, sys; sys.exit(subprocess.run(['cat', '.env']).returncode)"
	denied "$PD" "a program that closes every fd" "$PY" -c "
import os
os.closerange(3, 65536)
assert open('file.txt').read() == 'hello\n'
open('.env')"
	denied "$PD" "threads" "$PY" -c "
import threading
errors = []
def work():
    for i in range(200):
        try:
            open('.env').read()
            errors.append('read .env')
        except PermissionError:
            pass
        if open('file.txt').read() != 'hello\n':
            errors.append('file.txt')
ts = [threading.Thread(target=work) for i in range(8)]
[t.start() for t in ts]
[t.join() for t in ts]
assert not errors, errors
open('.env')"
else
	echo "python3 is not installed: its cases are not run"
fi

# A C program: vfork + exec, posix_spawn with an empty environment,
# every fd clobbered then closed, threads.
PROBE="$top_builddir/tests/preload_probe"
denied "$PD" "vfork + execv: the child keeps the preload" "$PROBE" vfork-exec .env
denied "$PD" "posix_spawn with an empty envp keeps the preload" "$PROBE" spawn-empty-env .env
allowed "vfork + execv of an allowed file" "$PROBE" vfork-exec file.txt
[ "$OUT" = hello ] && ok || fail "vfork-exec printed '$OUT'"
allowed "every fd clobbered, then closed" "$PROBE" clobber-fds
allowed "8 threads open and stat" "$PROBE" threads

# The cache of directory fd names (preload-cache.c) never answers for a
# name the preload would refuse: the held directory renamed into
# secrets/ (its old name taken again), its fd number reused by raw
# close + dup3 or by dup2, the cwd renamed into secrets/, all behind the
# preload's back; a symlink leaf into secrets/ under a cached directory.
for top in sc so; do
	mkdir -p "$W/$top/a" "$W/$top/b" "$W/$top/c" "$W/$top/d"
	echo ax > "$W/$top/a/x"; echo bk > "$W/$top/b/key"; echo ck > "$W/$top/c/key"
	echo dx > "$W/$top/d/x"
	allowed "a stale directory name is never the answer ($top)" "$PROBE" stale-cache $top
	expect_not_in "$ERR" "stale-cache" "stale directory names ($top)"
	[ -f "$W/secrets/$top-a/x" ] && [ -f "$W/secrets/$top-d/x" ] && ok ||
		fail "stale-cache $top did not move $top/a and $top/d"
done
mkdir -p "$W/sc/l"
echo lx > "$W/sc/l/x"
ln -s ../../secrets/key "$W/sc/l/link"
allowed "a symlink leaf under a cached directory" "$PROBE" symlink-leaf
rm -rf "$W/sc" "$W/so" "$W/secrets/sc-a" "$W/secrets/sc-d" "$W/secrets/so-a" "$W/secrets/so-d"

# preload-more.c: each call refused on a denied name, working on an
# ordinary one (libc would reach the kernel through its internal entry
# points here, out of the guard's sight).
# A small library that loads anywhere (the preload itself cannot be
# dlopened: its TLS is initial-exec).
LIBM=$(dirname "$(ldd /bin/sh | awk '/libc\.so\.6/ { print $3 }')")/libm.so.6
cp "$LIBM" "$W/lib.so"
cp "$LIBM" "$W/secrets/lib.so"
for call in mkstemp mkostemp mkdtemp; do
	denied "$PD" "$call in secrets/" "$PROBE" call $call secrets/tXXXXXX
	allowed "$call in the workspace" "$PROBE" call $call dir/tXXXXXX
done
for call in mkstemps mkostemps; do
	denied "$PD" "$call of a .key in secrets/" "$PROBE" call $call secrets/tXXXXXX.key
	allowed "$call in the workspace" "$PROBE" call $call dir/tXXXXXX.key
done
for call in statfs statvfs pathconf inotify_add_watch realpath canonicalize_file_name ftok; do
	denied "$PD" "$call of .env" "$PROBE" call $call .env
	denied "$PD" "$call of secrets/key" "$PROBE" call $call secrets/key
	allowed "$call of file.txt" "$PROBE" call $call file.txt
done
denied "$PD" "dlopen of secrets/lib.so" "$PROBE" call dlopen ./secrets/lib.so
allowed "dlopen of lib.so" "$PROBE" call dlopen ./lib.so
for call in nftw ftw fts_open scandirat; do
	denied "$PD" "$call of secrets" "$PROBE" call $call secrets
	allowed "$call of dir" "$PROBE" call $call dir
done
denied "$PD" "remove .env" "$PROBE" call remove .env
denied "$PD" "remove secrets/key" "$PROBE" call remove secrets/key
allowed "remove lib.so" "$PROBE" call remove lib.so
[ ! -e "$W/lib.so" ] && ok || fail "remove lib.so: still there"
mkdir "$W/gone"
allowed "remove an empty directory" "$PROBE" call remove gone
[ ! -e "$W/gone" ] && ok || fail "remove gone: still there"
rm -f "$W/secrets/lib.so"

# The walkers beneath their start: a denied entry by name only (ns, or
# dnr for a directory), nothing beneath a denied directory, in every
# order and working-directory mode; glob lists and matches nothing the
# guard would not list.  Unguarded, the same walk reaches secrets/ (the
# check can fail).
mkdir -p "$W/secrets/inner"
echo deep > "$W/secrets/inner/deep"
OUT=$(cd "$W" && "$PROBE" list nftw-depth .)
expect_in "$OUT" "f ./secrets/inner/deep deep" "unguarded, nftw reaches beneath secrets"
for how in nftw nftw-depth nftw-chdir nftw-chdir-pre ftw fts fts-nochdir; do
	allowed "$how of the workspace" "$PROBE" list $how .
	expect_in "$OUT" "f ./dir/sub/a.txt a" "$how lists and opens the workspace"
	expect_in "$OUT" "d ./dir/sub" "$how reports a readable directory"
	expect_in "$OUT" "dnr ./secrets" "$how: the denied directory by name, unreadable"
	expect_in "$OUT" "ns ./.env" "$how: a denied file by name, no status"
	expect_not_in "$OUT" "secrets/" "$how: nothing beneath the denied directory"
	expect_not_in "$OUT" "s3cret" "$how: no content beneath the denied directory"
	expect_not_in "$OUT" "TOKEN" "$how: .env not opened"
done
# fts_children lists a directory's entries with their status: a denied
# one by name only, with no status (its size is not shown).
OUT=$(cd "$W" && "$PROBE" list fts-children .)
expect_in "$OUT" "child f ./secrets/key size 7" "unguarded, fts_children shows beneath secrets"
for how in fts-children fts-children-nochdir; do
	allowed "$how of the workspace" "$PROBE" list $how .
	expect_in "$OUT" "child f ./file.txt size 6" "$how: an allowed entry with its status"
	expect_in "$OUT" "child f ./dir/sub/a.txt size 2" "$how: beneath a readable directory"
	expect_in "$OUT" "child dnr ./secrets size 0" "$how: the denied directory, no status"
	expect_in "$OUT" "child ns ./.env size 0" "$how: the denied file, no status"
	expect_not_in "$OUT" "secrets/" "$how: nothing beneath the denied directory"
done
OUT=$(cd "$W" && "$PROBE" list glob '*/*/*')
expect_in "$OUT" "f secrets/inner/deep deep" "unguarded, glob lists beneath secrets"
for how in glob glob64; do
	allowed "$how */*/*" "$PROBE" list $how '*/*/*'
	[ "$OUT" = "f dir/sub/a.txt a" ] && ok || fail "$how */*/*: $OUT"
	allowed "$how */*" "$PROBE" list $how '*/*'
	[ "$OUT" = "d dir/sub/" ] && ok || fail "$how */*: $OUT"
	allowed "$how secrets/*" "$PROBE" list $how 'secrets/*'
	[ "$OUT" = "no match" ] && ok || fail "$how secrets/*: $OUT"
	allowed "$how secrets/key (no pattern)" "$PROBE" list $how 'secrets/key'
	[ "$OUT" = "no match" ] && ok || fail "$how secrets/key: $OUT"
	allowed "$how dir/sub/a.txt (no pattern)" "$PROBE" list $how 'dir/sub/a.txt'
	[ "$OUT" = "f dir/sub/a.txt a" ] && ok || fail "$how dir/sub/a.txt: $OUT"
done
rm -rf "$W/secrets/inner"

# posix_spawn's file actions, judged when added: a denied name is
# refused there (and the child never runs); a relative name is judged
# from the directory a chdir action leaves the child in, and refused
# after addfchdir_np (not known in the parent); allowed ones work.
denied "addopen .env: $PD" "addopen of .env" "$PROBE" spawn-open r .env
denied "addopen secrets/key: $PD" "addopen of secrets/key" "$PROBE" spawn-open r secrets/key
denied "addopen secrets/new: $PD" "addopen creating secrets/new" "$PROBE" spawn-open w secrets/new
denied "addopen $SCRATCH/outside/new: Read-only file system" "addopen creating in a read-only host directory" \
	"$PROBE" spawn-open w "$SCRATCH/outside/new"
denied "addchdir_np secrets: $PD" "addchdir_np into secrets" "$PROBE" spawn-open r key secrets
denied "addopen ../../.env: $PD" "addopen of ../../.env after addchdir_np dir/sub" "$PROBE" spawn-open r ../../.env dir/sub
denied "addopen ../secrets/key: $PD" "addopen of ../secrets/key after addchdir_np dir" "$PROBE" spawn-open r ../secrets/key dir
denied "addopen file.txt: $PD" "addopen of a relative name after addfchdir_np" "$PROBE" spawn-open r file.txt fd:.
allowed "addopen of ../../file.txt after addchdir_np dir/sub" "$PROBE" spawn-open r ../../file.txt dir/sub
[ "$OUT" = hello ] && ok || fail "addopen after addchdir_np: '$OUT'"
allowed "addopen of an absolute name after addfchdir_np" "$PROBE" spawn-open r "$W/file.txt" fd:dir
[ "$OUT" = hello ] && ok || fail "addopen after addfchdir_np: '$OUT'"
denied "addopen ../.env: $PD" "addopen of ../.env from dir" sh -c "cd dir && exec '$PROBE' spawn-open r ../.env"
allowed "addopen of file.txt" "$PROBE" spawn-open r file.txt
[ "$OUT" = hello ] && ok || fail "addopen of file.txt: '$OUT'"
allowed "addopen of an absolute name after addchdir_np" "$PROBE" spawn-open r "$W/file.txt" dir/sub
[ "$OUT" = hello ] && ok || fail "addopen after addchdir_np: '$OUT'"
allowed "addopen of ../file.txt from dir" sh -c "cd dir && exec '$PROBE' spawn-open r ../file.txt"
[ "$OUT" = hello ] && ok || fail "addopen of ../file.txt: '$OUT'"
# A relative program path is judged from the directory the file actions
# leave the child in.
cp /bin/cat "$W/secrets/cat"
cp /bin/cat "$W/dir/cat"
denied "posix_spawn: $PD" "posix_spawn of ../secrets/cat after addchdir_np dir" "$PROBE" spawn-open x ../secrets/cat dir
denied "posix_spawn: $PD" "posix_spawn of a relative program after addfchdir_np" "$PROBE" spawn-open x ./cat fd:dir
allowed "posix_spawn of ./cat after addchdir_np dir" sh -c "exec '$PROBE' spawn-open x ./cat dir < file.txt"
[ "$OUT" = hello ] && ok || fail "posix_spawn ./cat after addchdir_np: '$OUT'"
rm -f "$W/secrets/cat" "$W/dir/cat"
allowed "addopen creating dir/new.txt" sh -c "exec '$PROBE' spawn-open w dir/new.txt < file.txt"
[ "$(cat "$W/dir/new.txt")" = hello ] && ok || fail "addopen w dir/new.txt: not written"
rm -f "$W/dir/new.txt"

# Every path-taking symbol the installed glibc exports is covered or
# left out for a stated reason (tests/preload-symbols.txt).
LIST="$top_srcdir/tests/preload-symbols.txt"
for sym in $(sh "$top_srcdir/tests/preload-symbols.sh"); do
	grep -qE "^$sym[[:space:]]+(covered|left out: .+)\$" "$LIST" && ok ||
		fail "$sym: a path-taking libc symbol in neither state in preload-symbols.txt"
done
EXPORTED=$(nm -D --defined-only "$PRELOAD" | awk '$2 == "T" { print $3 }')
for sym in $(awk '$2 == "covered" { print $1 }' "$LIST"); do
	echo "$EXPORTED" | grep -qx "$sym" && ok || fail "$sym: listed covered, not exported by the preload"
done

# tar extraction: the archive's .env is refused, its other files land.
mkdir -p "$SCRATCH/src"
echo evil > "$SCRATCH/src/.env"
echo fine > "$SCRATCH/src/fine.txt"
tar -C "$SCRATCH/src" -cf "$SCRATCH/evil.tar" .env fine.txt || exit 99
OUT=$(guarded tar -xf "$SCRATCH/evil.tar" 2>&1) && fail "tar -x of an archive with .env succeeded" || ok
expect_in "$OUT" "$PD" "tar -x names the refusal"
[ "$(cat "$W/.env")" = "TOKEN=x" ] && ok || fail "tar -x replaced .env"
[ "$(cat "$W/fine.txt")" = "fine" ] && ok || fail "tar -x did not extract fine.txt"
rm -f "$W/fine.txt"

# find: lists what it may, reports secrets, never enters it.
OUT=$(guarded find . 2>"$SCRATCH/.stderr") && fail "find succeeded over a denied directory" || ok
expect_in "$(cat "$SCRATCH/.stderr")" "$PD" "find reports secrets"
expect_in "$OUT" "./dir/sub/a.txt" "find lists the workspace"
expect_not_in "$OUT" "secrets/key" "find entered secrets"

# git: a repository works; adding the denied .env is refused.
allowed "git init" git init -q .
allowed "git add + commit" sh -c 'git add file.txt && git commit -qm first'
OUT=$(guarded git log --oneline)
expect_in "$OUT" "first" "git log shows the commit"
index=$(md5sum < "$W/.git/index")
OUT=$(guarded git add .env 2>&1) && fail "git add .env succeeded" || ok
expect_in "$OUT" "$PD" "git add .env names the refusal"
[ "$index" = "$(md5sum < "$W/.git/index")" ] && ok || fail "git add .env changed the index"
OUT=$(guarded git ls-files)
expect_not_in "$OUT" ".env" "git tracked the denied .env"
[ "$(cat "$W/.env")" = "TOKEN=x" ] && ok || fail "git changed .env"

# A configuration that does not load refuses everything; no PATHGATE_ROOT
# leaves the preload inert.
OUT=$(cd "$W" && env LD_PRELOAD="$PRELOAD" PATHGATE_ROOT="$SCRATCH/none" cat file.txt 2>&1) &&
	fail "a root that does not open let cat run" || ok
expect_in "$OUT" "every file operation is refused" "a missing root is reported"
OUT=$(cd "$W" && env LD_PRELOAD="$PRELOAD" PATHGATE_ROOT="$W" PATHGATE_POLICY="$SCRATCH/none" cat file.txt 2>&1) &&
	fail "a policy that does not load let cat run" || ok
expect_in "$OUT" "the policy does not load" "a missing policy is reported"
OUT=$(cd "$W" && env LD_PRELOAD="$PRELOAD" cat file.txt 2>&1) && ok || fail "without PATHGATE_ROOT: $OUT"

# ---- allowed: each works
allowed "cat file.txt" cat file.txt
[ "$OUT" = hello ] && ok || fail "cat file.txt printed '$OUT'"
allowed "cp" cp file.txt copy.txt
[ -f "$W/copy.txt" ] && ok || fail "cp made nothing"
allowed "mv" mv copy.txt moved.txt
[ -f "$W/moved.txt" ] && [ ! -e "$W/copy.txt" ] && ok || fail "mv did not move"
allowed "mkdir -p" mkdir -p a/b/c
[ -d "$W/a/b/c" ] && ok || fail "mkdir -p made nothing"
allowed "touch" touch t.txt
[ -f "$W/t.txt" ] && ok || fail "touch made nothing"
allowed "ln -s and read through it" sh -c 'ln -s file.txt link && cat link'
[ "$OUT" = hello ] && ok || fail "reading through a symlink printed '$OUT'"
allowed "tar create" tar -cf "$SCRATCH/ok.tar" file.txt a
allowed "tar extract" sh -c "mkdir ex && tar -xf '$SCRATCH/ok.tar' -C ex"
[ "$(cat "$W/ex/file.txt")" = hello ] && [ -d "$W/ex/a/b/c" ] && ok || fail "tar extract lost files"
allowed "sh writes a file" sh -c 'echo hi > new.txt'
[ "$(cat "$W/new.txt")" = hi ] && ok || fail "sh wrote nothing"
if [ -n "$PY" ]; then
	allowed "python writes a file" "$PY" -c "open('py.txt','w').write('x')"
	[ "$(cat "$W/py.txt")" = x ] && ok || fail "python wrote nothing"
fi
allowed "find in an allowed subtree" find dir -name a.txt
[ "$OUT" = dir/sub/a.txt ] && ok || fail "find printed '$OUT'"
allowed "rm -rf a directory" rm -rf dir
[ ! -e "$W/dir" ] && ok || fail "rm -rf left dir"
allowed "read a host path under read" cat /etc/hostname

# ---- pathgate run --no-envelope: the preload alone
expect_status 1 "run --no-envelope cat .env" "$PATHGATE" run --root "$W" --policy "$POL" --no-envelope -- cat "$W/.env"
expect_in "$ERR" "$PD" "run --no-envelope names the refusal"
expect_status 0 "run --no-envelope cat file.txt" "$PATHGATE" run --root "$W" --policy "$POL" --no-envelope -- cat "$W/file.txt"
[ "$OUT" = hello ] && ok || fail "run --no-envelope cat printed '$OUT'"
expect_status 3 "run passes the exit status" "$PATHGATE" run --root "$W" --policy "$POL" --no-envelope -- sh -c 'exit 3'
expect_status 127 "run: command not found" "$PATHGATE" run --root "$W" --policy "$POL" --no-envelope -- no-such-command-pathgate
expect_status 126 "run: not executable" "$PATHGATE" run --root "$W" --policy "$POL" --no-envelope -- "$W/file.txt"
expect_status 2 "run: no preload and no envelope is refused" "$PATHGATE" run --root "$W" --no-envelope --no-preload -- true

# ---- pathgate run: the envelope with the preload inside it
"$PATHGATE" run --root "$W" --policy "$POL" -- true 2>"$SCRATCH/.stderr"
st=$?
if [ "$st" -eq 125 ]; then
	echo "the envelope is unavailable here ($(cat "$SCRATCH/.stderr")): its run cases are not run"
else
	[ "$st" -eq 0 ] && ok || fail "run -- true: exit $st: $(cat "$SCRATCH/.stderr")"
	before=$(snapshot "$W")
	expect_status 1 "run (envelope) cat .env" "$PATHGATE" run --root "$W" --policy "$POL" -- cat "$W/.env"
	expect_in "$ERR" "$PD" "run (envelope) names the refusal"
	expect_status 2 "run (envelope) sh -c 'echo > .env'" "$PATHGATE" run --root "$W" --policy "$POL" -- sh -c "echo x > '$W/.env'"
	expect_in "$ERR" "$PD" "run (envelope) create refusal"
	[ "$before" = "$(snapshot "$W")" ] && ok || fail "run (envelope): a denied action changed the tree"
	expect_status 0 "run (envelope) reads file.txt" "$PATHGATE" run --root "$W" --policy "$POL" \
		--report "$SCRATCH/report.json" -- cat "$W/file.txt"
	[ "$OUT" = hello ] && ok || fail "run (envelope) cat printed '$OUT'"
	[ -s "$SCRATCH/report.json" ] && ok || fail "run --report wrote nothing"
	# The preload is inside: an absent denied name (no mount can hold it)
	# is still refused in process.
	rm -f "$W/.env"
	expect_status 2 "run (envelope) creating an absent .env" "$PATHGATE" run --root "$W" --policy "$POL" -- sh -c "echo x > '$W/.env'"
	[ ! -e "$W/.env" ] && ok || fail "run (envelope): the absent .env was created"
	FROM_HOST=host-value expect_status 0 "run --env" "$PATHGATE" run --root "$W" --policy "$POL" \
		--env GREETING=hi --env FROM_HOST --env UNSET_PATHGATE_TEST -- sh -c 'echo "$GREETING $FROM_HOST ${UNSET_PATHGATE_TEST-unset} ${OUTSIDE_VAR-cleared}"'
	[ "$OUT" = "hi host-value unset cleared" ] && ok || fail "run --env gave '$OUT'"
	expect_status 0 "run --no-preload still runs" "$PATHGATE" run --root "$W" --policy "$POL" --no-preload -- cat "$W/file.txt"
fi

# ---- where no envelope can be built: 125, and the command never runs
# (inside a sandbox that forbids user namespaces, bwrap cannot nest; bwrap
# asked for by name, as auto would run the Landlock envelope there).
OUT=$(bwrap --ro-bind / / --dev /dev --proc /proc --bind "$SCRATCH" "$SCRATCH" \
	--unshare-user --disable-userns env PATHGATE_PRELOAD="$PRELOAD" \
	"$PATHGATE" run --envelope=bwrap --root "$W" --policy "$POL" -- sh -c "echo ran > '$W/ran'" 2>&1)
st=$?
case $OUT in
*exec.sandbox-unavailable*)
	[ $st -eq 125 ] && ok || fail "sandbox unavailable: exit $st, want 125"
	[ ! -e "$W/ran" ] && ok || fail "sandbox unavailable: the command ran unconfined"
	;;
*)
	echo "cannot make the envelope unavailable here (no bwrap --disable-userns?): $OUT"
	;;
esac

# ---- as an unprivileged user (nobody), with and without the envelope
if [ "$(id -u)" -ne 0 ] || ! command -v setpriv >/dev/null; then
	echo "not root, or no setpriv: the unprivileged cases are not run"
else
	U="$SCRATCH/nobody"
	mkdir -p "$U/ws"
	echo hi > "$U/ws/f"
	echo TOKEN=x > "$U/ws/.env"
	printf 'read /\nwrite .\ndeny .env\n' > "$U/policy"
	chmod 755 "$SCRATCH" "$U"
	chmod 644 "$U/policy"
	chown -R 65534:65534 "$U/ws"
	as_nobody() {
		(cd / && setpriv --reuid=65534 --regid=65534 --clear-groups env PATHGATE_PRELOAD="$PRELOAD" "$@")
	}
	if ! as_nobody sh -c "test -x '$PATHGATE' && test -r '$PRELOAD' && test -r '$U/policy'"; then
		echo "nobody cannot reach the build tree here: the unprivileged cases are not run"
	else for mode in --no-envelope ""; do
		OUT=$(as_nobody "$PATHGATE" run --root "$U/ws" --policy "$U/policy" $mode -- \
			sh -c "cat '$U/ws/f'; cat '$U/ws/.env'; echo x > '$U/ws/.env'; echo made > '$U/ws/new'" 2>&1)
		st=$?
		if [ $st -eq 125 ]; then
			echo "the envelope is unavailable to nobody here: $OUT"
			continue
		fi
		expect_in "$OUT" "hi" "nobody, run $mode: reads the workspace"
		expect_in "$OUT" "$PD" "nobody, run $mode: .env refused"
		expect_not_in "$OUT" "TOKEN" "nobody, run $mode: .env leaked"
		[ "$(cat "$U/ws/.env")" = TOKEN=x ] && [ "$(cat "$U/ws/new")" = made ] && ok ||
			fail "nobody, run $mode: .env changed or new not made"
		rm -f "$U/ws/new"
	done; fi
fi

finish
