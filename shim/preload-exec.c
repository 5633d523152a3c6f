/* preload-exec.c - children keep the guard.
 *
 * Every exec and spawn puts LD_PRELOAD, PATHGATE_ROOT and PATHGATE_POLICY
 * back into the child's environment, even when the program cleared or
 * replaced it (env -i, a fresh envp).  An exec runs in a vfork child as
 * often as not, so this path allocates nothing: the new environment is
 * built on the stack, and the file is judged by the policy's names alone
 * (pl_judge_name), never by a resolution that would open and allocate. */
#include "config.h"
#undef _FORTIFY_SOURCE

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pathgate.h"
#include "preload.h"

extern char **environ;

PL_DECLARE_REAL(execve);
PL_DECLARE_REAL(execvpe);
PL_DECLARE_REAL(fexecve);
PL_DECLARE_REAL(execveat);
PL_DECLARE_REAL(posix_spawn);
PL_DECLARE_REAL(posix_spawnp);
PL_DECLARE_REAL(system);
PL_DECLARE_REAL(popen);

/* Executing a file reads it.  Only a name with a '/' is judged: a bare
 * name is found along PATH by libc. */
static int judge_exec(int dirfd, const char *path)
{
	struct pl_name n;
	int rc = 0;

	if (!path || !strchr(path, '/') || !pl_enter())
		return 0;
	if (pl_locate(dirfd, path, PL_LOCATE_NAME_ONLY, &n) < 0 || pl_judge_name(&n, PG_OP_READ) < 0) {
		pl_log_refusal("exec", path);
		rc = -1;
	}
	pl_leave();
	return rc;
}

/* ENVP with the guard's variables, in a frame of the caller's stack. */
#define WITH_GUARD_ENV(envp, out)                                        \
	char *out##_v[pl_env_count(envp) + PL_ENV_EXTRA];                \
	char out##_buf[PL_ENV_BUF];                                      \
	char **out = out##_v;                                            \
	pl_env_inject(envp, out, out##_buf)

int execve(const char *path, char *const argv[], char *const envp[])
{
	if (!pl_active())
		return PL_REAL(execve)(path, argv, envp);
	if (judge_exec(AT_FDCWD, path) < 0)
		return -1;
	{
		WITH_GUARD_ENV(envp, env);
		return PL_REAL(execve)(path, argv, env);
	}
}

int execvpe(const char *file, char *const argv[], char *const envp[])
{
	if (!pl_active())
		return PL_REAL(execvpe)(file, argv, envp);
	if (judge_exec(AT_FDCWD, file) < 0)
		return -1;
	{
		WITH_GUARD_ENV(envp, env);
		return PL_REAL(execvpe)(file, argv, env);
	}
}

int execv(const char *path, char *const argv[])
{
	return execve(path, argv, environ);
}

int execvp(const char *file, char *const argv[])
{
	return execvpe(file, argv, environ);
}

int fexecve(int fd, char *const argv[], char *const envp[])
{
	if (!pl_active())
		return PL_REAL(fexecve)(fd, argv, envp);
	{
		WITH_GUARD_ENV(envp, env);
		return PL_REAL(fexecve)(fd, argv, env);
	}
}

int execveat(int dirfd, const char *path, char *const argv[], char *const envp[], int flags)
{
	if (!pl_active())
		return PL_REAL(execveat)(dirfd, path, argv, envp, flags);
	/* AT_EMPTY_PATH with "": no name, nothing to judge (judge_exec skips it) */
	if (judge_exec(dirfd, path) < 0)
		return -1;
	{
		WITH_GUARD_ENV(envp, env);
		return PL_REAL(execveat)(dirfd, path, argv, env, flags);
	}
}

/* The argument list of an execl-family call, ARG0 first, into a stack
 * vector; envp of execle after it. */
static size_t count_args(va_list ap)
{
	size_t n = 1;

	while (va_arg(ap, char *))
		n++;
	return n;
}

#define COLLECT_ARGS(arg0, last, vec)                                  \
	va_list ap, ap2;                                               \
	size_t vec##_n, vec##_i;                                       \
	va_start(ap, last);                                            \
	va_copy(ap2, ap);                                              \
	vec##_n = count_args(ap2);                                     \
	va_end(ap2);                                                   \
	char *vec[vec##_n + 1];                                        \
	vec[0] = (char *)(arg0);                                       \
	for (vec##_i = 1; vec##_i < vec##_n; vec##_i++)                \
		vec[vec##_i] = va_arg(ap, char *);                     \
	vec[vec##_n] = va_arg(ap, char *)

int execl(const char *path, const char *arg, ...)
{
	COLLECT_ARGS(arg, arg, argv);
	va_end(ap);
	return execve(path, argv, environ);
}

int execlp(const char *file, const char *arg, ...)
{
	COLLECT_ARGS(arg, arg, argv);
	va_end(ap);
	return execvpe(file, argv, environ);
}

int execle(const char *path, const char *arg, ...)
{
	char *const *envp;

	COLLECT_ARGS(arg, arg, argv);
	envp = va_arg(ap, char *const *);
	va_end(ap);
	return execve(path, argv, envp);
}

/* The child execs after its file actions: a relative program path is
 * judged from the directory they leave it in (preload-spawn.c). */
static int judge_spawn(const char *path, const posix_spawn_file_actions_t *actions)
{
	char abs[PATH_MAX];
	int err;

	if (!path || !strchr(path, '/') || path[0] == '/' || !actions)
		return judge_exec(AT_FDCWD, path);
	if ((err = pl_spawn_absolute(actions, path, abs, sizeof(abs))) != 0) {
		if (pl_enter()) {
			errno = err;
			pl_log_refusal("posix_spawn", path);
			pl_leave();
		}
		errno = err;
		return -1;
	}
	return judge_exec(AT_FDCWD, abs);
}

int posix_spawn(pid_t *pid, const char *path, const posix_spawn_file_actions_t *actions,
		const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
	if (!pl_active())
		return PL_REAL(posix_spawn)(pid, path, actions, attr, argv, envp);
	if (judge_spawn(path, actions) < 0)
		return errno;
	{
		WITH_GUARD_ENV(envp, env);
		return PL_REAL(posix_spawn)(pid, path, actions, attr, argv, env);
	}
}

int posix_spawnp(pid_t *pid, const char *file, const posix_spawn_file_actions_t *actions,
		 const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
	if (!pl_active())
		return PL_REAL(posix_spawnp)(pid, file, actions, attr, argv, envp);
	if (judge_spawn(file, actions) < 0)
		return errno;
	{
		WITH_GUARD_ENV(envp, env);
		return PL_REAL(posix_spawnp)(pid, file, actions, attr, argv, env);
	}
}

/* system and popen run /bin/sh with environ, inside libc: environ itself
 * must carry the variables. */
int system(const char *command)
{
	pl_environ_ensure();
	return PL_REAL(system)(command);
}

FILE *popen(const char *command, const char *type)
{
	pl_environ_ensure();
	return PL_REAL(popen)(command, type);
}
