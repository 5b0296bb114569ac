#!/usr/bin/env python3
"""Tables from bench/ckks/run.sh's CSV (paper 000 Fig. 16, CKKS multiplication):
    python3 bench/ckks/table.py ckks.csv

Two views per DPU count (g DPUs per limb, 32 g DPUs):

  1D (measured): workloads/ckks as built, he's 1D split: every limb's polynomial
     whole on one DPU, g ciphertexts at once (one per DPU).  Its (i)NTT is
     coarse-grained (one tasklet per polynomial), so with one polynomial per
     DPU one tasklet of 16 works and NTT dominates.

  2D (composed from measured parts): one multiplication with every limb spread
     over its g DPUs, the (i)NTT being he's 2D NTT (Jonatan et al. section 5.2.3,
     the NTT of Fig. 16), each step from a measurement on the same 32 g DPUs:
       NTT/iNTT   = he's 2D NTT of one 32-limb polynomial: kernel1 + kernel2
                    (the inverse taken to cost the forward: the same butterflies;
                    he has no inverse 2D NTT), its All-to-All (host-mediated, as
                    the paper's) in Inter-DPU
       base conversion = the conversion run alone on g polynomials (one per
                    DPU): its kernels / g + two launch overheads; its relay
                    (the rest) / g in Inter-DPU
       other steps = the g = 1 run's kernel / g + one launch overhead
     Kernels / g: element-wise work is linear in a DPU's words, and a DPU of the
     2D layout holds 1/g of a limb (exact while n / g >= 16 tasklets x 128
     words); launch overhead = an addition's modelled time less its kernel, on
     those DPUs; relays / g: the run moved g polynomials' worth.
     "Compute-wise" (the paper's wording for its comparison with the CPU): the
     DPU kernel time alone (slowest DPU per launch), no launches or transfers.
"""
import csv
import sys
from collections import OrderedDict

CATEGORIES = ["poly add", "poly mult", "NTT/iNTT", "key switching", "Inter-DPU"]


