/* test_crash.c - crash consistency of the atomic writer, the long form.
 *
 * A child commits versions of two targets in a loop, of varying sizes (0
 * bytes to 1 MiB), one through pg_write_file and one through the streaming
 * writer (begin / chunk / commit), and is killed with SIGKILL at a random
 * moment.  After every kill:
 *   - each target holds exactly one complete version (a header naming its
 *     number, size and checksum, and the body that number generates), of
 *     a number the child had reached: never a mix, never a prefix;
 *   - the target keeps its mode;
 *   - every other entry in the directory is a temporary, recognisable by
 *     PG_TMP_PREFIX, and pg_clear_temporaries removes exactly those.
 *
 * Usage: test_crash [--kills N] [--max-delay-ms M]
 * make check runs a few (PG_CRASH_KILLS, default 20: the core's
 * test_atomic_crash is the bounded crash test); the long form
 * (tools/check-long) runs 300 or more.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "escape/adv.h"
#include "pathgate.h"

#define MAX_SIZE (1u << 20)
#define HEADER_MAX 64

/* What the child has started: shared so the parent knows which versions
 * may legitimately be on disk. */
struct progress { volatile uint64_t started[2]; };

static uint64_t mix(uint64_t x)
{
	x ^= x >> 33; x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33; x *= 0xc4ceb9fe1a85ec53ull;
	return x ^ (x >> 33);
}

static size_t version_size(unsigned which, uint64_t v)
{
	uint64_t r = mix(v * 2 + which);

	/* Mostly small, sometimes large, now and then empty bodies. */
	switch (r % 8) {
	case 0:  return 0;
	case 1:  return (size_t)(r >> 8) % MAX_SIZE;
	case 2:  return (size_t)(r >> 8) % 65536;
	default: return (size_t)(r >> 8) % 4096;
	}
}

static uint64_t fill(unsigned which, uint64_t v, unsigned char *body, size_t n)
{
	uint64_t h = 1469598103934665603ull, s = mix(v ^ ((uint64_t)which << 56));
	size_t i;

	for (i = 0; i < n; i++) {
		if (i % 8 == 0)
			s = mix(s + i);
		body[i] = (unsigned char)(s >> (8 * (i % 8)));
		h = (h ^ body[i]) * 1099511628211ull;
	}
	return h;
}

/* A version: "PGV <which> <v> <size> <hash>\n" padded to HEADER_MAX, then
 * the body. */
static size_t make_version(unsigned which, uint64_t v, unsigned char *buf)
{
	size_t n = version_size(which, v);
	uint64_t h = fill(which, v, buf + HEADER_MAX, n);

	memset(buf, ' ', HEADER_MAX);
	snprintf((char *)buf, HEADER_MAX, "PGV %u %llu %zu %016llx", which,
		 (unsigned long long)v, n, (unsigned long long)h);
	buf[strlen((char *)buf)] = ' ';
	buf[HEADER_MAX - 1] = '\n';
	return HEADER_MAX + n;
}

static const char *const targets[2] = { "target", "d/stream-target" };

static int commit_stream(pg_root *r, const char *path, const unsigned char *buf, size_t len)
{
	pg_atomic *w = pg_write_begin(r, path, 0640);
	size_t off = 0;

	if (!w)
		return -1;
	while (off < len) {
		size_t chunk = len - off < 7919 ? len - off : 7919;

		if (pg_write_chunk(w, buf + off, chunk) != (ssize_t)chunk) {
			pg_write_abort(w);
			return -1;
		}
		off += chunk;
	}
	return pg_write_commit(w);
}

static void writer(const char *rootdir, struct progress *pr)
{
	unsigned char *buf = malloc(HEADER_MAX + MAX_SIZE);
	pg_root *r = pg_root_open(rootdir, NULL, 0);
	uint64_t v;

	if (!buf || !r)
		_exit(3);
	for (v = pr->started[0] + 1;; v++) {
		unsigned which = v % 2;
		size_t len = make_version(which, v, buf);

		pr->started[which] = v;
		if ((which == 0 ? pg_write_file(r, targets[0], buf, len, 0640)
				: commit_stream(r, targets[1], buf, len)) < 0)
			_exit(4);
	}
}

/* Checks FILE holds one whole version of WHICH, no newer than MAX_V.
 * Returns the version, or 0 after printing what is wrong. */
static uint64_t verify(const char *file, unsigned which, uint64_t max_v, unsigned char *buf,
		       unsigned char *want)
{
	unsigned w;
	unsigned long long v, hash;
	size_t size, got = 0;
	ssize_t n;
	struct stat st;
	int fd = open(file, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);

	if (fd < 0) {
		printf("# %s: cannot open: %s\n", file, strerror(errno));
		return 0;
	}
	fstat(fd, &st);
	while ((n = read(fd, buf + got, HEADER_MAX + MAX_SIZE + 1 - got)) > 0)
		got += (size_t)n;
	close(fd);
	if ((st.st_mode & 07777) != 0640) {
		printf("# %s: mode %o, not 0640\n", file, st.st_mode & 07777);
		return 0;
	}
	if (got < HEADER_MAX ||
	    sscanf((char *)buf, "PGV %u %llu %zu %llx", &w, &v, &size, &hash) != 4 ||
	    w != which) {
		printf("# %s: no whole header (%zu bytes)\n", file, got);
		return 0;
	}
	if (v > max_v || v == 0) {
		printf("# %s: version %llu was never started (latest %llu)\n", file, v,
		       (unsigned long long)max_v);
		return 0;
	}
	if (got != HEADER_MAX + size || make_version(which, v, want) != got ||
	    memcmp(buf, want, got) != 0) {
		printf("# %s: version %llu is torn: %zu bytes, want %zu\n", file, v, got,
		       HEADER_MAX + size);
		return 0;
	}
	return v;
}

