#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The 2D NTT benchmark (ntt2d.sh's CSV) beside Jonatan et al.'s published
figures ([Jonatan24], section 5.2.3-5.2.4; the paper states its figures
in words, so the comparison is with those statements).

    ntt2d_table.py NTT2D.csv [OUT_DIR] [--seal]

Prints a markdown report; with OUT_DIR also writes ntt2d_fig14.csv,
ntt2d_fig15.csv (the derived quantities per run) and ntt2d.md there.  --seal
adds the paper's CPU line of Fig. 15a: SEAL's NTT (seal-python, one thread,
this host) of one 2^16-point residue, times the residue count.
"""
import csv
import os
import sys

# Published ([Jonatan24], text of sections 5.2.3 and 5.2.4)
PUB_KERNEL_SPEEDUP = 63.5   # 32 -> 2048 DPUs, 8 NTTs, DPU cycle counter
PUB_OVERALL_SPEEDUP = 9.7   # same, whole run
PUB_INTER_SHARE_2048 = 40.3  # % of the whole run at 2048 DPUs (Fig. 14b)
PUB_INTER_SHARE_2800 = 34.9  # % at 2048 DPUs, log Q = 2800 (Fig. 15b)


def load(path):
    with open(path) as f:
        rows = list(csv.DictReader(f))
    for r in rows:
        r["dir"] = r.get("dir") or "forward"  # files written before the inverse was benchmarked
        for k in r:
            if k not in ("fig", "comm", "dir"):
                r[k] = float(r[k])
        r["kernel_dpu_us"] = r["kernel1_dpu_us"] + r["kernel2_dpu_us"]
        r["inter_share"] = 100 * r["inter_dpu_us"] / r["total_us"]
    return rows


def fig14(rows, impl, direction="forward"):
    runs = sorted((r for r in rows if r["fig"] == "fig14" and r["comm"] == impl and r["dir"] == direction),
                  key=lambda r: r["dpus"])
    if not runs:
        return [], {}
    base = runs[0]
    for r in runs:
        r["kernel_speedup"] = base["kernel_dpu_us"] / r["kernel_dpu_us"]
        r["overall_speedup"] = base["total_us"] / r["total_us"]
    last = runs[-1]
    summary = {"from": int(base["dpus"]), "to": int(last["dpus"]), "kernel_speedup": last["kernel_speedup"],
               "overall_speedup": last["overall_speedup"], "inter_share_last": last["inter_share"],
               "inter_share_first": base["inter_share"]}
    return runs, summary


def fig15(rows, impl):
    runs = sorted((r for r in rows if r["fig"] == "fig15" and r["comm"] == impl and r["dir"] == "forward"),
                  key=lambda r: (r["logq"], r["dpus"]))
    return runs


def seal_ntt_us(n=65536):
    """SEAL's NTT of one n-point residue (30-bit prime), one thread, median us."""
    import statistics
    import time

    import numpy as np
    import seal

    k = 4
    parms = seal.EncryptionParameters(seal.scheme_type.bgv)
    parms.set_poly_modulus_degree(n)
    parms.set_coeff_modulus(seal.CoeffModulus.Create(n, [30] * (k + 1)))
    parms.set_plain_modulus(seal.PlainModulus.Batching(n, 20))
    ctx = seal.SEALContext(parms, True, seal.sec_level_type.none)
    enc = seal.Encryptor(ctx, seal.KeyGenerator(ctx).create_public_key())
    ev, coder = seal.Evaluator(ctx), seal.BatchEncoder(ctx)
    ct = ev.transform_from_ntt(enc.encrypt(coder.encode(np.zeros(n, dtype=np.uint64))))
    samples = []
    for _ in range(10):
        t0 = time.perf_counter()
        ev.transform_to_ntt_inplace(ct)
        ev.transform_from_ntt_inplace(ct)
        samples.append((time.perf_counter() - t0) * 1e6 / 2 / (2 * k))  # 2 polynomials x k residues
    return statistics.median(samples)


