# shardrec job as a cluster user meets it (a simulated Slurm step: SLURM_*
# variables, two ranks on node n1): an ordinary user (made here; paranoid
# 2, no capabilities) gets the node's ranks recorded, -o on a "shared"
# directory where no shard is ever created, the shards in $TMPDIR; with
# CAP_PERFMON the job's cgroup, or the whole node when the job has all its
# CPUs; a node where nothing can be recorded runs its apps, keeps their
# exit statuses and says why in the .json; a SIGKILLed recorder's .json
# gives the command that recovers the file. Then record --shard-dir: the
# shards elsewhere, bad directories refused before recording, a merge that
# cannot fit beside -o not started. tests/slurm/nodes.sh does the ordinary
# user's job under a real 3-node Slurm.
. "$(dirname "$0")/lib.sh"
need_perf_event
[ "$(id -u)" = 0 ] || skip "not root: cannot create a user or set file capabilities"
for c in setcap setpriv useradd userdel python3 inotifywait; do
	command -v $c >/dev/null || skip "$c not installed (.ci/packages-test)"
done
grep -q '^NoNewPrivs:[[:space:]]*0' /proc/self/status || skip "no_new_privs is set: file capabilities are inert"
for v in $(compgen -e | grep -E '^(SLURM|OMPI_|PMIX_|PMI_|MPI_LOCAL|PALS_)'); do unset "$v"; done

cg2=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/self/mounts)
cg=$cg2/shardrec-cluster-$$
bg=()
finish() {
	for p in "${bg[@]}"; do kill -KILL "$p" 2>/dev/null || true; done
	[ -z "$cg2" ] || rmdir "$cg/job_4243" "$cg" 2>/dev/null || true
	ordinary_user_release
	cleanup
}
trap finish EXIT
ordinary_user srclu || skip "useradd failed"

chmod 0711 "$TMP"
mkdir -m 0755 bin
cp "$SHARDREC" bin/plain
cp "$SHARDREC" bin/capped
cp "$PROGS/hot" bin/hot
setcap cap_perfmon,cap_ipc_lock,cap_syslog,cap_sys_nice+ep bin/capped
getcap bin/capped | grep -q cap_perfmon || skip "file capabilities not supported on $TMP"
mkdir shared local && chown "$user": shared local
cd shared

json() { python3 -c "import json, sys; d = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))" "$@"; }
# perf reads only its own user's files: root's copy of $1 in $1.root.
root_copy() { cp "$1" "$1.root"; }
# How many of the pids in files $2... have samples in $1.root.
pids_in() {
	local f=$1.root
	shift
	"$PERF" script -F pid -i "$f" 2>/dev/null | awk '{ print $1 }' | sort -u >"$f.pids"
	cat "$@" | sort -u | comm -12 - "$f.pids" | wc -l
}
# Rank R of step $STEP (job 4243, 2 tasks on n1, $CPUS of its CPUs) as the
# user, with binary $1 of bin/. It execs: "(rank ...) &" leaves $! shardrec.
rank() {
	local bin=$1 r=$2
	shift 2
	exec env SLURM_JOB_ID=4243 SLURM_STEP_ID="$STEP" SLURM_LOCALID="$r" SLURM_PROCID=$((10 + r)) \
		SLURM_NODEID=0 SLURM_STEP_TASKS_PER_NODE="${NTASKS:-2}" SLURMD_NODENAME=n1 \
		SLURM_CPUS_ON_NODE="${CPUS:-1}" TMPDIR="$TMP/local" \
		setpriv --reuid="$user" --regid="$user" --init-groups "$TMP/bin/$bin" job "$@"
}

# 1. An ordinary user, two ranks: the node's ranks recorded, user space
#    only; nothing but the output and its .json created in the shared directory.
inotifywait -q -m -r -e create -e moved_to --format '%w%f' . >../shared.log 2>&1 &
watch=$!
bg+=("$watch")
sleep 0.3
STEP=1
(rank plain 1 -- sh -c 'echo $$ >app1.pid; exec "$0" "$@"' "$TMP/bin/hot" 500 1) 2>r1.err &
r1=$!
bg+=("$r1")
(rank plain 0 -- sh -c 'echo $$ >app0.pid; exec "$0" "$@"' "$TMP/bin/hot" 300 1) 2>r0.err ||
	{ cat r0.err; fail "rank 0 of an ordinary user's job"; }
wait "$r1" || { cat r1.err; fail "rank 1 of an ordinary user's job"; }
cat r0.err r1.err
f=perf.4243.n1.data
[ "$(stat -c %U "$f")" = "$user" ] && [ "$(stat -c %a "$f.json")" = 600 ] || fail "$f or its .json: owner, mode"
[ "$(json "$f.json" 'd["mode"], d["status"]')" = "('ranks', 'recorded')" ] || { cat "$f.json"; fail "mode, status"; }
json "$f.json" 'd["reason"]' | grep -q "no CAP_PERFMON and kernel.perf_event_paranoid is 2" ||
	fail "reason: $(json "$f.json" 'd["reason"]')"
