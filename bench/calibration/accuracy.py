#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""OpenPIM's modelled times against real-hardware PrIM runs: per-app errors,
and the host-transfer model replayed on recorded calls.

    bench/calibration/accuracy.py RESULTS.csv        errors of a prim_hw.py run
    bench/calibration/accuracy.py --replay BIN [--profile server=prim]
                                                     transfer times replayed on
                                                     data/prim-hw-calls.csv

RESULTS.csv: prim_hw.py's output (the table's rows with model_* columns).
--replay: xfer_replay (built from xfer_replay.c) recomputes every row's
CPU->DPU and DPU->CPU time from the calls prim_hw.py recorded for it, so the
transfer model can be checked against the hardware without PrIM (the CI test
and the report's model-accuracy section do).

Errors are modelled / measured - 1; an app's figure is the mean of its rows'
absolute errors (MAPE) and their signed mean.  Which calls make up each
column is PrIM's own timer layout (regions() below; prim_hw.py's module
comment lists it).
"""
import argparse
import csv
import json
import os
import subprocess
import sys
from collections import OrderedDict

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "data")
TRAIN = os.path.join(DATA, "prim-hw-train.csv")
CALLS = os.path.join(DATA, "prim-hw-calls.csv")
COLUMNS = (("kernel", "hw_kernel"), ("cpu_to_dpu", "hw_cpu_to_dpu"), ("dpu_to_cpu", "hw_dpu_to_cpu"))

csv.field_size_limit(1 << 24)


def read_csv(path):
    """Rows of a CSV whose '#' lines are comments."""
    with open(path, newline="") as f:
        return list(csv.DictReader(line for line in f if not line.startswith("#")))


def key(row):
    return (row["benchmark"], int(row["num_dpus"]), int(row["data_prep_param"]))


def tokens(calls):
    """[(token, count)] of a calls string."""
    out = []
    for t in calls.split(";"):
        tok, _, n = t.partition("*")
        out.append((tok, int(n) if n else 1))
    return out


def regions(app, toks):
    """The table column each call is timed in (PrIM's timers): 'cpu_to_dpu',
    'dpu_to_cpu', 'dpu_to_dpu', 'launch' or None (outside every timer)."""
    launches = [i for i, (t, _) in enumerate(toks) if t.startswith("L")]
    first, last = (launches[0], launches[-1]) if launches else (len(toks), len(toks))
    out = []
    if app == "TRNS":  # each round: step-1 pushes (timed), done array, arguments (untimed), retrieval
        new_round = True
        for t, _ in toks:
            if t.startswith("L"):
                out.append("launch")
            elif t.startswith("from"):
                out.append("dpu_to_cpu")
                new_round = True
            elif new_round and t.startswith("to:push:MRAM"):
                out.append("cpu_to_dpu")
                new_round = False
            else:
                out.append(None)
        return out
    for i, (t, _) in enumerate(toks):
        if t.startswith("L"):
            out.append("launch")
        elif i < first:
            out.append("cpu_to_dpu")
        elif i > last:
            out.append("dpu_to_cpu")
        elif app == "MLP":  # between layers: the next weights (the larger push) count as CPU-DPU
            group = [j for j in range(max(l for l in launches if l < i) + 1, min(l for l in launches if l > i))]
            to = [int(toks[j][0].split(":")[3]) for j in group if toks[j][0].startswith("to:")]
            big = t.startswith("to:") and len(to) > 1 and int(t.split(":")[3]) == max(to)
            out.append("cpu_to_dpu" if big else "dpu_to_dpu")
        else:
            out.append("dpu_to_dpu")
    return out


def replay(rows, binary, profile):
    """{row key: {column: ms}} of the transfer model on each row's recorded calls."""
    lines = [r["calls"] for r in rows]
    r = subprocess.run([binary, profile], input="\n".join(lines) + "\n", capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError("xfer_replay %s failed: %s" % (profile, r.stderr.strip()))
    out = {}
    for row, times in zip(rows, r.stdout.splitlines()):
        us = [float(x) for x in times.split()]
        toks = tokens(row["calls"])
        cols = {"cpu_to_dpu": 0.0, "dpu_to_cpu": 0.0, "dpu_to_dpu": 0.0, "launch": 0.0}
        for region, t in zip(regions(row["benchmark"], toks), us):
            if region:
                cols[region] += t / 1e3
        out[key(row)] = cols
    return out


def errors(pairs):
    """[(app, modelled, measured)] -> OrderedDict app -> (MAPE, signed mean, n), and the overall MAPE."""
    per = OrderedDict()
    for app, m, h in sorted(pairs):
        if h > 0:
            per.setdefault(app, []).append(m / h - 1)
    table = OrderedDict((a, (sum(abs(e) for e in v) / len(v), sum(v) / len(v), len(v))) for a, v in per.items())
    every = [abs(e) for v in per.values() for e in v]
    return table, (sum(every) / len(every) if every else float("nan"))


def result_pairs(rows, column):
    """(app, modelled, measured) of a column of prim_hw.py's results ('sim' = uPIMulator's kernel)."""
    if column == "sim":
        return [(r["benchmark"], float(r["sim_kernel"]), float(r["hw_kernel"])) for r in rows]
    hw = dict(COLUMNS)[column]
    return [(r["benchmark"], float(r["model_" + column]), float(r[hw])) for r in rows]


def print_table(title, cols):
    """cols: OrderedDict name -> (per-app table, overall)."""
    apps = sorted({a for t, _ in cols.values() for a in t})
    print(title)
    print("%-9s" % "app" + "".join("%22s" % n for n in cols))
    for a in apps:
        cells = []
        for t, _ in cols.values():
            cells.append("%9.1f%% (%+6.1f%%)" % (100 * t[a][0], 100 * t[a][1]) if a in t else "%22s" % "-")
        print("%-9s" % a + "".join("%22s" % c for c in cells))
    print("%-9s" % "all" + "".join("%21.1f%%" % (100 * o) for _, o in cols.values()))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("results", nargs="?", help="prim_hw.py output")
    ap.add_argument("--replay", metavar="XFER_REPLAY", help="replay data/prim-hw-calls.csv with this binary")
    ap.add_argument("--profile", default="server=prim")
    ap.add_argument("--json", action="store_true", help="one JSON object instead of the tables")
    a = ap.parse_args(argv)
    out = OrderedDict()
    if a.results:
        rows = read_csv(a.results)
        cols = OrderedDict()
        for c, _ in COLUMNS:
            cols[c] = errors(result_pairs(rows, c))
        cols["uPIMulator kernel"] = errors(result_pairs(rows, "sim"))
        out["results"] = cols
        if not a.json:
            print_table("MAPE (signed mean) per app, %d rows of %s" % (len(rows), a.results), cols)
    if a.replay:
        hw = {key(r): r for r in read_csv(TRAIN)}
        calls = read_csv(CALLS)
        model = replay(calls, a.replay, a.profile)
        cols = OrderedDict()
        for c in ("cpu_to_dpu", "dpu_to_cpu"):
            hwc = dict(COLUMNS)[c]
            cols[c] = errors([(k[0], model[k][c], float(hw[k][hwc])) for k in model])
        out["replay"] = cols
        if not a.json:
            print_table("transfer model replayed (%s), MAPE (signed mean) per app" % a.profile, cols)
    if a.json:
        json.dump(out, sys.stdout, indent=1)
        print()
    if not a.results and not a.replay:
        ap.error("give a results file, --replay, or both")


if __name__ == "__main__":
    main()
