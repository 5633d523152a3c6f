/* batch.c - pg_check_batch.
 *
 * pg_check's fast path is a single openat2 beneath the root
 * (pg_check_fast_how / pg_check_finish in resolve.h).  A batch submits
 * those opens to io_uring PG_BATCH_ROUND at a time, together with the
 * closes of the previous round's fds, so a round costs one io_uring_enter
 * instead of two syscalls per path; each result goes to
 * pg_check_finish_borrowed, which completes the verdict exactly as
 * pg_check would (the slow path included).  Where the root has no fast
 * path, or io_uring is unavailable (an old kernel, io_uring_disabled, the
 * envelope's seccomp floor), or the caller asks with PG_BATCH_NO_URING,
 * every path goes through pg_check one at a time: the same verdicts,
 * slower. */
#include "config.h"

#include <errno.h>
#include <liburing.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>

#include "pathgate.h"
#include "batch.h"
#include "refusal.h"
#include "resolve.h"

/* user_data of a close; an open's is its slot in the round. */
#define CLOSE_TAG (1ull << 32)

struct batch_ring {
	struct io_uring ring;
	int      closing[PG_BATCH_ROUND]; /* the last round's fds, closed with the next */
	unsigned nclosing;
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

static void reap(struct batch_ring *br, unsigned n, int *result, unsigned k)
{
	while (n > 0) {
		struct io_uring_cqe *cqe;
		uint64_t data;
		int rc = io_uring_wait_cqe(&br->ring, &cqe);

		if (rc == -EINTR)
			continue;
		if (rc < 0)
			return;
		data = io_uring_cqe_get_data64(cqe);
		if (!(data & CLOSE_TAG) && data < k)
			result[data] = cqe->res;
		io_uring_cqe_seen(&br->ring, cqe);
		n--;
	}
}

/* Put every prepared request in; a request the kernel refuses while
 * reading it (an empty or over-long name) completes at once and, without
 * IORING_SETUP_SUBMIT_ALL, stops the submission there.  Returns how many
 * went in. */
static unsigned submit_all(struct batch_ring *br, unsigned total)
{
	unsigned in = 0;

	while (in < total) {
		int rc = io_uring_submit(&br->ring);

		if (rc == -EINTR || rc == -EAGAIN)
			continue;
		if (rc <= 0)
			break;
		in += (unsigned)rc;
	}
	return in;
}

/* The closes of the last round, then the opens of paths [FIRST, FIRST +
 * K); RESULT[j] gets path FIRST + j's fd or -errno.  Returns 0, or -1 when
 * the ring failed (what went in has completed; the fds whose close never
 * went in are closed here). */
static int ring_round(struct batch_ring *br, const pg_root *root, const char *const *paths,
		      size_t first, unsigned k, struct open_how *how, int *result)
{
	unsigned j, total = br->nclosing + k, in;

	for (j = 0; j < br->nclosing; j++) {
		struct io_uring_sqe *sqe = io_uring_get_sqe(&br->ring);

		io_uring_prep_close(sqe, br->closing[j]);
		io_uring_sqe_set_data64(sqe, CLOSE_TAG | j);
	}
	for (j = 0; j < k; j++) {
		struct io_uring_sqe *sqe = io_uring_get_sqe(&br->ring);

		/* pg_check makes no open for a NULL path: neither does this */
		if (paths[first + j])
			io_uring_prep_openat2(sqe, root->fd, paths[first + j], how);
		else
			io_uring_prep_nop(sqe);
		io_uring_sqe_set_data64(sqe, j);
		result[j] = -ECANCELED;
	}
	in = submit_all(br, total);
	reap(br, in, result, k);
	/* Requests are consumed in order: the closes come first. */
	for (j = in; j < br->nclosing; j++)
		close(br->closing[j]);
	br->nclosing = 0;
	for (j = 0; j < k; j++)
		if (!paths[first + j])
			result[j] = -ENOSYS;
	return in == total ? 0 : -1;
}

/* Close what the last round left open: through the ring, else plainly. */
static void flush_closes(struct batch_ring *br)
{
	unsigned j, in;

	for (j = 0; j < br->nclosing; j++) {
		struct io_uring_sqe *sqe = io_uring_get_sqe(&br->ring);

		io_uring_prep_close(sqe, br->closing[j]);
		io_uring_sqe_set_data64(sqe, CLOSE_TAG | j);
	}
	in = submit_all(br, br->nclosing);
	reap(br, in, NULL, 0);
	for (j = in; j < br->nclosing; j++)
		close(br->closing[j]);
	br->nclosing = 0;
}

static ssize_t check_ring(struct batch_ring *br, pg_root *root, const char *const *paths,
			  size_t n, enum pg_op op, struct pg_verdict *out, struct open_how *how)
{
	int result[PG_BATCH_ROUND];
	ssize_t refused = 0;
	size_t first;

	for (first = 0; first < n; first += PG_BATCH_ROUND) {
		unsigned k = n - first < PG_BATCH_ROUND ? (unsigned)(n - first) : PG_BATCH_ROUND, j;

		if (ring_round(br, root, paths, first, k, how, result) < 0) {
			/* Close what did open, then judge the rest one by one. */
			for (j = 0; j < k; j++)
				if (result[j] >= 0)
					close(result[j]);
			return refused + check_each(root, paths + first, n - first, op, out + first);
		}
		for (j = 0; j < k; j++) {
			if (pg_check_finish_borrowed(root, paths[first + j], op, result[j],
						     &out[first + j]) < 0)
				refused++;
			if (result[j] >= 0)
				br->closing[br->nclosing++] = result[j];
		}
	}
	flush_closes(br);
	return refused;
}

static int ring_init(struct batch_ring *br)
{
	/* Room for a round's opens and the last round's closes.  SUBMIT_ALL
	 * (Linux 5.18) keeps submitting past a request that fails early;
	 * older kernels refuse the flag, and submit_all copes. */
	br->nclosing = 0;
	if (io_uring_queue_init(2 * PG_BATCH_ROUND, &br->ring, IORING_SETUP_SUBMIT_ALL) == 0)
		return 0;
	return io_uring_queue_init(2 * PG_BATCH_ROUND, &br->ring, 0);
}

ssize_t pg_check_batch(pg_root *root, const char *const *paths, size_t n,
		       enum pg_op op, struct pg_verdict *out, unsigned flags)
{
	struct open_how how;
	struct batch_ring br;
	ssize_t refused;

	pg_refusal_clear();
	if (!root || (n && (!paths || !out)) || (unsigned)op > PG_OP_DELETE ||
	    (flags & ~PG_BATCH_NO_URING)) {
		errno = EINVAL;
		return -1;
	}
	if (n == 0)
		return 0;
	memset(&how, 0, sizeof(how));
	if ((flags & PG_BATCH_NO_URING) || !pg_check_fast_how(root, op, &how) ||
	    ring_init(&br) < 0) {
		refused = check_each(root, paths, n, op, out);
	} else {
		refused = check_ring(&br, root, paths, n, op, out, &how);
		io_uring_queue_exit(&br.ring);
	}
	/* The verdicts carry every refusal; the call itself succeeded. */
	pg_refusal_clear();
	return refused;
}
