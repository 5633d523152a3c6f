/* batch.c - pg_check_batch.
 *
 * pg_check's fast path is a single openat2 beneath the root
 * (pg_check_fast_how / pg_check_finish in resolve.h).  A batch submits
 * those opens to io_uring PG_BATCH_ROUND at a time and pipelines the
 * rounds: round r + 1 is submitted before this thread finishes round r's
 * verdicts with pg_check_finish_borrowed (exactly what pg_check would
 * answer, the slow path included), so opens the kernel cannot do at once
 * (a cold dentry cache) proceed in its workers meanwhile; round r's fds
 * are closed through the ring with round r + 2's opens.  A round costs
 * one io_uring_enter instead of two syscalls per path.  (Forcing every
 * open to the workers, IOSQE_ASYNC, measured 1.5 times slower: on warm
 * caches they complete inline.)
 *
 * Where the root has no fast path, or io_uring is unavailable (an old
 * kernel, io_uring_disabled, the envelope's seccomp floor), or the caller
 * asks with PG_BATCH_NO_URING, every path goes through pg_check one at a
 * time: the same verdicts, slower.  If the ring fails midway, what is in
 * flight is collected, and the rest goes the same sequential way.
 *
 * Before any of that, a run of plain paths (pg_ops_plain_path) sharing a
 * parent is judged under that parent held once: one openat2 of the
 * parent (O_DIRECTORY, no symlinks, beneath, as the fast path opens it),
 * then one statx of each final name relative to it, without following
 * it.  That statx stands for the fast path's openat2: a symlink is its
 * ELOOP (a delete's O_NOFOLLOW takes the link itself), another mount its
 * EXDEV, a missing name or a refused search its ENOENT or EACCES; the
 * parent's own failure is what the openat2 would have met on the way.
 * pg_check_finish_statx then finishes each verdict as pg_check would.
 * Paths of no run (unsorted lists) keep one openat2 each. */
#include "config.h"

#include <errno.h>
#include <liburing.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pathgate.h"
#include "batch.h"
#include "check.h"
#include "ops.h"
#include "path.h"
#include "refusal.h"
#include "resolve.h"

/* user_data: a close, or an open's round parity and slot. */
#define CLOSE_TAG  (1ull << 32)
#define PARITY_BIT (1ull << 16)

struct round {
	size_t   first;   /* index of its first path */
	unsigned k;       /* its paths */
	unsigned done;    /* completions arrived */
	int      result[PG_BATCH_ROUND]; /* fd or -errno */
};

struct batch_ring {
	struct io_uring ring;
	struct round    round[2];
	unsigned        inflight;                /* submitted, not completed */
	/* Finished rounds' fds, closed with the next submission: one round's,
	 * or two after the last round (which no submission follows). */
	int             closing[2 * PG_BATCH_ROUND];
	unsigned        nclosing;
};

static ssize_t check_each(pg_root *root, const char *const *paths, size_t n,
			  enum pg_op op, struct pg_verdict *out)
{
	ssize_t refused = 0;
	size_t i;

	for (i = 0; i < n; i++)
		if (pg_check(root, paths[i], op, &out[i]) < 0)
			refused++;
	return refused;
}

/* Wait for one completion and file it.  Returns 0 or -1. */
static int reap_one(struct batch_ring *br)
{
	struct io_uring_cqe *cqe;
	uint64_t data;
	int rc;

	do
		rc = io_uring_wait_cqe(&br->ring, &cqe);
	while (rc == -EINTR);
	if (rc < 0)
		return -1;
	data = io_uring_cqe_get_data64(cqe);
	if (!(data & CLOSE_TAG)) {
		struct round *r = &br->round[(data & PARITY_BIT) ? 1 : 0];
		unsigned slot = (unsigned)(data & (PARITY_BIT - 1));

		if (slot < r->k) {
			r->result[slot] = cqe->res;
			r->done++;
		}
	}
	io_uring_cqe_seen(&br->ring, cqe);
	br->inflight--;
	return 0;
}

