# `shardrec topology` and `record --dry-run` print plans for machines we do not
# have: a 272-CPU Knights Landing in SNC-4 flat mode (hwloc XML) and hwloc
# synthetic topologies. Needs no perf_event access: nothing is opened.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
KNL=$here/../data/knl-snc4.xml
SYN0="pack:1 [numa] core:4 pu:1"

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

# record --dry-run prints the same plan.
run knl-dry record --dry-run --topology-xml "$KNL" --threads=numa -m 512K
cmp -s knl.out knl-dry.out || fail "record --dry-run prints another plan than topology"

# The default is auto: groups within a package, node and L3, at most 8 CPUs
# (whole cores), as even as cores allow. KNL: each node's 17 four-thread cores
# as 8 x 2 cores + 1 core, 36 writers, each on its own cluster's DDR node.
run knl-default topology --topology-xml "$KNL" -m 512K
run knl-auto record --dry-run --topology-xml "$KNL" --threads=auto -m 512K
cmp -s knl-default.out knl-auto.out || fail "the default is not --threads=auto"
grep -q '^writers: 36$' knl-auto.out || fail "KNL auto: not 36 writers"
[ "$(awk '$1 ~ /^[0-9]+$/ && $4 == 8' knl-auto.out | wc -l)" = 32 ] || fail "KNL auto: not 32 x 8 CPUs"
[ "$(awk '$1 ~ /^[0-9]+$/ && $4 == 4' knl-auto.out | wc -l)" = 4 ] || fail "KNL auto: not 4 x 4 CPUs"
grep -q '^ring memory: node0 34.0 MiB, node1 34.0 MiB, node2 34.0 MiB, node3 34.0 MiB$' knl-auto.out ||
	fail "KNL auto: ring memory per node"

# auto_check NAME WRITERS SIZES SPEC: --dry-run --synthetic SPEC gives WRITERS
# writers whose sizes, sorted and unique, are SIZES
auto_check() {
	run "$1" record --dry-run --synthetic "$4"
	grep -q "^writers: $2\$" "$1.out" || fail "$1: not $2 writers"
	[ "$(awk '$1 ~ /^[0-9]+$/ { print $4 }' "$1.out" | sort -nu | tr '\n' ' ')" = "$3 " ] ||
		fail "$1: group sizes are not $3"
}
# 2 packages x 28 cores x 2 PUs: 7 x 4 cores per package
auto_check two-socket 14 8 "pack:2 [numa] l3:1 core:28 pu:2"
# AMD-like, 4 nodes: one writer per L3 (4 cores x 2 PUs)
auto_check amd-like 8 8 "pack:2 group:2 [numa] l3:2 core:4 pu:2"
# EPYC-like, one node with 16 L3s of 8 cores: one writer per L3, not one for 128 CPUs
auto_check epyc-1node 16 8 "pack:1 [numa] l3:16 core:8 pu:1"
grep -q '^15      0     120-127     8$' epyc-1node.out || fail "epyc-1node: last L3"
# No L3 on one 68-core node: 9 x 7-8 CPUs, not 8 x 8 + 4
auto_check flat68 9 "7 8" "pack:1 [numa] core:68 pu:1"
# Small L3s are packed whole up to the cap: 8 L3s of 2 cores, 2 writers of 4 L3s
auto_check small-l3 2 8 "pack:1 [numa] l3:8 core:2 pu:1"
# SHARDREC_PLAN_CAP (for experiments) moves the cap
SHARDREC_PLAN_CAP=16 run cap16 topology --synthetic "pack:2 [numa] l3:1 core:28 pu:2"
grep -q '^writers: 8$' cap16.out || fail "SHARDREC_PLAN_CAP=16: not 8 writers"
SHARDREC_PLAN_CAP=x expect_err "SHARDREC_PLAN_CAP" topology --synthetic "$SYN0"

# Inside a cpuset allowing the memory of nodes 0, 3, 4 only (2-package
# EPYC-like, 4 nodes each, tests/data/gen-epyc-job.sh): writers stay in their
# package and L3 and use the nearest allowed node by latency (node 2's CPUs
# 32-47 on node 3); exported by lstopo inside the job (nodes 1-2, 5-7 gone),
# the package's lowest allowed node. Never "node -".
run job topology --topology-xml "$here/../data/epyc-job.xml"
grep -q '^writers: 16$' job.out || fail "job: not 16 writers"
grep -q '^4       3     32-39       8$' job.out || fail "job: node 2's CPUs not on node 3"
grep -q '^ring memory: node0 16.0 MiB, node3 16.0 MiB, node4 32.0 MiB$' job.out || fail "job: ring memory"
run job-lstopo topology --topology-xml "$here/../data/epyc-job-lstopo.xml" --threads=numa
grep -q '^writers: 5$' job-lstopo.out || fail "job-lstopo numa: not 5 writers"
grep -q '^1       0     16-47       32$' job-lstopo.out || fail "job-lstopo numa: nodeless CPUs of package 0"
grep -q '^4       4     80-127      48$' job-lstopo.out || fail "job-lstopo numa: nodeless CPUs of package 1"
! grep -q '^[0-9]* *- ' job.out job-lstopo.out || fail "job: a writer without a node"

# Packages holding absent CPUs (tests/data/gen-absent-cpus.py, issue #31):
# complete cpuset 0-31, but PUs 0-4 and 16-18 only. The plan covers those 8
# (18, present but disallowed, included), one writer per package.
ABSENT=$here/../data/absent-cpus.xml
run absent topology --topology-xml "$ABSENT"
grep -q '^writers: 2$' absent.out || fail "absent CPUs: not 2 writers"
grep -q '^0       0     0-4         5$' absent.out || fail "absent CPUs: package 0"
grep -q '^1       1     16-18       3$' absent.out || fail "absent CPUs: package 1"
expect_err "CPU 5 is not in the topology \(8 CPUs\)" topology --topology-xml "$ABSENT" -C 0-5

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
run syn-c record --dry-run --synthetic "$SYN" --threads=numa -C 0-3,8 -m 64
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
