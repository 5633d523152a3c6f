/* test_envelope.c - the envelope, tested by spawning for real.
 *
 * Every case builds a small tree under a fresh mkdtemp directory, plans an
 * envelope from rules, runs a real child under bwrap, and checks what the
 * child could and could not do.  Each case also snapshots the host tree
 * (path, type, mode, size, inode, mtime) before and after the launch and
 * requires them equal, except for what the child was allowed to write.
 * An argv assertion proves nothing here; the few that exist only add to a
 * real launch.
 *
 * Runs as root and, from test_envelope_unpriv.sh, as nobody. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "envelope.h"
#include "envelope-plan.h"
#include "policy.h"
#include "refusal.h"
#include "shim.h"

/* ------------------------------------------------------------- trees */

static char top[256];   /* this run's mkdtemp directory */

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

static void link_to(const char *target, const char *rel)
{
	char p[PATH_MAX];

	path_of(p, rel);
	assert_int_equal(symlink(target, p), 0);
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

/* Where the trees go: TMPDIR (else /var/tmp) in the first group, /tmp in
 * the second, because the envelope replaces /tmp with a private tmpfs and
 * a workspace beneath it must still work. */
static const char *base_dir;

static void fresh_top(void)
{
	snprintf(top, sizeof(top), "%s/pg-env-XXXXXX", base_dir);
	assert_non_null(mkdtemp(top));
}

static int setup(void **state)
{
	(void)state;
	fresh_top();
	return 0;
}

/* A case that moves to a second tree keeps the first here, so that a
 * failure in between still cleans up both. */
static char saved_top[sizeof(top)];

static int teardown(void **state)
{
	(void)state;
	nftw(top, rm_one, 32, FTW_DEPTH | FTW_PHYS);
	if (saved_top[0]) {
		snprintf(top, sizeof(top), "%s", saved_top);
		saved_top[0] = '\0';
		nftw(top, rm_one, 32, FTW_DEPTH | FTW_PHYS);
	}
	pg_envelope_set_bwrap(NULL);
	return 0;
}

/* A tree under /tmp is hidden by the child's private /tmp: what the
 * child makes around the workspace's binds is made in memory only. */
static bool under_private_tmp(void)
{
	return strncmp(top, "/tmp/", 5) == 0;
}

/* ---------------------------------------------------------- snapshots */

struct snap {
	char  *text;   /* one line per object, sorted by path (nftw order is
			* stable for an unchanged tree) */
	size_t len, cap;
};

static struct snap *cur_snap;
static const char *const *cur_skip;

static bool skipped(const char *rel)
{
	for (size_t i = 0; cur_skip && cur_skip[i]; i++) {
		size_t n = strlen(cur_skip[i]);

		if (strncmp(rel, cur_skip[i], n) == 0 && (rel[n] == '\0' || rel[n] == '/'))
			return true;
	}
	return false;
}

static int snap_one(const char *p, const struct stat *st, int flag, struct FTW *f)
{
	char line[PATH_MAX + 200];
	const char *rel = p + strlen(top);
	int n;

	(void)flag;
	(void)f;
	if (*rel == '/')
		rel++;
	if (skipped(rel))
		return 0;
	n = snprintf(line, sizeof(line), "%s type=%o mode=%o size=%lld ino=%llu mtime=%lld.%09ld\n",
		     *rel ? rel : ".", (unsigned)(st->st_mode & S_IFMT), (unsigned)(st->st_mode & 07777),
		     (long long)st->st_size, (unsigned long long)st->st_ino,
		     (long long)st->st_mtim.tv_sec, st->st_mtim.tv_nsec);
	if (cur_snap->len + (size_t)n + 1 > cur_snap->cap) {
		cur_snap->cap = (cur_snap->cap + (size_t)n + 1) * 2;
		cur_snap->text = realloc(cur_snap->text, cur_snap->cap);
		assert_non_null(cur_snap->text);
	}
	memcpy(cur_snap->text + cur_snap->len, line, (size_t)n + 1);
	cur_snap->len += (size_t)n;
	return 0;
}

/* Snapshot the whole tree, leaving out SKIP (relative paths: the objects
 * the child may write, and their parent directories' mtimes). */
static char *snapshot(const char *const *skip)
{
	struct snap s = { 0 };

	s.text = calloc(1, 1);
	cur_snap = &s;
	cur_skip = skip;
	assert_int_equal(nftw(top, snap_one, 32, FTW_PHYS), 0);
	return s.text;
}

static void assert_same_host(char *before, const char *const *skip)
{
	char *after = snapshot(skip);

	if (strcmp(before, after) != 0) {
		print_error("host tree changed:\n--- before\n%s--- after\n%s", before, after);
		fail();
	}
	free(before);
	free(after);
}

/* -------------------------------------------------------------- rules */

struct ruleset {
	struct pg_rule  r[32];
	const struct pg_rule *p[32];
	char            path[32][PATH_MAX];
	size_t          n;
};

/* Parse "write .\ndeny! .ssh\n..." into rules; "%T" in a line stands for
 * the run's top directory. */
static void rules(struct ruleset *rs, const char *text)
{
	const char *line = text;

	memset(rs, 0, sizeof(*rs));
	while (*line) {
		const char *end = strchr(line, '\n');
		char buf[1024], word[16], raw[2048], *t;
		struct pg_rule *r = &rs->r[rs->n];
		size_t len = end ? (size_t)(end - line) : strlen(line);

		snprintf(buf, sizeof(buf), "%.*s", (int)len, line);
		line += len + (end ? 1 : 0);
		if (sscanf(buf, "%15s %2047s", word, raw) != 2)
			continue;
		r->final = word[strlen(word) - 1] == '!';
		r->access = word[0] == 'w' ? PG_WRITE : word[0] == 'r' ? PG_READ : PG_DENY;
		if ((t = strstr(raw, "%T"))) {
			char tmp[2048];

			snprintf(tmp, sizeof(tmp), "%.*s%s%s", (int)(t - raw), raw, top, t + 2);
			snprintf(raw, sizeof(raw), "%s", tmp);
		}
		if (strcmp(raw, ".") == 0)
			raw[0] = '\0';
		if (strncmp(raw, "./", 2) == 0)
			memmove(raw, raw + 2, strlen(raw + 2) + 1);
		snprintf(rs->path[rs->n], PATH_MAX, "%s", raw);
		r->path = rs->path[rs->n];
		r->absolute = raw[0] == '/';
		r->glob = strpbrk(raw, "*?") != NULL;
		r->file = "test";
		r->line = (unsigned)rs->n + 1;
		r->index = rs->n;
		rs->p[rs->n] = r;
		rs->n++;
	}
}

static pg_plan *plan(const char *root_rel, const char *text)
{
	struct ruleset rs;
	char root[PATH_MAX];
	pg_plan *pl;

	rules(&rs, text);
	path_of(root, root_rel);
	pl = pg_envelope_plan(root, rs.p, rs.n, NULL);
	assert_non_null(pl);
	return pl;
}

/* ------------------------------------------------------------- launch */

struct run {
	int  status;       /* exit status, or 128 + signal */
	char out[65536];   /* stdout and stderr */
};

static int spawn_sh(pg_plan *pl, const char *script, struct run *res, bool use_actions)
{
	char *argv[] = { (char *)"sh", (char *)"-c", (char *)script, NULL };
	posix_spawn_file_actions_t fa;
	int p[2], r, status;
	size_t got = 0;
	ssize_t n;
	pid_t pid = -1;

	assert_int_equal(pipe2(p, O_CLOEXEC), 0);
	if (use_actions) {
		posix_spawn_file_actions_init(&fa);
		posix_spawn_file_actions_adddup2(&fa, p[1], 1);
		posix_spawn_file_actions_adddup2(&fa, p[1], 2);
		r = pg_envelope_spawn(&pid, pl, "/bin/sh", &fa, NULL, argv, NULL);
		posix_spawn_file_actions_destroy(&fa);
	} else {
		/* The child inherits this process's stdout: point it at the pipe
		 * for the instant of the spawn. */
		int saved = dup(1);

		fflush(stdout);
		dup2(p[1], 1);
		r = pg_envelope_spawn(&pid, pl, "/bin/sh", NULL, NULL, argv, NULL);
		dup2(saved, 1);
		close(saved);
	}
	close(p[1]);
	if (r != 0) {
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
	return 0;
}

/* Run SCRIPT in the workspace under PL; the launch must succeed. */
static void run_ok(pg_plan *pl, const char *script, struct run *res)
{
	int r = spawn_sh(pl, script, res, true);

	if (r != 0)
		print_error("spawn refused: %s (%s)\n", strerror(r),
			    pg_last_refusal()->rule ? pg_last_refusal()->rule : "");
	assert_int_equal(r, 0);
	if (res->status != 0 || getenv("PG_TEST_VERBOSE"))
		print_message("child exit %d, output:\n%s", res->status, res->out);
}

static void has(const struct run *res, const char *text)
{
	if (!strstr(res->out, text)) {
		print_error("expected \"%s\" in the child's output:\n%s", text, res->out);
		fail();
	}
}

/* TEXT is a whole line of the child's output. */
static void line(const struct run *res, const char *text)
{
	size_t n = strlen(text);

	for (const char *p = res->out; (p = strstr(p, text)); p++)
		if ((p == res->out || p[-1] == '\n') && (p[n] == '\n' || p[n] == '\0'))
			return;
	print_error("expected the line \"%s\" in the child's output:\n%s", text, res->out);
	fail();
}

static void lacks(const struct run *res, const char *text)
{
	if (strstr(res->out, text)) {
		print_error("did not expect \"%s\" in the child's output:\n%s", text, res->out);
		fail();
	}
}

static bool plan_has_seam(const pg_plan *pl, const char *suffix)
{
	for (size_t i = 0; i < pg_plan_seam_count(pl); i++) {
		const char *p = pg_plan_seam(pl, i)->path;
		size_t a = strlen(p), b = strlen(suffix);

		if (a >= b && strcmp(p + a - b, suffix) == 0)
			return true;
	}
	return false;
}

static bool plan_has_skip(const pg_plan *pl, const char *suffix, const char *why)
{
	for (size_t i = 0; i < pg_plan_skip_count(pl); i++) {
		const struct pg_seam *s = pg_plan_skip(pl, i);
		size_t a = strlen(s->path), b = strlen(suffix);

		if (a >= b && strcmp(s->path + a - b, suffix) == 0 && strstr(s->why, why))
			return true;
	}
	return false;
}

/* A shell line that prints TAG when CMD succeeds and no-TAG otherwise. */
#define TRY(cmd, tag) "if " cmd " >/dev/null 2>&1; then echo '" tag "'; else echo 'no-" tag "'; fi\n"

/* -------------------------------------------------------------- cases */

static void denied_dir_and_file_are_unreachable(void **state)
{
	static const char *const skip[] = { "ws/scratch", "ws", NULL };
	struct run res;
	pg_plan *pl;
	char *before;

	(void)state;
	mkdirs("ws/secret/inner");
	mkdirs("ws/scratch");
	put("ws/secret/a.txt", "SECRET-A\n");
	put("ws/.env", "TOKEN\n");
	put("ws/.ENV", "TOKEN2\n");
	mkdirs("ws/Secret");
	put("ws/Secret/b.txt", "SECRET-B\n");
	put("ws/ok.txt", "fine\n");
	pl = plan("ws", "read /\nwrite .\ndeny secret\ndeny .env\n");
	before = snapshot(skip);
	run_ok(pl, TRY("cat secret/a.txt", "read-dir-file")
		   TRY("ls secret", "list-dir")
		   TRY("touch secret/new", "write-dir")
		   TRY("cat .env", "read-file")
		   TRY("sh -c 'echo x >> .env'", "write-file")
		   TRY("cat .ENV", "read-other-spelling")
		   TRY("cat Secret/b.txt", "read-other-spelling-dir")
		   TRY("cat ok.txt", "read-ok")
		   TRY("sh -c 'echo w > scratch/out'", "write-ok")
		   "echo ran\n", &res);
	has(&res, "ran");
	line(&res, "read-ok");
	line(&res, "write-ok");
	has(&res, "no-read-dir-file");
	has(&res, "no-list-dir");
	has(&res, "no-write-dir");
	has(&res, "no-read-file");
	has(&res, "no-write-file");
	has(&res, "no-read-other-spelling");      /* a deny covers the collision class */
	has(&res, "no-read-other-spelling-dir");
	assert_same_host(before, skip);
	assert_true(exists("ws/scratch/out"));
	pg_plan_free(pl);
}

static void absent_deny_lays_nothing_on_the_host(void **state)
{
	struct run res;
	pg_plan *pl;
	char *before;

	(void)state;
	mkdirs("ws/ro/sub");
	pl = plan("ws", "read /\nwrite .\nread ro\ndeny .env\ndeny ro/.env\ndeny ro/a/b/c/.netrc\ndeny x/y/.env\n");
	before = snapshot(NULL);
	run_ok(pl, TRY("test -e .env", "env-exists")
		   TRY("test -e ro/.env", "roenv-exists")
		   TRY("touch ro/.env", "roenv-create")
		   "echo ran\n", &res);
	has(&res, "ran");
	has(&res, "no-env-exists");
	has(&res, "no-roenv-exists");
	has(&res, "no-roenv-create");
	assert_same_host(before, NULL);
	assert_false(exists("ws/.env"));
	assert_false(exists("ws/ro/.env"));
	assert_false(exists("ws/x"));
	/* The seam is named: under the writable bind the name is held in
	 * process only; under the read-only bind nothing is lost. */
	assert_true(plan_has_seam(pl, "/ws/.env"));
	assert_true(plan_has_seam(pl, "/ws/x/y/.env"));
	assert_false(plan_has_seam(pl, "/ws/ro/.env"));
	assert_true(plan_has_skip(pl, "/ws/ro/.env", "absent"));
	pg_plan_free(pl);
}

/* The seam, shown: a child can create an absent denied name in a writable
 * region for its launch; the next launch masks what it made. */
static void absent_deny_seam_is_closed_by_the_next_launch(void **state)
{
	struct run res;
	pg_plan *pl;

	(void)state;
	mkdirs("ws");
	pl = plan("ws", "read /\nwrite .\ndeny .env\n");
	run_ok(pl, TRY("sh -c 'echo planted > .env'", "planted") TRY("cat .env", "read-own"), &res);
	line(&res, "planted");          /* the seam: held in process only */
	line(&res, "read-own");
	pg_plan_free(pl);
	assert_true(exists("ws/.env"));
	pl = plan("ws", "read /\nwrite .\ndeny .env\n");
	assert_false(plan_has_seam(pl, "/ws/.env"));
	run_ok(pl, TRY("cat .env", "read-planted") TRY("sh -c 'echo again > .env'", "rewrite"), &res);
	has(&res, "no-read-planted");
	has(&res, "no-rewrite");
	pg_plan_free(pl);
}

static void denied_symlink_masks_its_target(void **state)
{
	static const char *const skip[] = { NULL };
	struct run res;
	pg_plan *pl;
	char *before;

	(void)state;
	mkdirs("ws/data");
	mkdirs("outside");
	put("ws/data/secret.txt", "S\n");
	put("outside/key", "K\n");
	link_to("data/secret.txt", "ws/link");
	link_to("../outside", "ws/outlink");
	pl = plan("ws", "read /\nwrite .\ndeny link\ndeny outlink\n");
	before = snapshot(skip);
	run_ok(pl, TRY("cat link", "via-link")
		   TRY("cat data/secret.txt", "via-target")
		   TRY("cat outlink/key", "via-dirlink")
		   "echo ran\n", &res);
	has(&res, "ran");
	has(&res, "no-via-link");
	has(&res, "no-via-target");
	has(&res, "no-via-dirlink");
	assert_same_host(before, skip);
	/* A mount cannot sit on the link itself: its name is a seam. */
	assert_true(plan_has_seam(pl, "/ws/link"));
	pg_plan_free(pl);
}

/* The seam, shown: a mount cannot sit on a symlink, so a child can
 * replace a denied link's own name in a writable region; the target stays
 * masked throughout, and the next launch masks what the child made. */
static void denied_symlink_name_is_a_seam(void **state)
{
	struct run res;
	pg_plan *pl;

	(void)state;
	mkdirs("ws/data");
	put("ws/data/secret.txt", "S\n");
	link_to("data/secret.txt", "ws/link");
	pl = plan("ws", "read /\nwrite .\ndeny link\n");
	assert_true(plan_has_seam(pl, "/ws/link"));
	run_ok(pl, TRY("sh -c 'rm link && echo planted > link'", "replaced")
		   TRY("cat data/secret.txt", "target"), &res);
	line(&res, "replaced");      /* the seam */
	has(&res, "no-target");      /* the target never leaks */
	pg_plan_free(pl);
	pl = plan("ws", "read /\nwrite .\ndeny link\n");
	run_ok(pl, TRY("cat link", "planted-read"), &res);
	has(&res, "no-planted-read");
	pg_plan_free(pl);
}

/* Seed 004: a writable state dir in a read carve-out in a denied dir. */
static void write_in_read_in_deny_stays_writable(void **state)
{
	static const char *const skip[] = { "home/project/state", NULL };
	struct run res;
	pg_plan *pl;
	char *before;
	char script[16384];

	(void)state;
	mkdirs("home/project/state");
	mkdirs("home/other");
	put("home/other/secret", "S\n");
	put("home/.bashrc", "B\n");
	put("home/project/src.c", "int x;\n");
	pl = plan("home/project", "read /\ndeny %T/home\nread %T/home/project\nwrite %T/home/project/state\n");
	before = snapshot(skip);
	snprintf(script, sizeof(script),
		 TRY("touch state/probe", "state-writable")
		 TRY("cat src.c", "project-readable")
		 TRY("touch new.c", "project-writable")
		 TRY("cat %s/home/other/secret", "sibling-readable")
		 TRY("cat %s/home/.bashrc", "dotfile-readable")
		 "ls -a %s/home\n"
		 TRY("touch %s/home/planted", "home-writable")
		 "stat -c 'mode=%%a' %s/home\n"
		 "echo ran\n", top, top, top, top, top);
	run_ok(pl, script, &res);
	has(&res, "ran");
	line(&res, "state-writable");
	line(&res, "project-readable");
	has(&res, "no-project-writable");
	has(&res, "no-sibling-readable");
	has(&res, "no-dotfile-readable");
	lacks(&res, "other");
	lacks(&res, ".bashrc");
	if (!under_private_tmp()) {
		/* the mask: traverse-only, because a carve-out lies beneath */
		has(&res, "ls: cannot open directory");
		has(&res, "no-home-writable");
		has(&res, "mode=111");
	}
	assert_same_host(before, skip);
	assert_true(exists("home/project/state/probe"));
	pg_plan_free(pl);
}

/* Seed 003: .git/hooks read-only; moving .git aside must fail with EBUSY
 * while work inside .git's parent goes on. */
static void pinned_parent_cannot_be_moved(void **state)
{
	static const char *const skip[] = { "ws", "ws/work", "ws/.git/objects", NULL };
	struct run res;
	pg_plan *pl;
	char *before;

	(void)state;
	mkdirs("ws/.git/hooks");
	mkdirs("ws/.git/objects");
	mkdirs("ws/work");
	put("ws/.git/hooks/pre-commit", "#!/bin/sh\nexit 0\n");
	put("ws/.git/HEAD", "ref: refs/heads/main\n");
	pl = plan("ws", "read /\nwrite .\nread .git/hooks\n");
	before = snapshot(skip);
	run_ok(pl, "mv .git aside && mkdir .git && mkdir .git/hooks && echo x > .git/hooks/pre-commit; echo attack=$?\n"
		   TRY("rmdir .git", "rmdir-git")
		   TRY("sh -c 'echo x > .git/hooks/pre-commit'", "hook-written")
		   TRY("mv .git/hooks .git/h2", "hooks-moved")
		   TRY("sh -c 'echo o > .git/objects/o1 && mv .git/objects/o1 .git/objects/o2'", "inside-git-works")
		   TRY("sh -c 'echo w > work/a && mv work/a work/b && mkdir work/d && rmdir work/d'", "work-works")
		   "echo ran\n", &res);
	has(&res, "Device or resource busy");
	has(&res, "attack=1");
	has(&res, "no-rmdir-git");
	has(&res, "no-hook-written");
	has(&res, "no-hooks-moved");
	line(&res, "inside-git-works");
	line(&res, "work-works");
	assert_same_host(before, skip);
	assert_true(exists("ws/.git/hooks/pre-commit"));
	assert_false(exists("ws/aside"));
	pg_plan_free(pl);
}

/* Invariant 6 is about the rules, not about what exists yet: an absent
 * .git/hooks (read) and an absent .git/info/exclude (deny) still pin the
 * directories above them that exist. */
static void absent_rule_still_pins_existing_parents(void **state)
{
	struct run res;
	pg_plan *pl;

	(void)state;
	mkdirs("ws/.git/info");
	mkdirs("ws/.git/objects");
	pl = plan("ws", "read /\nwrite .\nread .git/hooks\ndeny .git/info/exclude\n");
	assert_true(plan_has_seam(pl, "/ws/.git/hooks"));
	assert_true(plan_has_seam(pl, "/ws/.git/info/exclude"));
	run_ok(pl, "mv .git aside; echo mv=$?\nmv .git/info .git/i2; echo mvinfo=$?\n"
		   TRY("touch .git/objects/o", "inside"), &res);
	has(&res, "mv=1");
	has(&res, "mvinfo=1");
	line(&res, "inside");
	pg_plan_free(pl);
}

/* Without "read /" there is no host view for a pin to lie beneath: it
 * is then a writable self-bind right after its region, and still refuses
 * the move. */
static void pin_holds_without_a_host_base(void **state)
{
	struct stat st;
	struct run res;
	pg_plan *pl;

	(void)state;
	if (lstat("/bin", &st) < 0) {
		print_message("SKIP: no /bin on this host\n");
		skip();
	}
	mkdirs("ws/.git/hooks");
	mkdirs("ws/.git/objects");
	put("ws/.git/hooks/pre-commit", "#!/bin/sh\n");
	pl = plan("ws", "read /usr\nread /bin\nread /lib\nread /lib64\nread /etc\n"
		  "write .\nread .git/hooks\n");
	run_ok(pl, "mv .git aside; echo mv=$?\n"
		   TRY("sh -c 'echo x > .git/hooks/pre-commit'", "hook")
		   TRY("sh -c 'echo o > .git/objects/o && mv .git/objects/o .git/objects/p'", "inside")
		   TRY("touch top", "top")
		   TRY("ls /var/log", "unlisted-host"), &res);
	has(&res, "mv=1");
	has(&res, "no-hook");
	line(&res, "inside");
	line(&res, "top");
	has(&res, "no-unlisted-host");
	pg_plan_free(pl);
}

/* The same attack with the workspace under /tmp, which the envelope
 * replaces by a private tmpfs: the root's bind goes over it and the pin,
 * laid beneath everything, still holds. */
static void pin_holds_under_private_tmp(void **state)
{
	struct run res;
	pg_plan *pl;
	char *ws;

	(void)state;
	/* Build this case under /tmp whatever TMPDIR says. */
	snprintf(saved_top, sizeof(saved_top), "%s", top);
	snprintf(top, sizeof(top), "/tmp/pg-env-XXXXXX");
	ws = mkdtemp(top);
	assert_non_null(ws);
	mkdirs("ws/.git/hooks");
	put("ws/.git/hooks/pre-commit", "#!/bin/sh\n");
	pl = plan("ws", "read /\nwrite .\nread .git/hooks\n");
	run_ok(pl, "mv .git aside; echo mv=$?\n" TRY("touch .git/ok", "inside-works") TRY("touch top-ok", "top-works"), &res);
	has(&res, "Device or resource busy");
	has(&res, "mv=1");
	line(&res, "inside-works");
	line(&res, "top-works");
	pg_plan_free(pl);
}

static void renames_into_denied_or_readonly_fail(void **state)
{
	static const char *const skip[] = { "ws", "ws/free", NULL };
	struct run res;
	pg_plan *pl;
	char *before;

	(void)state;
	mkdirs("ws/secret");
	mkdirs("ws/ro");
	mkdirs("ws/free");
	put("ws/free/a", "A\n");
	put("ws/secret/s", "S\n");
	put("ws/ro/r", "R\n");
	put("ws/frozen.txt", "F\n");
	pl = plan("ws", "read /\nwrite .\ndeny secret\nread ro\nread frozen.txt\n");
	before = snapshot(skip);
	run_ok(pl, TRY("mv free/a secret/a", "into-denied")
		   TRY("mv free/a ro/a", "into-readonly")
		   TRY("mv ro/r free/r", "out-of-readonly")
		   TRY("mv secret/s free/s", "out-of-denied")
		   TRY("mv secret gone", "denied-moved")
		   TRY("mv ro gone", "readonly-moved")
		   TRY("sh -c 'echo x >> frozen.txt'", "file-written")
		   TRY("mv frozen.txt free/frozen.txt", "file-moved")
		   TRY("cat frozen.txt", "file-read")
		   TRY("sh -c 'mv free/a free/b && mv free/b free/a'", "inside-writable")
		   "echo ran\n", &res);
	has(&res, "ran");
	has(&res, "no-into-denied");
	has(&res, "no-into-readonly");
	has(&res, "no-out-of-readonly");
	has(&res, "no-out-of-denied");
	has(&res, "no-denied-moved");
	has(&res, "no-readonly-moved");
	line(&res, "inside-writable");
	has(&res, "no-file-written");
	has(&res, "no-file-moved");
	line(&res, "file-read");
	assert_same_host(before, skip);
	pg_plan_free(pl);
}

static void merged_usr_keeps_programs_runnable(void **state)
{
	struct stat st;
	struct run res;
	pg_plan *pl;

	(void)state;
	if (lstat("/bin", &st) < 0 || !S_ISLNK(st.st_mode)) {
		print_message("SKIP: /bin is not a symlink on this host (no merged /usr)\n");
		skip();
	}
	mkdirs("ws/secret");
	/* With "read /" and denies elsewhere. */
	pl = plan("ws", "read /\nwrite .\ndeny secret\ndeny /var/cache\n");
	run_ok(pl, "/bin/true && /usr/bin/env true && /bin/sh -c 'ls /lib >/dev/null' && echo runnable\n", &res);
	has(&res, "runnable");
	pg_plan_free(pl);
	/* Without it: only what rules give, /bin and /lib* named as the
	 * symlinks they are. */
	pl = plan("ws", "read /usr\nread /bin\nread /lib\nread /lib64\nread /etc\nwrite .\n");
	run_ok(pl, "/bin/true && ls / && echo runnable\n", &res);
	has(&res, "runnable");
	pg_plan_free(pl);
}

static const char *probe_path(void)
{
	static char buf[PATH_MAX + 64];
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	char *slash;

	assert_true(n > 0);
	self[n] = '\0';
	slash = strrchr(self, '/');
	*slash = '\0';
	snprintf(buf, sizeof(buf), "%s/envelope/probe", self);
	if (access(buf, X_OK) == 0)
		return buf;
	snprintf(buf, sizeof(buf), "%s/../envelope/probe", self);   /* .libs/ */
	return buf;
}

/* Copy the executable SRC to the tree's REL, mode 0755. */
static void copy_into(const char *src, const char *rel)
{
	char dst[PATH_MAX], buf[65536];
	int in, out;
	ssize_t n;

	path_of(dst, rel);
	in = open(src, O_RDONLY | O_CLOEXEC);
	assert_true(in >= 0);
	out = open(dst, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);
	assert_true(out >= 0);
	while ((n = read(in, buf, sizeof(buf))) > 0)
		assert_int_equal(write(out, buf, (size_t)n), n);
	assert_int_equal(n, 0);
	close(in);
	close(out);
}

static void seccomp_floor_refuses_io_uring_and_af_unix(void **state)
{
	char script[PATH_MAX + 64];
	struct run res;
	pg_plan *pl;
	FILE *f;
	char line[256], control[4096] = "";

	(void)state;
	/* Control: outside the envelope io_uring works on this host, so an
	 * EPERM inside is the filter's doing. */
	snprintf(script, sizeof(script), "%s", probe_path());
	f = popen(script, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		strncat(control, line, sizeof(control) - strlen(control) - 1);
	pclose(f);
	if (!strstr(control, "io_uring_setup:ok"))
		print_message("note: io_uring_setup fails outside the envelope too:\n%s", control);
	assert_non_null(strstr(control, "socket_unix:ok"));

	/* The build tree may lie under /tmp, which the envelope replaces with
	 * its own: the child runs a copy inside the workspace. */
	mkdirs("ws");
	copy_into(probe_path(), "ws/probe");
	pl = plan("ws", "read /\nwrite .\n");
	snprintf(script, sizeof(script), "%s/ws/probe; echo ran\n", top);
	run_ok(pl, script, &res);
	has(&res, "ran");
	has(&res, "io_uring_setup:EPERM");
	has(&res, "io_uring_enter:EPERM");
	has(&res, "io_uring_register:EPERM");
	has(&res, "socket_unix:EPERM");
	has(&res, "socket_unix_dgram:EPERM");
	has(&res, "socketpair_unix:ok");   /* documented: reaches nothing outside */
	lacks(&res, "socket_inet:EPERM");  /* only AF_UNIX is filtered */
	pg_plan_free(pl);
}

static void mask_cannot_be_written_or_chmodded_back(void **state)
{
	static const char *const skip[] = { NULL };
	struct run res;
	pg_plan *pl;
	char *before;

	(void)state;
	mkdirs("ws/secret");
	put("ws/secret/s", "S\n");
	pl = plan("ws", "read /\nwrite .\ndeny secret\n");
	before = snapshot(skip);
	run_ok(pl, TRY("chmod 0755 secret", "chmod-back")
		   TRY("chmod 0700 secret", "chmod-owner")
		   TRY("touch secret/x", "write-into")
		   TRY("mkdir secret/d", "mkdir-into")
		   TRY("ls secret", "list")
		   TRY("umount secret", "umount")
		   "stat -c 'mode=%a' secret\n"
		   "echo ran\n", &res);
	has(&res, "ran");
	has(&res, "no-chmod-back");
	has(&res, "no-chmod-owner");
	has(&res, "no-write-into");
	has(&res, "no-mkdir-into");
	has(&res, "no-list");
	has(&res, "no-umount");
	has(&res, "mode=0\n");
	assert_same_host(before, skip);
	pg_plan_free(pl);
}

/* One bad rule never kills every launch. */
static void awkward_layouts_still_launch(void **state)
{
	static const char *const skip[] = { NULL };
	struct run res;
	pg_plan *pl;
	char *before;

	(void)state;
	/* stow / home-manager: dotfiles are symlinks into a dotfiles tree */
	mkdirs("ws/dotfiles/config/app");
	put("ws/dotfiles/bashrc", "B\n");
	put("ws/dotfiles/config/app/conf", "C\n");
	mkdirs("ws/home");
	link_to("../dotfiles/bashrc", "ws/home/.bashrc");
	link_to("../dotfiles/config", "ws/home/.config");
	link_to("../dotfiles/missing", "ws/home/.dangling");
	/* a worktree: .git is a file */
	mkdirs("ws/wt");
	put("ws/wt/.git", "gitdir: /elsewhere\n");
	/* a .git/hooks that is a symlink */
	mkdirs("ws/repo/.git");
	mkdirs("ws/repo/hooks-real");
	link_to("../hooks-real", "ws/repo/.git/hooks");
	/* a parent nobody may enter, and one that is read-only */
	mkdirs("ws/locked/inner");
	mkdirs("ws/readonly");
	/* masks inside a read-only bind: a file and a directory */
	mkdirs("ws/cfg/keys");
	put("ws/cfg/token", "T\n");
	put("ws/cfg/keys/k", "K\n");
	put("ws/cfg/plain", "P\n");
	pl = plan("ws",
		  "read /\nwrite .\n"
		  "deny home/.bashrc\nread home/.config\nwrite home/.config/app\ndeny home/.dangling\n"
		  "read wt/.git/hooks\ndeny wt/.git/config\n"
		  "read repo/.git/hooks\ndeny repo/.git/config\n"
		  "deny a/b/c/.env\nwrite absent/dir\nread absent/file\n"
		  "deny locked/inner/.env\nread locked/inner\n"
		  "read readonly\ndeny readonly/x/y\n"
		  "deny /sys/pathgate-absent\ndeny /proc/pathgate-absent\n"
		  "read cfg\ndeny cfg/token\ndeny cfg/keys\n");
	/* chmod after planning would test nothing: lock before. */
	{
		char p[PATH_MAX];

		path_of(p, "ws/readonly");
		chmod(p, 0555);
		path_of(p, "ws/locked");
		chmod(p, 0);
	}
	pg_plan_free(pl);
	pl = plan("ws",
		  "read /\nwrite .\n"
		  "deny home/.bashrc\nread home/.config\nwrite home/.config/app\ndeny home/.dangling\n"
		  "read wt/.git/hooks\ndeny wt/.git/config\n"
		  "read repo/.git/hooks\ndeny repo/.git/config\n"
		  "deny a/b/c/.env\nwrite absent/dir\nread absent/file\n"
		  "deny locked/inner/.env\nread locked/inner\n"
		  "read readonly\ndeny readonly/x/y\n"
		  "deny /sys/pathgate-absent\ndeny /proc/pathgate-absent\n"
		  "read cfg\ndeny cfg/token\ndeny cfg/keys\n");
	before = snapshot(skip);
	run_ok(pl, TRY("cat home/.bashrc", "bashrc")
		   TRY("cat dotfiles/bashrc", "bashrc-target")
		   TRY("cat home/.config/app/conf", "config")
		   TRY("cat wt/.git", "worktree")
		   TRY("cat cfg/token", "ro-masked-file")
		   TRY("cat cfg/keys/k", "ro-masked-dir")
		   TRY("cat cfg/plain", "ro-plain")
		   "echo ran\n", &res);
	has(&res, "no-ro-masked-file");
	has(&res, "no-ro-masked-dir");
	line(&res, "ro-plain");
	has(&res, "ran");
	has(&res, "no-bashrc");
	has(&res, "no-bashrc-target");
	line(&res, "config");
	line(&res, "worktree");
	/* .git is a file: hooks cannot be bound; a child could replace .git
	 * by a directory and create them, so the plan names the seam. */
	assert_true(plan_has_seam(pl, "/ws/wt/.git/hooks"));
	assert_true(plan_has_skip(pl, "/ws/absent/dir", "absent"));
	assert_same_host(before, skip);
	{
		char p[PATH_MAX];

		path_of(p, "ws/locked");
		chmod(p, 0755);
		path_of(p, "ws/readonly");
		chmod(p, 0755);
	}
	pg_plan_free(pl);
}

static void bwrap_unavailable_refuses_and_runs_nothing(void **state)
{
	char script[1024];
	struct run res;
	pg_plan *pl;
	int r;

	(void)state;
	mkdirs("ws");
	pl = plan("ws", "read /\nwrite .\n");
	pg_envelope_set_bwrap("/nonexistent/pathgate/bwrap");
	snprintf(script, sizeof(script), "touch %s/ws/ran", top);
	errno = 0;
	r = spawn_sh(pl, script, &res, true);
	assert_int_equal(r, ENOSYS);
	assert_int_equal(errno, ENOSYS);
	assert_string_equal(pg_last_refusal()->name, "exec.sandbox-unavailable");
	r = spawn_sh(pl, script, &res, false);
	assert_int_equal(r, ENOSYS);
	usleep(100000);
	assert_false(exists("ws/ran"));
	assert_non_null(strstr(pg_spawn_report(), "\"launched\": false"));
	/* A file that is not bubblewrap is refused too. */
	pg_envelope_set_bwrap("/bin/true");
	assert_int_equal(spawn_sh(pl, script, &res, true), ENOSYS);
	pg_envelope_set_bwrap(NULL);
	assert_false(exists("ws/ran"));
	pg_plan_free(pl);
}

static void globs_mask_existing_matches(void **state)
{
	struct pg_envelope_opts o = { .glob_max_depth = 0, .glob_max_entries = 3 };
	struct ruleset rs;
	char root[PATH_MAX];
	struct run res;
	pg_plan *pl;

	(void)state;
	mkdirs("ws/a/b");
	put("ws/a/b/key.pem", "K\n");
	put("ws/top.PEM", "K\n");
	put("ws/a/ok.txt", "ok\n");
	pl = plan("ws", "read /\nwrite .\ndeny **/*.pem\n");
	run_ok(pl, TRY("cat a/b/key.pem", "deep-match")
		   TRY("cat top.PEM", "folded-match")
		   TRY("cat a/ok.txt", "non-match")
		   "echo ran\n", &res);
	has(&res, "no-deep-match");
	has(&res, "no-folded-match");
	line(&res, "non-match");
	assert_true(plan_has_seam(pl, "/ws"));
	pg_plan_free(pl);
	/* The bound is reported, not silently applied. */
	rules(&rs, "read /\nwrite .\ndeny **/*.pem\n");
	path_of(root, "ws");
	pl = pg_envelope_plan(root, rs.p, rs.n, &o);
	assert_non_null(pl);
	assert_true(pl->glob_count_hit);
	assert_true(plan_has_skip(pl, "", "glob walk stopped"));
	pg_plan_free(pl);
}

static void final_rule_cannot_be_widened(void **state)
{
	struct run res;
	pg_plan *pl;

	(void)state;
	mkdirs("ws/.ssh");
	put("ws/.ssh/config", "Host x\n");
	put("ws/.ssh/id", "KEY\n");
	pl = plan("ws", "read /\nwrite .\ndeny! .ssh\nread .ssh/config\nwrite .ssh\n");
	run_ok(pl, TRY("cat .ssh/config", "config") TRY("cat .ssh/id", "key") "echo ran\n", &res);
	has(&res, "no-config");
	has(&res, "no-key");
	pg_plan_free(pl);
}

/* The order of invariants 5 and 6 on the argv of a real plan (a launch
 * above proves the mounts do what the order promises). */
static void plan_order_and_report(void **state)
{
	struct json_object *doc, *mounts;
	char *const *argv;
	size_t pin = 0, dev = 0, bind = 0, mask = 0, remount = 0;
	pg_plan *pl;

	(void)state;
	mkdirs("ws/.git/hooks");
	mkdirs("ws/.git/secret");
	pl = plan("ws", "read /\nwrite .\nread .git/hooks\ndeny .git/secret\ndeny .env\n");
	argv = pg_plan_argv(pl);
	for (size_t i = 0; argv[i]; i++) {
		if (!strcmp(argv[i], "--ro-bind-fd") && strstr(argv[i + 2], "/.git") &&
		    !strstr(argv[i + 2], "hooks"))
			pin = i;
		if (!strcmp(argv[i], "--dev"))
			dev = i;
		if (!strcmp(argv[i], "--bind-fd"))
			bind = i;
		if (!strcmp(argv[i], "--tmpfs") && strstr(argv[i + 1], "secret"))
			mask = i;
		if (!strcmp(argv[i], "--remount-ro"))
			remount = i;
	}
	assert_true(pin > 0 && pin < dev);   /* pins beneath everything */
	assert_true(dev < bind && bind < mask && mask < remount);
	pg_envelope_report_plan(pl);
	doc = json_tokener_parse(pg_spawn_report());
	assert_non_null(doc);
	assert_true(json_object_object_get_ex(doc, "mounts", &mounts));
	assert_int_equal(json_object_array_length(mounts), pg_plan_mount_count(pl));
	assert_true(json_object_object_get_ex(doc, "seams", NULL));
	assert_true(json_object_object_get_ex(doc, "skipped", NULL));
	json_object_put(doc);
	pg_plan_free(pl);
}

static void report_after_launch_says_what_was_applied(void **state)
{
	struct json_object *doc, *sc, *applied, *launched;
	struct run res;
	pg_plan *pl;

	(void)state;
	mkdirs("ws");
	pl = plan("ws", "read /\nwrite .\ndeny .env\n");
	assert_int_equal(spawn_sh(pl, "true", &res, false), 0);
	doc = json_tokener_parse(pg_spawn_report());
	assert_non_null(doc);
	assert_true(json_object_object_get_ex(doc, "seccomp", &sc));
	assert_true(json_object_object_get_ex(sc, "applied", &applied));
	assert_true(json_object_get_boolean(applied));
	assert_true(json_object_object_get_ex(doc, "launched", &launched));
	assert_true(json_object_get_boolean(launched));
	json_object_put(doc);
	pg_plan_free(pl);
}

static void environment_is_cleared(void **state)
{
	char *envp[] = { (char *)"PG_GIVEN=yes", NULL };
	char *argv[] = { (char *)"sh", (char *)"-c", (char *)"env", NULL };
	posix_spawn_file_actions_t fa;
	char out[8192];
	int p[2], status;
	ssize_t n;
	size_t got = 0;
	pg_plan *pl;
	pid_t pid;

	(void)state;
	setenv("PG_SECRET_PARENT", "leak", 1);
	mkdirs("ws");
	pl = plan("ws", "read /\nwrite .\n");
	assert_int_equal(pipe2(p, O_CLOEXEC), 0);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, p[1], 1);
	assert_int_equal(pg_envelope_spawn(&pid, pl, "/bin/sh", &fa, NULL, argv, envp), 0);
	posix_spawn_file_actions_destroy(&fa);
	close(p[1]);
	while ((n = read(p[0], out + got, sizeof(out) - 1 - got)) > 0)
		got += (size_t)n;
	out[got] = '\0';
	close(p[0]);
	waitpid(pid, &status, 0);
	assert_non_null(strstr(out, "PG_GIVEN=yes"));
	assert_non_null(strstr(out, "PATH="));
	assert_null(strstr(out, "PG_SECRET_PARENT"));
	unsetenv("PG_SECRET_PARENT");
	pg_plan_free(pl);
}

static int group_dir(const char *dir)
{
	base_dir = dir;
	return 0;
}

static int in_tmpdir(void **state)
{
	const char *tmp = getenv("TMPDIR");

	(void)state;
	return group_dir(tmp && *tmp ? tmp : "/var/tmp");
}

static int in_tmp(void **state)
{
	(void)state;
	return group_dir("/tmp");
}

/* The public API end to end: a root opened with a parsed policy,
 * pg_plan_build, pg_spawn (posix_spawn's contract), pg_spawn_report. */
static void public_api_spawns_from_a_root(void **state)
{
	static const char text[] = "read /\nwrite .\ndeny secret\ndeny .env\nread .git/hooks\n";
	char *argv[] = { (char *)"sh", (char *)"-c", NULL, NULL };
	char *envp[] = { (char *)"PG_FROM_CALLER=1", NULL };
	struct json_object *doc, *launched;
	char dir[PATH_MAX], script[2048], out[4096];
	int p[2], saved, status;
	ssize_t n;
	size_t got = 0;
	pg_policy *pol;
	pg_root *root;
	pg_plan *pl;
	pid_t pid;

	(void)state;
	mkdirs("ws/secret");
	mkdirs("ws/.git/hooks");
	put("ws/secret/s", "S\n");
	path_of(dir, "ws");
	pol = pg_policy_new();
	assert_int_equal(pg_policy_parse(pol, text, sizeof(text) - 1), 0);
	root = pg_root_open(dir, pol, 0);
	assert_non_null(root);

	pl = pg_plan_build(root, 0);
	assert_non_null(pl);
	assert_true(pg_plan_mount_count(pl) > 0);
	assert_true(plan_has_seam(pl, "/ws/.env"));
	assert_non_null(strstr(pg_spawn_report(), "\"seams\""));
	assert_null(pg_plan_build(root, 0x80));   /* no flags defined yet */
	assert_int_equal(errno, EINVAL);
	pg_plan_free(pl);

	snprintf(script, sizeof(script),
		 TRY("cat secret/s", "secret") TRY("mv .git g", "git-moved")
		 TRY("touch ok", "write") "echo caller=$PG_FROM_CALLER\n");
	argv[2] = script;
	assert_int_equal(pipe2(p, O_CLOEXEC), 0);
	fflush(stdout);
	saved = dup(1);
	dup2(p[1], 1);
	assert_int_equal(pg_spawn(&pid, root, "sh", NULL, NULL, argv, envp), 0);
	dup2(saved, 1);
	close(saved);
	close(p[1]);
	while ((n = read(p[0], out + got, sizeof(out) - 1 - got)) > 0)
		got += (size_t)n;
	out[got] = '\0';
	close(p[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_non_null(strstr(out, "no-secret"));
	assert_non_null(strstr(out, "no-git-moved"));
	assert_non_null(strstr(out, "\nwrite\n"));
	assert_non_null(strstr(out, "caller=1"));
	doc = json_tokener_parse(pg_spawn_report());
	assert_non_null(doc);
	assert_true(json_object_object_get_ex(doc, "launched", &launched));
	assert_true(json_object_get_boolean(launched));
	json_object_put(doc);

	/* No sandbox, no run: exec.sandbox-unavailable, ENOSYS, nothing made
	 * (bwrap asked for by name: AUTO would run the Landlock envelope,
	 * which tests/test_landlock covers). */
	pg_envelope_set_bwrap("/nonexistent/bwrap");
	snprintf(script, sizeof(script), "touch %s/ws/refused-ran", top);
	errno = 0;
	assert_int_equal(pg_spawn2(&pid, root, "sh", NULL, NULL, argv, envp,
				   &(struct pg_spawn_options){ sizeof(struct pg_spawn_options),
							       PG_ENVELOPE_BWRAP, 0 }), ENOSYS);
	assert_int_equal(errno, ENOSYS);
	assert_string_equal(pg_last_refusal()->name, "exec.sandbox-unavailable");
	pg_envelope_set_bwrap(NULL);
	usleep(50000);
	assert_false(exists("ws/refused-ran"));

	pg_root_close(root);
	pg_policy_free(pol);
}

/* A hostile child races while later launches are planned and run: it
 * tries to move the masked and read-only directories away (EBUSY) and
 * plants symlinks to the secret in every writable place; no later launch
 * ever reads the secret, and the host keeps it where it was. */
static void hostile_child_races_later_launches(void **state)
{
	static const char rules_text[] =
		"read /\nwrite .\nread cfg\nwrite cfg/out\ndeny box/secret\n";
	char script[4096];
	char *argv[] = { (char *)"sh", (char *)"-c", script, NULL };
	posix_spawn_file_actions_t fa;
	struct run res;
	pg_plan *hostile, *pl;
	pid_t pid;
	int status, launches = 0;
	char buf[64] = "";
	FILE *f;

	(void)state;
	mkdirs("ws/box/secret");
	mkdirs("ws/cfg/out");
	put("ws/box/secret/s", "S3CRET\n");
	put("ws/cfg/c", "C\n");
	hostile = plan("ws", rules_text);
	/* Moving box away would carry the mask with it in this child's
	 * namespace, and leave the secret unmasked at box2 for every later
	 * launch: the pin on box is what refuses it. */
	snprintf(script, sizeof(script),
		 "end=$(( $(date +%%s) + 2 ))\n"
		 "while [ $(date +%%s) -lt $end ]; do\n"
		 "  mv box box2; mv box/secret box/s2; mv cfg c2; rmdir box/secret\n"
		 "  ln -sfn box/secret alias; ln -sfn %s/ws/box/secret cfg/out/alias2\n"
		 "  ln -sfn box/secret/s salias; mkdir -p d; mv -T d box/secret\n"
		 "  rm -f alias; ln -sfn cfg alias\n"
		 "done 2>/dev/null\n", top);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	assert_int_equal(pg_envelope_spawn(&pid, hostile, "/bin/sh", &fa, NULL, argv, NULL), 0);
	posix_spawn_file_actions_destroy(&fa);
	while (waitpid(pid, &status, WNOHANG) == 0) {
		pl = plan("ws", rules_text);
		run_ok(pl, "for f in box/secret/s box2/secret/s box/s2/s alias/s salias "
			   "cfg/out/alias2/s c2/c; do cat $f 2>/dev/null; done; echo end\n", &res);
		lacks(&res, "S3CRET");
		line(&res, "end");
		pg_plan_free(pl);
		launches++;
	}
	assert_true(WIFEXITED(status));
	print_message("%d launches raced the hostile child\n", launches);
	assert_true(launches > 0);
	{
		char p[PATH_MAX];

		path_of(p, "ws/box/secret/s");
		f = fopen(p, "r");
		assert_non_null(f);
		assert_non_null(fgets(buf, sizeof(buf), f));
		fclose(f);
		assert_string_equal(buf, "S3CRET\n");
	}
	assert_false(exists("ws/box2"));
	assert_false(exists("ws/box/s2"));
	assert_false(exists("ws/c2"));
	pg_plan_free(hostile);
}

/* The embedded default profile: read globs ("read! **" "/.git/hooks") are
 * bound read-only and pinned like named rules, deny globs masked, and the
 * profile's "write /tmp" and "write /dev/null" leave the envelope's own
 * /tmp and /dev in place. */
static void default_profile_holds_in_the_envelope(void **state)
{
	static const char *const skip[] = { "ws", "ws/sub", NULL };
	const struct pg_rule *rp[256];
	pg_policy *pol = pg_policy_new();
	char root[PATH_MAX];
	struct run res;
	pg_plan *pl;
	char *before;
	size_t n;

	(void)state;
	assert_int_equal(pg_policy_parse(pol, pg_default_policy_text, strlen(pg_default_policy_text)), 0);
	n = pg_policy_rule_count(pol);
	assert_true(n < 256);
	for (size_t i = 0; i < n; i++)
		rp[i] = pg_policy_rule(pol, i);
	mkdirs("ws/.git/hooks");
	mkdirs("ws/sub/deep/.git/hooks");
	mkdirs("ws/.vscode");
	put("ws/.git/hooks/pre-commit", "#!/bin/sh\n");
	put("ws/sub/deep/.git/hooks/post-checkout", "#!/bin/sh\n");
	put("ws/.vscode/tasks.json", "{}\n");
	put("ws/.env", "TOKEN\n");
	put("ws/sub/server-key.pem", "KEY\n");   /* the default denies keys by name */
	put("ws/sub/notes.txt", "N\n");
	path_of(root, "ws");
	pl = pg_envelope_plan(root, rp, n, NULL);
	assert_non_null(pl);
	before = snapshot(skip);
	run_ok(pl, "mv .git aside; echo mv=$?\n"
		   TRY("sh -c 'echo x > .git/hooks/pre-commit'", "hook")
		   TRY("sh -c 'echo x > sub/deep/.git/hooks/post-checkout'", "deep-hook")
		   TRY("sh -c 'echo x > .vscode/tasks.json'", "vscode")
		   TRY("cat .env", "dotenv")
		   TRY("cat sub/server-key.pem", "pem")
		   TRY("cat sub/notes.txt", "notes")
		   TRY("sh -c 'echo x > sub/new.txt'", "work")
		   TRY("sh -c 'echo x > /dev/null'", "devnull")
		   TRY("sh -c 'echo x > /tmp/scratch && test ! -e /tmp/pg-default-probe'", "private-tmp")
		   "echo ran\n", &res);
	has(&res, "mv=1");
	has(&res, "no-hook");
	has(&res, "no-deep-hook");
	has(&res, "no-vscode");
	has(&res, "no-dotenv");
	has(&res, "no-pem");
	line(&res, "notes");
	line(&res, "work");
	line(&res, "devnull");
	line(&res, "private-tmp");
	assert_same_host(before, skip);
	pg_plan_free(pl);
	pg_policy_free(pol);
}

/* A symlink in a writable region (a child of an earlier launch could have
 * planted it) never carries a write or read rule outside what the rules
 * give its target. */
static void planted_symlink_only_narrows(void **state)
{
	static const char *const skip[] = { NULL };
	struct run res;
	pg_plan *pl;
	char *before;
	char script[2048];

	(void)state;
	mkdirs("ws");
	mkdirs("outside");
	mkdirs("hidden");
	put("outside/f", "O\n");
	put("hidden/h", "H\n");
	link_to("../outside", "ws/state");
	link_to("../hidden", "ws/cache");
	pl = plan("ws", "read /\nwrite .\nwrite state\nread cache\ndeny %T/hidden\n");
	before = snapshot(skip);
	snprintf(script, sizeof(script),
		 TRY("sh -c 'echo x > state/f'", "write-through-link")
		 TRY("sh -c 'echo x > %s/outside/f'", "write-target")
		 TRY("cat state/f", "read-through-link")
		 TRY("cat cache/h", "read-hidden")
		 "echo ran\n", top);
	run_ok(pl, script, &res);
	has(&res, "no-write-through-link");
	has(&res, "no-write-target");
	/* "read /" gives it, except where the envelope's private /tmp
	 * answers for the host's. */
	if (under_private_tmp())
		has(&res, "no-read-through-link");
	else
		line(&res, "read-through-link");
	has(&res, "no-read-hidden");
	assert_same_host(before, skip);
	assert_true(plan_has_skip(pl, "/ws/cache", "no rule grants"));
	pg_plan_free(pl);
}

/* The same planner fed by the policy module's parser (normal forms, the
 * rendering of rules, final rules). */
static void parsed_policy_drives_the_plan(void **state)
{
	static const char text[] =
		"read /\nwrite .\nread .git/hooks\ndeny .env\ndeny! secret\nread secret/pub\ndeny **/*.key\n";
	const struct pg_rule *rp[16];
	pg_policy *pol = pg_policy_new();
	char root[PATH_MAX];
	struct run res;
	pg_plan *pl;
	size_t n;

	(void)state;
	assert_non_null(pol);
	assert_int_equal(pg_policy_parse(pol, text, sizeof(text) - 1), 0);
	n = pg_policy_rule_count(pol);
	assert_true(n == 7);
	for (size_t i = 0; i < n; i++)
		rp[i] = pg_policy_rule(pol, i);
	mkdirs("ws/.git/hooks");
	mkdirs("ws/secret/pub");
	put("ws/secret/pub/p", "P\n");
	put("ws/a.key", "K\n");
	path_of(root, "ws");
	pl = pg_envelope_plan(root, rp, n, NULL);
	assert_non_null(pl);
	run_ok(pl, "mv .git g2; echo mv=$?\n"
		   TRY("cat secret/pub/p", "final-widened")
		   TRY("cat a.key", "glob-key")
		   TRY("touch new", "write-root"), &res);
	has(&res, "Device or resource busy");
	has(&res, "no-final-widened");
	has(&res, "no-glob-key");
	line(&res, "write-root");
	assert_true(plan_has_seam(pl, "/ws/.env"));
	pg_plan_free(pl);
	pg_policy_free(pol);
}

/* Issue 10.6: a protected file whose hard links the walk did not all meet
 * (another name outside the workspace) is named as a seam, with the
 * count; one whose every link lies in the workspace is masked at each and
 * needs no seam. */
static void unmet_hard_links_are_named(void **state)
{
	char a[PATH_MAX], b[PATH_MAX];
	struct run res;
	pg_plan *pl;

	(void)state;
	mkdirs("ws");
	mkdirs("elsewhere");
	put("ws/.env", "SECRET\n");
	put("ws/key", "KEY\n");
	path_of(a, "ws/.env");
	path_of(b, "elsewhere/copy");
	assert_int_equal(link(a, b), 0);
	path_of(a, "ws/key");
	path_of(b, "ws/notes");
	assert_int_equal(link(a, b), 0);
	pl = plan("ws", "read /\nwrite .\ndeny .env\ndeny key\n");
	assert_true(plan_has_seam(pl, "/ws/.env"));
	assert_false(plan_has_seam(pl, "/ws/key"));
	assert_false(plan_has_seam(pl, "/ws/notes"));
	run_ok(pl, TRY("cat notes", "alias-in-ws") TRY("cat key", "key") "echo ran\n", &res);
	has(&res, "no-alias-in-ws");
	has(&res, "no-key");
	pg_plan_free(pl);
}

/* pathgate run lends its preload into the envelope: a file the policy
 * hides (here under a denied directory) is readable at its lent name in
 * the private /tmp, read-only, and the host gains nothing. */
static void lent_file_is_visible_read_only(void **state)
{
	char host[PATH_MAX];
	struct run res;
	pg_plan *pl;
	char *before;

	(void)state;
	mkdirs("ws");
	mkdirs("hidden");
	put("hidden/lib.so", "lent-bytes\n");
	path_of(host, "hidden/lib.so");
	pl = plan("ws", "read /\nwrite .\n");
	assert_int_equal(pg_envelope_lend(pl, host, "/etc/x", "lent"), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(pg_envelope_lend(pl, host, "/tmp/../etc/x", "lent"), -1);
	assert_int_equal(pg_envelope_lend(pl, host, "/tmp/.pathgate/lib.so", "lent"), 0);
	before = snapshot(NULL);
	run_ok(pl, "cat /tmp/.pathgate/lib.so\n"
		   TRY("echo x > /tmp/.pathgate/lib.so", "lent-writable")
		   TRY("rm -f /tmp/.pathgate/lib.so", "lent-removable")
		   "echo ran\n", &res);
	has(&res, "lent-bytes");
	has(&res, "no-lent-writable");
	has(&res, "no-lent-removable");
	has(&res, "ran");
	assert_same_host(before, NULL);
	pg_plan_free(pl);
	pl = plan("ws", "read /\nwrite .\n");
	assert_int_equal(pg_envelope_lend(pl, "/nonexistent/lib.so", "/tmp/x.so", "lent"), -1);
	assert_int_equal(errno, ENOENT);
	pg_plan_free(pl);
}

/* ---- issue 10: the envelope's holes, each with a hostile child ----- */

/* 10.3: a directory fd and a denied file's fd the caller left open
 * (not close-on-exec) must not cross into the envelope, with our file
 * actions or the caller's; what the caller's actions name still does. */
static void inherited_fds_do_not_cross(void **state)
{
	static const char *const skip[] = { NULL };
	char p[PATH_MAX], script[1024];
	struct run res;
	pg_plan *pl;
	char *before;
	int dfd, ffd;

	(void)state;
	mkdirs("ws");
	mkdirs("outside");
	put("ws/secret", "S3CRET\n");
	path_of(p, "outside");
	dfd = open(p, O_RDONLY | O_DIRECTORY);      /* inheritable, as a careless caller leaves it */
	path_of(p, "ws/secret");
	ffd = open(p, O_RDONLY);
	assert_true(dfd >= 3 && ffd >= 3);
	pl = plan("ws", "read /\nwrite .\ndeny secret\n");
	snprintf(script, sizeof(script),
		 "ls /proc/self/fd/; cat /proc/self/fd/%d; echo HOSTILE > /proc/self/fd/%d/planted; "
		 "cat secret; echo done\n", ffd, dfd);
	for (int with_actions = 0; with_actions < 2; with_actions++) {
		before = snapshot(skip);
		assert_int_equal(spawn_sh(pl, script, &res, with_actions), 0);
		lacks(&res, "S3CRET");
		has(&res, "done");
		assert_false(exists("outside/planted"));
		assert_same_host(before, skip);
	}
	/* The caller's own fds stay as they were in the caller. */
	assert_true(fcntl(dfd, F_GETFD) == 0 && fcntl(ffd, F_GETFD) == 0);
	close(dfd);
	close(ffd);
	pg_plan_free(pl);
}

static int unix_server(const char *rel, int type)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, type | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);

	assert_true(fd >= 0);
	path_of(a.sun_path, rel);
	assert_true(strlen(a.sun_path) < sizeof(a.sun_path));
	assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	chmod(a.sun_path, 0777);
	if (type == SOCK_STREAM)
		assert_int_equal(listen(fd, 4), 0);
	return fd;
}

/* 10.4: a socketpair socket must not reach a host AF_UNIX service, DGRAM
 * or STREAM, by connect or a named send; a stream pair stays usable. */
static void socketpair_reaches_no_host_service(void **state)
{
	char script[PATH_MAX * 3 + 64], buf[64];
	struct run res;
	pg_plan *pl;
	int dg, st;

	(void)state;
	mkdirs("ws");
	copy_into(probe_path(), "ws/probe");
	dg = unix_server("ws/d.sock", SOCK_DGRAM);
	st = unix_server("ws/s.sock", SOCK_STREAM);
	pl = plan("ws", "read /\nwrite .\n");
	snprintf(script, sizeof(script), "%s/ws/probe %s/ws/d.sock %s/ws/s.sock; echo ran\n",
		 top, top, top);
	run_ok(pl, script, &res);
	has(&res, "ran");
	has(&res, "pair_stream:ok");
	has(&res, "pair_dgram:EPERM");
	has(&res, "pair_seqpacket:EPERM");
	lacks(&res, "_sendto_dgram:ok");
	lacks(&res, "_connect_stream:ok");
	lacks(&res, "_connect_dgram:ok");
	/* What the host's services got: nothing. */
	assert_true(recv(dg, buf, sizeof(buf), MSG_DONTWAIT) < 0 && errno == EAGAIN);
	assert_true(accept(st, NULL, NULL) < 0 && errno == EAGAIN);
	close(dg);
	close(st);
	pg_plan_free(pl);
}

/* 10.7: a plan whose walk reached its bound is refused at launch; the
 * caller may accept the seam by name, and the plan then says so. */
static void walk_bound_refused_unless_accepted(void **state)
{
	static const struct pg_envelope_opts tight = { .glob_max_entries = 8 };
	struct ruleset rs;
	char root[PATH_MAX], name[64];
	struct run res;
	pg_plan *pl;

	(void)state;
	mkdirs("ws");
	for (int i = 0; i < 20; i++) {
		snprintf(name, sizeof(name), "ws/f%d", i);
		put(name, "x\n");
	}
	rules(&rs, "read /\nwrite .\ndeny **/*.key\n");
	path_of(root, "ws");
	pl = pg_envelope_plan(root, rs.p, rs.n, &tight);
	assert_non_null(pl);
	assert_int_equal(spawn_sh(pl, "touch ran-refused\n", &res, true), ENOSYS);
	assert_string_equal(pg_last_refusal()->name, "exec.sandbox-unavailable");
	assert_false(exists("ws/ran-refused"));
	assert_int_equal(pg_plan_accept_seam(pl, 0x80), -1);
	assert_int_equal(pg_plan_accept_seam(pl, PG_SEAM_WALK_BOUND), 0);
	assert_true(plan_has_seam(pl, "/"));
	assert_non_null(strstr(pg_plan_seam(pl, pg_plan_seam_count(pl) - 1)->why, "accepted"));
	run_ok(pl, "echo launched\n", &res);
	line(&res, "launched");
	pg_plan_free(pl);
}

/* 10.6, 10.10: a child creates an absent read-only name and a hard link
 * to it; the audit moves both aside, and without the audit the next
 * launch binds both read-only (the link by identity). */
static void created_protected_names_are_audited(void **state)
{
	static const char text[] = "read /\nwrite .\nread cfg\ndeny .env\n";
	char root[PATH_MAX], *report;
	pg_policy *pol = pg_policy_new();
	struct run res;
	pg_root *r;
	pg_plan *pl;

	(void)state;
	mkdirs("ws");
	path_of(root, "ws");
	assert_int_equal(pg_policy_parse(pol, text, sizeof(text) - 1), 0);
	r = pg_root_open(root, pol, 0);
	assert_non_null(r);
	pl = pg_plan_build(r, 0);
	assert_true(plan_has_seam(pl, "/ws/cfg"));
	run_ok(pl, "echo A > cfg; ln cfg link; echo E > .env; echo made\n", &res);
	line(&res, "made");
	/* Without the audit: the next launch binds both names read-only. */
	{
		pg_plan *next;

		pg_root_refresh(r);
		next = pg_plan_build(r, 0);
		run_ok(next, TRY("sh -c 'echo EVIL > link'", "link-written")
			     TRY("sh -c 'echo EVIL > cfg'", "cfg-written") "cat .env\n", &res);
		has(&res, "no-link-written");
		has(&res, "no-cfg-written");
		lacks(&res, "E\n");
		pg_plan_free(next);
	}
	report = pg_plan_audit(r, pl, PG_AUDIT_KEEP);
	assert_non_null(report);
	assert_non_null(strstr(report, "/ws/cfg\t"));
	assert_non_null(strstr(report, "/ws/link\t"));
	assert_non_null(strstr(report, "/ws/.env\t"));
	assert_true(exists("ws/cfg"));
	free(report);
	report = pg_plan_audit(r, pl, 0);
	assert_non_null(report);
	assert_non_null(strstr(report, "cfg.pathgate-quarantine-"));
	assert_false(exists("ws/cfg"));
	assert_false(exists("ws/link"));
	assert_false(exists("ws/.env"));
	free(report);
	pg_plan_free(pl);
	pg_root_close(r);
	pg_policy_free(pol);
}

int main(void)
{
	int failed;

	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(denied_dir_and_file_are_unreachable, setup, teardown),
		cmocka_unit_test_setup_teardown(absent_deny_lays_nothing_on_the_host, setup, teardown),
		cmocka_unit_test_setup_teardown(absent_deny_seam_is_closed_by_the_next_launch, setup, teardown),
		cmocka_unit_test_setup_teardown(denied_symlink_masks_its_target, setup, teardown),
		cmocka_unit_test_setup_teardown(denied_symlink_name_is_a_seam, setup, teardown),
		cmocka_unit_test_setup_teardown(write_in_read_in_deny_stays_writable, setup, teardown),
		cmocka_unit_test_setup_teardown(pinned_parent_cannot_be_moved, setup, teardown),
		cmocka_unit_test_setup_teardown(pin_holds_under_private_tmp, setup, teardown),
		cmocka_unit_test_setup_teardown(pin_holds_without_a_host_base, setup, teardown),
		cmocka_unit_test_setup_teardown(absent_rule_still_pins_existing_parents, setup, teardown),
		cmocka_unit_test_setup_teardown(renames_into_denied_or_readonly_fail, setup, teardown),
		cmocka_unit_test_setup_teardown(merged_usr_keeps_programs_runnable, setup, teardown),
		cmocka_unit_test_setup_teardown(seccomp_floor_refuses_io_uring_and_af_unix, setup, teardown),
		cmocka_unit_test_setup_teardown(mask_cannot_be_written_or_chmodded_back, setup, teardown),
		cmocka_unit_test_setup_teardown(awkward_layouts_still_launch, setup, teardown),
		cmocka_unit_test_setup_teardown(bwrap_unavailable_refuses_and_runs_nothing, setup, teardown),
		cmocka_unit_test_setup_teardown(globs_mask_existing_matches, setup, teardown),
		cmocka_unit_test_setup_teardown(final_rule_cannot_be_widened, setup, teardown),
		cmocka_unit_test_setup_teardown(plan_order_and_report, setup, teardown),
		cmocka_unit_test_setup_teardown(report_after_launch_says_what_was_applied, setup, teardown),
		cmocka_unit_test_setup_teardown(environment_is_cleared, setup, teardown),
		cmocka_unit_test_setup_teardown(parsed_policy_drives_the_plan, setup, teardown),
		cmocka_unit_test_setup_teardown(hostile_child_races_later_launches, setup, teardown),
		cmocka_unit_test_setup_teardown(default_profile_holds_in_the_envelope, setup, teardown),
		cmocka_unit_test_setup_teardown(public_api_spawns_from_a_root, setup, teardown),
		cmocka_unit_test_setup_teardown(planted_symlink_only_narrows, setup, teardown),
		cmocka_unit_test_setup_teardown(unmet_hard_links_are_named, setup, teardown),
		cmocka_unit_test_setup_teardown(lent_file_is_visible_read_only, setup, teardown),
		cmocka_unit_test_setup_teardown(inherited_fds_do_not_cross, setup, teardown),
		cmocka_unit_test_setup_teardown(socketpair_reaches_no_host_service, setup, teardown),
		cmocka_unit_test_setup_teardown(walk_bound_refused_unless_accepted, setup, teardown),
		cmocka_unit_test_setup_teardown(created_protected_names_are_audited, setup, teardown),
	};

	signal(SIGPIPE, SIG_IGN);
	failed = cmocka_run_group_tests_name("envelope (trees in $TMPDIR or /var/tmp)", tests, in_tmpdir, NULL);
	failed += cmocka_run_group_tests_name("envelope (trees in /tmp, hidden by the private /tmp)", tests, in_tmp, NULL);
	return failed;
}
