#!/bin/sh
# test_run_holes.sh - issue 10: pathgate run against a hostile child, as
# root and as nobody, the workspace snapshotted around each launch.
#   10.1  the child rewrites a policy file a later launch loads;
#   10.2  the child plants a link where --report writes;
#   10.3  an fd the caller left open crosses into the envelope;
#   10.5  the child points .git/commondir at a config of its own;
#   10.9  a hidden command exits 127 with a message, not 1;
#   10.10 what the child created in a seam is moved aside and said;
#   10.11 no process of the launch outlives run.
. "$top_srcdir/tests/shim-lib.sh"

if [ -n "$PG_SANITIZERS" ]; then
	skip "sanitizer build: an ASan-instrumented preload cannot load into uninstrumented programs"
fi
[ -f "$PRELOAD" ] || { echo "ERROR: $PRELOAD is not built"; exit 99; }
scratch
chmod 755 "$SCRATCH"
mkdir -p "$SCRATCH/home"
chmod 777 "$SCRATCH/home"

as() {
	u=$1
	shift
	if [ "$u" = nobody ]; then
		setpriv --reuid=65534 --regid=65534 --clear-groups env HOME="$SCRATCH/home" "$@"
	else
		env HOME="$SCRATCH/home" "$@"
	fi
}

# run_as USER ARGS...: pathgate run ARGS in $W as USER; RC, OUT, ERR.
run_as() {
	u=$1
	shift
	OUT=$(cd "$W" && as "$u" "$PATHGATE" run "$@" 2>"$SCRATCH/.stderr")
	RC=$?
	ERR=$(cat "$SCRATCH/.stderr")
}

fresh() {
	W="$SCRATCH/$1-ws"
	rm -rf "$W"
	mkdir -p "$W/src"
	echo hi > "$W/src/a.txt"
	[ "$1" = nobody ] && chown -R 65534:65534 "$W"
}

users=root
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null && setpriv --reuid=65534 true 2>/dev/null; then
	users="root nobody"
fi

