#!/bin/sh
# test_cli.sh - pathgate(1): check (arguments, stdin, -0, --json, a batch
# of 100 000 paths through io_uring and through the fallback), explain,
# plan, policy (--default, --check, --from-srt), usage and exit codes.
. "$top_srcdir/tests/shim-lib.sh"

scratch
W="$SCRATCH/ws"
POL="$SCRATCH/policy"
mkdir -p "$W/dir/sub" "$W/secrets" "$W/docs"
echo hello > "$W/file.txt"
echo TOKEN=x > "$W/.env"
echo s3cret > "$W/secrets/key"
echo doc > "$W/docs/readme"
ln -s .env "$W/envlink"
ln -s / "$W/out"
cat > "$POL" <<'EOF'
write .
deny .env
deny secrets
read docs
read dir/sub/keep
EOF

pg() { "$PATHGATE" "$@"; }

# ---- usage, version, help
expect_status 0 "--version" pg --version
expect_in "$OUT" "pathgate " "--version names the program"
expect_status 0 "--help" pg --help
expect_in "$OUT" "check" "--help lists check"
expect_status 2 "no command" pg
expect_status 2 "unknown command" pg frobnicate
expect_status 2 "check without a path" pg check --root "$W" --policy "$POL"
expect_status 2 "check with a bad --op" pg check --root "$W" --policy "$POL" --op chew file.txt
expect_status 2 "check: '-' with other paths" pg check --root "$W" --policy "$POL" - file.txt
expect_status 2 "check: -0 without '-'" pg check --root "$W" --policy "$POL" -0 file.txt

# ---- policy errors are exit 2 and name the line
printf 'write .\nwrit docs\n' > "$SCRATCH/bad"
expect_status 2 "a policy that does not parse" pg check --root "$W" --policy "$SCRATCH/bad" file.txt
expect_in "$ERR" "policy.invalid" "bad policy: named refusal"
expect_in "$ERR" "line 2" "bad policy: names the line"
# Every error, not only the first, as FILE:LINE: message; in any command.
printf 'write .\nwrit docs\nread a b\n# fine\ndeny\nread ok\n' > "$SCRATCH/bad3"
for cmd in "policy --check $SCRATCH/bad3" "check --root $W --policy $SCRATCH/bad3 file.txt" \
	   "explain --root $W --policy $SCRATCH/bad3 file.txt" "plan --root $W --policy $SCRATCH/bad3"; do
	expect_status 2 "$cmd: a policy with three errors" pg $cmd
	expect_in "$ERR" "$SCRATCH/bad3:2: unknown rule word 'writ'" "$cmd: the first error"
	expect_in "$ERR" "$SCRATCH/bad3:3: a word after the path: 'b'" "$cmd: the second error"
	expect_in "$ERR" "$SCRATCH/bad3:5: 'deny' without a path" "$cmd: the third error"
	[ "$(echo "$ERR" | grep -c "^$SCRATCH/bad3:")" -eq 3 ] && ok || fail "$cmd: not three error lines: $ERR"
done
expect_status 0 "a good policy after a bad one" pg policy --check "$POL"
expect_not_in "$ERR" "bad3" "the errors of an earlier parse are not shown again"
expect_status 2 "a missing policy file" pg check --root "$W" --policy "$SCRATCH/none" file.txt
expect_status 2 "a missing root" pg check --root "$SCRATCH/none" --policy "$POL" file.txt

