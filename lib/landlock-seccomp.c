/* landlock-seccomp.c - owns the Landlock envelope's seccomp floor: the
 * namespace envelope's (io_uring, new AF_UNIX sockets) plus what the
 * namespaces gave bwrap's child and Landlock does not mediate:
 *   - every socket() (no network namespace), and the namespace
 *     envelope's socketpair rule (stream pairs stay, for pipes);
 *   - mode, owner, times and extended attributes (Landlock leaves them to
 *     the file's owner, so a read-only or denied file the caller owns
 *     could be chmod'ed: a hook made executable);
 *   - chattr's ioctls, TIOCSTI (the caller's terminal);
 *   - SysV IPC, POSIX message queues, keyrings (no IPC namespace, no
 *     user namespace: they would be the caller's);
 *   - below Landlock ABI 3, truncate(2) by name.
 * Each refused with EPERM; other architectures' calls kill the child.
 * Compiled with libseccomp per call (the ABI decides one rule) and
 * handed to the helper as BPF in a memfd. */
#include "config.h"

#include <errno.h>
#include <linux/fs.h>
#include <seccomp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "landlock.h"
#include "seccomp-filter.h"

#ifndef FS_IOC_FSSETXATTR
#define FS_IOC_FSSETXATTR _IOW('X', 32, struct fsxattr)
#endif

const char *const pg_landlock_seccomp_names[] = {
	"io_uring_setup", "io_uring_enter", "io_uring_register", "socket",
	"chmod", "fchmod", "fchmodat", "fchmodat2", "chown", "fchown", "lchown", "fchownat",
	"utime", "utimes", "futimesat", "utimensat",
	"setxattr", "lsetxattr", "fsetxattr", "removexattr", "lremovexattr", "fremovexattr",
	"setxattrat", "removexattrat",
	"shmget", "shmat", "shmctl", "semget", "semop", "semtimedop", "semctl",
	"msgget", "msgsnd", "msgrcv", "msgctl", "mq_open",
	"add_key", "request_key", "keyctl",
	NULL,
};

static int refuse(scmp_filter_ctx ctx, const char *name)
{
	int nr = seccomp_syscall_resolve_name(name);

	/* A call this architecture (or libseccomp) lacks cannot be made. */
	if (nr == __NR_SCMP_ERROR)
		return 0;
	return seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), nr, 0);
}

static int refuse_ioctl(scmp_filter_ctx ctx, unsigned long req)
{
	return seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(ioctl), 1,
				SCMP_A1(SCMP_CMP_MASKED_EQ, 0xffffffffu, req & 0xffffffffu));
}

static int add_rules(scmp_filter_ctx ctx, int abi)
{
	int r = 0;

	for (size_t i = 0; r >= 0 && pg_landlock_seccomp_names[i]; i++)
		r = refuse(ctx, pg_landlock_seccomp_names[i]);
	if (r >= 0)
		r = pg_seccomp_refuse_unconnected_pairs(ctx);
	if (r >= 0 && abi < 3)
		r = refuse(ctx, "truncate");
	if (r >= 0)
		r = refuse_ioctl(ctx, TIOCSTI);
	if (r >= 0)
		r = refuse_ioctl(ctx, FS_IOC_SETFLAGS);
	if (r >= 0)
		r = refuse_ioctl(ctx, FS_IOC_FSSETXATTR);
	return r;
}

static int export_fd(scmp_filter_ctx ctx)
{
	int fd = memfd_create("pathgate-landlock-seccomp", MFD_CLOEXEC);
	int r;

	if (fd < 0)
		return -1;
	r = seccomp_export_bpf(ctx, fd);
	if (r < 0 || lseek(fd, 0, SEEK_SET) < 0) {
		close(fd);
		errno = r < 0 ? -r : errno;
		return -1;
	}
	return fd;
}

int pg_landlock_seccomp_fd(int abi)
{
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
	int r, fd = -1;

	if (!ctx) {
		errno = ENOMEM;
		return -1;
	}
	r = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS);
	if (r < 0)   /* libseccomp's probe of KILL_PROCESS failed (valgrind) */
		r = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_ERRNO(ENOSYS));
	if (r >= 0)
		r = add_rules(ctx, abi);
	if (r >= 0)
		fd = export_fd(ctx);
	else
		errno = -r;
	seccomp_release(ctx);
	return fd;
}
