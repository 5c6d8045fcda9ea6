# A private Slurm for the tests: source it, then cluster_start DIR NCPUS (one
# node on localhost) or cluster_start_nodes DIR N NCPUS (N nodes in
# namespaces, below), and cluster_stop. Its own munged socket and key,
# slurm.conf via SLURM_CONF, state and logs in DIR; daemons run in the
# foreground and are stopped by their pids. Outside DIR, only the nodes'
# namespaces and cgroups, named after this shell's pid and removed by
# cluster_stop. Needs root (slurmd starts jobs as their user). Exports
# SLURM_CONF; run srun/sbatch/squeue/scancel through cluster_ctl.
# CLUSTER_ERR says why a start failed.

CLUSTER_PIDS=()

cluster_have() {
	local b
	for b in setpriv munged mungekey slurmctld slurmd srun sbatch scancel sinfo scontrol; do
		command -v "$b" >/dev/null || { CLUSTER_ERR="$b not installed (apt-get install slurm-wlm munge)"; return 1; }
	done
	[ "$(id -u)" = 0 ] || { CLUSTER_ERR="not root: slurmd must start jobs"; return 1; }
	id munge >/dev/null 2>&1 || { CLUSTER_ERR="no munge user"; return 1; }
}

# A TCP port nobody listens on, from $1 upwards.
cluster_free_port() {
	local p=$1
	while ss -Hltn "sport = :$p" 2>/dev/null | grep -q .; do p=$((p + 1)); done
	echo "$p"
}

cluster_munge() {
	local d=$1/munge
	mkdir -p "$d"
	chown munge: "$d"
	chmod 0755 "$d"
	# setpriv execs: $! is munged itself, to be stopped by that pid.
	setpriv --reuid=munge --regid=munge --init-groups mungekey -c -k "$d/munge.key" ||
		{ CLUSTER_ERR="mungekey failed"; return 1; }
	setpriv --reuid=munge --regid=munge --init-groups munged -F --socket="$d/munge.socket" \
		--key-file="$d/munge.key" --log-file="$d/munged.log" --pid-file="$d/munged.pid" \
		--seed-file="$d/munged.seed" >"$d/munged.out" 2>&1 &
	CLUSTER_PIDS+=($!)
	for _ in $(seq 100); do
		[ -S "$d/munge.socket" ] && munge -n --socket="$d/munge.socket" |
			unmunge --socket="$d/munge.socket" >/dev/null 2>&1 && return 0
		sleep 0.1
	done
	CLUSTER_ERR="munged did not start: $(tail -n 3 "$d/munged.out" "$d/munged.log" 2>/dev/null | tr '\n' ' ')"
	return 1
}

# The slurm.conf lines every cluster shares; $1: the directory, $2: the
# SlurmctldHost value, $3/$4: the ports, $5: what SlurmdSpoolDir, SlurmdPidFile
# and SlurmdLogFile are named after ("slurmd", or "%n" for one per node).
cluster_conf_common() {
	cat <<CONF
ClusterName=shardrectest
SlurmctldHost=$2
SlurmctldPort=$3
SlurmdPort=$4
SlurmUser=root
AuthType=auth/munge
AuthInfo=socket=$1/munge/munge.socket
StateSaveLocation=$1/ctld
SlurmdSpoolDir=$1/$5
SlurmctldPidFile=$1/slurmctld.pid
SlurmdPidFile=$1/$5.pid
SlurmctldLogFile=$1/slurmctld.log
SlurmdLogFile=$1/$5.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
ReturnToService=2
KillWait=${CLUSTER_KILLWAIT:-5}
SlurmdParameters=config_overrides
CONF
}

cluster_conf() {
	local d=$1 cpus=$2 node
	node=$(hostname -s)
	mkdir -p "$d/ctld" "$d/slurmd"
	CLUSTER_NODE=$node
	{
		cluster_conf_common "$d" localhost "$(cluster_free_port 16817)" \
			"$(cluster_free_port 16917)" slurmd
		echo "NodeName=$node NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN"
		echo "PartitionName=test Nodes=ALL Default=YES MaxTime=INFINITE State=UP"
	} >"$d/slurm.conf"
	export SLURM_CONF=$d/slurm.conf
}

# Runs a Slurm client where the controller is reachable: in the
# controller's network namespace when there is one (cluster_start_nodes).
cluster_ctl() {
	if [ -n "${CLUSTER_CTL_NS:-}" ]; then
		nsenter --net="/run/netns/$CLUSTER_CTL_NS" "$@"
	else
		"$@"
	fi
}

