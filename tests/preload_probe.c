/* preload_probe.c - a program that does what the shell and python cannot
 * do on demand, for test_preload.sh to run under the preload:
 *
 *   vfork-exec PATH        vfork, then execv /bin/cat PATH in the child
 *   spawn-empty-env PATH   posix_spawn /bin/cat PATH with an empty envp
 *   clobber-fds            dup2 over every fd from 3 to 1000 (the guard's
 *                          root fd among them), then close every fd from 3
 *                          to 1023; after each, file.txt must open and .env
 *                          be refused
 *   threads                8 threads, each 500 times: open .env (refused),
 *                          open file.txt (works), stat both
 *
 * Exit 0 when every expectation held; the child's status for the
 * exec cases. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static int child_status(pid_t pid)
{
	int status;

	if (waitpid(pid, &status, 0) < 0)
		return 99;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static int vfork_exec(const char *path)
{
	char *argv[] = { "cat", (char *)path, NULL };
	pid_t pid = vfork();

	if (pid < 0)
		return 99;
	if (pid == 0) {
		execv("/bin/cat", argv);
		_exit(127);
	}
	return child_status(pid);
}

static int spawn_empty_env(const char *path)
{
	char *argv[] = { "cat", (char *)path, NULL };
	char *envp[] = { NULL };
	pid_t pid;

	if (posix_spawn(&pid, "/bin/cat", NULL, NULL, argv, envp) != 0)
		return 99;
	return child_status(pid);
}

/* 0 when FILE opens, or when it is refused with EACCES and SHOULD_FAIL. */
static int expect_open(const char *file, int should_fail)
{
	int fd = open(file, O_RDONLY | O_CLOEXEC);

	if (fd >= 0) {
		close(fd);
		return should_fail ? -1 : 0;
	}
	return should_fail && errno == EACCES ? 0 : -1;
}

static int clobber_fds(void)
{
	int fd;

	/* Leave a few numbers free: the guard needs one to open the root
	 * again (the preload keeps its fd at 1000 or below). */
	for (fd = 3; fd <= 1000; fd++)
		dup2(STDERR_FILENO, fd);
	if (expect_open("file.txt", 0) < 0 || expect_open(".env", 1) < 0)
		return 1;
	for (fd = 3; fd < 1024; fd++)
		close(fd);
	if (expect_open("file.txt", 0) < 0 || expect_open(".env", 1) < 0)
		return 2;
	return 0;
}

static void *hammer(void *arg)
{
	struct stat st;
	int i;

	for (i = 0; i < 500; i++) {
		if (expect_open(".env", 1) < 0 || expect_open("file.txt", 0) < 0 ||
		    stat("file.txt", &st) < 0 || stat(".env", &st) == 0 || errno != EACCES) {
			*(int *)arg = 1;
			break;
		}
	}
	return NULL;
}

static int threads(void)
{
	pthread_t t[8];
	int failed[8] = { 0 }, i, rc = 0;

	for (i = 0; i < 8; i++)
		if (pthread_create(&t[i], NULL, hammer, &failed[i]) != 0)
			return 99;
	for (i = 0; i < 8; i++) {
		pthread_join(t[i], NULL);
		rc |= failed[i];
	}
	return rc;
}

int main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "vfork-exec") == 0)
		return vfork_exec(argv[2]);
	if (argc == 3 && strcmp(argv[1], "spawn-empty-env") == 0)
		return spawn_empty_env(argv[2]);
	if (argc == 2 && strcmp(argv[1], "clobber-fds") == 0)
		return clobber_fds();
	if (argc == 2 && strcmp(argv[1], "threads") == 0)
		return threads();
	fprintf(stderr, "usage: preload_probe vfork-exec PATH | spawn-empty-env PATH | clobber-fds | threads\n");
	return 2;
}
