#!/bin/sh
# test_cli_conventions.sh - the conventions pathgate(1) keeps with the
# tools its users know: -V, per-subcommand --help, short usage errors that
# say "Try 'pathgate CMD --help'", the default policy's rules labelled
# <default>:LINE, a .pathgate found upward from the working directory as
# git finds .git (paths staying relative to where the user is), and for
# run: one PATH for the lookup and the child, the working directory kept,
# --report -, --log / PATHGATE_LOG and the summary of refusals.
. "$top_srcdir/tests/shim-lib.sh"

scratch
W="$SCRATCH/ws"
mkdir -p "$W/a/b" "$W/docs"
echo TOKEN=x > "$W/.env"
echo hello > "$W/a/b/file.txt"
pg() { "$PATHGATE" "$@"; }

# ---- version, help, usage errors
expect_status 0 "-V" pg -V
expect_in "$OUT" "pathgate " "-V names the program"
for cmd in check explain plan run policy; do
	expect_status 0 "$cmd --help" pg $cmd --help
	expect_in "$OUT" "Usage: pathgate $cmd" "$cmd --help is about $cmd"
	expect_in "$OUT" "  $cmd " "$cmd --help shows its own options"
done
expect_not_in "$(pg check --help)" "  run " "check --help leaves run out"
expect_status 2 "check --bogus" pg check --bogus
expect_in "$ERR" "Try 'pathgate check --help'." "an unknown option says how to get help"
expect_in "$ERR" "pathgate check: unrecognized option" "getopt's message names the subcommand"
expect_status 2 "check without a path" pg check --root "$W"
expect_in "$ERR" "Try 'pathgate check --help'." "a missing path says how to get help"
expect_status 2 "run without a command" pg run --root "$W"
expect_in "$ERR" "Try 'pathgate run --help'." "run without a command says how to get help"
expect_status 2 "an unknown command" pg frobnicate
expect_in "$ERR" "Try 'pathgate --help'." "an unknown command says how to get help"
[ "$(echo "$ERR" | wc -l)" -le 2 ] && ok || fail "a usage error is short: $ERR"

# ---- the default policy's rules name it
expect_status 1 "check .env under the default" pg check --root "$W" .env
expect_in "$ERR" "(<default>:" "the default's rules are <default>:LINE"
expect_not_in "$ERR" "<string>" "not <string>"

# ---- .pathgate found upward, paths relative to the working directory
printf 'write .\nread /\ndeny a/b/file.txt\n' > "$W/.pathgate"
(cd "$W/a/b" && "$PATHGATE" check file.txt) 2>"$SCRATCH/.e"
st=$?
[ $st -eq 1 ] && ok || fail "check from a subdirectory: exit $st: $(cat "$SCRATCH/.e")"
expect_in "$(cat "$SCRATCH/.e")" "deny a/b/file.txt ($W/.pathgate:3)" "the .pathgate upward decides, the path is the working directory's"
(cd "$W/a" && "$PATHGATE" check b/file.txt) 2>/dev/null
[ $? -eq 1 ] && ok || fail "check b/file.txt from a: not the denied file"
(cd "$W/a" && "$PATHGATE" check --op create b/new.txt) 2>/dev/null
[ $? -eq 0 ] && ok || fail "check b/new.txt from a: refused"
OUT=$(cd "$W/a/b" && printf 'file.txt\nother\n' | "$PATHGATE" check --op create -)
expect_in "$OUT" "file.txt	workspace.denied	deny a/b/file.txt" "check - from a subdirectory"
rm "$W/.pathgate"

# ---- run: PATH, working directory, --report -, --log, the summary
if [ -n "${PG_SANITIZERS:-}" ]; then
	echo "sanitizer build: the run conventions need the preload; not checked"
	finish
fi
"$PATHGATE" run --root "$W" --no-preload -- true 2>"$SCRATCH/.stderr"
if [ $? -eq 125 ]; then
	echo "the envelope is unavailable here: the run conventions are not checked: $(cat "$SCRATCH/.stderr")"
	finish
