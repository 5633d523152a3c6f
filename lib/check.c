/* check.c - pg_check: judge a path for an operation without acting, by
 * resolving it exactly as the operation would.  Its fast path is one
 * openat2 that lib/batch.c can make itself (through io_uring) and hand to
 * pg_check_finish, so batched and single verdicts are one code path. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "check.h"
#include "judge.h"
#include "ops.h"
#include "path.h"
#include "refusal.h"
#include "resolve.h"
#include "root.h"

bool pg_check_fast_how(const pg_root *root, enum pg_op op, struct open_how *how)
{
	if (!root || !root->openat2)
		return false;
	memset(how, 0, sizeof(*how));
	/* A delete acts on the final name itself; the rest follow it. */
	how->flags = O_PATH | O_CLOEXEC | (op == PG_OP_DELETE ? O_NOFOLLOW : 0);
	how->resolve = root->resolve | RESOLVE_NO_SYMLINKS;
	return true;
}

static bool valid_op(enum pg_op op)
{
	return op == PG_OP_READ || op == PG_OP_WRITE || op == PG_OP_CREATE || op == PG_OP_DELETE;
}

static void verdict_allowed(struct pg_verdict *out, pg_root *root, const char *real,
			    size_t len, enum pg_op op)
{
	out->allowed = 1;
	out->name = NULL;
	out->err = 0;
	out->code = PG_REFUSAL_NONE;
	pg_judge_rule_locked(root, real, len, op, NULL, out->rule, sizeof(out->rule));
}

/* Allowed, the rule already rendered into out->rule. */
static void verdict_ruled(struct pg_verdict *out)
{
	out->allowed = 1;
	out->name = NULL;
	out->err = 0;
	out->code = PG_REFUSAL_NONE;
}

static void verdict_refused(struct pg_verdict *out)
{
	const struct pg_refusal *r = pg_last_refusal();

	out->allowed = 0;
	out->name = r->name;
	out->err = r->name ? r->err : errno;
	out->code = r->name ? r->code : PG_REFUSAL_NONE;
	snprintf(out->rule, sizeof(out->rule), "%s", r->name && r->rule ? r->rule : "");
}

/* Extra conditions of a delete: the root cannot go, a pinned directory
 * cannot move. */
static int judge_delete(pg_root *root, const char *path, const char *real, size_t len,
			const struct statx *stx, bool is_root)
{
	if (is_root) {
		errno = EBUSY;
		return -1;
	}
	if (S_ISDIR(stx->stx_mode) && pg_policy_pinned(root->policy, real, len))
		return pg_refusef(PG_R_PINNED, EBUSY, path,
				  "%s is pinned: it holds a deny or read rule beneath a write region",
				  real);
	return 0;
}

/* The openat2 reached FD at the lexical name NAME (LEN bytes; IS_ROOT
 * when it is the root itself), with no symlink on the way.  KNOWN, when
 * not NULL, is the object's statx already (the batch's held parent): FD
 * is then unused. */
static int finish_fast(pg_root *root, const char *path, const char *name, size_t len,
		       bool is_root, enum pg_op op, int fd, const struct statx *known)
{
	struct statx stx;

	if (!pg_judge_needs_identity(root, op) && op != PG_OP_DELETE)
		return 0;
	if (known)
		stx = *known;
	else if (statx(fd, "", AT_EMPTY_PATH, STATX_TYPE | STATX_INO | STATX_NLINK | STATX_CTIME,
		       &stx) < 0)
		return -1;
	if (!S_ISDIR(stx.stx_mode) && pg_judge_needs_identity(root, op) &&
	    pg_resolve_identity_locked(root, known ? pg_object_of_statx(&stx) :
				       pg_object_at(pg_object_of_statx(&stx), fd, "", AT_EMPTY_PATH),
				       op, path) < 0)
		return -1;
	if (op == PG_OP_DELETE)
		return judge_delete(root, path, name, len, &stx, is_root);
	return 0;
}

static int finish_walk(pg_root *root, const char *path, const struct pg_path *lex,
		       enum pg_op op, struct pg_verdict *out)
{
	static const unsigned how[] = {
		[PG_OP_READ] = PG_RES_FOLLOW | PG_RES_EXIST,
		[PG_OP_WRITE] = PG_RES_FOLLOW | PG_RES_EXIST,
		[PG_OP_CREATE] = PG_RES_FOLLOW,
		[PG_OP_DELETE] = PG_RES_EXIST,
	};
	struct pg_res res;
	int rc;

