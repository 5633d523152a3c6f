/* cases.c - the escape catalogue.  Every way out that safe-path libraries
 * and container runtimes have been caught by, against every call of the
 * API.  The standard tree (tests/escape/adv.c) holds, beneath the root:
 * file, dir/{f,sub/g,empty}, .env, secret/{key,sub}, ro/r; and next to the
 * root, outside/{marker,d/f}, which no case may ever reach. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cases.h"
#include "pathgate.h"

const char esc_standard_policy[] =
	"write .\n"
	"deny .env\n"
	"deny secret\n"
	"read ro\n"
	"deny absent-deny\n";

#define OK      0, NULL
#define ESC     EACCES, "workspace.path-escape"
#define DEN     EACCES, "workspace.denied"
#define RO      EROFS, "workspace.read-only"
#define DANG    ENOENT, "workspace.dangling-link"
#define PIN     EBUSY, "workspace.pinned"
#define BADP(e) e, "workspace.bad-path"
#define E(e)    e, NULL
#define EANY(e) e, ANY_NAME

#define R   O_RDONLY
#define W   O_WRONLY
#define CR  (O_WRONLY | O_CREAT)
#define EX  (O_WRONLY | O_CREAT | O_EXCL)
#define TR  (O_WRONLY | O_TRUNC)
#define DR  (O_RDONLY | O_DIRECTORY)
#define NF  (O_RDONLY | O_NOFOLLOW)

#define NOREPL RENAME_NOREPLACE
#define XCHG   RENAME_EXCHANGE

/* Out-of-root links used by many cases. */
#define OUTLINKS \
	"l esc_abs @OUT@\n" \
	"l esc_rel ../outside\n" \
	"l esc_file @OUT@/marker\n" \
	"l esc_relfile ../outside/marker\n" \
	"l esc_slash /\n" \
	"l esc_deep ../../../../../../../../../../etc\n" \
	"l esc_dotdot ..\n"

#define DANGLING \
	"l dl nothere\n" \
	"l dl_dir nodir/x\n" \
	"l dl_abs @OUT@/nothere\n" \
	"l dl_rel ../outside/nothere\n" \
	"l dl_deny absent-deny\n" \
	"l dl_chain dl\n"

#define MAGIC \
	"l p_root /proc/self/root\n" \
	"l p_fd0 /proc/self/fd/0\n" \
	"l p_cwd /proc/self/cwd\n" \
	"l p_exe /proc/self/exe\n" \
	"l p_thread /proc/thread-self/root\n" \
	"l p_rel ../../../../../../../../../../proc/self/root\n"

#define PIN_POLICY "write .\ndeny p/q/.key\n"
#define PIN_TREE   "d p\nd p/q\nf p/q/file pq\nd p/q/e\n"

#define C(name, tree, policy, rflags, between, op, a, b, flags, want) \
	{ name, tree, policy, rflags, between, op, a, b, flags, want }

