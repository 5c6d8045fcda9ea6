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
#   4. the same job submitted by an ordinary user (perf_event_paranoid 2, no
#      capabilities), output on the shared directory, shards on each node's
#      own tmpfs (SLURM_TMPDIR): node1 and node3 record their own ranks
#      (mode "ranks"), node2, asked for a kernel-only event the user may not
#      record, runs its ranks unrecorded and its .json says why; no shard
#      file is ever created in the shared directory (inotify), each node's
#      shards were on its own local disk.
#   5. that user with a CAP_PERFMON copy (setcap) on a node the job has
#      alone (sbatch --exclusive): the whole node is recorded.
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
# Each node's own tmpfs there (cluster_on_node): its node-local disk.
export CLUSTER_LOCAL=$TMP/local
mkdir -m 0755 "$CLUSTER_LOCAL"
finish() {
	cluster_stop
	ordinary_user_release
	cleanup
}
trap finish EXIT
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
# shardrec jobview: each node's samples and lost samples as perf report
# --stats counts them, its share of hot_loop as perf report --sort sym's Overhead.
"$SHARDREC" jobview perf."$id".*.data || fail "jobview over the job's files"
"$SHARDREC" jobview --json perf."$id".*.data >jv.json || fail "jobview --json"
python3 -c '
import json, sys
for n in json.load(open(sys.argv[1]))["nodes"]:
    pct = [s["pct"] for s in n.get("symbols") or [] if s["symbol"] == "hot_loop"]
    print(n["node"], n["samples"], n["lost_samples"], pct[0] if pct else "-", n["mode"])' jv.json >jv.txt
for n in "${CLUSTER_NODES[@]}"; do
	f=perf.$id.$n.data
	read -r s l pct mode < <(awk -v n="$n" '$1 == n { print $2, $3, $4, $5 }' jv.txt)
	lost=$("$PERF" report --stdio -i "$f" 2>/dev/null | awk '/^# Total Lost Samples:/ && !n++ { print $5 }')
	perf_pct=$("$PERF" report --stdio -q -i "$f" --sort sym 2>/dev/null |
		awk '$2 == "[.]" && $3 == "hot_loop" { sub("%", "", $1); print $1 }')
	echo "jobview $n: $s samples (perf $(perf_samples "$f")), $l lost (perf ${lost:-0}), hot_loop $pct% (perf $perf_pct%), mode $mode"
	[ "$s" = "$(perf_samples "$f")" ] && [ "$l" = "${lost:-0}" ] || fail "jobview: $n's samples or lost samples"
	awk -v a="$pct" -v b="$perf_pct" 'BEGIN { exit !(b != "" && a - b <= 0.006 && b - a <= 0.006) }' ||
		fail "jobview: $n's hot_loop share $pct%, perf report says $perf_pct%"
	[ "$mode" = cgroup ] || fail "jobview: $n's mode $mode, want cgroup (-G given)"
done
echo "sbatch -N$NODES: ok at $(at)"

# 2. scancel mid-run: each node's recorder exits with a complete file within KillWait.
batch 60000 -o perf.%j.%h.%p.data >long.sh
id=$(cluster_ctl sbatch --parsable long.sh)
t0=$(date +%s%N)
# Every node's recorder is ready (its ranks released) and its writers have a shard.
until [ "$(ls -d "$TMPDIR"/shardrec-job.*."$id".0.*/ready 2>/dev/null | wc -l)" = "$NODES" ] &&
	[ "$(ls "$TMPDIR"/shardrec-job.*."$id".0.*.shards/perf."$id".*.data.shards/shard.0 2>/dev/null |
		wc -l)" = "$NODES" ]; do
	[ "$(ms_since "$t0")" -lt 60000 ] ||
		fail "job $id ($(sq "$id")): not $NODES recorders after 60 s: $(ls -d "$TMPDIR"/* perf."$id".*)"
	sleep 0.1
done
ls -d "$TMPDIR"/shardrec-job.*."$id".0.* | grep -v '\.shards$' >rdv.txt
for n in "${CLUSTER_NODES[@]}"; do
	grep -q "\.$id\.0\.$n$" rdv.txt || fail "no rendezvous of $n: $(cat rdv.txt)"