/* Put the prepared requests in (TOTAL of them, the closes first).  A
 * request the kernel refuses while reading it (an empty or over-long
 * name) completes at once and, without IORING_SETUP_SUBMIT_ALL, stops the
 * submission there.  The closes that never went in are made here.
 * Returns 0 when all went in. */
static int submit_all(struct batch_ring *br, unsigned nclose, unsigned total)
{
	unsigned in = 0, j;

	while (in < total) {
		int rc = io_uring_submit(&br->ring);

		if (rc == -EINTR || rc == -EAGAIN)
			continue;
		if (rc <= 0)
			break;
		in += (unsigned)rc;
	}
	br->inflight += in;
	for (j = in; j < nclose; j++)
		close(br->closing[j]);
	br->nclosing = 0;
	return in == total ? 0 : -1;
}

static void prep_closes(struct batch_ring *br)
{
	unsigned j;

	for (j = 0; j < br->nclosing; j++) {
		struct io_uring_sqe *sqe = io_uring_get_sqe(&br->ring);

		io_uring_prep_close(sqe, br->closing[j]);
		io_uring_sqe_set_data64(sqe, CLOSE_TAG | j);
	}
}

/* Submit the opens of paths [FIRST, FIRST + K) as round PARITY, with the
 * closes waiting.  Returns 0 or -1 (the ring failed). */
static int submit_round(struct batch_ring *br, const pg_root *root, const char *const *paths,
			size_t first, unsigned k, struct open_how *how, unsigned parity)
{
	struct round *r = &br->round[parity];
	unsigned nclose = br->nclosing, j;

	r->first = first;
	r->k = k;
	r->done = 0;
	prep_closes(br);
	for (j = 0; j < k; j++) {
		struct io_uring_sqe *sqe = io_uring_get_sqe(&br->ring);

		r->result[j] = -ECANCELED;
		/* pg_check makes no open for a NULL path: neither does this */
		if (paths[first + j])
			io_uring_prep_openat2(sqe, root->fd, paths[first + j], how);
		else
			io_uring_prep_nop(sqe);
		io_uring_sqe_set_data64(sqe, (parity ? PARITY_BIT : 0) | j);
	}
	return submit_all(br, nclose, nclose + k);
}

/* After a failure: collect everything in flight and close every fd no
 * verdict has used (rounds not finished).  The closes waiting are made
 * plainly. */
static void abandon(struct batch_ring *br, const bool unfinished[2])
{
	unsigned p, j;

	while (br->inflight > 0 && reap_one(br) == 0)
		;
	for (p = 0; p < 2; p++)
		for (j = 0; unfinished[p] && j < br->round[p].k; j++)
			if (br->round[p].result[j] >= 0)
				close(br->round[p].result[j]);
	for (j = 0; j < br->nclosing; j++)
		close(br->closing[j]);
	br->nclosing = 0;
}

static ssize_t check_ring(struct batch_ring *br, pg_root *root, const char *const *paths,
			  size_t n, enum pg_op op, struct pg_verdict *out, struct open_how *how)
{
	ssize_t refused = 0;
	unsigned p = 0;
	bool live[2] = { true, false };
	size_t next;

	if (submit_round(br, root, paths, 0, n < PG_BATCH_ROUND ? (unsigned)n : PG_BATCH_ROUND, how, 0) < 0)
		goto fail;
	for (;;) {
		struct round *r = &br->round[p];
		unsigned j;

		while (r->done < r->k)
			if (reap_one(br) < 0)
				goto fail;
		next = r->first + r->k;
		if (next < n) {
			unsigned k = n - next < PG_BATCH_ROUND ? (unsigned)(n - next) : PG_BATCH_ROUND;

			live[p ^ 1] = true;
			if (submit_round(br, root, paths, next, k, how, p ^ 1) < 0)
				goto fail;
		}
		for (j = 0; j < r->k; j++) {
			if (!paths[r->first + j])
				r->result[j] = -ENOSYS;
			if (pg_check_finish_borrowed(root, paths[r->first + j], op, r->result[j],
						     &out[r->first + j]) < 0)
				refused++;
			if (r->result[j] >= 0)
				br->closing[br->nclosing++] = r->result[j];
		}
		live[p] = false;
		if (next >= n)
			break;
		p ^= 1;
	}
	prep_closes(br);
	submit_all(br, br->nclosing, br->nclosing);
	while (br->inflight > 0 && reap_one(br) == 0)
		;
	return refused;
fail:
	abandon(br, live);
	{
		/* The first round without verdicts, and everything after it. */
		size_t from = live[p] ? br->round[p].first : br->round[p ^ 1].first;

		return refused + check_each(root, paths + from, n - from, op, out + from);
	}
}

