/* testutil.c - shared test helpers: temp trees, snapshots, fd counts. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "testutil.h"

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

static void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "testutil: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
	abort();
}

static char *join(const char *dir, const char *rel)
{
	char *p;

	if (asprintf(&p, "%s/%s", dir, rel) < 0)
		die("out of memory");
	return p;
}

char *tu_mkdtemp(const char *tag)
{
	const char *tmp = getenv("TMPDIR");
	char *p;

	if (!tmp || !tmp[0])
		tmp = "/tmp";
	if (asprintf(&p, "%s/pg-%s-XXXXXX", tmp, tag ? tag : "test") < 0)
		die("out of memory");
	if (!mkdtemp(p))
		die("mkdtemp %s: %s", p, strerror(errno));
	return p;
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (flag == FTW_DP || flag == FTW_D)
		rmdir(path);
	else
		unlink(path);
	return 0;
}

static int unlock_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)ftw;
	if (flag == FTW_D || flag == FTW_DP || flag == FTW_DNR)
		chmod(path, (st->st_mode & 07777) | 0700);
	return 0;
}

void tu_rmtree(const char *dir)
{
	if (!dir || !dir[0] || strcmp(dir, "/") == 0)
		die("refusing to remove '%s'", dir ? dir : "(null)");
	nftw(dir, unlock_one, 32, FTW_PHYS);
	nftw(dir, rm_one, 32, FTW_DEPTH | FTW_PHYS);
}

void tu_write(const char *dir, const char *rel, const char *content)
{
	char *p = join(dir, rel);
	FILE *f = fopen(p, "w");

	if (!f)
		die("write %s: %s", p, strerror(errno));
	fputs(content, f);
	fclose(f);
	free(p);
}

char *tu_read(const char *dir, const char *rel)
{
	char *p = join(dir, rel);
	FILE *f = fopen(p, "r");
	char *buf = NULL;
	size_t cap = 0, len = 0;

	free(p);
	if (!f)
		return NULL;
	for (;;) {
		if (len + 4096 + 1 > cap) {
			cap = (cap + 4096) * 2;
			buf = realloc(buf, cap);
			if (!buf)
				die("out of memory");
		}
		size_t n = fread(buf + len, 1, 4096, f);

		len += n;
		if (n == 0)
			break;
	}
	buf[len] = '\0';
	fclose(f);
	return buf;
}

bool tu_exists(const char *dir, const char *rel)
{
	struct stat st;
	char *p = join(dir, rel);
	bool ok = lstat(p, &st) == 0;

	free(p);
	return ok;
}

void tu_build(const char *dir, const char *spec)
{
	const char *line = spec;

	while (line && *line) {
		const char *end = strchrnul(line, '\n');
		char *l = strndup(line, (size_t)(end - line));
		char *path, *arg, *p;

		if (!l)
			die("out of memory");
		if (l[0] && l[1] == ' ') {
			path = l + 2;
			arg = strchr(path, ' ');
			if (arg)
				*arg++ = '\0';
			p = join(dir, path);
			switch (l[0]) {
			case 'd':
				if (mkdir(p, 0755) < 0 && errno != EEXIST)
					die("mkdir %s: %s", p, strerror(errno));
				break;
			case 'f':
				tu_write(dir, path, arg ? arg : "");
				break;
			case 'l':
				if (!arg || symlink(arg, p) < 0)
					die("symlink %s: %s", p, strerror(errno));
				break;
			case 'h': {
				char *q = arg ? join(dir, arg) : NULL;

				if (!q || link(q, p) < 0)
					die("link %s: %s", p, strerror(errno));
				free(q);
				break;
			}
			default:
				die("bad spec line '%s'", l);
			}
			free(p);
		}
		free(l);
		line = *end ? end + 1 : end;
	}
}

/* ------------------------------------------------------------ snapshots */

struct tu_entry {
	char   *path;
	mode_t  mode;
	off_t   size;
	ino_t   ino;
	dev_t   dev;
	struct timespec mtime;
	char   *target;
};

struct tu_snapshot {
	struct tu_entry *v;
	size_t n, cap;
};

