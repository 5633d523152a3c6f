/* hello-pathgate.c - a small tour of libpathgate, as a user links it:
 *
 *     cc hello-pathgate.c $(pkg-config --cflags --libs pathgate)
 *
 * It makes a throw-away workspace, opens it as a root under a small
 * policy, and shows which operations the library allows and which it
 * refuses, with the refusal's name and the rule that decided.  `make demo`
 * builds and runs it against the library in the build tree. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <pathgate.h>

static const char policy_text[] =
	"write .            # the workspace\n"
	"read  .git         # read-only inside it\n"
	"read  .git/hooks   # pins .git: it cannot be moved away\n"
	"deny  .env         # denied, even while it does not exist\n"
	"deny  **/*.pem     # at any depth\n"
	"deny  docs/private # pins docs\n";

/* Print one line: what was tried, and what the library said. */
static void report(const char *what, long rc)
{
	const struct pg_refusal *r = pg_last_refusal();

	if (rc >= 0)
		printf("  allowed  %-44s\n", what);
	else if (r->name)
		printf("  refused  %-44s %s (%s): %s\n", what, r->name, strerror(r->err),
		       r->rule && r->rule[0] ? r->rule : "");
	else
		printf("  failed   %-44s %s\n", what, strerror(errno));
}

static int make_tree(const char *ws)
{
	char p[4096];
	FILE *f;

	snprintf(p, sizeof(p), "%s/.git", ws);
	if (mkdir(p, 0755) < 0)
		return -1;
	snprintf(p, sizeof(p), "%s/.git/hooks", ws);
	if (mkdir(p, 0755) < 0)
		return -1;
	snprintf(p, sizeof(p), "%s/.git/config", ws);
	f = fopen(p, "w");
	if (!f)
		return -1;
	fputs("[core]\n", f);
	fclose(f);
	snprintf(p, sizeof(p), "%s/docs", ws);
	if (mkdir(p, 0755) < 0)
		return -1;
	/* A symlink planted to lead out of the workspace. */
	snprintf(p, sizeof(p), "%s/etc-link", ws);
	return symlink("/etc", p);
}

/* The demo made the tree; it removes it with plain calls (the policy
 * would rightly refuse some of this). */
static void cleanup(const char *ws)
{
	static const char *const files[] = {
		"docs/notes.txt", "docs/copy.txt", "etc-link", ".git/config",
	};
	static const char *const dirs[] = { "docs/drafts", "docs", ".git/hooks", ".git" };
	char p[4096];

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(p, sizeof(p), "%s/%s", ws, files[i]);
		unlink(p);
	}
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		snprintf(p, sizeof(p), "%s/%s", ws, dirs[i]);
		rmdir(p);
	}
	rmdir(ws);
}

int main(void)
{
	char ws[] = "/tmp/pathgate-demo-XXXXXX";
	pg_policy *policy;
	pg_root *root;
	struct stat st;
	char buf[64];
	int fd;

	if (!mkdtemp(ws) || make_tree(ws) < 0) {
		perror("pathgate demo: workspace");
		return 1;
	}
	policy = pg_policy_new();
	if (!policy || pg_policy_parse(policy, policy_text, strlen(policy_text)) < 0) {
		fprintf(stderr, "pathgate demo: policy: %s\n", pg_last_refusal()->rule);
		return 1;
	}
	root = pg_root_open(ws, policy, 0);
	pg_policy_free(policy);
	if (!root) {
		perror("pathgate demo: root");
		return 1;
	}
	printf("pathgate demo: workspace %s (%s)\npolicy:\n%s\n", pg_root_path(root),
	       pg_root_uses_openat2(root) ? "openat2" : "O_PATH walk", policy_text);

	report("write_file docs/notes.txt (atomic)",
	       pg_write_file(root, "docs/notes.txt", "hello\n", 6, 0644));
	fd = pg_open(root, "docs/./notes.txt", O_RDONLY | O_CLOEXEC, 0);
	report("open docs/./notes.txt", fd);
	if (fd >= 0) {
		ssize_t n = read(fd, buf, sizeof(buf) - 1);

		buf[n > 0 ? n : 0] = '\0';
		close(fd);
	}
	report("mkdir_all docs/drafts", pg_mkdir_all(root, "docs/drafts", 0755));
	report("link docs/notes.txt -> docs/copy.txt", pg_link(root, "docs/notes.txt", "docs/copy.txt"));
	report("stat .git/config", pg_stat(root, ".git/config", &st, 0));
	printf("\n");
	report("open .env (absent, denied)", pg_open(root, ".env", O_WRONLY | O_CREAT, 0600));
	report("open .ENV (another spelling)", pg_open(root, ".ENV", O_WRONLY | O_CREAT, 0600));
	report("rename docs/notes.txt -> docs/../.env", pg_rename(root, "docs/notes.txt", "docs/../.env", 0));
	report("write_file docs/drafts/server.pem", pg_write_file(root, "docs/drafts/server.pem", "k", 1, 0600));
	report("open ../etc/passwd", pg_open(root, "../etc/passwd", O_RDONLY, 0));
	report("open /etc/passwd", pg_open(root, "/etc/passwd", O_RDONLY, 0));
	report("open etc-link/passwd (symlink out)", pg_open(root, "etc-link/passwd", O_RDONLY, 0));
	report("write_file .git/config", pg_write_file(root, ".git/config", "x", 1, 0644));
	report("chmod .git/config", pg_chmod(root, ".git/config", 0777));
	report("rename .git -> old-git", pg_rename(root, ".git", "old-git", 0));
	report("rename docs -> old-docs", pg_rename(root, "docs", "old-docs", 0));
	pg_root_set_write_limit(root, 4);
	report("write_file docs/big.txt (over a 4-byte bound)", pg_write_file(root, "docs/big.txt", "12345", 5, 0644));

	pg_root_close(root);
	cleanup(ws);
	return 0;
}
