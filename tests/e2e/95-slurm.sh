# shardrec job under a real one-node Slurm on localhost: tests/slurm/run.sh
# (about 20 s; skips when slurm-wlm and munge are not installed or the
# daemons cannot start). Also `make check-slurm`.
exec bash "$(dirname "$0")/../slurm/run.sh"