done
declare -A start
for p in $(ls -d "$TMPDIR"/shardrec-job.*."$id".0.*.shards/perf."$id".*.data.shards | sed 's/.*\.\([0-9]*\)\.data\.shards$/\1/'); do
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
grep -q "shardrec job $id.0 node2 rank [0-9]: unrecorded: cannot write out.node2/perf.$id.data" "job-$id.out" ||
	fail "node2: no unrecorded line"
[ "$(ls app."$id".node2.*.pid | wc -l)" = 2 ] || fail "node2's ranks did not run"
[ "$ms" -lt 20000 ] || fail "job took $ms ms: node2's rank 1 waited for its timeout"
for n in node1 node3; do
	cp "out.$n/perf.$id.data" "perf.$id.$n.data"
	cp "out.$n/perf.$id.data.json" "perf.$id.$n.data.json"
	check_node_file "perf.$id.$n.data" "$id" "$n"
done
echo "node2 unrecorded, node1 and node3 recorded: ok at $(at)"

# 4. An ordinary user's job: paranoid 2, no capabilities, a plain copy of
#    shardrec, -o on the shared directory, SLURM_TMPDIR node-local.
command -v inotifywait >/dev/null || fail "inotifywait not installed (.ci/packages-test: inotify-tools)"
ordinary_user srjob || fail "useradd failed"
mkdir -m 0755 bin
cp "$SHARDREC" bin/shardrec
cp "$PROGS/hot" bin/hot
mkdir shared && chown "$user": shared
cat >shared/user.sh <<EOF
#!/bin/sh
#SBATCH -N $NODES
#SBATCH --ntasks-per-node=2
#SBATCH -o job-%j.out
export SLURM_TMPDIR=$CLUSTER_LOCAL
srun $TMP/shared/urank.sh
EOF
# A rank: node2 asks for a kernel-only event, which the user may not record.
cat >shared/urank.sh <<EOF
#!/bin/sh
ev=
[ "\$SLURMD_NODENAME" = node2 ] && ev="-e cpu-clock:k"
exec $TMP/bin/shardrec job \$ev -- sh -c 'echo \$\$ >"app.\$SLURM_JOB_ID.\$SLURMD_NODENAME.\$SLURM_PROCID.pid"; exec "\$0" "\$@"' $TMP/bin/hot 500
EOF
chmod 0755 shared/user.sh shared/urank.sh
# Every file created in the shared directory, and on each node's local disk
# (watched from inside that node's mount namespace).
inotifywait -q -m -r -e create -e moved_to --format '%w%f' shared >shared.log 2>&1 &
watchers=($!)
for n in "${CLUSTER_NODES[@]}"; do
	nsenter --mount="/proc/$(cluster_node_pid "$n")/ns/mnt" \
		inotifywait -q -m -r -e create --format '%w%f' "$CLUSTER_LOCAL" >"local.$n.log" 2>&1 &
	watchers+=($!)
done
sleep 0.5
t0=$(date +%s%N)
id=$(cd shared && cluster_ctl setpriv --reuid="$user" --regid="$user" --clear-groups \
	env -u TMPDIR sbatch --parsable user.sh) ||
	fail "sbatch as $user failed"
wait_job_gone "$id"
sleep 0.3
kill "${watchers[@]}" 2>/dev/null || true
cat "shared/job-$id.out"
echo "user job $id done in $(ms_since "$t0") ms"
mv shared/app."$id".node[13].*.pid .
f=shared/perf.$id.node2.data
[ ! -e "$f" ] && [ "$(json_field "$f.json" status)" = unrecorded ] || { cat "$f.json"; fail "node2: not unrecorded"; }
grep -q '"reason": "cpu-clock:k: kernel-only event needs CAP_PERFMON' "$f.json" || { cat "$f.json"; fail "node2: reason"; }
[ "$(json_field "$f.json" exit_status)" = 0 ] && [ "$(grep -c '"exit_status": 0, "recorded": false' "$f.json")" = 2 ] ||
	{ cat "$f.json"; fail "node2: exit statuses"; }
[ "$(ls app."$id".node2.*.pid 2>/dev/null | wc -l)" = 0 ] && [ "$(ls shared/app."$id".node2.*.pid | wc -l)" = 2 ] ||
	fail "node2's apps did not run"
