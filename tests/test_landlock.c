/* test_landlock.c - the Landlock envelope, tested by spawning for real.
 *
 * Each case builds a tree under a fresh mkdtemp directory ($TMPDIR, else
 * /var/tmp), opens a root on it with a policy, runs a hostile child under
 * pg_spawn2 with the Landlock envelope, and checks what the child could
 * and could not do, and that the host tree (path, type, mode, size,
 * inode, mtime) is as it was but for what the child was allowed to write.
 * The raw child is tests/differential/rawprobe (static, raw system calls:
 * no preload sees it); the seccomp child is tests/envelope/probe.
 *
 * Runs wherever the kernel has Landlock (else it skips, saying why): from
 * test_landlock.sh as this user on the host, then as root in a user
 * namespace where no further namespace can be made (bwrap fails there:
 * the automatic choice must pick Landlock), and as nobody there.
 * PG_TEST_NO_LANDLOCK=1: a seccomp filter makes landlock_create_ruleset
 * answer ENOSYS first, and only the refusal cases run. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <seccomp.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "envelope.h"
#include "landlock.h"
#include "pathgate.h"

static char top[256];
static char build[1024];   /* the build tree */

/* ------------------------------------------------------------- trees */

static void path_of(char *buf, const char *rel)
{
	snprintf(buf, PATH_MAX, "%s/%s", top, rel);
}

static void mkdirs(const char *rel)
{
	char p[PATH_MAX];

	path_of(p, rel);
	for (char *s = p + strlen(top) + 1; *s; s++)
		if (*s == '/') {
			*s = '\0';
			mkdir(p, 0755);
			*s = '/';
		}
	assert_true(mkdir(p, 0755) == 0 || errno == EEXIST);
}

static void put(const char *rel, const char *content)
{
	char p[PATH_MAX];
	FILE *f;

	path_of(p, rel);
	f = fopen(p, "w");
	assert_non_null(f);
	fputs(content, f);
	fclose(f);
}

static bool exists(const char *rel)
{
	char p[PATH_MAX];
	struct stat st;

	path_of(p, rel);
	return lstat(p, &st) == 0;
}

static int rm_one(const char *p, const struct stat *st, int flag, struct FTW *f)
{
	(void)st;
	(void)f;
	if (flag == FTW_DP || flag == FTW_D)
		chmod(p, 0755), rmdir(p);
	else
		unlink(p);
	return 0;
}

static int setup(void **state)
{
	const char *base = getenv("TMPDIR");

	(void)state;
	snprintf(top, sizeof(top), "%s/pg-ll-XXXXXX", base && *base ? base : "/var/tmp");
	assert_non_null(mkdtemp(top));
	assert_int_equal(chmod(top, 0755), 0);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	nftw(top, rm_one, 32, FTW_DEPTH | FTW_PHYS);
	pg_envelope_set_bwrap(NULL);
	return 0;
}

/* The tree every case starts from: a workspace "ws" with a denied
 * directory and file (and a hard link and a symlink to them), read-only
 * names, a plain subdirectory; beside it a readable and a denied file. */
static void standard_tree(void)
{
	char a[PATH_MAX], b[PATH_MAX];

	mkdirs("ws/secret");
	mkdirs("ws/sub");
	mkdirs("ws/.git/hooks");
	mkdirs("private");
	put("ws/ok.txt", "ok\n");
	put("ws/ro.txt", "ro\n");
	put("ws/.env", "TOKEN\n");
	put("ws/secret/a.txt", "SECRET\n");
	put("ws/sub/b.txt", "b\n");
	put("ws/.git/hooks/pre", "#!/bin/sh\n");
	put("outside.txt", "out\n");
	put("private/p.txt", "PRIVATE\n");
	path_of(a, "ws/.env");
	path_of(b, "ws/alias");
	assert_int_equal(link(a, b), 0);
	path_of(b, "ws/link-secret");
	assert_int_equal(symlink("secret/a.txt", b), 0);
}

static const char POLICY[] =
	"read /\nwrite .\ndeny secret\ndeny .env\nread .git/hooks\nread ro.txt\ndeny %T/private\n";

/* ---------------------------------------------------------- snapshots */

static char *snap;
static size_t snap_len;
static const char *const *snap_skip;

