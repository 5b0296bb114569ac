#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Summary of bench/pidcomm_apps/run_graph.sh's CSV files beside PID-Comm's
published statements ([PIDComm] §VIII-C, F, G).  Also imported by
workloads/gnn/report_section.py, which builds the report's tables from the
same functions.

    python3 bench/pidcomm_apps/graph_summary.py OUT_DIR
"""
import csv
import math
import os
import sys

APPS = ["gnn_rsar", "gnn_arag", "bfs", "cc"]
LABEL = {"gnn_rsar": "GNN RS&AR", "gnn_arag": "GNN AR&AG", "bfs": "BFS", "cc": "CC"}
PHASES = ["kernel", "reduce_scatter", "allreduce", "allgather", "scatter", "gather", "broadcast", "other"]


def read(path):
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return list(csv.DictReader(f))


def load(out):
    """(main rows, breakdown rows, Fig. 22 rows, Fig. 22 breakdown rows)"""
    return tuple(read(os.path.join(out, n)) for n in
                 ("graph_apps.csv", "graph_breakdown.csv", "graph_fig22.csv", "graph_fig22_breakdown.csv"))


def geomean(xs):
    xs = [x for x in xs if x > 0]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def table(rows):
    """{(app, impl, pes, dtype): row with floats}"""
    t = {}
    for r in rows:
        k = (r["app"], r["variant"], int(r["pes"]), r["dtype"])
        t[k] = {c: float(r[c]) for c in ("total_us", "kernel_us", "comm_us", "host_us", "cpu_us")}
    return t


def largest_pes(rows, app):
    ps = [int(r["pes"]) for r in rows if r["app"] == app]
    return max(ps) if ps else None


def speedups(rows, pes=None):
    """Fig. 15: {app: baseline total / optimised total} at `pes` (default: each app's largest)."""
    t = table(rows)
    s = {}
    for app in APPS:
        p = pes or largest_pes(rows, app)
        ks = [k for k in t if k[0] == app and k[2] == p]
        dt = ks[0][3] if ks else None
        b, o = t.get((app, "baseline", p, dt)), t.get((app, "optimised", p, dt))
        if b and o:
            s[app] = b["total_us"] / o["total_us"]
    return s


def breakdown(bd, pes=None):
    """Fig. 13: {(app, impl): {phase: us}} at each app's largest PE count."""
    res = {}
    for app in APPS:
        p = pes or largest_pes(bd, app)
        for r in bd:
            if r["app"] == app and int(r["pes"]) == p:
                res.setdefault((app, r["variant"]), {})[r["phase"]] = float(r["us"])
    return res


def family(app):
    """GNN RS&AR and AR&AG compute the same output with the same CPU reference."""
    return "gnn" if app.startswith("gnn") else app


def cpu_time(rows):
    """{(app, dtype): the CPU reference's best time over all runs of that computation} (the reference does
    not depend on the PEs, the implementation or the GNN variant: one denominator for all their points)"""
    t = table(rows)
    best = {}
    for (app, impl, pes, dt), v in t.items():
        k = (family(app), dt)
        best[k] = min(best.get(k, v["cpu_us"]), v["cpu_us"])
    return {(app, dt): best[(family(app), dt)] for (app, impl, pes, dt) in t}


def vs_cpu(rows):
    """Fig. 21: {(app, impl, pes): CPU time / PIM total}"""
    cpu = cpu_time(rows)
    return {(k[0], k[1], k[2]): cpu[(k[0], k[3])] / v["total_us"] for k, v in table(rows).items()}


def fig22(rows22):
    """{(app, dtype): {impl: total_us, ...}} and per (app, dtype) speedup over the baseline"""
    t = table(rows22)
    res = {}
    for (app, impl, pes, dt), v in t.items():
        res.setdefault((app, dt), {})[impl] = v
    return res


def main(out):
    rows, bd, r22, bd22 = load(out)
    if not rows:
        sys.exit("no %s/graph_apps.csv" % out)
    s = speedups(rows)
    print("\nFig. 15: speedup of the optimised collectives over the baseline (modelled, largest PE count)")
    for app in APPS:
        if app in s:
            print("  %-10s %5.2fx  (%d PEs)" % (LABEL[app], s[app], largest_pes(rows, app)))
    print("  geomean    %5.2fx   (PID-Comm: 1.20x-3.99x over five apps, geomean 1.99x)" % geomean(s.values()))
    print("\nFig. 13: breakdown, % of the baseline's total (largest PE count)")
    b = breakdown(bd)
    print("  %-10s %-9s %8s " % ("app", "impl", "total") + " ".join("%8s" % p[:8] for p in PHASES))
    for app in APPS:
        base = sum(b.get((app, "baseline"), {}).values())
        for impl in ("baseline", "optimised"):
            ph = b.get((app, impl))
            if ph and base:
                print("  %-10s %-9s %7.1f%% " % (LABEL[app], impl, 100 * sum(ph.values()) / base) +
                      " ".join("%7.1f%%" % (100 * ph.get(p, 0) / base) for p in PHASES))
    print("\nFig. 21: speedup over the CPU reference (CPU time on this host, one thread, best of all runs of the app"
          " / modelled PIM time)")
    for (app, dt), us in sorted(cpu_time(rows).items()):
        print("  CPU reference %-10s %-6s %10.0f us" % (LABEL[app], dt, us))
    v = vs_cpu(rows)
    for app in APPS:
        for impl in ("baseline", "optimised"):
            pts = sorted((p, x) for (a, i, p), x in v.items() if a == app and i == impl)
            if pts:
                print("  %-10s %-9s " % (LABEL[app], impl) + "  ".join("%d:%.2fx" % pt for pt in pts))
    for impl in ("baseline", "optimised"):
        print("  geomean %-9s %.2fx over all points   (PID-Comm: baseline 2.27x, PID-Comm 4.07x)" %
              (impl, geomean([x for (a, i, p), x in v.items() if i == impl])))
    if r22:
        print("\nFig. 22: int8 against int32 GNN (modelled us; speedup over the baseline)")
        f = fig22(r22)
        sp = {}
        for (app, dt), d in sorted(f.items()):
            if "baseline" in d and "optimised" in d:
                sp[(app, dt)] = d["baseline"]["total_us"] / d["optimised"]["total_us"]
                print("  %-10s %-5s baseline %9.0f  optimised %9.0f  (comm %8.0f -> %8.0f)  %.2fx" %
                      (LABEL[app], dt, d["baseline"]["total_us"], d["optimised"]["total_us"],
                       d["baseline"]["comm_us"], d["optimised"]["comm_us"], sp[(app, dt)]))
        for dt in ("int8", "int32"):
            print("  geomean %-5s %.2fx   (PID-Comm: int8 GNNs 1.64x)" %
                  (dt, geomean([x for (a, d), x in sp.items() if d == dt])))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
