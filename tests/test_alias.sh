#!/bin/sh
# test_alias.sh - another host path to the workspace (issue 10.8): a bind
# mount of the workspace elsewhere on the host, made in a private mount
# namespace of this test, must not show the child what the workspace's
# masks hide.  The plan masks the alias whole and says so; the host is
# unchanged.  Root only (mount(2) in a private mount namespace).
. "$top_srcdir/tests/shim-lib.sh"

[ "$(id -u)" = 0 ] || skip "not root: cannot bind-mount in a private mount namespace"
command -v unshare >/dev/null 2>&1 || skip "unshare (util-linux) is missing"
unshare -m --propagation private true 2>/dev/null || skip "cannot make a private mount namespace here"

# Not under /tmp: the envelope's private /tmp would hide the alias anyway.
TMPDIR=/var/tmp scratch
W="$SCRATCH/ws"
A="$SCRATCH/alias"
S="$SCRATCH/part"
mkdir -p "$W/docs" "$A" "$S"
echo SECRET > "$W/.env"
echo pub > "$W/docs/readme"
printf 'read /\nwrite .\ndeny .env\n' > "$SCRATCH/policy"
"$PATHGATE" run --root "$W" --policy "$SCRATCH/policy" --no-preload -- true 2>"$SCRATCH/.stderr"
[ $? -eq 125 ] && skip "the envelope cannot be built here: $(cat "$SCRATCH/.stderr")"
before=$(snapshot "$W"; snapshot "$A"; snapshot "$S")

# The whole workspace bound at ALIAS, and its docs at PART.
in_ns() {
	unshare -m --propagation private sh -c \
		'mount --bind "$1" "$2" && mount --bind "$1/docs" "$3" && shift 3 && exec "$@"' \
		sh "$W" "$A" "$S" "$@"
}

expect_status 0 "run through the alias" in_ns "$PATHGATE" run --root "$W" \
	--policy "$SCRATCH/policy" --no-preload -- sh -c \
	"cat '$W/.env' 2>/dev/null; echo own=\$?; cat '$A/.env' 2>/dev/null; echo alias=\$?; ls '$S' >/dev/null 2>&1; echo part=\$?; cat '$W/docs/readme'"
expect_not_in "$OUT" "SECRET" "the denied file through any path"
expect_in "$OUT" "alias=1" "the alias is masked"
expect_in "$OUT" "part=2" "the bound part of the workspace is masked"
expect_in "$OUT" "pub" "the workspace itself still works"
expect_status 0 "plan in the namespace" in_ns "$PATHGATE" plan --root "$W" --policy "$SCRATCH/policy"
expect_in "$OUT" "another host path to the workspace" "the plan names the alias"
expect_in "$OUT" "$A" "the plan names where"

after=$(snapshot "$W"; snapshot "$A"; snapshot "$S")
[ "$before" = "$after" ] && ok || fail "the host tree changed"
finish