static int snap_one(const char *p, const struct stat *st, int flag, struct FTW *f)
{
	const char *rel = p + strlen(top) + (p[strlen(top)] == '/');
	char line[PATH_MAX + 200];
	int n;

	(void)flag;
	(void)f;
	for (size_t i = 0; snap_skip && snap_skip[i]; i++) {
		size_t k = strlen(snap_skip[i]);

		if (!strncmp(rel, snap_skip[i], k) && (rel[k] == '\0' || rel[k] == '/'))
			return 0;
	}
	n = snprintf(line, sizeof(line), "%s %o %o %lld %llu %lld.%09ld\n", *rel ? rel : ".",
		     (unsigned)(st->st_mode & S_IFMT), (unsigned)(st->st_mode & 07777),
		     (long long)st->st_size, (unsigned long long)st->st_ino,
		     (long long)st->st_mtim.tv_sec, st->st_mtim.tv_nsec);
	snap = realloc(snap, snap_len + (size_t)n + 1);
	assert_non_null(snap);
	memcpy(snap + snap_len, line, (size_t)n + 1);
	snap_len += (size_t)n;
	return 0;
}

static char *snapshot(const char *const *skip)
{
	char *s;

	snap = calloc(1, 1);
	snap_len = 0;
	snap_skip = skip;
	assert_int_equal(nftw(top, snap_one, 32, FTW_PHYS), 0);
	s = snap;
	snap = NULL;
	return s;
}

static void assert_same_host(char *before, const char *const *skip)
{
	char *after = snapshot(skip);

	if (strcmp(before, after)) {
		print_error("host tree changed:\n--- before\n%s--- after\n%s", before, after);
		fail();
	}
	free(before);
	free(after);
}

/* -------------------------------------------------------------- roots */

static pg_root *open_root(const char *rel, const char *policy)
{
	char text[4096], dir[PATH_MAX];
	pg_policy *p = pg_policy_new();
	pg_root *root;
	const char *t;
	size_t n = 0;

	for (const char *s = policy; *s && n + sizeof(top) + 1 < sizeof(text); s++)
		if (s[0] == '%' && s[1] == 'T') {
			n += (size_t)snprintf(text + n, sizeof(text) - n, "%s", top);
			s++;
		} else {
			text[n++] = *s;
		}
	text[n] = '\0';
	t = text;
	assert_int_equal(pg_policy_parse(p, t, strlen(t)), 0);
	path_of(dir, rel);
	root = pg_root_open(dir, p, 0);
	assert_non_null(root);
	pg_policy_free(p);
	return root;
}

/* ------------------------------------------------------------- launch */

struct run {
	int  status;
	char out[65536];
};

static const struct pg_spawn_options *opts(enum pg_envelope e, unsigned flags)
{
	static struct pg_spawn_options o;

	o = (struct pg_spawn_options){ sizeof(o), e, flags };
	return &o;
}

/* Run ARGV (FILE) under ROOT with O; INPUT on its stdin.  Returns what
 * pg_spawn2 returned; on 0, RES holds the exit status and output. */
