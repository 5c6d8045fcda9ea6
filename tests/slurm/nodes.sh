#!/usr/bin/env bash
# shardrec job under a real 3-node Slurm on this machine (cluster_start_nodes
# in tests/slurm/cluster.sh: each node its own network and UTS namespace,
# hostname, address, cgroup and cpuset; one shared filesystem, /tmp and
# kernel, as a cluster with a shared file system and very small nodes):
#   1. sbatch -N3 --ntasks-per-node=2: one perf.<job>.<host>.data per node,
#      each read cleanly by perf, its header naming its node, its samples
#      from its node's two ranks only; `shardrec loss` over the job's files
#      gives a row per node and the job total.
#   2. scancel mid-run: every node's recorder has a complete file within
#      KillWait, and each node had its own rendezvous directory.
#   3. a node whose recorder cannot start (its output directory is a file)
#      runs its ranks unrecorded with a warning; the other nodes record.
# The nodes share one kernel, so "system-wide" would see every node's
# tasks: each rank passes its node's cgroup (-G) to confine its recorder to
# the node, as -a confines it to a real node. Exits 77 when Slurm, munge or
# namespaces are missing or the daemons do not start.
# Env: SHARDREC, PROGS (as tests/e2e), CLUSTER_KILLWAIT.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../e2e/lib.sh"
. "$here/cluster.sh"

