/* spawn-report.c - the requested-versus-applied report of a plan or a
 * launch, as JSON, kept per thread: see spawn-report.h. */
#include "config.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bwrap-probe.h"
#include "envelope-plan.h"
#include "landlock.h"
#include "landlock-abi.h"
#include "spawn-report.h"

struct sbuf {
	char  *s;
	size_t len, cap;
	bool   oom;
};

static void sb_putn(struct sbuf *b, const char *s, size_t n)
{
	if (b->oom)
		return;
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 1024;
		char *ns;

		while (b->len + n + 1 > cap)
			cap *= 2;
		ns = realloc(b->s, cap);
		if (!ns) {
			b->oom = true;
			return;
		}
		b->s = ns;
		b->cap = cap;
	}
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
}

static void sb_puts(struct sbuf *b, const char *s)
{
	sb_putn(b, s, strlen(s));
}

static void sb_printf(struct sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_printf(struct sbuf *b, const char *fmt, ...)
{
	char tmp[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	sb_puts(b, tmp);
}

static void sb_json(struct sbuf *b, const char *s)
{
	sb_putn(b, "\"", 1);
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\') {
			sb_putn(b, "\\", 1);
			sb_putn(b, s, 1);
		} else if (c < 0x20) {
			sb_printf(b, "\\u%04x", c);
		} else {
			sb_putn(b, s, 1);
		}
	}
	sb_putn(b, "\"", 1);
}

static void sb_notes(struct sbuf *b, const char *key, const struct pg_seam *arr, size_t n)
{
	sb_printf(b, ",\n  \"%s\": [", key);
	for (size_t i = 0; i < n; i++) {
		sb_puts(b, i ? ",\n    {\"path\": " : "\n    {\"path\": ");
		sb_json(b, arr[i].path);
		sb_puts(b, ", \"rule\": ");
		sb_json(b, arr[i].rule);
		sb_puts(b, ", \"why\": ");
		sb_json(b, arr[i].why);
		sb_puts(b, "}");
	}
	sb_puts(b, n ? "\n  ]" : "]");
}

/* This thread's last report, freed with the thread. */
static pthread_key_t report_key;
static pthread_once_t report_once = PTHREAD_ONCE_INIT;

static void report_key_make(void)
{
	pthread_key_create(&report_key, free);
}

static void set_report(char *r)
{
	pthread_once(&report_once, report_key_make);
	free(pthread_getspecific(report_key));
	pthread_setspecific(report_key, r);
}

const char *pg_spawn_report(void)
{
	pthread_once(&report_once, report_key_make);
	return pthread_getspecific(report_key);
}

/* ------------------------------------------------ the Landlock section */

static void sb_bits(struct sbuf *b, const char *key, uint64_t bits,
		    const char *const *names, size_t n)
{
	bool first = true;

	sb_printf(b, "\"%s\": [", key);
	for (size_t i = 0; i < n; i++)
		if (bits & (1ULL << i)) {
			sb_puts(b, first ? "" : ", ");
			sb_json(b, names[i]);
			first = false;
		}
	sb_puts(b, "]");
}

static const char *const FS_NAMES[] = {
	"execute", "write_file", "read_file", "read_dir", "remove_dir", "remove_file",
	"make_char", "make_dir", "make_reg", "make_sock", "make_fifo", "make_block",
	"make_sym", "refer", "truncate", "ioctl_dev",
};
static const char *const NET_NAMES[] = { "bind_tcp", "connect_tcp" };
static const char *const SCOPE_NAMES[] = { "abstract_unix_socket", "signal" };

static bool has_note(const struct pg_seam *arr, size_t n, const char *rule, const char *prefix,
		     bool want_prefix)
{
	for (size_t i = 0; i < n; i++)
		if (arr[i].rule && !strcmp(arr[i].rule, rule) &&
		    (strncmp(arr[i].why, prefix, strlen(prefix)) == 0) == want_prefix)
			return true;
	return false;
}