static const struct esc_case fixed[] = {
	/* ---- '..' with every operation */
	C("dotdot-open",            NULL, NULL, 0, NULL, OP_OPEN, "..", NULL, DR, ESC),
	C("dotdot-slash-stat",      NULL, NULL, 0, NULL, OP_STAT, "../", NULL, 0, ESC),
	C("dotdot-marker-open",     NULL, NULL, 0, NULL, OP_OPEN, "../outside/marker", NULL, R, ESC),
	C("dotdot-marker-write",    NULL, NULL, 0, NULL, OP_OPEN, "../outside/marker", NULL, TR, ESC),
	C("dotdot-creat",           NULL, NULL, 0, NULL, OP_OPEN, "../newfile", NULL, CR, ESC),
	C("dotdot-dir-back-in",     NULL, NULL, 0, NULL, OP_STAT, "dir/../file", NULL, 0, OK),
	C("dotdot-dir-out",         NULL, NULL, 0, NULL, OP_STAT, "dir/../../outside", NULL, 0, ESC),
	C("dotdot-mkdir",           NULL, NULL, 0, NULL, OP_MKDIR, "../x", NULL, 0, ESC),
	C("dotdot-mkdir-all",       NULL, NULL, 0, NULL, OP_MKDIR_ALL, "dir/../../x/y", NULL, 0, ESC),
	C("dotdot-unlink",          NULL, NULL, 0, NULL, OP_UNLINK, "../outside/marker", NULL, 0, ESC),
	C("dotdot-rmdir",           NULL, NULL, 0, NULL, OP_RMDIR, "../outside/d", NULL, 0, ESC),
	C("dotdot-rename-out",      NULL, NULL, 0, NULL, OP_RENAME, "file", "../stolen", 0, ESC),
	C("dotdot-rename-in",       NULL, NULL, 0, NULL, OP_RENAME, "../outside/marker", "got", 0, ESC),
	C("dotdot-rename-xchg",     NULL, NULL, 0, NULL, OP_RENAME, "file", "../outside/marker", XCHG, ESC),
	C("dotdot-link-in",         NULL, NULL, 0, NULL, OP_LINK, "../outside/marker", "hl", 0, ESC),
	C("dotdot-link-out",        NULL, NULL, 0, NULL, OP_LINK, "file", "../hl", 0, ESC),
	C("dotdot-symlink",         NULL, NULL, 0, NULL, OP_SYMLINK, "file", "../sl", 0, ESC),
	C("dotdot-readlink",        NULL, NULL, 0, NULL, OP_READLINK, "../outside/marker", NULL, 0, ESC),
	C("dotdot-chmod",           NULL, NULL, 0, NULL, OP_CHMOD, "../outside/marker", NULL, 0, ESC),
	C("dotdot-truncate",        NULL, NULL, 0, NULL, OP_TRUNCATE, "../outside/marker", NULL, 0, ESC),
	C("dotdot-opendir",         NULL, NULL, 0, NULL, OP_OPENDIR, "dir/sub/../../..", NULL, 0, ESC),
	C("dotdot-write-file",      NULL, NULL, 0, NULL, OP_WRITE_FILE, "../outside/marker", NULL, 0, ESC),
	C("dotdot-check-read",      NULL, NULL, 0, NULL, OP_CHECK_READ, "../outside/marker", NULL, 0, ESC),
	C("dotdot-check-create",    NULL, NULL, 0, NULL, OP_CHECK_CREATE, "../new", NULL, 0, ESC),
	C("dotdot-deny-spelling",   NULL, NULL, 0, NULL, OP_OPEN, "dir/../.env", NULL, R, DEN),
	C("dotdot-deny-creat",      NULL, NULL, 0, NULL, OP_OPEN, "dir/sub/../../absent-deny", NULL, CR, DEN),

	/* ---- absolute paths, even ones naming the root */
	C("abs-etc-passwd",         NULL, NULL, 0, NULL, OP_OPEN, "/etc/passwd", NULL, R, ESC),
	C("abs-slash-stat",         NULL, NULL, 0, NULL, OP_STAT, "/", NULL, 0, ESC),
	C("abs-marker-stat",        NULL, NULL, 0, NULL, OP_STAT, "@OUT@/marker", NULL, 0, ESC),
	C("abs-inside-root",        NULL, NULL, 0, NULL, OP_OPEN, "@ROOT@/file", NULL, R, ESC),
	C("abs-mkdir",              NULL, NULL, 0, NULL, OP_MKDIR, "@OUT@/newdir", NULL, 0, ESC),
	C("abs-creat",              NULL, NULL, 0, NULL, OP_OPEN, "@OUT@/newfile", NULL, CR, ESC),
	C("abs-unlink",             NULL, NULL, 0, NULL, OP_UNLINK, "@OUT@/marker", NULL, 0, ESC),
	C("abs-rename-dest",        NULL, NULL, 0, NULL, OP_RENAME, "file", "@OUT@/moved", 0, ESC),
	C("abs-link-src",           NULL, NULL, 0, NULL, OP_LINK, "@OUT@/marker", "hl", 0, ESC),
	C("abs-write-file",         NULL, NULL, 0, NULL, OP_WRITE_FILE, "@OUT@/marker", NULL, 0, ESC),
	C("abs-chmod",              NULL, NULL, 0, NULL, OP_CHMOD, "@OUT@/marker", NULL, 0, ESC),
	C("abs-truncate",           NULL, NULL, 0, NULL, OP_TRUNCATE, "@OUT@/marker", NULL, 0, ESC),
	C("abs-opendir",            NULL, NULL, 0, NULL, OP_OPENDIR, "@OUT@", NULL, 0, ESC),
	C("abs-check",              NULL, NULL, 0, NULL, OP_CHECK_WRITE, "/etc/passwd", NULL, 0, ESC),
	C("abs-dotdot-slash",       NULL, NULL, 0, NULL, OP_STAT, "/..", NULL, 0, ESC),

	/* ---- symlinks out of the root */
	C("link-abs-dir-stat",      OUTLINKS, NULL, 0, NULL, OP_STAT, "esc_abs", NULL, 0, ESC),
	C("link-abs-dir-lstat",     OUTLINKS, NULL, 0, NULL, OP_LSTAT, "esc_abs", NULL, 0, OK),
	C("link-abs-through",       OUTLINKS, NULL, 0, NULL, OP_OPEN, "esc_abs/marker", NULL, R, ESC),
	C("link-rel-through",       OUTLINKS, NULL, 0, NULL, OP_OPEN, "esc_rel/marker", NULL, R, ESC),
	C("link-abs-file-open",     OUTLINKS, NULL, 0, NULL, OP_OPEN, "esc_file", NULL, R, ESC),
	C("link-rel-file-open",     OUTLINKS, NULL, 0, NULL, OP_OPEN, "esc_relfile", NULL, R, ESC),
	C("link-rel-file-trunc",    OUTLINKS, NULL, 0, NULL, OP_OPEN, "esc_relfile", NULL, TR, ESC),
	C("link-slash-etc",         OUTLINKS, NULL, 0, NULL, OP_OPEN, "esc_slash/etc/passwd", NULL, R, ESC),
	C("link-deep-dotdot",       OUTLINKS, NULL, 0, NULL, OP_OPEN, "esc_deep/passwd", NULL, R, ESC),
	C("link-to-dotdot",         OUTLINKS, NULL, 0, NULL, OP_STAT, "esc_dotdot/outside/marker", NULL, 0, ESC),
	C("link-abs-creat",         OUTLINKS, NULL, 0, NULL, OP_OPEN, "esc_abs/new", NULL, CR, ESC),
	C("link-rel-mkdir",         OUTLINKS, NULL, 0, NULL, OP_MKDIR, "esc_rel/newdir", NULL, 0, ESC),
	C("link-rel-mkdir-all",     OUTLINKS, NULL, 0, NULL, OP_MKDIR_ALL, "esc_rel/a/b", NULL, 0, ESC),
	C("link-abs-unlink-through",OUTLINKS, NULL, 0, NULL, OP_UNLINK, "esc_abs/marker", NULL, 0, ESC),
	C("link-abs-rmdir-through", OUTLINKS, NULL, 0, NULL, OP_RMDIR, "esc_abs/d", NULL, 0, ESC),
	C("link-unlink-itself",     OUTLINKS, NULL, 0, NULL, OP_UNLINK, "esc_file", NULL, 0, OK),
	C("link-rename-itself",     OUTLINKS, NULL, 0, NULL, OP_RENAME, "esc_file", "renamed", 0, OK),
	C("link-rename-into",       OUTLINKS, NULL, 0, NULL, OP_RENAME, "file", "esc_abs/file", 0, ESC),
	C("link-rename-from",       OUTLINKS, NULL, 0, NULL, OP_RENAME, "esc_abs/marker", "got", 0, ESC),
	C("link-xchg-through",      OUTLINKS, NULL, 0, NULL, OP_RENAME, "file", "esc_rel/marker", XCHG, ESC),
	C("link-link-from",         OUTLINKS, NULL, 0, NULL, OP_LINK, "esc_rel/marker", "hl", 0, ESC),
	C("link-link-into",         OUTLINKS, NULL, 0, NULL, OP_LINK, "file", "esc_rel/hl", 0, ESC),
	C("link-symlink-into",      OUTLINKS, NULL, 0, NULL, OP_SYMLINK, "x", "esc_abs/sl", 0, ESC),
	C("link-readlink-itself",   OUTLINKS, NULL, 0, NULL, OP_READLINK, "esc_abs", NULL, 0, OK),
	C("link-readlink-through",  OUTLINKS, NULL, 0, NULL, OP_READLINK, "esc_rel/marker", NULL, 0, ESC),
	C("link-chmod-follows",     OUTLINKS, NULL, 0, NULL, OP_CHMOD, "esc_file", NULL, 0, ESC),
	C("link-truncate-follows",  OUTLINKS, NULL, 0, NULL, OP_TRUNCATE, "esc_relfile", NULL, 0, ESC),
	C("link-opendir",           OUTLINKS, NULL, 0, NULL, OP_OPENDIR, "esc_rel", NULL, 0, ESC),
	C("link-write-file",        OUTLINKS, NULL, 0, NULL, OP_WRITE_FILE, "esc_relfile", NULL, 0, ESC),
	C("link-write-file-through",OUTLINKS, NULL, 0, NULL, OP_WRITE_FILE, "esc_abs/new", NULL, 0, ESC),
	C("link-check-read",        OUTLINKS, NULL, 0, NULL, OP_CHECK_READ, "esc_file", NULL, 0, ESC),
	C("link-check-create",      OUTLINKS, NULL, 0, NULL, OP_CHECK_CREATE, "esc_abs/new", NULL, 0, ESC),
	C("link-chain-out",         "l c1 c2\nl c2 c3\nl c3 dir/../../outside/marker\n", NULL, 0, NULL,
	  OP_OPEN, "c1", NULL, R, ESC),
	C("link-chain-in",          "l c1 c2\nl c2 c3\nl c3 dir/sub/g\n", NULL, 0, NULL,
	  OP_OPEN, "c1", NULL, R, OK),
	C("link-in-dir-rel-up",     "l dir/up ../file\n", NULL, 0, NULL, OP_OPEN, "dir/up", NULL, R, OK),
	C("link-in-dir-rel-out",    "l dir/sub/up ../../../outside/marker\n", NULL, 0, NULL,
	  OP_OPEN, "dir/sub/up", NULL, R, ESC),
	C("link-nofollow-final",    "l lf file\n", NULL, 0, NULL, OP_OPEN, "lf", NULL, NF, E(ELOOP)),

	/* ---- a symlink then '..': the kernel's answer is the real one */
	C("link-dotdot-into-deny",  "l sl secret/sub\n", NULL, 0, NULL, OP_OPEN, "sl/../key", NULL, R, DEN),
	C("link-dotdot-creat-deny", "l sl secret/sub\n", NULL, 0, NULL, OP_OPEN, "sl/../new", NULL, CR, DEN),

	/* ---- loops */
	C("loop-pair-open",         "l loop1 loop2\nl loop2 loop1\n", NULL, 0, NULL, OP_OPEN, "loop1", NULL, R, E(ELOOP)),
	C("loop-pair-stat",         "l loop1 loop2\nl loop2 loop1\n", NULL, 0, NULL, OP_STAT, "loop1", NULL, 0, E(ELOOP)),
	C("loop-pair-lstat",        "l loop1 loop2\nl loop2 loop1\n", NULL, 0, NULL, OP_LSTAT, "loop1", NULL, 0, OK),
	C("loop-self-dir",          "l self self\n", NULL, 0, NULL, OP_STAT, "self/x", NULL, 0, E(ELOOP)),
	C("loop-self-creat",        "l self self\n", NULL, 0, NULL, OP_OPEN, "self", NULL, CR, E(ELOOP)),
	C("loop-self-mkdir-under",  "l self self\n", NULL, 0, NULL, OP_MKDIR, "self/d", NULL, 0, E(ELOOP)),
	C("loop-unlink-itself",     "l self self\n", NULL, 0, NULL, OP_UNLINK, "self", NULL, 0, OK),
	C("loop-via-dir",           "l dir/back ../dir/back\n", NULL, 0, NULL, OP_OPEN, "dir/back", NULL, R, E(ELOOP)),

	/* ---- dangling links: creating through them is ambiguous */
	C("dangling-creat",         DANGLING, NULL, 0, NULL, OP_OPEN, "dl", NULL, CR, DANG),
	C("dangling-creat-parent",  DANGLING, NULL, 0, NULL, OP_OPEN, "dl_dir", NULL, CR, DANG),
	C("dangling-chain-creat",   DANGLING, NULL, 0, NULL, OP_OPEN, "dl_chain", NULL, CR, DANG),
	C("dangling-mkdir",         DANGLING, NULL, 0, NULL, OP_MKDIR, "dl", NULL, 0, DANG),
	C("dangling-mkdir-all",     DANGLING, NULL, 0, NULL, OP_MKDIR_ALL, "dl/x", NULL, 0, DANG),
	C("dangling-symlink",       DANGLING, NULL, 0, NULL, OP_SYMLINK, "file", "dl", 0, DANG),
	C("dangling-link",          DANGLING, NULL, 0, NULL, OP_LINK, "file", "dl", 0, DANG),
	/* rename(2) replaces the link itself (issue 11.11): not a dangling
	 * creation. */
	C("dangling-rename",        DANGLING, NULL, 0, NULL, OP_RENAME, "file", "dl", 0, OK),
	C("dangling-write-file",    DANGLING, NULL, 0, NULL, OP_WRITE_FILE, "dl", NULL, 0, DANG),
	C("dangling-check-create",  DANGLING, NULL, 0, NULL, OP_CHECK_CREATE, "dl", NULL, 0, DANG),
	C("dangling-open-read",     DANGLING, NULL, 0, NULL, OP_OPEN, "dl", NULL, R, EANY(ENOENT)),
	C("dangling-stat",          DANGLING, NULL, 0, NULL, OP_STAT, "dl", NULL, 0, EANY(ENOENT)),
	C("dangling-lstat",         DANGLING, NULL, 0, NULL, OP_LSTAT, "dl", NULL, 0, OK),
	C("dangling-readlink",      DANGLING, NULL, 0, NULL, OP_READLINK, "dl", NULL, 0, OK),
	C("dangling-unlink",        DANGLING, NULL, 0, NULL, OP_UNLINK, "dl", NULL, 0, OK),
	C("dangling-truncate",      DANGLING, NULL, 0, NULL, OP_TRUNCATE, "dl", NULL, 0, EANY(ENOENT)),
	C("dangling-abs-creat",     DANGLING, NULL, 0, NULL, OP_OPEN, "dl_abs", NULL, CR, ESC),
	C("dangling-rel-creat",     DANGLING, NULL, 0, NULL, OP_OPEN, "dl_rel", NULL, CR, ESC),
	C("dangling-abs-mkdir",     DANGLING, NULL, 0, NULL, OP_MKDIR_ALL, "dl_abs/x", NULL, 0, ESC),
	C("dangling-rel-write",     DANGLING, NULL, 0, NULL, OP_WRITE_FILE, "dl_rel", NULL, 0, ESC),
	C("dangling-to-deny-creat", DANGLING, NULL, 0, NULL, OP_OPEN, "dl_deny", NULL, CR, DEN),
	C("dangling-to-deny-write", DANGLING, NULL, 0, NULL, OP_WRITE_FILE, "dl_deny", NULL, 0, DEN),
	C("dangling-to-deny-mkdir", DANGLING, NULL, 0, NULL, OP_MKDIR, "dl_deny", NULL, 0, DEN),

	/* ---- magic links: refused even though /proc is outside anyway */
	C("magic-root",             MAGIC, NULL, 0, NULL, OP_OPEN, "p_root/etc/passwd", NULL, R, ESC),
	C("magic-root-stat",        MAGIC, NULL, 0, NULL, OP_STAT, "p_root", NULL, 0, ESC),
	C("magic-fd",               MAGIC, NULL, 0, NULL, OP_OPEN, "p_fd0", NULL, R, ESC),
	C("magic-cwd",              MAGIC, NULL, 0, NULL, OP_OPENDIR, "p_cwd", NULL, 0, ESC),
	C("magic-exe",              MAGIC, NULL, 0, NULL, OP_OPEN, "p_exe", NULL, R, ESC),
	C("magic-thread-self",      MAGIC, NULL, 0, NULL, OP_STAT, "p_thread/etc", NULL, 0, ESC),
	C("magic-rel",              MAGIC, NULL, 0, NULL, OP_OPEN, "p_rel/etc/passwd", NULL, R, ESC),
	C("magic-creat",            MAGIC, NULL, 0, NULL, OP_OPEN, "p_cwd/new", NULL, CR, ESC),
	C("magic-lstat-itself",     MAGIC, NULL, 0, NULL, OP_LSTAT, "p_root", NULL, 0, OK),
	/* /proc mounted inside the root, crossing allowed: the magic links
	 * themselves must still be refused. */
	C("magic-procfs-root",      "b proc /proc\n", NULL, PG_ROOT_XDEV, NULL,
	  OP_OPEN, "proc/self/root/etc/passwd", NULL, R, ESC),
	C("magic-procfs-cwd",       "b proc /proc\n", NULL, PG_ROOT_XDEV, NULL,
	  OP_STAT, "proc/self/cwd", NULL, 0, ESC),
	C("magic-procfs-fd",        "b proc /proc\n", NULL, PG_ROOT_XDEV, NULL,
	  OP_OPEN, "proc/self/fd/0", NULL, R, ESC),
	C("magic-procfs-plain",     "b proc /proc\n", NULL, PG_ROOT_XDEV, NULL,
	  OP_OPEN, "proc/self/status", NULL, R, OK),

	/* ---- trailing slashes */
	C("slash-file-open",        NULL, NULL, 0, NULL, OP_OPEN, "file/", NULL, R, E(ENOTDIR)),
	C("slash-file-stat",        NULL, NULL, 0, NULL, OP_STAT, "file/", NULL, 0, E(ENOTDIR)),
	C("slash-file-unlink",      NULL, NULL, 0, NULL, OP_UNLINK, "file/", NULL, 0, E(ENOTDIR)),
	C("slash-file-rename-src",  NULL, NULL, 0, NULL, OP_RENAME, "file/", "moved", 0, E(ENOTDIR)),
	C("slash-file-rename-dst",  NULL, NULL, 0, NULL, OP_RENAME, "file", "moved/", 0, E(ENOTDIR)),
	C("slash-file-creat",       NULL, NULL, 0, NULL, OP_OPEN, "file/", NULL, CR, E(EISDIR)),
	C("slash-new-creat",        NULL, NULL, 0, NULL, OP_OPEN, "newf/", NULL, CR, E(EISDIR)),
	C("slash-link-to-file",     "l lf file\n", NULL, 0, NULL, OP_STAT, "lf/", NULL, 0, E(ENOTDIR)),
	C("slash-dir-stat",         NULL, NULL, 0, NULL, OP_STAT, "dir/", NULL, 0, OK),
	C("slash-dir-opendir",      NULL, NULL, 0, NULL, OP_OPENDIR, "dir/", NULL, 0, OK),
	C("slash-new-mkdir",        NULL, NULL, 0, NULL, OP_MKDIR, "newd/", NULL, 0, OK),
	C("slash-deny-file",        NULL, NULL, 0, NULL, OP_OPEN, ".env/", NULL, R, DEN),
	C("slash-deny-dir",         NULL, NULL, 0, NULL, OP_OPENDIR, "secret/", NULL, 0, DEN),
	C("slash-deny-absent",      NULL, NULL, 0, NULL, OP_MKDIR, "absent-deny/", NULL, 0, DEN),

	/* ---- '.' and empty components */
	C("dot-file",               NULL, NULL, 0, NULL, OP_OPEN, "./file", NULL, R, OK),
	C("dot-double-slash",       NULL, NULL, 0, NULL, OP_OPEN, ".//dir//f", NULL, R, OK),
	C("dot-inner",              NULL, NULL, 0, NULL, OP_STAT, "dir/./sub/./g", NULL, 0, OK),
	C("dot-root-stat",          NULL, NULL, 0, NULL, OP_STAT, ".", NULL, 0, OK),
	C("dot-root-opendir",       NULL, NULL, 0, NULL, OP_OPENDIR, "./", NULL, 0, OK),
	C("dot-root-mkdir",         NULL, NULL, 0, NULL, OP_MKDIR, ".", NULL, 0, EANY(EEXIST)),
	C("dot-empty-path",         NULL, NULL, 0, NULL, OP_STAT, "", NULL, 0, BADP(ENOENT)),
	C("dot-empty-creat",        NULL, NULL, 0, NULL, OP_OPEN, "", NULL, CR, BADP(ENOENT)),
	C("dot-deny-file",          NULL, NULL, 0, NULL, OP_OPEN, "./.env", NULL, R, DEN),
	C("dot-deny-slashes",       NULL, NULL, 0, NULL, OP_OPEN, ".//.env", NULL, R, DEN),
	C("dot-deny-dir",           NULL, NULL, 0, NULL, OP_OPEN, "secret/./key", NULL, R, DEN),
	C("dot-deny-roundtrip",     NULL, NULL, 0, NULL, OP_OPEN, "./secret/../secret/key", NULL, R, DEN),
	C("dot-ro-write",           NULL, NULL, 0, NULL, OP_OPEN, "ro/./r", NULL, W, RO),

	/* ---- long names and paths (the long ones are filled in below) */
	C("long-name-255-creat",    NULL, NULL, 0, NULL, OP_OPEN, NULL, NULL, CR, OK),
	C("long-name-256-creat",    NULL, NULL, 0, NULL, OP_OPEN, NULL, NULL, CR, BADP(ENAMETOOLONG)),
	C("long-name-256-mkdir",    NULL, NULL, 0, NULL, OP_MKDIR, NULL, NULL, 0, BADP(ENAMETOOLONG)),
	C("long-name-256-rename",   NULL, NULL, 0, NULL, OP_RENAME, "file", NULL, 0, BADP(ENAMETOOLONG)),
	C("long-path-4000-stat",    NULL, NULL, 0, NULL, OP_STAT, NULL, NULL, 0, E(ENOENT)),
	C("long-path-4001-stat",    NULL, NULL, 0, NULL, OP_STAT, NULL, NULL, 0, BADP(ENAMETOOLONG)),
	C("long-path-4001-write",   NULL, NULL, 0, NULL, OP_WRITE_FILE, NULL, NULL, 0, BADP(ENAMETOOLONG)),
	C("long-path-4001-link",    NULL, NULL, 0, NULL, OP_LINK, "file", NULL, 0, BADP(ENAMETOOLONG)),
	C("non-utf8-creat",         NULL, NULL, 0, NULL, OP_OPEN, "\xff\xfe-\xc0\xaf", NULL, CR, OK),

	/* ---- mounts inside the root (we are root in CI; skipped otherwise) */
	C("mount-tmpfs-through",    "m mnt\n", NULL, 0, NULL, OP_OPEN, "mnt/x", NULL, R, ESC),
	C("mount-tmpfs-point",      "m mnt\n", NULL, 0, NULL, OP_STAT, "mnt", NULL, 0, ESC),
	C("mount-tmpfs-creat",      "m mnt\n", NULL, 0, NULL, OP_OPEN, "mnt/new", NULL, CR, ESC),
	C("mount-tmpfs-mkdir",      "m mnt\n", NULL, 0, NULL, OP_MKDIR, "mnt/d", NULL, 0, ESC),
	C("mount-tmpfs-opendir",    "m mnt\n", NULL, 0, NULL, OP_OPENDIR, "mnt", NULL, 0, ESC),
	C("mount-tmpfs-rename-in",  "m mnt\n", NULL, 0, NULL, OP_RENAME, "file", "mnt/file", 0, ESC),
	C("mount-tmpfs-write",      "m mnt\n", NULL, 0, NULL, OP_WRITE_FILE, "mnt/x", NULL, 0, ESC),
	C("mount-tmpfs-xdev",       "m mnt\n", NULL, PG_ROOT_XDEV, NULL, OP_OPEN, "mnt/x", NULL, R, OK),
	C("mount-bind-out",         "b bnd @OUT@\n", NULL, 0, NULL, OP_OPEN, "bnd/marker", NULL, R, ESC),
	C("mount-bind-out-write",   "b bnd @OUT@\n", NULL, 0, NULL, OP_WRITE_FILE, "bnd/marker", NULL, 0, ESC),
	C("mount-bind-via-link",    "b bnd @OUT@\nl tobnd bnd\n", NULL, 0, NULL, OP_STAT, "tobnd/marker", NULL, 0, ESC),
	C("mount-bind-xdev",        "b bnd @OUT@\n", NULL, PG_ROOT_XDEV, NULL, OP_STAT, "bnd/marker", NULL, 0, OK),
	/* Deeper through the mount: the walk without openat2 looks at the
	 * mount of the deepest directory it holds before anything but a step
	 * down (a '..', a missing name, a file, the final name). */
	C("mount-bind-deep",        "b bnd @OUT@\n", NULL, 0, NULL, OP_OPEN, "bnd/d/f", NULL, R, ESC),
	C("mount-bind-deep-dotdot", "b bnd @OUT@\n", NULL, 0, NULL, OP_STAT, "bnd/d/../marker", NULL, 0, ESC),
	C("mount-bind-deep-up",     "b bnd @OUT@\n", NULL, 0, NULL, OP_STAT, "bnd/d/../../file", NULL, 0, ESC),
	C("mount-bind-deep-absent", "b bnd @OUT@\n", NULL, 0, NULL, OP_OPEN, "bnd/d/nothere/x", NULL, CR, ESC),
	C("mount-bind-deep-notdir", "b bnd @OUT@\n", NULL, 0, NULL, OP_STAT, "bnd/d/f/x", NULL, 0, ESC),
	C("mount-bind-deep-creat",  "b bnd @OUT@\n", NULL, 0, NULL, OP_OPEN, "bnd/d/new", NULL, CR, ESC),
	C("mount-bind-deep-mkdir",  "b bnd @OUT@\n", NULL, 0, NULL, OP_MKDIR, "bnd/d/nd", NULL, 0, ESC),

	/* ---- a directory (or file) replaced by a symlink between two calls */
	C("swap-dir-abs",           "f ../outside/f OUTSIDE\n", NULL, 0, "r dir\nl dir @OUT@\n",
	  OP_OPEN, "dir/f", NULL, R, ESC),
	C("swap-dir-rel",           "f ../outside/f OUTSIDE\n", NULL, 0, "r dir\nl dir ../outside\n",
	  OP_OPEN, "dir/f", NULL, TR, ESC),
	C("swap-dir-creat",         NULL, NULL, 0, "r dir\nl dir ../outside\n", OP_OPEN, "dir/new", NULL, CR, ESC),
	C("swap-dir-mkdir",         NULL, NULL, 0, "r dir\nl dir ../outside\n", OP_MKDIR, "dir/sub", NULL, 0, ESC),
	C("swap-dir-write",         NULL, NULL, 0, "r dir\nl dir ../outside\n", OP_WRITE_FILE, "dir/f", NULL, 0, ESC),
	C("swap-dir-rename",        NULL, NULL, 0, "r dir\nl dir ../outside\n", OP_RENAME, "file", "dir/f", 0, ESC),
	C("swap-dir-unlink",        "f ../outside/f OUTSIDE\n", NULL, 0, "r dir\nl dir ../outside\n",
	  OP_UNLINK, "dir/f", NULL, 0, ESC),
	C("swap-dir-to-deny",       "f secret/f KEYF\n", NULL, 0, "r dir\nl dir secret\n", OP_OPEN, "dir/f", NULL, R, DEN),
	C("swap-dir-to-ro",         "f ro/f RF\n", NULL, 0, "r dir\nl dir ro\n", OP_WRITE_FILE, "dir/f", NULL, 0, RO),
	C("swap-file-to-deny",      NULL, NULL, 0, "r file\nl file .env\n", OP_OPEN, "file", NULL, R, DEN),
	C("swap-file-to-out",       NULL, NULL, 0, "r file\nl file @OUT@/marker\n", OP_OPEN, "file", NULL, R, ESC),
	C("swap-file-chmod",        NULL, NULL, 0, "r file\nl file @OUT@/marker\n", OP_CHMOD, "file", NULL, 0, ESC),
	C("swap-file-truncate",     NULL, NULL, 0, "r file\nl file ../outside/marker\n", OP_TRUNCATE, "file", NULL, 0, ESC),
	C("swap-file-write",        NULL, NULL, 0, "r file\nl file ../outside/marker\n", OP_WRITE_FILE, "file", NULL, 0, ESC),

	/* ---- hard links to denied and read-only files */
	C("hardlink-deny-read",     "h alias .env\n", NULL, 0, NULL, OP_OPEN, "alias", NULL, R, DEN),
	C("hardlink-deny-write",    "h alias .env\n", NULL, 0, NULL, OP_OPEN, "alias", NULL, W, DEN),
	C("hardlink-deny-trunc",    "h alias .env\n", NULL, 0, NULL, OP_TRUNCATE, "alias", NULL, 0, DEN),
	C("hardlink-deny-chmod",    "h alias .env\n", NULL, 0, NULL, OP_CHMOD, "alias", NULL, 0, DEN),
	C("hardlink-deny-check",    "h alias .env\n", NULL, 0, NULL, OP_CHECK_READ, "alias", NULL, 0, DEN),
	C("hardlink-deny-relink",   "h alias .env\n", NULL, 0, NULL, OP_LINK, "alias", "alias2", 0, DEN),
	C("hardlink-deny-link-src", NULL, NULL, 0, NULL, OP_LINK, ".env", "alias", 0, DEN),
	C("hardlink-deny-dir-file", "h skey secret/key\n", NULL, 0, NULL, OP_OPEN, "skey", NULL, R, DEN),
	C("hardlink-made-later",    NULL, NULL, 0, "h late .env\n", OP_OPEN, "late", NULL, R, DEN),
	C("hardlink-deny-dirflag",  "h alias .env\n", NULL, 0, NULL, OP_OPEN, "alias", NULL, DR, DEN),
	C("hardlink-deny-opendir",  "h alias .env\n", NULL, 0, NULL, OP_OPENDIR, "alias", NULL, 0, DEN),
	C("hardlink-ro-write",      "h rofile ro/r\n", NULL, 0, NULL, OP_OPEN, "rofile", NULL, W, RO),
	C("hardlink-ro-read",       "h rofile ro/r\n", NULL, 0, NULL, OP_OPEN, "rofile", NULL, R, OK),

	/* ---- spellings: case and Unicode collision classes */
	C("case-upper-read",        NULL, NULL, 0, NULL, OP_OPEN, ".ENV", NULL, R, DEN),
	C("case-upper-creat",       NULL, NULL, 0, NULL, OP_OPEN, ".ENV", NULL, CR, DEN),
	C("case-mixed-creat",       NULL, NULL, 0, NULL, OP_OPEN, ".Env", NULL, CR, DEN),
	C("case-dir-mkdir",         NULL, NULL, 0, NULL, OP_MKDIR, "SECRET", NULL, 0, DEN),
	C("case-dir-write",         NULL, NULL, 0, NULL, OP_WRITE_FILE, "Secret/x", NULL, 0, DEN),
	C("case-rename-dest",       NULL, NULL, 0, NULL, OP_RENAME, "file", ".eNv", 0, DEN),
	C("case-symlink-dest",      NULL, NULL, 0, NULL, OP_SYMLINK, "file", ".ENV", 0, DEN),
	C("case-link-dest",         NULL, NULL, 0, NULL, OP_LINK, "file", ".ENV", 0, DEN),
	C("case-absent-creat",      NULL, NULL, 0, NULL, OP_OPEN, "ABSENT-DENY", NULL, CR, DEN),
	C("case-check-create",      NULL, NULL, 0, NULL, OP_CHECK_CREATE, ".eNV", NULL, 0, DEN),
	C("case-ro-write",          NULL, NULL, 0, NULL, OP_WRITE_FILE, "RO/r", NULL, 0, RO),
	C("unicode-nfd-vs-nfc",     NULL, "write .\ndeny caf\xc3\xa9\n", 0, NULL,
	  OP_OPEN, "cafe\xcc\x81", NULL, CR, DEN),
	C("unicode-kelvin",         NULL, "write .\ndeny kelvin\n", 0, NULL,
	  OP_OPEN, "\xe2\x84\xaa" "elvin", NULL, CR, DEN),
	C("case-allow-as-stored",   "d Work\n", "deny .\nwrite Work\n", 0, NULL,
	  OP_OPEN, "work/x", NULL, CR, DEN),
	C("case-allow-exact",       "d Work\n", "deny .\nwrite Work\n", 0, NULL,
	  OP_OPEN, "Work/x", NULL, CR, OK),

	/* ---- deny and read: every operation, every spelling */
	C("deny-open-read",         NULL, NULL, 0, NULL, OP_OPEN, "secret/key", NULL, R, DEN),
	C("deny-stat",              NULL, NULL, 0, NULL, OP_STAT, "secret/key", NULL, 0, DEN),
	C("deny-opendir",           NULL, NULL, 0, NULL, OP_OPENDIR, "secret", NULL, 0, DEN),
	C("deny-mkdir-inside",      NULL, NULL, 0, NULL, OP_MKDIR, "secret/d", NULL, 0, DEN),
	C("deny-unlink",            NULL, NULL, 0, NULL, OP_UNLINK, ".env", NULL, 0, DEN),
	C("deny-rmdir",             NULL, NULL, 0, NULL, OP_RMDIR, "secret/sub", NULL, 0, DEN),
	C("deny-rename-away",       NULL, NULL, 0, NULL, OP_RENAME, "secret", "notsecret", 0, DEN),
	C("deny-rename-into",       NULL, NULL, 0, NULL, OP_RENAME, "file", "secret/file", 0, DEN),
	C("deny-rename-onto",       NULL, NULL, 0, NULL, OP_RENAME, "file", ".env", 0, DEN),
	C("deny-rename-xchg",       NULL, NULL, 0, NULL, OP_RENAME, "file", ".env", XCHG, DEN),
	C("deny-rename-absent",     NULL, NULL, 0, NULL, OP_RENAME, "file", "absent-deny", 0, DEN),
	C("deny-rename-dir-absent", NULL, NULL, 0, NULL, OP_RENAME, "dir", "absent-deny", NOREPL, DEN),
	C("deny-mkdir-absent",      NULL, NULL, 0, NULL, OP_MKDIR, "absent-deny", NULL, 0, DEN),
	C("deny-mkdir-all-absent",  NULL, NULL, 0, NULL, OP_MKDIR_ALL, "absent-deny/x/y", NULL, 0, DEN),
	C("deny-symlink-absent",    NULL, NULL, 0, NULL, OP_SYMLINK, "file", "absent-deny", 0, DEN),
	C("deny-link-absent",       NULL, NULL, 0, NULL, OP_LINK, "file", "absent-deny", 0, DEN),
	C("deny-creat-absent",      NULL, NULL, 0, NULL, OP_OPEN, "absent-deny", NULL, CR, DEN),
	C("deny-write-absent",      NULL, NULL, 0, NULL, OP_WRITE_FILE, "absent-deny", NULL, 0, DEN),
	C("deny-chmod",             NULL, NULL, 0, NULL, OP_CHMOD, ".env", NULL, 0, DEN),
	C("deny-truncate",          NULL, NULL, 0, NULL, OP_TRUNCATE, ".env", NULL, 0, DEN),
	C("deny-via-dir-link",      "l tosecret secret\n", NULL, 0, NULL, OP_OPEN, "tosecret/key", NULL, R, DEN),
	C("deny-via-file-link",     "l toenv .env\n", NULL, 0, NULL, OP_OPEN, "toenv", NULL, R, DEN),
	C("deny-via-link-write",    "l toenv .env\n", NULL, 0, NULL, OP_WRITE_FILE, "toenv", NULL, 0, DEN),
	C("deny-link-readlink",     "l toenv .env\n", NULL, 0, NULL, OP_READLINK, "toenv", NULL, 0, OK),
	C("deny-named-link-target", "l dlink dir\n", "write .\ndeny dlink\n", 0, NULL,
	  OP_OPEN, "dir/f", NULL, R, DEN),
	C("deny-check-delete",      NULL, NULL, 0, NULL, OP_CHECK_DELETE, "secret/key", NULL, 0, DEN),
	C("ro-open-write",          NULL, NULL, 0, NULL, OP_OPEN, "ro/r", NULL, W, RO),
	C("ro-open-read",           NULL, NULL, 0, NULL, OP_OPEN, "ro/r", NULL, R, OK),
	C("ro-creat",               NULL, NULL, 0, NULL, OP_OPEN, "ro/new", NULL, CR, RO),
	C("ro-mkdir",               NULL, NULL, 0, NULL, OP_MKDIR, "ro/d", NULL, 0, RO),
	C("ro-unlink",              NULL, NULL, 0, NULL, OP_UNLINK, "ro/r", NULL, 0, RO),
	C("ro-rename-out",          NULL, NULL, 0, NULL, OP_RENAME, "ro/r", "moved", 0, RO),
	C("ro-rename-in",           NULL, NULL, 0, NULL, OP_RENAME, "file", "ro/file", 0, RO),
	C("ro-link-in",             NULL, NULL, 0, NULL, OP_LINK, "file", "ro/hl", 0, RO),
	C("ro-symlink-in",          NULL, NULL, 0, NULL, OP_SYMLINK, "x", "ro/sl", 0, RO),
	C("ro-chmod",               NULL, NULL, 0, NULL, OP_CHMOD, "ro/r", NULL, 0, RO),
	C("ro-truncate",            NULL, NULL, 0, NULL, OP_TRUNCATE, "ro/r", NULL, 0, RO),
	C("ro-write-file",          NULL, NULL, 0, NULL, OP_WRITE_FILE, "ro/r", NULL, 0, RO),
	C("ro-check-write",         NULL, NULL, 0, NULL, OP_CHECK_WRITE, "ro/r", NULL, 0, RO),
	C("ro-opendir",             NULL, NULL, 0, NULL, OP_OPENDIR, "ro", NULL, 0, OK),
	C("pin-rename",             PIN_TREE, PIN_POLICY, 0, NULL, OP_RENAME, "p", "pz", 0, PIN),
	C("pin-rename-inner",       PIN_TREE, PIN_POLICY, 0, NULL, OP_RENAME, "p/q", "pq", 0, PIN),
	C("pin-rmdir",              "d p\nd p/q\n", PIN_POLICY, 0, NULL, OP_RMDIR, "p/q", NULL, 0, PIN),
	C("pin-xchg",               PIN_TREE, PIN_POLICY, 0, NULL, OP_RENAME, "p", "dir", XCHG, PIN),
	C("pin-inside-works",       PIN_TREE, PIN_POLICY, 0, NULL, OP_RENAME, "p/q/file", "p/q/moved", 0, OK),

	/* ---- every operation, plain: the guard lets ordinary work through
	 * and keeps the kernel's own answers */
	C("plain-open-read",        NULL, NULL, 0, NULL, OP_OPEN, "file", NULL, R, OK),
	C("plain-open-write",       NULL, NULL, 0, NULL, OP_OPEN, "dir/f", NULL, W, OK),
	C("plain-open-creat",       NULL, NULL, 0, NULL, OP_OPEN, "dir/new", NULL, CR, OK),
	C("plain-open-excl",        NULL, NULL, 0, NULL, OP_OPEN, "file", NULL, EX, E(EEXIST)),
	C("plain-open-missing",     NULL, NULL, 0, NULL, OP_OPEN, "missing", NULL, R, E(ENOENT)),
	C("plain-open-dir-flag",    NULL, NULL, 0, NULL, OP_OPEN, "file", NULL, DR, E(ENOTDIR)),
	C("plain-open-dir-write",   NULL, NULL, 0, NULL, OP_OPEN, "dir", NULL, W, E(EISDIR)),
	C("plain-stat",             NULL, NULL, 0, NULL, OP_STAT, "dir/sub/g", NULL, 0, OK),
	C("plain-lstat",            NULL, NULL, 0, NULL, OP_LSTAT, "dir", NULL, 0, OK),
	C("plain-mkdir",            NULL, NULL, 0, NULL, OP_MKDIR, "dir/newd", NULL, 0, OK),
	C("plain-mkdir-exists",     NULL, NULL, 0, NULL, OP_MKDIR, "dir", NULL, 0, E(EEXIST)),
	C("plain-mkdir-noparent",   NULL, NULL, 0, NULL, OP_MKDIR, "nope/d", NULL, 0, E(ENOENT)),
	C("plain-mkdir-all",        NULL, NULL, 0, NULL, OP_MKDIR_ALL, "a/b/c/d", NULL, 0, OK),
	C("plain-mkdir-all-exists", NULL, NULL, 0, NULL, OP_MKDIR_ALL, "dir/sub", NULL, 0, OK),
	C("plain-mkdir-all-file",   NULL, NULL, 0, NULL, OP_MKDIR_ALL, "file/x", NULL, 0, E(ENOTDIR)),
	C("plain-unlink",           NULL, NULL, 0, NULL, OP_UNLINK, "dir/f", NULL, 0, OK),
	C("plain-unlink-dir",       NULL, NULL, 0, NULL, OP_UNLINK, "dir/empty", NULL, 0, E(EISDIR)),
	C("plain-unlink-missing",   NULL, NULL, 0, NULL, OP_UNLINK, "missing", NULL, 0, E(ENOENT)),
	C("plain-rmdir",            NULL, NULL, 0, NULL, OP_RMDIR, "dir/empty", NULL, 0, OK),
	C("plain-rmdir-notempty",   NULL, NULL, 0, NULL, OP_RMDIR, "dir", NULL, 0, E(ENOTEMPTY)),
	C("plain-rmdir-file",       NULL, NULL, 0, NULL, OP_RMDIR, "file", NULL, 0, E(ENOTDIR)),
	C("plain-rename",           NULL, NULL, 0, NULL, OP_RENAME, "file", "dir/moved", 0, OK),
	C("plain-rename-noreplace", NULL, NULL, 0, NULL, OP_RENAME, "file", "dir/f", NOREPL, E(EEXIST)),
	C("plain-rename-xchg",      NULL, NULL, 0, NULL, OP_RENAME, "file", "dir/f", XCHG, OK),
	C("plain-rename-xchg-none", NULL, NULL, 0, NULL, OP_RENAME, "file", "missing", XCHG, E(ENOENT)),
	C("plain-rename-bad-flags", NULL, NULL, 0, NULL, OP_RENAME, "file", "dir/x", 0x80, E(EINVAL)),
	C("plain-rename-both-flags",NULL, NULL, 0, NULL, OP_RENAME, "file", "dir/f", NOREPL | XCHG, E(EINVAL)),
	C("plain-link",             NULL, NULL, 0, NULL, OP_LINK, "file", "dir/hl", 0, OK),
	C("plain-link-dir",         NULL, NULL, 0, NULL, OP_LINK, "dir", "hl", 0, E(EPERM)),
	C("plain-symlink",          NULL, NULL, 0, NULL, OP_SYMLINK, "file", "dir/sl", 0, OK),
	C("plain-symlink-exists",   NULL, NULL, 0, NULL, OP_SYMLINK, "x", "file", 0, E(EEXIST)),
	C("plain-readlink",         "l lf file\n", NULL, 0, NULL, OP_READLINK, "lf", NULL, 0, OK),
	C("plain-readlink-file",    NULL, NULL, 0, NULL, OP_READLINK, "file", NULL, 0, E(EINVAL)),
	C("plain-chmod",            NULL, NULL, 0, NULL, OP_CHMOD, "file", NULL, 0, OK),
	C("plain-truncate",         NULL, NULL, 0, NULL, OP_TRUNCATE, "file", NULL, 0, OK),
	C("plain-truncate-dir",     NULL, NULL, 0, NULL, OP_TRUNCATE, "dir", NULL, 0, E(EISDIR)),
	C("plain-opendir",          NULL, NULL, 0, NULL, OP_OPENDIR, "dir/sub", NULL, 0, OK),
	C("plain-opendir-file",     NULL, NULL, 0, NULL, OP_OPENDIR, "file", NULL, 0, E(ENOTDIR)),
	C("plain-write-file",       NULL, NULL, 0, NULL, OP_WRITE_FILE, "dir/new", NULL, 0, OK),
	C("plain-write-existing",   NULL, NULL, 0, NULL, OP_WRITE_FILE, "file", NULL, 0, OK),
	C("plain-write-dir",        NULL, NULL, 0, NULL, OP_WRITE_FILE, "dir", NULL, 0, E(EISDIR)),
	C("plain-link-follow-in",   "l lf file\n", NULL, 0, NULL, OP_OPEN, "lf", NULL, R, OK),
	C("plain-check-read",       NULL, NULL, 0, NULL, OP_CHECK_READ, "file", NULL, 0, OK),
	C("plain-check-write",      NULL, NULL, 0, NULL, OP_CHECK_WRITE, "dir/f", NULL, 0, OK),
	C("plain-check-create",     NULL, NULL, 0, NULL, OP_CHECK_CREATE, "dir/new", NULL, 0, OK),
	C("plain-check-delete",     NULL, NULL, 0, NULL, OP_CHECK_DELETE, "file", NULL, 0, OK),

	/* ---- more spellings and open flags */
	C("link-out-and-back",      OUTLINKS, NULL, 0, NULL, OP_STAT, "esc_rel/../root/file", NULL, 0, ESC),
	C("link-abs-out-and-back",  OUTLINKS, NULL, 0, NULL, OP_OPEN, "esc_abs/../root/file", NULL, R, ESC),
	C("link-deeper-dotdot",     "l deep dir/sub\n", NULL, 0, NULL, OP_STAT, "deep/../f", NULL, 0, OK),
	C("link-dot-repeat",        "l dot .\n", NULL, 0, NULL, OP_OPEN, "dot/dot/dot/dir/f", NULL, R, OK),
	C("link-mkdir-all-in",      "l ld dir\n", NULL, 0, NULL, OP_MKDIR_ALL, "ld/new/x", NULL, 0, OK),
	C("link-to-ro-truncate",    "l toro ro/r\n", NULL, 0, NULL, OP_TRUNCATE, "toro", NULL, 0, RO),
	C("link-to-ro-chmod",       "l toro ro/r\n", NULL, 0, NULL, OP_CHMOD, "toro", NULL, 0, RO),
	C("link-to-deny-unlink",    "l toenv .env\n", NULL, 0, NULL, OP_UNLINK, "toenv", NULL, 0, OK),
	C("deny-chmod-dir",         NULL, NULL, 0, NULL, OP_CHMOD, "secret", NULL, 0, DEN),
	C("deny-append",            NULL, NULL, 0, NULL, OP_OPEN, "secret/key", NULL, O_WRONLY | O_APPEND, DEN),
	C("deny-excl-case",         NULL, NULL, 0, NULL, OP_OPEN, ".ENV", NULL, EX, DEN),
	C("slash-dot-file",         NULL, NULL, 0, NULL, OP_STAT, "file/.", NULL, 0, E(ENOTDIR)),
	C("slash-dotdot-dir",       NULL, NULL, 0, NULL, OP_STAT, "dir/sub/..", NULL, 0, OK),
	C("newline-name",           NULL, NULL, 0, NULL, OP_OPEN, "a\nb", NULL, CR, OK),
	C("opath-link-out",         OUTLINKS, NULL, 0, NULL, OP_OPEN, "esc_abs", NULL, O_PATH, ESC),
	C("opath-nofollow-link",    OUTLINKS, NULL, 0, NULL, OP_OPEN, "esc_abs", NULL, O_PATH | O_NOFOLLOW, OK),
	C("tmpfile-in-dir",         NULL, NULL, 0, NULL, OP_OPEN, "dir", NULL, O_TMPFILE | O_WRONLY, OK),
	C("tmpfile-link-out",       OUTLINKS, NULL, 0, NULL, OP_OPEN, "esc_rel", NULL, O_TMPFILE | O_WRONLY, ESC),
	C("tmpfile-in-deny",        NULL, NULL, 0, NULL, OP_OPEN, "secret", NULL, O_TMPFILE | O_WRONLY, DEN),
	C("tmpfile-in-ro",          NULL, NULL, 0, NULL, OP_OPEN, "ro", NULL, O_TMPFILE | O_WRONLY, RO),

	/* ---- the root itself, and denied names that move or come back */
	C("root-open-write",        NULL, NULL, 0, NULL, OP_OPEN, ".", NULL, W, E(EISDIR)),
	C("root-rmdir",             NULL, NULL, 0, NULL, OP_RMDIR, ".", NULL, 0, EANY(EINVAL)),
	C("root-rename",            NULL, NULL, 0, NULL, OP_RENAME, ".", "x", 0, EANY(EBUSY)),
	C("root-unlink",            NULL, NULL, 0, NULL, OP_UNLINK, ".", NULL, 0, EANY(EISDIR)),
	C("root-symlink-onto",      NULL, NULL, 0, NULL, OP_SYMLINK, "x", ".", 0, EANY(EEXIST)),
	C("root-link-from",         NULL, NULL, 0, NULL, OP_LINK, ".", "x", 0, EANY(EPERM)),
	C("deny-stat-dir",          NULL, NULL, 0, NULL, OP_STAT, "secret", NULL, 0, DEN),
	C("deny-via-link-mkdir-all","l s secret\n", NULL, 0, NULL, OP_MKDIR_ALL, "s/x/y", NULL, 0, DEN),
	C("deny-chain-chmod",       "l c1 c2\nl c2 secret/key\n", NULL, 0, NULL, OP_CHMOD, "c1", NULL, 0, DEN),
	/* The old .env stays alive under another name, so the new one cannot
	 * reuse its inode number (which would hide the question). */
	C("hardlink-after-recreate",NULL, NULL, 0, "h keep .env\nr .env\nf .env NEWSECRET\nh alias .env\n",
	  OP_OPEN, "alias", NULL, R, DEN),
	C("hardlink-after-refresh", NULL, NULL, 0,
	  "h keep .env\nr .env\nf .env NEWSECRET\nh alias .env\n#refresh\n",
	  OP_OPEN, "alias", NULL, R, DEN),
	C("pin-denied-file-parent", NULL, "write .\ndeny dir/f\n", 0, NULL, OP_RENAME, "dir", "dir2", 0, PIN),
	C("glob-deny-read",         "f k.pem PEM\nf dir/x.pem PEM\n", "write .\ndeny **/*.pem\n", 0, NULL,
	  OP_OPEN, "dir/x.pem", NULL, R, DEN),
	C("glob-deny-case",         "f dir/x.pem PEM\n", "write .\ndeny **/*.pem\n", 0, NULL,
	  OP_OPEN, "dir/X.PEM", NULL, CR, DEN),
	C("glob-deny-rename-away",  "f k.pem PEM\n", "write .\ndeny **/*.pem\n", 0, NULL,
	  OP_RENAME, "k.pem", "k.txt", 0, DEN),
	C("glob-deny-rename-onto",  NULL, "write .\ndeny **/*.pem\n", 0, NULL,
	  OP_RENAME, "file", "dir/sub/new.pem", 0, DEN),
	C("glob-deny-link",         "f k.pem PEM\n", "write .\ndeny **/*.pem\n", 0, NULL,
	  OP_LINK, "k.pem", "k2", 0, DEN),
	C("glob-deny-via-link",     "f k.pem PEM\nl innocent k.pem\n", "write .\ndeny **/*.pem\n", 0, NULL,
	  OP_OPEN, "innocent", NULL, R, DEN),
	C("final-deny-not-widened", "d secret/open\nf secret/open/x X\n", "write .\ndeny! secret\nwrite secret/open\n", 0, NULL,
	  OP_OPEN, "secret/open/x", NULL, R, DEN),
	C("deeper-write-in-read",   "d ro/w\n", "write .\nread ro\nwrite ro/w\n", 0, NULL,
	  OP_OPEN, "ro/w/new", NULL, CR, OK),
	C("no-rule-is-deny",        NULL, "write dir\n", 0, NULL, OP_OPEN, "file", NULL, R, DEN),

	/* ---- issue 11: the policy under every spelling */
	/* A final rule on an ancestor of the root caps the root itself. */
	C("final-deny-above-root",  NULL, "write .\ndeny! @BASE@\n", 0, NULL, OP_OPEN, "file", NULL, R, DEN),
	C("final-deny-above-root-stat", NULL, "write .\ndeny! @BASE@\n", 0, NULL, OP_STAT, ".", NULL, 0, DEN),
	C("final-read-above-root",  NULL, "write .\nread! @BASE@\n", 0, NULL, OP_OPEN, "file", NULL, W, RO),
	C("final-read-above-root-write-file", NULL, "write .\nread! @BASE@\n", 0, NULL,
	  OP_WRITE_FILE, "new", NULL, 0, RO),
	/* A rule above the root decides where no rule at the root does, and
	 * loses to every one that does. */
	C("read-above-root-decides", NULL, "read @BASE@\nwrite dir\n", 0, NULL, OP_OPEN, "file", NULL, R, OK),
	C("read-above-root-ties-lose", NULL, "read @BASE@\nwrite .\n", 0, NULL, OP_OPEN, "file", NULL, W, OK),
	/* A denied symlink re-pointed: its old target stays denied. */
	C("repointed-link-keeps-deny", "f target.txt T\nf other O\nl lnk target.txt\n", "write .\ndeny lnk\n", 0,
	  "r lnk\nl lnk other\n#refresh\n", OP_OPEN, "target.txt", NULL, R, DEN),
	C("repointed-link-new-target", "f target.txt T\nf other O\nl lnk target.txt\n", "write .\ndeny lnk\n", 0,
	  "r lnk\nl lnk other\n#refresh\n", OP_OPEN, "other", NULL, R, DEN),
	/* A host rule spelled through a symlinked host path. */
	C("host-rule-through-symlink", "l ../alias @BASE@\nf hostsecret S\n",
	  "write .\ndeny @BASE@/alias/root/hostsecret\n", 0, NULL, OP_OPEN, "hostsecret", NULL, R, DEN),
	/* ... and through a symlink that is the rule's last component (the
	 * root resolves a rule's parent once for its neighbours, and must
	 * still follow the entry itself). */
	C("host-rule-is-symlink", "l ../hs @BASE@/root/hostsecret\nf hostsecret S\n",
	  "write .\ndeny @BASE@/hs\n", 0, NULL, OP_OPEN, "hostsecret", NULL, R, DEN),
	C("host-rule-beside-symlink", "l ../hs @BASE@/root/hostsecret\nf hostsecret S\n",
	  "write .\ndeny @BASE@/nothing\ndeny @BASE@/hs\n", 0, NULL, OP_OPEN, "hostsecret", NULL, R, DEN),
	/* Inside a denied region, existence does not show (issue 11.6). */
	C("deny-mkdir-all-existing-dir", "d secret/X\n", NULL, 0, NULL, OP_MKDIR_ALL, "secret/X", NULL, 0, DEN),
	C("deny-mkdir-all-absent-dir",   NULL, NULL, 0, NULL, OP_MKDIR_ALL, "secret/Y", NULL, 0, DEN),
	C("deny-mkdir-all-existing-file", NULL, NULL, 0, NULL, OP_MKDIR_ALL, "secret/key/x", NULL, 0, DEN),
	C("deny-mkdir-all-absent-file",  NULL, NULL, 0, NULL, OP_MKDIR_ALL, "secret/nokey/x", NULL, 0, DEN),
	C("deny-link-into-existing-file", "l p secret/key/x\n", NULL, 0, NULL, OP_OPEN, "p", NULL, R, DEN),
	C("deny-link-into-absent-file",  "l p secret/nokey/x\n", NULL, 0, NULL, OP_OPEN, "p", NULL, R, DEN),
	C("deny-link-into-existing-stat", "l p secret/key/x\n", NULL, 0, NULL, OP_STAT, "p", NULL, 0, DEN),
	C("deny-link-into-existing-creat", "l p secret/key/x\n", NULL, 0, NULL, OP_OPEN, "p", NULL, CR, DEN),
	/* Faithful to POSIX where nothing is at stake (issue 11.11): rename
	 * replaces a symlink at the destination (the ln -sfn swap), a new
	 * name with a trailing slash and a "dir/." get the kernel's answer. */
	C("rename-onto-dangling-abs", DANGLING, NULL, 0, NULL, OP_RENAME, "file", "dl_abs", 0, OK),
	C("rename-onto-link-outside", OUTLINKS, NULL, 0, NULL, OP_RENAME, "file", "esc_abs", 0, OK),
	C("rename-onto-link-slash",  "l ls dir/\n", NULL, 0, NULL, OP_RENAME, "file", "ls", 0, OK),
	C("rename-link-over-link",   "l new-target dir\nl cur file\n", NULL, 0, NULL,
	  OP_RENAME, "new-target", "cur", 0, OK),
	C("rename-dir-dot-source",   NULL, NULL, 0, NULL, OP_RENAME, "dir/.", "moved", 0, E(EBUSY)),
	C("rename-onto-dir-dot",     NULL, NULL, 0, NULL, OP_RENAME, "file", "dir/.", 0, E(EBUSY)),
	C("write-file-new-slash",    NULL, NULL, 0, NULL, OP_WRITE_FILE, "newfile/", NULL, 0, E(EISDIR)),
	C("write-file-file-slash",   NULL, NULL, 0, NULL, OP_WRITE_FILE, "file/", NULL, 0, E(EISDIR)),
	C("link-new-slash",          NULL, NULL, 0, NULL, OP_LINK, "file", "newlink/", 0, E(ENOENT)),
	C("symlink-new-slash",       NULL, NULL, 0, NULL, OP_SYMLINK, "x", "newsym/", 0, E(ENOENT)),
	/* Found by tests/test_posix_agree: unlink, rmdir and rename never
	 * follow their final name, so "link/" is ENOTDIR (not the directory
	 * it points at); ".." as a final name is EBUSY; rename's own order
	 * (NOREPLACE's EEXIST first, EXCHANGE with a directory "dir/"); a
	 * create onto an existing "name/" or a looping link is EEXIST; an
	 * O_CREAT of "dir/." or "file/." answers as the kernel does. */
	C("rename-link-slash-source", "l ld dir\n", NULL, 0, NULL, OP_RENAME, "ld/", "moved", 0, E(ENOTDIR)),
	C("rmdir-link-slash",        "l le dir/empty\n", NULL, 0, NULL, OP_RMDIR, "le/", NULL, 0, E(ENOTDIR)),
	C("unlink-link-slash",       "l ld dir\n", NULL, 0, NULL, OP_UNLINK, "ld/", NULL, 0, E(ENOTDIR)),
	C("unlink-dangling-slash",   DANGLING, NULL, 0, NULL, OP_UNLINK, "dl/", NULL, 0, E(ENOTDIR)),
	C("rename-dotdot-source",    NULL, NULL, 0, NULL, OP_RENAME, "dir/sub/..", "moved", 0, E(EBUSY)),
	C("rename-onto-dotdot",      NULL, NULL, 0, NULL, OP_RENAME, "file", "dir/sub/..", 0, E(EBUSY)),
	C("rename-noreplace-dir-slash", NULL, NULL, 0, NULL, OP_RENAME, "file", "dir/", NOREPL, E(EEXIST)),
	C("rename-exchange-dir-slash", NULL, NULL, 0, NULL, OP_RENAME, "file", "dir/", XCHG, OK),
	C("mkdir-file-slash",        NULL, NULL, 0, NULL, OP_MKDIR, "file/", NULL, 0, E(EEXIST)),
	C("mkdir-onto-loop",         "l self self\n", NULL, 0, NULL, OP_MKDIR, "self", NULL, 0, E(EEXIST)),
	C("creat-excl-dir-dot",      NULL, NULL, 0, NULL, OP_OPEN, "dir/.", NULL, EX, E(EEXIST)),
	C("creat-file-dot",          NULL, NULL, 0, NULL, OP_OPEN, "file/.", NULL, CR, E(ENOTDIR)),
	/* The destination's own name is still judged. */
	C("rename-onto-denied-link", "l lnk file\n", "write .\ndeny lnk\n", 0, NULL,
	  OP_RENAME, "dir/f", "lnk", 0, DEN),
	/* Hard links to files refused by any rule, found whenever they were
	 * made (issue 11.5): a glob, a case variant, a file in a case-variant
	 * denied directory, a read-only glob (a git hook), links made after
	 * the root opened and after a refresh, a link renamed into place. */
	C("hardlink-glob-deny",     "f k.pem PEM\nh alias k.pem\n", "write .\ndeny **/*.pem\n", 0, NULL,
	  OP_OPEN, "alias", NULL, R, DEN),
	C("hardlink-glob-deny-deep", "f dir/sub/k.pem PEM\nh dir/alias dir/sub/k.pem\n",
	  "write .\ndeny **/*.pem\n", 0, NULL, OP_STAT, "dir/alias", NULL, 0, DEN),
	C("hardlink-glob-deny-check", "f k.pem PEM\nh alias k.pem\n", "write .\ndeny **/*.pem\n", 0, NULL,
	  OP_CHECK_READ, "alias", NULL, 0, DEN),
	C("hardlink-case-variant",  "f .ENV X\nh alias .ENV\n", NULL, 0, NULL, OP_OPEN, "alias", NULL, R, DEN),
	C("hardlink-case-dir",      "d SECRET\nf SECRET/k K\nh alias SECRET/k\n", NULL, 0, NULL,
	  OP_OPEN, "alias", NULL, R, DEN),
	C("hardlink-ro-glob-hook",  "d .git\nd .git/hooks\nf .git/hooks/pre-commit H\nh hk .git/hooks/pre-commit\n",
	  "write .\nread! **/.git/hooks\n", 0, NULL, OP_OPEN, "hk", NULL, W, RO),
	C("hardlink-ro-glob-hook-read", "d .git\nd .git/hooks\nf .git/hooks/pre-commit H\nh hk .git/hooks/pre-commit\n",
	  "write .\nread! **/.git/hooks\n", 0, NULL, OP_OPEN, "hk", NULL, R, OK),
	C("hardlink-ro-glob-write-file", "d .git\nd .git/hooks\nf .git/hooks/pre-commit H\nh hk .git/hooks/pre-commit\n",
	  "write .\nread! **/.git/hooks\n", 0, NULL, OP_TRUNCATE, "hk", NULL, 0, RO),
	C("hardlink-glob-made-later", NULL, "write .\ndeny **/*.pem\n", 0, "f late.pem P\nh alias late.pem\n",
	  OP_OPEN, "alias", NULL, R, DEN),
	C("hardlink-glob-after-refresh", NULL, "write .\ndeny **/*.pem\n", 0,
	  "f late.pem P\n#refresh\nh alias late.pem\n", OP_OPEN, "alias", NULL, R, DEN),
	C("hardlink-case-made-later", NULL, NULL, 0, "f .Env X\nh alias .Env\n",
	  OP_OPEN, "alias", NULL, R, DEN),
	C("hardlink-renamed-into-deny", "f dir/plain P\nh alias dir/plain\n", "write .\ndeny **/*.pem\n", 0,
	  "h dir/k.pem dir/plain\nr dir/plain\n", OP_OPEN, "alias", NULL, R, DEN),
	C("hardlink-deny-open-trunc", "h alias .env\n", NULL, 0, NULL, OP_OPEN, "alias", NULL, TR, DEN),
	C("hardlink-glob-open-trunc", "f k.pem PEM\nh alias k.pem\n", "write .\ndeny **/*.pem\n", 0, NULL,
	  OP_OPEN, "alias", NULL, TR, DEN),
	C("hardlink-glob-open-rdtrunc", "f k.pem PEM\nh alias k.pem\n", "write .\ndeny **/*.pem\n", 0, NULL,
	  OP_OPEN, "alias", NULL, O_RDONLY | O_TRUNC, DEN),
	C("hardlink-ro-open-trunc", "h rofile ro/r\n", NULL, 0, NULL, OP_OPEN, "rofile", NULL, TR, RO),
	C("hardlink-allowed-trunc", "f dir/plain P\nh alias dir/plain\n", "write .\ndeny **/*.pem\n", 0, NULL,
	  OP_OPEN, "alias", NULL, TR, OK),
	C("hardlink-allowed-both",  "f dir/plain P\nh alias dir/plain\n", "write .\ndeny **/*.pem\n", 0, NULL,
	  OP_OPEN, "alias", NULL, W, OK),
	C("hardlink-denied-gone",   "f k.pem P\nh alias k.pem\n", "write .\ndeny **/*.pem\n", 0,
	  "r k.pem\n", OP_OPEN, "alias", NULL, R, OK),
	/* A refresh probes a rule's name only when its parent directory can
	 * hold it; a parent reached through a symlink can, and one made
	 * after the root opened is looked at again by the next refresh. */
	C("deny-through-symlinked-parent", "d real\nf real/k K\nl alias real\n", "write .\ndeny alias/k\n", 0, NULL,
	  OP_OPEN, "real/k", NULL, R, DEN),
	C("deny-parent-made-later", NULL, "write .\ndeny later/k\n", 0,
	  "d real2\nf real2/k K\nl later real2\n#refresh\n", OP_OPEN, "real2/k", NULL, R, DEN),
	C("deny-parent-is-file",    "f plainfile P\n", "write .\ndeny plainfile/k\n", 0, NULL,
	  OP_OPEN, "plainfile", NULL, R, OK),
	/* '?' in a deny glob stands for what one character folds to. */
	C("glob-qmark-ff-ligature", "f key.p\xef\xac\x80m K\n", "write .\ndeny **/*.p?m\n", 0, NULL,
	  OP_OPEN, "key.p\xef\xac\x80m", NULL, R, DEN),
	C("glob-qmark-sharp-s",     "f a.p\xc3\x9fm K\n", "write .\ndeny **/*.p?m\n", 0, NULL,
	  OP_OPEN, "a.p\xc3\x9fm", NULL, R, DEN),
	C("glob-qmark-ss-spelling", NULL, "write .\ndeny **/*.p?m\n", 0, NULL,
	  OP_OPEN, "b.pssm", NULL, CR, DEN),
	C("glob-qmark-two-letters", NULL, "write .\ndeny **/*.p?m\n", 0, NULL,
	  OP_OPEN, "b.pxym", NULL, CR, OK),
};

