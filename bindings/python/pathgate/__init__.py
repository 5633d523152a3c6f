"""pathgate: a workspace's files for Python code, guarded by libpathgate.

Every call resolves beneath the root's descriptor with openat2 and is
judged by the policy; a refusal raises the OSError subclass its errno
picks (PermissionError, FileNotFoundError, ...) with three more
attributes: ``refusal`` (the stable name, e.g. ``workspace.denied``, None
for a plain error), ``code`` (``pathgate.REFUSAL_*``) and ``rule`` (the
deciding rule, rendered).

    import pathgate
    with pathgate.Root("/srv/project", policy_text="write .\\ndeny .env\\n") as ws:
        with ws.open("notes.txt", "w") as f:
            f.write("hello\\n")
        ws.read_bytes(".env")          # PermissionError: workspace.denied

A file object or descriptor handed out is not confined: a directory's
descriptor reaches ``..`` with openat(2).  Do not give one to untrusted
code.
"""

import collections
import errno as _errno
import io
import locale
import os
import stat as _stat
import threading

from ._pathgate import Root as _Root
from ._pathgate import (OP_CREATE, OP_DELETE, OP_READ, OP_WRITE, RENAME_EXCHANGE,
                        RENAME_NOREPLACE, ROOT_HIGH_FD, ROOT_NO_OPENAT2, ROOT_XDEV,
                        refusal_name, spawn_report, version)

__all__ = ["Root", "Verdict", "DirEntry", "Process", "PIPE", "DEVNULL", "version",
           "refusal_name", "spawn_report", "OP_READ", "OP_WRITE", "OP_CREATE", "OP_DELETE",
           "ROOT_XDEV", "ROOT_NO_OPENAT2", "ROOT_HIGH_FD"]

__version__ = version()

# enum pg_refusal_code, by the table of libpathgate(3).
(REFUSAL_NONE, REFUSAL_PATH_ESCAPE, REFUSAL_DENIED, REFUSAL_READ_ONLY, REFUSAL_PINNED,
 REFUSAL_DANGLING_LINK, REFUSAL_BAD_PATH, REFUSAL_EXHAUSTED, REFUSAL_POLICY_INVALID,
 REFUSAL_SANDBOX_UNAVAILABLE) = range(10)

_OPS = {"read": OP_READ, "write": OP_WRITE, "create": OP_CREATE, "delete": OP_DELETE}

PIPE = -1
DEVNULL = -3

Verdict = collections.namedtuple("Verdict", "allowed refusal code errno rule")


def _open_flags(mode):
    """open(2) flags of a builtin open() mode, checked as io.open checks it."""
    kinds = set(mode)
    if len(kinds) != len(mode) or not kinds <= set("rwxabt+") or \
            len(kinds & set("rwxa")) != 1 or kinds >= {"b", "t"}:
        raise ValueError("invalid mode: %r" % (mode,))
    plus = "+" in kinds
    if "r" in kinds:
        flags = os.O_RDWR if plus else os.O_RDONLY
    else:
        flags = os.O_RDWR if plus else os.O_WRONLY
        flags |= os.O_CREAT
        flags |= {"w": os.O_TRUNC, "x": os.O_EXCL, "a": os.O_APPEND}[(kinds & set("wxa")).pop()]
    return flags


def _name(raw, like):
    """A name read from a directory, as str unless the caller spoke bytes."""
    return raw if isinstance(like, bytes) else os.fsdecode(raw)


def _join(path, name):
    if isinstance(path, bytes):
        return name if path in (b"", b".") else path.rstrip(b"/") + b"/" + name
    path = os.fspath(path)
    return name if path in ("", ".") else path.rstrip("/") + "/" + name