NODES=3
need_perf_event
cluster_have_nodes || skip "$CLUSTER_ERR"
# munged runs as munge and needs its directory below this one.
chmod 0755 "$TMP"
# One shared TMPDIR for every node, as /tmp is here: rendezvous must not mix.
export TMPDIR=$TMP/rdv
mkdir -p "$TMPDIR"
trap 'cluster_stop; cleanup' EXIT
t_start=$(date +%s%N)
if ! cluster_start_nodes "$TMP/cluster" "$NODES" 2; then
	echo "--- slurmctld/slurmd output:"
	tail -n 20 "$TMP"/cluster/*.out "$TMP"/cluster/*.log 2>/dev/null || true
	skip "cannot start a $NODES-node Slurm: $CLUSTER_ERR"
fi
ms_since() { echo $((($(date +%s%N) - $1) / 1000000)); }
at() { awk -v ms="$(ms_since "$t_start")" 'BEGIN { printf "%.1f s", ms / 1000 }'; }
echo "cluster up in $(at): ${CLUSTER_NODES[*]} (ctl $CLUSTER_NET.1)"
json_field() { sed -n "s/^  \"$2\": \"\{0,1\}\([^\",]*\)\"\{0,1\},\{0,1\}$/\1/p" "$1"; }
sq() { cluster_ctl squeue -h -j "$1" -o %T 2>/dev/null; }
wait_job_gone() { cluster_wait_job "$1" || fail "job $1 still in the queue after 60 s"; }
run_job() {
	local id
	id=$(cluster_run_job "$1") ||
		{ cat job-*.out >&2; fail "job $id ($1): $(cluster_ctl scontrol show job "$id" | grep -o ' ExitCode=[^ ]*')"; }
	echo "$id"
}

# Each node sees its own hostname, and SLURMD_NODENAME agrees.
cluster_ctl timeout 60 srun -N"$NODES" --ntasks-per-node=1 sh -c \
	'echo "$SLURMD_NODENAME $(hostname) $(sed -n "s/^0:://p" /proc/self/cgroup)"' >hosts.txt ||
	fail "srun -N$NODES hostname failed"
for n in "${CLUSTER_NODES[@]}"; do
	grep -qx "$n $n /shardrec-slurm-$$/$n" hosts.txt || { cat hosts.txt; fail "$n: hostname or cgroup"; }
	echo "$n: hostname $n, $CLUSTER_NET.$((10 + ${n#node})), cpus $(cluster_node_cpus "$n")"
done
[ "$(nproc --all)" -ge "$NODES" ] || echo "($(nproc --all) host CPUs for $NODES nodes: their cpusets overlap)"

# One rank: shardrec job on its node's cgroup, the app (hot $1 ms) writing
# its pid to app.<job>.<host>.<rank>.pid; the rest are job options.
cat >rank.sh <<EOF
#!/bin/sh
ms=\$1
shift
exec "$SHARDREC" job -G "\$(sed -n 's/^0:://p' /proc/self/cgroup)" "\$@" -- sh -c \\
	'echo \$\$ >"app.\$SLURM_JOB_ID.\$SLURMD_NODENAME.\$SLURM_PROCID.pid"; exec "\$0" "\$@"' "$PROGS/hot" "\$ms"
EOF
chmod +x rank.sh
# job.sh MS [job options]: the batch script of a 3-node, 6-rank job.
batch() {
	printf '#!/bin/sh\n#SBATCH -N %s\n#SBATCH --ntasks-per-node=2\n#SBATCH -o job-%%j.out\n' "$NODES"
	printf 'srun %s/rank.sh %s\n' "$TMP" "$*"
}

# The pids of $1's samples in $1.pids, one line per sample (perf script
# prints samples only), and how many samples that is.
sample_pids() {
	"$PERF" script -F pid -i "$1" 2>/dev/null | awk '{ print $1 }' >"$1.pids"
	wc -l <"$1.pids"
}
# How many of the apps whose pid files are $2... have samples in $1 (pids,
# not names: other tests may run hot on this machine too).
apps_in() {
	local f=$1
	shift
	[ $# -gt 0 ] || { echo 0; return; }
	sort -u "$@" | comm -12 - <(sort -u "$f.pids") | wc -l
}

# A node's file: complete, perf reads it, its header and its samples are its node's.
check_node_file() {
	local f=$1 id=$2 n=$3 samples got others
	[ -f "$f" ] || fail "$f missing"
	[ ! -e "$f.shards" ] || fail "$f.shards left behind"
	check_perf_file "$f"
	"$PERF" report --header-only -i "$f" 2>/dev/null | grep -qx "# hostname : $n" ||
		fail "$f: header hostname is not $n"
	[ "$(json_field "$f.json" host)" = "$n" ] && [ "$(json_field "$f.json" job_id)" = "$id" ] &&
		[ "$(json_field "$f.json" local_ranks)" = 2 ] || { cat "$f.json"; fail "$f.json"; }
	samples=$(sample_pids "$f")
	got=$(apps_in "$f" app."$id"."$n".*.pid)
	[ "$got" = 2 ] || fail "$f: want samples of $n's 2 apps, got $got"
	mapfile -t others < <(ls app."$id".*.pid | grep -v "^app\.$id\.$n\.")
	got=$(apps_in "$f" "${others[@]}")
	[ "$got" = 0 ] || fail "$f: samples of $got apps of other nodes"
	echo "node $n: $f $samples samples"
}

# 1. sbatch -N3 --ntasks-per-node=2: one file per node.
batch 500 >job.sh
t0=$(date +%s%N)
id=$(run_job job.sh)
echo "sbatch -N$NODES: job $id done in $(ms_since "$t0") ms"
cat "job-$id.out"
# A recorder that saw another node's ranks would wait for them, or stop early.
! grep -e "registered within" -e unrecorded "job-$id.out" || fail "a node's rendezvous mixed with another's"
[ "$(ls perf."$id".*.data | wc -l)" = "$NODES" ] || fail "want $NODES files, got: $(ls perf."$id".*)"
for n in "${CLUSTER_NODES[@]}"; do
	check_node_file "perf.$id.$n.data" "$id" "$n"
	grep -q "shardrec job $id.0 $n rank [0-9]: [1-9][0-9]* samples" "job-$id.out" || fail "$n: no job line"
done
[ -z "$(ls -A "$TMPDIR")" ] || fail "rendezvous left behind: $(ls -A "$TMPDIR")"

# The job-wide view: a row per node, then the job's total.
"$SHARDREC" loss perf."$id".*.data >loss.txt 2>loss.err || { cat loss.err; fail "loss over the job's files"; }
cat loss.txt
total=0
for n in "${CLUSTER_NODES[@]}"; do
	s=$(awk -v f="perf.$id.$n.data" '$1 == f { print $2; exit }' loss.txt)
	[ "$s" = "$(json_field "perf.$id.$n.data.json" samples)" ] || fail "loss: $n's row says $s samples"
	total=$((total + s))
done
[ "$(awk '$1 == "total" { print $2; exit }' loss.txt)" = "$total" ] || fail "loss: no total row of $total samples"
echo "sbatch -N$NODES: ok at $(at)"

# 2. scancel mid-run: each node's recorder exits with a complete file within KillWait.
batch 60000 -o perf.%j.%h.%p.data >long.sh
id=$(cluster_ctl sbatch --parsable long.sh)
t0=$(date +%s%N)
# Every node's recorder is ready (its ranks released) and its writers have a shard.
until [ "$(ls -d "$TMPDIR"/shardrec-job.*."$id".0.*/ready 2>/dev/null | wc -l)" = "$NODES" ] &&
	[ "$(ls perf."$id".*.data.shards/shard.0 2>/dev/null | wc -l)" = "$NODES" ]; do
	[ "$(ms_since "$t0")" -lt 60000 ] ||
		fail "job $id ($(sq "$id")): not $NODES recorders after 60 s: $(ls -d "$TMPDIR"/* perf."$id".*)"
	sleep 0.1