static int launch(pg_root *root, const struct pg_spawn_options *o, const char *file,
		  char *const argv[], const char *input, struct run *res)
{
	posix_spawn_file_actions_t fa;
	int p[2], in = memfd_create("stdin", MFD_CLOEXEC), r, status;
	size_t got = 0;
	ssize_t n;
	pid_t pid = -1;

	assert_true(in >= 0);
	if (input)
		assert_int_equal(write(in, input, strlen(input)), (ssize_t)strlen(input));
	lseek(in, 0, SEEK_SET);
	assert_int_equal(pipe2(p, O_CLOEXEC), 0);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, in, 0);
	posix_spawn_file_actions_adddup2(&fa, p[1], 1);
	posix_spawn_file_actions_adddup2(&fa, p[1], 2);
	r = pg_spawn2(&pid, root, file, &fa, NULL, argv, NULL, o);
	posix_spawn_file_actions_destroy(&fa);
	close(p[1]);
	close(in);
	if (r) {
		close(p[0]);
		return r;
	}
	while (got < sizeof(res->out) - 1 &&
	       (n = read(p[0], res->out + got, sizeof(res->out) - 1 - got)) > 0)
		got += (size_t)n;
	res->out[got] = '\0';
	close(p[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	res->status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	if (getenv("PG_TEST_VERBOSE"))
		print_message("exit %d:\n%s", res->status, res->out);
	return 0;
}

static void sh_ok(pg_root *root, const struct pg_spawn_options *o, const char *script,
		  struct run *res)
{
	char *argv[] = { (char *)"sh", (char *)"-c", (char *)script, NULL };
	int r = launch(root, o, "/bin/sh", argv, NULL, res);

	if (r)
		print_error("spawn refused: %s (%s)\n", strerror(r),
			    pg_last_refusal()->rule ? pg_last_refusal()->rule : "");
	assert_int_equal(r, 0);
}

static void line(const struct run *res, const char *text)
{
	size_t n = strlen(text);

	for (const char *p = res->out; (p = strstr(p, text)); p++)
		if ((p == res->out || p[-1] == '\n') && (p[n] == '\n' || p[n] == '\0'))
			return;
	print_error("expected the line \"%s\" in the child's output:\n%s", text, res->out);
	fail();
}

#define TRY(cmd, tag) "if " cmd " >/dev/null 2>&1; then echo '" tag "'; else echo 'no-" tag "'; fi\n"

static const char *built(const char *rel, char *buf)
{
	snprintf(buf, PATH_MAX, "%.1000s/%.100s", build, rel);
	return buf;
}

/* A program of the build tree the child runs, copied beside the case's
 * tree: the build tree may lie under /tmp, which the Landlock envelope
 * shows only where the plan binds something. */
static const char *child_program(const char *rel, char *buf)
{
	char src[PATH_MAX], data[65536];
	int in, out;
	ssize_t n;

	built(rel, src);
	snprintf(buf, PATH_MAX, "%.200s/%.50s", top, strrchr(rel, '/') + 1);
	in = open(src, O_RDONLY | O_CLOEXEC);
	out = open(buf, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);
	assert_true(in >= 0 && out >= 0);
	while ((n = read(in, data, sizeof(data))) > 0)
		assert_int_equal(write(out, data, (size_t)n), n);
	assert_int_equal(n, 0);
	close(in);
	assert_int_equal(close(out), 0);
	return buf;
}

static json_object *report(void)
{
	json_object *doc = json_tokener_parse(pg_spawn_report());

	assert_non_null(doc);
	return doc;
}

static const char *jstr(json_object *o, const char *key)
{
	json_object *v;

	return json_object_object_get_ex(o, key, &v) ? json_object_get_string(v) : NULL;
}

static const struct pg_spawn_options *LANDLOCK;

/* -------------------------------------------------------------- cases */

/* A static child making raw system calls: every denied name unreadable
 * and unwritable (by name, hard link, symlink), read-only names
 * unwritable, the outside unwritable, the host unchanged. */
static void raw_child_is_held(void **state)
{
	static const struct { const char *name; int r, w; } want[] = {
		{ "ok.txt", 0, 0 },            { "sub/b.txt", 0, 0 },
		{ "sub", 0, EISDIR },          { "ro.txt", 0, EACCES },
		{ ".env", EACCES, EACCES },    { "alias", EACCES, EACCES },
		{ "secret", EACCES, EISDIR },  { "secret/a.txt", EACCES, EACCES },
		{ "link-secret", EACCES, EACCES }, { ".git/hooks/pre", 0, EACCES },
		{ "../outside.txt", 0, EACCES }, { "../private/p.txt", EACCES, EACCES },
		/* a split directory above a denied one: not listable (a seam) */
		{ ".", EACCES, EISDIR },
	};
	char probe[PATH_MAX], input[4096] = "", ws[PATH_MAX], *before;
	char *argv[] = { (char *)"rawprobe", ws, NULL };
	struct run res;
	pg_root *root;

	(void)state;
	standard_tree();
	root = open_root("ws", POLICY);
	path_of(ws, "ws");
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		snprintf(input + strlen(input), sizeof(input) - strlen(input), "%s\n", want[i].name);
	child_program("tests/differential/rawprobe", probe);
	before = snapshot(NULL);
	assert_int_equal(launch(root, LANDLOCK, probe, argv, input, &res), 0);
	assert_int_equal(res.status, 0);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		char expect[PATH_MAX];
		const char *l = res.out;
		int r = -1, w = -1;

		snprintf(expect, sizeof(expect), " %s\n", want[i].name);
		for (; (l = strstr(l, expect)); l++) {
			const char *start = l;

			while (start > res.out && start[-1] != '\n')
				start--;
			if (sscanf(start, "R=%d RI=%*u W=%d", &r, &w) == 2)
				break;
		}
		if (r != want[i].r || w != want[i].w) {
			print_error("%s: R=%d W=%d, want R=%d W=%d\n%s", want[i].name, r, w,
				    want[i].r, want[i].w, res.out);
			fail();
		}
	}
	assert_same_host(before, NULL);
	pg_root_close(root);
}

