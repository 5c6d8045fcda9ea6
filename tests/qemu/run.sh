#!/usr/bin/env bash
# Records in a many-core qemu guest with memory-only NUMA nodes and checks
# the writer plans and their placement. The guest: 16 vCPUs as 4 sockets of
# 4 cores, node N = socket N (CPUs 4N..4N+3), and nodes 4 and 5 with memory
# and no CPU, like KNL's MCDRAM or CXL memory (4 near node 1, 5 near node 0
# in the distance table). There shardrec records -a three times, with the
# default plan, --threads=numa and --threads=cpu, and the checks are:
#
# - the writer counts the plan rules of numa/plan.c give for this machine:
#   default (auto): one writer per package/node/L3 domain, split above 8
#   CPUs; here a domain is a socket of 4 CPUs (one node, one L3), so 4
#   writers, each a node's CPUs. numa: one writer per node with CPUs, 4.
#   cpu: one per CPU, 16;
# - each writer's -v line: its CPUs are all on its node, its buffers and its
#   rings' pages are on that node, and no writer is on a memory-only node;
#   the writers' CPUs are the 16 CPUs, each once;
# - the three merged files (16 rings each: 4, 4 and 16 shards), sent back on
#   a second serial port, pass the host perf's checks (check_perf_file),
#   hold samples of all 16 CPUs (a hot pinned to each), and their NUMA
#   header lists the 6 nodes, the memory-only ones without CPU.
#
# Guest: a Debian kernel (/boot/vmlinuz-*, or KERNEL=...) booting an
# initramfs of busybox-static, shardrec, the hot workload and their shared
# libraries (copied by ldd: Debian has no static libudev for a static hwloc).
# TCG emulation unless QEMU_ACCEL=kvm. Exit 0 pass, 77 skip, else fail.
#
# Env: SHARDREC, PROGS (as for tests/run-e2e.sh), KERNEL, QEMU, QEMU_ACCEL
# (tcg: a host thread per vCPU, tcg-single: one for all, kvm),
# QEMU_TIMEOUT (seconds), QEMU_BOOT_TIMEOUT (seconds until /init's first
# line, default 180: the guest boots in 7-41 s), QEMU_APPEND (kernel
# arguments instead of "quiet"), QEMU_CONSOLE (file to keep the guest's
# console in).
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../e2e/lib.sh"
. "$here/guest-lib.sh"

guest_need
QEMU_BOOT_TIMEOUT=${QEMU_BOOT_TIMEOUT:-180}
start=$(date +%s)

# ---- the guest machine ----
NR_CPUS=16
CPU_NODES="0 1 2 3" # node N: socket N, CPUs 4N..4N+3
MEM_NODES="4 5"     # memory only
PLANS="default numa cpu"
declare -A WRITERS=([default]=4 [numa]=4 [cpu]=16)
node_cpus() { echo "$((4 * $1))-$((4 * $1 + 3))"; }
machine=(-m 1280M -smp $NR_CPUS,sockets=4,cores=4,threads=1)
for n in $CPU_NODES; do
	machine+=(-object memory-backend-ram,id=m$n,size=256M
		-numa node,nodeid=$n,cpus=$(node_cpus $n),memdev=m$n)
done
for n in $MEM_NODES; do
	machine+=(-object memory-backend-ram,id=m$n,size=128M -numa node,nodeid=$n,memdev=m$n)
done
# Distances as on KNL in SNC-4 flat mode: 10 local, 21 between CPU nodes, 31
# from a memory-only node to the CPU node it sits next to, 41 to the others.
# hwloc gives a memory-only node the locality of its one nearest CPU node.
near() { case "$1-$2" in 1-4 | 4-1 | 0-5 | 5-0) return 0 ;; esac; return 1; }
for a in $CPU_NODES $MEM_NODES; do
	for b in $CPU_NODES $MEM_NODES; do
		[ "$a" -lt "$b" ] || continue
		d=21
		[ "$b" -ge 4 ] && d=41
		near "$a" "$b" && d=31
		machine+=(-numa dist,src=$a,dst=$b,val=$d)
	done
done

