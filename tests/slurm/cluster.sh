# A private one-node Slurm on localhost for the tests: source it, then
# cluster_start DIR NCPUS / cluster_stop. Nothing outside DIR is touched:
# its own munged socket and key, slurm.conf via SLURM_CONF, ports probed
# free, state and logs in DIR; daemons run in the foreground and are
# stopped by their pids. Needs root (slurmd starts jobs as their user).
# Exports SLURM_CONF for srun/sbatch/scancel; CLUSTER_ERR says why a start failed.

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

cluster_conf() {
	local d=$1 cpus=$2 node
	node=$(hostname -s)
	mkdir -p "$d/ctld" "$d/slurmd"
	CLUSTER_NODE=$node
	cat >"$d/slurm.conf" <<CONF
ClusterName=shardrectest
SlurmctldHost=localhost
SlurmctldPort=$(cluster_free_port 16817)
SlurmdPort=$(cluster_free_port 16917)
SlurmUser=root
AuthType=auth/munge
AuthInfo=socket=$d/munge/munge.socket
StateSaveLocation=$d/ctld
SlurmdSpoolDir=$d/slurmd
SlurmctldPidFile=$d/slurmctld.pid
SlurmdPidFile=$d/slurmd.pid
SlurmctldLogFile=$d/slurmctld.log
SlurmdLogFile=$d/slurmd.log
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
NodeName=$node NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=test Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
	export SLURM_CONF=$d/slurm.conf
}

cluster_wait_idle() {
	local state
	for _ in $(seq 150); do
		state=$(sinfo -h -o %T 2>/dev/null | head -n 1)
		case $state in
		idle) return 0 ;;
		down*|drain*) scontrol update nodename="$CLUSTER_NODE" state=resume 2>/dev/null ;;
		esac
		sleep 0.2
	done
	CLUSTER_ERR="node not idle (state '$state'): $(tail -n 3 "$1/slurmd.log" "$1/slurmctld.log" 2>/dev/null | tr '\n' ' ')"
	return 1
}

cluster_start() {
	local d=$1 cpus=$2
	CLUSTER_DIR=$d
	cluster_have || return 1
	cluster_munge "$d" || return 1
	cluster_conf "$d" "$cpus"
	slurmctld -D -c -f "$SLURM_CONF" >"$d/slurmctld.out" 2>&1 &
	CLUSTER_PIDS+=($!)
	slurmd -D -N "$CLUSTER_NODE" -f "$SLURM_CONF" >"$d/slurmd.out" 2>&1 &
	CLUSTER_PIDS+=($!)
	cluster_wait_idle "$d"
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
}
