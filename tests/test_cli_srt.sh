#!/bin/sh
# test_cli_srt.sh - pathgate policy --from-srt as a user meets it: a
# settings file that does not parse, or has a value of the wrong type, is
# reported as FILE:LINE:COL: message; every key the conversion drops gets
# a warning with that key's own reason, at its place; and every
# conversion says plainly what cannot be kept (the network rules).
. "$top_srcdir/tests/shim-lib.sh"

scratch
pg() { "$PATHGATE" "$@"; }
S="$SCRATCH/settings.json"

# ---- parse errors: the line and column where the JSON goes wrong
printf '{\n  "filesystem": {\n    "allowWrite": [".",\n  }\n}\n' > "$S"
expect_status 2 "a trailing comma" pg policy --from-srt "$S"
[ "$ERR" = "$S:4:3: unexpected character" ] && ok || fail "trailing comma: $ERR"
expect_not_in "$OUT" "read /" "no policy after a parse error"
printf '{\n  "filesystem": {\n    "allowWrite": ["."' > "$S"
expect_status 2 "a truncated file" pg policy --from-srt "$S"
[ "$ERR" = "$S:3:23: the text ends inside a value" ] && ok || fail "truncated: $ERR"
printf '{"filesystem": {"allowWrite": ["."]}}\n  // a comment\n' > "$S"
expect_status 2 "a comment after the value (strict JSON, as sandbox-runtime reads it)" pg policy --from-srt "$S"
[ "$ERR" = "$S:2:3: unexpected character" ] && ok || fail "trailing text: $ERR"

# ---- wrong types: the line and column of the value
printf '{\n  "filesystem": {\n    "allowWrite": [".", 3]\n  }\n}\n' > "$S"
expect_status 2 "a number among the paths" pg policy --from-srt "$S"
[ "$ERR" = "$S:3:25: filesystem.allowWrite[1] is a number, not a path string" ] && ok || fail "number: $ERR"
printf '{"sandbox": {\n  "filesystem": {"denyRead": ["~/.ssh"],\n    "denyWrite": {"a": 1}}}}\n' > "$S"
expect_status 2 "an object for a list, nested under sandbox" pg policy --from-srt "$S"
[ "$ERR" = "$S:3:18: filesystem.denyWrite is an object, not an array of paths" ] && ok || fail "object: $ERR"
printf '{"filesystem": [\n]}\n' > "$S"
expect_status 2 "filesystem not an object" pg policy --from-srt "$S"
[ "$ERR" = "$S:1:16: \"filesystem\" is an array, not an object" ] && ok || fail "filesystem array: $ERR"
printf '\n\n  ["x"]\n' > "$S"
expect_status 2 "an array at the top" pg policy --from-srt "$S"
[ "$ERR" = "$S:3:3: the settings are an array, not a JSON object" ] && ok || fail "top array: $ERR"
printf '{"filesystem": {"allowRead": ["a\\nb"]}}' > "$S"
expect_status 2 "a path with a newline" pg policy --from-srt "$S"
[ "$ERR" = "$S:1:31: filesystem.allowRead[0]: a path with a newline or '#' cannot be written as a policy line" ] &&
	ok || fail "newline: $ERR"

# ---- one warning per ignored key, each with its own reason, at its place
cat > "$S" <<'JSON'
{
  "filesystem": {"allowWrite": ["."], "denyWrite": [".env"], "extra": true},
  "network": {
    "allowedDomains": ["example.org"],
    "deniedDomains": ["evil.example"],
    "allowUnixSockets": ["/run/docker.sock"],
    "allowAllUnixSockets": false,
    "allowLocalBinding": true,
    "httpProxyPort": 3128,
    "socksProxyPort": 1080
  },
  "ignoreViolations": {},
  "enableWeakerNestedSandbox": false,
  "somethingNew": 1
}
JSON
expect_status 0 "settings with keys the conversion drops" pg policy --from-srt "$S"
NONET="the envelope runs the child with no network of the host's, and --no-envelope leaves it unfiltered"
want() { echo "$ERR" | grep -Fxq -- "$1" && ok || fail "missing warning: $1; got: $ERR"; }
want "$S:2:71: warning: filesystem.extra is ignored: this conversion knows allowRead, denyRead, allowWrite and denyWrite only"
want "$S:4:23: warning: network.allowedDomains is ignored: a domain allowlist cannot be kept: pathgate does not filter network traffic by destination; $NONET"
want "$S:5:22: warning: network.deniedDomains is ignored: a domain denylist cannot be kept: pathgate does not filter network traffic by destination; $NONET"
want "$S:6:25: warning: network.allowUnixSockets is ignored: access to chosen Unix sockets cannot be kept: the envelope refuses every new AF_UNIX socket (seccomp), with no exception by socket path"
want "$S:7:28: warning: network.allowAllUnixSockets is ignored: Unix-socket access cannot be kept: the envelope refuses every new AF_UNIX socket (seccomp)"
want "$S:8:26: warning: network.allowLocalBinding is ignored: binding host ports cannot be granted: $NONET"
want "$S:9:22: warning: network.httpProxyPort is ignored: pathgate runs no HTTP proxy: $NONET"
want "$S:10:23: warning: network.socksProxyPort is ignored: pathgate runs no SOCKS proxy: $NONET"
want "$S:12:23: warning: \"ignoreViolations\" is ignored: pathgate ignores no refusal: every refused call fails and can be logged (--log), with no exemption by command or path"
want "$S:13:32: warning: \"enableWeakerNestedSandbox\" is ignored: pathgate chooses its envelope itself (bwrap, else Landlock) and runs a weaker one only when asked (--accept-weaker)"
want "$S:14:19: warning: \"somethingNew\" is ignored: not a setting this conversion knows: pathgate converts the filesystem rules only"
[ "$(echo "$ERR" | grep -c 'is ignored')" -eq 11 ] && ok || fail "one warning per ignored key: $ERR"
[ "$(echo "$ERR" | grep 'is ignored' | sed 's/.*is ignored: //' | sort -u | wc -l)" -eq 11 ] && ok ||
	fail "each ignored key has its own reason: $ERR"

# ---- what cannot be kept, said plainly on every conversion
CANNOT="not kept: network rules (domain allowlists and denylists, Unix-socket access, local binding, proxy ports): pathgate confines files only; its envelope gives the child no network of the host's and no new Unix socket, and --no-envelope filters neither"
want "pathgate: srt: $CANNOT"
echo "$OUT" | grep -Fxq "# $CANNOT" && ok || fail "the policy says what is not kept: $OUT"
echo "$OUT" > "$SCRATCH/converted"
expect_status 0 "the converted policy parses" pg policy --check "$SCRATCH/converted"
echo '{"filesystem": {"allowWrite": ["."]}}' > "$S"
expect_status 0 "settings with nothing dropped" pg policy --from-srt "$S"
expect_not_in "$ERR" "is ignored" "no warning where nothing is dropped"
want "pathgate: srt: $CANNOT"
if [ -r "$top_srcdir/man/pathgate.1" ]; then
	grep -q "Unix-socket access" "$top_srcdir/man/pathgate.1" && ok || fail "pathgate(1) says what is not kept"
fi

finish
