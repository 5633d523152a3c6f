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
#include "shim.h"
#include "cli.h"

static const char *const access_name[] = {
	[PG_DENY] = "deny", [PG_READ] = "read", [PG_WRITE] = "write",
};

static const char *const op_name[] = {
	[PG_OP_READ] = "read", [PG_OP_WRITE] = "write",
	[PG_OP_CREATE] = "create", [PG_OP_DELETE] = "delete",
};

/* The verdict of each operation, as the library resolves the name (through
 * symlinks, by identity); the read verdict goes to *READ. */
static void explain_ops(pg_root *root, const struct pg_explanation *t, struct pg_verdict *read)
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
		pg_check(root, t->name[0] ? t->name : ".", (enum pg_op)op, &v);
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

static void explain_symlink_and_links(const struct pg_explanation *e, pg_root *root)
{
	char file[PATH_MAX + PG_PATH_MAX + 2], target[PATH_MAX];
	const char *path = e->rule_path;
	struct stat st;
	ssize_t n;

	if (e->rule_glob)
		return;
	if (e->rule_absolute)
		snprintf(file, sizeof(file), "%s", path);
	else
		snprintf(file, sizeof(file), "%s%s%s", pg_root_path(root), path[0] ? "/" : "", path);
	if (lstat(file, &st) < 0) {
		printf("%-10s %s does not exist: no mount can hold it; the library refuses to create it "
		       "under every spelling\n", "", path);
		return;
	}
	if (S_ISLNK(st.st_mode)) {
		n = readlink(file, target, sizeof(target) - 1);
		if (n >= 0) {
			target[n] = '\0';
			printf("%-10s %s is a symlink: its target %s is denied too\n", "", path, target);
		}
	} else if (!S_ISDIR(st.st_mode) && st.st_nlink > 1) {
		printf("%-10s %s has %ju hard links: every other name of the file is refused too "
		       "(judged by identity)\n", "", path, (uintmax_t)st.st_nlink - 1);
	}
}

/* Every name a deny (or read) covers, as pathgate sees them. */
static void explain_covers(const struct pg_explanation *e, pg_root *root)
{
	if (!e->has_rule || e->rule_access == PG_WRITE)
		return;
	printf("%-10s %s%s%s and everything beneath it\n", "covers:", e->rule_path[0] ? e->rule_path : ".",
	       e->rule_glob ? " (a glob: every name it matches, at any depth it reaches)" : "", "");
	if (e->rule_folded[0])
		printf("%-10s every spelling in its collision class \"%s\" (case-folded, NFD): ./x, "
		       "a/../x, x/, other cases and Unicode forms\n", "", e->rule_folded);
	explain_symlink_and_links(e, root);
}

static void explain_pins(const struct pg_explanation *t)
{
	size_t i;

	if (!t->inside) {
		printf("%-10s none: pins protect names inside the root\n", "pinned:");
		return;
	}
	for (i = 0; i < t->npins; i++)
		printf("%-10s %.*s (rename and removal refused: workspace.pinned, EBUSY)\n",
		       i ? "" : "pinned:", (int)t->pins[i], t->name);
	if (!t->npins)
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
static const struct pg_seam *find_seam(const pg_plan *plan, const struct pg_explanation *t,
				       const char *rule)
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
static const struct pg_mount *top_mount(const pg_plan *plan, const struct pg_explanation *t)
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
static void explain_held(pg_root *root, const struct pg_explanation *t, enum pg_access access,
			 const char *rule)
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
	struct pg_explanation *e = calloc(1, sizeof(*e));
	struct pg_verdict rv;
	int rc;

	if (!e) {
		perror("pathgate");
		return CLI_USAGE;
	}
	if (pg_root_explain(root, raw, e) < 0) {
		cli_print_refusal(stderr, raw);
		free(e);
		return CLI_REFUSED;
	}
	printf("%-10s %s\n", "path:", raw);
	printf("%-10s %s (%s)\n", "name:", e->abs, e->inside ? "inside the root" : "outside the root");
	printf("%-10s %s\n", "decision:", access_name[e->access]);
	if (e->has_rule)
		printf("%-10s %s\n", "rule:", e->rule);
	else
		printf("%-10s none covers it: denied\n", "rule:");
	if (e->cap[0])
		printf("%-10s %s\n", "capped by:", e->cap);
	explain_ops(root, e, &rv);
	/* The name may reach another: a symlink to a denied name, a hard link
	 * to a denied file.  The library judges what is reached. */
	if (rv.name && e->access != PG_DENY && strcmp(rv.name, "workspace.denied") == 0)
		printf("%-10s the name reaches a denied object: %s\n", "reaches:", rv.rule[0] ? rv.rule : rv.name);
	explain_covers(e, root);
	explain_pins(e);
	explain_held(root, e, e->access, e->has_rule ? e->rule : NULL);
	rc = e->access == PG_DENY || (!rv.allowed && rv.name) ? CLI_REFUSED : CLI_OK;
	free(e);
	return rc;
}

