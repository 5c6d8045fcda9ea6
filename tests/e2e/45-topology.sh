# `shardrec topology` and `record --dry-run` print plans for machines we do not
# have: a 272-CPU Knights Landing in SNC-4 flat mode (hwloc XML) and hwloc
# synthetic topologies. Needs no perf_event access: nothing is opened.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
KNL=$here/../data/knl-snc4.xml

# run NAME args...: shardrec must succeed with an empty stderr; stdout in NAME.out
run() {
	local name=$1
	shift
	"$SHARDREC" "$@" >"$name.out" 2>"$name.err" || { cat "$name.err"; fail "'$*' failed"; }
	[ ! -s "$name.err" ] || { cat "$name.err"; fail "'$*' printed on stderr"; }
	echo "== shardrec $*"
	cat "$name.out"
}

# expect_err PATTERN args...: fails with exactly one line on stderr matching PATTERN
expect_err() {
	local pat=$1
	shift
	if "$SHARDREC" "$@" >bad.out 2>bad.err; then
		fail "'$*' succeeded"
	fi
	echo "shardrec $*: $(cat bad.err)"
	[ "$(wc -l <bad.err)" = 1 ] || { cat bad.err; fail "'$*': error is not one line"; }
	grep -Eq -e "$pat" bad.err || fail "'$*': error does not match /$pat/"
}

# KNL, one writer per node: nodes 0-3, 68 CPUs each, 512 KiB x 68 of rings per node
run knl topology --topology-xml "$KNL" --threads=numa -m 512K
grep -q '^writers: 4$' knl.out || fail "KNL numa: not 4 writers"
for n in 0 1 2 3; do
	awk -v n=$n '$1 == n && $2 == n && $4 == 68 { ok = 1 } END { exit !ok }' knl.out ||
		fail "KNL numa: writer $n is not on node $n with 68 CPUs"
done
grep -q '^0       0     0-16,68-84,136-152,204-220 ' knl.out || fail "KNL numa: node 0's CPUs"
grep -q '^ring memory: node0 34.0 MiB, node1 34.0 MiB, node2 34.0 MiB, node3 34.0 MiB$' knl.out ||
	fail "KNL numa: ring memory per node"
grep -q '^memory-only nodes (no writer): 4 (MCDRAM), 5 (MCDRAM), 6 (MCDRAM), 7 (MCDRAM)$' knl.out ||
	fail "KNL: MCDRAM nodes not named"

# The default policy is numa; record --dry-run prints the same plan.
run knl-default topology --topology-xml "$KNL" -m 512K
cmp -s knl.out knl-default.out || fail "topology's default is not --threads=numa"
run knl-dry record --dry-run --topology-xml "$KNL" --threads=numa -m 512K
cmp -s knl.out knl-dry.out || fail "record --dry-run prints another plan than topology"

# One writer per core: 68 writers, each with a core's 4 hardware threads
run knl-core topology --topology-xml "$KNL" --threads=core
grep -q '^writers: 68$' knl-core.out || fail "KNL core: not 68 writers"
[ "$(awk '$4 == 4' knl-core.out | wc -l)" = 68 ] || fail "KNL core: a writer without 4 CPUs"
run knl-cpu topology --topology-xml "$KNL" --threads=cpu
grep -q '^writers: 272$' knl-cpu.out || fail "KNL cpu: not 272 writers"

# -C on another machine's topology: its CPUs, not ours
run knl-sub topology --topology-xml "$KNL" -C 0,17,34,51,200-203
grep -q '^writers: 4$' knl-sub.out || fail "KNL -C: not 4 writers"
grep -q '^3       3     51,200-203 ' knl-sub.out || fail "KNL -C: CPUs 200-203 not on node 3"

# record --dry-run with a synthetic topology, with and without a command and -C
SYN="pack:2 numa:2 core:4 pu:2"
run syn record --dry-run --synthetic "$SYN" --threads=numa
grep -q '^writers: 4$' syn.out || fail "synthetic numa: not 4 writers"
grep -q '^3       3     24-31 ' syn.out || fail "synthetic numa: node 3"
run syn-pkg record --dry-run --synthetic "$SYN" --threads=package -- true
grep -q '^writers: 2$' syn-pkg.out || fail "synthetic package: not 2 writers"
run syn-c record --dry-run --synthetic "$SYN" -C 0-3,8 -m 64
grep -q '^writers: 2$' syn-c.out || fail "synthetic -C: not 2 writers"
grep -q '^ring memory: node0 1.0 MiB, node1 0.2 MiB$' syn-c.out || fail "synthetic -C: ring memory"
run syn-n topology --synthetic "$SYN" --threads=3
grep -q '^writers: 3$' syn-n.out || fail "synthetic --threads=3: not 3 writers"
[ ! -e perf.data ] && [ ! -e perf.data.shards ] || fail "--dry-run left files behind"

# This machine
run here topology
grep -q '^writers: [1-9]' here.out || fail "this machine: no writers"

# Errors: one line each
expect_err "/nonexistent/knl.xml" topology --topology-xml /nonexistent/knl.xml
echo '<topology>' >broken.xml
expect_err "broken.xml" topology --topology-xml broken.xml
expect_err "synthetic" record --dry-run --synthetic "bogus:3"
expect_err "not in the topology" topology --synthetic "$SYN" -C 40
expect_err "dry-run" record --topology-xml "$KNL" -o x.data -- true
[ ! -e x.data ] && [ ! -e x.data.shards ] || fail "an error left files behind"
exit 0