def markdown(rows, seal_us=None):
    out = []
    p = out.append
    p("## 2D NTT strong scaling (Jonatan et al. Fig. 14): 8 residue NTTs of n = 2^16, 30-bit moduli")
    p("")
    p("Modelled (OpenPIM). Groups of min(DPUs, 256) DPUs per NTT; kernel = the two steps' slowest-DPU time "
      "(the paper's cycle counter); times in ms.")
    summaries = {}
    for direction in ("forward", "inverse"):
        for impl in ("baseline", "optimised"):
            runs, s = fig14(rows, impl, direction)
            if not runs:
                continue
            summaries[(direction, impl)] = s
            p("")
            p("%s 2D NTT; All-to-All: comm %s%s" % (
                direction.capitalize(), impl, " (host-mediated, the paper's)" if impl == "baseline" else
                " (PID-Comm's physical view where the set is whole ranks)"))
            p("")
            p("| DPUs | groups | CPU-DPU | Kernel1 | Inter-DPU | Kernel2 | DPU-CPU | total | kernel (DPU) | "
              "kernel speedup | overall speedup | Inter-DPU % |")
            p("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
            for r in runs:
                p("| %d | %d | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %.1fx | %.2fx | %.1f |" % (
                    r["dpus"], r["groups"], r["cpu_dpu_us"] / 1e3, r["kernel1_us"] / 1e3, r["inter_dpu_us"] / 1e3,
                    r["kernel2_us"] / 1e3, r["dpu_cpu_us"] / 1e3, r["total_us"] / 1e3, r["kernel_dpu_us"] / 1e3,
                    r["kernel_speedup"], r["overall_speedup"], r["inter_share"]))
    p("")
    p("| quantity | modelled (baseline) | modelled (optimised) | published (forward) |")
    p("|---|---:|---:|---:|")

    def val(s, key, fmt):
        return fmt % s[key] if key in s else "-"
    for direction in ("forward", "inverse"):
        b, o = summaries.get((direction, "baseline"), {}), summaries.get((direction, "optimised"), {})
        if not b and not o:
            continue
        d = "" if direction == "forward" else " (inverse)"
        p("| kernel speedup 32 -> 2048 DPUs%s | %s | %s | %.1fx |" % (
            d, val(b, "kernel_speedup", "%.1fx"), val(o, "kernel_speedup", "%.1fx"), PUB_KERNEL_SPEEDUP))
        p("| overall speedup 32 -> 2048 DPUs%s | %s | %s | %.1fx |" % (
            d, val(b, "overall_speedup", "%.2fx"), val(o, "overall_speedup", "%.2fx"), PUB_OVERALL_SPEEDUP))
        p("| Inter-DPU share at 2048 DPUs%s | %s | %s | %.1f %% |" % (
            d, val(b, "inter_share_last", "%.1f %%"), val(o, "inter_share_last", "%.1f %%"), PUB_INTER_SHARE_2048))
        p("| Inter-DPU share at 32 DPUs%s | %s | %s | \"negligible\" |" % (
            d, val(b, "inter_share_first", "%.1f %%"), val(o, "inter_share_first", "%.1f %%")))
    fifteen = {impl: fig15(rows, impl) for impl in ("baseline", "optimised")}
    if any(fifteen.values()):
        p("")
        p("## 2D NTT by log Q (Jonatan et al. Fig. 15): ceil(log Q / 30) residue NTTs of n = 2^16")
        p("")
        p("Total modelled ms (Inter-DPU share in %%)%s." % (
            "; CPU = SEAL's NTT on this host, one thread, %.0f us per residue x residues" % seal_us
            if seal_us else ""))
        for impl, runs in fifteen.items():
            if not runs:
                continue
            dpus = sorted({int(r["dpus"]) for r in runs})
            logqs = sorted({int(r["logq"]) for r in runs})
            by = {(int(r["logq"]), int(r["dpus"])): r for r in runs}
            p("")
            p("All-to-All: comm %s" % impl)
            p("")
            p("| log Q | residues | " + " | ".join("%d DPUs" % d for d in dpus) + (" | CPU |" if seal_us else " |"))
            p("|---:|---:|" + "---:|" * len(dpus) + ("---:|" if seal_us else ""))
            for q in logqs:
                cells = []
                for d in dpus:
                    r = by.get((q, d))
                    cells.append("%.2f (%.0f %%)" % (r["total_us"] / 1e3, r["inter_share"]) if r else "-")
                limbs = next(int(by[(q, d)]["ntts"]) for d in dpus if (q, d) in by)
                p("| %d | %d | %s |%s" % (q, limbs, " | ".join(cells),
                                          " %.2f |" % (seal_us * limbs / 1e3) if seal_us else ""))
            # the paper's statements
            best = all(min((by[(q, d)] for d in dpus if (q, d) in by), key=lambda r: r["total_us"])["dpus"] ==
                       max(d for d in dpus if (q, d) in by) for q in logqs)
            lo, hi = logqs[0], logqs[-1]
            p("")
            p("| statement ([Jonatan24] §5.2.4) | modelled (%s) |" % impl)
            p("|---|---|")
            p("| the most DPUs (%d) fastest at every log Q | %s |" % (max(dpus), "yes" if best else "no"))
            for d in dpus:
                pts = [(q, by[(q, d)]["total_us"]) for q in logqs if (q, d) in by]
                if len(pts) >= 3:
                    n = len(pts)
                    mx, my = sum(x for x, _ in pts) / n, sum(y for _, y in pts) / n
                    sxy = sum((x - mx) * (y - my) for x, y in pts)
                    sxx, syy = sum((x - mx) ** 2 for x, _ in pts), sum((y - my) ** 2 for _, y in pts)
                    p("| linear in log Q, %d DPUs: R^2 of the least-squares line | %.3f |" % (d, sxy * sxy / (sxx * syy)))
            for q in sorted({lo, hi}):
                if (q, dpus[0]) in by and (q, dpus[-1]) in by:
                    a, z = by[(q, dpus[0])]["inter_dpu_us"], by[(q, dpus[-1])]["inter_dpu_us"]
                    p("| Inter-DPU %d DPUs < %d DPUs at log Q %d | %s (%.2f vs %.2f ms) |" % (
                        dpus[-1], dpus[0], q, "yes" if z < a else "no", z / 1e3, a / 1e3))
            if (2800, 2048) in by:
                p("| Inter-DPU share at 2048 DPUs, log Q 2800 (published %.1f %%) | %.1f %% |" % (
                    PUB_INTER_SHARE_2800, by[(2800, 2048)]["inter_share"]))
    return "\n".join(out) + "\n"


def write_csvs(rows, out_dir):
    keys14 = ["dir", "comm", "dpus", "groups", "ntts", "cpu_dpu_us", "kernel1_us", "inter_dpu_us", "kernel2_us", "dpu_cpu_us",
              "total_us", "kernel_dpu_us", "kernel_speedup", "overall_speedup", "inter_share"]
    with open(os.path.join(out_dir, "ntt2d_fig14.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(keys14 + ["published_kernel_speedup_2048", "published_overall_speedup_2048",
                             "published_inter_share_2048"])
        for direction in ("forward", "inverse"):
            for impl in ("baseline", "optimised"):
                for r in fig14(rows, impl, direction)[0]:
                    w.writerow([r[k] for k in keys14] + [PUB_KERNEL_SPEEDUP, PUB_OVERALL_SPEEDUP,
                                                         PUB_INTER_SHARE_2048])
    keys15 = ["comm", "logq", "ntts", "dpus", "groups", "cpu_dpu_us", "kernel1_us", "inter_dpu_us", "kernel2_us",
              "dpu_cpu_us", "total_us", "inter_share"]
    with open(os.path.join(out_dir, "ntt2d_fig15.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(keys15 + ["published_inter_share_2048_logq2800"])
        for impl in ("baseline", "optimised"):
            for r in fig15(rows, impl):
                w.writerow([r[k] for k in keys15] + [PUB_INTER_SHARE_2800])


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    if not args:
        raise SystemExit(__doc__)
    rows = load(args[0])
    seal_us = seal_ntt_us() if "--seal" in sys.argv else None
    text = markdown(rows, seal_us)
    sys.stdout.write(text)
    if len(args) > 1:
        os.makedirs(args[1], exist_ok=True)
        write_csvs(rows, args[1])
        with open(os.path.join(args[1], "ntt2d.md"), "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
