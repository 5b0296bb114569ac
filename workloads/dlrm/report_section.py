# SPDX-License-Identifier: MIT
"""Section: PID-Comm's DLRM and MLP applications ([PIDComm] §VII-A, §VII-E)
on comm/, baseline against optimised, beside the paper's Figures 13, 15 and 21.

Every OpenPIM value comes from bench/pidcomm_apps/dlrm_mlp_run.sh run here:
the "fig21" study runs DLRM (dim 16 and 32) and the MLP on 64, 128, 256, 512
and 1,024 DPUs with both implementations, checks every result exactly
against the CPU reference (the run fails otherwise) and times that CPU
reference on this host in the same run.  Figures 13 and 15 use its 1,024-DPU
rows (the paper's 1,024 PEs).  The published values are the numbers and
statements of the paper's text (its figures' bar heights are not in the text).

Environment:
  OPENPIM_REPORT_MLP_F        MLP features (default 8192; the paper: 16k and 32k)
  OPENPIM_REPORT_DLRM_BATCH   DLRM batch (default 8192)
  OPENPIM_REPORT_MLP_16K      1: also the MLP at the paper's 16k features on 1,024 DPUs (about 11 GB of
                              host memory and 3 min here; off by default)
"""
import csv
import math
import os

from openpim_report import TREND, UNCOMPARED, Row, Section, Table, matplotlib_pyplot

TITLE = "PID-Comm applications: DLRM and MLP ([PIDComm] §VII)"
ORDER = 61

PID = "[PIDComm] (PID-Comm, ISCA 2024)"
LARGELY = 1.5  # "largely reduced": read as at least 1.5x (the paper gives no number)
RANGE15 = (1.20, 3.99)  # Fig. 15: the speedups of the paper's five applications span this range

WHY_CPU = ("the CPU side is our plain-C reference on one thread of this host (the best of "
           "all its runs in this study), the paper's a 10-core Xeon Gold 5215 running PrIM's CPU versions; the "
           "ratio depends on that CPU as much as on the PIM side")
WHY_APPS = "the paper's figure covers five applications (DLRM, GNN x2, BFS, CC, MLP); this row only DLRM and the MLP"
WHY_MLP_SIZE = ("our MLP has %d features (the paper 16k and 32k): the DPU kernel shrinks with F^2, the ReduceScatter "
                "with F, so a larger F makes the kernel share and hence the time larger")


def _read(path):
    with open(path) as f:
        return list(csv.DictReader(f, fieldnames=None))


def _geo(xs):
    xs = [x for x in xs if x > 0]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def _label(app):
    if app.startswith("dlrm_d"):
        return "DLRM dim %s" % app[6:]
    if app.startswith("mlp_f"):
        return "MLP %s features" % app[5:]
    return app


