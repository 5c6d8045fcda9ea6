#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Regenerates epyc-job.xml and epyc-job-lstopo.xml: a 2-package EPYC-like
# machine in NPS4 (4 NUMA nodes per package, 2 L3s of 4 cores x 2 PUs per
# node: 128 PUs, 8 nodes, 16 L3s), with ACPI SLIT-like latencies (10 own
# node, 11 the node beside it, 12 the package's other two, 32 the other
# package), as seen inside a batch job whose cgroup cpuset allows every CPU
# but only the memory of nodes 0, 3 and 4 (cpuset.mems 0,3-4).
#  epyc-job.xml: the whole machine with its allowed sets (hwloc
#    --disallowed, as shardrec loads this machine inside the job);
#  epyc-job-lstopo.xml: what a plain lstopo exports inside the job: the
#    disallowed nodes are gone, so 64 PUs have no node of their own.
# Usage: tests/data/gen-epyc-job.sh (from the repository root; needs hwloc's
# lstopo-no-graphics and hwloc-annotate)
set -eu
out=tests/data
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
lstopo-no-graphics --input "pack:2 group:4 [numa] l3:2 core:4 pu:2" --disallowed \
	--allow nodeset=0x19 --of xml -f "$tmp/whole.xml"
{
	echo 5 # HWLOC_DISTANCES_KIND_FROM_OS | HWLOC_DISTANCES_KIND_MEANS_LATENCY
	echo 8
	for i in 0 1 2 3 4 5 6 7; do echo "NUMANode:$i"; done
	for i in 0 1 2 3 4 5 6 7; do
		for j in 0 1 2 3 4 5 6 7; do
			if [ $i = $j ]; then echo 10
			elif [ $((i / 4)) != $((j / 4)) ]; then echo 32
			elif [ $((i / 2)) = $((j / 2)) ]; then echo 11
			else echo 12; fi
		done
	done
} >"$tmp/slit.txt"
hwloc-annotate "$tmp/whole.xml" "$out/epyc-job.xml" -- none -- distances "$tmp/slit.txt"
lstopo-no-graphics --input "$out/epyc-job.xml" --of xml -f "$out/epyc-job-lstopo.xml"