/* ------------------------------------------------------- held parents */

/* The parent a run of paths shares, held once. */
struct held {
	const char *path;  /* a path of the run: its first PLEN bytes name the parent */
	size_t      plen;  /* 0: the root itself */
	int         fd;    /* O_PATH directory, or -1 */
	bool        owned;
	int         err;   /* the openat2 of the parent failed with this */
};

/* True when PATH is plain; *PLEN is the length of its parent's name. */
static bool split_plain(const char *path, size_t *plen)
{
	const char *slash;
	size_t len;

	if (!path || !pg_ops_plain_path(path, &len))
		return false;
	slash = memrchr(path, '/', len);
	*plen = slash ? (size_t)(slash - path) : 0;
	return true;
}

static bool same_parent(const char *a, size_t alen, const char *b, size_t blen)
{
	return alen == blen && memcmp(a, b, alen) == 0;
}

static void let_go(struct held *h)
{
	if (h->owned && h->fd >= 0)
		close(h->fd);
	h->fd = -1;
	h->owned = false;
	h->path = NULL;
}

static void hold(const pg_root *root, struct held *h, const char *path, size_t plen)
{
	char parent[PG_PATH_MAX + 1];

	let_go(h);
	h->path = path;
	h->plen = plen;
	h->err = 0;
	if (plen == 0) {
		h->fd = root->fd;
		return;
	}
	memcpy(parent, path, plen);
	parent[plen] = '\0';
	h->fd = pg_openat2(root->fd, parent, O_PATH | O_DIRECTORY | O_CLOEXEC, 0,
			   root->resolve | RESOLVE_NO_SYMLINKS);
	h->owned = h->fd >= 0;
	if (h->fd < 0)
		h->err = errno;
}

/* What the fast path's openat2 of the final name NAME under H would have
 * answered for OP: 0 (the object, in STX) or -errno. */
static int leaf_result(const pg_root *root, const struct held *h, const char *name,
		       enum pg_op op, struct statx *stx)
{
	if (h->err)
		return -h->err;
	if (statx(h->fd, name, AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT,
		  STATX_TYPE | STATX_INO | STATX_NLINK | STATX_CTIME | STATX_MNT_ID, stx) < 0)
		return -errno;
	if (!(root->flags & PG_ROOT_XDEV) &&
	    (!(stx->stx_mask & STATX_MNT_ID) || stx->stx_mnt_id != root->mnt_id))
		return -EXDEV;  /* another mount (or none known): the walk decides */
	if (S_ISLNK(stx->stx_mode) && op != PG_OP_DELETE)
		return -ELOOP;
	return 0;
}

/* Judge every path of a run (two or more consecutive plain paths with one
 * parent) under its parent held once; mark them in DONE.  Returns the
 * refused count. */
static ssize_t check_held(pg_root *root, const char *const *paths, size_t n,
			  enum pg_op op, struct pg_verdict *out, bool *done)
{
	struct held h = { .fd = -1 };
	ssize_t refused = 0;
	size_t i, plen, next_plen;

	for (i = 0; i < n; i++) {
		struct statx stx;
		int result;

		if (!split_plain(paths[i], &plen))
			continue;
		if (!h.path || !same_parent(h.path, h.plen, paths[i], plen)) {
			if (i + 1 == n || !split_plain(paths[i + 1], &next_plen) ||
			    !same_parent(paths[i], plen, paths[i + 1], next_plen))
				continue;  /* no run: one openat2 costs less */
			hold(root, &h, paths[i], plen);
		}
		result = leaf_result(root, &h, paths[i] + plen + (plen ? 1 : 0), op, &stx);
		if (pg_check_finish_statx(root, paths[i], op, result, &stx, &out[i]) < 0)
			refused++;
		done[i] = true;
	}
	let_go(&h);
	return refused;
}

