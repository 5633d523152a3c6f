"""The pathgate package: every refusal class, the os / shutil / builtins
shapes, an agent's tool loop, threads, a hostile process racing symlink
swaps, leaks, the envelope."""
import errno
import io
import os
import stat
import subprocess
import sys
import threading
import time
import tracemalloc

import pytest

import pathgate

from conftest import POLICY, tree_digest


def fd_count():
    return len(os.listdir("/proc/self/fd"))


# ------------------------------------------------------------------ basics

def test_version():
    assert pathgate.version() == "%d.%d.%d" % (pathgate._pathgate.VERSION_MAJOR,
                                               pathgate._pathgate.VERSION_MINOR,
                                               pathgate._pathgate.VERSION_PATCH)
    assert pathgate.__version__ == pathgate.version()
    assert pathgate.refusal_name(pathgate.REFUSAL_DENIED) == "workspace.denied"
    assert pathgate.refusal_name(pathgate.REFUSAL_NONE) is None


def test_default_policy(space):
    space.build("f .env x\nf a.txt y")
    with pathgate.Root(space.ws) as r:
        assert r.read_bytes("a.txt") == b"y"
        with pytest.raises(PermissionError) as e:
            r.read_bytes(".env")
        assert e.value.refusal == "workspace.denied"


def test_policy_file_and_parse_error(space):
    pf = os.path.join(space.base, "policy")
    with open(pf, "w") as f:
        f.write("write .\nalow x\n")
    with pytest.raises(OSError) as e:
        pathgate.Root(space.ws, policy_file=pf)
    assert e.value.errno == errno.EINVAL
    assert e.value.refusal == "policy.invalid"
    assert e.value.code == pathgate.REFUSAL_POLICY_INVALID
    assert "line 2" in e.value.rule
    with pytest.raises(OSError) as e:
        pathgate.Root(space.ws, policy_text="deny\n")
    assert e.value.refusal == "policy.invalid"
    with open(pf, "w") as f:
        f.write("write .\ndeny a\n")
    with pathgate.Root(space.ws, policy_file=pf) as r:
        assert not r.check("a", "read").allowed


def test_closed_root(root):
    root.close()
    root.close()
    assert root.closed
    with pytest.raises(ValueError):
        root.listdir(".")


# -------------------------------------------------------- refusal classes

def refusal(call, exc, name, err):
    with pytest.raises(exc) as e:
        call()
    assert e.value.errno == err, e.value
    assert e.value.refusal == name, e.value
    assert e.value.code is not None and pathgate.refusal_name(e.value.code) == name
    assert isinstance(e.value.rule, str)
    return e.value


def test_every_refusal_class(root, space):
    before = tree_digest(space.ws)
    # workspace.path-escape
    for p in ("../outside/marker", "/etc/passwd", "out", "src/../../outside/marker"):
        refusal(lambda: root.read_bytes(p), PermissionError, "workspace.path-escape",
                errno.EACCES)
    # workspace.denied, under several spellings
    for p in (".env", ".ENV", "./.env", "src/../.env", "key.pem", "secrets/token",
              "SECRETS/token"):
        e = refusal(lambda: root.open(p), PermissionError, "workspace.denied", errno.EACCES)
        assert e.filename == p
    refusal(lambda: root.write_bytes("new.pem", b"x"), PermissionError, "workspace.denied",
            errno.EACCES)
    # workspace.read-only: EROFS has no subclass of its own
    e = refusal(lambda: root.write_text("ro/readme", "x"), OSError, "workspace.read-only",
                errno.EROFS)
    assert type(e) is OSError
    refusal(lambda: root.remove("ro/readme"), OSError, "workspace.read-only", errno.EROFS)
    # workspace.pinned: src holds a deny rule beneath the write region
    refusal(lambda: root.rename("src", "elsewhere"), OSError, "workspace.pinned", errno.EBUSY)
    refusal(lambda: root.rmtree("src"), OSError, "workspace.pinned", errno.EBUSY)
    # workspace.dangling-link: creating through a link to nothing
    space.build("l dl nothing-yet")
    before = tree_digest(space.ws)
    refusal(lambda: root.open("dl", "w"), FileNotFoundError, "workspace.dangling-link",
            errno.ENOENT)
    # workspace.bad-path
    refusal(lambda: root.stat("a" * 256), OSError, "workspace.bad-path", errno.ENAMETOOLONG)
    refusal(lambda: root.stat(""), FileNotFoundError, "workspace.bad-path", errno.ENOENT)
    with pytest.raises(ValueError):
        root.stat("a\0b")  # a NUL never reaches the library
    # exhausted
    refusal(lambda: root.read_bytes("src/main.py", limit=3), OSError, "exhausted", errno.EFBIG)
    root.write_limit = 4
    refusal(lambda: root.write_bytes("big", b"12345"), OSError, "exhausted", errno.EFBIG)
    root.write_limit = 64 << 20
    assert tree_digest(space.ws) == before


