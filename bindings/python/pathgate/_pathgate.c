/* _pathgate.c - the CPython extension over libpathgate: a Root type whose
 * methods are the library's calls, taking paths as str, bytes or
 * os.PathLike and raising OSError (the subclass its errno picks) with the
 * refusal's stable name, code and rule.  pathgate/__init__.py builds the
 * Python-shaped API (open, scandir, spawn ...) on it.
 *
 * Every library call runs with the GIL released.  The refusal record is
 * per thread, so it is read on the calling thread right after the call,
 * before anything else of the library can run there.  A Root closed while
 * other threads are inside a call on it is freed by the last of them. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <pathgate.h>

/* ------------------------------------------------------------- errors */

/* The outcome of one call, read on its thread before the GIL is taken. */
struct outcome {
	int  err;
	int  code;
	char name[64];
	char rule[512];
};

static void outcome_take(struct outcome *o, int err)
{
	const struct pg_refusal *r = pg_last_refusal();

	o->err = err;
	o->code = r->name ? (int)r->code : 0;
	o->name[0] = o->rule[0] = '\0';
	if (r->name) {
		snprintf(o->name, sizeof(o->name), "%s", r->name);
		snprintf(o->rule, sizeof(o->rule), "%s", r->rule ? r->rule : "");
	}
}

/* Set attribute NAME of OBJ to VALUE, a new reference (consumed). */
static int set_attr(PyObject *obj, const char *name, PyObject *value)
{
	int rc;

	if (!value)
		return -1;
	rc = PyObject_SetAttrString(obj, name, value);
	Py_DECREF(value);
	return rc;
}

/* Raise OSError(errno, message, filename[, filename2]): the constructor
 * picks the subclass (PermissionError, FileNotFoundError ...).  A refusal
 * adds .refusal, .code and .rule. */
static PyObject *raise_outcome(const struct outcome *o, PyObject *file, PyObject *file2)
{
	PyObject *msg, *exc;

	if (o->name[0])
		msg = PyUnicode_FromFormat("%s: %s (%s)", strerror(o->err), o->name, o->rule);
	else
		msg = PyUnicode_FromString(strerror(o->err));
	if (!msg)
		return NULL;
	exc = PyObject_CallFunction(PyExc_OSError, "iOOiO", o->err, msg,
				    file ? file : Py_None, 0, file2 ? file2 : Py_None);
	Py_DECREF(msg);
	if (!exc)
		return NULL;
	if (set_attr(exc, "refusal", o->name[0] ? PyUnicode_FromString(o->name) : Py_NewRef(Py_None)) < 0 ||
	    set_attr(exc, "rule", o->name[0] ? PyUnicode_FromString(o->rule) : Py_NewRef(Py_None)) < 0 ||
	    set_attr(exc, "code", PyLong_FromLong(o->code)) < 0) {
		Py_DECREF(exc);
		return NULL;
	}
	PyErr_SetObject((PyObject *)Py_TYPE(exc), exc);
	Py_DECREF(exc);
	return NULL;
}

/* ------------------------------------------------------------ the Root */

typedef struct {
	PyObject_HEAD
	pg_root *root;
	long     busy;    /* calls in flight with the GIL released */
	int      closed;
} RootObject;

static PyTypeObject Root_Type;

/* Take ROOT for one call (GIL held): NULL with ValueError once closed. */
static pg_root *enter(RootObject *self)
{
	if (self->closed || !self->root) {
		PyErr_SetString(PyExc_ValueError, "I/O operation on a closed pathgate.Root");
		return NULL;
	}
	self->busy++;
	return self->root;
}

/* Give it back (GIL held); the last caller out closes a closed root. */
static void leave(RootObject *self)
{
	if (--self->busy == 0 && self->closed && self->root) {
		pg_root_close(self->root);
		self->root = NULL;
	}
}

/* A path argument: str, bytes or os.PathLike, to a bytes object. */
#define PATH_ARG(obj, out) (PyUnicode_FSConverter((obj), &(out)))

/* A new object of TYPE (Root or a subclass) holding R (owned). */
static PyObject *new_root(PyTypeObject *type, pg_root *r)
{
	RootObject *o = (RootObject *)type->tp_alloc(type, 0);

	if (!o) {
		pg_root_close(r);
		return NULL;
	}
	o->root = r;
	o->busy = 0;
	o->closed = 0;
	return (PyObject *)o;
}

/* Build the policy of Root(): TEXT, FILE or the embedded default. */
static pg_policy *make_policy(const char *text, Py_ssize_t tlen, const char *file,
			      struct outcome *o)
{
	pg_policy *p = pg_policy_new();
	int rc;

	if (!p) {
		o->err = ENOMEM;
		o->name[0] = '\0';
		return NULL;
	}
	if (text)
		rc = pg_policy_parse(p, text, (size_t)tlen);
	else if (file)
		rc = pg_policy_load(p, file);
	else
		rc = pg_policy_parse_default(p);
	if (rc < 0) {
		outcome_take(o, errno);
		pg_policy_free(p);
		return NULL;
	}
	return p;
}

