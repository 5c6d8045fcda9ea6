#!/usr/bin/env python3
"""The many-CPU guest bench's figures (bench/guest.sh, bench/README.md
"Many-CPU guest").

  guest_report.py rows VCPUS GUEST_TXT KEEP_DIR DATA_DIR
      runs.csv rows of one guest, to stdout: one per "run" line of GUEST_TXT
      (the guest's console, "GUEST: " stripped), its loss figures from
      DATA_DIR/NAME.host.json (the shipped output measured on the host) or,
      when that output did not come out, KEEP_DIR/NAME.loss.json (measured in
      the guest); ring high-water marks from the recorder's -v lines.
  guest_report.py report OUT
      OUT/results.md (per vCPU count: lost share, seed lost_time/elapsed,
      pressure) and the plot data OUT/loss.dat, OUT/metric.dat,
      OUT/plot.vars for bench/plot-guest.gnuplot. Rerunnable on runs.csv.
"""
import csv
import json
import os
import re
import sys
from collections import Counter, defaultdict

from benchlib import LOG_FLOOR, fmt, g6, loss_agg, med, num, pct, share_s, tools_in

COLS = ["vcpus", "row", "mmap", "tool", "rep", "order", "rc", "wall_s", "rec_s", "truth", "samples",
        "lost", "lost_share", "loss_metric", "lost_records", "lost_time_s", "elapsed_s", "data_bytes",
        "out_bytes", "writers", "hw_pct", "hw_full", "measured", "guest_lost_share"]
# The column names.
HEAD = {"perf": "perf", "perf-threads": "perf --threads", "perf-threads-numa": "perf --threads=numa",
        "perf-r1-threads": "perf -r 1 --threads", "shardrec": "shardrec (default)",
        "shardrec-r0": "shardrec -r 0", "shardrec-cpu": "shardrec --threads=cpu",
        "perf-aio": "perf --aio", "perf-z": "perf -z"}
ROWS = ["sched", "seed", "cpu"]
ROW_DESC = {
    "sched": "context-switch storm: `perf bench sched messaging -p -g G` (G = vCPUs/8, at least 4) "
             "for S s; `-e cs -c 1`",
    "seed": "the seed command line on `matrix -t <vcpus> -s S`: `-N -B -T -R -g --call-graph dwarf,1024 "
            "--user-regs=IP,SP,BP --switch-events -e cpu-clock,task-clock,"
            "software/period=1,name=cs,config=0x3/Duk` (no PMU)",
    "cpu": "`cpuwork` (a thread per vCPU) for S s; `-e cpu-clock -F max -g` "
           "(max: kernel.perf_event_max_sample_rate at boot, pinned before every run)",
}
HW_RE = re.compile(r"^shardrec: high-water of writer \d+: ring of cpu \d+ (\d+)% full")
WRITER_RE = re.compile(r"^shardrec: writer \d+: node")


def mmap_key(m):
    return (1, 0) if m == "default" else (0, num(m) or 0)


def rows_of(vcpus, guest_txt, keep, data):
    w = csv.DictWriter(sys.stdout, COLS, extrasaction="ignore")
    for line in open(guest_txt, errors="replace"):
        if not line.startswith("run "):
            continue
        f = dict(kv.split("=", 1) for kv in line.split()[1:] if "=" in kv)
        name = f"{f['row']}-m{f['mmap']}-{f['tool']}-r{f['rep']}"
        r = {k: f.get(k, "") for k in ("row", "mmap", "tool", "rep", "order", "rc", "wall_s",
                                       "rec_s", "truth")}
        r["vcpus"] = vcpus
        r["guest_lost_share"] = f.get("lost_share", "")
        if f.get("row") not in ("sched",):
            r["truth"] = ""
        loss = None
        for path, where in ((os.path.join(data, name + ".host.json"), "host"),
                            (os.path.join(keep, name + ".loss.json"), "guest")):
            try:
                loss = json.load(open(path))[0]
                r["measured"] = where
                break
            except (OSError, ValueError, IndexError):
                pass
        if loss:
            r.update({k: loss.get(k, "") for k in ("samples", "lost", "lost_share", "loss_metric",
                                                   "lost_records", "lost_time_s", "elapsed_s",
                                                   "data_bytes")})
        elif r["rc"] == "0":
            r["rc"] = "99"  # no loss figures at all
        r["out_bytes"] = f.get("bytes", "")
        hws = []
        nw = 0
        for p in (os.path.join(data, name + ".err"), os.path.join(keep, name + ".err")):
            if os.path.exists(p):
                for ln in open(p, errors="replace"):
                    m = HW_RE.match(ln)
                    if m:
                        hws.append(int(m.group(1)))
                    elif WRITER_RE.match(ln):
                        nw += 1
                break
        if hws:
            r.update(hw_pct=max(hws), hw_full=sum(1 for h in hws if h >= 90), writers=nw)
        w.writerow(r)


