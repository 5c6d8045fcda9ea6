# shardrec job without a batch system: plain record semantics outside one, and
# two ranks of a simulated Slurm step (SLURM_* variables) on this machine: the
# rendezvous, the recorder waiting for the other rank, exit statuses, names,
# JSON, SIGTERM with an app that checkpoints, no time left for the merge, a
# failed recording, a rank with no recorder. tests/slurm/run.sh does the same
# under a real Slurm.
. "$(dirname "$0")/lib.sh"
need_perf_event
for v in $(compgen -e | grep -E '^(SLURM|OMPI_|PMIX_|PMI_|MPI_LOCAL|PALS_)'); do unset "$v"; done
export TMPDIR=$TMP/rdv
mkdir -p "$TMPDIR"
# Background ranks still running when a check fails are stopped by pid.
bg=()
trap 'for p in "${bg[@]}"; do kill -KILL "$p" 2>/dev/null || true; done
	[ -z "${cg:-}" ] || rmdir "$cg/job_77" "$cg" 2>/dev/null || true; cleanup' EXIT
json_field() { sed -n "s/^  \"$2\": \"\{0,1\}\([^\",]*\)\"\{0,1\},\{0,1\}$/\1/p" "$1"; }
# How many of the pids in files $2... have samples in $1 (other tests may run
# their own hot on this machine: count these pids, not the name).
pids_in() {
	local f=$1
	shift
	"$PERF" script -F pid -i "$f" 2>/dev/null | awk '{ print $1 }' | sort -u >"$f.pids"
	cat "$@" | sort -u | comm -12 - "$f.pids" | wc -l
}
alive() { [ -r "/proc/$1/stat" ] && [ "$(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null)" != Z ]; }
# Rank N of a simulated 2-task step of job 77 on node n1. It execs: call it
# in a subshell, "(rank 0 ...)", so that $! of "(rank ...) &" is shardrec.
rank() {
	local r=$1
	shift
	exec env SLURM_JOB_ID=77 SLURM_STEP_ID="${STEP:-0}" SLURM_LOCALID="$r" SLURM_PROCID="$r" \
		SLURM_NODEID=0 SLURM_STEP_TASKS_PER_NODE="${NTASKS:-2}" SLURMD_NODENAME=n1 \
		"$SHARDREC" job "$@"
}

# Outside a batch system: shardrec record (no -a, no JSON), % names expanded.
"$SHARDREC" job -q -o 'plain.%j.data' -- "$PROGS/hot" 200 || fail "job outside a batch system"
[ -f plain.nojob.data ] && [ ! -e plain.nojob.data.json ] || fail "outside: $(ls)"
check_perf_file plain.nojob.data
set +e
"$SHARDREC" job -q -o x.data -- false
rc=$?
set -e
[ "$rc" = 1 ] || fail "outside: exit $rc, want the command's 1"

# Two ranks: rank 1 starts first and must wait for the recorder; the recorder
# stops only after rank 1's app is done; each exits with its app's status.
(rank 1 -- sh -c "\"$PROGS/hot\" 600 & echo \$! >r1.pid; wait; exit 4") 2>r1.err &
r1=$!
bg+=("$r1")
sleep 0.5
alive "$r1" || fail "rank 1 did not wait for the recorder"
t0=$(date +%s%N)
set +e
(rank 0 -- sh -c "\"$PROGS/hot\" 100 & echo \$! >r0.pid; wait; exit 3") 2>r0.err
rc0=$?
wait "$r1"
rc1=$?
set -e
ms=$((($(date +%s%N) - t0) / 1000000))
cat r0.err r1.err
[ "$rc0" = 3 ] && [ "$rc1" = 4 ] || fail "exit statuses $rc0 $rc1, want 3 4"
[ "$ms" -ge 600 ] || fail "the recorder stopped after $ms ms, before rank 1's 600 ms app"
f=perf.77.n1.data
check_perf_file "$f"
[ "$(pids_in "$f" r0.pid r1.pid)" = 2 ] || fail "$f: want both ranks' apps"
[ "$(json_field "$f.json" exit_status)" = 3 ] || { cat "$f.json"; fail "json exit_status"; }
[ "$(json_field "$f.json" local_ranks)" = 2 ] || { cat "$f.json"; fail "json local_ranks"; }
grep -q '"loss_metric": [0-9]' "$f.json" || { cat "$f.json"; fail "json loss_metric"; }
grep -q "shardrec job 77.0 n1 rank 0: [1-9][0-9]* samples" r0.err || fail "no job summary line"
[ -z "$(ls -A "$TMPDIR")" ] || fail "rendezvous left behind: $(ls -A "$TMPDIR")"

# Names: %s step, %r rank, %p pid, %% percent.
(STEP=5 NTASKS=1 rank 0 -q -o 'n.%s.%r.%p.%%.data' -- true) || fail "-o with % names"
ls n.5.0.*.%.data >/dev/null || fail "-o n.%s.%r.%p.%%.data: got $(ls n.* 2>/dev/null)"

# A step on several nodes with one output name for all: the recorder says so.
(STEP=12 NTASKS=1 SLURM_STEP_NUM_NODES=3 rank 0 -q -o same.%j.data -- true) 2>same.err ||
	fail "-o same.%j.data on 3 nodes"
grep -q "same.%j.data is one name for all 3 nodes.*(add %h)" same.err || { cat same.err; fail "no %h warning"; }
(STEP=13 NTASKS=1 SLURM_STEP_NUM_NODES=3 rank 0 -q -o 'per.%h.data' -- true) 2>per.err
! grep "one name for all" per.err || fail "a warning for a per-node name"

