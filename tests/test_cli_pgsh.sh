#!/bin/sh
# test_cli_pgsh.sh - the tiny interpreter of examples/pgsh.c: a script piped
# into it; every builtin works inside the workspace and is refused on a
# denied name, and `run` starts a command in the envelope.
. "$top_srcdir/tests/shim-lib.sh"

scratch
W="$SCRATCH/ws"
mkdir -p "$W/secrets"
echo hello > "$W/file.txt"
echo TOKEN=x > "$W/.env"
echo s3cret > "$W/secrets/key"
cat > "$SCRATCH/policy" <<'POLICY'
read /
write .
deny .env
deny secrets
POLICY

OUT=$("$PGSH" --root "$W" --policy "$SCRATCH/policy" 2>"$SCRATCH/.stderr" <<'SCRIPT'
# comments and blank lines are skipped

cat file.txt
write notes/a.txt not yet
mkdir notes
write notes/a.txt first line, with  two spaces
cat notes/a.txt
mv notes/a.txt notes/b.txt
ls notes
rm notes/b.txt
ls notes
cat .env
cat secrets/key
write .env stolen
mv file.txt secrets/file.txt
rm secrets/key
mkdir secrets/new
ls secrets
frobnicate
SCRIPT
)
st=$?
ERR=$(cat "$SCRATCH/.stderr")
[ $st -eq 1 ] && ok || fail "pgsh exit $st (want 1: some commands were refused)"
want="hello
first line, with  two spaces
b.txt"
[ "$OUT" = "$want" ] && ok || fail "pgsh printed: $OUT"
expect_in "$ERR" "pgsh: write notes/a.txt: " "write into a missing directory fails"
expect_in "$ERR" "pgsh: cat .env: workspace.denied: deny .env" "cat .env refused"
expect_in "$ERR" "pgsh: cat secrets/key: workspace.denied: deny secrets" "cat secrets/key refused"
expect_in "$ERR" "pgsh: write .env: workspace.denied" "write .env refused"
expect_in "$ERR" "pgsh: mv file.txt: workspace.denied" "mv into secrets refused"
expect_in "$ERR" "pgsh: rm secrets/key: workspace.denied" "rm in secrets refused"
expect_in "$ERR" "pgsh: mkdir secrets/new: workspace.denied" "mkdir in secrets refused"
expect_in "$ERR" "pgsh: ls secrets: workspace.denied" "ls secrets refused"
expect_in "$ERR" "frobnicate: unknown command" "unknown command"
[ "$(cat "$W/.env")" = TOKEN=x ] && [ "$(cat "$W/secrets/key")" = s3cret ] && [ -f "$W/file.txt" ] &&
	[ ! -e "$W/notes/b.txt" ] && ok || fail "pgsh changed a denied name, or left a file"

# run: a command in the envelope, which denies what the policy denies.
OUT=$(printf 'run cat file.txt\n' | "$PGSH" --root "$W" --policy "$SCRATCH/policy" 2>"$SCRATCH/.stderr")
st=$?
if grep -q "exec.sandbox-unavailable" "$SCRATCH/.stderr"; then
	echo "the envelope is unavailable here: run is not checked ($(cat "$SCRATCH/.stderr"))"
else
	[ $st -eq 0 ] && [ "$OUT" = hello ] && ok || fail "pgsh run cat: exit $st, '$OUT': $(cat "$SCRATCH/.stderr")"
	OUT=$(printf 'run cat .env\n' | "$PGSH" --root "$W" --policy "$SCRATCH/policy" 2>&1)
	[ $? -eq 1 ] && ok || fail "pgsh run cat .env succeeded"
	expect_not_in "$OUT" "TOKEN" "pgsh run leaked .env"
fi

finish
