# SPDX-License-Identifier: MIT
"""Report section: CKKS homomorphic multiplication on the emulated PIM server
([Jonatan24], section 5.2.4 and Figure 16: N = 65536, L = 23,
8 extension limbs, dnum = 3; primitives poly add, poly mult, NTT/iNTT, key
switching, Inter-DPU), from bench/ckks/run.sh run during report generation.

The paper gives Figure 16 as a chart whose values are not in its text; what it
states is compared: the DPUs beat the CPU on every primitive (needs OpenFHE as
the CPU baseline: a Python 3.10 with the openfhe wheel, see bench/ckks/run.sh),
poly add gains the most, modular-multiplication kernels (poly mult, NTT) gain
little, and Inter-DPU is a significant part, caused by the NTT's and iNTT's
synchronisation.
Environment:
  OPENPIM_REPORT_CKKS_MODE   fig16 (default, ~15 min) or quick (N = 4096, about a minute)
  OPENPIM_REPORT_CKKS_FULL_G DPUs per limb of the 1D library's runs (default "1"; bench/ckks/run.sh
                             runs "1 2 4 8")
  OPENPIM_CKKS_OPENFHE_PYTHON a Python 3.10 with the openfhe wheel, for the CPU baseline
"""
import os
import sys

from openpim_report import SELF_CHECK, TREND, UNCOMPARED, ReportError, Row, Section, Table, matplotlib_pyplot

TITLE = "CKKS homomorphic multiplication ([Jonatan24] Fig. 16)"
ORDER = 61

JONATAN = "[Jonatan24] §5.2.4, Fig. 16"


def _table_module(ctx):
    sys.path.insert(0, ctx.path("bench", "ckks"))
    try:
        import table  # bench/ckks/table.py: parsing and the figures of each run
    finally:
        sys.path.pop(0)
    return table


