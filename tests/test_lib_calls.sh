#!/bin/sh
# test_lib_calls.sh - the call graph between lib/'s modules, read from the
# built objects: root and resolve must not call each other (calls go
# root -> resolve -> judge and root -> judge).
: "${top_builddir:?run through make check}"
: "${top_srcdir:?run through make check}"
command -v nm >/dev/null || { echo "SKIP: no nm"; exit 77; }
out=$("$top_srcdir/tools/lib-calls" "$top_builddir" 2>&1)
rc=$?
printf '%s\n' "$out" | sed -n '/^modules that call each other/,$p'
if [ $rc -ne 0 ]; then
	echo "FAIL: $out" | tail -1
	exit 1
fi
echo "1 passed, 0 failed"