/* A shell child tries everything that would change what the policy
 * holds: only the writable regions change. */
static void hostile_shell_is_held(void **state)
{
	static const char *const skip[] = { "ws/sub", "ws/ok.txt", NULL };
	char script[8192], *before;
	struct run res;
	pg_root *root;

	(void)state;
	standard_tree();
	root = open_root("ws", POLICY);
	snprintf(script, sizeof(script),
		 TRY("echo x >> ok.txt", "append-ok")
		 TRY("echo y > sub/new.txt", "create-sub")
		 TRY("mkdir sub/d", "mkdir-sub")
		 TRY("mv sub/new.txt sub/d/moved.txt", "rename-sub")
		 TRY("echo y > new-top.txt", "create-top")
		 TRY("echo z > ro.txt", "write-ro")
		 TRY("rm -f ro.txt", "rm-ro")
		 TRY("mv .git g2", "mv-pinned")
		 TRY("rm -rf secret", "rm-secret")
		 TRY("cat secret/a.txt", "read-secret")
		 TRY("cat .env", "read-env")
		 TRY("ln .env sub/e2", "link-env")
		 TRY("ln ro.txt sub/r2", "link-ro")
		 TRY("echo h > .git/hooks/pre", "write-hook")
		 TRY("chmod 755 .git/hooks/pre", "chmod-hook")
		 TRY("chmod 600 sub/b.txt", "chmod-sub")
		 TRY("echo w > ../outside.txt", "write-outside")
		 TRY("echo w > ../newout", "create-outside")
		 TRY("cat ../private/p.txt", "read-private")
		 TRY("kill -0 %ld", "signal-caller")
		 "echo done\n", (long)getpid());
	before = snapshot(skip);
	sh_ok(root, LANDLOCK, script, &res);
	line(&res, "done");
	line(&res, "append-ok");
	line(&res, "create-sub");
	line(&res, "mkdir-sub");
	line(&res, "rename-sub");
	line(&res, "no-create-top");    /* a split directory: the named seam */
	line(&res, "no-write-ro");
	line(&res, "no-rm-ro");
	line(&res, "no-mv-pinned");
	line(&res, "no-rm-secret");
	line(&res, "no-read-secret");
	line(&res, "no-read-env");
	line(&res, "no-link-env");
	line(&res, "no-link-ro");
	line(&res, "no-write-hook");
	line(&res, "no-chmod-hook");
	line(&res, "no-chmod-sub");     /* seccomp: no metadata changes at all */
	line(&res, "no-write-outside");
	line(&res, "no-create-outside");
	line(&res, "no-read-private");
	if (pg_landlock_abi(NULL) >= 6)
		line(&res, "no-signal-caller");
	assert_true(exists("ws/sub/d/moved.txt"));
	assert_same_host(before, skip);
	pg_root_close(root);
}

static void seccomp_floor_holds(void **state)
{
	char probe[PATH_MAX];
	/* Sockets that need not exist: what matters is that no datagram or
	 * seqpacket pair is made to address them (issue 10.4). */
	char *argv[] = { (char *)"probe", (char *)"/nonexistent/d.sock",
			 (char *)"/nonexistent/s.sock", NULL };
	struct run res;
	pg_root *root;

	(void)state;
	mkdirs("ws");
	root = open_root("ws", "read /\nwrite .\n");
	assert_int_equal(launch(root, LANDLOCK, child_program("tests/envelope/probe", probe), argv, NULL,
				&res), 0);
	line(&res, "io_uring_setup:EPERM");
	line(&res, "io_uring_enter:EPERM");
	line(&res, "io_uring_register:EPERM");
	line(&res, "socket_unix:EPERM");
	line(&res, "socket_unix_dgram:EPERM");
	line(&res, "socket_inet:EPERM");      /* no network namespace: no sockets */
	line(&res, "socketpair_unix:ok");
	line(&res, "pair_stream:ok");
	line(&res, "pair_dgram:EPERM");
	line(&res, "pair_seqpacket:EPERM");
	pg_root_close(root);
}

