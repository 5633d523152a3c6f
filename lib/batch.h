/* batch.h - owns pg_check_batch: many paths judged at once, their
 * resolution opens submitted to io_uring in rounds, with a sequential
 * fallback that gives the same verdicts.  The public entry point is in
 * pathgate.h; this header names the round size, which tests and the
 * benchmark read. */
#ifndef PG_BATCH_H
#define PG_BATCH_H

/* Openat2 requests in flight per round (the ring's depth). */
#define PG_BATCH_ROUND 64u

#endif
