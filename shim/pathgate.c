/* pathgate.c - the command line: dispatch, the workspace every subcommand
 * shares, `check` and `policy`.  explain/plan live in cli-explain.c, run in
 * cli-run.c, the sandbox-runtime conversion in srt.c. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pathgate.h"
#include "shim.h"
#include "cli.h"
#include "srt.h"

const char cli_usage_text[] =
"Usage: pathgate COMMAND [OPTION]...\n"
"Judge and confine a program's access to a workspace.\n"
"\n"
"  check [--root DIR] [--policy FILE] [--op read|write|create|delete]\n"
"        [--json] [--no-uring] PATH... | - [-0]\n"
"                   judge each PATH without acting; '-' reads paths from\n"
"                   stdin (one a line, -0: NUL-separated) and prints a\n"
"                   verdict for each on stdout\n"
"  explain [--root DIR] [--policy FILE] [--json] PATH\n"
"                   which rule decides PATH, the names it covers, the\n"
"                   pinned directories, and what holds the decision\n"
"  plan [--root DIR] [--policy FILE] [--argv] [--json]\n"
"       [--envelope=auto|bwrap|landlock] [--accept-weaker]\n"
"                   the envelope: one mount a line with its rule, the seams\n"
"                   (Landlock: one grant a line)\n"
"  run [--root DIR] [--policy FILE] [--report FILE|-] [--log]\n"
"      [--env NAME[=VALUE]]... [--envelope=auto|bwrap|landlock] [--accept-weaker]\n"
"      [--accept-seam walk-bound|created]... [--no-preload] [--no-envelope]\n"
"      -- CMD [ARG]...\n"
"                   run CMD under the envelope with the preload inside it,\n"
"                   with the caller's PATH, in the current directory when\n"
"                   it lies in the root; sums up refusals at the end\n"
"  policy --default | --from-srt FILE | --check FILE\n"
"                   print the embedded default policy, convert a\n"
"                   sandbox-runtime settings file, or check a policy\n"
"\n"
"Without --root, DIR is the nearest directory upward with a .pathgate,\n"
"else the current one.  Without --policy, DIR/.pathgate is used, else\n"
"the embedded default.  Each COMMAND takes --help.\n"
"Exit status: 0 allowed / success, 1 refused, 2 usage or policy error,\n"
"3 (check) a path does not exist;\n"
"run: CMD's status, 125 sandbox unavailable, 126 not executable,\n"
"127 not found.  See pathgate(1).\n";

static void usage(FILE *out)
{
	fputs(cli_usage_text, out);
}

/* CMD's own lines of the usage text: from "  CMD " to the next command. */
void cli_help(const char *cmd, FILE *out)
{
	const char *p = cli_usage_text, *end;
	size_t n = strlen(cmd);
	bool in = false;

	fprintf(out, "Usage: pathgate %s [OPTION]...\n", cmd);
	for (; *p; p = *end ? end + 1 : end) {
		end = strchrnul(p, '\n');
		if (p[0] == ' ' && p[1] == ' ' && p[2] >= 'a' && p[2] <= 'z')
			in = strncmp(p + 2, cmd, n) == 0 && (p[2 + n] == ' ' || p + 2 + n == end);
		else if (p == end)
			in = false;
		if (in)
			fprintf(out, "%.*s\n", (int)(end - p), p);
	}
	fputs("See pathgate(1).\n", out);
}

int cli_try(const char *cmd)
{
	fprintf(stderr, "Try 'pathgate %s --help'.\n", cmd);
	return CLI_USAGE;
}

void cli_print_refusal(FILE *out, const char *what)
{
	const struct pg_refusal *r = pg_last_refusal();

	if (r->name && r->rule && r->rule[0])
		fprintf(out, "pathgate: %s: %s: %s\n", what, r->name, r->rule);
	else if (r->name)
		fprintf(out, "pathgate: %s: %s\n", what, r->name);
	else
		fprintf(out, "pathgate: %s: %s\n", what, strerror(errno));
}

