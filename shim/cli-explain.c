/* cli-explain.c - `pathgate explain` and `pathgate plan`: what decides a
 * name and what holds that decision, and the envelope's mounts. */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pathgate.h"
#include "path.h"
#include "policy.h"
#include "refusal.h"
#include "root.h"
#include "cli.h"

static const char *const access_name[] = {
	[PG_DENY] = "deny", [PG_READ] = "read", [PG_WRITE] = "write",
};

static const char *const op_name[] = {
	[PG_OP_READ] = "read", [PG_OP_WRITE] = "write",
	[PG_OP_CREATE] = "create", [PG_OP_DELETE] = "delete",
};

/* The name explain talks about: relative to the root when it lies inside
 * it (rel), else an absolute host path (abs only). */
struct target {
	struct pg_path p;
	bool           inside;
	char           rel[PG_PATH_MAX + 2];   /* policy name: "a/b", or "/usr/x" outside */
	char           abs[PATH_MAX + PG_PATH_MAX + 2];
};

static int make_target(pg_root *root, const char *raw, struct target *t)
{
	const char *rp = pg_root_path(root);

	if (pg_path_normalise(raw, true, &t->p) < 0)
		return -1;
	if (!t->p.absolute) {
		t->inside = true;
		snprintf(t->rel, sizeof(t->rel), "%s", t->p.buf);
	} else {
		const char *body = t->p.buf[0] == '/' ? t->p.buf + 1 : t->p.buf;
		const char *rbody = rp[0] == '/' ? rp + 1 : rp;
		size_t bl = strlen(rbody);

		if (strncmp(body, rbody, bl) == 0 && (body[bl] == '\0' || body[bl] == '/')) {
			t->inside = true;
			snprintf(t->rel, sizeof(t->rel), "%s", body[bl] ? body + bl + 1 : "");
		} else {
			t->inside = false;
			snprintf(t->rel, sizeof(t->rel), "/%s", body);
		}
	}
	if (t->inside)
		snprintf(t->abs, sizeof(t->abs), "%s%s%s", rp, t->rel[0] ? "/" : "", t->rel);
	else
		snprintf(t->abs, sizeof(t->abs), "%s", t->rel);
	return 0;
}

static void print_rule(const char *label, const struct pg_rule *r)
{
	char buf[512];

	pg_rule_render(r, buf, sizeof(buf));
	printf("%-10s %s\n", label, buf);
}

/* The verdict of each operation, as the library resolves the name (through
 * symlinks, by identity); the read verdict goes to *READ. */
static void explain_ops(pg_root *root, const struct target *t, struct pg_verdict *read)
{
	int op;

	memset(read, 0, sizeof(*read));
	read->allowed = 1;
	if (!t->inside) {
		printf("%-10s outside the root: the library never acts there; the envelope's mounts "
		       "and the preload judge it by the absolute rules\n", "ops:");
		return;
	}
	for (op = PG_OP_READ; op <= PG_OP_DELETE; op++) {
		struct pg_verdict v;
		char label[16];

		memset(&v, 0, sizeof(v));
		snprintf(label, sizeof(label), "%s:", op_name[op]);
		pg_check(root, t->rel[0] ? t->rel : ".", (enum pg_op)op, &v);
		if (op == PG_OP_READ)
			*read = v;
		if (v.allowed)
			printf("%-10s allowed\n", label);
		else if (v.name)
			printf("%-10s refused  %s%s%s\n", label, v.name, v.rule[0] ? "  " : "", v.rule);
		else
			printf("%-10s fails    %s\n", label, strerror(v.err ? v.err : errno));
	}
}