for u in $users; do
	# ---- 10.1: no .pathgate yet (the default policy): made, then moved aside.
	fresh "$u"
	run_as "$u" -- sh -c 'printf "write /\n" > .pathgate; mkdir -p sub && printf "write /\n" > sub/.pathgate'
	[ ! -e "$W/.pathgate" ] && ok || fail "$u: the child's .pathgate stayed for the next launch: $(cat "$W/.pathgate")"
	[ ! -e "$W/sub/.pathgate" ] && ok || fail "$u: the child's sub/.pathgate stayed"
	expect_in "$ERR" "the command created $W/.pathgate" "$u: run says what the child created"
	expect_in "$ERR" "moved aside to .pathgate.pathgate-quarantine-" "$u: and where it went"
	OUT=$(cd "$W" && "$PATHGATE" plan)
	expect_in "$OUT" "read! .pathgate (<pathgate run: a policy file a later launch loads>" "$u: plan names the guard"

	# An existing .pathgate, and a --policy file inside the write region.
	printf 'read /\nwrite .\n' > "$W/.pathgate"
	printf 'read /\nwrite .\n' > "$W/src/pol"
	[ "$u" = nobody ] && chown 65534:65534 "$W/.pathgate" "$W/src/pol"
	before=$(snapshot "$W")
	run_as "$u" -- sh -c 'printf "write /\n" > .pathgate'
	[ "$RC" -ne 0 ] && ok || fail "$u: the child rewrote .pathgate"
	run_as "$u" --policy "$W/src/pol" -- sh -c 'printf "write /\n" >> src/pol; rm -f src/pol; mv src/pol src/p2'
	[ "$before" = "$(snapshot "$W")" ] && ok || fail "$u: the policy files changed"

	# ---- 10.2: a link planted where the report goes.
	fresh "$u"
	echo VICTIM > "$SCRATCH/victim-$u"
	run_as "$u" --report "$W/report.json" -- ln -s "$SCRATCH/victim-$u" report.json
	[ "$(cat "$SCRATCH/victim-$u")" = VICTIM ] && ok || fail "$u: --report followed the child's link"
	expect_in "$ERR" "--report $W/report.json" "$u: the failed report is said"
	rm -f "$W/report.json"
	run_as "$u" --report "$W/report.json" -- sh -c 'mkfifo report.json'
	[ -p "$W/report.json" ] && ok || fail "$u: the report replaced the child's FIFO"
	rm -f "$W/report.json"
	run_as "$u" --report "$W/r/report.json" -- sh -c "ln -s $SCRATCH r"
	[ ! -e "$SCRATCH/report.json" ] && ok || fail "$u: --report followed a link in a directory component"
	run_as "$u" --report "$W/ok.json" -- true
	expect_in "$(cat "$W/ok.json")" '"launched": true' "$u: a report is still written"

	# ---- 10.3: an fd the caller left open: a denied file, a host directory.
	fresh "$u"
	echo S3CRET > "$W/.env"
	mkdir -p "$SCRATCH/outside-$u"
	[ "$u" = nobody ] && chown 65534:65534 "$W/.env" "$SCRATCH/outside-$u"
	before=$(snapshot "$SCRATCH/outside-$u")
	OUT=$(cd "$W" && as "$u" sh -c 'exec 7<.env 8<"$1"; exec "$2" run -- sh -c "cat /proc/self/fd/7; echo x > /proc/self/fd/8/planted; ls /proc/self/fd"' \
		sh "$SCRATCH/outside-$u" "$PATHGATE" 2>&1)
	expect_not_in "$OUT" S3CRET "$u: an inherited fd of a denied file crossed"
	[ ! -e "$SCRATCH/outside-$u/planted" ] && ok || fail "$u: a write through an inherited directory fd reached the host"
	[ "$before" = "$(snapshot "$SCRATCH/outside-$u")" ] && ok || fail "$u: the host directory changed"

	# ---- 10.5: git's control files, then real host git.
	if command -v git >/dev/null; then
		fresh "$u"
		(cd "$W" && as "$u" sh -c 'git init -q repo && cd repo && echo one > f && git add f &&
			git -c user.name=t -c user.email=t@e commit -qm one') || fail "$u: host git init"
		run_as "$u" -- sh -c '
			mkdir -p evil && cp -r repo/.git/. evil/ &&
			printf "#!/bin/sh\ntouch %s/PWNED\n" "$PWD" > evil/fsm && chmod +x evil/fsm &&
			printf "[core]\n\tfsmonitor = %s/evil/fsm\n" "$PWD" >> evil/config
			echo "$PWD/evil" > repo/.git/commondir
			mkdir -p repo/.git/worktrees/w && echo "$PWD/evil" > repo/.git/worktrees/w/commondir
			echo "$PWD/evil/objects" > repo/.git/objects/info/alternates
			printf "* filter=x\n" > repo/.git/info/attributes
			printf "[core]\n\tfsmonitor = %s/evil/fsm\n" "$PWD" > repo/.git/config.worktree'
		(cd "$W/repo" && as "$u" git status >/dev/null 2>&1; as "$u" git diff >/dev/null 2>&1)
		[ ! -e "$W/PWNED" ] && ok || fail "$u: host git ran the child's command"
		[ ! -e "$W/repo/.git/commondir" ] && ok || fail "$u: .git/commondir stayed"
		[ ! -e "$W/repo/.git/config.worktree" ] && ok || fail "$u: .git/config.worktree stayed"
		grep -q HOSTILE "$W/repo/.git/info/attributes" 2>/dev/null && fail "$u: info/attributes written" || ok
	fi

	# ---- 10.9: a hidden command: 127 and a message, not bwrap's 1.
	fresh "$u"
	mkdir -p "$W/priv"
	cp /bin/true "$W/priv/prog"
	printf 'read /\nwrite .\ndeny priv\n' > "$W/.pathgate"
	[ "$u" = nobody ] && chown -R 65534:65534 "$W"
	run_as "$u" -- ./priv/prog
	[ "$RC" -eq 127 ] && ok || fail "$u: a hidden command exited $RC, want 127 ($ERR)"
	expect_in "$ERR" "not found in the envelope" "$u: run says why"
	tmpcmd=$(mktemp /tmp/pg-hidden-XXXXXX)
	cp /bin/true "$tmpcmd" && chmod 755 "$tmpcmd"
	run_as "$u" -- "$tmpcmd"
	[ "$RC" -eq 127 ] && ok || fail "$u: a command in the host's /tmp exited $RC, want 127"
	rm -f "$tmpcmd"

	# ---- 10.11: nothing of the launch outlives run.
	fresh "$u"
	for i in 1 2 3; do
		run_as "$u" -- sh -c 'sleep 7 & sleep 7 & exit 0' "pg-orphan-$$-$u"
		left=$(ps -eo pid,args | grep "[p]g-orphan-$$-$u\|[s]leep 7" || true)
		[ -z "$left" ] && ok || fail "$u: processes of the launch outlived run: $left"
	done
done

finish
