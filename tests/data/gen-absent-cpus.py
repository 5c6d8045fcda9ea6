#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Regenerates absent-cpus.xml: a machine whose packages hold CPUs that do
not exist (issue #31; the shape of hwloc's 64intel64-3g2n+2n-irregulargroups
test, much smaller). 2 packages of 16 one-PU cores, one NUMA node and one L3
each: complete_cpuset 0-31 (what the kernel could bring online), but only
CPUs 0-4 (package 0) and 16-18 (package 1) have a PU object, as hwloc's Linux
backend shows offline CPUs. Package 0 sits in a Group and package 1 directly
under the Machine (irregular groups, like the UV2000 of hwloc's test).
CPU 18 exists but is outside the allowed cpuset (a cgroup's): unlike the
absent ones it is still recorded (HWLOC_TOPOLOGY_FLAG_INCLUDE_DISALLOWED).

Usage: tests/data/gen-absent-cpus.py > tests/data/absent-cpus.xml
"""
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

PRESENT = {0, 1, 2, 3, 4, 16, 17, 18}
DISALLOWED = {18}

with tempfile.NamedTemporaryFile(suffix=".xml") as f:
    subprocess.run(["lstopo-no-graphics", "--input", "pack:2 [numa] l3:1 core:16 pu:1",
                    "--of", "xml", "-f", f.name], check=True)
    tree = ET.parse(f.name)


def mask(cpus):
    """hwloc's bitmap syntax for CPUs below 32."""
    return "0x%08x" % sum(1 << c for c in cpus)


def cpus_of(obj):
    value = int(obj.get("complete_cpuset"), 16)
    return {c for c in range(32) if value >> c & 1}


def prune(obj):
    """Drops the absent cores; cpusets keep the present CPUs only."""
    for child in list(obj.findall("object")):
        if child.get("type") == "Core" and not cpus_of(child) & PRESENT:
            obj.remove(child)
        else:
            prune(child)
    obj.set("cpuset", mask(cpus_of(obj) & PRESENT))


root = tree.getroot().find("object")
for info in root.findall("info"):
    if info.get("name") in ("SyntheticDescription", "ProcessName"):
        root.remove(info)
prune(root)
root.set("allowed_cpuset", mask(PRESENT - DISALLOWED))
package0 = root.find("object")
assert package0.get("type") == "Package"
group = ET.Element("object", {k: package0.get(k) for k in (
    "type", "cpuset", "complete_cpuset", "nodeset", "complete_nodeset")})
group.set("type", "Group")
root.remove(package0)
group.append(package0)
root.insert(list(root).index(root.find("object")), group)

ET.indent(tree, "  ")
sys.stdout.write('<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE topology SYSTEM "hwloc2.dtd">\n')
tree.write(sys.stdout, encoding="unicode")
sys.stdout.write("\n")