static int Root_init(RootObject *self, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "path", "policy_text", "policy_file", "flags", NULL };
	PyObject *path = NULL, *text_obj = Py_None, *file_obj = Py_None;
	PyObject *pfile = NULL, *ptext = NULL;
	unsigned int flags = 0;
	struct outcome o;
	pg_policy *pol;
	pg_root *r = NULL;
	const char *text = NULL, *file = NULL;
	Py_ssize_t tlen = 0;

	if (self->root) {
		PyErr_SetString(PyExc_RuntimeError, "pathgate.Root is already open");
		return -1;
	}
	if (!PyArg_ParseTupleAndKeywords(args, kw, "O&|OOI", kwlist, PyUnicode_FSConverter, &path,
					 &text_obj, &file_obj, &flags))
		return -1;
	if (text_obj != Py_None) {
		if (PyUnicode_Check(text_obj))
			ptext = PyUnicode_AsUTF8String(text_obj);
		else
			ptext = PyBytes_FromObject(text_obj);
		if (!ptext)
			goto fail;
		text = PyBytes_AS_STRING(ptext);
		tlen = PyBytes_GET_SIZE(ptext);
	}
	if (file_obj != Py_None) {
		if (!PyUnicode_FSConverter(file_obj, &pfile))
			goto fail;
		file = PyBytes_AS_STRING(pfile);
	}
	Py_BEGIN_ALLOW_THREADS
	pol = make_policy(text, tlen, file, &o);
	if (pol) {
		r = pg_root_open(PyBytes_AS_STRING(path), pol, flags);
		if (!r)
			outcome_take(&o, errno);
		pg_policy_free(pol);
	}
	Py_END_ALLOW_THREADS
	if (!r) {
		raise_outcome(&o, file && o.code == PG_REFUSAL_POLICY_INVALID ? file_obj : path, NULL);
		goto fail;
	}
	self->root = r;
	self->busy = 0;
	self->closed = 0;
	Py_DECREF(path);
	Py_XDECREF(ptext);
	Py_XDECREF(pfile);
	return 0;
fail:
	Py_XDECREF(path);
	Py_XDECREF(ptext);
	Py_XDECREF(pfile);
	return -1;
}

static void Root_dealloc(RootObject *self)
{
	/* No call is in flight: each holds a reference to self. */
	pg_root_close(self->root);
	Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *Root_close(RootObject *self, PyObject *unused)
{
	self->closed = 1;
	if (self->busy == 0 && self->root) {
		pg_root_close(self->root);
		self->root = NULL;
	}
	Py_RETURN_NONE;
}

/* ------------------------------------------------ calls on one path */

typedef int (*path_fn)(pg_root *, const char *);

static PyObject *one_path(RootObject *self, PyObject *arg, path_fn fn)
{
	PyObject *path;
	struct outcome o;
	pg_root *r;
	int rc;

	if (!PATH_ARG(arg, path))
		return NULL;
	if (!(r = enter(self))) {
		Py_DECREF(path);
		return NULL;
	}
	Py_BEGIN_ALLOW_THREADS
	rc = fn(r, PyBytes_AS_STRING(path));
	outcome_take(&o, errno);
	Py_END_ALLOW_THREADS
	leave(self);
	if (rc < 0) {
		raise_outcome(&o, arg, NULL);
		Py_DECREF(path);
		return NULL;
	}
	Py_DECREF(path);
	Py_RETURN_NONE;
}

static PyObject *Root_unlink(RootObject *self, PyObject *arg) { return one_path(self, arg, pg_unlink); }
static PyObject *Root_rmdir(RootObject *self, PyObject *arg) { return one_path(self, arg, pg_rmdir); }
static PyObject *Root_remove_all(RootObject *self, PyObject *arg) { return one_path(self, arg, pg_remove_all); }

/* ------------------------------------------------- calls with more */

/* The common tail: release the root, raise on failure. */
static PyObject *finish(RootObject *self, long rc, const struct outcome *o, PyObject *f1,
			PyObject *f2)
{
	leave(self);
	if (rc < 0)
		return raise_outcome(o, f1, f2);
	return PyLong_FromLong(rc);
}

static PyObject *Root_open(RootObject *self, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "path", "flags", "mode", NULL };
	PyObject *obj, *path, *res;
	int flags, mode = 0777, fd;
	struct outcome o;
	pg_root *r;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "Oi|i", kwlist, &obj, &flags, &mode) ||
	    !PATH_ARG(obj, path))
		return NULL;
	if (!(r = enter(self)))
		goto out_err;
	Py_BEGIN_ALLOW_THREADS
	fd = pg_open(r, PyBytes_AS_STRING(path), flags | O_CLOEXEC, (mode_t)mode);
	outcome_take(&o, errno);
	Py_END_ALLOW_THREADS
	res = finish(self, fd, &o, obj, NULL);
	Py_DECREF(path);
	return res;