# ---- check with arguments
expect_status 0 "check an allowed path" pg check --root "$W" --policy "$POL" file.txt
[ -z "$OUT$ERR" ] && ok || fail "an allowed check printed something: $OUT $ERR"
expect_status 1 "check .env" pg check --root "$W" --policy "$POL" .env
[ "$ERR" = ".env: workspace.denied: deny .env ($POL:2)" ] && ok || fail "check .env said: $ERR"
expect_status 1 "check a mix" pg check --root "$W" --policy "$POL" file.txt secrets/key docs/readme ../x
expect_in "$ERR" "secrets/key: workspace.denied: deny secrets ($POL:3)" "mix: secrets"
expect_in "$ERR" "../x: workspace.path-escape" "mix: escape"
expect_not_in "$ERR" "file.txt" "mix: allowed path on stderr"
expect_not_in "$ERR" "docs/readme" "mix: a read is allowed"
[ "$(echo "$ERR" | wc -l)" -eq 2 ] && ok || fail "mix: one line per refused path: $ERR"
expect_status 1 "check --op write under read" pg check --root "$W" --policy "$POL" --op write docs/readme
[ "$ERR" = "docs/readme: workspace.read-only: read docs ($POL:4)" ] && ok || fail "read-only said: $ERR"
expect_status 1 "check --op create .ENV" pg check --root "$W" --policy "$POL" --op create .ENV
expect_in "$ERR" "deny .env" "another case of .env is .env"
expect_status 1 "check a symlink to .env" pg check --root "$W" --policy "$POL" envlink
expect_status 1 "check through a symlink out of the root" pg check --root "$W" --policy "$POL" out/etc/passwd
expect_in "$ERR" "out/etc/passwd: workspace.denied: no rule covers" "symlink out: judged where it lands, by the absolute rules (none)"
expect_status 1 "check --op delete a pinned directory" pg check --root "$W" --policy "$POL" --op delete dir
expect_in "$ERR" "workspace.pinned" "dir holds read dir/sub/keep beneath it"
expect_status 0 "check --op delete a plain file" pg check --root "$W" --policy "$POL" --op delete file.txt
expect_status 1 "check --json" pg check --root "$W" --policy "$POL" --json file.txt .env
expect_in "$OUT" '{"path":"file.txt","allowed":true,"rule":"write . (' "--json allowed"
expect_in "$OUT" '{"path":".env","allowed":false,"refusal":"workspace.denied","errno":"EACCES","rule":"deny .env (' "--json refused"

# The .pathgate of the root is the policy when --policy is not given.
cp "$POL" "$W/.pathgate"
expect_status 1 "the root's .pathgate" pg check --root "$W" .env
expect_in "$ERR" "$W/.pathgate:2" "the rule names the root's .pathgate"
(cd "$W" && "$PATHGATE" check secrets/key) 2>/dev/null; [ $? -eq 1 ] && ok || fail "--root defaults to ."
rm "$W/.pathgate"
# Without one, the embedded default: the workspace is writable, .env denied.
expect_status 1 "the default policy denies .env" pg check --root "$W" .env
expect_in "$ERR" "deny! **/.env" "the default's rule"
expect_status 0 "the default policy writes the workspace" pg check --root "$W" --op write file.txt
# Public certificate bundles are .pem too: pip's certifi must install.
expect_status 0 "the default lets cacert.pem be made" pg check --root "$W" --op create \
	venv/lib/python3/site-packages/pip/_vendor/certifi/cacert.pem
for key in key.pem sub/privkey.pem tls/server-key.pem x/private.pem a.key b.p12 c.pfx d/id_ed25519 E/ID_RSA; do
	expect_status 1 "the default denies the private key $key" pg check --root "$W" --op create "$key"
done

# ---- check from stdin: one verdict line per path
OUT=$(printf 'file.txt\n.env\nsecrets/key\n../x\n' | pg check --root "$W" --policy "$POL" -)
st=$?
[ $st -eq 1 ] && ok || fail "check - exit $st"
want=$(printf 'file.txt\tallowed\n.env\tworkspace.denied\tdeny .env (%s:2)\nsecrets/key\tworkspace.denied\tdeny secrets (%s:3)\n' "$POL" "$POL")
expect_in "$OUT" "$want" "check - lines"
expect_in "$OUT" "../x	workspace.path-escape	" "check - escape line"
OUT=$(printf 'file.txt\ndocs/readme\n' | pg check --root "$W" --policy "$POL" -)
[ $? -eq 0 ] && ok || fail "check - with every path allowed is not 0"
OUT=$(printf 'file.txt\0new\nline\0.env\0' | pg check --root "$W" --policy "$POL" --op create -0 - | tr '\0' '|')
expect_in "$OUT" "file.txt	allowed|new
line	allowed|.env	workspace.denied" "check -0: NUL in, NUL out, newlines kept"
OUT=$(printf 'a"b\n.env\n' | pg check --root "$W" --policy "$POL" --op create --json -)
expect_in "$OUT" '{"path":"a\"b","allowed":true' "check --json - escapes quotes"
OUT=$(printf 'absent\n' | pg check --root "$W" --policy "$POL" --json -)
expect_in "$OUT" '"refusal":null,"errno":"ENOENT","error":"No such file or directory"' "check --json: a plain error"
expect_status 3 "check a missing file for reading: a plain error, not a refusal" pg check --root "$W" --policy "$POL" absent
[ "$ERR" = "absent: ENOENT: No such file or directory" ] && ok || fail "a missing file said: $ERR"
expect_status 1 "check: refused beats a plain error" pg check --root "$W" --policy "$POL" absent .env
expect_status 3 "check: a plain error beats allowed" pg check --root "$W" --policy "$POL" file.txt absent
OUT=$(printf 'file.txt\nabsent\n' | pg check --root "$W" --policy "$POL" -); st=$?
[ $st -eq 3 ] && ok || fail "check - with an absent path: exit $st"

