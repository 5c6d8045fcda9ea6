# shardrec list against perf list on this machine (software events, sched
# tracepoints, kernel PMU events), its usage errors, and the bash completion
# that reads it.
. "$(dirname "$0")/lib.sh"
src=$(cd "$(dirname "$0")/../.." && pwd)
need_perf_event

# Names of perf list's lines of one kind: "  a OR b   [Software event]".
perf_names() {
	"$PERF" list "$1" 2>/dev/null | grep -F "[$2" | sed -E 's/^ +//; s/ +\[.*//; s/ OR /\n/g' | sort -u
}
ours() {
	"$SHARDREC" list "$1" | grep -F "[$2" | sed -E 's/^ +//; s/ +\[.*//; s/ OR /\n/g' | sort -u
}
same() {
	if ! diff "$2" "$3" >d.txt; then
		cat d.txt
		fail "$1: shardrec list and perf list differ (< perf, > shardrec)"
	fi
	echo "$1: $(wc -l <"$2") names, as perf list"
}

perf_names sw "Software event" >sw.perf
ours sw "Software event" >sw.ours
[ -s sw.ours ] || fail "no software events listed"
grep -qx cpu-clock sw.ours || fail "cpu-clock not listed"
grep -qx cs sw.ours || fail "cs (alias of context-switches) not listed"
same "software events" sw.perf sw.ours

if [ -r /sys/kernel/tracing/events/sched/sched_switch/id ] ||
	[ -r /sys/kernel/debug/tracing/events/sched/sched_switch/id ]; then
	perf_names tracepoint "Tracepoint event" | grep '^sched:' >tp.perf
	ours tracepoint "Tracepoint event" | grep '^sched:' >tp.ours
	grep -qx sched:sched_switch tp.ours || fail "sched:sched_switch not listed"
	same "sched tracepoints" tp.perf tp.ours
	"$SHARDREC" list 'sched:sched_sw*' | grep -q 'sched:sched_switch .*\[Tracepoint event\]' ||
		fail "glob sched:sched_sw* does not list sched:sched_switch"
else
	echo "tracefs not readable: tracepoints not compared"
fi

perf_names pmu "Kernel PMU event" >pmu.perf
ours pmu "Kernel PMU event" >pmu.ours
same "kernel PMU events" pmu.perf pmu.ours
# Every PMU with its type, and its format terms as PMU/TERM=.
for d in /sys/bus/event_source/devices/*; do
	p=$(basename "$d")
	"$SHARDREC" list pmu | grep -qE "^  $p// +\[PMU: type $(cat "$d/type")\]" || fail "PMU $p not listed"
	for t in $(ls "$d/format" 2>/dev/null); do
		"$SHARDREC" list --raw-dump pmu | grep -qx "$p/$t=" || fail "term $p/$t= not listed"
	done
done

# Every software name listed is one record -e accepts.
"$SHARDREC" record -e "$(paste -sd, sw.ours)" -o x.data -- true 2>err.txt ||
	{ cat err.txt; fail "record -e with every listed software event failed"; }

# Usage errors: exit 2, one line.
for args in "list --no-such" "list sw hw"; do
	set +e
	"$SHARDREC" $args >out.txt 2>err.txt
	rc=$?
	set -e
	[ "$rc" = 2 ] || fail "shardrec $args: exit $rc, want 2"
	[ "$(wc -l <err.txt)" = 1 ] || fail "shardrec $args: error is not one line"
done

# Bash completion: what a user gets after TAB (COMP_WORDS as bash splits them).
complete_line() {
	bash -c '
		. "$1"
		line=$2
		COMP_LINE=$line COMP_POINT=${#line}
		read -ra COMP_WORDS <<<"$(sed -E "s/([:=])/ \1 /g" <<<"$line")"
		[[ $line == *" " ]] && COMP_WORDS+=("")
		COMP_WORDS[0]=$3
		COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
		_shardrec
		printf "%s\n" "${COMPREPLY[@]}"' _ "$src/completion/shardrec.bash" "$1" "$SHARDREC"
}
expect_completion() {
	complete_line "$1" >c.txt
	grep -qx -- "$2" c.txt || { cat c.txt; fail "completion of '$1' lacks '$2'"; }
	echo "completion: '$1' -> $2"
}
expect_completion "shardrec rec" record
expect_completion "shardrec li" list
expect_completion "shardrec record --thr" "--threads="
expect_completion "shardrec record --threads=nu" numa
expect_completion "shardrec topology --synth" "--synthetic"
expect_completion "shardrec merge --rec" "--recover"
expect_completion "shardrec job --job" "--job-cgroup"
expect_completion "shardrec job --keep" "--keep-shards"
expect_completion "shardrec job --shard" "--shard-dir"
expect_completion "shardrec record --affinity=no" "node"
expect_completion "shardrec record --affinity " "sys"
expect_completion "shardrec record -u roo" root
expect_completion "shardrec record -p $$" "$$"
complete_line "shardrec job --switch" >c.txt
! grep -q -- --switch c.txt || { cat c.txt; fail "completion offers job the rotation options job refuses"; }
expect_completion "shardrec record --switch-output-ev" "--switch-output-event"
mkdir localdisk
expect_completion "shardrec record --shard-dir loc" localdisk
expect_completion "shardrec record --buildid" "--buildid-dir"
expect_completion "shardrec record --buildid-dir loc" localdisk
expect_completion "shardrec record -e cpu-cl" cpu-clock
expect_completion "shardrec record -e cs,task-cl" "cs,task-clock"
expect_completion "shardrec record -k mono" monotonic_raw
expect_completion "shardrec record -j any_c" any_call
expect_completion "shardrec record --branch-filter any,ind_" "any,ind_jmp"
expect_completion "shardrec record --switch-output=sig" signal
expect_completion "shardrec record --switch-output-event cpu-cl" cpu-clock
expect_completion "shardrec list " tracepoint
expect_completion "shardrec jobv" jobview
expect_completion "shardrec jobview --to" "--top"
expect_completion "shardrec jobview --jo" "--jobs"
# jobview's paths: perf.data files, their .json, directories; nothing else.
mkdir -p jv.dir && touch jv.1.data jv.1.data.json jv.txt
expect_completion "shardrec jobview jv" jv.1.data
expect_completion "shardrec jobview jv" jv.1.data.json
expect_completion "shardrec jobview jv" jv.dir
complete_line "shardrec jobview jv" | grep -qx jv.txt && fail "completion of jobview offers jv.txt"
complete_line "shardrec jobview --top " | grep -q . && fail "completion of jobview --top offers a file"
if grep -qx sched:sched_switch tp.ours 2>/dev/null; then
	expect_completion "shardrec record -e sched:sched_sw" sched_switch
fi
