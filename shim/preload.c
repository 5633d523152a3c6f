/* preload.c - the guard of libpathgate-preload.so: configuration, the held
 * root, re-entrancy, and where a path argument lands.
 *
 * The library linked in here makes libc calls (openat, fstatat, mkdirat,
 * ...) that this object also interposes.  A per-thread depth sends every
 * call made while a thread is inside the guard straight to libc, so the
 * library never judges its own work twice or recurses.
 *
 * Programs may close every fd, or dup2 over the root's fd.  The root's fd
 * is moved out of the way (a high number) and its identity is checked on
 * each use; when it is gone or something else, the root is opened again.
 * The old pg_root is left behind, never closed: its fd number may belong
 * to the program now. */
#include "config.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pathgate.h"
#include "shim.h"
#include "preload.h"

enum pl_state { PL_INERT, PL_ACTIVE, PL_BROKEN };

static struct {
	enum pl_state   state;
	pg_policy      *policy;
	pg_root        *root;           /* read and swapped atomically */
	char            root_path[PATH_MAX];
	size_t          root_len;
	char            self[PATH_MAX];  /* this object's canonical path */
	char            self_given[PATH_MAX]; /* as the loader named it */
	char            env_preload[PATH_MAX + 16];
	char            env_root[PATH_MAX + 16];
	char            env_policy[PATH_MAX + 20];
	char           *env_policy_text; /* "PATHGATE_POLICY_TEXT=...", or NULL */
	unsigned        root_flags;      /* PG_ROOT_XDEV inside an envelope */
	bool            log;
	int             log_fd;          /* PATHGATE_LOG_FD: pathgate run's record of refusals, or -1 */
	char            env_log[32];     /* "PATHGATE_LOG=1", or "" */
	char            env_log_fd[40];  /* "PATHGATE_LOG_FD=N", or "" */
	pthread_mutex_t reopen;
} g = { .reopen = PTHREAD_MUTEX_INITIALIZER, .log_fd = -1 };

static pthread_once_t once = PTHREAD_ONCE_INIT;
static __thread int depth __attribute__((tls_model("initial-exec")));

void *pl_real(const char *name, void **slot)
{
	void *p = __atomic_load_n(slot, __ATOMIC_ACQUIRE);

	if (!p) {
		p = dlsym(RTLD_NEXT, name);
		__atomic_store_n(slot, p, __ATOMIC_RELEASE);
	}
	return p;
}

static void say(const char *a, const char *b, const char *c)
{
	size_t la = strlen(a), lb = b ? strlen(b) : 0, lc = c ? strlen(c) : 0;
	char line[PATH_MAX + 256];
	size_t n = 0;

	if (la + lb + lc + 2 > sizeof(line))
		return;
	memcpy(line + n, a, la), n += la;
	if (b)
		memcpy(line + n, b, lb), n += lb;
	if (c)
		memcpy(line + n, c, lc), n += lc;
	line[n++] = '\n';
	if (write(STDERR_FILENO, line, n) < 0)
		return;
}

/* The root's fd is kept out of the program's way (PG_ROOT_HIGH_FD):
 * daemons close(0) and reopen, shells dup2 onto 3..9. */
static pg_root *open_root(const char *dir)
{
	return pg_root_open(dir, g.policy, g.root_flags | PG_ROOT_HIGH_FD);
}

/* PATHGATE_POLICY names the policy file; PATHGATE_POLICY_TEXT carries its
 * text for where the file cannot be seen (pathgate run puts both in: the
 * envelope shows a child its root, not the file beside it). */
static int load_policy(const char *root_dir)
{
	const char *file = getenv("PATHGATE_POLICY");
	const char *text = getenv("PATHGATE_POLICY_TEXT");
	char *source = NULL;
	int rc;

	g.policy = pg_policy_new();
	if (!g.policy)
		return -1;
	if (text && *text && asprintf(&g.env_policy_text, "PATHGATE_POLICY_TEXT=%s", text) < 0)
		g.env_policy_text = NULL;
	rc = pg_policy_discover(g.policy, root_dir, file, text, &source);
	/* Children are handed the file by the name given (canonical), not
	 * the ROOT/.pathgate they find themselves. */
	if (file && *file && source)
		snprintf(g.env_policy, sizeof(g.env_policy), "PATHGATE_POLICY=%s", source);
	free(source);
	return rc;
}

