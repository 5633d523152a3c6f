/* fuzz_path.c - libFuzzer harness for path text (lib/path.c).
 *
 * Each input is one flags byte (bit 0: allow absolute paths) followed by the
 * raw path bytes.  pg_path_validate and pg_path_normalise must never crash,
 * and must agree with a small reference model written here, independently
 * of lib/path.c: the limits of doc/design.md for validation, and for
 * normalisation a stack of components where ".." pops and an escape is
 * exactly a pop below zero on a relative path.  Output invariants checked
 * directly as well: no ".", ".." or empty component, never longer than the
 * input, offsets and lengths consistent.
 *
 * Built two ways: with clang -fsanitize=fuzzer (make fuzz-path) it is a
 * fuzzer; linked with tests/fuzz/replay.c it is a plain program that
 * replays the committed corpus (make check), so the corpus keeps guarding
 * the code on hosts without clang.
 */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "path.h"
#include "refusal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FAIL(...) do { \
	fprintf(stderr, "fuzz_path: invariant broken: " __VA_ARGS__); \
	fputc('\n', stderr); \
	abort(); \
} while (0)

/* The model's verdict on validation: 0, or the errno the refusal must use. */
static int model_validate(const char *raw, size_t len)
{
	size_t i, comp = 0;

	if (len == 0)
		return ENOENT;
	if (memchr(raw, '\0', len))
		return EINVAL;
	if (len > PG_PATH_MAX)
		return ENAMETOOLONG;
	for (i = 0; i < len; i++) {
		comp = raw[i] == '/' ? 0 : comp + 1;
		if (comp > PG_NAME_MAX)
			return ENAMETOOLONG;
	}
	return 0;
}

struct model_path {
	char   buf[PG_PATH_MAX + 1];
	size_t len;
	size_t ncomp;
	size_t start[PG_PATH_MAX_COMPONENTS];
	bool   escapes;
	bool   dotdot;     /* a ".." component was seen */
};

/* Split on '/', drop empty and "." components, ".." pops; a pop below zero
 * of a relative path escapes; of an absolute one it stays at "/". */
static void model_normalise(const char *raw, struct model_path *m)
{
	size_t i = 0, n = strlen(raw);

	m->len = 0;
	m->ncomp = 0;
	m->escapes = false;
	m->dotdot = false;
	while (i < n) {
		size_t j = i;

		while (j < n && raw[j] != '/')
			j++;
		if (j - i == 0 || (j - i == 1 && raw[i] == '.')) {
			/* nothing */
		} else if (j - i == 2 && raw[i] == '.' && raw[i + 1] == '.') {
			m->dotdot = true;
			if (m->ncomp == 0) {
				if (raw[0] != '/') {
					m->escapes = true;
					return;
				}
			} else {
				m->ncomp--;
				m->len = m->ncomp ? m->start[m->ncomp] - 1 : 0;
			}
		} else {
			if (m->ncomp)
				m->buf[m->len++] = '/';
			m->start[m->ncomp++] = m->len;
			memcpy(m->buf + m->len, raw + i, j - i);
			m->len += j - i;
		}
		i = j + 1;
	}
	m->buf[m->len] = '\0';
}

static bool model_trailing(const char *raw)
{
	size_t n = strlen(raw);
	const char *last = raw + n;

	if (raw[n - 1] == '/')
		return true;
	while (last > raw && last[-1] != '/')
		last--;
	return strcmp(last, ".") == 0 || strcmp(last, "..") == 0;
}

static void check_components(const struct pg_path *p)
{
	const char *cursor = p->buf, *comp;
	size_t clen;
	unsigned i = 0;

	if (strlen(p->buf) != p->len)
		FAIL("len %zu but buffer holds %zu bytes", p->len, strlen(p->buf));
	if (p->len && (p->buf[0] == '/' || p->buf[p->len - 1] == '/'))
		FAIL("output \"%s\" begins or ends with '/'", p->buf);
	if (strstr(p->buf, "//"))
		FAIL("output \"%s\" has an empty component", p->buf);
	while (pg_path_next(&cursor, &comp, &clen)) {
		if ((clen == 1 && comp[0] == '.') ||
		    (clen == 2 && comp[0] == '.' && comp[1] == '.'))
			FAIL("output \"%s\" keeps a dot component", p->buf);
		if (i >= p->ncomp || comp != p->buf + p->off[i] ||
		    clen != pg_path_comp_len(p, i))
			FAIL("component %u of \"%s\" disagrees with off[]", i, p->buf);
		i++;
	}
	if (i != p->ncomp)
		FAIL("ncomp %u, but \"%s\" has %u components", p->ncomp, p->buf, i);
	if (pg_path_prefix_len(p, p->ncomp) != p->len)
		FAIL("prefix of all components is not the whole path");
}

