/* cli.h - what the pieces of the pathgate command share: the workspace a
 * subcommand acts on (root directory, the policy and where it came from)
 * and the output helpers.  Exit codes: 0 success, 1 refused, 2 usage or
 * policy error; `run` adds the codes of run_main. */
#ifndef PG_CLI_H
#define PG_CLI_H

#include <stdbool.h>
#include <stdio.h>

#include "pathgate.h"

#define CLI_OK        0
#define CLI_REFUSED   1
#define CLI_USAGE     2
/* pathgate check: a path failed with a plain error (it does not exist,
 * a component is not a directory) and none was refused. */
#define CLI_ERROR     3
/* pathgate run: the envelope cannot be built on this host. */
#define CLI_SANDBOX   125
#define CLI_NOEXEC    126
#define CLI_NOTFOUND  127

struct cli_workspace {
	const char *root_dir;    /* --root; else the nearest directory upward with a .pathgate, else "." */
	char       *found;       /* that directory, owned */
	char       *prefix;      /* the working directory beneath the root, "" or ending in '/', owned */
	const char *policy_file; /* --policy, or NULL */
	char       *source;      /* absolute path of the policy file used; NULL: the embedded default */
	pg_policy  *policy;
	pg_root    *root;
};

/* Load the policy (--policy FILE, else ROOT/.pathgate, else the embedded
 * default) and open the root.  Prints what went wrong; returns CLI_OK or
 * CLI_USAGE. */
int  cli_workspace_open(struct cli_workspace *ws);
/* pathgate run and plan: the policy files a later launch loads become
 * final read rules of the workspace's policy, and the root is opened
 * again under it (cli-run.c).  CLI_OK or CLI_USAGE. */
int  cli_guard_policy_files(struct cli_workspace *ws);
void cli_workspace_close(struct cli_workspace *ws);
/* PATH as the user meant it: a relative PATH is relative to the working
 * directory, which may lie beneath a root found upward.  Malloc'd. */
char *cli_workspace_path(const struct cli_workspace *ws, const char *path);

/* The refusal of the last library call, as "name: rule" for messages. */
void cli_print_refusal(FILE *out, const char *what);
/* The same, after every error of a policy that did not parse
 * (pg_policy_errors: "FILE:LINE: message" each). */
void cli_print_policy_refusal(FILE *out, const char *what);
/* True when the last library call refused because no envelope can be
 * built here (exec.sandbox-unavailable): run and plan exit 125. */
bool cli_sandbox_refused(void);

/* S as a JSON string (quotes included).  Bytes that are not UTF-8 are
 * written as \u00XX escapes so the output is always valid JSON. */
void cli_json_string(FILE *out, const char *s);
/* A verdict's fields (",\"allowed\":..., \"rule\":...") after an object's
 * first field, as check --json writes them. */
struct pg_verdict;
void cli_json_verdict_fields(FILE *out, const struct pg_verdict *v);

/* The subcommands other than check and policy, each in its own file. */
int explain_main(int argc, char **argv);
int plan_main(int argc, char **argv);
int run_main(int argc, char **argv);
/* --envelope=auto|bwrap|landlock into pg_plan_build's FLAGS; -1 (and a
 * message) for another word. */
int cli_envelope_flags(const char *word, unsigned *flags);

/* Common options of every workspace subcommand: returns true when OPT
 * (a getopt_long value) was one of them. */
#define CLI_OPT_ROOT   0x100
#define CLI_OPT_POLICY 0x101
bool cli_workspace_option(struct cli_workspace *ws, int opt, const char *arg);

extern const char cli_usage_text[];
/* CMD's part of the usage text (pathgate CMD --help). */
void cli_help(const char *cmd, FILE *out);
/* "Try 'pathgate CMD --help'." on stderr, after a usage error's message;
 * returns CLI_USAGE. */
int cli_try(const char *cmd);

#endif
