/* seccomp.c - the envelope's seccomp floor, compiled once with libseccomp
 * and handed to each launch as a memfd. */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <seccomp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "seccomp-filter.h"

static pthread_once_t compile_once = PTHREAD_ONCE_INIT;
static unsigned char *program;      /* the BPF, owned for the process's life */
static size_t program_len;
static int compile_err;

static int refuse(scmp_filter_ctx ctx, const char *name)
{
	int nr = seccomp_syscall_resolve_name(name);

	/* A syscall this architecture lacks cannot be made: nothing to refuse. */
	if (nr == __NR_SCMP_ERROR)
		return 0;
	return seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), nr, 0);
}

/* ---- issue 10.4: no new channel to a host service.  A datagram (or
 * any other non-stream) socketpair socket is connected to its peer, yet
 * connect(2), sendto(2) and sendmsg(2) with a name reach any pathname
 * socket the mount tree shows, and replies come back; seccomp cannot
 * read sendmsg's msghdr, so such pairs are refused outright.  A stream
 * pair stays (pipes between the child's own processes): the kernel
 * refuses connect (EISCONN) and a named send (EISCONN) on it, so with
 * socket(AF_UNIX) refused no AF_UNIX socket the child holds can name an
 * address. */
int pg_seccomp_refuse_unconnected_pairs(scmp_filter_ctx ctx)
{
	static const int types[] = { SOCK_DGRAM, SOCK_SEQPACKET, SOCK_RAW, SOCK_RDM };
	int r = 0;

	for (size_t i = 0; r >= 0 && i < sizeof(types) / sizeof(types[0]); i++)
		r = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(socketpair), 2,
				     SCMP_A0(SCMP_CMP_EQ, AF_UNIX),
				     SCMP_A1(SCMP_CMP_MASKED_EQ, 0xf, (scmp_datum_t)types[i]));
	return r;
}

static int add_rules(scmp_filter_ctx ctx)
{
	int r;

	if ((r = refuse(ctx, "io_uring_setup")) < 0 ||
	    (r = refuse(ctx, "io_uring_enter")) < 0 ||
	    (r = refuse(ctx, "io_uring_register")) < 0)
		return r;
	if ((r = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(socket), 1,
				  SCMP_A0(SCMP_CMP_EQ, AF_UNIX))) < 0)
		return r;
	return pg_seccomp_refuse_unconnected_pairs(ctx);
}

/* Export through a memfd: libseccomp writes BPF only to a descriptor. */
static int export_program(scmp_filter_ctx ctx)
{
	int fd = memfd_create("pathgate-seccomp", MFD_CLOEXEC);
	off_t len;
	int r = -1;

	if (fd < 0)
		return -errno;
	if ((r = seccomp_export_bpf(ctx, fd)) < 0)
		goto out;
	len = lseek(fd, 0, SEEK_CUR);
	if (len <= 0 || !(program = malloc((size_t)len))) {
		r = -ENOMEM;
		goto out;
	}
	if (pread(fd, program, (size_t)len, 0) != len) {
		free(program);
		program = NULL;
		r = -EIO;
		goto out;
	}
	program_len = (size_t)len;
	r = 0;
out:
	close(fd);
	return r;
}

static void compile(void)
{
	/* Any other architecture's syscalls (32-bit x86 on x86_64, x32) are
	 * refused outright (the process is killed): their socketcall cannot
	 * be filtered by family. */
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
	int r;

	if (!ctx) {
		compile_err = ENOMEM;
		return;
	}
	r = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS);
	/* libseccomp allows KILL_PROCESS only when its probe of the running
	 * kernel succeeded (not under valgrind, say): the call is refused
	 * all the same with ENOSYS. */
	if (r < 0)
		r = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_ERRNO(ENOSYS));
	if (r >= 0)
		r = add_rules(ctx);
	if (r >= 0)
		r = export_program(ctx);
	if (r < 0)
		compile_err = -r;
	seccomp_release(ctx);
}

int pg_seccomp_filter_fd(void)
{
	int fd;

	pthread_once(&compile_once, compile);
	if (!program) {
		errno = compile_err ? compile_err : ENOSYS;
		return -1;
	}
	fd = memfd_create("pathgate-seccomp", MFD_CLOEXEC);
	if (fd < 0)
		return -1;
	if (pwrite(fd, program, program_len, 0) != (ssize_t)program_len) {
		close(fd);
		errno = EIO;
		return -1;
	}
	return fd;
}