/* ------------------------------------------------------- explain --json */

static void json_key(const char *key, const char *value)
{
	printf(",\"%s\":", key);
	if (value)
		cli_json_string(stdout, value);
	else
		fputs("null", stdout);
}

/* Each operation's verdict, in check --json's shape. */
static void json_ops(pg_root *root, const struct pg_explanation *e, struct pg_verdict *read)
{
	int op;

	memset(read, 0, sizeof(*read));
	read->allowed = 1;
	fputs(",\"ops\":", stdout);
	if (!e->inside) {
		fputs("null", stdout);
		return;
	}
	for (op = PG_OP_READ; op <= PG_OP_DELETE; op++) {
		struct pg_verdict v;

		memset(&v, 0, sizeof(v));
		pg_check(root, e->name[0] ? e->name : ".", (enum pg_op)op, &v);
		if (op == PG_OP_READ)
			*read = v;
		printf("%s\"%s\":{\"op\":\"%s\"", op == PG_OP_READ ? "{" : ",", op_name[op], op_name[op]);
		cli_json_verdict_fields(stdout, &v);
		putchar('}');
	}
	putchar('}');
}

static void json_pins(const struct pg_explanation *e)
{
	char pin[PG_PATH_MAX + 2];
	size_t i;

	fputs(",\"pinned\":[", stdout);
	for (i = 0; e->inside && i < e->npins; i++) {
		snprintf(pin, sizeof(pin), "%.*s", (int)e->pins[i], e->name);
		if (i)
			putchar(',');
		cli_json_string(stdout, pin);
	}
	putchar(']');
}

/* One JSON object a line: what explain prints, for programs. */
static int explain_json(pg_root *root, const char *raw)
{
	struct pg_explanation *e = calloc(1, sizeof(*e));
	struct pg_verdict rv;
	int rc;

	if (!e) {
		perror("pathgate");
		return CLI_USAGE;
	}
	if (pg_root_explain(root, raw, e) < 0) {
		cli_print_refusal(stderr, raw);
		free(e);
		return CLI_REFUSED;
	}
	fputs("{\"path\":", stdout);
	cli_json_string(stdout, raw);
	json_key("name", e->abs);
	printf(",\"inside\":%s", e->inside ? "true" : "false");
	json_key("decision", access_name[e->access]);
	json_key("rule", e->has_rule ? e->rule : NULL);
	json_key("capped_by", e->cap[0] ? e->cap : NULL);
	json_ops(root, e, &rv);
	json_pins(e);
	fputs("}\n", stdout);
	rc = e->access == PG_DENY || (!rv.allowed && rv.name) ? CLI_REFUSED : CLI_OK;
	free(e);
	return rc;
}