# Rank 0 of one-task step $1, stderr to $2, in the background ($pid), and its
# SIGTERM once recording is on; term_wait sets $rc to its exit status.
term_rank() {
	local step=$1 err=$2
	shift 2
	(STEP=$step NTASKS=1 rank 0 "$@") 2>"$err" &
	pid=$!
	bg+=("$pid")
	for _ in $(seq 100); do [ -e "$TMPDIR/shardrec-job.$(id -u).77.$step.n1/ready" ] && break; sleep 0.05; done
	sleep 0.3
	kill -TERM "$pid"
}
term_wait() {
	set +e
	wait "$pid"
	rc=$?
	set -e
}

# SIGTERM to the recorder while its app checkpoints on SIGTERM for 2 s: the
# perf.data is complete before the recorder waits for the app.
term_rank 6 term.err -o term.data -- sh -c 'trap "sleep 2; exit 3" TERM; while :; do sleep 0.1; done'
for _ in $(seq 100); do [ -e term.data ] && break; sleep 0.02; done
[ -e term.data ] || fail "SIGTERM: no term.data after 2 s"
alive "$pid" || fail "the recorder did not wait for its checkpointing app"
term_wait
cat term.err
[ "$rc" = 3 ] || fail "SIGTERM: exit $rc, want the app's 3"
check_perf_file term.data
[ "$(json_field term.data.json stop_signal)" = SIGTERM ] || fail "json stop_signal"
[ "$(json_field term.data.json exit_status)" = 3 ] || fail "json exit_status"

# No time left for the merge (--kill-wait 0): SIGTERM keeps the shards whole and
# the summary gives the merge command, which makes the file; likewise an app
# that ends on its own at the job's end time (SLURM_JOB_END_TIME).
term_rank 10 kept.err --kill-wait 0 -o kept.data -- sh -c 'trap "exit 3" TERM; while :; do sleep 0.1; done'
term_wait
cat kept.err
[ "$rc" = 3 ] || fail "no time left: exit $rc, want the app's 3"
# The shards are node-local ($TMPDIR), in the node's private directory.
kd=$TMPDIR/shardrec-job.$(id -u).77.10.n1.shards/kept.data.shards
[ ! -e kept.data ] && [ -d "$kd" ] || fail "no time left: the merge ran anyway"
cmd=$(sed -n 's/.*shards kept, merge with: \(.*\) \]$/\1/p' kept.err)
[ "$cmd" = "shardrec merge --recover $kd -o kept.data" ] || fail "no time left: command '$cmd'"
[ "$(json_field kept.data.json status)" = kept ] || { cat kept.data.json; fail "json status"; }
[ "$(json_field kept.data.json merge_command)" = "$cmd" ] || { cat kept.data.json; fail "json merge_command"; }
"$SHARDREC" ${cmd#shardrec } 2>/dev/null || fail "$cmd failed"
check_perf_file kept.data
(export SLURM_JOB_END_TIME=$(date +%s); STEP=11 NTASKS=1 rank 0 --kill-wait 0 -q -o "it's late.data" -- \
	"$PROGS/hot" 100) 2>late.err || { cat late.err; fail "at the end time: the app's exit"; }
cmd=$(sed -n 's/.*shards kept, merge with: \(.*\) \]$/\1/p' late.err)
[ -n "$cmd" ] && [ ! -e "it's late.data" ] || { cat late.err; fail "at the end time: merged with no time left"; }
eval "\"\$SHARDREC\" ${cmd#shardrec }" 2>/dev/null || fail "$cmd failed (quoting?)"
check_perf_file "it's late.data"

# Recording cannot start: the app still runs, the other rank is released at once.
(STEP=7 rank 1 -- true) 2>f1.err &
r1=$!
bg+=("$r1")
set +e
(STEP=7 rank 0 -e no_such_event -- sh -c 'exit 5') 2>f0.err
rc=$?
set -e
cat f0.err
[ "$rc" = 5 ] || fail "failed recording: exit $rc, want the app's 5"
grep -q "unrecorded" f0.err || fail "failed recording: no warning"
t0=$(date +%s)
wait "$r1" || fail "rank 1 after a failed recording"
[ $(($(date +%s) - t0)) -lt 10 ] || fail "rank 1 waited for its timeout"

# --job-cgroup: the job_<id> component of our cgroup v2 path, as Slurm's
# cgroup plugins make it; a task outside it is not sampled.
cg2=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/self/mounts)
cg=$cg2/shardrec-job-$$
if [ -n "$cg2" ] && mkdir -p "$cg/job_77" 2>/dev/null; then
	"$PROGS/hot" 900 &
	echo $! >cgout.pid
	bg+=("$(cat cgout.pid)")
	(echo "$BASHPID" >"$cg/job_77/cgroup.procs" &&
		STEP=9 NTASKS=1 rank 0 --job-cgroup -o cg.data -- \
		sh -c '"$0" 400 & echo $! >cgin.pid; wait' "$PROGS/hot") 2>cg.err ||
		{ cat cg.err; fail "--job-cgroup in $cg/job_77"; }
	wait "$(cat cgout.pid)"
	rmdir "$cg/job_77" "$cg"
	[ "$(pids_in cg.data cgin.pid)" = 1 ] || fail "--job-cgroup: the job's task not sampled"
	[ "$(pids_in cg.data cgout.pid)" = 0 ] || fail "--job-cgroup: a task outside the job sampled"
else
	echo "no writable cgroup2 mount: --job-cgroup not tested"
fi

# A rank with no recorder on its node runs its app after --ready-timeout.
set +e
(STEP=8 rank 1 --ready-timeout 1 -- sh -c 'exit 6') 2>alone.err
rc=$?
set -e
cat alone.err
[ "$rc" = 6 ] && grep -q "running unrecorded" alone.err || fail "lone rank: exit $rc"