out_err:
	Py_DECREF(path);
	return NULL;
}

static PyObject *Root_stat(RootObject *self, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "path", "follow_symlinks", NULL };
	PyObject *obj, *path;
	int follow = 1, rc;
	struct outcome o;
	struct stat st;
	pg_root *r;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O|p", kwlist, &obj, &follow) ||
	    !PATH_ARG(obj, path))
		return NULL;
	if (!(r = enter(self))) {
		Py_DECREF(path);
		return NULL;
	}
	Py_BEGIN_ALLOW_THREADS
	rc = pg_stat(r, PyBytes_AS_STRING(path), &st, follow ? 0 : AT_SYMLINK_NOFOLLOW);
	outcome_take(&o, errno);
	Py_END_ALLOW_THREADS
	Py_DECREF(path);
	leave(self);
	if (rc < 0)
		return raise_outcome(&o, obj, NULL);
	return Py_BuildValue("(kKKkkkLLLLLLL)", (unsigned long)st.st_mode,
			     (unsigned long long)st.st_ino, (unsigned long long)st.st_dev,
			     (unsigned long)st.st_nlink, (unsigned long)st.st_uid,
			     (unsigned long)st.st_gid, (long long)st.st_size,
			     (long long)st.st_atim.tv_sec * 1000000000LL + st.st_atim.tv_nsec,
			     (long long)st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec,
			     (long long)st.st_ctim.tv_sec * 1000000000LL + st.st_ctim.tv_nsec,
			     (long long)st.st_blksize, (long long)st.st_blocks,
			     (long long)st.st_rdev);
}

/* A call of PATH and an integer argument. */
typedef int (*path_int_fn)(pg_root *, const char *, long long);

static int do_mkdir(pg_root *r, const char *p, long long m) { return pg_mkdir(r, p, (mode_t)m); }
static int do_mkdir_all(pg_root *r, const char *p, long long m) { return pg_mkdir_all(r, p, (mode_t)m); }
static int do_chmod(pg_root *r, const char *p, long long m) { return pg_chmod(r, p, (mode_t)m); }
static int do_truncate(pg_root *r, const char *p, long long n) { return pg_truncate(r, p, (off_t)n); }

static PyObject *path_int(RootObject *self, PyObject *args, const char *fmt, long long dflt,
			  path_int_fn fn)
{
	PyObject *obj, *path, *res;
	long long v = dflt;
	struct outcome o;
	pg_root *r;
	int rc;

	if (!PyArg_ParseTuple(args, fmt, &obj, &v) || !PATH_ARG(obj, path))
		return NULL;
	if (!(r = enter(self))) {
		Py_DECREF(path);
		return NULL;
	}
	Py_BEGIN_ALLOW_THREADS
	rc = fn(r, PyBytes_AS_STRING(path), v);
	outcome_take(&o, errno);
	Py_END_ALLOW_THREADS
	Py_DECREF(path);
	res = finish(self, rc, &o, obj, NULL);
	if (res) {
		Py_DECREF(res);
		Py_RETURN_NONE;
	}
	return NULL;
}

static PyObject *Root_mkdir(RootObject *self, PyObject *args) { return path_int(self, args, "O|L:mkdir", 0777, do_mkdir); }
static PyObject *Root_makedirs(RootObject *self, PyObject *args) { return path_int(self, args, "O|L:makedirs", 0777, do_mkdir_all); }
static PyObject *Root_chmod(RootObject *self, PyObject *args) { return path_int(self, args, "OL:chmod", 0, do_chmod); }
static PyObject *Root_truncate(RootObject *self, PyObject *args) { return path_int(self, args, "OL:truncate", 0, do_truncate); }

/* A call of two paths (and flags). */
typedef int (*two_fn)(pg_root *, const char *, const char *, unsigned);

static int do_rename(pg_root *r, const char *a, const char *b, unsigned f) { return pg_rename(r, a, b, f); }
static int do_link(pg_root *r, const char *a, const char *b, unsigned f) { return pg_link(r, a, b); }
static int do_symlink(pg_root *r, const char *a, const char *b, unsigned f) { return pg_symlink(r, a, b); }

static PyObject *two_paths(RootObject *self, PyObject *args, const char *fmt, two_fn fn)
{
	PyObject *o1, *o2, *p1 = NULL, *p2 = NULL, *res = NULL;
	unsigned int flags = 0;
	struct outcome o;
	pg_root *r;
	int rc;

	if (!PyArg_ParseTuple(args, fmt, &o1, &o2, &flags))
		return NULL;
	if (!PATH_ARG(o1, p1) || !PATH_ARG(o2, p2) || !(r = enter(self)))
		goto out;
	Py_BEGIN_ALLOW_THREADS
	rc = fn(r, PyBytes_AS_STRING(p1), PyBytes_AS_STRING(p2), flags);
	outcome_take(&o, errno);
	Py_END_ALLOW_THREADS
	res = finish(self, rc, &o, o1, o2);
	if (res) {
		Py_DECREF(res);
		res = Py_NewRef(Py_None);
	}
out:
	Py_XDECREF(p1);
	Py_XDECREF(p2);
	return res;
}