grep -q "shardrec job 4243.1 n1 rank 10: [1-9][0-9]* samples, .*, mode ranks, exit 0" r0.err || fail "no summary line"
grep -q "recording user space only (cpu-clock:u)" r0.err || fail "no user-space fallback said"
root_copy "$f"
check_perf_file "$f.root"
[ "$(pids_in "$f" app0.pid app1.pid)" = 2 ] || fail "$f: want both ranks' apps"
[ "$(json "$f.json" '[(r["rank"], r["local_rank"], r["pid"], r["exit_status"], r["recorded"]) for r in d["ranks"]]')" = \
	"[(10, 0, $(cat app0.pid), 0, True), (11, 1, $(cat app1.pid), 0, True)]" ] ||
	{ cat "$f.json"; fail "the rank map"; }
sd=$TMP/local/shardrec-job.$(id -u "$user").4243.1.n1.shards
[ "$(json "$f.json" 'd["shard_dir"]')" = "$sd/$f.shards" ] || fail "shard_dir: $(json "$f.json" 'd["shard_dir"]')"
[ -z "$(ls -A "$TMP/local")" ] || fail "left in \$TMPDIR: $(ls -A "$TMP/local")"
kill "$watch"
grep -q "^\./$f$" ../shared.log || { cat ../shared.log; fail "inotify saw no output file"; }
! grep -E '\.shards|/shard\.' ../shared.log || fail "shards were created in the shared directory"
echo "ordinary user: mode ranks, $(json "$f.json" 'd["samples"]') samples, no shard in the shared directory"

# 2. SIGKILL the recorder: its .json, written when recording began, gives
#    the command that recovers the file, and it works as printed.
STEP=2 NTASKS=1
(rank plain 0 -o k.data -- "$TMP/bin/hot" 30000 1) 2>k.err &
pid=$!
bg+=("$pid")
for _ in $(seq 200); do [ -s k.data.json ] && break; sleep 0.05; done
[ "$(json k.data.json 'd["status"]')" = recording ] || { cat k.err; fail "no .json while recording"; }
sleep 0.5
kill -KILL "$pid"
wait "$pid" 2>/dev/null || true
cmd=$(json k.data.json 'd["merge_command"]')
[ "$cmd" = "shardrec merge --recover $TMP/local/shardrec-job.$(id -u "$user").4243.2.n1.shards/k.data.shards -o k.data" ] ||
	fail "merge_command: $cmd"
eval "setpriv --reuid=$user --regid=$user --init-groups \"\$TMP/bin/plain\" ${cmd#shardrec }" 2>rec.err ||
	{ cat rec.err; fail "$cmd failed"; }
