/* seccomp-filter.h - owns the envelope's seccomp floor: the BPF program that
 * refuses io_uring (io_uring_setup, io_uring_enter, io_uring_register) and
 * new AF_UNIX sockets (socket(AF_UNIX, ...)) with EPERM, for bwrap's
 * --seccomp.  socketpair(AF_UNIX, ...) stays allowed: a connected pair
 * reaches no listener outside the child, and pipelines need it. */
#ifndef PG_SECCOMP_FILTER_H
#define PG_SECCOMP_FILTER_H

/* A fresh memfd (O_CLOEXEC) holding the filter as BPF, positioned at its
 * start, for one launch.  The program is compiled once per process.
 * Returns the fd, or -1 with errno set (the filter cannot be built). */
int pg_seccomp_filter_fd(void);

#endif