static PyObject *Root_rename(RootObject *self, PyObject *args) { return two_paths(self, args, "OO|I:rename", do_rename); }
static PyObject *Root_link(RootObject *self, PyObject *args) { return two_paths(self, args, "OO|I:link", do_link); }
static PyObject *Root_symlink(RootObject *self, PyObject *args) { return two_paths(self, args, "OO|I:symlink", do_symlink); }

static PyObject *Root_readlink(RootObject *self, PyObject *arg)
{
	char buf[PG_PATH_MAX + 100];
	PyObject *path;
	struct outcome o;
	pg_root *r;
	ssize_t n;

	if (!PATH_ARG(arg, path))
		return NULL;
	if (!(r = enter(self))) {
		Py_DECREF(path);
		return NULL;
	}
	Py_BEGIN_ALLOW_THREADS
	n = pg_readlink(r, PyBytes_AS_STRING(path), buf, sizeof(buf));
	outcome_take(&o, errno);
	Py_END_ALLOW_THREADS
	Py_DECREF(path);
	leave(self);
	if (n < 0)
		return raise_outcome(&o, arg, NULL);
	return PyBytes_FromStringAndSize(buf, n);
}

static PyObject *Root_chown(RootObject *self, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "path", "uid", "gid", "follow_symlinks", NULL };
	PyObject *obj, *path;
	long uid, gid;
	int follow = 1, rc;
	struct outcome o;
	pg_root *r;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "Oll|p", kwlist, &obj, &uid, &gid, &follow) ||
	    !PATH_ARG(obj, path))
		return NULL;
	if (!(r = enter(self))) {
		Py_DECREF(path);
		return NULL;
	}
	Py_BEGIN_ALLOW_THREADS
	rc = pg_chown(r, PyBytes_AS_STRING(path), (uid_t)uid, (gid_t)gid,
		      follow ? 0 : AT_SYMLINK_NOFOLLOW);
	outcome_take(&o, errno);
	Py_END_ALLOW_THREADS
	Py_DECREF(path);
	leave(self);
	if (rc < 0)
		return raise_outcome(&o, obj, NULL);
	Py_RETURN_NONE;
}

/* utime(path, ns=None | (atime_ns, mtime_ns), follow_symlinks=True). */
static PyObject *Root_utime(RootObject *self, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "path", "ns", "follow_symlinks", NULL };
	PyObject *obj, *ns = Py_None, *path;
	struct timespec ts[2];
	long long a, m;
	int follow = 1, rc;
	struct outcome o;
	pg_root *r;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O|Op", kwlist, &obj, &ns, &follow))
		return NULL;
	if (ns != Py_None) {
		if (!PyArg_ParseTuple(ns, "LL", &a, &m))
			return NULL;
		ts[0].tv_sec = a / 1000000000LL;
		ts[0].tv_nsec = a % 1000000000LL;
		ts[1].tv_sec = m / 1000000000LL;
		ts[1].tv_nsec = m % 1000000000LL;
		for (int i = 0; i < 2; i++)
			if (ts[i].tv_nsec < 0) {
				ts[i].tv_nsec += 1000000000LL;
				ts[i].tv_sec--;
			}
	}
	if (!PATH_ARG(obj, path))
		return NULL;
	if (!(r = enter(self))) {
		Py_DECREF(path);
		return NULL;
	}
	Py_BEGIN_ALLOW_THREADS
	rc = pg_utimens(r, PyBytes_AS_STRING(path), ns == Py_None ? NULL : ts,
			follow ? 0 : AT_SYMLINK_NOFOLLOW);
	outcome_take(&o, errno);
	Py_END_ALLOW_THREADS
	Py_DECREF(path);
	leave(self);
	if (rc < 0)
		return raise_outcome(&o, obj, NULL);
	Py_RETURN_NONE;
}

/* ------------------------------------------------------------ listing */

/* Entries read with the GIL released: d_type, inode and name, packed. */
struct listing {
	char  *buf;
	size_t len, cap;
};

static int listing_add(struct listing *l, const struct dirent *e)
{
	size_t n = strlen(e->d_name) + 1, need = 1 + sizeof(ino_t) + n;

	if (l->len + need > l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 4096;
		char *b;

		while (cap < l->len + need)
			cap *= 2;
		if (!(b = realloc(l->buf, cap)))
			return -1;
		l->buf = b;
		l->cap = cap;
	}
	l->buf[l->len] = (char)e->d_type;
	memcpy(l->buf + l->len + 1, &e->d_ino, sizeof(ino_t));
	memcpy(l->buf + l->len + 1 + sizeof(ino_t), e->d_name, n);
	l->len += need;
	return 0;
}

