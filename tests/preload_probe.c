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
 *   call NAME PATH         make the one path-taking libc call NAME on PATH
 *                          (preload-more.c's calls): exit 0 when it works,
 *                          else 1 after perror(NAME)
 *
 * Exit 0 when every expectation held; the child's status for the
 * exec cases. */
#include "config.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fts.h>
#include <ftw.h>
#include <fcntl.h>
#include <pthread.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/ipc.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
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

static int walk_entry(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)path, (void)st, (void)type, (void)ftw;
	return 0;
}

static int ftw_entry(const char *path, const struct stat *st, int type)
{
	(void)path, (void)st, (void)type;
	return 0;
}

/* A temporary name made from PATH (a template), removed again. */
static int temp_call(const char *name, const char *path)
{
	char tmpl[4096];
	int fd = -1;

	snprintf(tmpl, sizeof tmpl, "%s", path);
	if (strcmp(name, "mkstemp") == 0)
		fd = mkstemp(tmpl);
	else if (strcmp(name, "mkostemp") == 0)
		fd = mkostemp(tmpl, O_CLOEXEC);
	else if (strcmp(name, "mkstemps") == 0)
		fd = mkstemps(tmpl, 4);
	else if (strcmp(name, "mkostemps") == 0)
		fd = mkostemps(tmpl, 4, O_CLOEXEC);
	else if (strcmp(name, "mkdtemp") == 0)
		return mkdtemp(tmpl) && rmdir(tmpl) == 0 ? 0 : -1;
	if (fd < 0)
		return -1;
	close(fd);
	return unlink(tmpl);
}

static int fts_walk(const char *path)
{
	char *argv[] = { (char *)path, NULL };
	FTS *fts = fts_open(argv, FTS_PHYSICAL, NULL);

	if (!fts)
		return -1;
	while (fts_read(fts))
		;
	return fts_close(fts);
}

static int one_call(const char *name, const char *path)
{
	struct statfs sfs;
	struct statvfs svfs;
	struct dirent **list;
	char *p;
	int fd, n;

	if (strncmp(name, "mk", 2) == 0)
		return temp_call(name, path);
	if (strcmp(name, "statfs") == 0)
		return statfs(path, &sfs);
	if (strcmp(name, "statvfs") == 0)
		return statvfs(path, &svfs);
	if (strcmp(name, "ftok") == 0)
		return ftok(path, 1) == (key_t)-1 ? -1 : 0;
	if (strcmp(name, "pathconf") == 0)
		return pathconf(path, _PC_NAME_MAX) < 0 ? -1 : 0;
	if (strcmp(name, "inotify_add_watch") == 0) {
		fd = inotify_init1(IN_CLOEXEC);
		n = inotify_add_watch(fd, path, IN_ALL_EVENTS);
		close(fd);
		return n < 0 ? -1 : 0;
	}
	if (strcmp(name, "dlopen") == 0)
		return dlopen(path, RTLD_NOW) ? 0 : (fprintf(stderr, "%s\n", dlerror()), -1);
	if (strcmp(name, "realpath") == 0 || strcmp(name, "canonicalize_file_name") == 0) {
		p = name[0] == 'r' ? realpath(path, NULL) : canonicalize_file_name(path);
		free(p);
		return p ? 0 : -1;
	}
	if (strcmp(name, "nftw") == 0)
		return nftw(path, walk_entry, 8, FTW_PHYS);
	if (strcmp(name, "ftw") == 0)
		return ftw(path, ftw_entry, 8);
	if (strcmp(name, "fts_open") == 0)
		return fts_walk(path);
	if (strcmp(name, "scandirat") == 0) {
		n = scandirat(AT_FDCWD, path, &list, NULL, alphasort);
		while (n > 0)
			free(list[--n]);
		return n < 0 ? -1 : (free(list), 0);
	}
	if (strcmp(name, "remove") == 0)
		return remove(path);
	errno = ENOSYS;
	return -1;
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
	if (argc == 4 && strcmp(argv[1], "call") == 0) {
		errno = 0;
		if (one_call(argv[2], argv[3]) == 0)
			return 0;
		perror(argv[2]);
		return 1;
	}
	fprintf(stderr, "usage: preload_probe vfork-exec PATH | spawn-empty-env PATH | clobber-fds | threads | call NAME PATH\n");
	return 2;
}