def _stat_result(t):
    mode, ino, dev, nlink, uid, gid, size, at, mt, ct, blksize, blocks, rdev = t
    return os.stat_result(
        (mode, ino, dev, nlink, uid, gid, size, at // 10**9, mt // 10**9, ct // 10**9),
        {"st_atime": at / 1e9, "st_mtime": mt / 1e9, "st_ctime": ct / 1e9,
         "st_atime_ns": at, "st_mtime_ns": mt, "st_ctime_ns": ct,
         "st_blksize": blksize, "st_blocks": blocks, "st_rdev": rdev})


class DirEntry:
    """One entry of Root.scandir(), shaped as os.DirEntry; stat calls go
    through the root, so they are judged too."""

    __slots__ = ("name", "path", "inode_", "_type", "_root", "_stat", "_lstat")

    def __init__(self, root, parent, name, d_type, ino):
        self._root = root
        self.name = name
        self.path = _join(parent, name)
        self.inode_ = ino
        self._type = d_type
        self._stat = self._lstat = None

    def inode(self):
        return self.inode_

    def _mode(self, follow):
        # DT_UNKNOWN (0), or a symlink to follow: ask the root.
        if self._type and not (follow and self._type == 10):
            return self._type << 12
        try:
            return self.stat(follow_symlinks=follow).st_mode
        except FileNotFoundError:
            return 0

    def is_dir(self, *, follow_symlinks=True):
        return _stat.S_ISDIR(self._mode(follow_symlinks))

    def is_file(self, *, follow_symlinks=True):
        return _stat.S_ISREG(self._mode(follow_symlinks))

    def is_symlink(self):
        return _stat.S_ISLNK(self._mode(False))

    def stat(self, *, follow_symlinks=True):
        if follow_symlinks:
            if self._stat is None:
                self._stat = self._root.stat(self.path)
            return self._stat
        if self._lstat is None:
            self._lstat = self._root.lstat(self.path)
        return self._lstat

    def __fspath__(self):
        return self.path

    def __repr__(self):
        return "<pathgate.DirEntry %r>" % (self.name,)


class Process:
    """A child in the envelope, shaped as subprocess.Popen: pid, stdin,
    stdout, stderr, poll(), wait(), communicate(), returncode."""

    def __init__(self, pid, stdin, stdout, stderr, text):
        self.pid = pid
        self.returncode = None
        self.stdin = os.fdopen(stdin, "w" if text else "wb") if stdin is not None else None
        self.stdout = os.fdopen(stdout, "r" if text else "rb") if stdout is not None else None
        self.stderr = os.fdopen(stderr, "r" if text else "rb") if stderr is not None else None
        self._lock = threading.Lock()

    def _reap(self, options):
        with self._lock:
            if self.returncode is None:
                pid, status = os.waitpid(self.pid, options)
                if pid:
                    self.returncode = os.waitstatus_to_exitcode(status)
            return self.returncode

    def poll(self):
        return self._reap(os.WNOHANG)

    def wait(self, timeout=None):
        if timeout is None:
            return self._reap(0)
        import time
        end = time.monotonic() + timeout
        while self.poll() is None:
            if time.monotonic() >= end:
                import subprocess
                raise subprocess.TimeoutExpired(self.pid, timeout)
            time.sleep(0.005)
        return self.returncode

    def communicate(self, input=None):
        """Feed INPUT, read stdout and stderr to their end, wait."""
        out = {}

        def drain(name, f):
            out[name] = f.read()
            f.close()

        readers = [threading.Thread(target=drain, args=(n, f))
                   for n, f in (("out", self.stdout), ("err", self.stderr)) if f is not None]
        for t in readers:
            t.start()
        if self.stdin is not None:
            try:
                if input:
                    self.stdin.write(input)
            except BrokenPipeError:
                pass
            finally:
                try:
                    self.stdin.close()
                except BrokenPipeError:
                    pass
        for t in readers:
            t.join()
        self.wait()
        return out.get("out"), out.get("err")

    def kill(self):
        if self.returncode is None:
            os.kill(self.pid, 9)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        for f in (self.stdin, self.stdout, self.stderr):
            if f is not None:
                f.close()
        self.wait()


class Root(_Root):
    """Root(path, policy_text=None, policy_file=None, flags=0).

    A workspace directory opened once, judged by a policy: POLICY_TEXT
    (the policy file format), POLICY_FILE, or the embedded default
    (``pathgate policy --default``).  Paths are relative to the root;
    str, bytes and os.PathLike are accepted.  Safe to share between
    threads; the GIL is released during every call."""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __repr__(self):
        return "<pathgate.Root %s%s>" % ("closed" if self.closed else repr(self.path), "")

    # -- files --------------------------------------------------------
    def open(self, file, mode="r", buffering=-1, encoding=None, errors=None, newline=None,
             closefd=True, opener=None):
        """The builtin open(), beneath the root: the descriptor comes from
        pg_open, the file object from io.open."""
        if opener is not None:
            raise ValueError("pathgate.Root.open takes no opener: the root opens")
        if not closefd:
            raise ValueError("closefd=False would leak the descriptor pg_open made")
        fd = self.open_fd(file, _open_flags(mode), 0o666)
        try:
            f = io.open(fd, mode, buffering, encoding, errors, newline, closefd=True)
        except BaseException:
            os.close(fd)
            raise
        raw = f
        while not isinstance(raw, io.FileIO):
            raw = raw.buffer if hasattr(raw, "buffer") else raw.raw
        raw.name = os.fspath(file)  # as the builtin names it, not by its fd
        return f

    def read_bytes(self, path, limit=0):
        """The whole file (pg_read_file): over LIMIT bytes (0: the root's
        write_limit) raises OSError(EFBIG) with refusal 'exhausted'."""
        return self.read_file(path, limit)

    def read_text(self, path, encoding=None, errors=None, limit=0):
        data = self.read_file(path, limit)
        return io.TextIOWrapper(io.BytesIO(data), encoding=encoding, errors=errors).read()

    def write_bytes(self, path, data, mode=0o666):
        """Replace PATH's content whole (pg_write_file: atomic, bounded)."""
        self.write_file(path, data, mode)
        return len(data)

    def write_text(self, path, data, encoding=None, errors=None, mode=0o666):
        enc = encoding or locale.getpreferredencoding(False)
        raw = data.encode(enc, errors or "strict")
        self.write_file(path, raw, mode)
        return len(data)

    # -- metadata -----------------------------------------------------
    def stat(self, path, *, follow_symlinks=True):
        return _stat_result(_Root.stat(self, path, follow_symlinks=follow_symlinks))

    def lstat(self, path):
        return self.stat(path, follow_symlinks=False)

    def exists(self, path):
        """os.path.exists: False for any error, refusals included."""
        try:
            self.stat(path)
            return True
        except (OSError, ValueError):
            return False

    def lexists(self, path):
        try:
            self.lstat(path)
            return True
        except (OSError, ValueError):
            return False

    def isdir(self, path):
        try:
            return _stat.S_ISDIR(self.stat(path).st_mode)
        except (OSError, ValueError):
            return False

    def isfile(self, path):
        try:
            return _stat.S_ISREG(self.stat(path).st_mode)
        except (OSError, ValueError):
            return False

    def islink(self, path):
        try:
            return _stat.S_ISLNK(self.lstat(path).st_mode)
        except (OSError, ValueError):
            return False

    def readlink(self, path):
        target = _Root.readlink(self, path)
        return target if isinstance(path, bytes) else os.fsdecode(target)

    def chmod(self, path, mode, *, follow_symlinks=True):
        if not follow_symlinks:
            raise NotImplementedError("chmod of a symlink itself: Linux has no such call")
        _Root.chmod(self, path, mode)

    def chown(self, path, uid, gid, *, follow_symlinks=True):
        _Root.chown(self, path, uid, gid, follow_symlinks=follow_symlinks)

    def utime(self, path, times=None, *, ns=None, follow_symlinks=True):
        """os.utime: TIMES (atime, mtime) in seconds or NS in nanoseconds;
        neither: now."""
        if times is not None and ns is not None:
            raise ValueError("utime: you may specify either 'times' or 'ns' but not both")
        if times is not None:
            ns = tuple(int(round(t * 1e9)) for t in times)
        _Root.utime(self, path, ns, follow_symlinks)

    # -- directories --------------------------------------------------
    def listdir(self, path="."):
        return [_name(n, path) for n, _t, _i in _Root.listdir(self, path)]

    def scandir(self, path="."):
        return iter([DirEntry(self, path, _name(n, path), t, i)
                     for n, t, i in _Root.listdir(self, path)])

    def walk(self, top=".", topdown=True, onerror=None):
        """os.walk beneath the root; symlinks to directories are not followed."""
        try:
            entries = list(self.scandir(top))
        except OSError as e:
            if onerror is not None:
                onerror(e)
            return
        dirs = [e.name for e in entries if e.is_dir(follow_symlinks=False)]
        files = [e.name for e in entries if not e.is_dir(follow_symlinks=False)]
        if topdown:
            yield top, dirs, files
        for d in dirs:
            yield from self.walk(_join(top, d), topdown, onerror)
        if not topdown:
            yield top, dirs, files

    def makedirs(self, path, mode=0o777, exist_ok=False):
        if not exist_ok and self.lexists(path):
            raise FileExistsError(_errno.EEXIST, os.strerror(_errno.EEXIST), path)
        _Root.makedirs(self, path, mode)

    def remove(self, path):
        self.unlink(path)

    def rmtree(self, path, ignore_errors=False):
        """shutil.rmtree: pg_remove_all (symlinks removed, never followed;
        every name judged; a refusal found first leaves the tree alone)."""
        try:
            if not self.lexists(path):
                self.lstat(path)  # raise FileNotFoundError, as shutil does
            self.remove_all(path)
        except OSError:
            if not ignore_errors:
                raise

    def replace(self, src, dst):
        self.rename(src, dst)

    def symlink(self, src, dst, target_is_directory=False):
        """os.symlink(src, dst): DST is the new link, SRC its target text."""
        _Root.symlink(self, src, dst)

    # -- judging ------------------------------------------------------
    def check(self, path, op="read"):
        """Judge PATH for OP ('read', 'write', 'create', 'delete') without
        acting: a Verdict(allowed, refusal, code, errno, rule)."""
        return Verdict(*_Root.check(self, path, _OPS.get(op, op)))

    def open_root(self, path, flags=0):
        """A directory of this root as a Root of its own (pg_root_open_at),
        judging every object as this root does."""
        return _Root.open_root(self, path, flags)

    # -- children -----------------------------------------------------
    def spawn(self, args, *, env=None, stdin=None, stdout=None, stderr=None, text=False):
        """Run ARGS (a list; ARGS[0] searched in the child's PATH) in the
        envelope of the policy (pg_spawn), in the root's directory.
        STDIN/STDOUT/STDERR: None (inherit), PIPE, DEVNULL, a descriptor
        or a file object.  Returns a Process."""
        if isinstance(args, (str, bytes)):
            raise TypeError("spawn takes a list of arguments, not a string")
        envp = None if env is None else ["%s=%s" % (k, v) for k, v in env.items()]
        mine, theirs, child = [], [], []
        try:
            for i, spec in enumerate((stdin, stdout, stderr)):
                if spec is None:
                    child.append(-1)
                    mine.append(None)
                elif spec == PIPE:
                    r, w = os.pipe()
                    ours, its = (w, r) if i == 0 else (r, w)
                    mine.append(ours)
                    theirs.append(its)
                    child.append(its)
                elif spec == DEVNULL:
                    fd = os.open(os.devnull, os.O_RDWR | os.O_CLOEXEC)
                    theirs.append(fd)
                    child.append(fd)
                    mine.append(None)
                else:
                    child.append(spec if isinstance(spec, int) else spec.fileno())
                    mine.append(None)
            pid = _Root.spawn(self, args[0], list(args), envp, *child)
        except BaseException:
            for fd in mine + theirs:
                if fd is not None:
                    os.close(fd)
            raise
        for fd in theirs:
            os.close(fd)
        return Process(pid, mine[0], mine[1], mine[2], text)