/* Read directory PATH whole; its DIR* is closed with closedir (which
 * closes the descriptor pg_opendir made). */
static int list_dir(pg_root *r, const char *path, struct listing *l)
{
	DIR *d = pg_opendir(r, path);
	struct dirent *e;
	int rc = 0, err;

	if (!d)
		return -1;
	errno = 0;
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (listing_add(l, e) < 0) {
			rc = -1;
			break;
		}
	}
	if (!e && errno)
		rc = -1;
	err = errno;
	closedir(d);
	errno = err;
	return rc;
}

static PyObject *Root_listdir(RootObject *self, PyObject *arg)
{
	struct listing l = { 0 };
	PyObject *path, *list = NULL;
	struct outcome o;
	pg_root *r;
	int rc;

	if (!PATH_ARG(arg, path))
		return NULL;
	if (!(r = enter(self))) {
		Py_DECREF(path);
		return NULL;
	}
	Py_BEGIN_ALLOW_THREADS
	rc = list_dir(r, PyBytes_AS_STRING(path), &l);
	outcome_take(&o, errno);
	Py_END_ALLOW_THREADS
	Py_DECREF(path);
	leave(self);
	if (rc < 0) {
		free(l.buf);
		return raise_outcome(&o, arg, NULL);
	}
	list = PyList_New(0);
	for (size_t off = 0; list && off < l.len;) {
		ino_t ino;
		const char *name = l.buf + off + 1 + sizeof(ino_t);
		size_t n = strlen(name);
		PyObject *t;

		memcpy(&ino, l.buf + off + 1, sizeof(ino));
		t = Py_BuildValue("(y#iK)", name, (Py_ssize_t)n, (int)(unsigned char)l.buf[off],
				  (unsigned long long)ino);
		if (!t || PyList_Append(list, t) < 0)
			Py_CLEAR(list);
		Py_XDECREF(t);
		off += 1 + sizeof(ino_t) + n + 1;
	}
	free(l.buf);
	return list;
}

/* ------------------------------------------------------ whole files */

static PyObject *Root_read_file(RootObject *self, PyObject *args)
{
	PyObject *obj, *path, *res;
	unsigned long long limit = 0;
	struct outcome o;
	void *buf = NULL;
	pg_root *r;
	ssize_t n;

	if (!PyArg_ParseTuple(args, "O|K:read_file", &obj, &limit) || !PATH_ARG(obj, path))
		return NULL;
	if (!(r = enter(self))) {
		Py_DECREF(path);
		return NULL;
	}
	Py_BEGIN_ALLOW_THREADS
	n = pg_read_file_alloc(r, PyBytes_AS_STRING(path), &buf, (size_t)limit);
	outcome_take(&o, errno);
	Py_END_ALLOW_THREADS
	Py_DECREF(path);
	leave(self);
	if (n < 0)
		return raise_outcome(&o, obj, NULL);
	res = PyBytes_FromStringAndSize(buf, n);
	free(buf);
	return res;
}

static PyObject *Root_write_file(RootObject *self, PyObject *args)
{
	PyObject *obj, *path;
	Py_buffer data;
	int mode = 0666, rc;
	struct outcome o;
	pg_root *r;

	if (!PyArg_ParseTuple(args, "Oy*|i:write_file", &obj, &data, &mode))
		return NULL;
	if (!PATH_ARG(obj, path)) {
		PyBuffer_Release(&data);
		return NULL;
	}
	if (!(r = enter(self))) {
		PyBuffer_Release(&data);
		Py_DECREF(path);
		return NULL;
	}
	Py_BEGIN_ALLOW_THREADS
	rc = pg_write_file(r, PyBytes_AS_STRING(path), data.buf, (size_t)data.len, (mode_t)mode);
	outcome_take(&o, errno);
	Py_END_ALLOW_THREADS
	PyBuffer_Release(&data);
	Py_DECREF(path);
	leave(self);
	if (rc < 0)
		return raise_outcome(&o, obj, NULL);
	Py_RETURN_NONE;
}

/* ------------------------------------------------------------ judging */

static PyObject *Root_check(RootObject *self, PyObject *args)
{
	PyObject *obj, *path;
	struct pg_verdict v;
	int op, rc;
	pg_root *r;

	if (!PyArg_ParseTuple(args, "Oi:check", &obj, &op) || !PATH_ARG(obj, path))
		return NULL;
	if (op < PG_OP_READ || op > PG_OP_DELETE) {
		Py_DECREF(path);
		PyErr_SetString(PyExc_ValueError, "op must be one of OP_READ ... OP_DELETE");
		return NULL;
	}
	if (!(r = enter(self))) {
		Py_DECREF(path);
		return NULL;
	}
	Py_BEGIN_ALLOW_THREADS
	rc = pg_check(r, PyBytes_AS_STRING(path), (enum pg_op)op, &v);
	Py_END_ALLOW_THREADS
	Py_DECREF(path);
	leave(self);
	(void)rc;
	return Py_BuildValue("(Oziis)", v.allowed ? Py_True : Py_False, v.name, (int)v.code, v.err,
			     v.rule);
}