# Waits until every node of CLUSTER_NODES is idle; resumes a DOWN one.
cluster_wait_idle() {
	local states idle
	for _ in $(seq 150); do
		states=$(cluster_ctl sinfo -h -N -o '%N %T' 2>/dev/null | sort -u)
		idle=$(echo "$states" | awk '$2 == "idle"' | wc -l)
		[ "$idle" = "${#CLUSTER_NODES[@]}" ] && return 0
		echo "$states" | awk '$2 ~ /^(down|drain)/ { print $1 }' | while read -r n; do
			cluster_ctl scontrol update nodename="$n" state=resume 2>/dev/null
		done
		sleep 0.2
	done
	CLUSTER_ERR="nodes not idle ($(echo "$states" | tr '\n' ' ')): $(tail -q -n 2 "$1"/*.log 2>/dev/null | tr '\n' ' ')"
	return 1
}

cluster_start() {
	local d=$1 cpus=$2
	CLUSTER_DIR=$d
	cluster_have || return 1
	cluster_munge "$d" || return 1
	cluster_conf "$d" "$cpus"
	CLUSTER_NODES=("$CLUSTER_NODE")
	slurmctld -D -c -f "$SLURM_CONF" >"$d/slurmctld.out" 2>&1 &
	CLUSTER_PIDS+=($!)
	slurmd -D -N "$CLUSTER_NODE" -f "$SLURM_CONF" >"$d/slurmd.out" 2>&1 &
	CLUSTER_PIDS+=($!)
	cluster_wait_idle "$d"
}

# Waits (60 s at most) until job $1 has left the queue.
cluster_wait_job() {
	for _ in $(seq 600); do
		[ -z "$(cluster_ctl squeue -h -j "$1" 2>/dev/null)" ] && return 0
		sleep 0.1
	done
	return 1
}

# Submits batch script $1, prints the job id, waits for the job's end:
# 0 when it exited 0. (sbatch --wait polls every 2, 4, 8... s; this every
# 0.1 s, and Slurm keeps a finished job's record for MinJobAge, 300 s.)
cluster_run_job() {
	local id
	id=$(cluster_ctl sbatch --parsable "$1") || return 1
	echo "$id"
	cluster_wait_job "$id" &&
		cluster_ctl scontrol show job "$id" | grep -Eq '(^| )ExitCode=0:0( |$)'
}

# ---- several nodes on this machine: cluster_start_nodes DIR N CPUS ----
#
# Node i (node1..nodeN) is a network namespace with its own UTS namespace
# (hostname nodeI) and address CLUSTER_NET.(10+i) on a veth whose other end
# is a port of a bridge in the controller's namespace (CLUSTER_NET.1,
# hostname ctl). Those addresses exist only in those namespaces: no traffic
# leaves them. Everything else is shared as on a cluster with one shared
# filesystem: DIR, /tmp, the munge socket (munged is reached by its path),
# the kernel and its pid space. Each node's slurmd, and so every task of the
# node, runs in its own cgroup v2 (CLUSTER_CG2/nodeI: a recorder can
# confine itself to its node with -G) and, where a cgroup v1 cpuset
# hierarchy is mounted, its own cpuset: CPU (i-1) mod the host's CPUs
# (nodes overlap when there are fewer CPUs than nodes).

CLUSTER_NET=10.213.0
CLUSTER_NS=()
declare -A CLUSTER_NODE_PIDS
CLUSTER_CGS=()

cluster_have_nodes() {
	local b probe=srprobe$$
	cluster_have || return 1
	for b in ip nsenter unshare hostname; do
		command -v "$b" >/dev/null || { CLUSTER_ERR="$b not installed"; return 1; }
	done
	ip netns add "$probe" 2>/dev/null || { CLUSTER_ERR="ip netns add: no network namespaces here"; return 1; }
	nsenter --net="/run/netns/$probe" unshare --uts hostname probe 2>/dev/null
	b=$?
	ip netns del "$probe"
	[ "$b" = 0 ] || { CLUSTER_ERR="nsenter/unshare --uts: no UTS namespaces here"; return 1; }
	awk '$3 == "cgroup2" { f = 1 } END { exit !f }' /proc/self/mounts ||
		{ CLUSTER_ERR="no cgroup v2 mount: nodes cannot be told apart"; return 1; }
}