static void explain_symlink_and_links(const struct pg_rule *r, pg_root *root)
{
	char file[PATH_MAX + PG_PATH_MAX + 2], target[PATH_MAX];
	struct stat st;
	ssize_t n;

	if (r->glob)
		return;
	if (r->absolute)
		snprintf(file, sizeof(file), "%s", r->path);
	else
		snprintf(file, sizeof(file), "%s%s%s", pg_root_path(root), r->path[0] ? "/" : "", r->path);
	if (lstat(file, &st) < 0) {
		printf("%-10s %s does not exist: no mount can hold it; the library refuses to create it "
		       "under every spelling\n", "", r->path);
		return;
	}
	if (S_ISLNK(st.st_mode)) {
		n = readlink(file, target, sizeof(target) - 1);
		if (n >= 0) {
			target[n] = '\0';
			printf("%-10s %s is a symlink: its target %s is denied too\n", "", r->path, target);
		}
	} else if (!S_ISDIR(st.st_mode) && st.st_nlink > 1) {
		printf("%-10s %s has %ju hard links: every other name of the file is refused too "
		       "(judged by identity)\n", "", r->path, (uintmax_t)st.st_nlink - 1);
	}
}

/* Every name a deny covers, as pathgate sees them. */
static void explain_covers(const struct pg_judgement *j, pg_root *root)
{
	const struct pg_rule *r = j->rule;
	char folded[PG_PATH_MAX + 1];
	size_t n;

	if (!r || r->access == PG_WRITE)
		return;
	n = pg_fold(r->path, strlen(r->path), folded, sizeof(folded));
	printf("%-10s %s%s%s and everything beneath it\n", "covers:", r->path[0] ? r->path : ".",
	       r->glob ? " (a glob: every name it matches, at any depth it reaches)" : "", "");
	if (n != (size_t)-1 && r->path[0] && strcmp(r->path, "/") != 0)
		printf("%-10s every spelling in its collision class \"%.*s\" (case-folded, NFD): ./x, "
		       "a/../x, x/, other cases and Unicode forms\n", "", (int)n, folded);
	explain_symlink_and_links(r, root);
}

static void explain_pins(pg_policy *policy, const struct target *t)
{
	unsigned i;
	bool any = false;

	if (!t->inside) {
		printf("%-10s none: pins protect names inside the root\n", "pinned:");
		return;
	}
	for (i = 1; i <= t->p.ncomp; i++) {
		size_t len = pg_path_prefix_len(&t->p, i);

		if (pg_policy_pinned(policy, t->rel, len)) {
			printf("%-10s %.*s (rename and removal refused: workspace.pinned, EBUSY)\n",
			       any ? "" : "pinned:", (int)len, t->rel);
			any = true;
		}
	}
	if (!any)
		printf("%-10s none on the way to this name\n", "pinned:");
}

enum mount_kind { MOUNT_NONE, MOUNT_MASK, MOUNT_RO, MOUNT_RW, MOUNT_OTHER };

static enum mount_kind mount_kind(const struct pg_mount *m)
{
	if ((m->why && strncmp(m->why, "mask", 4) == 0) || strstr(m->op, "tmpfs") ||
	    (m->src && strcmp(m->src, "/dev/null") == 0))
		return MOUNT_MASK;
	if (strstr(m->op, "ro-bind") || strstr(m->op, "remount-ro"))
		return MOUNT_RO;
	if (strstr(m->op, "bind"))
		return MOUNT_RW;
	return MOUNT_OTHER;
}

static bool path_covers(const char *dir, const char *p)
{
	size_t n = strlen(dir);

	if (strcmp(dir, "/") == 0)
		return true;
	return strncmp(dir, p, n) == 0 && (p[n] == '\0' || p[n] == '/');
}

/* Whether the envelope holds ACCESS at T: the topmost mount covering it
 * (mounts are emitted shallow first: the last covering one is on top). */
/* The seam of the plan that names T, or one the deciding RULE left. */
static const struct pg_seam *find_seam(const pg_plan *plan, const struct target *t, const char *rule)
{
	size_t i;

	for (i = 0; i < pg_plan_seam_count(plan); i++) {
		const struct pg_seam *s = pg_plan_seam(plan, i);

		if (s->path && (strcmp(s->path, t->abs) == 0 ||
				(rule && s->rule && strcmp(s->rule, rule) == 0 && path_covers(s->path, t->abs))))
			return s;
	}
	return NULL;
}