/* What the Landlock envelope did with each requested rule. */
static void sb_rule_status(struct sbuf *b, const pg_plan *pl, const struct pg_landlock *ll,
			   const char *rule)
{
	size_t grants = 0, masks = 0;
	bool first = true;

	for (size_t i = 0; i < ll->ngrants; i++)
		grants += !strcmp(ll->grants[i].rule, rule);
	for (size_t i = 0; i < pl->nmounts; i++)
		masks += (pl->mounts[i].kind == MK_MASK_DIR || pl->mounts[i].kind == MK_MASK_FILE) &&
			 !strcmp(pl->mounts[i].rule, rule);
	sb_puts(b, "\n    {\"rule\": ");
	sb_json(b, rule);
	sb_puts(b, ", \"applied\": [");
#define STATUS(cond, text) do { if (cond) { sb_puts(b, first ? "" : ", "); sb_json(b, text); first = false; } } while (0)
	STATUS(grants, "landlock: granted");
	STATUS(masks, "landlock: nothing granted there (denied)");
	STATUS(has_note(pl->pub_seams, pl->nseams, rule, "landlock: granted entry by entry", true),
	       "landlock: held narrower: some of its directories are granted entry by entry, for narrower rules beneath (see seams)");
	STATUS(has_note(pl->pub_seams, pl->nseams, rule, "landlock, weaker", true),
	       "landlock: weaker than bwrap (see seams)");
	STATUS(has_note(pl->pub_seams, pl->nseams, rule, "landlock", false),
	       "held in process only (see seams)");
	STATUS(first && has_note(pl->pub_skips, pl->nskips, rule, "", true), "nothing to lay (see skipped)");
	STATUS(first, "not held by landlock: nothing in the plan");
#undef STATUS
	sb_puts(b, "]}");
}

static void sb_landlock(struct sbuf *b, const pg_plan *pl)
{
	const struct pg_landlock *ll = pl->landlock;

	sb_printf(b, ",\n  \"landlock\": {\"abi\": %d, \"available\": %s, \"why\": ", ll->abi,
		  ll->why ? "false" : "true");
	if (ll->why)
		sb_json(b, ll->why);
	else
		sb_puts(b, "null");
	sb_puts(b, ", \"chosen\": ");
	sb_json(b, ll->chosen);
	sb_printf(b, ", \"accept_weaker\": %s, \"weaker\": %zu, \"splits\": %zu,\n   ",
		  ll->accept_weaker ? "true" : "false", ll->nweaker, ll->nsplits);
	sb_bits(b, "handled_access_fs", ll->handled_fs, FS_NAMES, 16);
	sb_puts(b, ",\n   ");
	sb_bits(b, "handled_access_net", ll->handled_net, NET_NAMES, 2);
	sb_puts(b, ", ");
	sb_bits(b, "scoped", ll->scoped, SCOPE_NAMES, 2);
	sb_puts(b, ", \"no_new_privs\": true, \"capabilities\": \"all dropped\",\n   \"grants\": [");
	for (size_t i = 0; i < ll->ngrants; i++) {
		sb_puts(b, i ? ",\n    {\"path\": " : "\n    {\"path\": ");
		sb_json(b, ll->grants[i].path);
		sb_puts(b, ", \"access\": ");
		sb_json(b, ll->grants[i].text);
		sb_puts(b, ", \"rule\": ");
		sb_json(b, ll->grants[i].rule);
		sb_puts(b, ", \"why\": ");
		sb_json(b, ll->grants[i].why);
		sb_puts(b, "}");
	}
	sb_puts(b, "],\n   \"rules\": [");
	for (size_t i = 0; i < pl->nrequested; i++) {
		sb_puts(b, i ? "," : "");
		sb_rule_status(b, pl, ll, pl->requested[i]);
	}
	sb_puts(b, "]}");
}

static void sb_seccomp(struct sbuf *b, const pg_plan *pl, bool applied)
{
	if (!pl->landlock) {
		sb_puts(b, ",\n  \"seccomp\": {\"requested\": [\"io_uring_setup\", \"io_uring_enter\", \"io_uring_register\", \"socket(AF_UNIX)\", \"socketpair(AF_UNIX, not SOCK_STREAM)\"], \"applied\": ");
	} else {
		sb_puts(b, ",\n  \"seccomp\": {\"requested\": [");
		for (size_t i = 0; pg_landlock_seccomp_names[i]; i++) {
			sb_puts(b, i ? ", " : "");
			sb_json(b, pg_landlock_seccomp_names[i]);
		}
		sb_puts(b, ", \"socketpair(AF_UNIX, not SOCK_STREAM)\", \"ioctl(TIOCSTI)\", \"ioctl(FS_IOC_SETFLAGS)\", \"ioctl(FS_IOC_FSSETXATTR)\"], \"applied\": ");
	}
	sb_puts(b, applied ? "true" : "false");
	sb_puts(b, "}");
}