# A named network namespace, deleted by cluster_stop.
cluster_netns() {
	ip netns add "$1" || { CLUSTER_ERR="ip netns add $1 failed"; return 1; }
	CLUSTER_NS+=("$1")
	ip -n "$1" link set lo up
}

# The controller's namespace with the bridge, and one namespace per node.
cluster_net() {
	local n=$1 i ns
	CLUSTER_CTL_NS=srs$$ctl
	cluster_netns "$CLUSTER_CTL_NS" || return 1
	ip -n "$CLUSTER_CTL_NS" link add br0 type bridge &&
		ip -n "$CLUSTER_CTL_NS" addr add "$CLUSTER_NET.1/24" dev br0 &&
		ip -n "$CLUSTER_CTL_NS" link set br0 up || { CLUSTER_ERR="bridge setup failed"; return 1; }
	for ((i = 1; i <= n; i++)); do
		ns=srs$$n$i
		cluster_netns "$ns" || return 1
		ip -n "$ns" link add eth0 type veth peer name v$i netns "$CLUSTER_CTL_NS" &&
			ip -n "$CLUSTER_CTL_NS" link set "v$i" master br0 up &&
			ip -n "$ns" addr add "$CLUSTER_NET.$((10 + i))/24" dev eth0 &&
			ip -n "$ns" link set eth0 up || { CLUSTER_ERR="veth of node$i failed"; return 1; }
	done
}

# Node cgroups: v2 (always) and v1 cpuset (when mounted). Sets CLUSTER_CG2
# and CLUSTER_CPUSET (empty without a v1 cpuset hierarchy), the parents.
cluster_cgroups() {
	local n=$1 i root cs cpus mems
	root=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/self/mounts)
	CLUSTER_CG2=$root/shardrec-slurm-$$
	mkdir "$CLUSTER_CG2" || { CLUSTER_ERR="mkdir $CLUSTER_CG2 failed"; return 1; }
	CLUSTER_CGS+=("$CLUSTER_CG2")
	cs=$(awk '$3 == "cgroup" && $4 ~ /(^|,)cpuset(,|$)/ { print $2; exit }' /proc/self/mounts)
	CLUSTER_CPUSET=
	if [ -n "$cs" ] && mkdir "$cs/shardrec-slurm-$$" 2>/dev/null; then
		CLUSTER_CPUSET=$cs/shardrec-slurm-$$
		CLUSTER_CGS+=("$CLUSTER_CPUSET")
		cat "$cs/cpuset.cpus" >"$CLUSTER_CPUSET/cpuset.cpus"
		cat "$cs/cpuset.mems" >"$CLUSTER_CPUSET/cpuset.mems"
	fi
	cpus=$(nproc --all)
	mems=$(cat "$CLUSTER_CPUSET/cpuset.mems" 2>/dev/null)
	for ((i = 1; i <= n; i++)); do
		mkdir "$CLUSTER_CG2/node$i" || { CLUSTER_ERR="mkdir $CLUSTER_CG2/node$i failed"; return 1; }
		CLUSTER_CGS+=("$CLUSTER_CG2/node$i")
		[ -n "$CLUSTER_CPUSET" ] || continue
		mkdir "$CLUSTER_CPUSET/node$i" || { CLUSTER_ERR="mkdir $CLUSTER_CPUSET/node$i failed"; return 1; }
		CLUSTER_CGS+=("$CLUSTER_CPUSET/node$i")
		echo $(((i - 1) % cpus)) >"$CLUSTER_CPUSET/node$i/cpuset.cpus" &&
			echo "$mems" >"$CLUSTER_CPUSET/node$i/cpuset.mems" ||
			{ CLUSTER_ERR="cpuset of node$i refused"; return 1; }
	done
}

# The slurm.conf of N nodes of CPUS (Slurm's count) each.
cluster_conf_nodes() {
	local d=$1 n=$2 cpus=$3 i
	mkdir -p "$d/ctld"
	{
		cluster_conf_common "$d" "ctl($CLUSTER_NET.1)" 6817 6818 %n
		for ((i = 1; i <= n; i++)); do
			mkdir -p "$d/node$i"
			echo "NodeName=node$i NodeAddr=$CLUSTER_NET.$((10 + i)) CPUs=$cpus State=UNKNOWN"
		done
		echo "PartitionName=test Nodes=ALL Default=YES MaxTime=INFINITE State=UP"
	} >"$d/slurm.conf"
	export SLURM_CONF=$d/slurm.conf
}

