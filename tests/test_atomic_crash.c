/* test_atomic_crash.c - invariant 7 under SIGKILL.  A child commits atomic
 * writes of varying sizes to one target in a loop; the parent kills it at a
 * random moment, then checks the target holds one complete version (a
 * header with the payload's length and checksum), and that the
 * temporaries a kill can leave are recognisable and cleared.  Half the
 * rounds use named temporaries (the O_TMPFILE fallback).
 * PG_CRASH_ROUNDS sets the number of kills (default 100). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <dirent.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "atomic.h"
#include "pathgate.h"
#include "testutil.h"

#define MAX_PAYLOAD (256 * 1024)

static uint32_t fnv1a(const unsigned char *p, size_t n)
{
	uint32_t h = 2166136261u;

	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 16777619u;
	return h;
}

/* Version V: a header line, then a payload of a size that varies with V. */
static size_t make_version(unsigned long v, unsigned char *buf, size_t size)
{
	size_t len = (size_t)((v * 2654435761u) % MAX_PAYLOAD);
	int h;

	for (size_t i = 0; i < len; i++)
		buf[64 + i] = (unsigned char)((v + i * 31) & 0xff);
	h = snprintf((char *)buf, 64, "PGCK %lu %zu %08x\n", v, len, fnv1a(buf + 64, len));
	memmove(buf + h, buf + 64, len);
	assert_true((size_t)h + len <= size);
	return (size_t)h + len;
}

/* -1 if TEXT is not one whole version, else its number. */
static long check_version(const unsigned char *text, size_t n)
{
	unsigned long v;
	size_t len;
	unsigned sum;
	int h = 0;

	/* (No "\n" in the format: it would eat whitespace bytes of the payload.) */
	if (sscanf((const char *)text, "PGCK %lu %zu %08x%n", &v, &len, &sum, &h) != 3 ||
	    h == 0 || text[h] != '\n')
		return -1;
	h++;
	if ((size_t)h + len != n || fnv1a(text + h, len) != sum)
		return -1;
	return (long)v;
}

static void writer(const char *dir, bool named, unsigned long first)
{
	static unsigned char buf[MAX_PAYLOAD + 128];
	pg_root *root = pg_root_open(dir, NULL, 0);

	if (!root)
		_exit(3);
	pg_atomic_force_named_temporaries(named);
	for (unsigned long v = first;; v++) {
		size_t n = make_version(v, buf, sizeof(buf));

		if (pg_write_file(root, "target", buf, n, 0644) < 0)
			_exit(4);
	}
}

static unsigned char *slurp(const char *dir, size_t *n)
{
	char path[4200];
	struct stat st;
	unsigned char *buf;
	int fd;

	snprintf(path, sizeof(path), "%s/target", dir);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(fstat(fd, &st), 0);
	buf = malloc((size_t)st.st_size + 1);
	assert_non_null(buf);
	assert_int_equal(read(fd, buf, (size_t)st.st_size), st.st_size);
	buf[st.st_size] = '\0';
	close(fd);
	*n = (size_t)st.st_size;
	return buf;
}

static int count_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			n++;
	closedir(d);
	return n;
}

static void test_kill_at_random_moments(void **state)
{
	static unsigned char buf[MAX_PAYLOAD + 128];
	const char *s = getenv("PG_CRASH_ROUNDS");
	int rounds = s ? atoi(s) : 100;
	char *dir = tu_mkdtemp("crash");
	unsigned long next = 1;
	long last = 0, advanced = 0, cleared = 0;
	pg_root *root;

	(void)state;
	if (rounds <= 0)
		rounds = 100;
	srand((unsigned)time(NULL) ^ (unsigned)getpid());
	/* Version 0 exists before the first kill. */
	root = pg_root_open(dir, NULL, 0);
	assert_non_null(root);
	assert_int_equal(pg_write_file(root, "target", buf, make_version(0, buf, sizeof(buf)), 0644), 0);

	for (int round = 0; round < rounds; round++) {
		pid_t pid = fork();
		int status, extra;
		unsigned char *text;
		size_t n;
		long v;

		assert_true(pid >= 0);
		if (pid == 0)
			writer(dir, round % 2, next);
		usleep((useconds_t)(500 + rand() % 30000));
		kill(pid, SIGKILL);
		assert_int_equal(waitpid(pid, &status, 0), pid);
		if (!WIFSIGNALED(status))
			fail_msg("the writer exited by itself: status %d", status);

		text = slurp(dir, &n);
		v = check_version(text, n);
		free(text);
		if (v < 0)
			fail_msg("round %d: the target is not one whole version", round);
		if (v < last)
			fail_msg("round %d: version went back from %ld to %ld", round, last, v);
		if (v > last)
			advanced++;
		last = v;
		next = (unsigned long)v + 1000000;
		/* A kill between naming and renaming leaves a temporary: it is
		 * recognisable and cleared, and nothing else is there. */
		extra = count_entries(dir) - 1;
		if (extra > 0) {
			int c = pg_clear_temporaries(root, ".");

			assert_int_equal(c, extra);
			cleared += c;
		}
		assert_int_equal(count_entries(dir), 1);
	}
	print_message("%d kills: the target was whole every time; it advanced in %ld rounds, "
		      "%ld named temporaries cleared\n", rounds, advanced, cleared);
	/* The writer did commit: a test that never saw a commit proves nothing. */
	assert_true(advanced > 0);
	pg_root_close(root);
	tu_rmtree(dir);
	free(dir);
}

int main(void)
{
	static const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kill_at_random_moments),
	};

	return cmocka_run_group_tests_name("atomic writes under SIGKILL", tests, NULL, NULL);
}