/* The topmost mount over T (mounts are emitted shallow first: the last
 * covering one lies on top); a pin counts only on its own directory. */
static const struct pg_mount *top_mount(const pg_plan *plan, const struct target *t)
{
	const struct pg_mount *top = NULL;
	size_t i;

	for (i = 0; i < pg_plan_mount_count(plan); i++) {
		const struct pg_mount *m = pg_plan_mount(plan, i);

		if (m->dest && path_covers(m->dest, t->abs) &&
		    !(m->why && strncmp(m->why, "pin", 3) == 0 && strcmp(m->dest, t->abs) != 0))
			top = m;
	}
	return top;
}

/* Whether the envelope holds ACCESS at T as well as the library. */
static void explain_held(pg_root *root, const struct target *t, enum pg_access access, const char *rule)
{
	static const char *const kind_says[] = {
		[MOUNT_NONE] = "nothing", [MOUNT_MASK] = "a mask", [MOUNT_RO] = "a read-only mount",
		[MOUNT_RW] = "a writable mount", [MOUNT_OTHER] = "a mount",
	};
	pg_plan *plan = pg_plan_build(root, 0);
	const char *library = t->inside ? "the library" : "the preload's judgement (not a boundary)";
	const struct pg_mount *top;
	const struct pg_seam *seam;
	enum mount_kind kind;

	if (!plan) {
		const struct pg_refusal *r = pg_last_refusal();

		printf("%-10s %s; the mounts are unknown: no plan (%s)\n", "held by:", library,
		       r->name ? r->name : strerror(errno));
		return;
	}
	top = top_mount(plan, t);
	kind = top ? mount_kind(top) : MOUNT_NONE;
	seam = find_seam(plan, t, rule);
	if ((access == PG_DENY && kind == MOUNT_MASK) || (access == PG_READ && kind == MOUNT_RO) ||
	    (access == PG_WRITE && kind == MOUNT_RW))
		printf("%-10s both: %s, and the mount %s %s (%s)\n", "held by:", library, top->op, top->dest,
		       top->rule ? top->rule : "");
	else if (seam)
		printf("%-10s %s alone: %s (%s)\n", "held by:", library, seam->why, seam->rule);
	else if (access == PG_DENY && kind == MOUNT_NONE)
		printf("%-10s %s alone: no mount reaches this name, and the envelope mounts "
		       "nothing a rule does not give\n", "held by:", library);
	else
		printf("%-10s %s alone: the envelope gives %s here%s%s%s\n", "held by:", library, kind_says[kind],
		       top ? " (" : "", top ? top->op : "", top ? ")" : "");
	pg_plan_free(plan);
}

static int explain_one(pg_root *root, const char *raw)
{
	struct target *t = calloc(1, sizeof(*t));
	struct pg_verdict rv;
	struct pg_judgement j;
	pg_policy *policy = root->policy;

	if (!t) {
		perror("pathgate");
		return CLI_USAGE;
	}
	if (make_target(root, raw, t) < 0) {
		cli_print_refusal(stderr, raw);
		free(t);
		return CLI_REFUSED;
	}
	/* Nothing refreshes this root meanwhile: the rule pointers stay good
	 * after the lock is dropped for pg_check, which takes it itself. */
	pthread_rwlock_rdlock(&root->lock);
	pg_policy_judge(policy, t->rel, strlen(t->rel), &j);
	pthread_rwlock_unlock(&root->lock);
	printf("%-10s %s\n", "path:", raw);
	printf("%-10s %s (%s)\n", "name:", t->abs, t->inside ? "inside the root" : "outside the root");
	printf("%-10s %s\n", "decision:", access_name[j.access]);
	if (j.rule)
		print_rule("rule:", j.rule);
	else
		printf("%-10s none covers it: denied\n", "rule:");
	if (j.cap)
		print_rule("capped by:", j.cap);
	explain_ops(root, t, &rv);
	/* The name may reach another: a symlink to a denied name, a hard link
	 * to a denied file.  The library judges what is reached. */
	if (rv.name && j.access != PG_DENY && strcmp(rv.name, "workspace.denied") == 0)
		printf("%-10s the name reaches a denied object: %s\n", "reaches:", rv.rule[0] ? rv.rule : rv.name);
	explain_covers(&j, root);
	pthread_rwlock_rdlock(&root->lock);
	explain_pins(policy, t);
	pthread_rwlock_unlock(&root->lock);
	{
		char rule[512] = "";

		if (j.rule)
			pg_rule_render(j.rule, rule, sizeof(rule));
		explain_held(root, t, j.access, j.rule ? rule : NULL);
	}
	free(t);
	return j.access == PG_DENY || (!rv.allowed && rv.name) ? CLI_REFUSED : CLI_OK;
}

