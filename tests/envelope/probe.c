/* probe.c - run inside the envelope by test_envelope: tries what the
 * seccomp floor must refuse and prints each outcome, one "name:result" a
 * line ("ok" or the errno's name).  No libc wrapper hides a syscall. */
#include "config.h"

#include <errno.h>
#include <linux/io_uring.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/syscall.h>
#include <unistd.h>

static const char *outcome(long r)
{
	if (r >= 0)
		return "ok";
	switch (errno) {
	case EPERM:        return "EPERM";
	case ENOSYS:       return "ENOSYS";
	case EAFNOSUPPORT: return "EAFNOSUPPORT";
	case EACCES:       return "EACCES";
	case EINVAL:       return "EINVAL";
	case EFAULT:       return "EFAULT";
	case EBADF:        return "EBADF";
	default:           return strerror(errno);
	}
}

/* Issue 10.4: with a socketpair socket, try to reach the host's
 * pathname sockets DGRAM and STREAM (argv[1], argv[2]). */
static void reach(const char *name, int type, const char *dgram, const char *stream)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	char tag[64];
	int sv[2];
	long r;

	r = socketpair(AF_UNIX, type, 0, sv);
	printf("pair_%s:%s\n", name, outcome(r));
	if (r < 0)
		return;
	snprintf(a.sun_path, sizeof(a.sun_path), "%s", dgram);
	r = sendto(sv[0], "HOSTILE", 7, MSG_DONTWAIT, (struct sockaddr *)&a, sizeof(a));
	snprintf(tag, sizeof(tag), "pair_%s_sendto_dgram", name);
	printf("%s:%s\n", tag, outcome(r));
	snprintf(a.sun_path, sizeof(a.sun_path), "%s", stream);
	r = connect(sv[1], (struct sockaddr *)&a, sizeof(a));
	printf("pair_%s_connect_stream:%s\n", name, outcome(r));
	snprintf(a.sun_path, sizeof(a.sun_path), "%s", dgram);
	r = connect(sv[1], (struct sockaddr *)&a, sizeof(a));
	if (r == 0)
		r = send(sv[1], "HOSTILE", 7, MSG_DONTWAIT);
	printf("pair_%s_connect_dgram:%s\n", name, outcome(r));
	close(sv[0]);
	close(sv[1]);
}

int main(int argc, char **argv)
{
	struct io_uring_params p;
	int sv[2];
	long r;

	memset(&p, 0, sizeof(p));
	r = syscall(__NR_io_uring_setup, 4, &p);
	printf("io_uring_setup:%s\n", outcome(r));
	if (r >= 0)
		close((int)r);
	r = syscall(__NR_io_uring_enter, -1, 0, 0, 0, NULL, 0);
	printf("io_uring_enter:%s\n", outcome(r));
	r = syscall(__NR_io_uring_register, -1, 0, NULL, 0);
	printf("io_uring_register:%s\n", outcome(r));
	r = socket(AF_UNIX, SOCK_STREAM, 0);
	printf("socket_unix:%s\n", outcome(r));
	if (r >= 0)
		close((int)r);
	r = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	printf("socket_unix_dgram:%s\n", outcome(r));
	if (r >= 0)
		close((int)r);
	r = socket(AF_INET, SOCK_STREAM, 0);
	printf("socket_inet:%s\n", outcome(r));
	if (r >= 0)
		close((int)r);
	r = socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
	printf("socketpair_unix:%s\n", outcome(r));
	if (r >= 0) {
		close(sv[0]);
		close(sv[1]);
	}
	if (argc == 3) {
		reach("stream", SOCK_STREAM, argv[1], argv[2]);
		reach("dgram", SOCK_DGRAM, argv[1], argv[2]);
		reach("seqpacket", SOCK_SEQPACKET, argv[1], argv[2]);
	}
	return 0;
}
