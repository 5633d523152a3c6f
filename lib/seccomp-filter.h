/* seccomp-filter.h - owns the envelope's seccomp floor: the BPF program that
 * refuses io_uring (io_uring_setup, io_uring_enter, io_uring_register),
 * new AF_UNIX sockets (socket(AF_UNIX, ...)) and AF_UNIX socketpairs of
 * any type but SOCK_STREAM with EPERM, for bwrap's --seccomp.  A stream
 * pair stays (pipelines need it): the kernel refuses to connect it or to
 * send it to a name, so it reaches no listener outside the child. */
#ifndef PG_SECCOMP_FILTER_H
#define PG_SECCOMP_FILTER_H

#include <seccomp.h>

/* Add the socketpair rule to CTX (the Landlock envelope's floor uses it
 * too).  0 or a negative libseccomp error. */
int pg_seccomp_refuse_unconnected_pairs(scmp_filter_ctx ctx);

/* A fresh memfd (O_CLOEXEC) holding the filter as BPF, positioned at its
 * start, for one launch.  The program is compiled once per process.
 * Returns the fd, or -1 with errno set (the filter cannot be built). */
int pg_seccomp_filter_fd(void);

#endif
