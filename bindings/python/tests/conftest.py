"""Fixtures of the binding's tests: a workspace with a directory beside
it that nothing may ever change, and the policy most tests use."""
import hashlib
import os

import pytest

POLICY = """\
read /
write .
deny .env
deny **/*.pem
read ro
deny! secrets
deny src/private
"""


def tree_digest(top):
    """Every entry beneath TOP: path, type, mode, size, content or link."""
    h = hashlib.sha256()
    for d, dirs, files in sorted(os.walk(top)):
        dirs.sort()
        for name in sorted(dirs + files):
            p = os.path.join(d, name)
            st = os.lstat(p)
            h.update(("%s %o %d\n" % (os.path.relpath(p, top), st.st_mode, st.st_size)).encode())
            if os.path.islink(p):
                h.update(os.readlink(p).encode())
            elif os.path.isfile(p):
                with open(p, "rb") as f:
                    h.update(f.read())
    return h.hexdigest()


class Workspace:
    def __init__(self, base):
        self.base = base
        self.ws = os.path.join(base, "ws")
        self.out = os.path.join(base, "outside")
        os.mkdir(self.ws)
        os.mkdir(self.out)
        with open(os.path.join(self.out, "marker"), "w") as f:
            f.write("OUTSIDE\n")
        self.out_digest = tree_digest(self.out)

    def build(self, spec):
        """'d path', 'f path content', 'l path target' lines."""
        for line in spec.strip().splitlines():
            kind, path, *rest = line.split(" ", 2)
            p = os.path.join(self.ws, path)
            if kind == "d":
                os.makedirs(p, exist_ok=True)
            elif kind == "f":
                os.makedirs(os.path.dirname(p), exist_ok=True)
                with open(p, "w") as f:
                    f.write(rest[0] if rest else "")
            elif kind == "l":
                os.symlink(rest[0], p)

    def host(self, rel):
        return os.path.join(self.ws, rel)

    def outside_unchanged(self):
        return tree_digest(self.out) == self.out_digest


@pytest.fixture
def space(tmp_path):
    # Not under /tmp when avoidable: the envelope gives children a private /tmp.
    return Workspace(str(tmp_path))


@pytest.fixture
def root(space):
    import pathgate
    space.build("""
f .env SECRET=1
f key.pem KEY
d ro
f ro/readme read only
d secrets
f secrets/token T
d src
f src/main.py print("hello")
l out ../outside/marker
l dangling nothing/here
""")
    r = pathgate.Root(space.ws, policy_text=POLICY)
    yield r
    r.close()
    assert space.outside_unchanged()