/* Entries of DIR other than KEEP; all must be temporaries.  Returns the
 * number of temporaries, or -1 if a stranger is found. */
static int count_temporaries(const char *dir, const char *keep, const char *keep2)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0, bad = 0;

	if (!d)
		return -1;
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") ||
		    !strcmp(e->d_name, keep) || (keep2 && !strcmp(e->d_name, keep2)))
			continue;
		if (!strncmp(e->d_name, PG_TMP_PREFIX, strlen(PG_TMP_PREFIX))) {
			n++;
		} else {
			printf("# %s: unrecognisable leftover \"%s\"\n", dir, e->d_name);
			bad = 1;
		}
	}
	closedir(d);
	return bad ? -1 : n;
}

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "kills", required_argument, NULL, 'k' },
		{ "max-delay-ms", required_argument, NULL, 'm' },
		{ NULL, 0, NULL, 0 },
	};
	const char *env = getenv("PG_CRASH_KILLS");
	long kills = env ? atol(env) : 20, max_delay_ms = 40, k;
	unsigned long long survived = 0, temps_seen = 0, temps_cleared = 0, commits = 0;
	unsigned char *buf = malloc(HEADER_MAX + MAX_SIZE + 1), *want = malloc(HEADER_MAX + MAX_SIZE + 1);
	struct progress *pr = mmap(NULL, sizeof(*pr), PROT_READ | PROT_WRITE,
				   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	struct adv_area area;
	char file[2][600], subdir[600];
	uint64_t last[2] = { 0, 0 };
	int c, rc = 0, fds = tu_fd_count();
	pg_root *r;

	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		if (c == 'k')
			kills = atol(optarg);
		else if (c == 'm')
			max_delay_ms = atol(optarg);
		else {
			fprintf(stderr, "usage: %s [--kills N] [--max-delay-ms M]\n", argv[0]);
			return 2;
		}
	}
	if (!buf || !want || pr == MAP_FAILED || adv_area_new(&area) < 0 ||
	    adv_apply(&area, "r file\nr dir\nr .env\nr secret\nr ro\nd d\n") < 0)
		return 99;
	snprintf(file[0], sizeof(file[0]), "%s/%s", area.root, targets[0]);
	snprintf(file[1], sizeof(file[1]), "%s/%s", area.root, targets[1]);
	snprintf(subdir, sizeof(subdir), "%s/d", area.root);
	srand((unsigned)now_ns());

	/* Version 1 and 2 exist before the first kill. */
	r = pg_root_open(area.root, NULL, 0);
	if (!r)
		return 99;
	for (unsigned which = 0; which < 2; which++) {
		size_t len = make_version(which, which + 1, buf);

		if ((which == 0 ? pg_write_file(r, targets[0], buf, len, 0640)
				: commit_stream(r, targets[1], buf, len)) < 0) {
			perror("first commit");
			return 99;
		}
		pr->started[which] = which + 1;
		last[which] = which + 1;
	}

	for (k = 0; k < kills && rc == 0; k++) {
		long delay_us = rand() % (max_delay_ms * 1000 + 1);
		struct timespec t = { delay_us / 1000000, (delay_us % 1000000) * 1000 };
		pid_t pid = fork();
		int status, temps, cleared;
		uint64_t v[2];

		if (pid == 0)
			writer(area.root, pr);
		nanosleep(&t, NULL);
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
		if (!WIFSIGNALED(status)) {
			printf("# the writer stopped by itself (status %d)\n", status);
			rc = 1;
			break;
		}
		for (unsigned which = 0; which < 2; which++) {
			v[which] = verify(file[which], which, pr->started[which], buf, want);
			if (v[which] == 0 || v[which] < last[which]) {
				if (v[which])
					printf("# %s went back from version %llu to %llu\n", file[which],
					       (unsigned long long)last[which], (unsigned long long)v[which]);
				rc = 1;
			}
			commits += v[which] - last[which];
			last[which] = v[which];
		}
		temps = count_temporaries(area.root, "target", "d");
		cleared = temps < 0 ? -1 : count_temporaries(subdir, "stream-target", NULL);
		if (temps < 0 || cleared < 0) {
			rc = 1;
			break;
		}
		temps += cleared;
		temps_seen += (unsigned)temps;
		cleared = pg_clear_temporaries(r, ".");
		if (cleared >= 0) {
			int more = pg_clear_temporaries(r, "d");

			cleared = more < 0 ? -1 : cleared + more;
		}
		if (cleared != temps) {
			printf("# kill %ld: %d temporaries on disk, pg_clear_temporaries cleared %d\n",
			       k, temps, cleared);
			rc = 1;
		}
		if (count_temporaries(area.root, "target", "d") != 0 ||
		    count_temporaries(subdir, "stream-target", NULL) != 0) {
			printf("# kill %ld: temporaries remain after clearing\n", k);
			rc = 1;
		}
		temps_cleared += cleared > 0 ? (unsigned)cleared : 0;
		if (rc == 0)
			survived++;
		/* The next child resumes after what it reached. */
		pr->started[0] = pr->started[0] > pr->started[1] ? pr->started[0] : pr->started[1];
		pr->started[1] = pr->started[0];
	}
	pg_root_close(r);
	adv_area_free(&area);
	free(buf);
	free(want);
	munmap(pr, sizeof(*pr));
	if (tu_fd_count() != fds) {
		printf("# %d descriptors leaked\n", tu_fd_count() - fds);
		rc = 1;
	}
	printf("FIGURES crash kills=%ld survived=%llu versions-advanced=%llu "
	       "temporaries-found=%llu temporaries-cleared=%llu\n",
	       k, survived, commits, temps_seen, temps_cleared);
	return rc;
}
