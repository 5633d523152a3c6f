/* preload-cache.c - the name last seen for a directory descriptor, so
 * that a call relative to it (find and tar stat and open every entry
 * through the directory's fd) need not read /proc/self/fd/N each time,
 * the costliest syscall of an intercepted stat.
 *
 * A name here is a hint, never a verdict.  The program may close the fd
 * behind the preload's back (raw syscalls, close_range) and get the
 * number again for another directory, or another process may rename the
 * directory (into a denied region, out of the root) while the fd is held.
 * So a cached name is only used by callers that act through the library
 * by NAME, from the root (pg_stat, pg_open for reading): the library
 * judges and resolves that name, never the program's fd, so the worst a
 * stale name reaches is another, correctly judged, object.  The caller
 * then checks that the program's own call reaches the same object
 * (st_dev, st_ino) and otherwise forgets the entry and asks
 * /proc/self/fd/N again (pl_locate without PL_LOCATE_CACHED).  Nothing
 * that hands the program's fd to the kernel after judging a name (chmod,
 * unlink, ...) ever reads this cache. */
#include "config.h"

#include <limits.h>
#include <pthread.h>
#include <string.h>

#include "pathgate.h"
#include "preload.h"

#define SLOTS 32   /* a walk holds a handful of directory fds at once */

static struct {
	pthread_mutex_t lock;
	struct {
		int  fd;              /* -1: empty */
		char name[PATH_MAX];  /* absolute, as /proc/self/fd/N or the open said */
	} slot[SLOTS];
} c = { .lock = PTHREAD_MUTEX_INITIALIZER };

static bool inited;

static void init_locked(void)
{
	if (inited)
		return;
	for (size_t i = 0; i < SLOTS; i++)
		c.slot[i].fd = -1;
	inited = true;
}

bool pl_dirs_get(int fd, char *buf, size_t size)
{
	bool hit = false;

	if (fd < 0)
		return false;
	pthread_mutex_lock(&c.lock);
	init_locked();
	if (c.slot[fd % SLOTS].fd == fd && strlen(c.slot[fd % SLOTS].name) < size) {
		strcpy(buf, c.slot[fd % SLOTS].name);
		hit = true;
	}
	pthread_mutex_unlock(&c.lock);
	return hit;
}

void pl_dirs_put(int fd, const char *name)
{
	size_t len = strlen(name);

	if (fd < 0 || name[0] != '/' || len >= PATH_MAX)
		return;
	pthread_mutex_lock(&c.lock);
	init_locked();
	c.slot[fd % SLOTS].fd = fd;
	memcpy(c.slot[fd % SLOTS].name, name, len + 1);
	pthread_mutex_unlock(&c.lock);
}

void pl_dirs_forget(int fd)
{
	if (fd < 0)
		return;
	pthread_mutex_lock(&c.lock);
	init_locked();
	if (c.slot[fd % SLOTS].fd == fd)
		c.slot[fd % SLOTS].fd = -1;
	pthread_mutex_unlock(&c.lock);
}

/* A child forked while another thread held the lock. */
void pl_dirs_reset_in_child(void)
{
	pthread_mutex_init(&c.lock, NULL);
}