	if (pg_resolve_locked(root, path, lex, op, how[op], &res) < 0)
		return -1;
	rc = op == PG_OP_DELETE ?
	     judge_delete(root, path, res.real, res.real_len, &res.stx, res.is_root) : 0;
	if (rc == 0 && out)
		verdict_allowed(out, root, res.real, res.real_len, op);
	pg_res_release(&res);
	return rc;
}

/* The lexical name of PATH: PATH itself when it is plain, else its normal
 * form in LEX (made on demand: most paths never need the copy). */
struct lexical {
	const char     *name;
	size_t          len;
	bool            is_root;
	bool            ready;   /* lex holds the normal form */
	struct pg_path *lex;
};

static int lexical_of(const char *path, struct lexical *l)
{
	if (!l->ready && pg_path_normalise(path, false, l->lex) < 0)
		return -1;
	l->ready = true;
	return 0;
}

static int finish_locked(pg_root *root, const char *path, struct lexical *l,
			 enum pg_op op, int result, const struct statx *known,
			 struct pg_verdict *out)
{
	/* With a verdict to fill, the one judgement renders its rule too:
	 * when the fast path answers, the lexical name is the real one. */
	if ((out ? pg_judge_rule_locked(root, l->name, l->len, op, path, out->rule,
					sizeof(out->rule)) :
		   pg_judge_locked(root, l->name, l->len, op, path)) < 0)
		return -1;
	if (result >= 0) {
		if (finish_fast(root, path, l->name, l->len, l->is_root, op, result, known) < 0)
			return -1;
		if (out)
			verdict_ruled(out);
		return 0;
	}
	if (result == -ENOENT && op != PG_OP_CREATE) {
		/* No symlink before the missing component: the lexical name,
		 * already judged, is the name; it does not exist. */
		errno = ENOENT;
		return -1;
	}
	/* ENOTDIR: the walk judges the object's identity before the kernel's
	 * answer, as pg_open does. */
	if (result != -ENOSYS && result != -ENOENT && !pg_needs_walk(-result) &&
	    !(result == -ENOTDIR && pg_judge_needs_identity(root, op))) {
		errno = -result;
		return -1;
	}
	if (lexical_of(path, l) < 0)
		return -1;
	return finish_walk(root, path, l->lex, op, out);
}

static int check_finish(pg_root *root, const char *path, enum pg_op op, int result,
			bool owned, const struct statx *known, struct pg_verdict *out)
{
	struct pg_path lex;
	struct lexical l = { .lex = &lex };
	int rc = -1;

	pg_refusal_clear();
	if (!root || !valid_op(op)) {
		errno = EINVAL;
		goto out;
	}
	if (pg_ops_plain_path(path, &l.len)) {
		l.name = path;
	} else {
		if (pg_ops_prepare(root, path, &lex) < 0)
			goto out;
		l.ready = true;
		l.name = lex.buf;
		l.len = lex.len;
		l.is_root = lex.ncomp == 0;
	}
	pthread_rwlock_rdlock(&root->lock);
	rc = finish_locked(root, path, &l, op, result, known, out);
	{
		int err = errno;

		pthread_rwlock_unlock(&root->lock);
		errno = err;
	}
out:
	if (owned && result >= 0) {
		int err = errno;

		close(result);
		errno = err;
	}
	if (rc < 0 && out)
		verdict_refused(out);
	return rc;
}

int pg_check_finish(pg_root *root, const char *path, enum pg_op op, int result,
		    struct pg_verdict *out)
{
	return check_finish(root, path, op, result, true, NULL, out);
}

int pg_check_finish_borrowed(pg_root *root, const char *path, enum pg_op op, int result,
			     struct pg_verdict *out)
{
	return check_finish(root, path, op, result, false, NULL, out);
}

int pg_check_finish_statx(pg_root *root, const char *path, enum pg_op op, int result,
			  const struct statx *stx, struct pg_verdict *out)
{
	return check_finish(root, path, op, result, false, result >= 0 ? stx : NULL, out);
}

int pg_check(pg_root *root, const char *path, enum pg_op op, struct pg_verdict *out)
{
	struct open_how how;
	int result = -ENOSYS;

	if (path && valid_op(op) && pg_check_fast_how(root, op, &how)) {
		result = (int)syscall(SYS_openat2, root->fd, path, &how, sizeof(how));
		if (result < 0)
			result = -errno;
	}
	return pg_check_finish(root, path, op, result, out);
}