grep -q "shardrec job $id.0 node2 rank [0-9]: unrecorded: cpu-clock:k" "shared/job-$id.out" || fail "node2: no unrecorded line"
echo "user job: node2: unrecorded ($(json_field "$f.json" exit_status)), its ranks ran"
for n in node1 node3; do
	f=shared/perf.$id.$n.data
	[ -f "$f" ] && [ "$(stat -c %U "$f")" = "$user" ] || fail "$f missing or not $user's"
	[ "$(json_field "$f.json" mode)" = ranks ] && [ "$(json_field "$f.json" status)" = recorded ] ||
		{ cat "$f.json"; fail "$f.json: mode or status"; }
	grep -q '"reason": "no CAP_PERFMON and kernel.perf_event_paranoid is 2' "$f.json" ||
		{ cat "$f.json"; fail "$f.json: reason"; }
	dir=$(json_field "$f.json" shard_dir)
	[ "$dir" = "$CLUSTER_LOCAL/shardrec-job.$(id -u "$user").$id.0.$n.shards/perf.$id.$n.data.shards" ] ||
		fail "$f.json: shard_dir $dir"
	grep -q "^$dir/shard\.0$" "local.$n.log" || { cat "local.$n.log"; fail "$n: no shard on its local disk"; }
	for o in "${CLUSTER_NODES[@]}"; do
		[ "$o" = "$n" ] || ! grep -q "perf\.$id\.$o\." "local.$n.log" ||
			fail "$o's shards on $n's local disk"
	done
	# Root's copy: perf reads only its own user's or root's files.
	cp "$f" "perf.$id.$n.data"
	check_perf_file "perf.$id.$n.data"
	sample_pids "perf.$id.$n.data" >/dev/null
	got=$(apps_in "perf.$id.$n.data" app."$id"."$n".*.pid)
	[ "$got" = 2 ] || fail "$f: want samples of $n's 2 apps, got $got"
	echo "user job: $n: mode ranks, shards in $dir, $(json_field "$f.json" samples) samples"
done
grep -q "/perf\.$id\.node1\.data$" shared.log || { cat shared.log; fail "inotify saw no output file"; }
! grep -E '\.shards|/shard\.' shared.log || fail "shard files were created in the shared directory"
[ -z "$(ls -A "$CLUSTER_LOCAL")" ] || fail "the host's $CLUSTER_LOCAL was written"
echo "ordinary user's job: ok at $(at)"

# 5. The same user with a CAP_PERFMON copy, alone on its node: system-wide.
cp "$SHARDREC" bin/capped
setcap cap_perfmon,cap_ipc_lock,cap_syslog,cap_sys_nice+ep bin/capped
cat >shared/excl.sh <<EOF
#!/bin/sh
#SBATCH -N 1
#SBATCH --exclusive
#SBATCH --ntasks-per-node=2
#SBATCH -o excl-%j.out
export SLURM_TMPDIR=$CLUSTER_LOCAL
srun $TMP/bin/capped job -o excl.%j.data -- sh -c 'echo \$\$ >"app.\$SLURM_JOB_ID.\$SLURM_PROCID.pid"; exec "\$0" "\$@"' $TMP/bin/hot 300
EOF
chmod 0755 shared/excl.sh
id=$(cd shared && cluster_ctl setpriv --reuid="$user" --regid="$user" --clear-groups \
	env -u TMPDIR sbatch --parsable excl.sh) || fail "sbatch --exclusive as $user failed"
wait_job_gone "$id"
cat "shared/excl-$id.out"
f=shared/excl.$id.data
[ "$(json_field "$f.json" mode)" = system-wide ] || { cat "$f.json"; fail "CAP_PERFMON, --exclusive: mode"; }
cp "$f" "excl.$id.data"
check_perf_file "excl.$id.data"
sample_pids "excl.$id.data" >/dev/null
[ "$(apps_in "excl.$id.data" shared/app."$id".*.pid)" = 2 ] || fail "$f: want samples of the 2 ranks' apps"
echo "CAP_PERFMON, sbatch --exclusive: mode system-wide ($(json_field "$f.json" reason))"
echo "slurm nodes test: $(at)"
