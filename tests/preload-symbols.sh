#!/bin/sh
# preload-symbols.sh - print the path-taking functions the installed glibc
# exports, one a line, sorted.  "Path-taking" is decided mechanically: a
# prototype in /usr/include (declarations joined up to their ';') whose
# parameter list has a `const char *` (or `char *`, for the mkstemp
# templates) named like a path (__path, __file, __filename, __pathname,
# __name of a file function, __dir, __from, __to, __old, __new,
# __oldpath, __newpath, __template, __pattern, __file_name, __dev,
# __special, __library_path, __lib, __spec), intersected with
# `nm -D --defined-only` of libc.so.6 (its default versions).  It misses
# a prototype that names its path otherwise, and glibc-internal entry
# points (__open_2 and kin) that no header declares; preload.h lists
# those, and the preload covers them by hand.
LIBC=${LIBC:-$(ldd /bin/sh 2>/dev/null | awk '/libc\.so\.6/ { print $3 }')}
[ -n "$LIBC" ] || LIBC=/lib/x86_64-linux-gnu/libc.so.6
nm -D --defined-only "$LIBC" | awk '$2 ~ /^[TWiI]$/ { sub(/@.*/, "", $3); print $3 }' | sort -u > "${TMPDIR:-/tmp}/pg-syms.$$"
find /usr/include -name '*.h' -type f -exec cat {} + 2>/dev/null | tr '\n' ' ' | tr ';' '\n' |
	grep -E '\(.*(const )?char \*( const)? *\*?(__restrict )?(__path|__file|__filename|__pathname|__dir|__from|__to|__old|__new|__oldpath|__newpath|__template|__pattern|__file_name|__special|__dev|__library_path|__spec|__dirname|__fsname|__name|__path_argv|__resolved)[,)[ ]' |
	grep -oE '[A-Za-z_][A-Za-z0-9_]* *\([^()]*(char \*( const)? *\*?(__restrict )?(__path|__file|__filename|__pathname|__dir|__from|__to|__old|__new|__oldpath|__newpath|__template|__pattern|__file_name|__special|__dev|__library_path|__spec|__dirname|__fsname|__name|__path_argv|__resolved))' |
	sed 's/ *(.*//' | sort -u | comm -12 - "${TMPDIR:-/tmp}/pg-syms.$$"
rm -f "${TMPDIR:-/tmp}/pg-syms.$$"
