#!/usr/bin/env python3
"""tests/qemu/aux-oracle.sh's checks: shardrec's Intel PT events against
perf 6.1's, from attrshim.so's logs and `perf evlist -v` of both files.

  aux_oracle.py CASES GUEST_TXT OUT_DIR

Prints a line per case and every difference; exit 1 if any.
"""
import os
import sys

# Attr fields allowed to differ: the pid (another process), and shardrec's
# writer wake-up at a quarter ring (watermark, wakeup_events: doc/design.md).
IGNORED = {"pid", "watermark", "wakeup_events"}
TASK_CASES = {"w", "user"}


def log(path):
    """attrshim's lines as dicts: perf_event_open attrs and mmap sizes."""
    return [dict(kv.split("=", 1) for kv in line.split()) for line in open(path)]


def opens(path):
    """CPU 0's perf_event_open attrs from the first of the fake PMU (type 8) on."""
    res, on = [], False
    for f in log(path):
        if "ring" in f:
            continue
        on = on or f.get("type") == "0x8"
        if on and f.get("cpu") == "0":
            res.append({k: v for k, v in f.items() if k not in IGNORED})
    return res


def sizes(path):
    """The first data ring's and AUX area's mmap lengths (bytes). A page
    alone at offset 0 is a control page without a ring (shardrec's probe
    of the perf clock)."""
    first = {}
    for f in log(path):
        if "ring" in f and (f["ring"] == "aux" or int(f["len"], 16) > 4096):
            first.setdefault(f["ring"], int(f["len"], 16))
    return first.get("data"), first.get("aux")


def names(path):
    """The events of a file, as perf evlist -v names them."""
    return [line.split(": type: ", 1)[0] for line in open(path, errors="replace")
            if ": type: " in line]


def info(path):
    """AUXTRACE_INFO's fields as perf report -D prints them, without the
    record's own offset and size line."""
    res = []
    for line in open(path, errors="replace"):
        if not line.strip() and res:
            break  # the record's dump ends; what follows is report's tally
        if line.startswith("  ") and line.strip():
            res.append(line.strip())
    return res


def diff(a, b):
    return {k: (a.get(k), b.get(k)) for k in sorted(set(a) | set(b)) if a.get(k) != b.get(k)}


def main(cases, guest_txt, out):
    guest = set(open(guest_txt).read().splitlines())
    bad = 0
    ps = (None, None)
    for line in open(cases):
        name, args = line.rstrip("\n").split("|", 1)
        errs = []
        for tool in ("perf", "shardrec"):
            if f"{name} {tool} record exit 0" not in guest:
                errs.append(f"{tool} record failed: "
                            + open(os.path.join(out, f"{name}.{tool}.rec")).read()[-300:])
        for what in ("report", "script"):
            text = open(os.path.join(out, f"{name}.{what}"), errors="replace").read()
            if f"{name} {what} exit 0" not in guest or "arning" in text:
                errs.append(f"perf {what} of shardrec's file: {text[-300:]}")
        if not errs:
            pn = names(os.path.join(out, f"{name}.perf.evlist"))
            sn = names(os.path.join(out, f"{name}.shardrec.evlist"))
            po = opens(os.path.join(out, f"{name}.perf.attrs"))[:len(pn)]
            so = opens(os.path.join(out, f"{name}.shardrec.attrs"))[:len(sn)]
            if name in TASK_CASES:
                # perf: the AUX event, its system-wide switch dummy, the tracking
                # dummy (, text_poke); shardrec: the AUX event, the tracking dummy.
                if sn != ["intel_pt//" if args.endswith("//") else "intel_pt//u", "dummy:u"]:
                    errs.append(f"events {sn}")
                elif not po or not so or diff(po[0], so[0]):
                    errs.append(f"the AUX event differs (perf, shardrec): {diff(po[0], so[0])}")
                elif so[1].get("context_switch") != "0x1" or so[1].get("mmap") != "0x1":
                    errs.append(f"the tracking dummy has no switch or mmap records: {so[1]}")
            elif pn != sn:
                errs.append(f"events: perf {pn}, shardrec {sn}")
            elif len(po) != len(pn) or len(so) != len(sn):
                errs.append(f"opens on CPU 0: perf {len(po)}, shardrec {len(so)}")
            else:
                for i, (a, b) in enumerate(zip(po, so)):
                    if diff(a, b):
                        errs.append(f"event {i} ({pn[i]}) differs (perf, shardrec): {diff(a, b)}")
        if not errs:
            ps = sizes(os.path.join(out, f"{name}.perf.attrs"))
            ss = sizes(os.path.join(out, f"{name}.shardrec.attrs"))
            if None in ps or ps != ss:
                errs.append(f"ring and AUX area bytes (perf, shardrec): {ps}, {ss}")
        if not errs:
            pi = info(os.path.join(out, f"{name}.perf.info"))
            si = info(os.path.join(out, f"{name}.shardrec.info"))
            if name in TASK_CASES:
                # perf's switch dummy is CPU-wide (3), shardrec's per task (2)
                pi = [x for x in pi if not x.startswith("Have sched_switch")]
                si = [x for x in si if not x.startswith("Have sched_switch")]
            if not pi or pi != si:
                errs.append("AUXTRACE_INFO differs (perf, shardrec): "
                            f"{[(a, b) for a, b in zip(pi, si) if a != b] or (len(pi), len(si))}")
        said = f" (ring {ps[0]} B, AUX area {ps[1]} B)" if not errs else ""
        print(f"{'ok ' if not errs else 'BAD'} {name}: record {args}{said}")
        for e in errs:
            print(f"    {e}")
        bad += bool(errs)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:4]))