def test_plain_errors_have_no_refusal(root):
    cases = [
        (lambda: root.open("nothing"), FileNotFoundError),
        (lambda: root.mkdir("src"), FileExistsError),
        (lambda: root.open("src", "w"), IsADirectoryError),
        (lambda: root.listdir("src/main.py"), NotADirectoryError),
        (lambda: (root.makedirs("e/f", exist_ok=True), root.rmdir("e")), OSError),
        (lambda: root.read_bytes("src"), IsADirectoryError),
    ]
    for call, exc in cases:
        with pytest.raises(exc) as e:
            call()
        assert e.value.refusal is None and e.value.code == 0


# ------------------------------------------------------- the usual shapes

def test_open_modes(root, space):
    with root.open("t.txt", "w", encoding="utf-8") as f:
        assert f.write("héllo\n") == 6
    assert f.closed
    with root.open("t.txt", "a") as f:
        f.write("more\n")
    with root.open("t.txt") as f:
        assert f.read() == "héllo\nmore\n"
        assert f.name == "t.txt"
    with root.open("t.txt", "rb") as f:
        assert f.read() == "héllo\nmore\n".encode()
    with root.open("t.txt", "r+b") as f:
        f.write(b"H")
    with root.open("t.txt", "rb", buffering=0) as f:
        assert isinstance(f, io.FileIO) and f.read(1) == b"H"
    with pytest.raises(FileExistsError):
        root.open("t.txt", "x")
    with root.open("new.bin", "xb") as f:
        f.write(b"\0\1")
    assert open(space.host("new.bin"), "rb").read() == b"\0\1"
    with root.open(b"t.txt", newline="") as f:
        assert f.readline() == "Héllo\n"
    for bad in ("rw", "z", "rbt", "", "++r"):
        with pytest.raises(ValueError):
            root.open("t.txt", bad)
    with pytest.raises(ValueError):
        root.open("t.txt", opener=os.open)


def test_os_shapes(root, space):
    root.makedirs("a/b/c")
    root.makedirs("a/b/c", exist_ok=True)
    with pytest.raises(FileExistsError):
        root.makedirs("a/b")
    root.mkdir("a/d", 0o700)
    assert stat.S_IMODE(root.stat("a/d").st_mode) == 0o700
    assert root.write_bytes("a/b/f", b"data") == 4
    st = root.stat("a/b/f")
    assert st.st_size == 4 and stat.S_ISREG(st.st_mode)
    assert st.st_mtime_ns // 10**9 == int(st.st_mtime)
    assert sorted(root.listdir("a")) == ["b", "d"]
    assert root.listdir(b"a/b") == [b"c", b"f"] or sorted(root.listdir(b"a/b")) == [b"c", b"f"]
    root.symlink("b/f", "a/lf")
    assert root.readlink("a/lf") == "b/f"
    assert root.readlink(b"a/lf") == b"b/f"
    assert stat.S_ISLNK(root.lstat("a/lf").st_mode) and root.stat("a/lf").st_size == 4
    entries = {e.name: e for e in root.scandir("a")}
    assert entries["b"].is_dir() and not entries["b"].is_symlink()
    assert entries["lf"].is_symlink() and entries["lf"].is_file()
    assert not entries["lf"].is_file(follow_symlinks=False)
    assert entries["lf"].path == "a/lf" and os.fspath(entries["lf"]) == "a/lf"
    assert entries["b"].inode() == os.lstat(space.host("a/b")).st_ino
    root.chmod("a/b/f", 0o600)
    assert stat.S_IMODE(os.stat(space.host("a/b/f")).st_mode) == 0o600
    root.utime("a/b/f", (1000000000, 1100000000.5))
    st = os.stat(space.host("a/b/f"))
    assert st.st_mtime_ns == 1100000000500000000 and int(st.st_atime) == 1000000000
    root.utime("a/b/f", ns=(5, 7 * 10**9 + 3))
    assert os.stat(space.host("a/b/f")).st_mtime_ns == 7 * 10**9 + 3
    root.utime("a/lf", ns=(0, 12 * 10**9), follow_symlinks=False)
    assert os.lstat(space.host("a/lf")).st_mtime == 12
    root.utime("a/b/f")
    assert time.time() - os.stat(space.host("a/b/f")).st_mtime < 60
    root.chown("a/b/f", -1, os.getgid())
    root.truncate("a/b/f", 2)
    assert root.read_bytes("a/b/f") == b"da"
    root.rename("a/b/f", "a/g")
    root.replace("a/g", "a/h")
    root.link("a/h", "a/h2")
    assert os.stat(space.host("a/h")).st_nlink == 2
    root.remove("a/h2")
    root.rmdir("a/d")
    walked = list(root.walk("a"))
    assert walked[0][0] == "a" and sorted(walked[0][1]) == ["b"]
    assert root.exists("a/h") and root.isfile("a/h") and root.isdir("a")
    assert root.islink("a/lf") and not root.exists(".env") and not root.exists("nope")
    root.rmtree("a")
    assert not os.path.exists(space.host("a"))
    with pytest.raises(FileNotFoundError):
        root.rmtree("a")
    root.rmtree("a", ignore_errors=True)
    import pathlib
    assert root.read_text(pathlib.PurePosixPath("src") / "main.py") == 'print("hello")'