# ---- absolute paths: beneath the root they are workspace names, others
# are judged by the absolute rules, as the preload judges them.
RW=$(cd "$W" && pwd -P)
printf 'read /\nwrite .\ndeny .env\ndeny **/*.key\ndeny /etc/shadow\n' > "$SCRATCH/abs.policy"
expect_status 0 "check an absolute path inside the root" pg check --root "$W" --policy "$SCRATCH/abs.policy" "$RW/file.txt"
expect_status 1 "check an absolute path to .env" pg check --root "$W" --policy "$SCRATCH/abs.policy" "$RW/.env"
expect_in "$ERR" "workspace.denied: deny .env" "the absolute .env is the workspace's .env"
expect_status 0 "check /etc/passwd under read /" pg check --root "$W" --policy "$SCRATCH/abs.policy" /etc/passwd
expect_status 1 "check a write of /etc/passwd under read /" pg check --root "$W" --policy "$SCRATCH/abs.policy" --op write /etc/passwd
expect_in "$ERR" "workspace.read-only: read /" "a host path under read / is read-only"
expect_status 1 "check a denied host path" pg check --root "$W" --policy "$SCRATCH/abs.policy" /etc/shadow
expect_status 0 "check out/etc/passwd (a link to /) under read /" pg check --root "$W" --policy "$SCRATCH/abs.policy" out/etc/passwd
expect_status 1 "check out/etc/shadow (a link to /, then a denied host name)" pg check --root "$W" --policy "$SCRATCH/abs.policy" out/etc/shadow
ln -s "$RW/.env" "$SCRATCH/hostlink"
expect_status 1 "check a host symlink into the root's .env" pg check --root "$W" --policy "$SCRATCH/abs.policy" "$SCRATCH/hostlink"
expect_in "$ERR" "deny .env" "a host link to .env is judged where it leads"
expect_status 3 "check an absent host path" pg check --root "$W" --policy "$SCRATCH/abs.policy" /nonexistent-pathgate
OUT=$(printf '%s\n/etc/passwd\nout/etc/passwd\n' "$RW/file.txt" | pg check --root "$W" --policy "$SCRATCH/abs.policy" -); st=$?
[ $st -eq 0 ] && ok || fail "check - with absolute paths: exit $st: $OUT"
# --op create beneath directories that do not exist yet
expect_status 0 "check --op create a/b/c/new.txt" pg check --root "$W" --policy "$POL" --op create new1/new2/new.txt
expect_status 1 "check --op create of a denied name in new directories" pg check --root "$W" --policy "$POL" --op create docs/new1/x
expect_in "$ERR" "workspace.read-only: read docs" "create beneath a read region"
expect_status 1 "check --op create of a denied glob match in new directories" pg check --root "$W" --policy "$SCRATCH/abs.policy" --op create new1/new2/x.key
expect_status 0 "check --op create of .env in new directories is not .env" pg check --root "$W" --policy "$POL" --op create new1/.envx
if command -v python3 >/dev/null; then
	printf 'file.txt\n.env\n\\x\001y\n' | pg check --root "$W" --policy "$POL" --json - |
		python3 -c 'import json, sys; [json.loads(l) for l in sys.stdin]' && ok ||
		fail "--json output does not parse"
fi
# Bytes that are not UTF-8 never print as the character of the same number.
OUT=$(printf '\377\n\303\277\n' | pg check --root "$W" --policy "$POL" --op create --json -)
expect_in "$OUT" '"path":"\udcff"' "--json: byte 0xFF is a lone surrogate"
expect_in "$OUT" '"path":"ÿ"' "--json: the character ÿ is itself"
if command -v python3 >/dev/null; then
	printf '\377\n' | pg check --root "$W" --policy "$POL" --op create --json - |
		python3 -c 'import json, os, sys; assert os.fsencode(json.loads(sys.stdin.readline())["path"]) == b"\xff"' &&
		ok || fail "--json: os.fsencode does not give byte 0xFF back"
fi
OUT=$(printf '\n' | pg check --root "$W" --policy "$POL" -)
expect_in "$OUT" "workspace.bad-path" "an empty line is an empty path"

