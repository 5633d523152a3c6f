"""Build the pathgate Python package against an installed libpathgate,
found with pkg-config ($PKG_CONFIG, else pkg-config; PKG_CONFIG_PATH
picks another prefix).

    pip install --no-build-isolation ./bindings/python     # offline
"""
import os
import shlex
import subprocess

from setuptools import Extension, setup


def pkg_config(*args):
    try:
        pkg = shlex.split(os.environ.get("PKG_CONFIG", "pkg-config"))
        out = subprocess.run([*pkg, *args, "pathgate"], check=True,
                             capture_output=True, text=True).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        raise SystemExit("pathgate: pkg-config found no installed libpathgate "
                         "(install it, or set PKG_CONFIG_PATH): %s" % (e,))
    return shlex.split(out)


def flags(prefix, words):
    return [w[len(prefix):] for w in words if w.startswith(prefix)]


cflags = pkg_config("--cflags")
libs = pkg_config("--libs")
libdirs = flags("-L", libs)

setup(
    name="pathgate",
    version=pkg_config("--modversion")[0],
    description="a workspace's files for Python code, guarded by libpathgate",
    license="LGPL-2.1-or-later",
    packages=["pathgate"],
    python_requires=">=3.7",
    ext_modules=[Extension(
        "pathgate._pathgate",
        sources=["pathgate/_pathgate.c"],
        include_dirs=flags("-I", cflags),
        library_dirs=libdirs,
        runtime_library_dirs=libdirs,
        libraries=flags("-l", libs),
    )],
)
