#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Regenerates knl-snc4.xml: a Xeon Phi 7250-like Knights Landing in SNC-4
flat mode, 4 clusters x 17 cores x 4 PUs (272 PUs, OS numbering like Linux:
cpu = thread * 68 + core), each cluster with its DDR node (0-3, has CPUs) and
its MCDRAM node (4-7, CPU-less). hwloc's synthetic strings cannot say which
memory child is CPU-less, so the synthetic export is edited here the way
hwloc's Linux backend describes a real KNL (MCDRAM subtype, Cluster groups).

Usage: tests/data/gen-knl-snc4.py > tests/data/knl-snc4.xml
"""
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

GROUPS, CORES, THREADS = 4, 17, 4
idx = ",".join(str(t * GROUPS * CORES + g * CORES + c)
               for g in range(GROUPS) for c in range(CORES) for t in range(THREADS))
synthetic = ("pack:1 group:%d [numa(memory=25769803776)] [numa(memory=4294967296)] "
             "l2:%d(size=1048576) core:1 pu:%d(indexes=%s)" % (GROUPS, CORES, THREADS, idx))

with tempfile.NamedTemporaryFile(suffix=".xml") as f:
    subprocess.run(["lstopo-no-graphics", "--input", synthetic, "--of", "xml", "-f", f.name],
                   check=True)
    tree = ET.parse(f.name)


def set_nodeset(obj, mask):
    obj.set("nodeset", "0x%08x" % mask)
    obj.set("complete_nodeset", "0x%08x" % mask)


def walk(obj, mask):
    for child in obj.findall("object"):
        set_nodeset(child, mask)
        walk(child, mask)


root = tree.getroot().find("object")
for info in root.findall("info"):
    if info.get("name") in ("SyntheticDescription", "ProcessName"):
        root.remove(info)
package = root.find("object")
for g, group in enumerate(package.findall("object")):
    assert group.get("type") == "Group"
    group.set("subtype", "Cluster")
    mask = (1 << g) | (1 << (GROUPS + g))
    set_nodeset(group, mask)
    walk(group, mask)
    nodes = [o for o in group.findall("object") if o.get("type") == "NUMANode"]
    for n, node in enumerate(nodes):
        os_index = g + n * GROUPS
        node.set("os_index", str(os_index))
        set_nodeset(node, 1 << os_index)
        if n:
            node.set("subtype", "MCDRAM")

ET.indent(tree, "  ")
sys.stdout.write('<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE topology SYSTEM "hwloc2.dtd">\n')
tree.write(sys.stdout, encoding="unicode")
sys.stdout.write("\n")