/* ------------------------------------------------------------ sub-root */

static PyObject *Root_open_root(RootObject *self, PyObject *args)
{
	PyObject *obj, *path;
	unsigned int flags = 0;
	struct outcome o;
	pg_root *r, *sub;

	if (!PyArg_ParseTuple(args, "O|I:open_root", &obj, &flags) || !PATH_ARG(obj, path))
		return NULL;
	if (!(r = enter(self))) {
		Py_DECREF(path);
		return NULL;
	}
	Py_BEGIN_ALLOW_THREADS
	sub = pg_root_open_at(r, PyBytes_AS_STRING(path), flags);
	outcome_take(&o, errno);
	Py_END_ALLOW_THREADS
	Py_DECREF(path);
	leave(self);
	if (!sub)
		return raise_outcome(&o, obj, NULL);
	return new_root(Py_TYPE(self), sub);
}

static PyObject *Root_refresh(RootObject *self, PyObject *unused)
{
	struct outcome o;
	pg_root *r;
	int rc;

	if (!(r = enter(self)))
		return NULL;
	Py_BEGIN_ALLOW_THREADS
	rc = pg_root_refresh(r);
	outcome_take(&o, errno);
	Py_END_ALLOW_THREADS
	leave(self);
	if (rc < 0)
		return raise_outcome(&o, NULL, NULL);
	Py_RETURN_NONE;
}

/* --------------------------------------------------------------- spawn */

/* A list of str / bytes / PathLike as a NULL-terminated char *[] whose
 * strings live in *KEEP (a list of bytes). */
static char **string_vector(PyObject *seq, PyObject **keep)
{
	PyObject *fast = PySequence_Fast(seq, "expected a sequence of strings");
	Py_ssize_t n, i;
	char **v;

	*keep = NULL;
	if (!fast)
		return NULL;
	n = PySequence_Fast_GET_SIZE(fast);
	v = PyMem_Calloc((size_t)n + 1, sizeof(char *));
	*keep = PyList_New(0);
	if (!v || !*keep)
		goto fail;
	for (i = 0; i < n; i++) {
		PyObject *b = NULL;

		if (!PyUnicode_FSConverter(PySequence_Fast_GET_ITEM(fast, i), &b))
			goto fail;
		if (PyList_Append(*keep, b) < 0) {
			Py_DECREF(b);
			goto fail;
		}
		v[i] = PyBytes_AS_STRING(b);
		Py_DECREF(b);
	}
	Py_DECREF(fast);
	return v;
fail:
	Py_DECREF(fast);
	PyMem_Free(v);
	Py_CLEAR(*keep);
	if (!PyErr_Occurred())
		PyErr_NoMemory();
	return NULL;
}

/* spawn(file, argv, env=None, stdin=-1, stdout=-1, stderr=-1) -> pid:
 * the child runs in the envelope; a descriptor >= 0 becomes its 0, 1, 2. */
static PyObject *Root_spawn(RootObject *self, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "file", "argv", "env", "stdin", "stdout", "stderr", NULL };
	PyObject *fobj, *argv_obj, *env_obj = Py_None, *file = NULL, *keep_a = NULL,
		 *keep_e = NULL, *res = NULL;
	char **argv = NULL, **envp = NULL;
	int fds[3] = { -1, -1, -1 }, err = 0;
	posix_spawn_file_actions_t actions;
	struct outcome o;
	pid_t pid = -1;
	pg_root *r;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "OO|Oiii", kwlist, &fobj, &argv_obj, &env_obj,
					 &fds[0], &fds[1], &fds[2]))
		return NULL;
	if (!PyUnicode_FSConverter(fobj, &file) || !(argv = string_vector(argv_obj, &keep_a)))
		goto out;
	if (env_obj != Py_None && !(envp = string_vector(env_obj, &keep_e)))
		goto out;
	if (!(r = enter(self)))
		goto out;
	Py_BEGIN_ALLOW_THREADS
	err = posix_spawn_file_actions_init(&actions);
	for (int i = 0; err == 0 && i < 3; i++)
		if (fds[i] >= 0)
			err = posix_spawn_file_actions_adddup2(&actions, fds[i], i);
	if (err == 0)
		err = pg_spawn(&pid, r, PyBytes_AS_STRING(file), &actions, NULL, argv, envp);
	outcome_take(&o, err);
	posix_spawn_file_actions_destroy(&actions);
	Py_END_ALLOW_THREADS
	leave(self);
	if (err)
		raise_outcome(&o, fobj, NULL);
	else
		res = PyLong_FromLong((long)pid);
