/* landlock-abi.h - owns what this build knows of the kernel's Landlock
 * interface: the constants of every ABI up to 7 (defined here when the
 * installed headers are older: Debian 12's linux-libc-dev stops at ABI 2),
 * the ruleset attribute as ABI 6 lays it out, and the three system calls.
 * Nothing here decides anything: it only names what the kernel offers. */
#ifndef PG_LANDLOCK_ABI_H
#define PG_LANDLOCK_ABI_H

#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/landlock.h>

#ifndef LANDLOCK_CREATE_RULESET_VERSION
#define LANDLOCK_CREATE_RULESET_VERSION (1U << 0)
#endif
/* ABI 2 */
#ifndef LANDLOCK_ACCESS_FS_REFER
#define LANDLOCK_ACCESS_FS_REFER        (1ULL << 13)
#endif
/* ABI 3 */
#ifndef LANDLOCK_ACCESS_FS_TRUNCATE
#define LANDLOCK_ACCESS_FS_TRUNCATE     (1ULL << 14)
#endif
/* ABI 4: TCP ports (a rule type of its own) */
#define PG_LL_RULE_NET_PORT             2
#define PG_LL_NET_BIND_TCP              (1ULL << 0)
#define PG_LL_NET_CONNECT_TCP           (1ULL << 1)
/* ABI 5 */
#ifndef LANDLOCK_ACCESS_FS_IOCTL_DEV
#define LANDLOCK_ACCESS_FS_IOCTL_DEV    (1ULL << 15)
#endif
/* ABI 6: scopes */
#define PG_LL_SCOPE_ABSTRACT_UNIX       (1ULL << 0)
#define PG_LL_SCOPE_SIGNAL              (1ULL << 1)

#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset 444
#define SYS_landlock_add_rule       445
#define SYS_landlock_restrict_self  446
#endif

/* struct landlock_ruleset_attr as of ABI 6; the kernel accepts the larger
 * size from an older layout's point of view as long as the fields it does
 * not know are zero, and we set only what the probed ABI has. */
struct pg_ll_ruleset_attr {
	uint64_t handled_access_fs;
	uint64_t handled_access_net;
	uint64_t scoped;
};

struct pg_ll_path_beneath {
	uint64_t allowed_access;
	int32_t  parent_fd;
} __attribute__((packed));

/* Rights that apply to a file (the rest only to directories). */
#define PG_LL_FILE_RIGHTS (LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE | \
			   LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_TRUNCATE | \
			   LANDLOCK_ACCESS_FS_IOCTL_DEV)
/* What a read region grants: read, list, execute, device ioctls (a
 * read-only bind lets a child do each of them too). */
#define PG_LL_READ_RIGHTS (LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_READ_FILE | \
			   LANDLOCK_ACCESS_FS_READ_DIR | LANDLOCK_ACCESS_FS_IOCTL_DEV)

static inline long pg_ll_create_ruleset(const struct pg_ll_ruleset_attr *attr, size_t size,
					uint32_t flags)
{
	return syscall(SYS_landlock_create_ruleset, attr, size, flags);
}

static inline long pg_ll_add_rule(int ruleset, int type, const void *attr)
{
	return syscall(SYS_landlock_add_rule, ruleset, type, attr, 0);
}

static inline long pg_ll_restrict_self(int ruleset, uint32_t flags)
{
	return syscall(SYS_landlock_restrict_self, ruleset, flags);
}

#endif