void cli_print_policy_refusal(FILE *out, const char *what)
{
	const struct pg_refusal *r = pg_last_refusal();

	if (r->code == PG_REFUSAL_POLICY_INVALID)
		fputs(pg_policy_errors(), out);
	cli_print_refusal(out, what);
}

bool cli_sandbox_refused(void)
{
	const char *name = pg_last_refusal()->name;

	return name && strcmp(name, "exec.sandbox-unavailable") == 0;
}

/* Length of the valid UTF-8 sequence at S, 0 when it is not one. */
static size_t utf8_len(const unsigned char *s)
{
	size_t n, i;

	if (s[0] < 0x80)
		return 1;
	if ((s[0] & 0xe0) == 0xc0 && s[0] >= 0xc2)
		n = 2;
	else if ((s[0] & 0xf0) == 0xe0)
		n = 3;
	else if ((s[0] & 0xf8) == 0xf0 && s[0] <= 0xf4)
		n = 4;
	else
		return 0;
	for (i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	return n;
}

void cli_json_string(FILE *out, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	putc('"', out);
	while (*p) {
		size_t n = utf8_len(p);

		if (*p == '"' || *p == '\\') {
			putc('\\', out);
			putc(*p, out);
		} else if (*p == '\n') {
			fputs("\\n", out);
		} else if (*p == '\t') {
			fputs("\\t", out);
		} else if (*p < 0x20) {
			fprintf(out, "\\u%04x", *p);
		} else if (n == 0) {
			/* Not UTF-8: the byte as a lone low surrogate (Python's
			 * surrogateescape), never the character U+00XX. */
			fprintf(out, "\\udc%02x", *p);
			n = 1;
		} else {
			fwrite(p, 1, n, out);
		}
		p += n ? n : 1;
	}
	putc('"', out);
}

bool cli_workspace_option(struct cli_workspace *ws, int opt, const char *arg)
{
	if (opt == CLI_OPT_ROOT)
		ws->root_dir = arg;
	else if (opt == CLI_OPT_POLICY)
		ws->policy_file = arg;
	else
		return false;
	return true;
}

/* --policy FILE, else ROOT/.pathgate, else the embedded default: the
 * library decides (pg_policy_discover), as it does for the preload. */
static int load_policy(struct cli_workspace *ws)
{
	ws->policy = pg_policy_new();
	if (!ws->policy) {
		perror("pathgate");
		return CLI_USAGE;
	}
	/* The preload is handed the policy by the name in ws->source. */
	if (pg_policy_discover(ws->policy, ws->root_dir, ws->policy_file, NULL, &ws->source) < 0) {
		cli_print_policy_refusal(stderr, ws->source ? ws->source
				  : ws->policy_file ? ws->policy_file : "the embedded default policy");
		return CLI_USAGE;
	}
	return CLI_OK;
}

/* No --root: the nearest directory upward holding a .pathgate (as git
 * finds .git), else the working directory.  Relative paths stay relative
 * to the working directory: PREFIX is where it lies beneath the root. */
static void find_root(struct cli_workspace *ws)
{
	char *cwd = getcwd(NULL, 0);
	size_t n;

	ws->found = pg_policy_find_root(".");
	ws->root_dir = ws->found ? ws->found : ".";
	if (!ws->found || !cwd)
		goto out;
	n = strlen(ws->found);
	if (strcmp(ws->found, "/") == 0)
		n = 0;
	if (strncmp(cwd, ws->found, n) == 0 && cwd[n] == '/' && cwd[n + 1])
		if (asprintf(&ws->prefix, "%s/", cwd + n + 1) < 0)
			ws->prefix = NULL;
out:
	free(cwd);
}

char *cli_workspace_path(const struct cli_workspace *ws, const char *path)
{
	char *joined;

	if (!ws->prefix || path[0] == '/' || !path[0])
		return strdup(path);
	if (asprintf(&joined, "%s%s", ws->prefix, path) < 0)
		return NULL;
	return joined;
}

int cli_workspace_open(struct cli_workspace *ws)
{
	int rc;

	if (!ws->root_dir)
		find_root(ws);
	rc = load_policy(ws);
	if (rc != CLI_OK)
		return rc;
	ws->root = pg_root_open(ws->root_dir, ws->policy, 0);
	if (!ws->root) {
		cli_print_refusal(stderr, ws->root_dir);
		return CLI_USAGE;
	}
	return CLI_OK;
}

void cli_workspace_close(struct cli_workspace *ws)
{
	pg_root_close(ws->root);
	pg_policy_free(ws->policy);
	free(ws->source);
	free(ws->found);
	free(ws->prefix);
	ws->found = NULL;
	ws->prefix = NULL;
	ws->root = NULL;
	ws->policy = NULL;
	ws->source = NULL;
}

/* ----------------------------------------------------------------- check */

struct check_opts {
	enum pg_op op;
	bool       json;
	bool       nul;
	unsigned   batch_flags;
};

static int parse_op(const char *s, enum pg_op *op)
{
	static const char *const names[] = { "read", "write", "create", "delete" };
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strcmp(s, names[i]) == 0) {
			*op = (enum pg_op)i;
			return 0;
		}
	return -1;
}

