/* batch.c - pg_check_batch.
 *
 * pg_check's fast path is a single openat2 beneath the root
 * (pg_check_fast_how / pg_check_finish in resolve.h).  A batch submits
 * those opens to io_uring PG_BATCH_ROUND at a time, so a round costs one
 * io_uring_enter instead of one syscall per path, and hands each result to
 * pg_check_finish, which completes the verdict exactly as pg_check would
 * (the slow path included).  Where the root has no fast path, or io_uring
 * is unavailable (an old kernel, io_uring_disabled, the envelope's
 * seccomp floor), or the caller asks with PG_BATCH_NO_URING, every path
 * goes through pg_check one at a time: the same verdicts, slower. */
#include "config.h"

#include <errno.h>
#include <liburing.h>
#include <string.h>
#include <unistd.h>

#include "pathgate.h"
#include "batch.h"
#include "refusal.h"
#include "resolve.h"

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

/* After a failed submission: collect the N completions of what did go
 * in, so no fd is left behind, and report the round as failed. */
static int drain(struct io_uring *ring, unsigned n, int *result, unsigned k)
{
	while (n > 0) {
		struct io_uring_cqe *cqe;
		uint64_t slot;

		if (io_uring_wait_cqe(ring, &cqe) < 0)
			break;
		slot = io_uring_cqe_get_data64(cqe);
		if (slot < k)
			result[slot] = cqe->res;
		io_uring_cqe_seen(ring, cqe);
		n--;
	}
	return -1;
}

/* Submit the opens of paths [FIRST, FIRST + K) and wait for every
 * completion; RESULT[j] gets the fd or -errno of path FIRST + j.
 * Returns 0, or -1 when the ring failed (nothing of this round is left
 * open). */
static int ring_round(struct io_uring *ring, const pg_root *root, const char *const *paths,
		      size_t first, unsigned k, struct open_how *how, int *result)
{
	unsigned j, done = 0, submitted = 0;
	int rc;

	for (j = 0; j < k; j++) {
		struct io_uring_sqe *sqe = io_uring_get_sqe(ring);

		/* The ring has PG_BATCH_ROUND entries and is empty here. */
		if (!sqe)
			return -1;
		/* pg_check makes no open for a NULL path: neither does this */
		if (paths[first + j])
			io_uring_prep_openat2(sqe, root->fd, paths[first + j], how);
		else
			io_uring_prep_nop(sqe);
		io_uring_sqe_set_data64(sqe, j);
		result[j] = -ECANCELED;
	}
	/* A request the kernel refuses while reading it (an empty or
	 * over-long name) completes at once and, without
	 * IORING_SETUP_SUBMIT_ALL, stops the submission there: submit again
	 * until every request of the round is in. */
	while (submitted < k) {
		rc = io_uring_submit(ring);
		if (rc == -EINTR || rc == -EAGAIN)
			continue;
		if (rc <= 0)
			return submitted ? drain(ring, submitted, result, k) : -1;
		submitted += (unsigned)rc;
	}
	while (done < k) {
		struct io_uring_cqe *cqe;
		uint64_t slot;

		rc = io_uring_wait_cqe(ring, &cqe);
		if (rc == -EINTR)
			continue;
		if (rc < 0)
			return -1;
		slot = io_uring_cqe_get_data64(cqe);
		if (slot < k)
			result[slot] = cqe->res;
		io_uring_cqe_seen(ring, cqe);
		done++;
	}
	return 0;
}

static ssize_t check_ring(struct io_uring *ring, pg_root *root, const char *const *paths,
			  size_t n, enum pg_op op, struct pg_verdict *out, struct open_how *how)
{
	int result[PG_BATCH_ROUND];
	ssize_t refused = 0;
	size_t first;

	for (first = 0; first < n; first += PG_BATCH_ROUND) {
		unsigned k = n - first < PG_BATCH_ROUND ? (unsigned)(n - first) : PG_BATCH_ROUND, j;

		if (ring_round(ring, root, paths, first, k, how, result) < 0) {
			/* Close what did open, then judge the rest one by one. */
			for (j = 0; j < k; j++)
				if (result[j] >= 0)
					close(result[j]);
			return refused + check_each(root, paths + first, n - first, op, out + first);
		}
		for (j = 0; j < k; j++)
			if (!paths[first + j])
				result[j] = -ENOSYS;
		for (j = 0; j < k; j++)
			if (pg_check_finish(root, paths[first + j], op, result[j], &out[first + j]) < 0)
				refused++;
	}
	return refused;
}

static int ring_init(struct io_uring *ring)
{
	/* SUBMIT_ALL (Linux 5.18) keeps submitting past a request that
	 * fails early; older kernels refuse the flag, and ring_round copes. */
	if (io_uring_queue_init(PG_BATCH_ROUND, ring, IORING_SETUP_SUBMIT_ALL) == 0)
		return 0;
	return io_uring_queue_init(PG_BATCH_ROUND, ring, 0);
}

ssize_t pg_check_batch(pg_root *root, const char *const *paths, size_t n,
		       enum pg_op op, struct pg_verdict *out, unsigned flags)
{
	struct open_how how;
	struct io_uring ring;
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
	    ring_init(&ring) < 0) {
		refused = check_each(root, paths, n, op, out);
	} else {
		refused = check_ring(&ring, root, paths, n, op, out, &how);
		io_uring_queue_exit(&ring);
	}
	/* The verdicts carry every refusal; the call itself succeeded. */
	pg_refusal_clear();
	return refused;
}
