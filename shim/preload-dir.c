/* preload-dir.c - directories and the working directory: opendir,
 * scandir, chdir. */
#include "config.h"
/* The interposers define the names themselves: no header redirects. */
#undef _FILE_OFFSET_BITS
#undef _FORTIFY_SOURCE

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "pathgate.h"
#include "preload.h"

/* ------------------------------------------------------ directories, cwd */

PL_DECLARE_REAL(opendir);
PL_DECLARE_REAL(chdir);

DIR *opendir(const char *path)
{
	struct pl_name n;
	DIR *d = NULL;
	bool call_libc = false;

	if (!pl_enter())
		return PL_REAL(opendir)(path);
	if (pl_locate(AT_FDCWD, path, 0, &n) < 0)
		pl_refused("opendir", path);
	else if (n.where == PL_INSIDE) {
		d = pg_opendir(n.root, n.rel);
		if (!d && pl_kernel_answers(&n, PG_OP_READ))
			call_libc = true;
		else if (!d)
			pl_lib_result(-1, "opendir", path);
	} else if (pl_judge(&n, PG_OP_READ) < 0)
		pl_refused("opendir", path);
	else
		call_libc = true;
	pl_leave();
	return call_libc ? PL_REAL(opendir)(path) : d;
}

int chdir(const char *path)
{
	int rc;

	if (!pl_enter())
		return PL_REAL(chdir)(path);
	rc = pl_judge_at(AT_FDCWD, path, 0, PG_OP_READ, "chdir");
	pl_leave();
	if (rc < 0)
		return rc;
	return PL_REAL(chdir)(path);
}

PL_DECLARE_REAL(scandir);

/* libc opens the directory itself, out of the guard's sight: judge it
 * first. */
int scandir(const char *path, struct dirent ***list, int (*filter)(const struct dirent *),
	    int (*compar)(const struct dirent **, const struct dirent **))
{
	if (pl_judge_op(AT_FDCWD, path, 0, PG_OP_READ, "scandir") < 0)
		return -1;
	return PL_REAL(scandir)(path, list, filter, compar);
}
