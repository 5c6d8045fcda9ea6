"""Helpers of the bench reports, one home for bench/report.py (host bench)
and bench/guest_report.py (many-CPU guest bench): tool names, medians,
formatting, and the loss figures of `shardrec loss --json` rows."""
import statistics

# Every tool of bench/lib.sh's recorder(), in table order.
TOOLS = ["perf", "perf-aio", "perf-threads", "perf-threads-numa", "perf-r1-threads", "perf-z",
         "shardrec", "shardrec-r0", "shardrec-cpu"]
LOG_FLOOR = 0.001    # % : the plots' log axes draw smaller shares (and 0) here


def tools_in(names):
    """The tools among @names, in table order: TOOLS's, then the experiments
    (bench/lib.sh: shardrec-capN, shardrec-wakeN, ...) by name, a trailing
    number by its value (wake2 before wake16)."""
    def natural(t):
        stem = t.rstrip("0123456789")
        return (stem, int(t[len(stem):]) if len(stem) < len(t) else -1)
    names = set(names)
    return [t for t in TOOLS if t in names] + sorted(names - set(TOOLS), key=natural)


def num(v):
    try:
        return float(v)
    except (TypeError, ValueError):
        return None


def med(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def lo(xs):
    xs = [x for x in xs if x is not None]
    return min(xs) if xs else None


def hi(xs):
    xs = [x for x in xs if x is not None]
    return max(xs) if xs else None


def pct(v):
    return None if v is None else 100 * v


def fmt(v, f="{:.3f}", none="-"):
    return none if v is None else f.format(v)


def g6(v, scale=1, floor=None):
    """A plot data value: NaN for none, else scaled and floored."""
    if v is None:
        return "NaN"
    v *= scale
    return f"{max(v, floor) if floor is not None else v:.6g}"


def loss_agg(rs):
    """Medians of the loss columns of runs.csv rows (the fields of
    `shardrec loss --json`), with the min-max of the lost share."""
    share = [num(r["lost_share"]) for r in rs]
    return dict(n=len(rs), samples=med(num(r["samples"]) for r in rs),
                lost=med(num(r["lost"]) for r in rs), share=med(share),
                share_min=lo(share), share_max=hi(share),
                metric=med(num(r["loss_metric"]) for r in rs),
                lost_records=med(num(r["lost_records"]) for r in rs))


def share_s(a):
    """median (min-max) of the lost share, in %"""
    if not a or a["share"] is None:
        return "-"
    s = f"{pct(a['share']):.3f}%"
    if a["n"] > 1:
        s += f" ({pct(a['share_min']):.3f}-{pct(a['share_max']):.3f})"
    return s