def parse(text):
    """-> (runs: {g: {"steps": [...], "cat": {...}, "total", "wall", "dpus", "count", params}},
           ntt2d: {(g, comm): {kernel1, inter_dpu, kernel2, cpu_dpu, dpu_cpu}},
           conv: {g: {"launch": us, name: (us, kernel_us)}}, checks: [lines])"""
    runs, ntt2d, conv, checks = OrderedDict(), {}, {}, []
    rows = [ln for ln in text.splitlines() if ln and not ln.startswith("bench,")]
    for ln in rows:
        if ln.startswith("#"):
            checks.append(ln[1:].strip())
            continue
        f = next(csv.reader([ln]))
        if f[0] == "ntt2d":
            g = int(f[9])
            vals = [float(x) for x in f[10].split()]
            ntt2d[(g, f[7])] = dict(zip(f[8].split(), vals))
            continue
        if f[0] == "conv":
            k = int(f[2]) + 1 + int(f[3])
            c = conv.setdefault(int(f[5]) // k, {})
            if f[7] == "launch":
                c["launch"] = float(f[10]) - float(f[11])
            else:
                c[f[8]] = (float(f[10]), float(f[11]))
            continue
        if f[0] != "ckks":
            continue
        n, L, K, dnum, dpus, count = (int(x) for x in f[1:7])
        k = L + 1 + K
        g = dpus // k
        r = runs.setdefault(g, {"steps": [], "cat": {}, "n": n, "L": L, "K": K, "dnum": dnum, "dpus": dpus,
                                "count": count, "k": k})
        if f[7] == "step":
            r["steps"].append({"name": f[8], "cat": f[9], "us": float(f[10]), "kernel": float(f[11] or 0)})
        elif f[7] == "category":
            r["cat"][f[8]] = float(f[10])
        elif f[7] == "total":
            r["total"], r["wall"] = float(f[10]), float(f[12])
    return runs, ntt2d, conv, checks


def op_of(name, previous):
    """Which operation of OpenFHE's a step belongs to: add / tensor / relin / rescale."""
    if name == "relay":
        return previous
    if name == "tensor":
        return "tensor"
    if name.startswith("add["):
        return "add"
    if name.startswith("rescale["):
        return "rescale"
    return "relin"


def compose(base, nt, cv, g):
    """The 2D view of one multiplication on 32 g DPUs (see the module doc), from the g = 1 run's
    steps `base`, the 2D NTT `nt` and the conversions `cv` measured on those DPUs: us by
    category, by OpenFHE operation (add / tensor / relin / rescale), and the NTT All-to-All part."""
    out = {c: 0.0 for c in CATEGORIES}
    ops = {"add": 0.0, "tensor": 0.0, "relin": 0.0, "rescale": 0.0}
    compute = dict(ops)  # DPU kernel time alone ("compute-wise", the paper's comparison with the CPU)
    launches, op, a2a, last_conv = 0, None, 0.0, None
    launch = cv["launch"]
    for s in base["steps"]:
        op = op_of(s["name"], op)
        if s["cat"] == "NTT/iNTT":
            launches += 1
            v = {"NTT/iNTT": nt["kernel1"] + nt["kernel2"], "Inter-DPU": nt["inter_dpu"]}
            a2a += nt["inter_dpu"]
            compute[op] += nt.get("kernel1_dpu", float("nan")) + nt.get("kernel2_dpu", float("nan"))
        elif s["name"].endswith(" conv"):
            last_conv = cv[s["name"]]
            v = {s["cat"]: last_conv[1] / g + 2 * launch}
            compute[op] += last_conv[1] / g
        elif s["name"] == "relay":
            v = {"Inter-DPU": (last_conv[0] - last_conv[1] - 2 * launch) / g}
        else:
            v = {s["cat"]: s["kernel"] / g + launch}
            compute[op] += s["kernel"] / g
        for c, us in v.items():
            out[c] += us
            ops[op] += us
    out["total"] = sum(out[c] for c in CATEGORIES)
    out["launches"] = launches
    out["ops"] = ops
    compute["hmult"] = sum(compute.values())
    out["compute"] = compute
    out["ntt_alltoall"] = a2a
    out["ntt_kernels"] = out["NTT/iNTT"]
    return out


def parse_openfhe(text):
    """openfhe,OP,N,L,dnum,ms lines -> {op: us}"""
    out = {}
    for ln in text.splitlines():
        f = ln.split(",")
        if len(f) == 6 and f[0] == "openfhe":
            out[f[1]] = 1000.0 * float(f[5])
    return out


def views(text, comm="baseline"):
    """-> (full: [{g, dpus, run}] the 1D runs, scaled: [{g, dpus, d2}] the 2D compositions, checks)"""
    runs, ntt2d, conv, checks = parse(text)
    full = [{"g": g, "dpus": r["dpus"], "run": r} for g, r in runs.items()]
    scaled = []
    if 1 in runs:
        for g in sorted(conv):
            if (g, comm) in ntt2d and "launch" in conv[g]:
                scaled.append({"g": g, "dpus": g * runs[1]["k"], "d2": compose(runs[1], ntt2d[(g, comm)],
                                                                               conv[g], g)})
    return full, scaled, checks


def fmt_ms(us):
    return "%.1f" % (us / 1000.0)


def main(path):
    with open(path) as f:
        text = f.read()
    full, scaled, checks = views(text)
    if not full:
        raise SystemExit("no multiplication runs in %s" % path)
    r0 = full[0]["run"]
    print("CKKS multiplication, N = %d, L = %d, K = %d, dnum = %d (modelled ms)" % (r0["n"], r0["L"], r0["K"],
                                                                                  r0["dnum"]))
    for c in checks:
        print("  " + c)
    print("\n1D (measured; g ciphertexts at once, one per DPU of each limb)")
    print("%6s %5s " % ("DPUs", "cts") + " ".join("%13s" % c for c in CATEGORIES) + " %11s %11s %7s" %
          ("total", "per ct", "wall s"))
    for t in full:
        r = t["run"]
        print("%6d %5d " % (r["dpus"], r["count"]) + " ".join("%13s" % fmt_ms(r["cat"].get(c, 0)) for c in CATEGORIES)
              + " %11s %11s %7.1f" % (fmt_ms(r["total"]), fmt_ms(r["total"] / r["count"]), r["wall"]))
    if not scaled:
        return
    print("\n2D (composed: he's 2D NTT and the conversions measured on the same DPUs; one ciphertext)")
    print("%6s " % "DPUs" + " ".join("%13s" % c for c in CATEGORIES) + " %11s %9s %8s" % ("total", "speedup",
                                                                                        "InterDPU%"))
    base = scaled[0]["d2"]["total"]
    for t in scaled:
        d = t["d2"]
        print("%6d " % t["dpus"] + " ".join("%13s" % fmt_ms(d[c]) for c in CATEGORIES) +
              " %11s %9.2f %7.1f%%" % (fmt_ms(d["total"]), base / d["total"], 100 * d["Inter-DPU"] / d["total"]))
    cpu = parse_openfhe(text)
    if cpu:
        print("\nOpenFHE on this host (one thread, 54-bit limbs): ms and speedup of the 2D composition")
        print("%6s " % "" + " ".join("%9s" % o for o in ("add", "tensor", "relin", "rescale", "hmult")))
        print("%6s " % "CPU ms" + " ".join("%9.2f" % (cpu[k] / 1000) for k in ("add", "tensor", "relin",
                                                                              "rescale", "hmult")))
        for t in scaled:
            o = t["d2"]["ops"]
            mine = dict(o, hmult=t["d2"]["total"])
            print("%6d " % t["dpus"] + " ".join("%9.2f" % (cpu[k] / mine[k]) for k in ("add", "tensor", "relin",
                                                                                        "rescale", "hmult")))
        print("compute-wise (DPU kernel time alone, no launches or transfers):")
        for t in scaled:
            mine = t["d2"]["compute"]
            print("%6d " % t["dpus"] + " ".join("%9.2f" % (cpu[k] / mine[k]) for k in ("add", "tensor", "relin",
                                                                                        "rescale", "hmult")))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit("usage: table.py CKKS_CSV")
    main(sys.argv[1])