static void check_validate(const char *raw, size_t len)
{
	int want = model_validate(raw, len);
	int got;

	pg_refusal_clear();
	errno = 0;
	got = pg_path_validate(raw, len);
	if (want == 0 && got != 0)
		FAIL("validate refused a valid path (errno %d)", errno);
	if (want != 0) {
		if (got != -1 || errno != want)
			FAIL("validate: want errno %d, got ret %d errno %d", want, got, errno);
		if (pg_refusal_code() != PG_R_BAD_PATH)
			FAIL("validate refused without workspace.bad-path");
	}
}

/* The (size_t)-1 form measures the string itself, looking no further than
 * one byte past the limit. */
static void check_validate_string(const char *raw)
{
	int want = model_validate(raw, strnlen(raw, PG_PATH_MAX + 1));

	pg_refusal_clear();
	errno = 0;
	if (pg_path_validate(raw, (size_t)-1) != (want ? -1 : 0) ||
	    (want && errno != want))
		FAIL("validate of the string form: want errno %d, got errno %d", want, errno);
}

static void check_normalise(const char *raw, bool allow_absolute)
{
	static struct pg_path p;
	static struct model_path m;
	size_t n = strlen(raw);
	int bad = model_validate(raw, n);
	int got;

	pg_refusal_clear();
	errno = 0;
	got = pg_path_normalise(raw, allow_absolute, &p);
	if (bad) {
		if (got != -1 || errno != bad || pg_refusal_code() != PG_R_BAD_PATH)
			FAIL("normalise of an invalid path: ret %d errno %d code %d",
			     got, errno, pg_refusal_code());
		return;
	}
	if (raw[0] == '/' && !allow_absolute) {
		if (got != -1 || errno != EACCES || pg_refusal_code() != PG_R_PATH_ESCAPE)
			FAIL("absolute path not refused as an escape");
		return;
	}
	model_normalise(raw, &m);
	if (m.escapes) {
		if (got != -1 || errno != EACCES || pg_refusal_code() != PG_R_PATH_ESCAPE)
			FAIL("escaping path accepted as \"%s\"", got == 0 ? p.buf : "?");
		return;
	}
	if (got != 0)
		FAIL("normalise refused a path the model accepts (errno %d)", errno);
	if (pg_refusal_code() != PG_R_NONE)
		FAIL("success left a refusal recorded");
	if (p.len > n)
		FAIL("output longer than input (%zu > %zu)", p.len, n);
	if (strcmp(p.buf, m.buf) != 0)
		FAIL("normal form \"%s\", model says \"%s\"", p.buf, m.buf);
	if (p.ncomp != m.ncomp)
		FAIL("ncomp %u, model %zu", p.ncomp, m.ncomp);
	if (p.absolute != (raw[0] == '/'))
		FAIL("absolute flag wrong");
	if (p.trailing_slash != model_trailing(raw))
		FAIL("trailing_slash %d, model %d", p.trailing_slash, model_trailing(raw));
	if (p.had_dotdot != m.dotdot)
		FAIL("had_dotdot %d, model %d", p.had_dotdot, m.dotdot);
	check_components(&p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char buf[2 * PG_PATH_MAX + 2];
	bool allow_absolute;
	size_t len;

	if (size == 0)
		return 0;
	allow_absolute = data[0] & 1;
	len = size - 1;
	if (len > sizeof(buf) - 1)
		len = sizeof(buf) - 1;
	memcpy(buf, data + 1, len);
	buf[len] = '\0';

	check_validate(buf, len);
	check_validate_string(buf);
	if (len == 0 || buf[0] == '\0') {
		pg_refusal_clear();
		if (pg_path_normalise(buf, allow_absolute, &(struct pg_path){0}) != -1 ||
		    pg_refusal_code() != PG_R_BAD_PATH)
			FAIL("an empty path was not refused");
		return 0;
	}
	check_normalise(buf, allow_absolute);
	return 0;
}