static void find_self(void)
{
	Dl_info info;

	if (dladdr((void *)pl_enter, &info) && info.dli_fname) {
		snprintf(g.self_given, sizeof(g.self_given), "%s", info.dli_fname);
		if (!realpath(info.dli_fname, g.self))
			snprintf(g.self, sizeof(g.self), "%s", info.dli_fname);
	}
	snprintf(g.env_preload, sizeof(g.env_preload), "LD_PRELOAD=%s", g.self);
}

/* The whole of /proc/self/status in BUF; false when it does not read. */
static bool read_status(char *buf, size_t size)
{
	int fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
	size_t got = 0;
	ssize_t n;

	if (fd < 0)
		return false;
	while (got + 1 < size && (n = read(fd, buf + got, size - 1 - got)) > 0)
		got += (size_t)n;
	close(fd);
	buf[got] = '\0';
	return got > 0;
}

/* True when STATUS has NAME's line with exactly VALUE ("NoNewPrivs: 1"),
 * or with ALL_ZERO a value of zeros only (CapEff: no capability). */
static bool status_is(const char *status, const char *name, const char *value, bool all_zero)
{
	size_t len = strlen(name);
	const char *p = status;

	while (p && *p) {
		if (strncmp(p, name, len) == 0 && p[len] == ':') {
			size_t vlen;

			p += len + 1;
			p += strspn(p, " \t");
			vlen = strcspn(p, "\n");
			if (all_zero)
				return vlen > 0 && strspn(p, "0") == vlen;
			return vlen == strlen(value) && strncmp(p, value, vlen) == 0;
		}
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return false;
}

/* True when pathgate run said this process runs inside its envelope
 * (PATHGATE_ENVELOPE=1) and the process cannot make a mount itself: no
 * effective capability and no_new_privs, which is how bwrap leaves the
 * child (--cap-drop ALL, --disable-userns).  Then every mount beneath the
 * root is the plan's (read regions bound read-only, masks) and the root
 * is opened with PG_ROOT_XDEV, so resolution crosses them as the envelope
 * shows them.  Anywhere else (and for a privileged process told so) a
 * mount stays a refused crossing (workspace.path-escape). */
static bool inside_envelope(void)
{
	const char *env = getenv("PATHGATE_ENVELOPE");
	char status[8192];

	if (!env || strcmp(env, "1") != 0 || !read_status(status, sizeof(status)))
		return false;
	return status_is(status, "NoNewPrivs", "1", false) &&
	       status_is(status, "CapEff", NULL, true);
}

/* PATHGATE_LOG_FD names the descriptor pathgate run records refusals in;
 * both variables are handed to children as the others are. */
static void log_setup(void)
{
	const char *fd = getenv("PATHGATE_LOG_FD");

	if (g.log)
		snprintf(g.env_log, sizeof(g.env_log), "PATHGATE_LOG=1");
	if (fd && *fd && strlen(fd) < 10 && !fd[strspn(fd, "0123456789")]) {
		g.log_fd = atoi(fd);
		snprintf(g.env_log_fd, sizeof(g.env_log_fd), "PATHGATE_LOG_FD=%d", g.log_fd);
	}
}

/* A child forked while another thread re-opened the root must not find
 * the lock held by a thread it does not have. */
static void reset_in_child(void)
{
	pthread_mutex_init(&g.reopen, NULL);
	pl_dirs_reset_in_child();
}

static void init(void)
{
	const char *dir = getenv("PATHGATE_ROOT");
	const char *log = getenv("PATHGATE_LOG");
	pg_root *root;

	if (!dir || !*dir) {
		g.state = PL_INERT;
		return;
	}
	g.log = log && *log && strcmp(log, "0") != 0;
	log_setup();
	if (inside_envelope())
		g.root_flags |= PG_ROOT_XDEV;
	find_self();
	snprintf(g.env_root, sizeof(g.env_root), "PATHGATE_ROOT=%s", dir);
	if (load_policy(dir) < 0) {
		const struct pg_refusal *r = pg_last_refusal();

		say("pathgate-preload: the policy does not load, every file operation is refused: ",
		    r->rule && *r->rule ? r->rule : strerror(errno), NULL);
		g.state = PL_BROKEN;
		return;
	}
	root = open_root(dir);
	if (!root) {
		say("pathgate-preload: the root ", dir, " does not open, every file operation is refused");
		g.state = PL_BROKEN;
		return;
	}
	snprintf(g.root_path, sizeof(g.root_path), "%s", pg_root_path(root));
	g.root_len = strlen(g.root_path);
	snprintf(g.env_root, sizeof(g.env_root), "PATHGATE_ROOT=%s", g.root_path);
	__atomic_store_n(&g.root, root, __ATOMIC_RELEASE);
	pthread_atfork(NULL, NULL, reset_in_child);
	g.state = PL_ACTIVE;
}

__attribute__((constructor)) static void pl_constructor(void)
{
	depth++;
	pthread_once(&once, init);
	depth--;
}

bool pl_enter(void)
{
	if (depth > 0)
		return false;
	depth++;
	pthread_once(&once, init);
	if (g.state == PL_INERT) {
		depth--;
		return false;
	}
	return true;
}

void pl_leave(void)
{
	int saved = errno;

	depth--;
	errno = saved;
}

bool pl_active(void)
{
	if (depth == 0) {
		depth++;
		pthread_once(&once, init);
		depth--;
	}
	return g.state != PL_INERT;
}

/* The root, opened again if the program closed or replaced its fd. */
static pg_root *live_root(void)
{
	pg_root *root = __atomic_load_n(&g.root, __ATOMIC_ACQUIRE);

	if (pg_root_intact(root))
		return root;
	pthread_mutex_lock(&g.reopen);
	root = __atomic_load_n(&g.root, __ATOMIC_ACQUIRE);
	if (!pg_root_intact(root)) {
		pg_root *fresh = open_root(g.root_path);

		if (fresh)
			__atomic_store_n(&g.root, fresh, __ATOMIC_RELEASE);
		root = fresh;
	}
	pthread_mutex_unlock(&g.reopen);
	return root;
}

/* Fold ".", ".." and "//" of the absolute name S in place. */
static void fold_absolute(char *s)
{
	char *out = s, *p = s;

	while (*p) {
		char *end;
		size_t len;

		while (*p == '/')
			p++;
		if (!*p)
			break;
		end = strchrnul(p, '/');
		len = (size_t)(end - p);
		if (len == 1 && p[0] == '.') {
			/* nothing */
		} else if (len == 2 && p[0] == '.' && p[1] == '.') {
			while (out > s && *--out != '/')
				;
		} else {
			*out++ = '/';
			memmove(out, p, len);
			out += len;
		}
		p = end;
	}
	if (out == s)
		*out++ = '/';
	*out = '\0';
}

/* The part of absolute name S beneath the root, or NULL. */
static const char *beneath_root(const char *s)
{
	if (g.root_len == 1)
		return s + 1;
	if (strncmp(s, g.root_path, g.root_len) != 0)
		return NULL;
	if (s[g.root_len] == '\0')
		return s + g.root_len;
	if (s[g.root_len] == '/')
		return s + g.root_len + 1;
	return NULL;
}

/* The absolute name DIRFD (AT_FDCWD: the cwd) stands for, into BUF.
 * With PL_LOCATE_CACHED a directory fd's name may be preload-cache.c's
 * (*CACHED is then set); a name read from /proc/self/fd/N is remembered
 * there with PL_LOCATE_CACHED or PL_LOCATE_FILL. */
static int base_of(int dirfd, int at_flags, char *buf, size_t size, bool *cached)
{
	char proc[40];
	ssize_t n;

	if (dirfd != AT_FDCWD && (at_flags & PL_LOCATE_CACHED) && pl_dirs_get(dirfd, buf, size)) {
		*cached = true;
		return 0;
	}
	if (dirfd == AT_FDCWD) {
		if (!getcwd(buf, size))
			return -1;
	} else {
		snprintf(proc, sizeof(proc), "/proc/self/fd/%d", dirfd);
		n = readlink(proc, buf, size - 1);
		if (n < 0) {
			if (fcntl(dirfd, F_GETFD) < 0)
				return -1;   /* EBADF, as the call would say */
			errno = EACCES;
			return -1;
		}
		buf[n] = '\0';
		if (buf[0] == '/' && (at_flags & (PL_LOCATE_CACHED | PL_LOCATE_FILL)))
			pl_dirs_put(dirfd, buf);
	}
	if (buf[0] != '/') {
		/* "(unreachable)/...", "pipe:[..]": no name to judge */
		errno = dirfd == AT_FDCWD ? EACCES : ENOTDIR;
		return -1;
	}
	return 0;
}

static bool has_prefix(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* Devices every program writes and reads (the envelope gives each child
 * its own): they hold no workspace name. */
static bool free_device(const char *abs)
{
	static const char *const devices[] = {
		"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom",
		"/dev/tty", "/dev/ptmx",
	};
	size_t i;

	for (i = 0; i < sizeof(devices) / sizeof(devices[0]); i++)
		if (strcmp(abs, devices[i]) == 0)
			return true;
	return has_prefix(abs, "/dev/pts/");
}

/* /dev/stderr, /dev/fd/N, /proc/self/fd/N name a descriptor the program
 * holds: the object behind it is what to judge.  Rewrites N->abs to it and
 * returns true when it is a file; false (nothing to judge) for a pipe, a
 * socket, a terminal or a descriptor that is not there. */
static bool fd_link_target(struct pl_name *n, bool *is_link)
{
	static const char *const std[] = { "/dev/stdin", "/dev/stdout", "/dev/stderr" };
	char link[64], target[PATH_MAX];
	const char *fdnum = NULL;
	ssize_t len;
	size_t i;

	*is_link = false;
	for (i = 0; i < 3; i++)
		if (strcmp(n->abs, std[i]) == 0) {
			snprintf(link, sizeof(link), "/proc/self/fd/%zu", i);
			*is_link = true;
		}
	if (!*is_link) {
		if (has_prefix(n->abs, "/dev/fd/"))
			fdnum = n->abs + 8;
		else if (has_prefix(n->abs, "/proc/self/fd/"))
			fdnum = n->abs + 14;
		else if (has_prefix(n->abs, "/proc/thread-self/fd/"))
			fdnum = n->abs + 21;
		if (!fdnum || !*fdnum || strlen(fdnum) > 10 || fdnum[strspn(fdnum, "0123456789")])
			return false;
		snprintf(link, sizeof(link), "/proc/self/fd/%s", fdnum);
		*is_link = true;
	}
	n->held = fcntl(atoi(link + 14), F_GETFL);
	if (n->held >= 0)
		n->held &= O_ACCMODE;
	len = readlink(link, target, sizeof(target) - 1);
	if (len <= 0 || target[0] != '/')
		return false;
	target[len] = '\0';
	if (free_device(target))
		return false;
	memcpy(n->abs, target, (size_t)len + 1);
	return true;
}

int pl_locate(int dirfd, const char *path, int at_flags, struct pl_name *n)
{
	bool is_link;

	const char *tail;
	size_t len;

	n->where = PL_PASS;
	n->root = NULL;
	n->held = -1;
	n->nofollow = (at_flags & AT_SYMLINK_NOFOLLOW) != 0;
	n->cached = false;
	if (!path || !*path)
		return 0;   /* AT_EMPTY_PATH on an fd, or libc's own EFAULT/ENOENT */
	(void)at_flags;
	if (g.state == PL_BROKEN) {
		errno = EACCES;
		return -1;
	}
	if (path[0] == '/') {
		len = strlen(path);
		if (len >= sizeof(n->abs)) {
			errno = ENAMETOOLONG;
			return -1;
		}
		memcpy(n->abs, path, len + 1);
	} else {
		if (base_of(dirfd, at_flags, n->abs, sizeof(n->abs), &n->cached) < 0)
			return -1;
		len = strlen(n->abs);
		if (len + 1 + strlen(path) >= sizeof(n->abs)) {
			errno = ENAMETOOLONG;
			return -1;
		}
		n->abs[len] = '/';
		strcpy(n->abs + len + 1, path);
	}
	/* The library resolves the raw text itself (symlinks, ".."), so it
	 * gets the name as the program wrote it, relative to the root. */
	tail = beneath_root(n->abs);
	n->rel[0] = '\0';
	if (tail && strlen(tail) + 1 < sizeof(n->rel))
		strcpy(n->rel, *tail ? tail : ".");
	fold_absolute(n->abs);
	if (free_device(n->abs))
		return 0;
	/* lstat and readlink of /proc/self/fd/N look at the link itself. */
	if (at_flags & AT_SYMLINK_NOFOLLOW) {
		is_link = false;
	} else if (!fd_link_target(n, &is_link)) {
		if (is_link)
			return 0;
	} else {
		tail = beneath_root(n->abs);
		n->rel[0] = '\0';
		if (tail && strlen(tail) + 1 < sizeof(n->rel))
			strcpy(n->rel, *tail ? tail : ".");
	}
	n->root = (at_flags & PL_LOCATE_NAME_ONLY) ? __atomic_load_n(&g.root, __ATOMIC_ACQUIRE)
						   : live_root();
	if (!n->root) {
		errno = EACCES;
		return -1;
	}
	tail = beneath_root(n->abs);
	if (!tail) {
		n->where = PL_OUTSIDE;
		return 0;
	}
	n->where = PL_INSIDE;
	if (!n->rel[0]) {
		if (strlen(tail) + 1 >= sizeof(n->rel)) {
			errno = ENAMETOOLONG;
			return -1;
		}
		strcpy(n->rel, *tail ? tail : ".");
	}
	return 0;
}

bool pl_cached_ok(const struct pl_name *n)
{
	return n->where == PL_INSIDE && n->held < 0;
}

static bool held_covers(const struct pl_name *n, enum pg_op op)
{
	if (n->held < 0 || op == PG_OP_DELETE)
		return false;
	if (op == PG_OP_READ)
		return n->held == O_RDONLY || n->held == O_RDWR;
	return n->held == O_WRONLY || n->held == O_RDWR;
}

int pl_judge_name(const struct pl_name *n, enum pg_op op)
{
	const char *name = n->abs;

	if (n->where == PL_PASS || held_covers(n, op))
		return 0;
	if (n->where == PL_INSIDE) {
		name = beneath_root(n->abs);
		if (!name)
			name = "";
	}
	return pg_root_judge_name(n->root, name, op, n->abs);
}

/* Where the host name ABS really leads: every symlink resolved, the final
 * one too unless FINAL is false (a delete acts on the name itself); a
 * final name that does not exist yet is appended to its real parent.
 * False when it cannot be known (the kernel will answer the call). */
static bool host_real(const char *abs, bool final, char *out)
{
	char parent[PATH_MAX];
	const char *base = strrchr(abs, '/');
	size_t plen;

	if (final && realpath(abs, out))
		return true;
	if (final && errno != ENOENT)
		return false;
	if (!base || !base[1])
		return false;
	plen = (size_t)(base - abs);
	memcpy(parent, abs, plen);
	parent[plen ? plen : 1] = '\0';
	if (plen == 0)
		parent[0] = '/';
	if (!realpath(parent, out) || strlen(out) + strlen(base) >= PATH_MAX)
		return false;
	if (strcmp(out, "/") == 0)
		out[0] = '\0';
	strcat(out, base);
	return true;
}

/* Judge the real name REAL of host name N for OP: the library's verdict
 * when it lies in the root, else the absolute rules on it. */
static int judge_real(const struct pl_name *n, const char *real, enum pg_op op)
{
	const char *tail = beneath_root(real);
	struct pl_name m;
	struct pg_verdict v;

	if (tail)
		return pg_check(n->root, *tail ? tail : ".", op, &v);
	if (strcmp(real, n->abs) == 0)
		return 0;
	m.where = PL_OUTSIDE;
	m.root = n->root;
	m.held = -1;
	snprintf(m.abs, sizeof(m.abs), "%s", real);
	return pl_judge_name(&m, op);
}

/* Two refusals of the library are not the last word for the preload:
 *
 * Inside pathgate run the envelope's mounts are the boundary, and a
 * read-only name that did not exist at launch has none: the envelope lets
 * the command create and write it (git init making .git/hooks and
 * .git/config), and the next launch binds it read-only.  The preload
 * agrees rather than hold it in process: workspace.read-only is handed to
 * the kernel, which answers EROFS (or EBUSY) wherever a mount holds the
 * name.  Denied names stay held.
 *
 * A workspace name that leaves the root through an absolute symlink
 * (workspace.path-escape) is judged where it lands by the policy's
 * absolute rules (pg_root_check_host), as a host path would be. */
bool pl_kernel_answers(const struct pl_name *n, enum pg_op op)
{
	const char *name = pg_last_refusal()->name;

	if (!name)
		return false;
	if (op != PG_OP_READ && (g.root_flags & PG_ROOT_XDEV) && strcmp(name, "workspace.read-only") == 0)
		return true;
	if (n && n->where == PL_INSIDE && n->held < 0 && strcmp(name, "workspace.path-escape") == 0)
		return pg_root_check_host(n->root, n->rel, op, NULL) == 0;
	return false;
}

/* True when N names a symlink the call acts on itself (lchown, utimensat
 * with AT_SYMLINK_NOFOLLOW): tar sets a link's times before its target
 * exists.  The library's lstat judges reading it; a change is to the
 * link's own name, judged as removing it is (the name's access, never
 * where it leads). */
static bool own_link(const struct pl_name *n)
{
	struct stat st;

	return pg_stat(n->root, n->rel, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode);
}

int pl_judge(const struct pl_name *n, enum pg_op op)
{
	struct pg_verdict v;
	char real[PATH_MAX];

	if (held_covers(n, op))
		return 0;
	if (n->where == PL_INSIDE) {
		if (n->nofollow && op != PG_OP_CREATE && own_link(n)) {
			if (op == PG_OP_READ)
				return 0;   /* pg_stat judged reading the link */
			op = PG_OP_DELETE;
		}
		if (pg_check(n->root, n->rel, op, &v) == 0)
			return 0;
		return pl_kernel_answers(n, op) ? 0 : -1;
	}
	if (pl_judge_name(n, op) < 0)
		return -1;
	/* A host symlink into the root (or into a denied host directory) must
	 * not carry a change there: judged before the call acts.  Reads are
	 * judged where they land (pl_judge_landing), not resolved twice. */
	if (n->where == PL_OUTSIDE && op != PG_OP_READ && host_real(n->abs, op != PG_OP_DELETE, real))
		return judge_real(n, real, op);
	return 0;
}

int pl_judge_landing(const struct pl_name *n, int fd)
{
	char link[40], real[PATH_MAX];
	ssize_t len;

	if (n->where != PL_OUTSIDE || n->held >= 0)
		return 0;
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	len = readlink(link, real, sizeof(real) - 1);
	if (len <= 0 || real[0] != '/')
		return 0;
	real[len] = '\0';
	return judge_real(n, real, PG_OP_READ);
}

/* One line to pathgate run's record (a memfd opened O_APPEND: lines of
 * many processes do not mix), while it holds under 1 MiB. */
static void record(const char *head, const char *tail)
{
	char line[PATH_MAX + 700];
	struct stat st;
	int n;

	if (g.log_fd < 0 || fstat(g.log_fd, &st) < 0 || st.st_size > (1 << 20))
		return;
	n = snprintf(line, sizeof(line), "%s%s\n", head, tail);
	if (n > 0 && (size_t)n < sizeof(line) && write(g.log_fd, line, (size_t)n) < 0)
		return;
}

void pl_log_refusal(const char *call, const char *path)
{
	const struct pg_refusal *r;
	int saved = errno;
	char head[PATH_MAX + 64], tail[600];

	if (!g.log && g.log_fd < 0)
		return;
	r = pg_last_refusal();
	snprintf(head, sizeof(head), "pathgate-preload: %s %s: ", call, path ? path : "");
	if (r->name)
		snprintf(tail, sizeof(tail), "%s%s%s", r->name, r->rule && *r->rule ? ": " : "",
			 r->rule ? r->rule : "");
	else
		snprintf(tail, sizeof(tail), "%s", strerror(saved));
	if (g.log)
		say(head, tail, NULL);
	if (r->name)
		record(head + 18, tail);
	errno = saved;
}

/* ------------------------------------------------------------ environment */

static bool is_var(const char *entry, const char *name, size_t len)
{
	return strncmp(entry, name, len) == 0 && entry[len] == '=';
}

/* True when the LD_PRELOAD list VALUE already names this object. */
static bool names_self(const char *value)
{
	const char *p = value;

	while (*p) {
		size_t len = strcspn(p, ": ");

		if ((len == strlen(g.self) && strncmp(p, g.self, len) == 0) ||
		    (len == strlen(g.self_given) && strncmp(p, g.self_given, len) == 0))
			return true;
		p += len;
		p += strspn(p, ": ");
	}
	return false;
}

size_t pl_env_count(char *const envp[])
{
	size_t n = 0;

	while (envp && envp[n])
		n++;
	return n;
}

void pl_env_inject(char *const envp[], char **out, char *buf)
{
	const char *theirs = NULL;
	size_t i, k = 0;

	for (i = 0; envp && envp[i]; i++) {
		if (is_var(envp[i], "LD_PRELOAD", 10)) {
			theirs = envp[i];
			continue;
		}
		if (is_var(envp[i], "PATHGATE_ROOT", 13) || is_var(envp[i], "PATHGATE_POLICY", 15) ||
		    is_var(envp[i], "PATHGATE_POLICY_TEXT", 20) ||
		    is_var(envp[i], "PATHGATE_ENVELOPE", 17) || is_var(envp[i], "PATHGATE_LOG", 12) ||
		    is_var(envp[i], "PATHGATE_LOG_FD", 15))
			continue;
		out[k++] = envp[i];
	}
	if (theirs && names_self(theirs + 11)) {
		out[k++] = (char *)theirs;
	} else if (theirs && theirs[11] && strlen(g.env_preload) + strlen(theirs + 11) + 2 < PL_ENV_BUF) {
		size_t a = strlen(g.env_preload), b = strlen(theirs + 11);

		memcpy(buf, g.env_preload, a);
		buf[a] = ':';
		memcpy(buf + a + 1, theirs + 11, b + 1);
		out[k++] = buf;
	} else {
		out[k++] = g.env_preload;
	}
	out[k++] = g.env_root;
	if (g.env_policy[0])
		out[k++] = g.env_policy;
	if (g.env_policy_text)
		out[k++] = g.env_policy_text;
	/* The envelope does not change for a child: it keeps what this
	 * process was told, whatever the program put in ENVP. */
	if (g.root_flags & PG_ROOT_XDEV)
		out[k++] = (char *)"PATHGATE_ENVELOPE=1";
	if (g.env_log[0])
		out[k++] = g.env_log;
	if (g.env_log_fd[0])
		out[k++] = g.env_log_fd;
	out[k] = NULL;
}

void pl_environ_ensure(void)
{
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	const char *v;

	if (!pl_active())
		return;
	pthread_mutex_lock(&lock);
	v = getenv("LD_PRELOAD");
	if (!v || !names_self(v)) {
		char merged[PL_ENV_BUF];

		size_t a = strlen(g.self), b = v ? strlen(v) : 0;

		if (b && a + b + 2 < sizeof(merged)) {
			memcpy(merged, g.self, a);
			merged[a] = ':';
			memcpy(merged + a + 1, v, b + 1);
			setenv("LD_PRELOAD", merged, 1);
		} else {
			setenv("LD_PRELOAD", g.self, 1);
		}
	}
	v = getenv("PATHGATE_ROOT");
	if (!v || strcmp(v, g.env_root + 14) != 0)
		setenv("PATHGATE_ROOT", g.env_root + 14, 1);
	if (g.env_policy[0]) {
		v = getenv("PATHGATE_POLICY");
		if (!v || strcmp(v, g.env_policy + 16) != 0)
			setenv("PATHGATE_POLICY", g.env_policy + 16, 1);
	}
	if (g.env_policy_text && !getenv("PATHGATE_POLICY_TEXT"))
		setenv("PATHGATE_POLICY_TEXT", g.env_policy_text + 21, 1);
	if (g.root_flags & PG_ROOT_XDEV)
		setenv("PATHGATE_ENVELOPE", "1", 1);
	else
		unsetenv("PATHGATE_ENVELOPE");
	pthread_mutex_unlock(&lock);
}

/* ---------------------------------------------------- for the interposers */

int pl_refused(const char *call, const char *path)
{
	pl_log_refusal(call, path);
	return -1;
}

int pl_lib_result(int rc, const char *call, const char *path)
{
	if (rc < 0 && pg_last_refusal()->name)
		pl_log_refusal(call, path);
	return rc;
}

int pl_judge_at(int dirfd, const char *path, int at_flags, enum pg_op op, const char *call)
{
	struct pl_name n;

	if (pl_locate(dirfd, path, PL_AT(at_flags), &n) < 0 || pl_judge(&n, op) < 0)
		return pl_refused(call, path);
	return 0;
}

int pl_judge_op(int dirfd, const char *path, int at_flags, enum pg_op op, const char *call)
{
	int rc;

	if (!pl_enter())
		return 0;
	rc = pl_judge_at(dirfd, path, at_flags, op, call);
	pl_leave();
	return rc;
}

