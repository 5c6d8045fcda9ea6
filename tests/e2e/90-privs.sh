# A site install with file capabilities, run by an unprivileged user (made
# here) at perf_event_paranoid=2: system-wide recording works, the workload
# and shardrec's own threads hold no capability, files belong to the user, a
# planted symlink is refused, and without the capability the error names it
# and the sysctl. Needs root (useradd, setcap, sysctls).
. "$(dirname "$0")/lib.sh"
need_perf_event
[ "$(id -u)" = 0 ] || skip "not root: cannot create a user or set file capabilities"
for c in setcap setpriv useradd userdel; do
	command -v $c >/dev/null || skip "$c not installed (libcap2-bin, util-linux, passwd)"
done
grep -q '^NoNewPrivs:[[:space:]]*0' /proc/self/status || skip "no_new_privs is set: file capabilities are inert"

finish() {
	ordinary_user_release
	cleanup
}
trap finish EXIT
ordinary_user srpriv || skip "useradd failed"

chmod 0711 "$TMP"
mkdir -m 0755 bin
cp "$SHARDREC" bin/capped
cp "$SHARDREC" bin/plain
cp "$SHARDREC" bin/perfmon
cp "$SHARDREC" bin/niced
cp "$PROGS/hot" bin/hot
setcap cap_perfmon,cap_ipc_lock,cap_syslog+ep bin/capped
setcap cap_perfmon+ep bin/perfmon
setcap cap_perfmon,cap_ipc_lock,cap_syslog,cap_sys_nice+ep bin/niced
getcap bin/capped | grep -q cap_perfmon || skip "file capabilities not supported on $TMP"
mkdir -m 0700 out && chown "$user": out
cd out

as_user() { setpriv --reuid="$user" --regid="$user" --init-groups "$@"; }

# expect_err CODE PATTERN... -- command: one line on stderr matching every PATTERN.
expect_err() {
	local code=$1
	shift
	local pats=()
	while [ "$1" != -- ]; do pats+=("$1"); shift; done
	shift
	set +e
	"$@" >out.txt 2>err.txt
	local rc=$?
	set -e
	echo "$*: rc $rc: $(cat err.txt)"
	[ "$rc" = "$code" ] || fail "'$*': exit $rc, want $code"
	[ "$(wc -l <err.txt)" = 1 ] || fail "'$*': error is not one line"
	for p in "${pats[@]}"; do
		grep -q -e "$p" err.txt || fail "'$*': error does not name '$p'"
	done
}

# 1. System-wide as the user with the capabilities; the workload reports its own status.
LD_LIBRARY_PATH=/nonexistent/lib as_user ../bin/capped record -a -o sys.data -- \
	sh -c 'grep -E "^(Cap|NoNewPrivs)" /proc/self/status; echo "LDLP=$LD_LIBRARY_PATH"' \
	>wl.txt 2>rec.txt || { cat rec.txt; fail "system-wide recording as $user failed"; }
cat wl.txt rec.txt
# Without the optional cap_sys_ptrace, root's processes keep their maps (as
# they do from perf): skipped with one warning naming a file and the reason.
grep -q "warning: [0-9]* process.* skipped: memory maps unreadable (/proc/[0-9]*/task/[0-9]*/maps: Permission denied)" rec.txt ||
	fail "no warning about other users' unreadable maps"
! grep -v "memory maps unreadable" rec.txt | grep -q "warning" || fail "warnings with all capabilities granted"
for f in CapInh CapPrm CapEff CapAmb; do
	grep -Eq "^$f:[[:space:]]+0+$" wl.txt || fail "workload $f is not empty"
done
grep -Eq "^NoNewPrivs:[[:space:]]+1$" wl.txt || fail "workload runs without no_new_privs"
# glibc strips it from a file-capability process; the workload gets it back.
grep -q "^LDLP=/nonexistent/lib$" wl.txt || fail "workload lost LD_LIBRARY_PATH"
[ "$(stat -c %U sys.data)" = "$user" ] || fail "sys.data belongs to $(stat -c %U sys.data)"
[ ! -e sys.data.shards ] || fail "shards left behind"
cp sys.data root-copy.data # perf run by root refuses files of other users
check_perf_file root-copy.data
as_user "$PERF" report --stats -i sys.data >/dev/null 2>&1 || fail "perf cannot read sys.data as $user"

# 2. While recording, no thread of shardrec holds a capability.
# (setpriv itself, not the as_user function: $! must be shardrec's pid)
# (the workload waits for ./hold to go: under load a timed one can end, and
# the writers with it, before they are read)
touch hold
setpriv --reuid="$user" --regid="$user" --init-groups ../bin/capped record -q -a \
	-o threads.data -- sh -c 'while [ -e hold ]; do sleep 0.05; done' &
pid=$!
for _ in $(seq 50); do
	[ "$(ls /proc/$pid/task 2>/dev/null | wc -l)" -ge 2 ] && break
	sleep 0.05