# ---- a batch of 100 000 paths: io_uring and the fallback agree
awk 'BEGIN {
	split("file.txt .env secrets/key docs/readme docs/new dir/sub dir/../.env envlink out/etc ../up ./file.txt .ENV dir/sub/keep/x absent/x", p, " ")
	for (i = 0; i < 100000; i++) print p[i % 14 + 1] (i % 5 == 0 ? "" : "")
}' > "$SCRATCH/paths"
for op in read write create delete; do
	pg check --root "$W" --policy "$POL" --op $op - < "$SCRATCH/paths" > "$SCRATCH/uring.$op"
	a=$?
	PATHGATE_NO_URING=1 pg check --root "$W" --policy "$POL" --op $op - < "$SCRATCH/paths" > "$SCRATCH/seq.$op"
	b=$?
	[ $a -eq 1 ] && [ $b -eq 1 ] && ok || fail "batch --op $op: exit $a / $b"
	[ "$(wc -l < "$SCRATCH/uring.$op")" -eq 100000 ] && ok || fail "batch --op $op: not 100000 verdicts"
	cmp -s "$SCRATCH/uring.$op" "$SCRATCH/seq.$op" && ok || fail "batch --op $op: io_uring and fallback differ"
done
pg check --root "$W" --policy "$POL" --no-uring - < "$SCRATCH/paths" > "$SCRATCH/flag.read"
cmp -s "$SCRATCH/seq.read" "$SCRATCH/flag.read" && ok || fail "batch: --no-uring differs"
# The verdicts are the ones single checks give.
expect_in "$(sed -n 2p "$SCRATCH/uring.read")" ".env	workspace.denied" "batch: .env"
expect_in "$(sed -n 5p "$SCRATCH/uring.create")" "docs/new	workspace.read-only" "batch: create under read"
expect_in "$(sed -n 1p "$SCRATCH/uring.write")" "file.txt	allowed" "batch: allowed"

# ---- explain
expect_status 1 "explain .env" pg explain --root "$W" --policy "$POL" .env
expect_in "$OUT" "rule:      deny .env ($POL:2)" "explain: the deciding rule"
expect_in "$OUT" "collision class \".env\"" "explain: the collision class"
expect_in "$OUT" "held by:" "explain: what holds it"
expect_status 1 "explain a denied symlink" pg explain --root "$W" --policy "$POL" envlink
expect_in "$OUT" "deny .env" "explain: a symlink to .env is decided by deny .env"
ln -s file.txt "$W/denied-link"
printf 'deny denied-link\n' >> "$POL"
expect_status 1 "explain a deny naming a symlink" pg explain --root "$W" --policy "$POL" denied-link
expect_in "$OUT" "is a symlink: its target file.txt is denied too" "explain: renders the symlink's target"
expect_status 0 "explain a pinned path" pg explain --root "$W" --policy "$POL" dir/sub/keep
expect_in "$OUT" "pinned:    dir " "explain: dir is pinned"
expect_in "$OUT" "dir/sub (rename" "explain: dir/sub is pinned"
expect_in "$OUT" "decision:  read" "explain: read decides dir/sub/keep"
# The same name spelled as a host path has the same pins.
expect_status 0 "explain a pinned path by its host path" pg explain --root "$W" --policy "$POL" \
	"$(cd "$W" && pwd -P)/dir/sub/keep"
expect_in "$OUT" "pinned:    dir " "explain (host path): dir is pinned"
expect_in "$OUT" "dir/sub (rename" "explain (host path): dir/sub is pinned"
rm -f "$W/.env"
expect_status 1 "explain an absent denied name" pg explain --root "$W" --policy "$POL" .env
expect_in "$OUT" "does not exist" "explain: absent"
if pg plan --root "$W" --policy "$POL" >/dev/null 2>&1; then
	expect_in "$OUT" "held by:   the library alone" "explain: an absent deny in a writable region is the library's alone"
else
	echo "no plan on this host: explain's mount answers are not checked"
fi
echo TOKEN=x > "$W/.env"
# Globs: an existing match is masked (both hold it), an absent one is the
# library's alone.
mkdir -p "$W/sub"
echo x > "$W/sub/.env"
printf 'deny **/.env\n' >> "$POL"
if pg plan --root "$W" --policy "$POL" >/dev/null 2>&1; then
	expect_status 1 "explain an existing glob match" pg explain --root "$W" --policy "$POL" sub/.env
	expect_in "$OUT" "held by:   both" "explain: an existing glob match is masked too"
	expect_status 1 "explain an absent glob match" pg explain --root "$W" --policy "$POL" sub/new/.env
	expect_in "$OUT" "held by:   the library alone" "explain: an absent glob match is held in process"
fi
expect_status 1 "explain a host path no rule covers" pg explain --root "$W" --policy "$POL" /usr/bin
expect_in "$OUT" "outside the root" "explain: a host path"
expect_in "$OUT" "none covers it" "explain: no rule, denied"
expect_status 2 "explain takes one path" pg explain --root "$W" --policy "$POL" a b