#define MAX_GENERATED 64

static struct esc_case all[sizeof(fixed) / sizeof(fixed[0]) + MAX_GENERATED];
static char gen_text[MAX_GENERATED * 2][8192];
static size_t ngen_text;

static char *gen(void)
{
	return gen_text[ngen_text++];
}

/* A chain of N links l1 -> l2 -> ... -> lN -> END. */
static const char *chain_tree(int n, const char *end)
{
	char *t = gen();
	size_t len = 0;
	int i;

	for (i = 1; i < n; i++)
		len += (size_t)sprintf(t + len, "l l%d l%d\n", i, i + 1);
	sprintf(t + len, "l l%d %s\n", n, end);
	return t;
}

/* a/b/c/... DEPTH directories deep, then UP times "..". */
static const char *dotdot_path(int depth, int up)
{
	char *p = gen();
	size_t len = 0;
	int i;

	for (i = 0; i < depth; i++)
		len += (size_t)sprintf(p + len, "%sd%d", i ? "/" : "", i);
	for (i = 0; i < up; i++)
		len += (size_t)sprintf(p + len, "/..");
	return p;
}

static const char *deep_tree(int depth)
{
	char *t = gen(), dir[512] = "";
	size_t len = 0, dlen = 0;
	int i;

	for (i = 0; i < depth; i++) {
		dlen += (size_t)snprintf(dir + dlen, sizeof(dir) - dlen, "%sd%d", i ? "/" : "", i);
		len += (size_t)sprintf(t + len, "d %s\n", dir);
	}
	return t;
}