def test_check(root):
    v = root.check("src/main.py", "write")
    assert v.allowed and v.refusal is None and v.code == 0 and v.rule.startswith("write .")
    v = root.check("ro/readme", "write")
    assert (v.allowed, v.refusal, v.errno) == (False, "workspace.read-only", errno.EROFS)
    assert root.check(".env").code == pathgate.REFUSAL_DENIED
    v = root.check("nothing")
    assert not v.allowed and v.refusal is None and v.errno == errno.ENOENT
    with pytest.raises(ValueError):
        root.check("x", 7)


def test_sub_root(space):
    space.build("d x\nf x/secret s\nf x/SECRET s\nf x/plain p\nd y\nf y/z z")
    with pathgate.Root(space.ws, policy_text="write .\ndeny X/secret\nread! y\n") as r:
        sub = r.open_root("x")
        assert isinstance(sub, pathgate.Root)
        assert sub.path == os.path.realpath(space.host("x"))
        for name in ("secret", "SECRET", "./Secret"):
            with pytest.raises(PermissionError) as e:
                sub.read_bytes(name)
            assert e.value.refusal == "workspace.denied"
        assert sub.read_bytes("plain") == b"p"
        with pytest.raises(PermissionError):
            sub.read_bytes("../y/z")
        ysub = r.open_root("y")
        with pytest.raises(OSError) as e:
            ysub.write_bytes("new", b"x")
        assert e.value.refusal == "workspace.read-only"
    # The parent is closed; the sub-roots still judge alike.
    with pytest.raises(PermissionError):
        sub.read_bytes("SECRET")
    sub.close()
    ysub.close()


# ----------------------------------------------------- an agent's tool loop

def test_agent_tool_loop(root, space):
    """list, read, edit, write: what an agent's file tools do all day."""
    space.build("""
f src/app.py def greet():\\n    return "hi"\\n
f src/util.py X = 1
f src/config.pem KEY
f README.md # project
""")
    seen, refused, unlisted = [], [], []
    for top, dirs, files in root.walk(".", onerror=lambda e: unlisted.append(e.filename)):
        for name in files:
            path = name if top == "." else top + "/" + name
            try:
                text = root.read_text(path)
            except OSError as e:
                refused.append((path, e.refusal))
                continue
            seen.append(path)
            if path.endswith(".py") and "hi" in text:
                root.write_text(path, text.replace('"hi"', '"hello"'))
    assert "src/app.py" in seen and "README.md" in seen
    assert (".env", "workspace.denied") in refused
    assert ("src/config.pem", "workspace.denied") in refused
    assert "secrets" in unlisted
    assert ("out", "workspace.path-escape") in refused
    assert ("dangling", None) in refused
    assert not any(p == ".env" for p in seen)
    assert 'return "hello"' in open(space.host("src/app.py")).read()
    # The tool writes a new file, edits it twice, lists it, removes it.
    root.makedirs("build/out", exist_ok=True)
    root.write_text("build/out/log.txt", "1\n")
    with root.open("build/out/log.txt", "a") as f:
        f.write("2\n")
    assert root.read_text("build/out/log.txt") == "1\n2\n"
    assert root.listdir("build/out") == ["log.txt"]
    root.rmtree("build")
    # Attempts to write where it must not change nothing.
    before = tree_digest(space.ws)
    for call in (lambda: root.write_text(".env", "X=2"),
                 lambda: root.write_text("ro/readme", "x"),
                 lambda: root.write_text("../outside/marker", "x"),
                 lambda: root.rmtree("secrets"),
                 lambda: root.rename("src/app.py", ".env")):
        with pytest.raises(OSError):
            call()
    assert tree_digest(space.ws) == before


