/* adv.c - scratch trees, snapshots, mounts and fd counts for the
 * adversarial suite. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "adv.h"

static int write_text(const char *file, const char *text)
{
	int fd = open(file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	size_t n = strlen(text);

	if (fd < 0)
		return -1;
	if (write(fd, text, n) != (ssize_t)n) {
		close(fd);
		return -1;
	}
	return close(fd);
}

int adv_area_new(struct adv_area *a)
{
	const char *tmp = getenv("TMPDIR");

	memset(a, 0, sizeof(*a));
	snprintf(a->base, sizeof(a->base), "%s/pgadv.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(a->base))
		return -1;
	{
		/* The library names its root canonically; so do we. */
		char *real = realpath(a->base, NULL);

		if (!real)
			return -1;
		snprintf(a->base, sizeof(a->base), "%s", real);
		free(real);
	}
	snprintf(a->root, sizeof(a->root), "%s/root", a->base);
	snprintf(a->outside, sizeof(a->outside), "%s/outside", a->base);
	if (mkdir(a->root, 0755) < 0 || adv_apply(a,
		"d ../outside\n"
		"f ../outside/marker MARK\n"
		"d ../outside/d\n"
		"f ../outside/d/f OUTF\n"
		"f file hello\n"
		"d dir\n"
		"f dir/f x\n"
		"d dir/sub\n"
		"f dir/sub/g g\n"
		"d dir/empty\n"
		"f .env SECRET\n"
		"d secret\n"
		"f secret/key KEY\n"
		"d secret/sub\n"
		"d ro\n"
		"f ro/r R\n") != 0) {
		adv_area_free(a);   /* a half-built area is not left in /tmp */
		return -1;
	}
	return 0;
}

static int rm_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st; (void)ftw;
	if (type == FTW_DP)
		return rmdir(path) < 0 && errno != ENOENT ? -1 : 0;
	return unlink(path) < 0 && errno != ENOENT ? -1 : 0;
}

static void rm_rf(const char *path)
{
	struct stat st;

	if (lstat(path, &st) < 0)
		return;
	if (!S_ISDIR(st.st_mode)) {
		unlink(path);
		return;
	}
	/* Directories left without permissions by a test must still go. */
	nftw(path, rm_one, 32, FTW_DEPTH | FTW_PHYS);
}

void adv_area_free(struct adv_area *a)
{
	while (a->nmounts > 0)
		umount2(a->mounts[--a->nmounts], MNT_DETACH);
	if (a->base[0])
		rm_rf(a->base);
	a->base[0] = '\0';
}

const char *adv_subst(const struct adv_area *a, const char *in, int slot)
{
	static char out[4][8192];
	char *o = out[slot & 3];
	size_t n = 0;

	if (!in)
		return NULL;
	while (*in && n < sizeof(out[0]) - 512) {
		if (!strncmp(in, "@ROOT@", 6)) {
			n += (size_t)snprintf(o + n, sizeof(out[0]) - n, "%s", a->root);
			in += 6;
		} else if (!strncmp(in, "@BASE@", 6)) {
			n += (size_t)snprintf(o + n, sizeof(out[0]) - n, "%s", a->base);
			in += 6;
		} else if (!strncmp(in, "@OUT@", 5)) {
			n += (size_t)snprintf(o + n, sizeof(out[0]) - n, "%s", a->outside);
			in += 5;
		} else {
			o[n++] = *in++;
		}
	}
	o[n] = '\0';
	return o;
}

static bool mounts_possible = false;
static const char *mounts_reason = "not tried";

bool adv_private_mounts(const char **reason)
{
	static bool tried;

	if (!tried) {
		tried = true;
		if (unshare(CLONE_NEWNS) < 0)
			mounts_reason = "unshare(CLONE_NEWNS) failed: not root, or seccomp";
		else if (mount("none", "/", "none", MS_REC | MS_PRIVATE, NULL) < 0)
			mounts_reason = "cannot make / private in the new namespace";
		else
			mounts_possible = true;
	}
	if (reason)
		*reason = mounts_reason;
	return mounts_possible;
}

static int apply_mount(struct adv_area *a, const char *where, const char *source)
{
	const char *why;
	char file[600];

	if (!adv_private_mounts(&why)) {
		printf("SKIP: no private mount namespace: %s\n", why);
		return 77;
	}
	if ((size_t)a->nmounts >= sizeof(a->mounts) / sizeof(a->mounts[0]))
		return -1;
	if (mkdir(where, 0755) < 0 && errno != EEXIST)
		return -1;
	if (source) {
		if (mount(source, where, "none", MS_BIND, NULL) < 0) {
			printf("SKIP: bind mount of %s failed: %s\n", source, strerror(errno));
			return 77;
		}
	} else if (mount("pgadv", where, "tmpfs", 0, "size=1m,mode=0755") < 0) {
		printf("SKIP: tmpfs mount failed: %s\n", strerror(errno));
		return 77;
	}
	snprintf(a->mounts[a->nmounts++], sizeof(a->mounts[0]), "%s", where);
	if (!source) {
		snprintf(file, sizeof(file), "%s/x", where);
		return write_text(file, "MOUNTED");
	}
	return 0;
}