fi
mkdir -p "$W/bin"
printf '#!/bin/sh\necho found-on-the-callers-path\n' > "$W/bin/pg-probe-cmd"
chmod +x "$W/bin/pg-probe-cmd"
OUT=$(cd "$W" && PATH="$W/bin:$PATH" "$PATHGATE" run -- pg-probe-cmd 2>&1)
expect_in "$OUT" "found-on-the-callers-path" "run finds CMD on the caller's PATH"
OUT=$(cd "$W" && PATH="$W/bin:$PATH" "$PATHGATE" run -- sh -c pg-probe-cmd 2>&1)
expect_in "$OUT" "found-on-the-callers-path" "the child's PATH is the caller's: sh -c finds the same program"
OUT=$(cd "$W" && PATH="$W/bin:$PATH" "$PATHGATE" run --env PATH=/usr/bin:/bin -- sh -c 'echo $PATH' 2>&1)
expect_in "$OUT" "/usr/bin:/bin" "--env PATH=... wins"
OUT=$(cd "$W/a/b" && "$PATHGATE" run --root "$W" -- pwd 2>&1)
expect_in "$OUT" "$W/a/b" "run keeps a working directory inside the root"
OUT=$(cd "$SCRATCH" && "$PATHGATE" run --root "$W" -- pwd 2>&1)
expect_in "$OUT" "$W" "run starts in the root from outside it"
OUT=$(cd "$W" && "$PATHGATE" run --report - -- true 2>/dev/null)
expect_in "$OUT" '"launched": true' "--report - writes the report to stdout"
OUT=$(cd "$W" && "$PATHGATE" run -- sh -c 'cat .env; cat .env; true' 2>&1)
expect_in "$OUT" "pathgate: run: refused: open .env: workspace.denied: deny! **/.env (<default>:" "run sums up the refusals"
expect_in "$OUT" "tar --exclude" "the summary says what to do about a denied name in a tree walk"
expect_not_in "$OUT" "pathgate-preload:" "without --log, no line as it happens"
OUT=$(cd "$W" && "$PATHGATE" run --log -- sh -c 'env -i /bin/cat .env; true' 2>&1)
expect_in "$OUT" "pathgate-preload: open .env: workspace.denied" "--log names each refusal, past env -i"
OUT=$(cd "$W" && PATHGATE_LOG=1 "$PATHGATE" run -- cat .env 2>&1)
expect_in "$OUT" "pathgate-preload: open .env" "PATHGATE_LOG from the caller"
OUT=$(cd "$W" && "$PATHGATE" run -- true 2>&1)
[ -z "$OUT" ] && ok || fail "a run without refusals printed: $OUT"
# ---- explain --json and plan --json: one JSON object, names escaped as
# check --json escapes them (a byte that is not UTF-8 as \udcXX)
json_ok() { printf '%s' "$1" | python3 -c 'import json,sys; json.load(sys.stdin)' 2>/dev/null; }
if command -v python3 >/dev/null 2>&1; then
	expect_status 1 "explain --json .env" pg explain --root "$W" --json .env
	json_ok "$OUT" && ok || fail "explain --json is not JSON: $OUT"
	expect_in "$OUT" '"decision":"deny"' "explain --json: the decision"
	expect_in "$OUT" '"read":{"op":"read","allowed":false,"refusal":"workspace.denied","errno":"EACCES"' \
		"explain --json: each op a check --json verdict"
	expect_status 0 "explain --json a/b/file.txt" pg explain --root "$W" --json a/b/file.txt
	json_ok "$OUT" && ok || fail "explain --json (allowed) is not JSON: $OUT"
	expect_in "$OUT" '"inside":true' "explain --json: inside"
	BAD=$(printf 'a/\377x')
	pg explain --root "$W" --json "$BAD" > "$SCRATCH/ej" 2>/dev/null
	OUT=$(cat "$SCRATCH/ej")
	json_ok "$OUT" && ok || fail "explain --json of a non-UTF-8 name is not JSON: $OUT"
	expect_in "$OUT" '"path":"a/\udcffx"' "explain --json escapes a non-UTF-8 byte as check --json does"
	OUT=$(pg explain --root "$W" --json /etc/hostname 2>/dev/null)
	expect_in "$OUT" '"ops":null' "explain --json: a host name has no library ops"
	for env in bwrap landlock; do
		OUT=$(pg plan --root "$W" --json --argv --envelope=$env --accept-weaker 2>"$SCRATCH/pe")
		st=$?
		if [ $st -eq 125 ]; then
			echo "the $env envelope is unavailable here: plan --json for it not run"
			continue
		fi
		[ $st -eq 0 ] && ok || fail "plan --json --envelope=$env: exit $st: $(cat "$SCRATCH/pe")"
		json_ok "$OUT" && ok || fail "plan --json ($env) is not JSON: $OUT"
		expect_in "$OUT" "{\"envelope\":\"$env\"" "plan --json names the envelope ($env)"
		expect_in "$OUT" '"seams":[' "plan --json lists the seams ($env)"
		expect_in "$OUT" '"argv":["' "plan --json --argv gives the argv ($env)"
	done
else
	echo "python3 is not installed: the JSON of explain and plan is not parsed"
fi

# ---- an installed tree that was moved: run finds the preload beside its
# own executable (bin/../lib/pathgate), not at the configured path
if [ -n "$PG_BINDIR" ] && [ -n "$PG_PKGLIBDIR" ] && [ -z "$PG_SANITIZERS" ] &&
   [ "${PG_PKGLIBDIR#"$(dirname "$PG_BINDIR")"/}" != "$PG_PKGLIBDIR" ] && [ ! -e "$PG_PKGLIBDIR/libpathgate-preload.so" ]; then
	R="$SCRATCH/moved"
	mkdir -p "$R/bin" "$R/${PG_PKGLIBDIR#"$(dirname "$PG_BINDIR")"/}"
	cp "$PATHGATE" "$R/bin/pathgate"
	cp "$PRELOAD" "$R/${PG_PKGLIBDIR#"$(dirname "$PG_BINDIR")"/}/libpathgate-preload.so"
	OUT=$(cd "$W" && env -u PATHGATE_PRELOAD "$R/bin/pathgate" run --no-envelope -- cat .env 2>&1)
	expect_in "$OUT" "Permission denied" "a moved install finds its preload beside bin/"
	expect_not_in "$OUT" "TOKEN" "a moved install: .env not leaked"
else
	echo "the configured pkglibdir is not beneath bindir's prefix, or a preload is installed there: the moved-install case is not run"
fi

finish