# ---------------------------------------------------------------- threads

def test_threads_share_a_root(root, space):
    errors = []
    n = 8

    def work(i):
        try:
            d = "t%d" % i
            root.makedirs(d)
            for k in range(150):
                root.write_bytes("%s/f%d" % (d, k % 5), b"%d-%d" % (i, k))
                assert root.read_bytes("%s/f%d" % (d, k % 5)) == b"%d-%d" % (i, k)
                with root.open("%s/log" % d, "a") as f:
                    f.write("x")
                assert len(root.listdir(d)) == min(k + 1, 5) + 1
                try:
                    root.read_bytes(".env")
                    errors.append("read .env")
                except PermissionError as e:
                    # The refusal record is per thread: always this thread's.
                    if e.refusal != "workspace.denied" or e.filename != ".env":
                        errors.append(repr(e))
                try:
                    root.stat("t%d/none" % i)
                except FileNotFoundError as e:
                    if e.refusal is not None:
                        errors.append(repr(e))
            root.rmtree(d)
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(repr(e))

    threads = [threading.Thread(target=work, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []


def test_close_while_other_threads_call(space):
    """close() while calls are in flight: they finish or see ValueError."""
    space.build("f a x")
    for _ in range(20):
        r = pathgate.Root(space.ws, policy_text="write .\n")
        stop = threading.Event()
        bad = []

        def spin():
            while not stop.is_set():
                try:
                    r.read_bytes("a")
                except ValueError:
                    return
                except Exception as e:  # noqa: BLE001
                    bad.append(repr(e))
                    return

        ts = [threading.Thread(target=spin) for _ in range(4)]
        for t in ts:
            t.start()
        time.sleep(0.01)
        r.close()
        stop.set()
        for t in ts:
            t.join()
        assert bad == []


# --------------------------------------------------------- hostile racing

SWAPPER = r"""
import os, random, shutil, sys
ws, out = sys.argv[1], sys.argv[2]
d, real, tmp = ws + "/d", ws + "/real", ws + "/swap"

def hold():
    # Each state lasts from nothing to about a millisecond: long enough to
    # be met whole, short enough to change in the middle of a call.
    for _ in range(random.randint(0, 20000)):
        pass

def point_d_at(target):
    try:
        os.symlink(target, tmp)
        os.rename(tmp, d)
    except OSError:
        try:
            os.unlink(tmp)
        except OSError:
            pass

while True:
    point_d_at(out)            # d: a link out of the root
    hold()
    point_d_at("real")         # d: a link to the real directory
    hold()
    try:                       # d: the real directory itself
        if os.path.isdir(d) and not os.path.islink(d):
            shutil.rmtree(d)       # made through a link that was not there
        os.unlink(d)
        os.rename(real, d)
        hold()
        os.rename(d, real)
    except OSError:
        pass
    point_d_at(out + "/sub")   # d: a link to a directory outside
    hold()
"""


def test_hostile_symlink_swaps(space):
    """A process keeps swapping d between a directory, a symlink to it and
    a symlink to outside; no operation may read or write outside."""
    space.build("d real\nf real/f inside\nd real/sub\nf real/sub/g g")
    with open(os.path.join(space.out, "f"), "w") as f:
        f.write("OUTSIDE")
    os.makedirs(os.path.join(space.out, "sub"))
    with open(os.path.join(space.out, "sub", "g"), "w") as f:
        f.write("OUTSIDE")
    space.out_digest = tree_digest(space.out)
    fds = fd_count()
    r = pathgate.Root(space.ws, policy_text="write .\n")
    swapper = subprocess.Popen([sys.executable, "-c", SWAPPER, space.ws, space.out])
    counts = {"ok": 0, "refused": 0, "error": 0}
    kinds = {}
    deadline = time.monotonic() + 4
    try:
        i = 0
        while time.monotonic() < deadline:
            i += 1
            ops = [
                lambda: r.read_bytes("d/f"),
                lambda: r.open("d/f", "rb").read(),
                lambda: r.write_bytes("d/w%d" % (i % 3), b"x"),
                lambda: r.open("d/n%d" % (i % 3), "w").close(),
                lambda: r.listdir("d"),
                lambda: r.stat("d/sub/g").st_size,
                lambda: r.mkdir("d/m%d" % (i % 3)),
                lambda: r.rmtree("d/m%d" % (i % 3)),
                lambda: r.utime("d/f"),
                lambda: r.chmod("d/f", 0o644),
                lambda: r.rename("d/w%d" % (i % 3), "d/v"),
                lambda: r.symlink("x", "d/s%d" % i),
                lambda: r.remove("d/s%d" % i),
            ]
            for op in ops:
                try:
                    res = op()
                except OSError as e:
                    counts["refused" if e.refusal else "error"] += 1
                    kinds[(e.errno, e.refusal)] = kinds.get((e.errno, e.refusal), 0) + 1
                    continue
                counts["ok"] += 1
                assert res != b"OUTSIDE" and "OUTSIDE" not in repr(res)
    finally:
        swapper.kill()
        swapper.wait()
        r.close()
    assert space.outside_unchanged(), "something outside the root changed"
    assert fd_count() == fds
    assert counts["ok"] > 100 and counts["refused"] > 0, (counts, kinds)
    print("race:", counts)


# ------------------------------------------------------------------ leaks

def test_no_leaks(root):
    def round_trip():
        root.write_bytes("leak.txt", b"x" * 100)
        root.read_bytes("leak.txt")
        with root.open("leak.txt") as f:
            f.read()
        root.listdir(".")
        list(root.scandir("src"))
        root.stat("leak.txt")
        root.check(".env")
        for call in (lambda: root.read_bytes(".env"), lambda: root.stat("none"),
                     lambda: root.open("../x")):
            try:
                call()
            except OSError:
                pass
        root.open_root("src").close()

    for _ in range(50):
        round_trip()
    fds = fd_count()
    tracemalloc.start()
    first = tracemalloc.take_snapshot()
    for _ in range(500):
        round_trip()
    second = tracemalloc.take_snapshot()
    tracemalloc.stop()
    grown = sum(s.size_diff for s in second.compare_to(first, "filename"))
    assert grown < 64 * 1024, grown
    assert fd_count() == fds


def test_no_leaks_in_c(root):
    """The C side's own heap, which tracemalloc does not see: the process's
    resident size must not grow with the calls."""
    def rss():
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")

    def many():
        for _ in range(2000):
            root.write_bytes("leak.bin", b"y" * 4096)
            root.read_bytes("leak.bin")
            try:
                root.read_bytes(".env")
            except PermissionError:
                pass
            root.open_root("src").close()
            root.listdir("src")

    many()
    before = rss()
    many()
    assert rss() - before < 2 << 20


# --------------------------------------------------------------- envelope

def envelope_works(r):
    try:
        p = r.spawn(["true"])
    except OSError as e:
        if e.refusal == "exec.sandbox-unavailable":
            return False
        raise
    return p.wait() == 0


def test_spawn(space):
    space.build("f .env SECRET\nf a.txt A")
    with pathgate.Root(space.ws, policy_text="read /\nwrite .\ndeny .env\n") as r:
        if not envelope_works(r):
            pytest.skip("no envelope here: " + (pathgate.spawn_report() or ""))
        p = r.spawn(["sh", "-c", "cat a.txt; cat .env; echo made > b.txt; exit 3"],
                    stdout=pathgate.PIPE, stderr=pathgate.PIPE, text=True)
        out, err = p.communicate()
        assert p.returncode == 3
        assert out.startswith("A") and "SECRET" not in out
        assert ".env" in err
        assert open(space.host("b.txt")).read() == "made\n"
        p = r.spawn(["cat"], stdin=pathgate.PIPE, stdout=pathgate.PIPE)
        assert p.communicate(b"through the pipe") == (b"through the pipe", None)
        p = r.spawn(["sh", "-c", "echo $FOO"], env={"FOO": "bar"}, stdout=pathgate.PIPE,
                    stderr=pathgate.DEVNULL)
        assert p.communicate()[0] == b"bar\n" and p.returncode == 0
        assert '"applied"' in pathgate.spawn_report() or pathgate.spawn_report()
        with pytest.raises(TypeError):
            r.spawn("true")
