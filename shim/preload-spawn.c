/* preload-spawn.c - posix_spawn's file actions.  The child runs them
 * with glibc's internal open and chdir, after the fork, before the exec:
 * out of the guard's sight.  So they are judged here, in the parent, when
 * the action is added, and refused as the library would refuse the call
 * (the add returns EACCES or EROFS and the action is not added).
 *
 * The name judged is the name the child opens: a relative name is made
 * absolute when the action is added, against the directory the child
 * will be in by then: the parent's working directory, or the last
 * addchdir_np's directory (a later chdir of the parent cannot move it).
 * After addfchdir_np that directory is known only in the child: a
 * relative name is refused (EACCES; give it absolute), and so is
 * spawning a relative program path with such a list.  Which lists
 * changed directory, and to where, is kept in a small table by address;
 * a list is forgotten by posix_spawn_file_actions_init and _destroy, and
 * a chdir action beyond the table's 64 lists fails with ENOMEM.  The
 * program the child executes keeps the preload (preload-exec.c). */
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

/* The lists with a directory change, by address, with the child's
 * directory after them: known (absolute) after addchdir_np, unknown
 * after addfchdir_np (the descriptor's directory is the child's). */
#define CHDIR_LISTS 64
struct chdir_list {
	const void *list;
	bool        known;
	char        dir[PATH_MAX];
};
static struct chdir_list chdir_lists[CHDIR_LISTS];
static pthread_mutex_t chdir_lock = PTHREAD_MUTEX_INITIALIZER;

/* The entry of LIST, or (ADD) a free one claimed for it; NULL when
 * absent (or the table is full).  Under chdir_lock. */
static struct chdir_list *chdir_entry(const void *list, bool add)
{
	struct chdir_list *free_slot = NULL;
	size_t i;

	for (i = 0; list && i < CHDIR_LISTS; i++) {
		if (chdir_lists[i].list == list)
			return &chdir_lists[i];
		if (!chdir_lists[i].list && !free_slot)
			free_slot = &chdir_lists[i];
	}
	if (!add || !free_slot)
		return NULL;
	free_slot->list = list;
	return free_slot;
}

static void chdir_forget(const void *list)
{
	struct chdir_list *e;

	pthread_mutex_lock(&chdir_lock);
	if ((e = chdir_entry(list, false)))
		e->list = NULL;
	pthread_mutex_unlock(&chdir_lock);
}

/* LIST changes the child's directory to DIR (absolute), or to one not
 * known here (DIR NULL).  False when the table is full. */
static bool chdir_record(const void *list, const char *dir)
{
	struct chdir_list *e;

	pthread_mutex_lock(&chdir_lock);
	if ((e = chdir_entry(list, true))) {
		e->known = dir != NULL;
		snprintf(e->dir, sizeof(e->dir), "%s", dir ? dir : "");
	}
	pthread_mutex_unlock(&chdir_lock);
	return e != NULL;
}

int pl_spawn_absolute(const void *list, const char *path, char *abs, size_t size)
{
	struct chdir_list *e;
	char cwd[PATH_MAX];
	const char *dir = NULL;
	int err = 0;

	if (path[0] == '/')
		return (size_t)snprintf(abs, size, "%s", path) >= size ? ENAMETOOLONG : 0;
	pthread_mutex_lock(&chdir_lock);
	if ((e = chdir_entry(list, false))) {
		if (e->known)
			snprintf(cwd, sizeof(cwd), "%s", e->dir);
		else
			err = EACCES;
		dir = cwd;
	}
	pthread_mutex_unlock(&chdir_lock);
	if (err)
		return err;
	if (!dir && !(dir = getcwd(cwd, sizeof(cwd))))
		return errno == ERANGE ? ENAMETOOLONG : errno;
	if ((size_t)snprintf(abs, size, "%s/%s", strcmp(dir, "/") ? dir : "", path) >= size)
		return ENAMETOOLONG;
	return 0;
}

/* PATH judged for OP as the child will meet it, into ABS (absolute).
 * 0, or an error number for the add to return. */
static int judge_action(const void *list, const char *path, int at_flags, enum pg_op op,
			const char *call, char *abs, size_t size)
{
	struct pl_name n;
	int err;

	if (!path)
		return EINVAL;
	if ((err = pl_spawn_absolute(list, path, abs, size)) != 0) {
		if (err == EACCES && pl_enter()) {
			errno = EACCES;
			pl_log_refusal(call, path);
			pl_leave();
		}
		return err;
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
	chdir_forget(list);
	return PL_REAL(posix_spawn_file_actions_init)(list);
}

int posix_spawn_file_actions_destroy(posix_spawn_file_actions_t *list)
{
	chdir_forget(list);
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
	if (!chdir_record(list, abs))
		return ENOMEM;
	return PL_REAL(posix_spawn_file_actions_addchdir_np)(list, abs);
}

int posix_spawn_file_actions_addfchdir_np(posix_spawn_file_actions_t *list, int fd)
{
	if (pl_active() && !chdir_record(list, NULL))
		return ENOMEM;
	return PL_REAL(posix_spawn_file_actions_addfchdir_np)(list, fd);
}