def report(out):
    rows = list(csv.DictReader(open(os.path.join(out, "runs.csv"))))
    groups = defaultdict(list)
    for r in rows:
        groups[(int(r["vcpus"]), r["row"], r["mmap"], r["tool"])].append(r)
    vcpus = sorted({k[0] for k in groups})
    scen = sorted({(k[1], k[2]) for k in groups},
                  key=lambda s: (ROWS.index(s[0]) if s[0] in ROWS else 9, mmap_key(s[1])))
    tools = tools_in(k[3] for k in groups)

    def agg(v, row, m, t):
        all_rs = groups.get((v, row, m, t), [])
        rs = [r for r in all_rs if r["rc"] == "0" and r["lost_share"] != ""]
        if not rs:
            return None
        a = loss_agg(rs)
        a["failed"] = len(all_rs) - len(rs)
        a["hw"] = med(num(r["hw_pct"]) for r in rs)
        a["hw_full"] = med(num(r["hw_full"]) for r in rs)
        a["writers"] = med(num(r["writers"]) for r in rs)
        a["mbps"] = med(num(r["data_bytes"]) / 1e6 / num(r["elapsed_s"])
                        for r in rs if num(r["data_bytes"]) and num(r["elapsed_s"]))
        a["ratio"] = med(num(r["samples"]) / num(r["truth"]) for r in rs if num(r["truth"]))
        a["guest"] = sum(1 for r in rs if r["measured"] == "guest")
        # The guest's own figure against the host's, for the same file.
        a["mismatch"] = sum(1 for r in rs if r["measured"] == "host" and r["guest_lost_share"] != ""
                            and abs(num(r["guest_lost_share"]) - num(r["lost_share"])) > 1e-6)
        return a

    res = {(v, row, m, t): agg(v, row, m, t) for v in vcpus for row, m in scen for t in tools}
    P = []
    machine = open(os.path.join(out, "machine.txt")).read().strip()
    cmd = next((ln[len("command: "):] for ln in machine.splitlines() if ln.startswith("command: ")), "")
    P.append("# shardrec vs perf record in many-CPU guests\n")
    P.append(f"Generated by `bench/guest.sh` (bench/README.md, \"Many-CPU guest\"):\n\n    {cmd}\n")
    P.append("Machine:\n\n```\n" + machine + "\n```\n")
    P.append("**share** = lost samples / (samples + lost samples), median over the repeats "
             "(min-max when more than one); for the seed row also **lt/el** = lost_time / elapsed "
             "(the seed's metric). Every output is measured by `shardrec loss` "
             "(recorder/loss/loss.h) on the host after it was shipped out of the guest; a cell "
             "marked `g` was measured in the guest (its output did not come out). "
             "Row descriptions:\n")
    for row in ROWS:
        if any(s[0] == row for s in scen):
            P.append(f"- **{row}**: {ROW_DESC[row]}")
    P.append("")
    nruns = len(rows)
    failed = [r for r in rows if r["rc"] != "0"]
    guest_measured = sum(1 for r in rows if r["measured"] == "guest")
    # rc: the recorder's exit, 97 never recording, 98/99 no loss figures,
    # 137 killed past RUN_LIMIT, "stall" the guest hung in it (guest.sh)
    rcs = ", ".join(f"rc {rc} x{n}" for rc, n in sorted(Counter(r["rc"] for r in failed).items()))
    P.append(f"Recordings: {nruns}, {len(failed)} failed (not in the tables{': ' + rcs if rcs else ''}), "
             f"{guest_measured} measured in the guest only.\n")

    def cell(a, seed, ran):
        if not a:
            return "failed" if ran else "not run"
        s = share_s(a)
        if seed:
            s += f"; lt/el {fmt(pct(a['metric']), '{:.3f}%')}"
        if a["guest"]:
            s += " g"
        if a["failed"]:
            s += f" ({a['failed']} failed)"
        return s

    def press(a, t):
        if not a:
            return "-"
        s = f"{fmt(a['lost_records'], '{:.0f}')} LOST"
        if t.startswith("shardrec") and a["hw"] is not None:
            s += f"; hw {a['hw']:.0f}% ({a['hw_full']:.0f}/{a['writers']:.0f})"
        return s

    for v in vcpus:
        P.append(f"## {v} vCPUs (4 nodes of {v // 4})\n")
        P.append("Lost-sample share (seed: and lost_time / elapsed):\n")
        P.append("| row | -m | " + " | ".join(HEAD.get(t, t) for t in tools) + " |")
        P.append("|---|---|" + "---:|" * len(tools))
        for row, m in scen:
            P.append(f"| {row} | {m} | "
                     + " | ".join(cell(res[(v, row, m, t)], row == "seed", (v, row, m, t) in groups) for t in tools) + " |")
        P.append("")
        P.append("Pressure: LOST records (median); for shardrec also its fullest ring's high-water "
                 "mark (`-v`; the median over repeats of the fullest of all writers) and how many "
                 "writers had a ring at >= 90% / writers. perf has no high-water figure: its LOST "
                 "records, at the same -m and data rate, are the pressure it shows.\n")
        P.append("| row | -m | " + " | ".join(HEAD.get(t, t) for t in tools) + " |")
        P.append("|---|---|" + "---:|" * len(tools))
        for row, m in scen:
            P.append(f"| {row} | {m} | " + " | ".join(press(res[(v, row, m, t)], t) for t in tools) + " |")
        P.append("")
        P.append("Captured: samples (median), MB/s of records written (data bytes / elapsed), "
                 "and for sched samples / context switches counted by /proc/stat over the window:\n")
        P.append("| row | -m | " + " | ".join(HEAD.get(t, t) for t in tools) + " |")
        P.append("|---|---|" + "---:|" * len(tools))
        for row, m in scen:
            cs = []
            for t in tools:
                a = res[(v, row, m, t)]
                if not a:
                    cs.append("-")
                    continue
                c = f"{fmt(a['samples'], '{:.0f}')}, {fmt(a['mbps'], '{:.1f}')} MB/s"
                if a["ratio"] is not None:
                    c += f", {a['ratio']:.3f}"
                cs.append(c)
            P.append(f"| {row} | {m} | " + " | ".join(cs) + " |")
        P.append("")
        mism = sum(a["mismatch"] for a in res.values() if a)
        if mism:
            P.append(f"**{mism} recordings measured differently in the guest and on the host.**\n")
    open(os.path.join(out, "results.md"), "w").write("\n".join(P) + "\n")

    # ---- plot data: a block per (row, -m), x = vCPUs, a column per tool ----
    def write_dat(name, key, rows):
        """One gnuplot block per (row, -m) of @rows: x = vCPUs, a column per tool, @key's figure."""
        names = []
        with open(os.path.join(out, name), "w") as f:
            for row, m in rows:
                f.write("vcpus " + " ".join(f'"{HEAD.get(t, t)}"' for t in tools) + "\n")
                for v in vcpus:
                    f.write(f"{v} " + " ".join(g6(res[(v, row, m, t)] and res[(v, row, m, t)][key],
                                                  100, LOG_FLOOR) for t in tools) + "\n")
                f.write("\n\n")
                names.append(f"{row}, -m {m}")
        return names

    blocks = write_dat("loss.dat", "share", scen)
    mblocks = write_dat("metric.dat", "metric", [(r, m) for r, m in scen if r == "seed"])
    ncols = max(1, len({m for _, m in scen}))
    with open(os.path.join(out, "plot.vars"), "w") as f:
        f.write(f'nblocks = {len(blocks)}\nnmetric = {len(mblocks)}\nntools = {len(tools)}\n'
                f'nperf = {sum(1 for t in tools if t.startswith("perf"))}\nncols = {ncols}\n'
                f'xtics = "{" ".join(str(v) for v in vcpus)}"\n')
        for i, b in enumerate(blocks):
            f.write(f'block_{i} = "{b}"\n')
        for i, b in enumerate(mblocks):
            f.write(f'mblock_{i} = "{b}"\n')
    print(open(os.path.join(out, "results.md")).read())


if __name__ == "__main__":
    if len(sys.argv) == 6 and sys.argv[1] == "rows":
        rows_of(*sys.argv[2:])
    elif len(sys.argv) == 3 and sys.argv[1] == "report":
        report(sys.argv[2])
    else:
        sys.exit(__doc__)