static const char *errno_name(int err)
{
	switch (err) {
	case 0: return "";
	case EACCES: return "EACCES";
	case EROFS: return "EROFS";
	case EBUSY: return "EBUSY";
	case ENOENT: return "ENOENT";
	case EINVAL: return "EINVAL";
	case ENAMETOOLONG: return "ENAMETOOLONG";
	case EFBIG: return "EFBIG";
	case EAGAIN: return "EAGAIN";
	case ENOSYS: return "ENOSYS";
	case ENOTDIR: return "ENOTDIR";
	case ELOOP: return "ELOOP";
	case EXDEV: return "EXDEV";
	case EEXIST: return "EEXIST";
	case EISDIR: return "EISDIR";
	case EPERM: return "EPERM";
	default: return "other";
	}
}

/* A path the library refused has a refusal name and (usually) a rule; one
 * that failed with a plain errno (an absent file for a read) has only the
 * errno: its name stands in, and its message for the rule. */
static const char *verdict_name(const struct pg_verdict *v)
{
	return v->name ? v->name : errno_name(v->err);
}

static const char *verdict_why(const struct pg_verdict *v)
{
	if (v->rule[0])
		return v->rule;
	return v->name ? "no rule covers it" : strerror(v->err);
}

/* V's fields, after an object's first one: the same shape in check's,
 * explain's and every other verdict JSON. */
void cli_json_verdict_fields(FILE *out, const struct pg_verdict *v)
{
	if (v->allowed) {
		fputs(",\"allowed\":true", out);
	} else {
		fputs(",\"allowed\":false,\"refusal\":", out);
		if (v->name)
			cli_json_string(out, v->name);
		else
			fputs("null", out);
		fprintf(out, ",\"errno\":\"%s\"", errno_name(v->err));
		if (!v->name) {
			fputs(",\"error\":", out);
			cli_json_string(out, strerror(v->err));
		}
	}
	fputs(",\"rule\":", out);
	cli_json_string(out, v->rule);
}

static void print_json_verdict(const char *path, const struct pg_verdict *v)
{
	fputs("{\"path\":", stdout);
	cli_json_string(stdout, path);
	cli_json_verdict_fields(stdout, v);
	fputs("}\n", stdout);
}

static void print_line_verdict(const char *path, const struct pg_verdict *v, char end)
{
	if (v->allowed)
		printf("%s\tallowed%c", path, end);
	else
		printf("%s\t%s\t%s%c", path, verdict_name(v), verdict_why(v), end);
}