static void snap_add(struct tu_snapshot *s, const char *path, const struct stat *st,
		     const char *target)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 64;
		s->v = realloc(s->v, s->cap * sizeof(*s->v));
		if (!s->v)
			die("out of memory");
	}
	s->v[s->n++] = (struct tu_entry){
		.path = strdup(path), .mode = st->st_mode, .size = S_ISDIR(st->st_mode) ? 0 : st->st_size,
		.ino = st->st_ino, .dev = st->st_dev, .mtime = st->st_mtim,
		.target = target ? strdup(target) : NULL,
	};
}

static void snap_walk(struct tu_snapshot *s, const char *abs, const char *rel, dev_t dev)
{
	DIR *d = opendir(abs);
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d))) {
		char *a, *r, target[4096];
		struct stat st;
		ssize_t n;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		a = join(abs, e->d_name);
		if (rel[0])
			r = join(rel, e->d_name);
		else
			r = strdup(e->d_name);
		if (lstat(a, &st) == 0) {
			n = S_ISLNK(st.st_mode) ? readlink(a, target, sizeof(target) - 1) : -1;
			if (n >= 0)
				target[n] = '\0';
			snap_add(s, r, &st, n >= 0 ? target : NULL);
			/* Another mount's inside is not part of this tree. */
			if (S_ISDIR(st.st_mode) && st.st_dev == dev)
				snap_walk(s, a, r, dev);
		}
		free(a);
		free(r);
	}
	closedir(d);
}

static int by_path(const void *a, const void *b)
{
	return strcmp(((const struct tu_entry *)a)->path, ((const struct tu_entry *)b)->path);
}

struct tu_snapshot *tu_snapshot(const char *dir)
{
	struct tu_snapshot *s = calloc(1, sizeof(*s));
	struct stat st;

	if (!s)
		die("out of memory");
	if (lstat(dir, &st) == 0) {
		/* The directory itself: its mtime shows an entry made and removed. */
		snap_add(s, "", &st, NULL);
		snap_walk(s, dir, "", st.st_dev);
	}
	qsort(s->v, s->n, sizeof(*s->v), by_path);
	return s;
}

static char *describe(const char *what, const struct tu_entry *e)
{
	char *p;

	if (asprintf(&p, "%s: '%s'", what, e->path) < 0)
		die("out of memory");
	return p;
}

char *tu_snapshot_diff(const struct tu_snapshot *a, const struct tu_snapshot *b)
{
	size_t i = 0, j = 0;

	while (i < a->n || j < b->n) {
		int c = i == a->n ? 1 : j == b->n ? -1 : strcmp(a->v[i].path, b->v[j].path);

		if (c < 0)
			return describe("removed", &a->v[i]);
		if (c > 0)
			return describe("added", &b->v[j]);
		const struct tu_entry *x = &a->v[i], *y = &b->v[j];

		if (x->mode != y->mode)
			return describe("mode or type changed", x);
		if (x->size != y->size)
			return describe("size changed", x);
		if (x->ino != y->ino || x->dev != y->dev)
			return describe("inode changed", x);
		if (x->mtime.tv_sec != y->mtime.tv_sec || x->mtime.tv_nsec != y->mtime.tv_nsec)
			return describe("mtime changed", x);
		if ((x->target || y->target) &&
		    (!x->target || !y->target || strcmp(x->target, y->target)))
			return describe("symlink target changed", x);
		i++;
		j++;
	}
	return NULL;
}

struct timespec tu_snapshot_mtime(const struct tu_snapshot *s, const char *rel)
{
	for (size_t i = 0; i < s->n; i++)
		if (strcmp(s->v[i].path, rel) == 0)
			return s->v[i].mtime;
	die("no '%s' in the snapshot", rel);
}

void tu_snapshot_free(struct tu_snapshot *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n; i++) {
		free(s->v[i].path);
		free(s->v[i].target);
	}
	free(s->v);
	free(s);
}

int tu_fd_count(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.')
			n++;
	closedir(d);
	return n - 1; /* the directory's own fd */
}

const char *tu_fd_path(int fd, char *buf, size_t size)
{
	char proc[64];
	ssize_t n;

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	n = readlink(proc, buf, size - 1);
	if (n < 0)
		n = 0;
	buf[n] = '\0';
	return buf;
}