static int apply_line(struct adv_area *a, char *line)
{
	char *op = strtok(line, " "), *path = strtok(NULL, " "), *arg = strtok(NULL, "");
	char full[8192 + 400], second[8192 + 400];

	if (!op || op[0] == '#')
		return 0;
	if (!path)
		return -1;
	snprintf(full, sizeof(full), "%s/%s", a->root, path);
	if (arg && arg[0] != '/')
		snprintf(second, sizeof(second), "%s/%s", a->root, arg);
	else
		snprintf(second, sizeof(second), "%s", arg ? arg : "");
	switch (op[0]) {
	case 'd': return mkdir(full, 0755) < 0 && errno != EEXIST ? -1 : 0;
	case 'f': return write_text(full, arg ? arg : "");
	case 'l': return arg ? symlink(arg, full) : -1;
	case 'h': return arg ? link(second, full) : -1;
	case 'r': rm_rf(full); return 0;
	case 'm': return apply_mount(a, full, NULL);
	case 'b': return arg ? apply_mount(a, full, second) : -1;
	}
	return -1;
}

int adv_apply(struct adv_area *a, const char *spec)
{
	char *copy, *line, *save = NULL;
	int rc = 0;

	if (!spec)
		return 0;
	copy = strdup(adv_subst(a, spec, 3));
	if (!copy)
		return -1;
	for (line = strtok_r(copy, "\n", &save); line && rc == 0;
	     line = strtok_r(NULL, "\n", &save)) {
		char shown[200];

		snprintf(shown, sizeof(shown), "%s", line);
		rc = apply_line(a, line);
		if (rc < 0)
			printf("# tree setup failed at \"%s\": %s\n", shown, strerror(errno));
	}
	free(copy);
	return rc;
}

/* ---------------------------------------------------------- snapshots */

struct snap {
	char  **lines;
	size_t  n, cap;
	size_t  skip;   /* length of the directory prefix */
};

static struct snap *cur;

static uint64_t hash_file(const char *file)
{
	uint64_t h = 1469598103934665603ull;
	unsigned char buf[4096];
	ssize_t n, i;
	int fd = open(file, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NOATIME);

	if (fd < 0)
		fd = open(file, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return 0;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		for (i = 0; i < n; i++)
			h = (h ^ buf[i]) * 1099511628211ull;
	close(fd);
	return h;
}

static int snap_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	char target[4096] = "", line[8192];
	uint64_t hash = 0;
	ssize_t n;

	(void)type; (void)ftw;
	if (S_ISLNK(st->st_mode)) {
		n = readlink(path, target, sizeof(target) - 1);
		target[n > 0 ? n : 0] = '\0';
	} else if (S_ISREG(st->st_mode)) {
		hash = hash_file(path);
	}
	snprintf(line, sizeof(line), "%s mode=%o size=%lld ino=%llu nlink=%lu mtime=%lld.%09ld ctime=%lld.%09ld ->%s #%016llx",
		 path[cur->skip] ? path + cur->skip : "/", (unsigned)st->st_mode,
		 (long long)st->st_size, (unsigned long long)st->st_ino,
		 (unsigned long)st->st_nlink,
		 (long long)st->st_mtim.tv_sec, st->st_mtim.tv_nsec,
		 (long long)st->st_ctim.tv_sec, st->st_ctim.tv_nsec,
		 target, (unsigned long long)hash);
	if (cur->n == cur->cap) {
		size_t cap = cur->cap ? cur->cap * 2 : 64;
		char **l = realloc(cur->lines, cap * sizeof(*l));

		if (!l)
			return -1;
		cur->lines = l;
		cur->cap = cap;
	}
	cur->lines[cur->n] = strdup(line);
	return cur->lines[cur->n++] ? 0 : -1;
}

static int cmp_line(const void *x, const void *y)
{
	return strcmp(*(char *const *)x, *(char *const *)y);
}

char *adv_snapshot(const char *dir)
{
	struct snap s = { .skip = strlen(dir) };
	size_t i, total = 1;
	char *out, *p;

	cur = &s;
	nftw(dir, snap_one, 32, FTW_PHYS | FTW_MOUNT);
	cur = NULL;
	qsort(s.lines, s.n, sizeof(*s.lines), cmp_line);
	for (i = 0; i < s.n; i++)
		total += strlen(s.lines[i]) + 1;
	out = p = malloc(total);
	if (out) {
		for (i = 0; i < s.n; i++)
			p = stpcpy(stpcpy(p, s.lines[i]), "\n");
		*p = '\0';
	}
	for (i = 0; i < s.n; i++)
		free(s.lines[i]);
	free(s.lines);
	return out;
}

bool adv_snapshot_same(const char *label, const char *before, const char *after)
{
	const char *b = before, *a = after;
	int shown = 0;

	if (before && after && strcmp(before, after) == 0)
		return true;
	printf("# %s: the tree changed\n", label);
	while (b && a && *b && *a && shown < 6) {
		const char *be = strchrnul(b, '\n'), *ae = strchrnul(a, '\n');

		if (be - b != ae - a || memcmp(a, b, (size_t)(be - b))) {
			printf("#   before: %.*s\n#   after:  %.*s\n", (int)(be - b), b, (int)(ae - a), a);
			shown++;
		}
		b = *be ? be + 1 : be;
		a = *ae ? ae + 1 : ae;
	}
	if (shown == 0)
		printf("#   (one snapshot is longer: an object was added or removed)\n");
	return false;
}

bool adv_fd_within(int fd, const char *root)
{
	char link[64], where[4096];
	size_t n = strlen(root);
	ssize_t got;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	got = readlink(link, where, sizeof(where) - 1);
	if (got < 0)
		return false;
	where[got] = '\0';
	return strncmp(where, root, n) == 0 && (where[n] == '\0' || where[n] == '/');
}

ssize_t adv_read_file(const char *file, char *buf, size_t size)
{
	int fd = open(file, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, size);
	close(fd);
	return n;
}
