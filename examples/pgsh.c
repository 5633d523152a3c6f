/* pgsh.c - a tiny line-oriented shell whose every file operation goes
 * through libpathgate, and whose `run` starts a command in the envelope.
 *
 *   pgsh [--root DIR] [--policy FILE] < script
 *
 * Without --policy, DIR/.pathgate is the policy when it exists, else
 * "write .".
 * Builtins: cat PATH | ls [PATH] | write PATH TEXT... | rm PATH |
 * mv FROM TO | mkdir PATH | run CMD [ARG]... | help | exit.
 * A refused command prints the refusal and the shell goes on; the exit
 * status is 1 when any command failed. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <pathgate.h>

#define MAX_WORDS 64

static int failed(const char *cmd, const char *arg)
{
	const struct pg_refusal *r = pg_last_refusal();

	if (r->name)
		fprintf(stderr, "pgsh: %s %s: %s%s%s\n", cmd, arg, r->name,
			r->rule && *r->rule ? ": " : "", r->rule ? r->rule : "");
	else
		fprintf(stderr, "pgsh: %s %s: %s\n", cmd, arg, strerror(errno));
	return 1;
}

static int do_cat(pg_root *root, const char *path)
{
	char buf[8192];
	ssize_t n;
	int fd = pg_open(root, path, O_RDONLY, 0);

	if (fd < 0)
		return failed("cat", path);
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		fwrite(buf, 1, (size_t)n, stdout);
	close(fd);
	return n < 0 ? failed("cat", path) : 0;
}

static int do_ls(pg_root *root, const char *path)
{
	struct dirent *e;
	DIR *d = pg_opendir(root, path);

	if (!d)
		return failed("ls", path);
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
			printf("%s\n", e->d_name);
	closedir(d);
	return 0;
}

static int do_write(pg_root *root, const char *path, const char *text)
{
	size_t len = strlen(text);
	char *line = malloc(len + 2);
	int rc;

	if (!line)
		return failed("write", path);
	memcpy(line, text, len);
	line[len] = '\n';
	rc = pg_write_file(root, path, line, len + 1, 0644);
	free(line);
	return rc < 0 ? failed("write", path) : 0;
}

static int do_run(pg_root *root, char **argv)
{
	extern char **environ;
	pid_t pid;
	int status, err;

	fflush(stdout);
	/* pg_spawn answers like posix_spawn: 0, or an error number. */
	err = pg_spawn(&pid, root, argv[0], NULL, NULL, argv, environ);
	if (err != 0) {
		errno = err;
		return failed("run", argv[0]);
	}
	if (waitpid(pid, &status, 0) < 0)
		return failed("run", argv[0]);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		fprintf(stderr, "pgsh: run %s: exit status %d\n", argv[0],
			WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
		return 1;
	}
	return 0;
}

/* Split LINE at blanks into WORDS; returns the count.  *REST points at
 * what follows the second word (write's text). */
static int split(char *line, char **words, char **rest)
{
	int n = 0;
	char *p = line;

	*rest = NULL;
	while (*p && n < MAX_WORDS - 1) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p)
			break;
		if (n == 2)
			*rest = p;
		words[n++] = p;
		while (*p && *p != ' ' && *p != '\t')
			p++;
		if (*p)
			*p++ = '\0';
	}
	words[n] = NULL;
	return n;
}

static int run_line(pg_root *root, char *line)
{
	char *w[MAX_WORDS], *rest, *copy = strdup(line);
	int n, rc = 0;

	if (!copy)
		return 1;
	n = split(line, w, &rest);
	if (n == 0 || w[0][0] == '#')
		goto out;
	/* write keeps its text as written, blanks and all */
	if (strcmp(w[0], "write") == 0 && n >= 3)
		rest = copy + (rest - line);
	if (strcmp(w[0], "cat") == 0 && n == 2)
		rc = do_cat(root, w[1]);
	else if (strcmp(w[0], "ls") == 0 && n <= 2)
		rc = do_ls(root, n == 2 ? w[1] : ".");
	else if (strcmp(w[0], "write") == 0 && n >= 3)
		rc = do_write(root, w[1], rest);
	else if (strcmp(w[0], "rm") == 0 && n == 2)
		rc = pg_unlink(root, w[1]) < 0 ? failed("rm", w[1]) : 0;
	else if (strcmp(w[0], "mv") == 0 && n == 3)
		rc = pg_rename(root, w[1], w[2], 0) < 0 ? failed("mv", w[1]) : 0;
	else if (strcmp(w[0], "mkdir") == 0 && n == 2)
		rc = pg_mkdir_all(root, w[1], 0755) < 0 ? failed("mkdir", w[1]) : 0;
	else if (strcmp(w[0], "run") == 0 && n >= 2)
		rc = do_run(root, w + 1);
	else if (strcmp(w[0], "help") == 0)
		puts("cat PATH | ls [PATH] | write PATH TEXT | rm PATH | mv FROM TO | mkdir PATH | run CMD ARG... | exit");
	else {
		fprintf(stderr, "pgsh: %s: unknown command or wrong arguments (try help)\n", w[0]);
		rc = 1;
	}
out:
	free(copy);
	return rc;
}

int main(int argc, char **argv)
{
	const char *dir = ".", *policy_file = NULL;
	pg_policy *policy = NULL;
	pg_root *root;
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	int i, status = 0;

	for (i = 1; i + 1 < argc; i += 2) {
		if (strcmp(argv[i], "--root") == 0)
			dir = argv[i + 1];
		else if (strcmp(argv[i], "--policy") == 0)
			policy_file = argv[i + 1];
		else
			break;
	}
	if (i != argc) {
		fputs("usage: pgsh [--root DIR] [--policy FILE] < script\n", stderr);
		return 2;
	}
	/* Like pathgate(1): without --policy, the root's own .pathgate. */
	if (!policy_file) {
		static char own[4096];

		snprintf(own, sizeof(own), "%s/.pathgate", dir);
		if (access(own, R_OK) == 0)
			policy_file = own;
	}
	if (policy_file) {
		policy = pg_policy_new();
		if (!policy || pg_policy_load(policy, policy_file) < 0)
			return failed("policy", policy_file) + 1;
	}
	root = pg_root_open(dir, policy, 0);
	pg_policy_free(policy);
	if (!root)
		return failed("root", dir) + 1;
	while ((len = getline(&line, &cap, stdin)) > 0) {
		if (line[len - 1] == '\n')
			line[len - 1] = '\0';
		if (strcmp(line, "exit") == 0)
			break;
		status |= run_line(root, line);
		fflush(stdout);
	}
	free(line);
	pg_root_close(root);
	return status;
}
