#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Runs PrIM (CMU-SAFARI/prim-benchmarks, a checkout the user provides) on
OpenPIM for every row of a real-hardware table and writes OpenPIM's modelled
times beside the measured ones.

    bench/calibration/prim_hw.py --prim DIR [--build BUILD] [--rows CSV]
                                 [--profile server=prim] [--out CSV] [--apps VA,RED]

DIR: a PrIM checkout (or $OPENPIM_PRIM_DIR).  Nothing of PrIM is copied into
this repository: each app is copied into a scratch folder (--work, default a
temporary one), built there against this build's SDK (build/sdk/upmem_env.sh)
and run with OPENPIM_VIRTUAL_CLOCK=1, so that PrIM's own timers print modelled
times.  Rows: bench/calibration/data/prim-hw-train.csv by default (the
columns are described in bench/calibration/data/README.md).

How a row is run (the measurement's settings, data/README.md): 16 tasklets,
BL=10, -w 0 -e 1, strong scaling where the app has it, app options below.
How PrIM's timers map to the table's columns:
  kernel      every dpu_launch (SCAN-*: both kernels, TRNS: steps 2 and 3 of
              every round, MLP: the 3 layers), from the run's modelled trace:
              PrIM's timers restart at each call of a repetition's first
              round, so MLP's prints only the last layer
  cpu_to_dpu  "CPU-DPU" (TRNS: step 1); MLP: its first pushes and the weights
              pushed between layers (from the trace)
  dpu_to_cpu  "DPU-CPU"; RED: its "Inter-DPU"; SEL/UNI: "Inter-DPU" + "DPU-CPU"
  dpu_to_dpu  SCAN-*: "Inter-DPU (Scan)"; MLP: the other transfers between
              launches (C read back, pushed again as B; from the trace)

Output CSV: the input columns, then model_kernel, model_cpu_to_dpu,
model_dpu_to_cpu, model_dpu_to_dpu (ms) and `calls`: the row's host transfer
calls in run order, ';'-separated "dir:kind:target:bytes_per_dpu:dpus"
(dir to/from, kind push/broadcast/copy, target MRAM/WRAM) with "L:dpus" for
each launch and TOKEN*n for a run of n equal calls, so that the transfer model can be replayed without PrIM
(bench/calibration/accuracy.py).
"""
import argparse
import csv
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
DEFAULT_ROWS = os.path.join(HERE, "data", "prim-hw-train.csv")

COMMON_RUN = ["-w", "0", "-e", "1"]


def _strong(p):
    return ["-x", "1", "-i", str(p)]


# app -> (make variables, run arguments from P, source edits {file: (pattern, replacement)})
APPS = {
    "VA": ({}, _strong, {}),
    "RED": ({"VERSION": "SINGLE"}, _strong, {}),
    "SEL": ({}, _strong, {}),
    "UNI": ({}, _strong, {}),
    "SCAN-SSA": ({}, _strong, {}),
    "SCAN-RSS": ({}, _strong, {}),
    "HST-S": ({}, lambda p: _strong(p) + ["-b", "256"], {}),
    "HST-L": ({}, lambda p: _strong(p) + ["-b", "256"], {}),
    # BS: a sorted array of P int64 (INPUT_SIZE of support/common.h), P/8 queries
    "BS": ({}, lambda p: ["-i", str(p // 8)],
           {"support/common.h": (r"#define INPUT_SIZE \d+", "#define INPUT_SIZE {P}")}),
    "GEMV": ({}, lambda p: ["-m", str(p), "-n", "64"], {}),
    "MLP": ({}, lambda p: ["-m", str(p), "-n", str(p)], {}),
    "TS": ({}, lambda p: ["-n", str(p), "-m", "64"], {}),
    "TRNS": ({}, lambda p: ["-x", "1", "-p", "64", "-n", "8", "-o", str(p), "-m", "4"], {}),
}

TIMER = re.compile(r"([A-Za-z][A-Za-z0-9 ()\-]*?)\s*(?:Time \(ms\):\s*)+([0-9.]+)")


def parse_timers(text):
    """{label: ms} of PrIM's 'LABEL Time (ms): X' prints."""
    out = {}
    for label, ms in TIMER.findall(text):
        label = label.strip()
        out[label] = out.get(label, 0.0) + float(ms)
    return out


def parse_trace(path):
    """Host transfer calls and launches of an OPENPIM_TRACE file, in order:
    [(kind, dur_ms, dict)], kind 'xfer' or 'launch'."""
    with open(path) as f:
        events = json.load(f)["traceEvents"]
    out = []
    name_re = re.compile(r"(to|from) (push|broadcast|copy|view) (\d+) B x (\d+) DPUs \((MRAM|WRAM)\)")
    seen = set()
    for e in sorted((e for e in events if e.get("ph") == "X"), key=lambda e: e["ts"]):
        if (e["ts"], e["name"]) in seen:  # a call on several ranks has an event on each rank's track
            continue
        seen.add((e["ts"], e["name"]))
        m = name_re.fullmatch(e["name"])
        if m:
            out.append(("xfer", e["dur"] / 1e3, {"dir": m.group(1), "kind": m.group(2), "bytes": int(m.group(3)),
                                                 "dpus": int(m.group(4)), "target": m.group(5)}))
        elif e["name"].startswith("launch"):
            m = re.fullmatch(r"launch (\d+) DPUs", e["name"])
            out.append(("launch", e["dur"] / 1e3, {"dpus": int(m.group(1)) if m else 0}))
    return out


def calls_text(trace):
    """The calls as tokens, a run of n equal ones written TOKEN*n."""
    runs = []
    for kind, _, d in trace:
        tok = "L:%d" % d["dpus"] if kind == "launch" else "%s:%s:%s:%d:%d" % (d["dir"], d["kind"], d["target"], d["bytes"],
                                                               d["dpus"])
        if runs and runs[-1][0] == tok:
            runs[-1][1] += 1
        else:
            runs.append([tok, 1])
    return ";".join(t if n == 1 else "%s*%d" % (t, n) for t, n in runs)


def mlp_split(trace):
    """MLP's host transfers from the trace: (before the first launch + the
    weights pushed between launches, the rest between launches), in ms.
    Between two launches the host reads C, pushes it back as B (one vector)
    and pushes the next layer's weights (the larger push)."""
    before, weights, exchange = 0.0, 0.0, 0.0
    launches = [i for i, e in enumerate(trace) if e[0] == "launch"]
    if not launches:
        return 0.0, 0.0
    before = sum(ms for kind, ms, _ in trace[:launches[0]] if kind == "xfer")
    for a, b in zip(launches, launches[1:]):
        group = trace[a + 1:b]
        to = [(d["bytes"], ms) for kind, ms, d in group if kind == "xfer" and d["dir"] == "to"]
        big = max((n for n, _ in to), default=0)
        for kind, ms, d in group:
            if kind != "xfer":
                continue
            if d["dir"] == "to" and d["bytes"] == big and len(to) > 1:
                weights += ms
            else:
                exchange += ms
    return before + weights, exchange


def columns(app, timers, trace):
    """The table's four columns from one run's timers (see the module doc)."""
    def t(label):
        return timers.get(label, 0.0)
    kernel = sum(ms for kind, ms, _ in trace if kind == "launch")
    cpu = t("CPU-DPU") + t("CPU-DPU (Step 1)")
    back = t("DPU-CPU")
    d2d = 0.0
    if app == "RED":
        back = t("Inter-DPU")
    elif app in ("SEL", "UNI"):
        back = t("Inter-DPU") + t("DPU-CPU")
    elif app.startswith("SCAN"):
        d2d = t("Inter-DPU (Scan)")
    elif app == "MLP":  # its Inter-DPU timer restarts at every layer: from the trace
        cpu, d2d = mlp_split(trace)
    return kernel, cpu, back, d2d


def prepare_app(prim, work, app, p, dpus, build_env, log):
    """Copies and builds one app for (P, dpus); returns its folder."""
    make_vars, _, edits = APPS[app]
    key = "%s-%d" % (app, dpus) + ("-%d" % p if edits else "")
    dst = os.path.join(work, key)
    if os.path.isdir(os.path.join(dst, "bin")):
        return dst
    shutil.copytree(os.path.join(prim, app), dst, dirs_exist_ok=True)
    for path, (pat, rep) in edits.items():
        full = os.path.join(dst, path)
        os.chmod(full, 0o644)
        with open(full) as f:
            text = f.read()
        new, n = re.subn(pat, rep.format(P=p), text)
        if n != 1:
            raise RuntimeError("%s: %s: pattern %r found %d times (PrIM version?)" % (app, path, pat, n))
        with open(full, "w") as f:
            f.write(new)
    for dirpath, dirnames, filenames in os.walk(dst):
        for n in dirnames + filenames:
            os.chmod(os.path.join(dirpath, n), 0o755 if n in dirnames else 0o644)
    cmd = ["make", "NR_DPUS=%d" % dpus, "NR_TASKLETS=16", "BL=10"] + ["%s=%s" % kv for kv in make_vars.items()]
    r = subprocess.run(cmd, cwd=dst, env=build_env, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError("%s: %s failed:\n%s%s" % (key, " ".join(cmd), r.stdout[-2000:], r.stderr[-4000:]))
    log("built %s" % key)
    return dst


def host_binary(folder):
    b = os.path.join(folder, "bin")
    for n in sorted(os.listdir(b)):
        if "host" in n:
            return os.path.join(b, n)
    raise RuntimeError("%s: no host binary in bin/" % folder)


def run_row(prim, work, row, build_env, profile, log):
    app, dpus, p = row["benchmark"], int(row["num_dpus"]), int(row["data_prep_param"])
    folder = prepare_app(prim, work, app, p, dpus, build_env, log)
    trace = os.path.join(work, "trace-%s-%d-%d.json" % (app, dpus, p))
    env = dict(build_env, OPENPIM_VIRTUAL_CLOCK="1", OPENPIM_TRACE=trace, UPMEM_PROFILE=profile)
    args = [host_binary(folder)] + COMMON_RUN + APPS[app][1](p)
    t0 = time.time()
    r = subprocess.run(args, cwd=folder, env=env, capture_output=True, text=True, timeout=3600)
    if r.returncode != 0:
        raise RuntimeError("%s %d DPUs P=%d: %s exited %d:\n%s%s" % (app, dpus, p, " ".join(args), r.returncode,
                                                                    r.stdout[-2000:], r.stderr[-2000:]))
    if "[OK]" not in r.stdout and "\x1b[32mOK" not in r.stdout:
        raise RuntimeError("%s %d DPUs P=%d: the app's own check did not pass:\n%s" % (app, dpus, p, r.stdout[-2000:]))
    timers = parse_timers(r.stdout)
    tr = parse_trace(trace)
    os.unlink(trace)
    k, c, b, d = columns(app, timers, tr)
    log("ran %-8s %2d DPUs P=%-8d in %5.1f s: kernel %.3f ms (hw %s)" % (app, dpus, p, time.time() - t0, k,
                                                                        row["hw_kernel"]))
    out = dict(row)
    out.update(model_kernel="%.4f" % k, model_cpu_to_dpu="%.4f" % c, model_dpu_to_cpu="%.4f" % b,
               model_dpu_to_dpu="%.4f" % d, calls=calls_text(tr))
    return out


def sdk_env(build):
    """The environment after sourcing build/sdk/upmem_env.sh."""
    script = os.path.join(build, "sdk", "upmem_env.sh")
    if not os.path.isfile(script):
        raise SystemExit("prim_hw.py: no OpenPIM SDK in %s (build it first: scripts/setup.sh)" % build)
    r = subprocess.run(["bash", "-c", 'source "$0" >/dev/null && env -0', script], capture_output=True, check=True)
    env = {}
    for item in r.stdout.split(b"\0"):
        if b"=" in item:
            k, v = item.split(b"=", 1)
            env[k.decode()] = v.decode()
    return env


def read_rows(path, apps):
    with open(path) as f:
        rows = [r for r in csv.DictReader(line for line in f if not line.startswith("#"))]
    if apps:
        unknown = set(apps) - {r["benchmark"] for r in rows}
        if unknown:
            raise SystemExit("prim_hw.py: no rows for %s" % ", ".join(sorted(unknown)))
        rows = [r for r in rows if r["benchmark"] in apps]
    for r in rows:
        if r["benchmark"] not in APPS:
            raise SystemExit("prim_hw.py: no run settings for benchmark %r" % r["benchmark"])
    return rows


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--prim", default=os.environ.get("OPENPIM_PRIM_DIR"),
                    help="PrIM checkout (default $OPENPIM_PRIM_DIR)")
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--rows", default=DEFAULT_ROWS)
    ap.add_argument("--profile", default="server=prim", help="UPMEM_PROFILE of every run (default server=prim)")
    ap.add_argument("--out", default="-")
    ap.add_argument("--apps", default="", help="comma-separated subset of benchmarks")
    ap.add_argument("--work", default="", help="scratch folder (default: a temporary one, removed)")
    ap.add_argument("--jobs", type=int, default=1)
    a = ap.parse_args(argv)
    if not a.prim or not os.path.isdir(a.prim):
        raise SystemExit("prim_hw.py: give a PrIM checkout with --prim or OPENPIM_PRIM_DIR")
    rows = read_rows(a.rows, [x for x in a.apps.split(",") if x])
    env = sdk_env(os.path.abspath(a.build))
    work = a.work or tempfile.mkdtemp(prefix="openpim-prim-")
    os.makedirs(work, exist_ok=True)

    def log(msg):
        print(msg, file=sys.stderr, flush=True)

    try:
        # build serially (make is not safe on one folder twice), run in parallel
        for r in rows:
            prepare_app(os.path.abspath(a.prim), work, r["benchmark"], int(r["data_prep_param"]),
                        int(r["num_dpus"]), env, log)
        with ThreadPoolExecutor(max_workers=max(1, a.jobs)) as ex:
            results = list(ex.map(lambda r: run_row(os.path.abspath(a.prim), work, r, env, a.profile, log), rows))
    finally:
        if not a.work:
            shutil.rmtree(work, ignore_errors=True)
    fields = list(rows[0].keys()) + ["model_kernel", "model_cpu_to_dpu", "model_dpu_to_cpu", "model_dpu_to_dpu",
                                     "calls"]
    f = sys.stdout if a.out == "-" else open(a.out, "w", newline="")
    try:
        f.write("# OpenPIM modelled times of PrIM runs: bench/calibration/prim_hw.py --profile %s\n" % a.profile)
        w = csv.DictWriter(f, fieldnames=fields, lineterminator="\n")
        w.writeheader()
        w.writerows(results)
    finally:
        if f is not sys.stdout:
            f.close()


if __name__ == "__main__":
    main()
