#!/bin/sh
# test_structure.sh - the shape the house style promises, checked on the
# built objects rather than trusted:
#   1. no function-level cycle between lib/ modules (module A calls a
#      function defined in B and B, directly or through others, calls A);
#   2. no lib/*.c over 800 lines.
# (test_lib_calls.sh checks the shim's one header and mutual calls.)
# Module calls are read from the objects' symbol tables (nm): a module
# "calls" another when it has an undefined symbol the other defines.
set -eu
: "${top_srcdir:=.}" "${top_builddir:=.}"
fail=0

objs=$(ls "$top_builddir"/lib/.libs/libpathgate_internal_la-*.o 2>/dev/null || true)
if [ -z "$objs" ]; then
	echo "SKIP: no objects of lib/ built (static objects not found)"
	exit 77
fi

edges=$(mktemp)
trap 'rm -f "$edges" "$edges.def"' EXIT
for o in $objs; do
	m=$(basename "$o" .o); m=${m#libpathgate_internal_la-}
	nm -g --defined-only "$o" | awk -v m="$m" '$2 ~ /^[TDBR]$/ { print $3, m }'
done | sort -u > "$edges.def"
for o in $objs; do
	m=$(basename "$o" .o); m=${m#libpathgate_internal_la-}
	nm -u "$o" | awk '{ print $NF }' | sort -u | join - "$edges.def" |
		awk -v m="$m" '$2 != m { print m, $2 }'
done | sort -u > "$edges"

# Cycles: a module that reaches itself through the call graph.
cycles=$(awk '
	{ adj[$1] = adj[$1] " " $2; nodes[$1] = 1; nodes[$2] = 1 }
	function reach(from, to,    seen, stack, n, cur, i, k, nb) {
		n = 0; stack[++n] = from
		while (n > 0) {
			cur = stack[n--]
			k = split(adj[cur], nb, " ")
			for (i = 1; i <= k; i++) {
				if (nb[i] == to) return 1
				if (!(nb[i] in seen)) { seen[nb[i]] = 1; stack[++n] = nb[i] }
			}
		}
		return 0
	}
	END { for (a in nodes) { k = split(adj[a], nb, " "); for (i = 1; i <= k; i++)
		if (reach(nb[i], a)) print a " -> " nb[i] " -> ... -> " a } }' "$edges" | sort -u)
if [ -n "$cycles" ]; then
	echo "FAIL: function-level cycles between lib/ modules:"
	echo "$cycles"
	fail=1
else
	echo "ok: no cycle among $(awk '{print $1; print $2}' "$edges" | sort -u | wc -l) lib/ modules ($(wc -l < "$edges") call edges)"
fi

long=$(wc -l "$top_srcdir"/lib/*.c | awk '$2 != "total" && $1 > 800 { print $2 " (" $1 " lines)" }')
if [ -n "$long" ]; then
	echo "FAIL: lib/ files over 800 lines:"
	echo "$long"
	fail=1
else
	echo "ok: every lib/*.c is at most 800 lines"
fi
exit $fail