def run(ctx):
    mode = os.environ.get("OPENPIM_REPORT_CKKS_MODE", "fig16")
    # the 1D library's throughput runs (g > 1) cost g times the emulation of one: the report runs g = 1
    env = {"OPENPIM_CKKS_FULL_G": os.environ.get("OPENPIM_REPORT_CKKS_FULL_G", "1")}
    cmd, out = ctx.run(["bash", ctx.path("bench", "ckks", "run.sh"), ctx.build, mode], env=env, timeout=3 * 3600)
    tm = _table_module(ctx)
    full, views, checks = tm.views(out)
    if not views:
        raise ReportError("bench/ckks/run.sh produced no complete 2D run")
    cpu = tm.parse_openfhe(out)
    r0 = views[0]["run"]
    sec = Section(title=TITLE)
    sec.commands.append(cmd)
    sec.intro = (
        "workloads/ckks multiplies RNS-CKKS ciphertexts on the DPUs with the HE library: the tensor product, "
        "hybrid key switching (ModUp of each of the dnum digits to all other limbs and the extension limbs by "
        "he's fast base conversion, inner product with the switching key, ModDown) and rescaling. Every product "
        "is checked word for word against a Python reference (workloads/ckks/tests/ckks_ref.py); here at "
        "N = %d, L = %d, K = %d, dnum = %d. Limbs are 30-bit primes (a DPU word; the paper's are 54-bit), so "
        "the same %d + %d limbs give log Q = %d bits (the paper's: ~%d)."
        % (r0["n"], r0["L"], r0["K"], r0["dnum"], r0["L"] + 1, r0["K"], 30 * (r0["L"] + 1), 54 * (r0["L"] + 1)) +
        "\n\nTwo layouts, each measured end to end in one run. 2D (the paper's layout, "
        "openpim_ckks2d_*): each limb spread over g DPUs and resident in their MRAM from the upload of the "
        "inputs to the download of the product; every NTT and iNTT is he's 2D NTT on the resident data (two "
        "launches with comm's All-to-All between them, host-mediated as the paper's), the base conversions "
        "are relayed by the host between the limbs' groups, the element-wise steps run on every DPU. 1D "
        "(openpim_ckks_*): he's 1D split with each limb's polynomial whole on one DPU; its (i)NTT is "
        "coarse-grained (one tasklet per polynomial), so a single multiplication keeps one tasklet of each "
        "DPU busy and the NTTs dominate. (Earlier versions showed a 2D view composed from separately measured "
        "steps; it is no longer needed.)")
    for c in checks:
        sec.notes.append(c)
    bad = [c for c in checks if "check n=" in c and "DIFFER" in c]
    exact = [c for c in checks if "check n=" in c and "bit-exact with the Python reference" in c]
    checked = ", ".join(c.split(":")[0] for c in exact + bad)
    rows = [Row("product = Python reference", "N=%d, L=%d, K=%d, dnum=%d; %s" % (r0["n"], r0["L"], r0["K"],
                                                                             r0["dnum"], checked or "none checked"),
                "0 words differ" if exact and not bad else "differs", "exact",
                "workloads/ckks/tests/ckks_ref.py (the Python reference)", kind=SELF_CHECK,
                test="every word of every checked product equals the reference's", holds=bool(exact and not bad),
                note="" if exact and not bad else "see bench/ckks/check.py's lines",
                how="bench/ckks/check.py")]

    # -- breakdown figure: both views at every DPU count
    plt = matplotlib_pyplot()
    cats = tm.CATEGORIES
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2))
    for ax, rows_, key, title in ((axes[0], views, "d2", "2D layout (measured end to end), one multiplication"),
                                  (axes[1], full, "run", "1D layout (measured), per ciphertext")):
        labels = [str(v["dpus"]) for v in rows_]
        bottom = [0.0] * len(rows_)
        for c in cats:
            if key == "run":
                vals = [v["run"]["cat"].get(c, 0) / v["run"]["count"] / 1000 for v in rows_]
            else:
                vals = [v["d2"][c] / 1000 for v in rows_]
            ax.bar(labels, vals, bottom=bottom, label=c)
            bottom = [b + x for b, x in zip(bottom, vals)]
        ax.set_xlabel("DPUs (limbs x g)")
        ax.set_ylabel("modelled ms")
        ax.set_title(title, fontsize=10)
        ax.legend(fontsize=7)
    sec.figures.append(ctx.figure(fig, "CKKS multiplication (N=%d, L=%d, K=%d, dnum=%d): modelled time by the "
                                  "categories of [Jonatan24] Fig. 16" % (r0["n"], r0["L"], r0["K"], r0["dnum"]),
                                  [cmd]))

    # -- breakdown rows (ours; the paper's chart values are not in its text)
    for v in views:
        d = v["d2"]
        rows.append(Row("2D layout: breakdown, %d DPUs" % v["dpus"], "one multiplication",
                        "total %.1f ms: " % (d["total"] / 1000) +
                        ", ".join("%s %.0f%%" % (c, 100 * d[c] / d["total"]) for c in cats), None,
                        "bench/ckks/run.sh", kind=UNCOMPARED, how="measured end to end (modelled time)"))
    for v in full:
        run_ = v["run"]
        rows.append(Row("1D library: breakdown, %d DPUs" % v["dpus"], "%d ciphertexts at once" % run_["count"],
                        "total %.1f ms: " % (run_["total"] / 1000) +
                        ", ".join("%s %.0f%%" % (c, 100 * run_["cat"].get(c, 0) / run_["total"]) for c in cats),
                        None, "bench/ckks/run.sh", kind=UNCOMPARED, how="measured (modelled time)"))
    last = views[-1]["d2"]
    inter_share = 100 * last["Inter-DPU"] / last["total"]
    ntt_part = 100 * last["ntt_alltoall"] / last["Inter-DPU"] if last["Inter-DPU"] else 0
    rows.append(Row("Inter-DPU is a significant part", "2D layout, %d DPUs" % views[-1]["dpus"],
                    "%.1f%% of the total; %.0f%% of it the NTT/iNTT All-to-Alls" % (inter_share, ntt_part),
                    "significant, caused by synchronisation in the NTT and its inverse", JONATAN, kind=TREND,
                    test="Inter-DPU at least 10 % of the total, and at least half of it the (i)NTT All-to-Alls",
                    holds=inter_share >= 10 and ntt_part >= 50,
                    note="" if inter_share >= 10 and ntt_part >= 50 else
                    "Inter-DPU is significant, but about half of it is the base conversions' host relays between the "
                    "limbs' groups, not the (i)NTT All-to-Alls",
                    how="bench/ckks/table.py (2D, measured)"))
    if len(views) > 1:
        k_speed = (views[0]["d2"]["NTT/iNTT"] / last["NTT/iNTT"]) if last["NTT/iNTT"] else 0
        o_speed = views[0]["d2"]["total"] / last["total"]
        rows.append(Row("strong scaling %d -> %d DPUs" % (views[0]["dpus"], views[-1]["dpus"]), "2D layout",
                        "NTT kernels %.1fx, whole multiplication %.1fx" % (k_speed, o_speed), None,
                        "ours (the paper's Fig. 14 trend for the NTT alone)", kind=UNCOMPARED,
                        how="bench/ckks/table.py"))
    sec.tables.append(Table("CKKS multiplication: breakdown and the paper's statements", rows, [cmd]))

    # -- against the CPU (OpenFHE on this host)
    if not cpu:
        sec.notes.append("OpenFHE not found (its wheel needs CPython 3.10: set OPENPIM_CKKS_OPENFHE_PYTHON to a "
                         "python3.10 with `pip install openfhe==1.6.1.0.22.4`): no CPU comparison, so the paper's "
                         "statements about speedups over the CPU are not checked here")
        return sec
    ops = ("add", "tensor", "relin", "rescale", "hmult")
    names = {"add": "poly add (EvalAdd)", "tensor": "poly mult (EvalMultNoRelin)",
             "relin": "key switching (Relinearize)", "rescale": "rescale (Rescale)",
             "hmult": "whole multiplication (EvalMult + Rescale)"}
    best = min(views, key=lambda v: v["d2"]["total"])
    whole = dict(best["d2"]["ops"], hmult=best["d2"]["total"])
    comp = best["d2"]["compute"]
    speed = {o: cpu[o] / comp[o] for o in ops if o in cpu and comp[o] > 0}
    whole_speed = {o: cpu[o] / whole[o] for o in ops if o in cpu and whole[o] > 0}
    crow = []
    for o in ops:
        if o in speed:
            crow.append(Row("compute-wise speedup over the CPU: " + names[o], "2D layout, %d DPUs vs OpenFHE 1 "
                            "thread" % best["dpus"], speed[o], None, "ours", unit="x", kind=UNCOMPARED,
                            how="CPU %.2f ms / DPU kernels %.2f ms" % (cpu[o] / 1000, comp[o] / 1000), fmt="%.2f"))
            crow.append(Row("end-to-end speedup over the CPU: " + names[o], "the same, with launches and "
                            "Inter-DPU", whole_speed[o], None, "ours", unit="x", kind=UNCOMPARED,
                            how="CPU %.2f ms / DPUs %.2f ms" % (cpu[o] / 1000, whole[o] / 1000), fmt="%.2f"))
    prim = [o for o in ("add", "tensor", "relin", "rescale") if o in speed]
    all_faster = all(speed[o] > 1 for o in prim)
    crow.append(Row("DPUs faster than the CPU on every primitive (compute-wise)", "2D layout, %d DPUs" % best["dpus"],
                    ", ".join("%s %.2fx" % (o, speed[o]) for o in prim),
                    "compute-wise, speedup across all primitive functions", JONATAN, kind=TREND,
                    test="the DPU kernels faster than OpenFHE on this host for every primitive", holds=all_faster,
                    note="" if all_faster else
                    "the DPUs' software 32-bit modular multiply (about 30 instructions a product, modelled from "
                    "DRAMatic's routines) against OpenFHE's native 64-bit multiplies; see the speedup rows",
                    how="OpenFHE on this host vs modelled DPU kernel time"))
    from_dpus = next((v["dpus"] for v in views
                      if all(cpu[o] / v["d2"]["compute"][o] > 1 for o in prim)), None)
    crow.append(Row("fewest DPUs that beat the CPU on every primitive (compute-wise)", "2D layout",
                    "%s DPUs" % from_dpus if from_dpus else "none measured", None, "ours", kind=UNCOMPARED,
                    how="bench/ckks/table.py"))
    add_most = "add" in speed and all(speed["add"] >= speed[o] for o in prim)
    crow.append(Row("poly add gains the most (compute-wise)", "2D layout, %d DPUs" % best["dpus"],
                    ", ".join("%s %.2fx" % (o, speed[o]) for o in prim),
                    "significant speedup on poly add (compute throughput of the PIM cores)", JONATAN, kind=TREND,
                    test="poly add's speedup the largest of the primitives'", holds=add_most,
                    note="" if add_most else "see the speedup rows", how="OpenFHE vs modelled DPU kernel time"))
    mult_less = "tensor" in speed and "add" in speed and speed["tensor"] < speed["add"]
    crow.append(Row("modular multiplication limits the speedup (compute-wise)", "2D layout, %d DPUs" % best["dpus"],
                    "tensor %.2fx < add %.2fx" % (speed.get("tensor", 0), speed.get("add", 0)),
                    "limited speedup for poly mult and NTT (no integer multiplier)", JONATAN, kind=TREND,
                    test="poly mult's speedup below poly add's", holds=mult_less,
                    note="" if mult_less else "see the speedup rows", how="OpenFHE vs modelled DPU kernel time"))
    sec.tables.append(Table("Against the CPU: OpenFHE CKKS on this host (one thread, 54-bit limbs)", crow, [cmd],
                            intro="OpenFHE runs the paper's parameters (N, L, dnum, 54-bit scaling moduli; its "
                                  "own extension limbs) on one core of this host; operations matched to our steps "
                                  "by bench/ckks/table.py (op_of). Compute-wise = the DPU kernels alone (the "
                                  "paper's wording); end-to-end adds launches and Inter-DPU. The DPU side is the "
                                  "fastest 2D configuration measured. The CPU times are minima of 3 runs."))
    return sec