# ---- initramfs ----
root=$TMP/root
guest_root "$root"
guest_add_bins "$root" "$SHARDREC" "$PROGS/hot"
# The workload: a one-thread hot pinned to each CPU, so that every ring gets
# samples however the guest's scheduler (or a busy host) spreads threads.
cat >"$root/bin/hot-per-cpu" <<EOF
#!/bin/busybox sh
for c in \$(seq 0 $((NR_CPUS - 1))); do taskset -c \$c hot 1000 1 & done
wait
EOF
chmod +x "$root/bin/hot-per-cpu"
{
	guest_init_head
	echo "PLANS='$PLANS' NR_CPUS=$NR_CPUS"
	cat <<'EOF'
echo "GUEST: nodes $(cat /sys/devices/system/node/online), cpus $(cat /sys/devices/system/cpu/online)"
for n in /sys/devices/system/node/node*; do echo "GUEST: ${n##*/} cpus $(cat $n/cpulist)"; done
echo "GUEST: l3 of cpu0: $(cat /sys/devices/system/cpu/cpu0/cache/index3/shared_cpu_list)"
mkdir /tmp/out
cd /tmp
shardrec topology 2>&1 | sed 's/^/GUEST: topology: /'
# User space only: the host has no kallsyms of the guest kernel to resolve with.
for plan in $PLANS; do
	opt=--threads=$plan
	[ $plan = default ] && opt=
	shardrec record -v $opt -a -e cpu-clock:u -o /tmp/out/$plan.data -- /bin/hot-per-cpu \
		>/dev/null 2>rec.err
	echo "GUEST: $plan: record exit $? at $(cut -d' ' -f1 /proc/uptime) s"
	sed "s/^/GUEST: $plan: /" rec.err
done
EOF
	guest_init_ship '*.data'
} >"$root/init"
GUEST_INITRD=$TMP/initramfs.gz
guest_pack "$root" "$GUEST_INITRD"

# ---- boot ----
GUEST_DIR=$TMP
echo "qemu: $NR_CPUS vCPUs"
guest_boot "${machine[@]}"
rc=$GUEST_RC
secs=$(( $(date +%s) - start ))
grep '^GUEST: ' "$TMP/console" | tr -d '\r'
[ -z "${QEMU_CONSOLE:-}" ] || cp "$TMP/console" "$QEMU_CONSOLE"
echo "qemu: exit $rc after ${secs}s"
[ "$rc" = 0 ] || { tail -n 40 "$TMP/console"; fail "qemu failed or timed out"; }

# ---- checks ----
tr -d '\r' <"$TMP/console" | sed -n 's/^GUEST: //p' >"$TMP/guest"
grep -qx "nodes 0-5, cpus 0-$((NR_CPUS - 1))" "$TMP/guest" ||
	fail "the guest does not see 6 NUMA nodes and $NR_CPUS CPUs"
for n in $CPU_NODES; do
	grep -qx "node$n cpus $(node_cpus $n)" "$TMP/guest" || fail "node $n: not CPUs $(node_cpus $n)"
done
for n in $MEM_NODES; do
	grep -qx "node$n cpus " "$TMP/guest" || fail "node $n is not memory-only"
done
# The default plan's count rests on this: one L3 per socket (qemu's default).
grep -qx "l3 of cpu0: 0-3" "$TMP/guest" || fail "cpu0's L3 is not its socket's: the default plan changes"
grep -qx "topology: memory-only nodes (no writer): 4, 5" "$TMP/guest" ||
	fail "shardrec topology does not name nodes 4 and 5 as memory-only"