static const char *repeat(char c, size_t n, const char *prefix)
{
	char *p = gen();
	size_t len = (size_t)sprintf(p, "%s", prefix);

	memset(p + len, c, n);
	p[len + n] = '\0';
	return p;
}

/* A path of exactly N bytes: "a/a/.../a" (N odd) or ending "/aa". */
static const char *long_path(size_t n)
{
	char *p = gen();
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = (i % 2) ? '/' : 'a';
	if (p[n - 1] == '/')
		p[n - 1] = 'a';
	p[n] = '\0';
	return p;
}

static void fill_long(struct esc_case *c)
{
	if (!strcmp(c->name, "long-name-255-creat"))
		c->a = repeat('n', 255, "dir/");
	else if (!strcmp(c->name, "long-name-256-creat") || !strcmp(c->name, "long-name-256-mkdir"))
		c->a = repeat('n', 256, "");
	else if (!strcmp(c->name, "long-name-256-rename"))
		c->b = repeat('n', 256, "dir/");
	else if (!strcmp(c->name, "long-path-4000-stat"))
		c->a = long_path(4000);
	else if (!strcmp(c->name, "long-path-4001-stat") || !strcmp(c->name, "long-path-4001-write"))
		c->a = long_path(4001);
	else if (!strcmp(c->name, "long-path-4001-link"))
		c->b = long_path(4001);
}