def run(ctx):
    plt = matplotlib_pyplot()
    F = os.environ.get("OPENPIM_REPORT_MLP_F", "8192")
    B = os.environ.get("OPENPIM_REPORT_DLRM_BATCH", "8192")
    csv_path = os.path.join(ctx.work, "apps.csv")
    steps_path = os.path.join(ctx.work, "steps.csv")
    for p in (csv_path, steps_path):  # the benchmarks append (header first into an empty file)
        if os.path.exists(p):
            os.remove(p)
    cmd, _ = ctx.run(["bench/pidcomm_apps/dlrm_mlp_run.sh", ctx.build, "fig21"],
                     env={"PIDCOMM_APPS_CSV": csv_path, "PIDCOMM_APPS_STEPS_CSV": steps_path,
                          "PIDCOMM_APPS_MLP_F": F, "PIDCOMM_APPS_DLRM_BATCH": B}, timeout=3 * 3600)
    rows = _read(csv_path)
    steps = _read(steps_path)
    apps = sorted({r["app"] for r in rows}, key=lambda a: (not a.startswith("dlrm"), a))
    pes = sorted({int(r["pes"]) for r in rows})
    T = {(r["app"], r["variant"], int(r["pes"])): r for r in rows}
    # The CPU reference does the same work at every PE count: its best time over the study.
    cpu = {a: min(float(r["cpu_us"]) for r in rows if r["app"] == a) for a in apps}
    top = max(pes)

    def tot(a, v, n):
        return float(T[(a, v, n)]["total_us"])

    sec = Section(title=TITLE, intro=(
        "PID-Comm's DLRM (3D cube: AlltoAll over xyz, ReduceScatter along y, AlltoAll over xz; Criteo-like "
        "synthetic data, embedding dimensions 16 and 32, batch %s) and MLP (1D cube, 5 layers, ReduceScatter "
        "after each; %s features, batch 1) on comm/, with comm's baseline (SimplePIM-style host-mediated) and "
        "optimised (PR+IM+CM) implementations; workloads/dlrm and workloads/mlp. DLRM runs its remaining layers on "
        "the DPUs too: the dot interaction and the Criteo top MLP (325-512-256-1, int8 weights, requantised "
        "activations). Times are OpenPIM's modelled "
        "times (timing model for transfers and DPU kernels, comm's cost model for host work); every result of "
        "every run equals the CPU reference bit for bit (the benchmark exits non-zero otherwise). The CPU "
        "reference is timed on this host in the same run (CPU time of one thread). DLRM's cube is 8 table "
        "groups x rows x dim/4 column shards; the tables are Criteo's cardinalities capped at 1 M rows. "
        "Not modelled: DLRM's dense features and bottom MLP."
        % (B, F)))

    # ---- Figure 13: breakdown at 1,024 PEs --------------------------------------------------------
    cats = [("kernel", "Kernel"), ("alltoall", "AlltoAll"), ("reduce_scatter", "ReduceScatter"),
            ("scatter", "Scatter"), ("gather", "Gather")]

    def cat_of(step):
        if step.startswith("kernel"):
            return "kernel"
        if step.startswith("alltoall"):
            return "alltoall"
        if step.startswith("reduce_scatter"):
            return "reduce_scatter"
        return step

    br = {}
    for s in steps:
        if int(s["pes"]) != top:
            continue
        k = (s["app"], s["variant"])
        br.setdefault(k, {c: 0.0 for c, _ in cats})
        br[k][cat_of(s["phase"])] += float(s["us"])
    fig, ax = plt.subplots(figsize=(8, 3.4))
    labels, x = [], 0
    for a in apps:
        base = tot(a, "baseline", top)
        for v in ("baseline", "optimised"):
            bottom = 0.0
            for j, (c, name) in enumerate(cats):
                h = br[(a, v)][c] / base
                ax.bar(x, h, 0.7, bottom=bottom, color="C%d" % j, label=name if x == 0 else None)
                bottom += h
            labels.append("%s\n%s" % (_label(a), "base" if v == "baseline" else "opt"))
            x += 1
    ax.set_xticks(range(len(labels)))
    ax.set_xticklabels(labels, fontsize=7)
    ax.set_ylabel("time / baseline total")
    ax.legend(fontsize=7, ncol=5, loc="upper right")
    fig.tight_layout()
    sec.figures.append(ctx.figure(fig, "PID-Comm Fig. 13 analogue: modelled breakdown at %d DPUs, normalised to "
                                       "each app's baseline" % top, [cmd]))
    r13 = []
    for a in apps:
        b, o = T[(a, "baseline", top)], T[(a, "optimised", top)]
        cb, co = float(b["comm_us"]), float(o["comm_us"])
        r13.append(Row("communication share of the baseline's time", _label(a) + ", %d PEs" % top,
                       cb / float(b["total_us"]), None, PID + " Fig. 13", unit="", fmt="%.2f", kind=UNCOMPARED,
                       how="AlltoAll + ReduceScatter over the total, modelled"))
        red = cb / co
        r13.append(Row("communication time reduced (baseline / optimised)", _label(a) + ", %d PEs" % top, red,
                       "largely reduced for all applications", PID + " §VIII-C", unit="x", kind=TREND,
                       test="at least %gx (the paper gives no number)" % LARGELY, holds=red >= LARGELY,
                       note="" if red >= LARGELY else "comm gains less than %gx here" % LARGELY))
        hs = max(float(b["host_us"]) / float(b["total_us"]), float(o["host_us"]) / float(o["total_us"]))
        r13.append(Row("share of the host-rooted transfers (Scatter + Gather)", _label(a) + ", %d PEs" % top, hs,
                       "Gather and Broadcast at most 7%", PID + " §VIII-C", unit="", fmt="%.3f", kind=TREND,
                       test="at most 0.07 of the time in both implementations", holds=hs <= 0.07,
                       note="" if hs <= 0.07 else "Scatter and Gather weigh more in this app than in the paper's"))
    dl = [a for a in apps if a.startswith("dlrm")]
    ml = [a for a in apps if a.startswith("mlp")]
    if dl and ml:
        share = {a: float(T[(a, "baseline", top)]["comm_us"]) / float(T[(a, "baseline", top)]["total_us"])
                 for a in apps}
        holds = max(share[a] for a in dl) < min(share[a] for a in ml)
        r13.append(Row("DLRM has the smaller communication share", "%d PEs, baseline" % top,
                       "DLRM %s vs MLP %s" % ("/".join("%.2f" % share[a] for a in dl),
                                               "/".join("%.2f" % share[a] for a in ml)),
                       "DLRM: a smaller portion, hence a lower speedup", PID + " §VIII-C", kind=TREND,
                       test="every DLRM's share below every MLP's", holds=holds,
                       note="" if holds else ("our DLRM's AlltoAll over xyz and ReduceScatter along y carry B x "
                                              "tables x pooling indices and B x tables x dim/Z partial sums per PE "
                                              "(the sums mostly zeros with one index per feature); "
                                              + WHY_MLP_SIZE % int(F))))
    sec.tables.append(Table("Fig. 13: breakdown at %d PEs" % top, r13, [cmd]))

    # ---- Figure 15: speedup over the baseline at 1,024 PEs ----------------------------------------
    sp = {a: tot(a, "baseline", top) / tot(a, "optimised", top) for a in apps}
    fig, ax = plt.subplots(figsize=(5, 3))
    ax.bar(range(len(apps)), [sp[a] for a in apps], 0.6)
    ax.axhspan(*RANGE15, color="grey", alpha=0.2, label="paper's range, 5 apps")
    ax.axhline(1.99, color="k", ls="--", lw=1, label="paper's geomean")
    ax.set_xticks(range(len(apps)))
    ax.set_xticklabels([_label(a) for a in apps], fontsize=8)
    ax.set_ylabel("speedup over the baseline")
    ax.legend(fontsize=7)
    fig.tight_layout()
    sec.figures.append(ctx.figure(fig, "PID-Comm Fig. 15 analogue: modelled speedup of the optimised "
                                       "implementation at %d DPUs" % top, [cmd]))
    r15 = []
    for a in apps:
        inside = RANGE15[0] <= sp[a] <= RANGE15[1]
        r15.append(Row("speedup over the baseline", _label(a) + ", %d PEs" % top, "%.2fx" % sp[a],
                       "1.20-3.99x (range, 5 apps)", PID + " Fig. 15", kind=TREND,
                       test="inside the paper's range over its five apps, 1.20x-3.99x", holds=inside,
                       note="" if inside else (
                           "our baseline's single-threaded scalar ReduceScatter (comm's cost model: SimplePIM's "
                           "loop at 3 GB/s) dominates this app's baseline" if sp[a] > 3.99 else
                           "the DPU kernels dominate this app here; " + (WHY_MLP_SIZE % int(F)
                                                                         if a.startswith("mlp") else ""))))
    g = _geo(sp.values())
    r15.append(Row("geomean speedup", "DLRM d16, d32, MLP at %d PEs" % top, g, 1.99, PID + " Fig. 15", unit="x",
                   kind=UNCOMPARED, fmt="%.2f",
                   note=WHY_APPS + ": the five-app geomean, the comparison, is in the graph applications' section"))
    if dl and ml:
        lower = max(sp[a] for a in dl) < min(sp[a] for a in ml)
        r15.append(Row("DLRM gains less than the other apps", "%d PEs" % top,
                       "DLRM %s vs MLP %s" % ("/".join("%.2f" % sp[a] for a in dl), "/".join("%.2f" % sp[a] for a in ml)),
                       "DLRM relatively low (small comm portion)", PID + " §VIII-C", kind=TREND,
                       test="every DLRM's speedup below every MLP's", holds=lower,
                       note="" if lower else "see the Fig. 13 row on the communication share"))
    sec.tables.append(Table("Fig. 15: speedup over the baseline", r15, [cmd]))

    # ---- Figure 21: against the CPU over 64 .. 1,024 PEs ------------------------------------------
    fig, ax = plt.subplots(figsize=(6, 3.4))
    vs = {}
    for j, a in enumerate(apps):
        for v, ls in (("baseline", "--"), ("optimised", "-")):
            ys = [cpu[a] / tot(a, v, n) for n in pes if (a, v, n) in T]
            vs[(a, v)] = ys
            ax.plot([n for n in pes if (a, v, n) in T], ys, ls, marker="o", color="C%d" % j,
                    label="%s, %s" % (_label(a), v))
    ax.axhline(1, color="k", lw=0.8)
    ax.set_xscale("log", base=2)
    ax.set_xlabel("PEs")
    ax.set_ylabel("speedup over the CPU reference")
    ax.legend(fontsize=6)
    fig.tight_layout()
    sec.figures.append(ctx.figure(fig, "PID-Comm Fig. 21 analogue: modelled PIM time against the CPU reference "
                                       "measured on this host (one thread)", [cmd]))
    r21 = []
    for a in apps:
        for v in ("baseline", "optimised"):
            ys = vs[(a, v)]
            grows = ys[-1] > ys[0]
            r21.append(Row("speedup over the CPU grows with the PEs", "%s, %s, %d -> %d PEs" % (_label(a), v, pes[0],
                                                                                               pes[-1]),
                           " -> ".join("%.2f" % y for y in ys), "improves with the PEs (DLRM, GNN, MLP)",
                           PID + " §VIII-G", kind=TREND, test="larger at the largest PE count than at the smallest",
                           holds=grows,
                           note="" if grows else "not larger at %d PEs than at %d here" % (pes[-1], pes[0])))
    for a in ml:
        for v, pub in (("baseline", 3.18), ("optimised", 7.89)):
            r21.append(Row("largest speedup over the CPU", "%s, %s" % (_label(a), v), max(vs[(a, v)]), pub,
                           PID + " Fig. 21 (MLP, 64-1024 PEs)", unit="x", kind=UNCOMPARED, fmt="%.2f",
                           note="not comparable: " + WHY_CPU + "; " + WHY_MLP_SIZE % int(F)))
    for v, pub in (("baseline", 2.27), ("optimised", 4.07)):
        r21.append(Row("geomean speedup over the CPU", "DLRM d16, d32, MLP, %d-%d PEs, %s" % (pes[0], pes[-1], v),
                       _geo([y for a in apps for y in vs[(a, v)]]), pub, PID + " §VIII-G", unit="x",
                       kind=UNCOMPARED, fmt="%.2f", note="not comparable: " + WHY_CPU + "; " + WHY_APPS))
    gain = _geo([vs[(a, "optimised")][i] / vs[(a, "baseline")][i] for a in apps for i in range(len(pes))])
    r21.append(Row("optimised over baseline, same CPU", "geomean over apps and PEs", gain, 4.07 / 2.27,
                   PID + " §VIII-G (4.07 / 2.27)", unit="x", kind=UNCOMPARED, fmt="%.2f",
                   note="not compared: " + WHY_APPS + "; the CPU cancels out of this ratio; at 64-256 PEs our DLRM is bound by its "
                        "top MLP on the DPUs, where both implementations take nearly the same time"))
    sec.tables.append(Table("Fig. 21: against the CPU, %d-%d PEs" % (pes[0], pes[-1]), r21, [cmd]))
    if os.environ.get("OPENPIM_REPORT_MLP_16K") == "1":
        p16 = os.path.join(ctx.work, "mlp16k.csv")
        if os.path.exists(p16):
            os.remove(p16)
        c16, _ = ctx.run(["bench/pidcomm_apps/dlrm_mlp_run.sh", ctx.build, "mlp", "1024", "16384", "1", "5"],
                         env={"PIDCOMM_APPS_CSV": p16}, timeout=3600)
        m16 = {r["variant"]: r for r in _read(p16)}
        cpu16 = float(m16["baseline"]["cpu_us"])
        s16 = float(m16["baseline"]["total_us"]) / float(m16["optimised"]["total_us"])
        inside = RANGE15[0] <= s16 <= RANGE15[1]
        r16 = [Row("speedup over the baseline", "MLP 16384 features, 1024 PEs", "%.2fx" % s16,
                   "1.20-3.99x (range, 5 apps)", PID + " Fig. 15", kind=TREND,
                   test="inside the paper's range over its five apps, 1.20x-3.99x", holds=inside,
                   note="" if inside else "outside the paper's range")]
        for v, pub in (("baseline", 3.18), ("optimised", 7.89)):
            r16.append(Row("speedup over the CPU", "MLP 16384 features, 1024 PEs, " + v,
                           cpu16 / float(m16[v]["total_us"]), pub, PID + " Fig. 21 (MLP, largest over the PEs)",
                           unit="x", kind=UNCOMPARED, fmt="%.2f", note="not comparable: " + WHY_CPU))
        sec.tables.append(Table("MLP at the paper's size (16k features, 1,024 PEs)", r16, [c16]))
    sec.notes.append("CPU reference times (best over the study, this host, one thread): " +
                     ", ".join("%s %.1f ms" % (_label(a), cpu[a] / 1e3) for a in apps) + ".")
    return sec