done
[ "$(ls /proc/$pid/task | wc -l)" -ge 2 ] || fail "no writer thread seen"
for s in /proc/$pid/task/*/status; do
	grep -E "^(Name|CapPrm|CapEff)" "$s" | tr '\n' ' '
	echo
	grep -Eq "^CapEff:[[:space:]]+0+$" "$s" || fail "$s: effective capabilities while recording"
	grep -Eq "^CapPrm:[[:space:]]+0+$" "$s" || fail "$s: permitted capabilities while recording"
done
rm hold
wait $pid || fail "recording with threads check failed"
[ "$(stat -c %U threads.data)" = "$user" ] || fail "threads.data not owned by $user"

# 3. A symlink planted at the output path is refused, and not followed.
ln -s "$TMP/victim" planted.data
expect_err 1 "planted.data" "symbolic link" -- as_user ../bin/capped record -a -o planted.data -- true
[ ! -e "$TMP/victim" ] || fail "wrote through the planted symlink"
[ -L planted.data ] && [ ! -e planted.data.shards ] || fail "planted.data touched"

# ... nor at the shard directory, nor at the merge's temporary file.
ln -s "$TMP/victim" planted2.data.shards
expect_err 1 "planted2.data.shards exists" -- as_user ../bin/capped record -a -o planted2.data -- true
ln -s "$TMP/victim" p3.data.partial
as_user ../bin/capped record -q -a -o p3.data -- true || fail "stale .partial symlink not replaced"
[ ! -e "$TMP/victim" ] && [ -f p3.data ] && [ ! -L p3.data ] || fail "wrote through p3.data.partial"

# 4. An existing output becomes .old, like perf.
as_user ../bin/capped record -q -a -o sys.data -- true 2>/dev/null || fail "second recording failed"
[ -f sys.data.old ] && [ "$(stat -c %U sys.data.old)" = "$user" ] || fail "no sys.data.old"

# 5. Without the capability: -a names CAP_PERFMON and the sysctl.
expect_err 1 "CAP_PERFMON" "kernel.perf_event_paranoid" -- as_user ../bin/plain record -a -o no.data -- true
[ ! -e no.data ] && [ ! -e no.data.shards ] || fail "output left by a refused run"

# 6. ... and a command alone falls back to user space only, saying so in one line.
as_user ../bin/plain record -o user.data -- ../bin/hot 300 >/dev/null 2>rec.txt || { cat rec.txt; fail "user-only fallback failed"; }
cat rec.txt
[ "$(grep -c warning rec.txt)" = 1 ] || fail "the fallback is not one warning line"
grep -q "cpu-clock:u" rec.txt || fail "fallback warning does not name cpu-clock:u"
cp user.data root-copy.data
check_perf_file root-copy.data
"$PERF" report --header-only -i root-copy.data | grep -q "cpu-clock:u" || fail "event not renamed cpu-clock:u"

# 7. Kernel symbols without CAP_SYSLOG, big rings without CAP_IPC_LOCK.
as_user ../bin/perfmon record -a -o nosyslog.data -- true 2>rec.txt || fail "-a with cap_perfmon only failed"
grep -q "warning:.*CAP_SYSLOG" rec.txt || { cat rec.txt; fail "no CAP_SYSLOG warning"; }
expect_err 1 "CAP_IPC_LOCK" -- bash -c "ulimit -l 64; exec setpriv --reuid=$user --regid=$user --init-groups ../bin/perfmon record -a -m 1M -o big.data -- true"
bash -c "ulimit -l 64; exec setpriv --reuid=$user --regid=$user --init-groups ../bin/capped record -q -a -m 1M -o big.data -- true" ||
	fail "-m 1M with cap_ipc_lock failed"

# 8. -r with cap_sys_nice: the writers, and only they, run SCHED_FIFO; once
# they started nothing holds CAP_SYS_NICE. Without it: one line saying so.
sched_of() { sed 's/.*) //' "/proc/$1/task/$2/stat" | awk '{ print $39 "/" $38 }'; }
touch hold
setpriv --reuid="$user" --regid="$user" --init-groups ../bin/niced record -q -r 2 \
	-o nice.data -- sh -c 'while [ -e hold ]; do sleep 0.05; done; exec ../bin/hot 300' >/dev/null 2>rec.txt &
pid=$!
for _ in $(seq 60); do
	grep -q shardrec-w /proc/$pid/task/*/comm 2>/dev/null && break
	sleep 0.05
done
sleep 0.3
for t in /proc/$pid/task/*; do
	tid=${t##*/}
	echo "$(cat "$t/comm") $(sched_of $pid "$tid") $(grep CapPrm "$t/status")"
	grep -Eq "^CapPrm:[[:space:]]+0+$" "$t/status" || fail "$t: capabilities while recording with -r"
	case $(cat "$t/comm") in
	shardrec-w*) [ "$(sched_of $pid "$tid")" = 1/2 ] || fail "writer not SCHED_FIFO 2" ;;
	*) [ "$(sched_of $pid "$tid")" = 0/0 ] || fail "thread $tid real-time" ;;
	esac
done
wl=$(awk '{ print $1 }' /proc/$pid/task/$pid/children)
[ "$(sched_of "$wl" "$wl")" = 0/0 ] || fail "workload inherited the real-time policy"
rm hold
wait $pid || { cat rec.txt; fail "-r 2 with cap_sys_nice failed"; }
[ ! -s rec.txt ] || { cat rec.txt; fail "-r 2 with cap_sys_nice printed something"; }
as_user ../bin/capped record -q -r 2 -o nonice.data -- true 2>rec.txt || fail "-r 2 without cap_sys_nice failed"
cat rec.txt
[ "$(wc -l <rec.txt)" = 1 ] && grep -q "warning: -r 2: writers run at normal priority.*cap_sys_nice.*ulimit -r" rec.txt ||
	fail "-r without the permission: not one line saying what to do"
as_user ../bin/capped record -q -o nonice.data -- true 2>rec.txt || fail "default without cap_sys_nice failed"
[ ! -s rec.txt ] || { cat rec.txt; fail "the default priority warned without -r"; }
echo "privileges: all checks passed"