# ---- plan
pg plan --root "$W" --policy "$POL" > "$SCRATCH/plan" 2>"$SCRATCH/.stderr"
st=$?
if [ $st -eq 125 ]; then
	echo "the envelope is unavailable here: $(cat "$SCRATCH/.stderr")"
else
	[ $st -eq 0 ] && ok || fail "plan: exit $st: $(cat "$SCRATCH/.stderr")"
	expect_in "$(cat "$SCRATCH/plan")" "$W/secrets	# mask" "plan: secrets is masked"
	expect_in "$(cat "$SCRATCH/plan")" "deny secrets ($POL:3)" "plan: with its rule"
	expect_in "$(cat "$SCRATCH/plan")" "--ro-bind" "plan: read-only binds"
	expect_in "$(cat "$SCRATCH/plan")" "$W/dir" "plan: the pin of dir"
	rm -f "$W/.env"
	expect_in "$(pg plan --root "$W" --policy "$POL")" "seam $W/.env" "plan: an absent denied name is a seam"
	echo TOKEN=x > "$W/.env"
	expect_status 0 "plan --argv" pg plan --root "$W" --policy "$POL" --argv
	expect_in "$OUT" "bwrap" "plan --argv starts with bwrap"
fi

# ---- policy
expect_status 0 "policy --default" pg policy --default
expect_in "$OUT" "deny! **/.env" "the default denies .env"
expect_in "$OUT" "read! **/.git/hooks" "the default keeps hooks read-only"
pg policy --default > "$SCRATCH/default"
expect_status 0 "the default parses" pg policy --check "$SCRATCH/default"
expect_status 2 "policy --check a bad file" pg policy --check "$SCRATCH/bad"
expect_status 2 "policy with two actions" pg policy --default --check "$POL"

cat > "$SCRATCH/srt.json" <<'EOF'
{
  "filesystem": {
    "denyRead": ["~/.ssh", "secrets"],
    "allowRead": ["secrets/public"],
    "allowWrite": [".", "/tmp/build"],
    "denyWrite": [".env", ".git/hooks"]
  },
  "network": { "allowedDomains": ["example.org"] }
}
EOF
expect_status 0 "policy --from-srt" pg policy --from-srt "$SCRATCH/srt.json"
expect_in "$OUT" "read /" "srt: reads start from /"
expect_in "$OUT" "write ." "srt: allowWrite ."
expect_in "$OUT" "write /tmp/build" "srt: allowWrite /tmp/build"
expect_in "$OUT" "read! .env" "srt: denyWrite is a final read"
expect_in "$OUT" "deny ~/.ssh" "srt: denyRead"
expect_in "$OUT" "write secrets/public" "srt: allowRead beneath a denyRead, writable as before"
expect_in "$ERR" "denyRead secrets lies in the writable region" "srt: warns where writes differ"
expect_in "$ERR" "network.allowedDomains is ignored: a domain allowlist cannot be kept" "srt: warns about what it drops"
echo "$OUT" > "$SCRATCH/converted"
expect_status 0 "the converted policy parses" pg policy --check "$SCRATCH/converted"
cat > "$SCRATCH/srt2.json" <<'EOF'
{"filesystem": {"denyRead": ["/home/u/.aws"], "allowRead": ["/home/u"], "allowWrite": ["."]}}
EOF
expect_status 0 "policy --from-srt, allow-wins reads" pg policy --from-srt "$SCRATCH/srt2.json"
expect_in "$ERR" "allowRead /home/u covers denyRead /home/u/.aws" "srt: warns where reads differ"
echo '{"sandbox": {"filesystem": {"allowWrite": ["."], "denyWrite": [".envrc"]}}}' > "$SCRATCH/nested.json"
expect_status 0 "policy --from-srt, nested under sandbox" pg policy --from-srt "$SCRATCH/nested.json"
expect_in "$OUT" "read! .envrc" "srt: sandbox.filesystem is read"
echo '{"filesystem": ' > "$SCRATCH/broken.json"
expect_status 2 "policy --from-srt on broken JSON" pg policy --from-srt "$SCRATCH/broken.json"
echo '{"filesystem": {"allowWrite": "."}}' > "$SCRATCH/wrong.json"
expect_status 2 "policy --from-srt on a wrong shape" pg policy --from-srt "$SCRATCH/wrong.json"
expect_in "$ERR" "$SCRATCH/wrong.json:1:31: filesystem.allowWrite is a string, not an array of paths" "srt: names the wrong field"

finish
