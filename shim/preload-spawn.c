/* preload-spawn.c - posix_spawn's file actions.  The child runs them
 * with glibc's internal open and chdir, after the fork, before the exec:
 * out of the guard's sight.  So they are judged here, in the parent, when
 * the action is added, and refused as the library would refuse the call
 * (the add returns EACCES or EROFS and the action is not added).
 *
 * The name judged is the name the child opens: a relative name is made
 * absolute against the parent's working directory when the action is
 * added (a later chdir of the parent cannot move it).  After an action
 * that changes the child's directory (addchdir_np, addfchdir_np), a
 * relative name would be resolved from a directory known only in the
 * child: it is refused (EACCES; write it absolute), and so is spawning a
 * relative program path with such a list.  Which lists changed directory
 * is kept in a small table, by address; a list is forgotten by
 * posix_spawn_file_actions_init and _destroy.  The program the child
 * executes keeps the preload (preload-exec.c). */
#include "config.h"
#undef _FORTIFY_SOURCE

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "pathgate.h"
#include "preload.h"

/* The lists with a directory change, by address. */
#define CHDIR_LISTS 64
static const void *chdir_lists[CHDIR_LISTS];
static pthread_mutex_t chdir_lock = PTHREAD_MUTEX_INITIALIZER;

/* Forget LIST, or (ADD) remember it: false when the table is full. */
static bool chdir_mark(const void *list, bool add)
{
	size_t i, free_slot = CHDIR_LISTS;
	bool ok = true, found = false;

	pthread_mutex_lock(&chdir_lock);
	for (i = 0; i < CHDIR_LISTS; i++) {
		if (chdir_lists[i] == list && list) {
			found = true;
			if (!add)
				chdir_lists[i] = NULL;
		} else if (!chdir_lists[i] && free_slot == CHDIR_LISTS) {
			free_slot = i;
		}
	}
	if (add && !found) {
		if (free_slot < CHDIR_LISTS)
			chdir_lists[free_slot] = list;
		else
			ok = false;
	}
	pthread_mutex_unlock(&chdir_lock);
	return ok;
}

bool pl_spawn_changes_dir(const void *list)
{
	size_t i;
	bool found = false;

	if (!list)
		return false;
	pthread_mutex_lock(&chdir_lock);
	for (i = 0; i < CHDIR_LISTS; i++)
		found |= chdir_lists[i] == list;
	pthread_mutex_unlock(&chdir_lock);
	return found;
}

/* PATH judged for OP as the child will meet it, into ABS (absolute).
 * 0, or an error number for the add to return. */
static int judge_action(const void *list, const char *path, int at_flags, enum pg_op op,
			const char *call, char *abs, size_t size)
{
	char cwd[PATH_MAX];
	struct pl_name n;
	int err = 0;

	if (!path)
		return EINVAL;
	if (path[0] == '/') {
		if (strlen(path) >= size)
			return ENAMETOOLONG;
		strcpy(abs, path);
	} else if (pl_spawn_changes_dir(list)) {
		if (pl_enter()) {
			errno = EACCES;
			pl_log_refusal(call, path);
			pl_leave();
		}
		return EACCES;
	} else {
		if (!getcwd(cwd, sizeof(cwd)))
			return errno == ERANGE ? ENAMETOOLONG : errno;
		if ((size_t)snprintf(abs, size, "%s/%s", strcmp(cwd, "/") ? cwd : "", path) >= size)
			return ENAMETOOLONG;
	}
	if (!pl_enter())
		return 0;
	if (pl_locate(AT_FDCWD, abs, at_flags, &n) < 0 || pl_judge(&n, op) < 0) {
		err = errno;
		/* A name that is merely absent is the child's to find out. */
		if (err != ENOENT && err != ENOTDIR)
			pl_log_refusal(call, path);
		else
			err = 0;
		if (err && err != EROFS && err != EACCES && err != EPERM)
			err = EACCES;
	}
	pl_leave();
	return err;
}

PL_DECLARE_REAL(posix_spawn_file_actions_init);
PL_DECLARE_REAL(posix_spawn_file_actions_destroy);
PL_DECLARE_REAL(posix_spawn_file_actions_addopen);
PL_DECLARE_REAL(posix_spawn_file_actions_addchdir_np);
PL_DECLARE_REAL(posix_spawn_file_actions_addfchdir_np);

int posix_spawn_file_actions_init(posix_spawn_file_actions_t *list)
{
	chdir_mark(list, false);
	return PL_REAL(posix_spawn_file_actions_init)(list);
}

int posix_spawn_file_actions_destroy(posix_spawn_file_actions_t *list)
{
	chdir_mark(list, false);
	return PL_REAL(posix_spawn_file_actions_destroy)(list);
}

int posix_spawn_file_actions_addopen(posix_spawn_file_actions_t *list, int fd, const char *path,
				     int oflag, mode_t mode)
{
	char abs[PATH_MAX];
	int err;

	if (!pl_active())
		return PL_REAL(posix_spawn_file_actions_addopen)(list, fd, path, oflag, mode);
	err = judge_action(list, path, (oflag & O_NOFOLLOW) ? AT_SYMLINK_NOFOLLOW : 0,
			   pg_op_for_open_flags(oflag), "posix_spawn_file_actions_addopen", abs, sizeof(abs));
	if (err)
		return err;
	return PL_REAL(posix_spawn_file_actions_addopen)(list, fd, abs, oflag, mode);
}

int posix_spawn_file_actions_addchdir_np(posix_spawn_file_actions_t *list, const char *path)
{
	char abs[PATH_MAX];
	int err;

	if (!pl_active())
		return PL_REAL(posix_spawn_file_actions_addchdir_np)(list, path);
	err = judge_action(list, path, 0, PG_OP_READ, "posix_spawn_file_actions_addchdir_np", abs, sizeof(abs));
	if (err)
		return err;
	if (!chdir_mark(list, true))
		return ENOMEM;
	return PL_REAL(posix_spawn_file_actions_addchdir_np)(list, abs);
}

int posix_spawn_file_actions_addfchdir_np(posix_spawn_file_actions_t *list, int fd)
{
	if (pl_active() && !chdir_mark(list, true))
		return ENOMEM;
	return PL_REAL(posix_spawn_file_actions_addfchdir_np)(list, fd);
}