out:
	PyMem_Free(argv);
	PyMem_Free(envp);
	Py_XDECREF(keep_a);
	Py_XDECREF(keep_e);
	Py_XDECREF(file);
	return res;
}

/* ------------------------------------------------------- attributes */

static PyObject *Root_get_path(RootObject *self, void *c)
{
	if (!enter(self))
		return NULL;
	PyObject *s = PyUnicode_DecodeFSDefault(pg_root_path(self->root));

	leave(self);
	return s;
}

static PyObject *Root_get_closed(RootObject *self, void *c)
{
	return PyBool_FromLong(self->closed || !self->root);
}

static PyObject *Root_get_uses_openat2(RootObject *self, void *c)
{
	if (!enter(self))
		return NULL;
	PyObject *b = PyBool_FromLong(pg_root_uses_openat2(self->root));

	leave(self);
	return b;
}

static PyObject *Root_get_write_limit(RootObject *self, void *c)
{
	if (!enter(self))
		return NULL;
	PyObject *n = PyLong_FromUnsignedLongLong(pg_root_write_limit(self->root));

	leave(self);
	return n;
}

static int Root_set_write_limit(RootObject *self, PyObject *v, void *c)
{
	unsigned long long n;

	if (!v) {
		PyErr_SetString(PyExc_AttributeError, "write_limit cannot be deleted");
		return -1;
	}
	n = PyLong_AsUnsignedLongLong(v);
	if (n == (unsigned long long)-1 && PyErr_Occurred())
		return -1;
	if (!enter(self))
		return -1;
	pg_root_set_write_limit(self->root, n);
	leave(self);
	return 0;
}

static PyGetSetDef Root_getset[] = {
	{ "path", (getter)(void (*)(void))Root_get_path, NULL, "the root's canonical host path", NULL },
	{ "closed", (getter)(void (*)(void))Root_get_closed, NULL, "True once close() was called", NULL },
	{ "uses_openat2", (getter)(void (*)(void))Root_get_uses_openat2, NULL, "resolves with openat2", NULL },
	{ "write_limit", (getter)(void (*)(void))Root_get_write_limit, (setter)(void (*)(void))Root_set_write_limit,
	  "the byte bound of whole-file writes and reads", NULL },
	{ NULL },
};

static PyMethodDef Root_methods[] = {
	{ "close", (PyCFunction)(void (*)(void))Root_close, METH_NOARGS, "close the root (idempotent)" },
	{ "open_fd", (PyCFunction)(void (*)(void))Root_open, METH_VARARGS | METH_KEYWORDS,
	  "open_fd(path, flags, mode=0o777) -> fd: pg_open (O_CLOEXEC added)" },
	{ "stat", (PyCFunction)(void (*)(void))Root_stat, METH_VARARGS | METH_KEYWORDS,
	  "stat(path, follow_symlinks=True) -> tuple of stat fields (ns times)" },
	{ "mkdir", (PyCFunction)(void (*)(void))Root_mkdir, METH_VARARGS, "mkdir(path, mode=0o777)" },
	{ "makedirs", (PyCFunction)(void (*)(void))Root_makedirs, METH_VARARGS, "makedirs(path, mode=0o777)" },
	{ "unlink", (PyCFunction)(void (*)(void))Root_unlink, METH_O, "unlink(path)" },
	{ "rmdir", (PyCFunction)(void (*)(void))Root_rmdir, METH_O, "rmdir(path)" },
	{ "remove_all", (PyCFunction)(void (*)(void))Root_remove_all, METH_O, "remove_all(path): pg_remove_all" },
	{ "rename", (PyCFunction)(void (*)(void))Root_rename, METH_VARARGS, "rename(src, dst, flags=0)" },
	{ "link", (PyCFunction)(void (*)(void))Root_link, METH_VARARGS, "link(src, dst)" },
	{ "symlink", (PyCFunction)(void (*)(void))Root_symlink, METH_VARARGS, "symlink(target, linkpath)" },
	{ "readlink", (PyCFunction)(void (*)(void))Root_readlink, METH_O, "readlink(path) -> bytes" },
	{ "chmod", (PyCFunction)(void (*)(void))Root_chmod, METH_VARARGS, "chmod(path, mode)" },
	{ "chown", (PyCFunction)(void (*)(void))Root_chown, METH_VARARGS | METH_KEYWORDS,
	  "chown(path, uid, gid, follow_symlinks=True)" },
	{ "utime", (PyCFunction)(void (*)(void))Root_utime, METH_VARARGS | METH_KEYWORDS,
	  "utime(path, ns=None, follow_symlinks=True)" },
	{ "truncate", (PyCFunction)(void (*)(void))Root_truncate, METH_VARARGS, "truncate(path, length)" },
	{ "listdir", (PyCFunction)(void (*)(void))Root_listdir, METH_O,
	  "listdir(path) -> [(name bytes, d_type, inode)]" },
	{ "read_file", (PyCFunction)(void (*)(void))Root_read_file, METH_VARARGS,
	  "read_file(path, limit=0) -> bytes: pg_read_file_alloc" },
	{ "write_file", (PyCFunction)(void (*)(void))Root_write_file, METH_VARARGS,
	  "write_file(path, data, mode=0o666): pg_write_file (atomic, bounded)" },
	{ "check", (PyCFunction)(void (*)(void))Root_check, METH_VARARGS,
	  "check(path, op) -> (allowed, refusal, code, errno, rule)" },
	{ "open_root", (PyCFunction)(void (*)(void))Root_open_root, METH_VARARGS,
	  "open_root(path, flags=0) -> Root: pg_root_open_at" },
	{ "refresh", (PyCFunction)(void (*)(void))Root_refresh, METH_NOARGS, "pg_root_refresh" },
	{ "spawn", (PyCFunction)(void (*)(void))Root_spawn, METH_VARARGS | METH_KEYWORDS,
	  "spawn(file, argv, env=None, stdin=-1, stdout=-1, stderr=-1) -> pid: pg_spawn" },
	{ NULL },
};

