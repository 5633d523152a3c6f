#!/bin/sh
# test_lib_calls.sh - the boundaries between modules: in the call graph
# of lib/'s built objects root and resolve must not call each other
# (calls go root -> resolve -> judge and root -> judge), and shim/ must
# include no header of lib/ but shim.h.
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
bad=0
for f in "$top_srcdir"/shim/*.c "$top_srcdir"/shim/*.h; do
	for h in $(sed -n 's/^#include "\(.*\)"/\1/p' "$f"); do
		if [ "$h" != shim.h ] && [ -f "$top_srcdir/lib/$h" ]; then
			echo "FAIL: $f includes lib/$h (the shim's one internal header is shim.h)"
			bad=1
		fi
	done
done
[ $bad -eq 0 ] || exit 1
echo "2 passed, 0 failed"
