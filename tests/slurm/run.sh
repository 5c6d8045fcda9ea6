#!/usr/bin/env bash
# shardrec job under a real one-node Slurm (tests/slurm/cluster.sh): srun -n2,
# sbatch, scancel of a running job (timed: SIGTERM to the recorder's
# exit) and a SIGKILLed recorder whose shards `merge --recover` turns into a
# perf.data. Each gives exactly one perf.<jobid>.<host>[.<pid>].data per node,
# and perf reads it. Exits 77 when Slurm or munge is missing or the daemons
# do not start. Env: SHARDREC, PROGS (as tests/e2e), CLUSTER_KILLWAIT.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../e2e/lib.sh"
. "$here/cluster.sh"

need_perf_event
cluster_have || skip "$CLUSTER_ERR"
# munged runs as munge and needs its directory below this one.
chmod 0755 "$TMP"
# The jobs inherit it: rendezvous directories stay inside $TMP.
export TMPDIR=$TMP/rdv
mkdir -p "$TMPDIR"
trap 'cluster_stop; cleanup' EXIT
t_start=$(date +%s)
if ! cluster_start "$TMP/cluster" 2; then
	echo "--- slurmctld/slurmd output:"
	tail -n 20 "$TMP"/cluster/*.out "$TMP"/cluster/*.log 2>/dev/null || true
	skip "cannot start a local Slurm: $CLUSTER_ERR"
fi
node=$CLUSTER_NODE
echo "cluster up in $(($(date +%s) - t_start)) s: node $node"

now_ms() { echo $(($(date +%s%N) / 1000000)); }
# Seconds since the cluster came up, for the step lines.
at() { echo "$(($(date +%s) - t_start)) s"; }
json_field() { sed -n "s/^  \"$2\": \"\{0,1\}\([^\",]*\)\"\{0,1\},\{0,1\}$/\1/p" "$1"; }

# Each rank's app: records its pid in app.<job>.<rank>.pid, then becomes hot.
APP=(sh -c 'echo $$ >"app.$SLURM_JOB_ID.$SLURM_PROCID.pid"; exec "$0" "$@"' "$PROGS/hot")
# How many of job $2's rank apps have samples in $1 (other tests may run
# their own hot on this machine: count these pids, not the name).
rank_apps() {
	"$PERF" script -F pid -i "$1" 2>/dev/null | awk '{ print $1 }' | sort -u >"$1.pids"
	cat app."$2".*.pid | sort -u | comm -12 - "$1.pids" | wc -l
}

check_job_file() {
	local f=$1 id=$2 ranks=$3
	[ -f "$f" ] || fail "$f missing"
	[ ! -e "$f.shards" ] || fail "$f.shards left behind"
	check_perf_file "$f"
	[ -f "$f.json" ] || fail "$f.json missing"
	[ "$(json_field "$f.json" job_id)" = "$id" ] || { cat "$f.json"; fail "$f.json: job_id"; }
	[ "$(json_field "$f.json" samples)" -gt 0 ] || { cat "$f.json"; fail "$f.json: no samples"; }
	[ "$(rank_apps "$f" "$id")" = "$ranks" ] || fail "$f: want samples of $ranks ranks' apps"
}

# Waits for a job's recorder (-o perf.%j.%h.%p.data): prints its pid once the
# other rank is released (ready file) and the writers have a shard.
wait_recorder() {
	local id=$1 d
	for _ in $(seq 300); do
		d=$(ls -d "$TMPDIR"/shardrec-job.0."$id".0."$node".shards/perf."$id"."$node".*.data.shards \
			2>/dev/null | head -n 1)
		if [ -n "$d" ] && [ -e "$d/shard.0" ] && [ -e "$TMPDIR/shardrec-job.0.$id.0.$node/ready" ]; then
			d=${d%.data.shards}
			echo "${d##*.}"
			return 0
		fi
		sleep 0.1
	done
	fail "job $id: no recorder after 30 s ($(squeue -h -j "$id" -o %T 2>/dev/null))"
}

wait_job_gone() { cluster_wait_job "$1" || fail "job $1 still in the queue after 60 s"; }

# 1. srun -n2: one file named from the job id, both ranks' apps in it.
timeout 120 srun -n2 "$SHARDREC" job -- "${APP[@]}" 500 2>srun.err ||
	{ cat srun.err; fail "srun -n2 shardrec job failed"; }
cat srun.err
files=(perf.*.data)
[ "${#files[@]}" = 1 ] || fail "srun: want one perf.data, got: ${files[*]}"
id=$(echo "${files[0]}" | sed -n "s/^perf\.\([0-9][0-9]*\)\.$node\.data$/\1/p")
[ -n "$id" ] || fail "srun: ${files[0]} is not perf.<jobid>.$node.data"
check_job_file "${files[0]}" "$id" 2
grep -q "shardrec job $id.0 $node rank 0: [1-9][0-9]* samples" srun.err || fail "no job summary line"
[ -z "$(ls -A "$TMPDIR")" ] || fail "rendezvous left behind: $(ls -A "$TMPDIR")"
echo "srun -n2: ok (${files[0]}) at $(at)"

# 2. sbatch, the recorder in the job's srun step.
cat >job.sh <<EOF
#!/bin/sh
#SBATCH -n 2
#SBATCH -o sbatch-%j.out
srun "$SHARDREC" job -- sh -c 'echo \$\$ >app.\$SLURM_JOB_ID.\$SLURM_PROCID.pid; exec "\$0" "\$@"' "$PROGS/hot" 500
EOF
id=$(cluster_run_job job.sh) || { cat sbatch-*.out; fail "sbatch job.sh failed"; }
cat "sbatch-$id.out"
check_job_file "perf.$id.$node.data" "$id" 2
[ "$(ls perf.*.data | wc -l)" = 2 ] || fail "sbatch: want one more perf.data, got: $(ls perf.*.data)"
echo "sbatch: ok (perf.$id.$node.data) at $(at)"

# 3. --job-cgroup without Slurm's cgroup plugins: a clear warning, and the
#    node's ranks recorded instead (the ladder's next rung), the app's exit.
srun -n1 "$SHARDREC" job --job-cgroup -o cg.%j.data -- "$PROGS/hot" 200 2>cg.err ||
	{ cat cg.err; fail "--job-cgroup without a job cgroup failed"; }
cat cg.err
grep -q -- "--job-cgroup: no job_[0-9]* in this process's cgroup" cg.err || fail "--job-cgroup: no warning"
f=$(ls cg.*.data)
[ "$(json_field "$f.json" mode)" = ranks ] || { cat "$f.json"; fail "--job-cgroup fallback: mode"; }
check_perf_file "$f"

# 4. scancel a running job: SIGTERM, merge, exit well inside KillWait.
cat >long.sh <<EOF
#!/bin/sh
#SBATCH -n 2
#SBATCH -o long-%j.out
srun "$SHARDREC" job -o perf.%j.%h.%p.data -- sh -c 'echo \$\$ >app.\$SLURM_JOB_ID.\$SLURM_PROCID.pid; exec "\$0" "\$@"' "$PROGS/hot" 60000
EOF
id=$(sbatch --parsable long.sh)
pid=$(wait_recorder "$id")
st=$(started "$pid")
sleep 1
t0=$(now_ms)
scancel "$id"
while running "$pid" "$st" && [ $(($(now_ms) - t0)) -lt 15000 ]; do sleep 0.02; done
t1=$(now_ms)
running "$pid" "$st" && { ps -o pid,stat,wchan:20,args -p "$pid"; squeue 2>&1 | tail -n 3;
	fail "recorder $pid still runs 15 s after scancel"; }
dt=$(awk -v ms=$((t1 - t0)) 'BEGIN { printf "%.2f", ms / 1000 }')
echo "scancel: recorder exited $dt s after scancel (KillWait ${CLUSTER_KILLWAIT:-5} s)"
wait_job_gone "$id"
cat "long-$id.out"
f=perf.$id.$node.$pid.data
check_job_file "$f" "$id" 2
[ "$(json_field "$f.json" stop_signal)" = SIGTERM ] || { cat "$f.json"; fail "$f.json: stop_signal"; }
echo "scancel: ok ($f, SIGTERM to exit $dt s) at $(at)"

# 5. SIGKILL the recorder: its shards stay (node-local: in $TMPDIR); the
#    command .json gives from the start, run as printed, makes the perf.data.
id=$(sbatch --parsable long.sh)
pid=$(wait_recorder "$id")
sleep 1.5
app0=$(cat "app.$id.0.pid")
st=$(started "$pid") st0=$(started "$app0")
kill -KILL "$pid"
for _ in $(seq 100); do running "$pid" "$st" || running "$app0" "$st0" || break; sleep 0.05; done
# linuxproc would not find an orphan: the app dies with the task Slurm knows.
running "$app0" "$st0" && fail "rank 0's app $app0 outlived its SIGKILLed recorder"
scancel "$id"
wait_job_gone "$id"
f=perf.$id.$node.$pid.data
d=$TMPDIR/shardrec-job.0.$id.0.$node.shards/$f.shards
[ -d "$d" ] && [ ! -e "$f" ] || fail "SIGKILL: want $d and no $f"
[ "$(json_field "$f.json" status)" = recording ] || { cat "$f.json"; fail "$f.json: status"; }
cmd=$(json_field "$f.json" merge_command)
[ "$cmd" = "shardrec merge --recover $d -o $f" ] || fail "$f.json: merge_command '$cmd'"
eval "\"\$SHARDREC\" ${cmd#shardrec }" 2>recover.err || { cat recover.err; fail "$cmd failed"; }
cat recover.err
check_perf_file "$f"
[ "$(rank_apps "$f" "$id")" = 2 ] || fail "$f: want samples of both ranks' apps"
echo "SIGKILL + the .json's merge_command: ok ($f) at $(at)"
echo "slurm test: $(($(date +%s) - t_start)) s"
