#!/bin/sh
# Layering check (make check-layers, part of make check): reads the layer
# order from recorder/README.md (the ```layers block, lowest first; folders
# on one line are siblings) and fails when a file includes a header of a
# higher layer or of a sibling. perfdata/ must also stay off every library
# beyond libc (no zstd, numa, hwloc, libcap headers).
# Interface headers: an ops type that a lower layer implements for a higher
# one lives in the lowest layer both include (perfdata/pdecode.h for codec/'s
# decoder, perfdata/phits.h for header/'s DSO hits), never with its caller,
# so the implementer never includes its caller. The rank check covers that
# only while the block orders them right (with the ops in merge/merge_ops.h
# the block had to read merge < codec < header), so the implementers
# codec/ and header/ are also checked against merge/ and loss/ by name.
# Usage: tests/layering.sh [ROOT]   (exit 0 clean, 1 on a crossing)
root=${1:-.}
cd "$root" || exit 2
order=$(awk '/^```layers/{on=1;next} /^```/{on=0} on' recorder/README.md)
[ -n "$order" ] || { echo "layering: no \`\`\`layers block in recorder/README.md" >&2; exit 2; }

# Layer of a path: recorder/X/... -> X, recorder/main.c -> main, numa/... -> numa.
layer_of() {
	case $1 in
	recorder/*/*) p=${1#recorder/}; echo "${p%%/*}" ;;
	recorder/*) echo main ;;
	*/*) echo "${1%%/*}" ;;
	esac
}
rank_of() {
	echo "$order" | awk -v l="$1" '{for (i = 1; i <= NF; i++) if ($i == l) {print NR; exit}}'
}

fail=0
for f in $(find recorder numa ringbuf aux -name '*.[ch]' | sort); do
	l=$(layer_of "$f")
	r=$(rank_of "$l")
	if [ -z "$r" ]; then
		echo "layering: $f: folder '$l' is not in recorder/README.md's layers" >&2
		fail=1
		continue
	fi
	for inc in $(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f"); do
		case $inc in */*) ;; *) continue ;; esac
		il=$(layer_of "$inc")
		ir=$(rank_of "$il")
		[ "$il" = "$l" ] && continue
		if [ -z "$ir" ] || [ "$ir" -ge "$r" ]; then
			echo "layering: $f ($l) includes $inc ($il): not a lower layer" >&2
			fail=1
		fi
	done
done
if grep -nE '^[[:space:]]*#[[:space:]]*include[[:space:]]*<(zstd|numa|numaif|hwloc|sys/capability)\.h>' \
	recorder/perfdata/*.[ch] >&2; then
	echo "layering: recorder/perfdata/ includes a header beyond libc" >&2
	fail=1
fi
if grep -rnE '^[[:space:]]*#[[:space:]]*include[[:space:]]*"recorder/(merge|loss)/' \
	--include='*.[ch]' recorder/codec recorder/header >&2; then
	echo "layering: recorder/codec/ or recorder/header/ includes merge/ or loss/, its caller:" \
		"the ops type belongs in perfdata/" >&2
	fail=1
fi
[ $fail = 0 ] && echo "layering: ok ($(echo "$order" | tr '\n' '<' | sed 's/<$//'))"
exit $fail
