#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Tables from bench/ckks/run.sh's CSV ([Jonatan24] Fig. 16, CKKS multiplication):
    python3 bench/ckks/table.py ckks.csv

Two layouts, both measured end to end (one run each, modelled time of every
step):

  2D (the paper's layout, workloads/ckks's openpim_ckks2d_*): one
     multiplication with every limb spread over its g DPUs (32 g DPUs) and
     resident from upload to download; every NTT / iNTT is he's 2D NTT on the
     resident data (two launches, comm's All-to-All between them, host-mediated
     as the paper's), base conversions relayed by the host between the limbs'
     groups, element-wise steps on every DPU.  Each (i)NTT and conversion is two
     rows: its launches in their category, the All-to-All / relay in Inter-DPU.

  1D (he's 1D split, openpim_ckks_*): every limb's polynomial whole on one DPU,
     g ciphertexts at once (one per DPU).  Its (i)NTT is coarse-grained (one
     tasklet per polynomial), so with one polynomial per DPU one tasklet of 16
     works and NTT dominates.

"Compute-wise" (the paper's wording for its comparison with the CPU): the DPU
kernel time alone (slowest DPU per launch), no launches or transfers.
The 2D layout runs end to end, so its time is measured, not composed from
separately measured steps.
"""
import csv
import sys
from collections import OrderedDict

CATEGORIES = ["poly add", "poly mult", "NTT/iNTT", "key switching", "Inter-DPU"]


def parse(text):
    """-> (runs: {"ckks" | "ckks2d": {g: {"steps": [...], "cat": {...}, "total", "wall", "dpus", "count",
    params}}}, checks: [lines]).  g = DPUs per limb."""
    runs, checks = {"ckks": OrderedDict(), "ckks2d": OrderedDict()}, []
    rows = [ln for ln in text.splitlines() if ln and not ln.startswith("bench,")]
    for ln in rows:
        if ln.startswith("#"):
            checks.append(ln[1:].strip())
            continue
        f = next(csv.reader([ln]))
        if f[0] not in runs:
            continue
        n, L, K, dnum, dpus, count = (int(x) for x in f[1:7])
        k = L + 1 + K
        g = dpus // k
        r = runs[f[0]].setdefault(g, {"steps": [], "cat": {}, "n": n, "L": L, "K": K, "dnum": dnum, "dpus": dpus,
                                      "count": count if f[0] == "ckks" else 1, "k": k, "g": g})
        if f[7] == "step":
            r["steps"].append({"name": f[8], "cat": f[9], "us": float(f[10]), "kernel": float(f[11] or 0)})
        elif f[7] == "category":
            r["cat"][f[8]] = float(f[10])
        elif f[7] == "total":
            r["total"], r["wall"] = float(f[10]), float(f[12])
    return runs, checks


def op_of(name, previous):
    """Which operation of OpenFHE's a step belongs to: add / tensor / relin / rescale."""
    if name == "relay":  # the 1D layout's relay row follows its conversion
        return previous
    if name.startswith("tensor"):
        return "tensor"
    if name.startswith("add["):
        return "add"
    if name.startswith("rescale["):
        return "rescale"
    return "relin"


def measured(run):
    """One run's figures: us by category, total, by OpenFHE operation (ops), their DPU kernel time alone
    (compute), the NTT/iNTT All-to-Alls' part of Inter-DPU, the number of (i)NTTs."""
    out = {c: run["cat"].get(c, 0.0) for c in CATEGORIES}
    out["total"] = run["total"]
    ops = {"add": 0.0, "tensor": 0.0, "relin": 0.0, "rescale": 0.0}
    compute = dict(ops)
    op, a2a, ntts = None, 0.0, 0
    for s in run["steps"]:
        op = op_of(s["name"], op)
        ops[op] += s["us"]
        compute[op] += s["kernel"]
        if s["cat"] == "NTT/iNTT":
            ntts += 1
        if s["name"].endswith(" all-to-all"):
            a2a += s["us"]
    compute["hmult"] = sum(compute.values())
    out.update(ops=ops, compute=compute, ntt_alltoall=a2a, launches=ntts)
    return out


def parse_openfhe(text):
    """openfhe,OP,N,L,dnum,ms lines -> {op: us}"""
    out = {}
    for ln in text.splitlines():
        f = ln.split(",")
        if len(f) == 6 and f[0] == "openfhe":
            out[f[1]] = 1000.0 * float(f[5])
    return out


def views(text):
    """-> (full: [{g, dpus, run}] the 1D runs, scaled: [{g, dpus, d2}] the 2D runs, checks)"""
    runs, checks = parse(text)
    full = [{"g": g, "dpus": r["dpus"], "run": r} for g, r in runs["ckks"].items()]
    scaled = [{"g": g, "dpus": r["dpus"], "run": r, "d2": measured(r)} for g, r in sorted(runs["ckks2d"].items())]
    return full, scaled, checks


def fmt_ms(us):
    return "%.1f" % (us / 1000.0)


def main(path):
    with open(path) as f:
        text = f.read()
    full, scaled, checks = views(text)
    if not full and not scaled:
        raise SystemExit("no multiplication runs in %s" % path)
    r0 = (scaled or full)[0]["run"]
    print("CKKS multiplication, N = %d, L = %d, K = %d, dnum = %d (modelled ms)" % (r0["n"], r0["L"], r0["K"],
                                                                                  r0["dnum"]))
    for c in checks:
        print("  " + c)
    if scaled:
        print("\n2D (measured end to end: each limb over g DPUs, resident; one ciphertext)")
        print("%6s %4s " % ("DPUs", "g") + " ".join("%13s" % c for c in CATEGORIES) +
              " %11s %9s %9s %8s %7s" % ("total", "speedup", "InterDPU%", "A2A/IDPU", "wall s"))
        base = scaled[0]["d2"]["total"]
        for t in scaled:
            d = t["d2"]
            print("%6d %4d " % (t["dpus"], t["g"]) + " ".join("%13s" % fmt_ms(d[c]) for c in CATEGORIES) +
                  " %11s %9.2f %8.1f%% %7.0f%% %7.1f" % (
                      fmt_ms(d["total"]), base / d["total"], 100 * d["Inter-DPU"] / d["total"],
                      100 * d["ntt_alltoall"] / d["Inter-DPU"] if d["Inter-DPU"] else 0, t["run"]["wall"]))
    if full:
        print("\n1D (measured; g ciphertexts at once, one per DPU of each limb)")
        print("%6s %5s " % ("DPUs", "cts") + " ".join("%13s" % c for c in CATEGORIES) + " %11s %11s %7s" %
              ("total", "per ct", "wall s"))
        for t in full:
            r = t["run"]
            print("%6d %5d " % (r["dpus"], r["count"]) +
                  " ".join("%13s" % fmt_ms(r["cat"].get(c, 0)) for c in CATEGORIES) +
                  " %11s %11s %7.1f" % (fmt_ms(r["total"]), fmt_ms(r["total"] / r["count"]), r["wall"]))
    cpu = parse_openfhe(text)
    if cpu and scaled:
        ops = ("add", "tensor", "relin", "rescale", "hmult")
        print("\nOpenFHE on this host (one thread, 54-bit limbs): ms and speedup of the 2D runs")
        print("%6s " % "" + " ".join("%9s" % o for o in ops))
        print("%6s " % "CPU ms" + " ".join("%9.2f" % (cpu[k] / 1000) for k in ops))
        for t in scaled:
            mine = dict(t["d2"]["ops"], hmult=t["d2"]["total"])
            print("%6d " % t["dpus"] + " ".join("%9.2f" % (cpu[k] / mine[k]) for k in ops))
        print("compute-wise (DPU kernel time alone, no launches or transfers):")
        for t in scaled:
            mine = t["d2"]["compute"]
            print("%6d " % t["dpus"] + " ".join("%9.2f" % (cpu[k] / mine[k]) for k in ops))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit("usage: table.py CKKS_CSV")
    main(sys.argv[1])