void pg_spawn_report_write(const pg_plan *pl, int launched, bool seccomp,
			  const char *refusal, char *const envp_names[])
{
	const char *why = pg_envelope_unavailable();
	struct sbuf b = { 0 };
	char version[32];

	pg_bwrap_version(version, sizeof(version));

	sb_puts(&b, "{\n  \"envelope\": ");
	sb_puts(&b, pl->landlock ? "\"landlock\"" : "\"bwrap\"");
	sb_puts(&b, ",\n  \"bwrap\": {\"path\": ");
	sb_json(&b, pl->bwrap);
	sb_puts(&b, ", \"version\": ");
	if (version[0])
		sb_json(&b, version);
	else
		sb_puts(&b, "null");
	sb_puts(&b, ", \"available\": ");
	sb_puts(&b, why ? "false" : "true");
	sb_puts(&b, ", \"masks_read_only\": ");
	sb_puts(&b, pl->masks_read_only ? "true" : "false");
	sb_puts(&b, "},\n  \"root\": ");
	sb_json(&b, pl->root);
	sb_puts(&b, ",\n  \"launched\": ");
	sb_puts(&b, launched > 0 ? "true" : "false");
	sb_puts(&b, ",\n  \"refusal\": ");
	if (refusal)
		sb_json(&b, refusal);
	else
		sb_puts(&b, "null");
	sb_puts(&b, ",\n  \"requested\": [");
	for (size_t i = 0; i < pl->nrequested; i++) {
		sb_puts(&b, i ? ", " : "");
		sb_json(&b, pl->requested[i]);
	}
	sb_puts(&b, "],\n  \"mounts\": [");
	for (size_t i = 0; i < pl->norder; i++) {
		const struct pg_mount *m = &pl->pub_mounts[i];

		sb_puts(&b, i ? ",\n    {\"op\": " : "\n    {\"op\": ");
		sb_json(&b, m->op);
		sb_puts(&b, ", \"src\": ");
		if (m->src)
			sb_json(&b, m->src);
		else
			sb_puts(&b, "null");
		sb_puts(&b, ", \"dest\": ");
		sb_json(&b, m->dest);
		sb_puts(&b, ", \"rule\": ");
		sb_json(&b, m->rule);
		sb_puts(&b, ", \"why\": ");
		sb_json(&b, m->why);
		sb_puts(&b, "}");
	}
	sb_puts(&b, pl->norder ? "\n  ]" : "]");
	sb_notes(&b, "skipped", pl->pub_skips, pl->nskips);
	sb_notes(&b, "seams", pl->pub_seams, pl->nseams);
	sb_printf(&b, ",\n  \"glob_walk\": {\"max_depth\": %u, \"max_entries\": %u, \"entries\": %u, \"limit_hit\": %s}",
		  pl->glob_max_depth, pl->glob_max_entries, pl->glob_entries,
		  pl->glob_depth_hit || pl->glob_count_hit ? "true" : "false");
	if (pl->landlock)
		sb_landlock(&b, pl);
	sb_seccomp(&b, pl, seccomp);
	sb_puts(&b, ",\n  \"environment\": [\"PATH\", \"LANG\", \"TERM\", \"HOME\"");
	for (size_t i = 0; envp_names && envp_names[i]; i++) {
		const char *eq = strchr(envp_names[i], '=');

		if (!eq)
			continue;
		sb_puts(&b, ", ");
		{
			char name[256];
			size_t n = (size_t)(eq - envp_names[i]);

			snprintf(name, sizeof(name), "%.*s", (int)(n < 255 ? n : 255), envp_names[i]);
			sb_json(&b, name);
		}
	}
	sb_puts(&b, "]\n}\n");
	if (b.oom) {
		free(b.s);
		b.s = NULL;
	}
	set_report(b.s);
}

void pg_envelope_report_plan(const pg_plan *plan)
{
	pg_spawn_report_write(plan, -1, false, NULL, NULL);
}
