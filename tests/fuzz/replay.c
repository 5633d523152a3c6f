/* replay.c - the plain driver of the fuzz harnesses (path, policy parse,
 * judge): feeds every file of the corpus directory (argument, else
 * $top_srcdir/tests/fuzz/corpus/PG_FUZZ_CORPUS) to LLVMFuzzerTestOneInput,
 * so make check replays the committed corpus without clang. */
#include "config.h"

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define REPLAY_MAX (64u << 10)

static int replay_file(const char *file)
{
	static uint8_t data[REPLAY_MAX];
	FILE *f = fopen(file, "rbe");
	size_t n;

	if (!f) {
		perror(file);
		return -1;
	}
	n = fread(data, 1, sizeof(data), f);
	fclose(f);
	LLVMFuzzerTestOneInput(data, n);
	return 0;
}

static int replay_dir(const char *dir, unsigned *count)
{
	struct dirent **names;
	char file[4096];
	int i, n = scandir(dir, &names, NULL, alphasort), rc = 0;

	if (n < 0) {
		perror(dir);
		return -1;
	}
	for (i = 0; i < n; i++) {
		if (names[i]->d_name[0] != '.') {
			snprintf(file, sizeof(file), "%s/%s", dir, names[i]->d_name);
			if (replay_file(file) < 0)
				rc = -1;
			else
				(*count)++;
		}
		free(names[i]);
	}
	free(names);
	return rc;
}

int main(int argc, char **argv)
{
	const char *srcdir = getenv("top_srcdir");
	char dir[4096];
	unsigned count = 0;
	int i, rc = 0;

	if (argc > 1) {
		for (i = 1; i < argc; i++)
			if (replay_dir(argv[i], &count) < 0)
				rc = 1;
	} else {
		snprintf(dir, sizeof(dir), "%s/tests/fuzz/corpus/%s", srcdir ? srcdir : ".",
			 PG_FUZZ_CORPUS);
		rc = replay_dir(dir, &count) < 0;
	}
	printf("%s: replayed %u inputs\n", PG_FUZZ_CORPUS, count);
	if (count == 0) {
		fprintf(stderr, "%s: no corpus found\n", PG_FUZZ_CORPUS);
		return 1;
	}
	return rc;
}