root_copy k.data
check_perf_file k.data.root
rm -rf "$TMP/local"/*
echo "SIGKILL: '$cmd' recovered k.data"

# 3. CAP_PERFMON (setcap): the job's cgroup; a task outside it is not sampled.
if [ -n "$cg2" ] && mkdir -p "$cg/job_4243" 2>/dev/null; then
	"$TMP/bin/hot" 1500 1 &
	echo $! >out.pid
	bg+=("$(cat out.pid)")
	STEP=3
	(echo "$BASHPID" >"$cg/job_4243/cgroup.procs" &&
		rank capped 1 -o cg.data -- sh -c 'echo $$ >cg1.pid; exec "$0" "$@"' "$TMP/bin/hot" 400 1) 2>c1.err &
	c1=$!
	bg+=("$c1")
	(echo "$BASHPID" >"$cg/job_4243/cgroup.procs" &&
		rank capped 0 -o cg.data -- sh -c 'echo $$ >cg0.pid; exec "$0" "$@"' "$TMP/bin/hot" 300 1) 2>c0.err ||
		{ cat c0.err; fail "capped rank 0 in a job cgroup"; }
	wait "$c1" || fail "capped rank 1"
	[ "$(json cg.data.json 'd["mode"]')" = cgroup ] || { cat cg.data.json; fail "CAP_PERFMON + job cgroup: mode"; }
	root_copy cg.data
	[ "$(pids_in cg.data cg0.pid cg1.pid)" = 2 ] || fail "cgroup mode: the ranks' apps not sampled"
	[ "$(pids_in cg.data out.pid)" = 0 ] || fail "cgroup mode: a task outside the job sampled"
	echo "CAP_PERFMON: mode cgroup ($(json cg.data.json 'd["reason"]'))"
else
	echo "no writable cgroup2 mount: the cgroup mode is not tested"
fi

# 4. CAP_PERFMON on a node whose CPUs are all the job's: system-wide.
STEP=4 NTASKS=1 CPUS=$(nproc)
(rank capped 0 -q -o sw.data -- "$TMP/bin/hot" 200 1) 2>sw.err || { cat sw.err; fail "capped, exclusive node"; }
[ "$(json sw.data.json 'd["mode"]')" = system-wide ] || { cat sw.data.json; fail "exclusive node: mode"; }
json sw.data.json 'd["reason"]' | grep -q "the job's alone" || fail "exclusive node: reason"
CPUS=1

# 5. Nothing recordable (a kernel-only event at paranoid 2, no capability):
#    the apps run, their exit statuses kept, the reason said with -q too.
STEP=5 NTASKS=2
(rank plain 1 -- sh -c 'exit 4') 2>u1.err &
u1=$!
bg+=("$u1")
set +e
(rank plain 0 -q -e cpu-clock:k -o un.data -- sh -c 'exit 5') 2>u0.err
rc=$?
wait "$u1"
rc1=$?
set -e
cat u0.err
[ "$rc" = 5 ] && [ "$rc1" = 4 ] || fail "unrecorded: exit $rc $rc1, want the apps' 5 4"
[ ! -e un.data ] || fail "unrecorded: un.data exists"
[ "$(json un.data.json 'd["status"], d["mode"], d["exit_status"]')" = "('unrecorded', 'none', 5)" ] ||
	{ cat un.data.json; fail "unrecorded: .json"; }
json un.data.json 'd["reason"]' | grep -q "kernel-only event needs CAP_PERFMON" || fail "unrecorded: reason"
[ "$(json un.data.json '[(r["rank"], r["exit_status"], r["recorded"]) for r in d["ranks"]]')" = \
	"[(10, 5, False), (11, 4, False)]" ] || { cat un.data.json; fail "unrecorded: rank map"; }
grep -q "shardrec job 4243.5 n1 rank 10: unrecorded: .*kernel-only event" u0.err || fail "unrecorded: no line with -q"
[ -z "$(ls -A "$TMP/local")" ] || fail "unrecorded: left in \$TMPDIR: $(ls -A "$TMP/local")"
echo "nothing recordable: apps exit 5 and 4, status unrecorded"
cd "$TMP"

# 6. record --shard-dir: the shards elsewhere; bad directories said before
#    recording; a merge that cannot fit beside -o is not started.
mkdir out sd
"$SHARDREC" record -q --keep-shards --shard-dir sd -o out/a.data -- "$PROGS/hot" 200 1 ||
	fail "record --shard-dir"
[ -d sd/a.data.shards ] && [ ! -e out/a.data.shards ] || fail "--shard-dir: shards not in sd/"
check_perf_file out/a.data
expect_one_line() {
	local want=$1
	shift
	if "$@" 2>err.txt; then fail "$* succeeded"; fi
	[ "$(wc -l <err.txt)" = 1 ] && grep -q -- "$want" err.txt || { cat err.txt; fail "$*: want one line '$want'"; }
}
t0=$(date +%s%N)
expect_one_line "shard-dir: cannot create nosuch/b.data.shards: No such file" \
	"$SHARDREC" record -q --shard-dir nosuch -o out/b.data -- "$PROGS/hot" 3000 1
touch afile
expect_one_line "cannot write afile/b.data: Not a directory" \
	"$SHARDREC" record -q --shard-dir sd -o afile/b.data -- "$PROGS/hot" 3000 1
[ $((($(date +%s%N) - t0) / 1000000)) -lt 3000 ] || fail "bad directories were found only after recording"
if mkdir mnt && mount -t tmpfs -o size=256k shardrec-e2e-out mnt 2>/dev/null; then
	trap 'umount "$TMP/mnt" 2>/dev/null || true; finish' EXIT
	rc=0
	"$SHARDREC" record -q -F 20000 -g --shard-dir sd -o mnt/c.data -- "$PROGS/hot" 1500 2 2>full.err || rc=$?
	cat full.err
	[ "$rc" = 1 ] || fail "output that cannot fit: exit $rc, want 1"
	grep -q "the output needs about [0-9.]* MB in mnt/, which has [0-9.]* MB free; shards kept in sd/c.data.shards (retry: shardrec merge sd/c.data.shards -o mnt/c.data)" full.err ||
		fail "output that cannot fit: no line saying so"
	[ ! -e mnt/c.data.partial ] && [ ! -e mnt/c.data ] || fail "a merge was started"
	"$SHARDREC" merge sd/c.data.shards -o c.data 2>/dev/null || fail "the kept shards do not merge"
	check_perf_file c.data
	umount mnt
fi
echo "record --shard-dir: ok"