int explain_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "root", required_argument, NULL, CLI_OPT_ROOT },
		{ "policy", required_argument, NULL, CLI_OPT_POLICY },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct cli_workspace ws = { 0 };
	bool json = false;
	int c, rc;

	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		if (cli_workspace_option(&ws, c, optarg))
			continue;
		if (c == 'j') {
			json = true;
			continue;
		}
		if (c == 'h') {
			cli_help("explain", stdout);
			return CLI_OK;
		}
		return cli_try("explain");
	}
	if (argc - optind != 1) {
		fputs("pathgate: explain: give exactly one PATH\n", stderr);
		return cli_try("explain");
	}
	rc = cli_workspace_open(&ws);
	if (rc == CLI_OK) {
		char *path = cli_workspace_path(&ws, argv[optind]);

		rc = !path ? CLI_USAGE : json ? explain_json(ws.root, path) : explain_one(ws.root, path);
		free(path);
	}
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
	/* The Landlock envelope runs grants, not mounts. */
	for (i = 0; i < pg_plan_grant_count(plan); i++) {
		const struct pg_grant *g = pg_plan_grant(plan, i);

		printf("landlock %s %s\t# %s%s%s\n", g->access, g->path, g->why,
		       *g->rule ? ": " : "", g->rule);
	}
	for (i = 0; pg_plan_envelope(plan) == PG_ENVELOPE_BWRAP && i < pg_plan_mount_count(plan); i++) {
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

/* ---------------------------------------------------------- plan --json */

static void json_seams(const char *key, const pg_plan *plan, size_t count,
		       const struct pg_seam *(*at)(const pg_plan *, size_t))
{
	size_t i;

	printf(",\"%s\":[", key);
	for (i = 0; i < count; i++) {
		const struct pg_seam *s = at(plan, i);

		fputs(i ? ",{\"path\":" : "{\"path\":", stdout);
		cli_json_string(stdout, s->path);
		json_key("why", s->why);
		json_key("rule", s->rule);
		putchar('}');
	}
	putchar(']');
}

static void json_mounts(const pg_plan *plan)
{
	size_t i, n = pg_plan_envelope(plan) == PG_ENVELOPE_BWRAP ? pg_plan_mount_count(plan) : 0;

	fputs(",\"mounts\":[", stdout);
	for (i = 0; i < n; i++) {
		const struct pg_mount *m = pg_plan_mount(plan, i);

		fputs(i ? ",{\"op\":" : "{\"op\":", stdout);
		cli_json_string(stdout, m->op);
		json_key("src", m->src);
		json_key("dest", m->dest);
		json_key("why", m->why);
		json_key("rule", m->rule);
		putchar('}');
	}
	putchar(']');
}

static void json_grants(const pg_plan *plan)
{
	size_t i;

	fputs(",\"grants\":[", stdout);
	for (i = 0; i < pg_plan_grant_count(plan); i++) {
		const struct pg_grant *g = pg_plan_grant(plan, i);

		fputs(i ? ",{\"access\":" : "{\"access\":", stdout);
		cli_json_string(stdout, g->access);
		json_key("path", g->path);
		json_key("why", g->why);
		json_key("rule", g->rule);
		putchar('}');
	}
	putchar(']');
}

static void json_argv(const pg_plan *plan)
{
	char *const *av = pg_plan_argv(plan);
	size_t i;

	fputs(",\"argv\":[", stdout);
	for (i = 0; av && av[i]; i++) {
		if (i)
			putchar(',');
		cli_json_string(stdout, av[i]);
	}
	putchar(']');
}

/* The plan as one JSON object: the envelope, its grants or mounts, the
 * seams and skipped names, and (with --argv) the launcher's argv. */
static void print_plan_json(const pg_plan *plan, bool argv_too)
{
	printf("{\"envelope\":\"%s\"", pg_plan_envelope(plan) == PG_ENVELOPE_BWRAP ? "bwrap" : "landlock");
	json_grants(plan);
	json_mounts(plan);
	json_seams("seams", plan, pg_plan_seam_count(plan), pg_plan_seam);
	json_seams("skipped", plan, pg_plan_skip_count(plan), pg_plan_skip);
	if (argv_too)
		json_argv(plan);
	fputs("}\n", stdout);
}

int plan_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "root", required_argument, NULL, CLI_OPT_ROOT },
		{ "policy", required_argument, NULL, CLI_OPT_POLICY },
		{ "argv", no_argument, NULL, 'a' },
		{ "envelope", required_argument, NULL, 'v' },
		{ "accept-weaker", no_argument, NULL, 'w' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct cli_workspace ws = { 0 };
	bool argv_too = false, json = false;
	unsigned flags = 0;
	pg_plan *plan;
	int c, rc;

	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		if (cli_workspace_option(&ws, c, optarg))
			continue;
		if (c == 'a') {
			argv_too = true;
			continue;
		}
		if (c == 'j') {
			json = true;
			continue;
		}
		if (c == 'v' && cli_envelope_flags(optarg, &flags) == 0)
			continue;
		if (c == 'w') {
			flags |= PG_PLAN_ACCEPT_WEAKER;
			continue;
		}
		if (c == 'v')
			return CLI_USAGE;
		if (c == 'h') {
			cli_help("plan", stdout);
			return CLI_OK;
		}
		return cli_try("plan");
	}
	if (optind != argc) {
		fputs("pathgate: plan: takes no PATH\n", stderr);
		return cli_try("plan");
	}
	rc = cli_workspace_open(&ws);
	if (rc == CLI_OK)
		rc = cli_guard_policy_files(&ws);
	if (rc == CLI_OK) {
		plan = pg_plan_build(ws.root, flags);
		if (!plan) {
			cli_print_refusal(stderr, "plan");
			rc = cli_sandbox_refused() ? CLI_SANDBOX : CLI_USAGE;
		} else {
			if (json)
				print_plan_json(plan, argv_too);
			else
				print_plan(plan, argv_too);
			pg_plan_free(plan);
		}
	}
	cli_workspace_close(&ws);
	return rc;
}
