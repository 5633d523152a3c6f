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
 *   stale-cache TOP        the preload's cache of directory fd names must
 *                          never answer for a name it would refuse: in
 *                          the workspace (.env, secrets/ denied; TOP/a/x,
 *                          TOP/b/key, TOP/c/key, TOP/d/x made by the
 *                          caller) hold fds on TOP/a, TOP/b, TOP/c and a
 *                          cwd in TOP/d; behind the preload's back (raw
 *                          syscalls) rename TOP/a into secrets/ (and make
 *                          a new TOP/a/x), put secrets/ on TOP/b's fd
 *                          number, dup2 it onto TOP/c's, rename TOP/d
 *                          into secrets/; every stat, lstat and open
 *                          through the held fds and the cwd must then be
 *                          refused (EACCES).  TOP "so" opens first, any
 *                          other stats first
 *   symlink-leaf           sc/l/link -> ../../secrets/key (sc/l/x made by
 *                          the caller): stat and open through the link
 *                          refused, lstat of the link itself works
 *   call NAME PATH         make the one path-taking libc call NAME on PATH
 *                          (preload-more.c's calls): exit 0 when it works,
 *                          else 1 after perror(NAME)
 *   list HOW PATH          walk PATH (nftw, nftw-depth, nftw-chdir (with
 *                          FTW_DEPTH), nftw-chdir-pre, ftw, fts,
 *                          fts-nochdir, fts-children[-nochdir]: each
 *                          directory's fts_children too) or expand PATH
 *                          (glob, glob64), printing each name reached as
 *                          "TYPE NAME" (TYPE: f, d, dnr, ns, sl, other),
 *                          and for each regular file its first line
 *   spawn-open MODE PATH [DIR]  posix_spawn /bin/cat with
 *                          posix_spawn_file_actions_addopen of PATH on fd
 *                          0 (MODE r) or 1 (MODE w: created, truncated),
 *                          or (MODE x) posix_spawn the program PATH,
 *                          after addchdir_np DIR when given (fd:DIR:
 *                          addfchdir_np of DIR opened); exit 1 after
 *                          naming the add that failed
 *
 * Exit 0 when every expectation held; the child's status for the
 * exec cases. */
#include "config.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fts.h>
#include <ftw.h>
#include <glob.h>
#include <fcntl.h>
#include <pthread.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/ipc.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

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


/* What a walk reached, as "TYPE NAME", and a regular file's first line
 * (opened with the interposed open, from the working directory). */
static void show(const char *type, const char *name, const char *open_as)
{
	char line[128] = "";
	FILE *f;

	if (strcmp(type, "f") == 0 && (f = fopen(open_as, "r"))) {
		if (!fgets(line, sizeof line, f))
			line[0] = '\0';
		line[strcspn(line, "\n")] = '\0';
		fclose(f);
	}
	printf("%s %s%s%s\n", type, name, line[0] ? " " : "", line);
}

static const char *ftw_type(int type)
{
	switch (type) {
	case FTW_F:   return "f";
	case FTW_D:
	case FTW_DP:  return "d";
	case FTW_DNR: return "dnr";
	case FTW_NS:  return "ns";
	case FTW_SL:
	case FTW_SLN: return "sl";
	}
	return "other";
}

static int list_entry(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	show(ftw_type(type), path, path + ftw->base);
	return 0;
}

static int list_entry_nochdir(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st, (void)ftw;
	show(ftw_type(type), path, path);
	return 0;
}

static int list_ftw(const char *path, const struct stat *st, int type)
{
	(void)st;
	show(ftw_type(type), path, path);
	return 0;
}

static const char *fts_type(int info)
{
	switch (info) {
	case FTS_F:   return "f";
	case FTS_D:
	case FTS_DP:  return "d";
	case FTS_DNR: return "dnr";
	case FTS_NS:  return "ns";
	case FTS_SL:
	case FTS_SLNONE: return "sl";
	}
	return "other";
}

/* With CHILDREN, each directory's entries as fts_children lists them
 * ("child TYPE NAME"), before fts_read reaches them. */
static int list_fts(const char *path, int options, bool children)
{
	char *argv[] = { (char *)path, NULL };
	FTS *fts = fts_open(argv, options, NULL);
	FTSENT *e, *c;

	if (!fts)
		return -1;
	while ((e = fts_read(fts))) {
		if (e->fts_info == FTS_DP)
			continue;
		show(fts_type(e->fts_info), e->fts_path, e->fts_accpath);
		for (c = children && e->fts_info == FTS_D ? fts_children(fts, 0) : NULL; c; c = c->fts_link)
			printf("child %s %.*s/%s size %lld\n", fts_type(c->fts_info), (int)e->fts_pathlen,
			       e->fts_path, c->fts_name,
			       c->fts_statp ? (long long)c->fts_statp->st_size : -1LL);
	}
	return fts_close(fts);
}

static int list_glob(const char *pattern, bool wide)
{
	glob_t g;
	glob64_t g64;
	size_t i, n;
	char **v;
	int rc;

	if (wide) {
		rc = glob64(pattern, GLOB_MARK, NULL, &g64);
		n = g64.gl_pathc, v = g64.gl_pathv;
	} else {
		rc = glob(pattern, GLOB_MARK, NULL, &g);
		n = g.gl_pathc, v = g.gl_pathv;
	}
	if (rc == GLOB_NOMATCH)
		printf("no match\n");
	else if (rc != 0)
		return -1;
	for (i = 0; rc == 0 && i < n; i++)
		show(v[i][strlen(v[i]) - 1] == '/' ? "d" : "f", v[i], v[i]);
	if (rc == 0)
		wide ? globfree64(&g64) : globfree(&g);
	return 0;
}

static int list(const char *how, const char *path)
{
	if (strcmp(how, "nftw") == 0)
		return nftw(path, list_entry_nochdir, 8, FTW_PHYS);
	if (strcmp(how, "nftw-depth") == 0)
		return nftw(path, list_entry_nochdir, 8, FTW_PHYS | FTW_DEPTH);
	if (strcmp(how, "nftw-chdir") == 0)
		return nftw(path, list_entry, 8, FTW_PHYS | FTW_DEPTH | FTW_CHDIR);
	if (strcmp(how, "nftw-chdir-pre") == 0)
		return nftw(path, list_entry, 8, FTW_PHYS | FTW_CHDIR);
	if (strcmp(how, "ftw") == 0)
		return ftw(path, list_ftw, 8);
	if (strcmp(how, "fts") == 0)
		return list_fts(path, FTS_PHYSICAL, false);
	if (strcmp(how, "fts-nochdir") == 0)
		return list_fts(path, FTS_PHYSICAL | FTS_NOCHDIR, false);
	if (strcmp(how, "fts-children") == 0)
		return list_fts(path, FTS_PHYSICAL, true);
	if (strcmp(how, "fts-children-nochdir") == 0)
		return list_fts(path, FTS_PHYSICAL | FTS_NOCHDIR, true);
	if (strcmp(how, "glob") == 0 || strcmp(how, "glob64") == 0)
		return list_glob(path, how[4] == '6');
	errno = ENOSYS;
	return -1;
}

/* /bin/cat with PATH opened by a file action (after a chdir action to
 * DIR when given). */
static int spawn_open(const char *mode, const char *path, const char *dir)
{
	posix_spawn_file_actions_t fa;
	char *argv[] = { "cat", NULL };
	bool w = mode[0] == 'w';
	pid_t pid;
	int err;

	posix_spawn_file_actions_init(&fa);
	if (dir && strncmp(dir, "fd:", 3) == 0)
		err = posix_spawn_file_actions_addfchdir_np(&fa, open(dir + 3, O_RDONLY | O_DIRECTORY));
	else
		err = dir ? posix_spawn_file_actions_addchdir_np(&fa, dir) : 0;
	if (err != 0) {
		fprintf(stderr, "addchdir_np %s: %s\n", dir, strerror(err));
		return 1;
	}
	if (mode[0] == 'x')  /* PATH is the program, run after the chdir */
		err = 0;
	else
		err = posix_spawn_file_actions_addopen(&fa, w ? 1 : 0, path,
						       w ? O_WRONLY | O_CREAT | O_TRUNC : O_RDONLY, 0644);
	if (err != 0) {
		fprintf(stderr, "addopen %s: %s\n", path, strerror(err));
		posix_spawn_file_actions_destroy(&fa);
		return 1;
	}
	err = posix_spawn(&pid, mode[0] == 'x' ? path : "/bin/cat", &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (err != 0) {
		fprintf(stderr, "posix_spawn: %s\n", strerror(err));
		return 1;
	}
	return child_status(pid);
}

/* 0 when stat, lstat and open of NAME relative to DIRFD are refused
 * with EACCES (the open first with OPEN_FIRST: whichever comes first
 * meets the stale cache, the others the name it then looked up). */
static int expect_refused_at(int dirfd, const char *name, const char *what, bool open_first)
{
	struct stat st;
	int fd, i;

	for (i = 0; i < 3; i++) {
		int step = open_first ? i : 2 - i;

		errno = 0;
		if (step == 0) {
			fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC);
			if (fd >= 0)
				close(fd);
		} else {
			fd = fstatat(dirfd, name, &st, step == 1 ? AT_SYMLINK_NOFOLLOW : 0);
		}
		if (fd >= 0 || errno != EACCES) {
			fprintf(stderr, "stale-cache: %s: %s %s was not refused (%s)\n", what,
				step == 0 ? "open" : step == 1 ? "lstat" : "stat", name, strerror(errno));
			return -1;
		}
	}
	return 0;
}

/* An fd on DIR through the preload, its name cached by a stat and an
 * open of LEAF (both must work while DIR is where it was). */
static int held_dir(const char *dir, const char *leaf)
{
	struct stat st;
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), f;

	if (fd < 0 || fstatat(fd, leaf, &st, 0) < 0 || (f = openat(fd, leaf, O_RDONLY | O_CLOEXEC)) < 0) {
		fprintf(stderr, "stale-cache: %s/%s does not work before: %s\n", dir, leaf, strerror(errno));
		return -1;
	}
	close(f);
	return fd;
}

/* In TOP (sc or so; TOP/a/x, TOP/b/key, TOP/c/key, TOP/d/x made by the
 * caller), each stale case, the open first with OPEN_FIRST.  TOP/a and
 * TOP/d move to secrets/TOP-a and secrets/TOP-d. */
static int stale_cache(const char *top, bool open_first)
{
	char a_dir[64], b_dir[64], c_dir[64], d_dir[64], a_to[64], d_to[64];
	struct stat st;
	int a, b, c, sec, rc = 0;

	snprintf(a_dir, sizeof a_dir, "%s/a", top);
	snprintf(b_dir, sizeof b_dir, "%s/b", top);
	snprintf(c_dir, sizeof c_dir, "%s/c", top);
	snprintf(d_dir, sizeof d_dir, "%s/d", top);
	snprintf(a_to, sizeof a_to, "secrets/%s-a", top);
	snprintf(d_to, sizeof d_to, "../../secrets/%s-d", top);
	a = held_dir(a_dir, "x"), b = held_dir(b_dir, "key"), c = held_dir(c_dir, "key");
	if (a < 0 || b < 0 || c < 0)
		return 99;
	/* TOP/a moves into the denied region; a new TOP/a/x takes its name. */
	if (syscall(SYS_renameat2, AT_FDCWD, a_dir, AT_FDCWD, a_to, 0) < 0 ||
	    syscall(SYS_mkdirat, AT_FDCWD, a_dir, 0755) < 0 ||
	    syscall(SYS_mknodat, AT_FDCWD, strcat(a_dir, "/x"), S_IFREG | 0644, 0) < 0)
		return 98;
	rc |= expect_refused_at(a, "x", "renamed into secrets/", open_first);
	/* TOP/b's fd number closed behind the preload and reused for secrets/. */
	sec = (int)syscall(SYS_openat, AT_FDCWD, "secrets", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (sec < 0 || syscall(SYS_close, b) < 0 || syscall(SYS_dup3, sec, b, O_CLOEXEC) < 0)
		return 97;
	rc |= expect_refused_at(b, "key", "fd number reused", open_first);
	/* dup2 over TOP/c's number. */
	if (dup2(sec, c) < 0)
		return 96;
	rc |= expect_refused_at(c, "key", "dup2 over the fd", open_first);
	/* The cwd renamed into secrets/ behind the preload. */
	if (chdir(d_dir) < 0 || stat("x", &st) < 0 ||
	    syscall(SYS_renameat2, AT_FDCWD, "../d", AT_FDCWD, d_to, 0) < 0)
		return 95;
	rc |= expect_refused_at(AT_FDCWD, "x", "cwd renamed into secrets/", open_first);
	return rc ? 1 : 0;
}

/* A directory whose name is cached, with a symlink leaf into secrets/:
 * following it is refused, the link itself may be looked at. */
static int symlink_leaf(void)
{
	int fd = held_dir("sc/l", "x"), f;
	struct stat st;

	if (fd < 0)
		return 99;
	errno = 0;
	if (fstatat(fd, "link", &st, 0) == 0 || errno != EACCES) {
		fprintf(stderr, "symlink-leaf: stat through the link was not refused (%s)\n", strerror(errno));
		return 1;
	}
	f = openat(fd, "link", O_RDONLY | O_CLOEXEC);
	if (f >= 0 || errno != EACCES) {
		fprintf(stderr, "symlink-leaf: open through the link was not refused (%s)\n", strerror(errno));
		return 1;
	}
	if (fstatat(fd, "link", &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISLNK(st.st_mode)) {
		fprintf(stderr, "symlink-leaf: lstat of the link failed (%s)\n", strerror(errno));
		return 1;
	}
	return 0;
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
	if (argc == 4 && strcmp(argv[1], "list") == 0)
		return list(argv[2], argv[3]) == 0 ? 0 : (perror(argv[2]), 1);
	if ((argc == 4 || argc == 5) && strcmp(argv[1], "spawn-open") == 0)
		return spawn_open(argv[2], argv[3], argc == 5 ? argv[4] : NULL);
	if (argc == 3 && strcmp(argv[1], "stale-cache") == 0)
		return stale_cache(argv[2], strcmp(argv[2], "so") == 0);
	if (argc == 2 && strcmp(argv[1], "symlink-leaf") == 0)
		return symlink_leaf();
	if (argc == 4 && strcmp(argv[1], "call") == 0) {
		errno = 0;
		if (one_call(argv[2], argv[3]) == 0)
			return 0;
		perror(argv[2]);
		return 1;
	}
	fprintf(stderr, "usage: preload_probe vfork-exec PATH | spawn-empty-env PATH | clobber-fds | threads | stale-cache TOP | symlink-leaf | call NAME PATH | list HOW PATH | spawn-open r|w|x PATH [DIR]\n");
	return 2;
}