static void print_refused_stderr(const char *path, const struct pg_verdict *v)
{
	fprintf(stderr, "%s: %s: %s\n", path, verdict_name(v), verdict_why(v));
}

/* The exit status after verdict V: refused beats a plain error (a name
 * that does not exist), which beats allowed. */
static int worse(int rc, const struct pg_verdict *v)
{
	if (v->allowed)
		return rc;
	if (v->name)
		return CLI_REFUSED;
	return rc == CLI_REFUSED ? rc : CLI_ERROR;
}

/* pg_check's verdict, completed where the core leaves off: absolute
 * paths, names leaving the root through an absolute symlink, names to
 * create beneath directories not made yet (pg_root_check_host). */
static void check_one(pg_root *root, const char *path, enum pg_op op, struct pg_verdict *v)
{
	memset(v, 0, sizeof(*v));
	if (pg_root_check_host(root, path, op, v) < 0 && !v->name && !v->err)
		v->err = errno;
}

/* A batch verdict the core could not complete (see check_one). */
static bool needs_host(const char *path, enum pg_op op, const struct pg_verdict *v)
{
	if (v->allowed)
		return false;
	if (path[0] == '/')
		return true;
	if (v->name && strcmp(v->name, "workspace.path-escape") == 0)
		return true;
	return op == PG_OP_CREATE && !v->name && v->err == ENOENT;
}

static int check_args(const struct cli_workspace *ws, const struct check_opts *o, char **paths, int n)
{
	int i, rc = CLI_OK;

	for (i = 0; i < n; i++) {
		struct pg_verdict v;
		char *path = cli_workspace_path(ws, paths[i]);

		if (!path) {
			perror("pathgate");
			return CLI_USAGE;
		}
		check_one(ws->root, path, o->op, &v);
		free(path);
		rc = worse(rc, &v);
		if (o->json)
			print_json_verdict(paths[i], &v);
		else if (!v.allowed)
			print_refused_stderr(paths[i], &v);
	}
	return rc;
}

/* Every path of stdin, split at SEP, in one buffer (no trailing empty
 * record).  Returns the number of paths or -1. */
static ssize_t read_paths(char sep, char **bufp, char ***pathsp)
{
	size_t cap = 1 << 16, len = 0, n = 0, i, start;
	char *buf = malloc(cap);
	char **paths;

	if (!buf)
		return -1;
	for (;;) {
		size_t got;

		if (cap - len < 4096) {
			char *grown = realloc(buf, cap * 2);

			if (!grown)
				goto fail;
			buf = grown;
			cap *= 2;
		}
		got = fread(buf + len, 1, cap - len - 1, stdin);
		len += got;
		if (got == 0)
			break;
	}
	if (ferror(stdin))
		goto fail;
	if (len > 0 && buf[len - 1] != sep)
		buf[len++] = sep;
	for (i = 0; i < len; i++)
		if (buf[i] == sep)
			n++;
	paths = malloc((n ? n : 1) * sizeof(*paths));
	if (!paths)
		goto fail;
	for (i = 0, start = 0, n = 0; i < len; i++)
		if (buf[i] == sep) {
			buf[i] = '\0';
			paths[n++] = buf + start;
			start = i + 1;
		}
	*bufp = buf;
	*pathsp = paths;
	return (ssize_t)n;
fail:
	free(buf);
	return -1;
}

#define CHECK_CHUNK 8192

/* The paths as judged: each joined to the working directory's place
 * beneath the root (cli_workspace_path); PATHS itself when it is the root. */
static char **judged_paths(const struct cli_workspace *ws, char **paths, size_t n)
{
	char **out;
	size_t i;

	if (!ws->prefix)
		return paths;
	out = calloc(n ? n : 1, sizeof(*out));
	for (i = 0; out && i < n; i++)
		if (!(out[i] = cli_workspace_path(ws, paths[i])))
			return NULL;   /* no memory: the process exits */
	return out;
}