static PyTypeObject Root_Type = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "pathgate._pathgate.Root",
	.tp_basicsize = sizeof(RootObject),
	.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
	.tp_doc = "Root(path, policy_text=None, policy_file=None, flags=0): a pathgate root",
	.tp_new = PyType_GenericNew,
	.tp_init = (initproc)(void (*)(void))Root_init,
	.tp_dealloc = (destructor)(void (*)(void))Root_dealloc,
	.tp_methods = Root_methods,
	.tp_getset = Root_getset,
};

/* -------------------------------------------------------------- module */

static PyObject *mod_version(PyObject *m, PyObject *unused)
{
	return PyUnicode_FromString(pg_version());
}

static PyObject *mod_refusal_name(PyObject *m, PyObject *arg)
{
	long code = PyLong_AsLong(arg);
	const char *name;

	if (code == -1 && PyErr_Occurred())
		return NULL;
	name = pg_refusal_name((enum pg_refusal_code)code);
	if (!name)
		Py_RETURN_NONE;
	return PyUnicode_FromString(name);
}

static PyObject *mod_spawn_report(PyObject *m, PyObject *unused)
{
	const char *r = pg_spawn_report();

	if (!r)
		Py_RETURN_NONE;
	return PyUnicode_FromString(r);
}

static PyMethodDef module_methods[] = {
	{ "version", mod_version, METH_NOARGS, "the library's version (pg_version)" },
	{ "refusal_name", mod_refusal_name, METH_O, "the stable name of a refusal code" },
	{ "spawn_report", mod_spawn_report, METH_NOARGS,
	  "this thread's last pg_spawn report (JSON text)" },
	{ NULL },
};

static struct PyModuleDef module = {
	PyModuleDef_HEAD_INIT,
	.m_name = "_pathgate",
	.m_doc = "the C layer of the pathgate package",
	.m_size = -1,
	.m_methods = module_methods,
};

PyMODINIT_FUNC PyInit__pathgate(void);

#define CONST(m, name, value) (PyModule_AddIntConstant((m), (name), (value)) < 0)

PyMODINIT_FUNC PyInit__pathgate(void)
{
	PyObject *m;

	if (PyType_Ready(&Root_Type) < 0)
		return NULL;
	m = PyModule_Create(&module);
	if (!m)
		return NULL;
	if (PyModule_AddObjectRef(m, "Root", (PyObject *)&Root_Type) < 0 ||
	    CONST(m, "OP_READ", PG_OP_READ) || CONST(m, "OP_WRITE", PG_OP_WRITE) ||
	    CONST(m, "OP_CREATE", PG_OP_CREATE) || CONST(m, "OP_DELETE", PG_OP_DELETE) ||
	    CONST(m, "ROOT_XDEV", PG_ROOT_XDEV) || CONST(m, "ROOT_NO_OPENAT2", PG_ROOT_NO_OPENAT2) ||
	    CONST(m, "ROOT_HIGH_FD", PG_ROOT_HIGH_FD) ||
	    CONST(m, "RENAME_NOREPLACE", RENAME_NOREPLACE) ||
	    CONST(m, "RENAME_EXCHANGE", RENAME_EXCHANGE) ||
	    CONST(m, "VERSION_MAJOR", PATHGATE_VERSION_MAJOR) ||
	    CONST(m, "VERSION_MINOR", PATHGATE_VERSION_MINOR) ||
	    CONST(m, "VERSION_PATCH", PATHGATE_VERSION_PATCH)) {
		Py_DECREF(m);
		return NULL;
	}
	return m;
}