/* Only 0, 1, 2 reach the command; no capability, no_new_privs; the
 * environment as bwrap's child gets it. */
static void process_state_is_the_envelopes(void **state)
{
	char script[1024];
	struct run res;
	pg_root *root;
	int stray = open("/dev/null", O_RDONLY);   /* not close-on-exec */

	(void)state;
	mkdirs("ws");
	root = open_root("ws", "read /\nwrite .\n");
	setenv("PG_LANDLOCK_TEST_LEAK", "leaked", 1);
	snprintf(script, sizeof(script),
		 "ls /proc/self/fd | tr '\\n' ' '; echo\n"
		 "grep -E '^(CapEff|CapPrm|CapBnd|NoNewPrivs):' /proc/self/status\n"
		 "echo \"leak=${PG_LANDLOCK_TEST_LEAK-none} path=$PATH\"\n"
		 "pwd\n");
	sh_ok(root, LANDLOCK, script, &res);
	unsetenv("PG_LANDLOCK_TEST_LEAK");
	close(stray);
	line(&res, "0 1 2 3 ");   /* 3 is ls's own listing of /proc/self/fd */
	line(&res, "CapEff:\t0000000000000000");
	line(&res, "CapPrm:\t0000000000000000");
	line(&res, "NoNewPrivs:\t1");
	line(&res, "leak=none path=/usr/local/bin:/usr/bin:/bin");
	path_of(script, "ws");
	line(&res, script);
	pg_root_close(root);
}

static void report_says_landlock_and_each_rule(void **state)
{
	json_object *doc, *ll, *grants, *rules, *seams;
	struct run res;
	pg_root *root;
	pg_plan *pl;

	(void)state;
	standard_tree();
	root = open_root("ws", POLICY);
	sh_ok(root, LANDLOCK, "true", &res);
	doc = report();
	assert_string_equal(jstr(doc, "envelope"), "landlock");
	assert_true(json_object_object_get_ex(doc, "landlock", &ll));
	assert_int_equal(json_object_get_int(json_object_object_get(ll, "abi")), pg_landlock_abi(NULL));
	assert_true(json_object_get_boolean(json_object_object_get(doc, "launched")));
	assert_true(json_object_object_get_ex(ll, "grants", &grants));
	assert_true(json_object_array_length(grants) > 0);
	assert_true(json_object_object_get_ex(ll, "rules", &rules));
	assert_int_equal(json_object_array_length(rules), 7);
	for (size_t i = 0; i < json_object_array_length(rules); i++) {
		json_object *r = json_object_array_get_idx(rules, i), *applied;

		assert_true(json_object_object_get_ex(r, "applied", &applied));
		assert_true(json_object_array_length(applied) > 0);
		if (strstr(jstr(r, "rule"), "deny secret"))
			assert_non_null(strstr(json_object_to_json_string(applied), "nothing granted"));
	}
	assert_true(json_object_object_get_ex(doc, "seams", &seams));
	assert_non_null(strstr(json_object_to_json_string(seams), "granted entry by entry"));
	assert_non_null(strstr(json_object_to_json_string(seams), "names and metadata are not held"));
	if (pg_landlock_abi(NULL) >= 6)
		assert_non_null(strstr(json_object_to_json_string(ll), "\"signal\""));
	if (pg_landlock_abi(NULL) >= 4)
		assert_non_null(strstr(json_object_to_json_string(ll), "\"connect_tcp\""));
	json_object_put(doc);

	/* pathgate plan's view: the same plan, as grants. */
	pl = pg_plan_build(root, PG_PLAN_LANDLOCK);
	assert_non_null(pl);
	assert_int_equal(pg_plan_envelope(pl), PG_ENVELOPE_LANDLOCK);
	assert_true(pg_plan_grant_count(pl) > 0);
	doc = report();
	assert_string_equal(jstr(doc, "envelope"), "landlock");
	json_object_put(doc);
	pg_plan_free(pl);
	pg_root_close(root);
}