static int ring_init(struct batch_ring *br)
{
	/* Room for a round's opens and the closes of an earlier one.
	 * SUBMIT_ALL (Linux 5.18) keeps submitting past a request that fails
	 * early; older kernels refuse the flag, and submit_all copes. */
	memset(br, 0, sizeof(*br));
	if (io_uring_queue_init(2 * PG_BATCH_ROUND, &br->ring, IORING_SETUP_SUBMIT_ALL) == 0)
		return 0;
	return io_uring_queue_init(2 * PG_BATCH_ROUND, &br->ring, 0);
}

/* The paths no run took, through the ring or one at a time. */
static ssize_t check_rest(pg_root *root, const char *const *paths, size_t n, enum pg_op op,
			  struct pg_verdict *out, unsigned flags)
{
	struct open_how how;
	struct batch_ring br;
	ssize_t refused;

	memset(&how, 0, sizeof(how));
	if ((flags & PG_BATCH_NO_URING) || n < PG_BATCH_ROUND ||
	    !pg_check_fast_how(root, op, &how) || ring_init(&br) < 0)
		return check_each(root, paths, n, op, out);
	refused = check_ring(&br, root, paths, n, op, out, &how);
	io_uring_queue_exit(&br.ring);
	return refused;
}

/* The paths DONE leaves, gathered, judged by check_rest, put back. */
static ssize_t check_left(pg_root *root, const char *const *paths, size_t n, enum pg_op op,
			  struct pg_verdict *out, unsigned flags, const bool *done)
{
	const char **rest = NULL;
	struct pg_verdict *rout = NULL;
	size_t *at = NULL, m = 0, i;
	ssize_t refused;

	for (i = 0; i < n; i++)
		m += !done[i];
	if (m == 0)
		return 0;
	if (m >= PG_BATCH_ROUND && !(flags & PG_BATCH_NO_URING)) {
		rest = malloc(m * sizeof(*rest));
		rout = malloc(m * sizeof(*rout));
		at = malloc(m * sizeof(*at));
	}
	if (!rest || !rout || !at) {
		/* One at a time, in place: the same verdicts. */
		free(rest);
		free(rout);
		free(at);
		refused = 0;
		for (i = 0; i < n; i++)
			if (!done[i] && pg_check(root, paths[i], op, &out[i]) < 0)
				refused++;
		return refused;
	}
	for (i = 0, m = 0; i < n; i++)
		if (!done[i]) {
			at[m] = i;
			rest[m++] = paths[i];
		}
	refused = check_rest(root, rest, m, op, rout, flags);
	for (i = 0; i < m; i++)
		out[at[i]] = rout[i];
	free(rest);
	free(rout);
	free(at);
	return refused;
}

ssize_t pg_check_batch(pg_root *root, const char *const *paths, size_t n,
		       enum pg_op op, struct pg_verdict *out, unsigned flags)
{
	ssize_t refused;
	bool *done;

	pg_refusal_clear();
	if (!root || (n && (!paths || !out)) || (unsigned)op > PG_OP_DELETE ||
	    (flags & ~PG_BATCH_NO_URING)) {
		errno = EINVAL;
		return -1;
	}
	if (n == 0)
		return 0;
	/* Held parents need the fast path and a way to tell another mount. */
	done = root->openat2 && (root->mnt_id || (root->flags & PG_ROOT_XDEV)) ?
	       calloc(n, sizeof(*done)) : NULL;
	if (done) {
		refused = check_held(root, paths, n, op, out, done);
		refused += check_left(root, paths, n, op, out, flags, done);
		free(done);
	} else {
		refused = check_rest(root, paths, n, op, out, flags);
	}
	/* The verdicts carry every refusal; the call itself succeeded. */
	pg_refusal_clear();
	return refused;
}