done
ls -d "$TMPDIR"/shardrec-job.*."$id".0.* >rdv.txt
for n in "${CLUSTER_NODES[@]}"; do
	grep -q "\.$id\.0\.$n$" rdv.txt || fail "no rendezvous of $n: $(cat rdv.txt)"
done
declare -A start
for p in $(ls -d perf."$id".*.data.shards | sed 's/.*\.\([0-9]*\)\.data\.shards$/\1/'); do
	start[$p]=$(started "$p")
done
sleep 1
t0=$(date +%s%N)
cluster_ctl scancel "$id"
for p in "${!start[@]}"; do
	while running "$p" "${start[$p]}" && [ "$(ms_since "$t0")" -lt 15000 ]; do sleep 0.02; done
	running "$p" "${start[$p]}" && { cat "job-$id.out"; ps -o pid,stat,wchan:20,args -p "$p";
		tail -n 5 "$CLUSTER_DIR"/node*.log; fail "recorder $p still runs 15 s after scancel ($(sq "$id"))"; }
	echo "$p $(ms_since "$t0")" >>exit.txt
done
wait_job_gone "$id"
cat "job-$id.out"
for n in "${CLUSTER_NODES[@]}"; do
	f=$(ls perf."$id"."$n".*.data)
	check_node_file "$f" "$id" "$n"
	[ "$(json_field "$f.json" stop_signal)" = SIGTERM ] || { cat "$f.json"; fail "$f.json: stop_signal"; }
	p=${f%.data}
	ms=$(awk -v p="${p##*.}" '$1 == p { print $2 }' exit.txt)
	echo "scancel: $n's recorder exited $ms ms after scancel (KillWait ${CLUSTER_KILLWAIT:-5} s)"
	[ "$ms" -lt $((${CLUSTER_KILLWAIT:-5} * 1000)) ] || fail "$n: not within KillWait"
done
echo "scancel: ok at $(at)"

# 3. node2 cannot create its output: its ranks run unrecorded, the others record.
mkdir out.node1 out.node3
touch out.node2
batch 300 -o out.%h/perf.%j.data >fail.sh
t0=$(date +%s%N)
id=$(run_job fail.sh)
ms=$(ms_since "$t0")
cat "job-$id.out"
grep -q "recording failed on node2: running the app unrecorded" "job-$id.out" || fail "node2: no warning"
[ "$(ls app."$id".node2.*.pid | wc -l)" = 2 ] || fail "node2's ranks did not run"
[ "$ms" -lt 20000 ] || fail "job took $ms ms: node2's rank 1 waited for its timeout"
for n in node1 node3; do
	cp "out.$n/perf.$id.data" "perf.$id.$n.data"
	cp "out.$n/perf.$id.data.json" "perf.$id.$n.data.json"
	check_node_file "perf.$id.$n.data" "$id" "$n"
done
echo "node2 unrecorded, node1 and node3 recorded: ok at $(at)"
echo "slurm nodes test: $(at)"