static void free_judged(char **judged, char **paths, size_t n)
{
	size_t i;

	if (judged == paths || !judged)
		return;
	for (i = 0; i < n; i++)
		free(judged[i]);
	free(judged);
}

static int check_stdin(const struct cli_workspace *ws, const struct check_opts *o)
{
	char *buf = NULL, **paths = NULL, **judged = NULL;
	ssize_t n = read_paths(o->nul ? '\0' : '\n', &buf, &paths);
	pg_root *root = ws->root;
	struct pg_verdict *v;
	size_t done;
	int rc = CLI_OK;

	if (n < 0) {
		perror("pathgate: reading paths from stdin");
		return CLI_USAGE;
	}
	v = calloc(CHECK_CHUNK, sizeof(*v));
	judged = judged_paths(ws, paths, (size_t)n);
	if (!v || !judged) {
		perror("pathgate");
		rc = CLI_USAGE;
		goto out;
	}
	for (done = 0; done < (size_t)n; done += CHECK_CHUNK) {
		size_t k = (size_t)n - done < CHECK_CHUNK ? (size_t)n - done : CHECK_CHUNK, i;
		ssize_t refused = pg_check_batch(root, (const char *const *)judged + done, k,
						 o->op, v, o->batch_flags);

		if (refused < 0) {
			cli_print_refusal(stderr, "check");
			rc = CLI_USAGE;
			goto out;
		}
		(void)refused;
		for (i = 0; i < k; i++) {
			if (needs_host(judged[done + i], o->op, &v[i]))
				check_one(root, judged[done + i], o->op, &v[i]);
			rc = worse(rc, &v[i]);
			if (o->json)
				print_json_verdict(paths[done + i], &v[i]);
			else
				print_line_verdict(paths[done + i], &v[i], o->nul ? '\0' : '\n');
		}
	}
out:
	free_judged(judged, paths, (size_t)n);
	free(v);
	free(paths);
	free(buf);
	return rc;
}

static int check_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "root", required_argument, NULL, CLI_OPT_ROOT },
		{ "policy", required_argument, NULL, CLI_OPT_POLICY },
		{ "op", required_argument, NULL, 'o' },
		{ "json", no_argument, NULL, 'j' },
		{ "no-uring", no_argument, NULL, 'U' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct cli_workspace ws = { 0 };
	struct check_opts o = { .op = PG_OP_READ };
	const char *env = getenv("PATHGATE_NO_URING");
	bool from_stdin = false;
	int c, rc;

	if (env && *env && strcmp(env, "0") != 0)
		o.batch_flags |= PG_BATCH_NO_URING;
	while ((c = getopt_long(argc, argv, "0h", longopts, NULL)) != -1) {
		if (cli_workspace_option(&ws, c, optarg))
			continue;
		switch (c) {
		case 'o':
			if (parse_op(optarg, &o.op) < 0) {
				fprintf(stderr, "pathgate: check: unknown --op '%s' (read, write, create, delete)\n", optarg);
				return cli_try("check");
			}
			break;
		case 'j': o.json = true; break;
		case '0': o.nul = true; break;
		case 'U': o.batch_flags |= PG_BATCH_NO_URING; break;
		case 'h': cli_help("check", stdout); return CLI_OK;
		default: return cli_try("check");
		}
	}
	if (optind >= argc) {
		fputs("pathgate: check: no PATH given (use '-' to read paths from stdin)\n", stderr);
		return cli_try("check");
	}
	if (strcmp(argv[optind], "-") == 0) {
		if (argc - optind != 1) {
			fputs("pathgate: check: '-' reads every path from stdin; give no other PATH\n", stderr);
			return cli_try("check");
		}
		from_stdin = true;
	} else if (o.nul) {
		fputs("pathgate: check: -0 applies to '-' (paths from stdin)\n", stderr);
		return cli_try("check");
	}
	rc = cli_workspace_open(&ws);
	if (rc == CLI_OK)
		rc = from_stdin ? check_stdin(&ws, &o)
				: check_args(&ws, &o, argv + optind, argc - optind);
	cli_workspace_close(&ws);
	if (fflush(stdout) != 0 && rc != CLI_USAGE) {
		perror("pathgate: writing verdicts");
		rc = CLI_USAGE;
	}
	return rc;
}