static char gen_names[MAX_GENERATED][64];

const struct esc_case *esc_cases(size_t *n)
{
	static size_t count;
	size_t i;
	int d;

	if (count) {
		*n = count;
		return all;
	}
	for (i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++) {
		all[count] = fixed[i];
		fill_long(&all[count]);
		count++;
	}
	/* '..' at every depth: exactly back to the root is fine, one more
	 * is an escape, for reads and for creations. */
	for (d = 1; d <= 10; d++) {
		const char *tree = deep_tree(d);
		struct esc_case *c;

		c = &all[count];
		snprintf(gen_names[count - i], 64, "dotdot-depth-%d-to-root", d);
		*c = (struct esc_case){ gen_names[count - i], tree, NULL, 0, NULL, OP_STAT,
					dotdot_path(d, d), NULL, 0, OK };
		count++;
		c = &all[count];
		snprintf(gen_names[count - i], 64, "dotdot-depth-%d-escape", d);
		*c = (struct esc_case){ gen_names[count - i], tree, NULL, 0, NULL, OP_STAT,
					dotdot_path(d, d + 1), NULL, 0, ESC };
		count++;
		c = &all[count];
		snprintf(gen_names[count - i], 64, "dotdot-depth-%d-creat-out", d);
		*c = (struct esc_case){ gen_names[count - i], tree, NULL, 0, NULL, OP_MKDIR,
					dotdot_path(d, d + 1), NULL, 0, ESC };
		count++;
	}
	/* The kernel's limit of 40 symlinks: a chain of 40 resolves, 41 is
	 * ELOOP, as a final component and as directories on the way. */
	{
		static const struct { const char *name; int n; const char *end; const char *path;
				      enum esc_op op; int err; } chains[] = {
			{ "chain-40-file", 40, "file", "l1", OP_OPEN, 0 },
			{ "chain-41-file", 41, "file", "l1", OP_OPEN, ELOOP },
			{ "chain-40-dir", 40, "dir", "l1/f", OP_STAT, 0 },
			{ "chain-41-dir", 41, "dir", "l1/f", OP_STAT, ELOOP },
			{ "chain-41-creat", 41, "dir", "l1/new", OP_OPEN, ELOOP },
			{ "chain-39-then-out", 39, "../outside", "l1/marker", OP_OPEN, -1 },
			{ "chain-40-file-dot", 40, "dir", "l1/f/./x", OP_STAT, ENOTDIR },
			{ "chain-40-file-slash", 40, "dir", "l1/f/", OP_STAT, ENOTDIR },
			{ "chain-20-file-dot", 20, "dir", "l1/f/./x", OP_STAT, ENOTDIR },
		};
		size_t k;

		for (k = 0; k < sizeof(chains) / sizeof(chains[0]); k++) {
			struct esc_case *c = &all[count++];

			*c = (struct esc_case){ chains[k].name, chain_tree(chains[k].n, chains[k].end),
						NULL, 0, NULL, chains[k].op, chains[k].path, NULL,
						strstr(chains[k].name, "creat") ? CR : R, OK };
			if (chains[k].err > 0) {
				c->want_err = chains[k].err;
				c->want_name = NULL;
			} else if (chains[k].err < 0) {
				c->want_err = EACCES;
				c->want_name = "workspace.path-escape";
			}
		}
	}
	*n = count;
	return all;
}

const char *esc_op_name(enum esc_op op)
{
	static const char *const names[] = {
		"open", "stat", "lstat", "mkdir", "mkdir_all", "unlink", "rmdir",
		"rename", "link", "symlink", "readlink", "chmod", "truncate",
		"opendir", "write_file", "check(read)", "check(write)",
		"check(create)", "check(delete)",
	};
	return names[op];
}

/* Reported to the core library (see ChangeLog); each entry names what the
 * library answers instead.  A reason starting "split:" also excuses the two
 * resolvers disagreeing (they must still both refuse).  Remove an entry when the case passes (the
 * runner prints XPASS). */
static const struct { const char *name, *reason; } known[] = {
	{ "magic-procfs-plain",    "refuses proc/self/status (a plain symlink) as path-escape; openat2 allows it" },
};

const char *esc_known_failure(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (!strcmp(known[i].name, name))
			return known[i].reason;
	return NULL;
}