# Runs "$5..." as node namespace $1 with hostname $2, in cgroup v2 $3 and
# v1 cpuset $4 (none when empty), in a mount namespace of its own where
# CLUSTER_LOCAL (when set) is a tmpfs: the node's local disk, seen by no
# other node. Call it in the background: it execs (as nsenter, unshare and
# sh do), so $! is the daemon itself.
cluster_on_node() {
	local ns=$1 host=$2 cg2=$3 cs=$4
	shift 4
	exec nsenter --net="/run/netns/$ns" unshare --uts --mount --propagation private sh -c '
		echo $$ >"$1/cgroup.procs" || exit 1
		[ -z "$2" ] || echo $$ >"$2/tasks" || exit 1
		[ -z "$4" ] || mount -t tmpfs -o size=256m,mode=1777 "local-$3" "$4" || exit 1
		hostname "$3" && shift 4 && exec "$@"' sh "$cg2" "$cs" "$host" "${CLUSTER_LOCAL:-}" "$@"
}

# The pid of node $1's slurmd (its mount namespace is the node's).
cluster_node_pid() {
	echo "${CLUSTER_NODE_PIDS[$1]}"
}

cluster_start_nodes() {
	local d=$1 n=$2 cpus=$3 i
	CLUSTER_DIR=$d
	CLUSTER_NODES=()
	cluster_have_nodes || return 1
	cluster_net "$n" && cluster_cgroups "$n" || return 1
	cluster_munge "$d" || return 1
	cluster_conf_nodes "$d" "$n" "$cpus"
	nsenter --net="/run/netns/$CLUSTER_CTL_NS" unshare --uts sh -c 'hostname ctl && exec "$@"' \
		sh slurmctld -D -c -f "$SLURM_CONF" >"$d/slurmctld.out" 2>&1 &
	CLUSTER_PIDS+=($!)
	for ((i = 1; i <= n; i++)); do
		CLUSTER_NODES+=("node$i")
		cluster_on_node "srs$$n$i" "node$i" "$CLUSTER_CG2/node$i" \
			"${CLUSTER_CPUSET:+$CLUSTER_CPUSET/node$i}" \
			slurmd -D -N "node$i" -f "$SLURM_CONF" >"$d/node$i.out" 2>&1 &
		CLUSTER_PIDS+=($!)
		CLUSTER_NODE_PIDS[node$i]=$!
	done
	cluster_wait_idle "$d"
}

# The CPUs node $1's tasks may run on ("all" without a cpuset hierarchy).
cluster_node_cpus() {
	if [ -n "${CLUSTER_CPUSET:-}" ]; then cat "$CLUSTER_CPUSET/$1/cpuset.cpus"; else echo all; fi
}

# Stops the daemons (last started first) by pid, then waits for them.
cluster_stop() {
	local i pid
	for ((i = ${#CLUSTER_PIDS[@]} - 1; i >= 0; i--)); do
		pid=${CLUSTER_PIDS[i]}
		kill "$pid" 2>/dev/null
		for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
		kill -0 "$pid" 2>/dev/null && kill -KILL "$pid" 2>/dev/null
	done
	CLUSTER_PIDS=()
	cluster_stop_nodes
}

# Removes the node cgroups and namespaces. Tasks still in a node's cgroup
# 2 s after its slurmd stopped (a test failed mid-job) descend from that
# slurmd: they are killed by pid.
cluster_stop_nodes() {
	local i cg ns pids
	for ((i = ${#CLUSTER_CGS[@]} - 1; i >= 0; i--)); do
		cg=${CLUSTER_CGS[i]}
		for _ in $(seq 20); do rmdir "$cg" 2>/dev/null && break; [ -d "$cg" ] || break; sleep 0.1; done
		[ -d "$cg" ] || continue
		pids=$(cat "$cg/cgroup.procs" 2>/dev/null)
		[ -z "$pids" ] || kill -KILL $pids 2>/dev/null
		for _ in $(seq 30); do rmdir "$cg" 2>/dev/null && break; sleep 0.1; done
		[ ! -d "$cg" ] || echo "cluster: cannot remove $cg" >&2
	done
	CLUSTER_CGS=()
	for ns in "${CLUSTER_NS[@]}"; do ip netns del "$ns" 2>/dev/null; done
	CLUSTER_NS=()
	CLUSTER_CTL_NS=
}