/* ---------------------------------------------------------------- policy */

static int policy_check_file(const char *file)
{
	pg_policy *p = pg_policy_new();
	int rc = CLI_OK;

	if (!p || pg_policy_load(p, file) < 0) {
		cli_print_policy_refusal(stderr, file);
		rc = CLI_USAGE;
	} else {
		printf("%s: %zu rules\n", file, pg_policy_rule_count(p));
	}
	pg_policy_free(p);
	return rc;
}

/* Convert, then parse what came out: never print a policy pathgate
 * itself would refuse. */
static int policy_from_srt(const char *file)
{
	char *text = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&text, &len);
	pg_policy *p = NULL;
	int rc = CLI_USAGE;

	if (!mem) {
		perror("pathgate");
		return CLI_USAGE;
	}
	if (srt_convert(file, mem, stderr) < 0) {
		fclose(mem);
		goto out;
	}
	if (fclose(mem) != 0) {
		perror("pathgate");
		goto out;
	}
	p = pg_policy_new();
	if (!p || pg_policy_parse(p, text, len) < 0) {
		cli_print_refusal(stderr, "the converted policy");
		goto out;
	}
	fwrite(text, 1, len, stdout);
	rc = fflush(stdout) == 0 ? CLI_OK : CLI_USAGE;
out:
	pg_policy_free(p);
	free(text);
	return rc;
}

static int policy_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "default", no_argument, NULL, 'd' },
		{ "from-srt", required_argument, NULL, 's' },
		{ "check", required_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *srt = NULL, *check = NULL;
	bool dflt = false;
	int c;

	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case 'd': dflt = true; break;
		case 's': srt = optarg; break;
		case 'c': check = optarg; break;
		case 'h': cli_help("policy", stdout); return CLI_OK;
		default: return cli_try("policy");
		}
	}
	if (optind != argc || (dflt + !!srt + !!check) != 1) {
		fputs("pathgate: policy: give exactly one of --default, --from-srt FILE, --check FILE\n", stderr);
		return cli_try("policy");
	}
	if (dflt) {
		fputs(pg_policy_default_text(), stdout);
		return fflush(stdout) == 0 ? CLI_OK : CLI_USAGE;
	}
	if (check)
		return policy_check_file(check);
	return policy_from_srt(srt);
}

/* ------------------------------------------------------------------ main */

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		int (*fn)(int, char **);
	} commands[] = {
		{ "check", check_main },
		{ "explain", explain_main },
		{ "plan", plan_main },
		{ "run", run_main },
		{ "policy", policy_main },
	};
	size_t i;

	if (argc < 2) {
		usage(stderr);
		return CLI_USAGE;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
	    strcmp(argv[1], "help") == 0) {
		usage(stdout);
		return CLI_OK;
	}
	if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "-V") == 0) {
		printf("pathgate %s\n", PACKAGE_VERSION);
		return CLI_OK;
	}
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (strcmp(argv[1], commands[i].name) == 0) {
			static char prog[32];

			/* getopt starts again at the subcommand's own arguments,
			 * and names them "pathgate CMD" in its messages */
			optind = 1;
			snprintf(prog, sizeof(prog), "pathgate %s", commands[i].name);
			argv[1] = prog;
			return commands[i].fn(argc - 1, argv + 1);
		}
	fprintf(stderr, "pathgate: unknown command '%s' (check, explain, plan, run, policy)\n"
		"Try 'pathgate --help'.\n", argv[1]);
	return CLI_USAGE;
}