/* AUTO: bwrap where it builds its namespaces, Landlock where it does
 * not; the report says which, and why Landlock. */
static void automatic_choice_says_which(void **state)
{
	const char *bwrap_why = pg_envelope_unavailable();
	json_object *doc, *ll;
	struct run res;
	pg_root *root;

	(void)state;
	mkdirs("ws");
	root = open_root("ws", "read /\nwrite .\n");
	sh_ok(root, opts(PG_ENVELOPE_AUTO, 0), "echo ran", &res);
	line(&res, "ran");
	doc = report();
	print_message("automatic choice on this host: %s%s%s%s\n", jstr(doc, "envelope"),
		      bwrap_why ? " (bwrap: " : "", bwrap_why ? bwrap_why : "", bwrap_why ? ")" : "");
	if (getenv("PG_TEST_EXPECT_ENVELOPE"))
		assert_string_equal(jstr(doc, "envelope"), getenv("PG_TEST_EXPECT_ENVELOPE"));
	assert_string_equal(jstr(doc, "envelope"), bwrap_why ? "landlock" : "bwrap");
	if (bwrap_why) {
		assert_true(json_object_object_get_ex(doc, "landlock", &ll));
		assert_non_null(strstr(jstr(ll, "chosen"), "bwrap cannot build its envelope here"));
	}
	json_object_put(doc);

	/* No bwrap at all: Landlock, saying so. */
	pg_envelope_set_bwrap("/nonexistent/bwrap");
	sh_ok(root, opts(PG_ENVELOPE_AUTO, 0), "echo ran", &res);
	line(&res, "ran");
	doc = report();
	assert_string_equal(jstr(doc, "envelope"), "landlock");
	assert_true(json_object_object_get_ex(doc, "landlock", &ll));
	assert_non_null(strstr(jstr(ll, "chosen"), "/nonexistent/bwrap"));
	json_object_put(doc);
	pg_envelope_set_bwrap(NULL);
	pg_root_close(root);
}

/* A directory split above a denied directory is not listable, unless the
 * caller accepts that the denied directory's names can then be listed
 * (never its contents); the report counts what was accepted. */
static void weaker_listing_only_when_accepted(void **state)
{
	const char *script = TRY("ls .", "list-ws") TRY("ls secret", "list-secret")
			     TRY("cat secret/a.txt", "read-secret");
	json_object *doc, *ll;
	struct run res;
	pg_root *root;

	(void)state;
	standard_tree();
	root = open_root("ws", POLICY);
	sh_ok(root, LANDLOCK, script, &res);
	line(&res, "no-list-ws");
	line(&res, "no-list-secret");
	sh_ok(root, opts(PG_ENVELOPE_LANDLOCK, PG_SPAWN_ACCEPT_WEAKER), script, &res);
	line(&res, "list-ws");
	line(&res, "list-secret");        /* the accepted weakness: names */
	line(&res, "no-read-secret");     /* never the contents */
	doc = report();
	assert_true(json_object_object_get_ex(doc, "landlock", &ll));
	assert_true(json_object_get_int(json_object_object_get(ll, "weaker")) >= 1);
	assert_non_null(strstr(json_object_to_json_string(doc), "weaker than bwrap (accepted)"));
	json_object_put(doc);
	pg_root_close(root);
}

/* The absent denied name: Landlock lets a child create it in a region
 * granted whole (the same seam as bwrap's); the plan names it. */
static void absent_denied_name_is_a_named_seam(void **state)
{
	pg_root *root;
	pg_plan *pl;
	bool named = false;

	(void)state;
	mkdirs("ws/sub");
	root = open_root("ws", "read /\nwrite .\ndeny sub/.env\n");
	pl = pg_plan_build(root, PG_PLAN_LANDLOCK);
	assert_non_null(pl);
	for (size_t i = 0; i < pg_plan_seam_count(pl); i++)
		named |= strstr(pg_plan_seam(pl, i)->path, "sub/.env") &&
			 strstr(pg_plan_seam(pl, i)->why, "held in process only");
	assert_true(named);
	pg_plan_free(pl);
	pg_root_close(root);
}

/* ------------------------------------------------- without Landlock */