int explain_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "root", required_argument, NULL, CLI_OPT_ROOT },
		{ "policy", required_argument, NULL, CLI_OPT_POLICY },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct cli_workspace ws = { 0 };
	int c, rc;

	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		if (cli_workspace_option(&ws, c, optarg))
			continue;
		if (c == 'h') {
			fputs(cli_usage_text, stdout);
			return CLI_OK;
		}
		fputs(cli_usage_text, stderr);
		return CLI_USAGE;
	}
	if (argc - optind != 1) {
		fputs("pathgate: explain: give exactly one PATH\n", stderr);
		return CLI_USAGE;
	}
	rc = cli_workspace_open(&ws);
	if (rc == CLI_OK)
		rc = explain_one(ws.root, argv[optind]);
	cli_workspace_close(&ws);
	return rc;
}

/* ------------------------------------------------------------------ plan */

static void print_plan(const pg_plan *plan, bool argv_too)
{
	size_t i;

	if (argv_too) {
		char *const *av = pg_plan_argv(plan);

		for (i = 0; av && av[i]; i++)
			printf("%s\n", av[i]);
		return;
	}
	for (i = 0; i < pg_plan_mount_count(plan); i++) {
		const struct pg_mount *m = pg_plan_mount(plan, i);

		printf("%s%s%s %s\t# %s%s%s\n", m->op, m->src ? " " : "", m->src ? m->src : "",
		       m->dest ? m->dest : "", m->why ? m->why : "", m->rule && *m->rule ? ": " : "",
		       m->rule ? m->rule : "");
	}
	for (i = 0; i < pg_plan_seam_count(plan); i++) {
		const struct pg_seam *s = pg_plan_seam(plan, i);

		printf("seam %s\t# %s: %s\n", s->path, s->why, s->rule ? s->rule : "");
	}
	for (i = 0; i < pg_plan_skip_count(plan); i++) {
		const struct pg_seam *s = pg_plan_skip(plan, i);

		printf("skipped %s\t# %s: %s\n", s->path, s->why, s->rule ? s->rule : "");
	}
}

int plan_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "root", required_argument, NULL, CLI_OPT_ROOT },
		{ "policy", required_argument, NULL, CLI_OPT_POLICY },
		{ "argv", no_argument, NULL, 'a' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct cli_workspace ws = { 0 };
	bool argv_too = false;
	pg_plan *plan;
	int c, rc;

	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		if (cli_workspace_option(&ws, c, optarg))
			continue;
		if (c == 'a') {
			argv_too = true;
			continue;
		}
		if (c == 'h') {
			fputs(cli_usage_text, stdout);
			return CLI_OK;
		}
		fputs(cli_usage_text, stderr);
		return CLI_USAGE;
	}
	if (optind != argc) {
		fputs("pathgate: plan: takes no PATH\n", stderr);
		return CLI_USAGE;
	}
	rc = cli_workspace_open(&ws);
	if (rc == CLI_OK) {
		plan = pg_plan_build(ws.root, 0);
		if (!plan) {
			cli_print_refusal(stderr, "plan");
			rc = pg_refusal_code() == PG_R_SANDBOX_UNAVAILABLE ? CLI_SANDBOX : CLI_USAGE;
		} else {
			print_plan(plan, argv_too);
			pg_plan_free(plan);
		}
	}
	cli_workspace_close(&ws);
	return rc;
}