# check_writers PLAN: the -v writer lines of PLAN against the guest's nodes.
check_writers() {
	local plan=$1 want=${WRITERS[$1]}
	grep -qx "$plan: record exit 0 .*" "$TMP/guest" || fail "$plan: shardrec record failed in the guest"
	# "4 writers, merged", or with what they ran at: "4 writers (SCHED_FIFO 1), merged".
	grep -Eq "^$plan: \[ shardrec record: $want writers( \([^)]*\))?, merged " "$TMP/guest" ||
		fail "$plan: the summary does not say $want writers"
	awk -v plan="$plan" -v want="$want" -v nr_cpus=$NR_CPUS '
	function expand(list, out,   n, i, r, k, c) {
		delete out
		n = split(list, r, ",")
		for (i = 1; i <= n; i++) {
			if (split(r[i], k, "-") == 1) k[2] = k[1]
			for (c = k[1] + 0; c <= k[2] + 0; c++) out[c] = 1
		}
	}
	# The text of s between the first match of regex a and the next of b.
	function field(s, a, b) {
		if (!match(s, a)) return ""
		s = substr(s, RSTART + RLENGTH)
		return match(s, b) ? substr(s, 1, RSTART - 1) : s
	}
	function bad(msg) { print "FAIL: " plan ": " msg > "/dev/stderr"; err = 1 }
	/^node[0-9]+ cpus/ {
		n = substr($1, 5) + 0
		node_cpus[n] = $3
		expand($3, tmp)
		for (c in tmp) cpu_node[c] = n
		next
	}
	index($0, plan ": shardrec: writer ") == 1 {
		line = substr($0, length(plan) + 3)
		if (!match(line, /^shardrec: writer [0-9]+: node -?[0-9]+, cpus [0-9,-]+, .*, buffers on node -?[0-9]+, ring pages on node .*$/)) {
			bad("unexpected writer line: " line); next
		}
		w = field(line, "^shardrec: writer ", ":")
		node = field(line, ": node ", ",")
		list = field(line, ", cpus ", ", [0-9]")
		if (w != writers + 0) bad("writer " w " is writer number " writers + 0)
		writers++
		if (line !~ ", buffers on node " node ", ring pages on node " node "$")
			bad("writer " w " (node " node "): buffers or ring pages elsewhere: " line)
		if (!(node in node_cpus) || node_cpus[node] == "")
			bad("writer " w " is on node " node ", which has no CPU")
		expand(list, mine)
		nmine = 0
		for (c in mine) {
			nmine++
			if (cpu_node[c] != node) bad("writer " w " on node " node " reads cpu " c " of node " cpu_node[c])
			if (c in seen) bad("cpu " c " has two writers")
			seen[c] = 1
		}
		if (plan == "cpu" && nmine != 1) bad("writer " w " reads " list ", not one CPU")
		if (plan != "cpu" && list != node_cpus[node]) bad("writer " w " reads " list ", not the CPUs of node " node)
	}
	END {
		if (writers != want) bad(writers + 0 " writers, want " want)
		for (c = 0; c < nr_cpus; c++) if (!(c in seen)) bad("cpu " c " has no writer")
		exit err
	}' "$TMP/guest" || fail "$plan: writers not as planned or not placed on their nodes"
	echo "$plan: $want writers, each on its CPUs' node with its buffers and ring pages"
}
for plan in $PLANS; do
	check_writers "$plan"
done

guest_unship_serial "$TMP" || fail "the recordings did not survive the serial port"
for plan in $PLANS; do
	check_perf_file "$TMP/$plan.data"
	# NUMA_TOPOLOGY as perf reads it: an empty CPU list prints as -1.
	"$PERF" report --header-only -I -i "$TMP/$plan.data" >"$TMP/header" 2>&1
	[ "$(grep -c '^# node[0-9]* cpu list : ' "$TMP/header")" = 6 ] || fail "$plan.data: not 6 nodes in the header"
	for n in $MEM_NODES; do
		grep -qx "# node$n cpu list : -1" "$TMP/header" || fail "$plan.data: memory-only node $n has CPUs in the header"
	done
	# Every ring made it through the merge.
	"$PERF" script -F cpu -i "$TMP/$plan.data" | sort | uniq -c | sort -n >"$TMP/per-cpu"
	cpus=$(wc -l <"$TMP/per-cpu")
	[ "$cpus" = $NR_CPUS ] || fail "$plan.data: samples of $cpus CPUs, not $NR_CPUS"
	echo "host perf: $plan.data: $(perf_samples "$TMP/$plan.data") samples on $cpus CPUs" \
		"(at least $(awk 'NR == 1 { print $1 }' "$TMP/per-cpu") each)"
done
echo "qemu test: $(( $(date +%s) - start ))s"
exit 0