static void no_landlock_refuses_and_runs_nothing(void **state)
{
	char script[PATH_MAX + 64];
	char *argv[] = { (char *)"sh", (char *)"-c", script, NULL };
	struct run res;
	pg_root *root;

	(void)state;
	mkdirs("ws");
	root = open_root("ws", "read /\nwrite .\n");
	snprintf(script, sizeof(script), "echo ran > %s/ws/ran", top);
	assert_int_equal(launch(root, LANDLOCK, "sh", argv, NULL, &res), ENOSYS);
	assert_string_equal(pg_last_refusal()->name, "exec.sandbox-unavailable");
	assert_non_null(strstr(pg_last_refusal()->rule, "Landlock"));
	pg_envelope_set_bwrap("/nonexistent/bwrap");
	assert_int_equal(launch(root, opts(PG_ENVELOPE_AUTO, 0), "sh", argv, NULL, &res), ENOSYS);
	/* both reasons */
	assert_non_null(strstr(pg_last_refusal()->rule, "bwrap"));
	assert_non_null(strstr(pg_last_refusal()->rule, "Landlock"));
	usleep(50000);
	assert_false(exists("ws/ran"));
	pg_root_close(root);
}

/* ------------------------------------------------------------- set-up */

static void find_build(void)
{
	const char *env = getenv("top_builddir");
	char self[PATH_MAX], *slash;
	ssize_t n;

	if (env && *env) {
		snprintf(build, sizeof(build), "%s", env);
		return;
	}
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	assert_true(n > 0);
	self[n] = '\0';
	for (int up = 0; up < 3 && (slash = strrchr(self, '/')); up++) {
		char cand[PATH_MAX + 64];

		*slash = '\0';
		snprintf(cand, sizeof(cand), "%s/libexec/pathgate-landlock-exec", self);
		if (access(cand, X_OK) == 0 && strlen(self) < sizeof(build)) {
			snprintf(build, sizeof(build), "%.1000s", self);
			return;
		}
	}
	snprintf(build, sizeof(build), ".");
}

static void deny_landlock(void)
{
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);

	if (!ctx || seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(landlock_create_ruleset), 0) < 0 ||
	    seccomp_load(ctx) < 0) {
		fprintf(stderr, "ERROR: cannot hide Landlock with seccomp\n");
		exit(99);
	}
	seccomp_release(ctx);
}

int main(void)
{
	static const struct pg_spawn_options ll = { sizeof(ll), PG_ENVELOPE_LANDLOCK, 0 };
	const struct CMUnitTest cases[] = {
		cmocka_unit_test_setup_teardown(raw_child_is_held, setup, teardown),
		cmocka_unit_test_setup_teardown(hostile_shell_is_held, setup, teardown),
		cmocka_unit_test_setup_teardown(seccomp_floor_holds, setup, teardown),
		cmocka_unit_test_setup_teardown(process_state_is_the_envelopes, setup, teardown),
		cmocka_unit_test_setup_teardown(report_says_landlock_and_each_rule, setup, teardown),
		cmocka_unit_test_setup_teardown(automatic_choice_says_which, setup, teardown),
		cmocka_unit_test_setup_teardown(weaker_listing_only_when_accepted, setup, teardown),
		cmocka_unit_test_setup_teardown(absent_denied_name_is_a_named_seam, setup, teardown),
	};
	const struct CMUnitTest without[] = {
		cmocka_unit_test_setup_teardown(no_landlock_refuses_and_runs_nothing, setup, teardown),
	};
	char helper[PATH_MAX];
	const char *why;

	LANDLOCK = &ll;
	find_build();
	pg_landlock_set_helper(built("libexec/pathgate-landlock-exec", helper));
	if (getenv("PG_TEST_NO_LANDLOCK")) {
		deny_landlock();
		return cmocka_run_group_tests_name("landlock (hidden)", without, NULL, NULL);
	}
	if (!pg_landlock_abi(&why)) {
		printf("SKIP: %s\n", why);
		return 77;
	}
	printf("# Landlock ABI %d; uid %d; bwrap: %s\n", pg_landlock_abi(NULL), (int)getuid(),
	       pg_envelope_unavailable() ? pg_envelope_unavailable() : "available");
	return cmocka_run_group_tests_name("landlock", cases, NULL, NULL);
}
