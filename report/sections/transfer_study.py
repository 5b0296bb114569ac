# SPDX-License-Identifier: MIT
"""Section: the data-transfer study [XferStudy] ("Analysis of Data Transfers
with UPMEM Data Processing Units": a 40-rank server, Xeon Silver 4215 with an
11 MB L3, SDK 2023.2), reproduced on the emulated 40-rank server by
bench/transfer_study/run.sh.  The paper gives its results as figures and
statements without numbers; each statement becomes one row.

Two statements are constants of the paper's server preset
(timing/presets/server-xferstudy.desc): retrieval at half the sending rate and
the WRAM broadcast at 3x the MRAM one.  With that preset their rows are
calibrated inputs (the preset's keys are read, not assumed); with a machine
that does not set those keys they are predictions.

Environment:
  OPENPIM_REPORT_STUDY_PROFILE   machine keys for the study (UPMEM_PROFILE);
                                 default server=xferstudy, the paper's own server
                                 (timing/presets/server-xferstudy.desc)
  OPENPIM_REPORT_BUDGET_MB       host memory the end-to-end runs may use (8192)
  OPENPIM_REPORT_STUDY_RANKS     rank counts run end to end ("1 2 5 10 20 40")
"""
import csv
import io
import os

from openpim_report import (CALIBRATED, MISS, PREDICTION, RATIO, SELF_CHECK, TREND, ReportError, Row, Section, Table,
                            matplotlib_pyplot)
from openpim_report.presets import preset_file, preset_keys

TITLE = "Data-transfer study [XferStudy]: broadcast, blocks, retrieval, WRAM"
ORDER = 20

PAPER = "[XferStudy] (Analysis of Data Transfers with UPMEM DPUs)"
L3_MB = 11  # the paper's host: Xeon Silver 4215, 11 MB L3 (paper §3)
MB = 1 << 20
GAP_MARGIN = 1.05  # "broadcast benefits from the cache": the gap inside the L3 exceeds the one beyond by 5 %

DEFAULT_PROFILE = "server=xferstudy"  # timing/presets/server-xferstudy.desc: the paper's server
# the keys that feed the paper's retrieval and WRAM statements into a machine description
RETRIEVAL_KEYS = ("d2h_rank_gbps", "d2h_chan_gbps", "d2h_cap_gbps", "d2h_serial_gbps")
WRAM_KEY = "h2d_wram_bcast_factor"

# Why a description may miss the paper's statements (calibration-sources §3.3, §3.4).
WHY_RETRIEVAL = ("the description's DPU->CPU curves against its CPU->DPU ones: the 2024 cloud-server tables "
                 "(calibration-sources §3.3) have retrieval 2-3.5x slower per rank and ~4x at 40 ranks; small "
                 "transfers add the per-call fixed costs (calibration-sources §3.3, 32-B row); the paper's server "
                 "preset (server=xferstudy) halves the CPU->DPU curves instead")
WHY_WRAM = ("without h2d_wram_bcast_factor a WRAM (__host) broadcast costs a parallel WRAM push through the "
            "control interface (calibration-sources §3.4), 4x (8 B) to >200x (>=2 KB) slower than MRAM; the "
            "paper's server preset sets the factor to its ~3x")
WHY_BLOCK = ("without host_llc_bytes the broadcast follows the per-DPU curves (calibration-sources §3.3), whose best "
             "per-rank rate is at 0.25-2 MB per DPU; with it (the paper's 11 MB L3, server=xferstudy) a block that "
             "fits the cache runs at the curves' best rate up to its size, so the largest block that fits wins")
WHY_BCAST_GAP = ("without host_llc_bytes the model's broadcast is the parallel transfer sped up by a constant "
                 "h2d_bcast_speedup (calibration-sources §3.2) at every size, so the gap cannot depend on the L3; "
                 "the paper's server preset models its 11 MB L3")


def _fmt_size(b):
    b = int(b)
    if b >= MB and b % MB == 0:
        return "%d MB" % (b // MB)
    if b >= 1024 and b % 1024 == 0:
        return "%d KB" % (b // 1024)
    return "%d B" % b


def parse(text):
    """records -> {(kind, ranks, size, block): (us, how)} preferring end-to-end
    values, the model values, the skipped points and memory records."""
    e2e, model, skipped, mem = {}, {}, {}, {}
    for rec in csv.reader(io.StringIO(text)):
        if not rec or rec[0].startswith("#"):
            continue
        tag = rec[0]
        if tag in ("e2e", "model", "skip"):
            key = (rec[1], int(rec[2]), int(rec[3]), int(rec[4]))
            {"e2e": e2e, "model": model, "skip": skipped}[tag][key] = float(rec[5])
        elif tag == "mem":
            mem[int(rec[1])] = (float(rec[2]), float(rec[3]))
        else:
            raise ReportError("transfer study: unknown record %r" % rec)
    if not model:
        raise ReportError("transfer study: no model records in the output")
    return e2e, model, skipped, mem


class Data:
    def __init__(self, e2e, model):
        self.e2e, self.model = e2e, model

    def t(self, kind, ranks, size, block=None):
        key = (kind, ranks, size, size if block is None else block)
        if key in self.e2e:
            return self.e2e[key], "SDK end to end"
        if key not in self.model:
            raise ReportError("transfer study: no value for %r" % (key,))
        return self.model[key], "timing model direct"

    def us(self, *a, **k):
        return self.t(*a, **k)[0]

    def how(self, *keys):
        hows = {self.t(*k)[1] for k in keys}
        return hows.pop() if len(hows) == 1 else "mixed: " + " + ".join(sorted(hows))


def run(ctx):
    plt = matplotlib_pyplot()
    budget = os.environ.get("OPENPIM_REPORT_BUDGET_MB", "8192")
    ranks_e2e = os.environ.get("OPENPIM_REPORT_STUDY_RANKS", "1 2 5 10 20 40")
    profile = os.environ.get("OPENPIM_REPORT_STUDY_PROFILE") or DEFAULT_PROFILE
    env = {"STUDY_BUDGET_MB": budget, "STUDY_RANKS": ranks_e2e, "UPMEM_PROFILE": profile}
    desc = preset_file(ctx.root, profile)
    keys = preset_keys(desc)
    fed_retrieval = [k for k in RETRIEVAL_KEYS if k in keys]
    fed_wram = keys.get(WRAM_KEY)
    cmd, out = ctx.run(["bench/transfer_study/run.sh", ctx.build], env=env, timeout=3 * 3600)
    with open(os.path.join(ctx.work, "results.csv"), "w") as f:
        f.write(out)
    e2e, model, skipped, mem = parse(out)
    D = Data(e2e, model)
    cmds = [cmd]
    ranks = sorted({k[1] for k in model})
    sizes = sorted({k[2] for k in model if k[0] == "bcast" and k[2] == k[3]})
    psizes = sorted({k[2] for k in model if k[0] == "to"})
    blocks = sorted({k[3] for k in model if k[0] == "bcast" and k[3] != k[2]} | {64 * MB})
    wsizes = sorted({k[2] for k in model if k[0] == "wbcast"})
    colour = {r: "C%d" % i for i, r in enumerate(ranks)}  # one colour per rank count in every figure

    def label(r):
        return "%d rank%s" % (r, "s" if r > 1 else "")

    sec = Section(title=TITLE)
    biggest = max(model, key=lambda k: k[2] * k[1])
    need_gib = biggest[2] * biggest[1] * 64 / (1 << 30)
    fed = ", ".join((["`%s` = %s" % (WRAM_KEY, fed_wram)] if fed_wram else []) +
                    (["the DPU->CPU curves (`%s`)" % "`, `".join(fed_retrieval)] if fed_retrieval else []))
    sec.intro = (
        "The paper measured a 40-rank server (20 DIMMs, 2,560 DPUs at 350 MHz; Xeon Silver 4215 at 2.5 GHz with an "
        "11 MB L3; SDK 2023.2) transferring arrays of 32-bit integers, and states its findings without numbers. "
        "The same transfers run here on the emulated 40-rank server (`bench/transfer_study/`: study_host.c through "
        "the SDK, times from `openpim_modelled_time_us()`; every transfer's data is checked)."
        "\n\n"
        "Host memory: the emulator backs MRAM where it is written, so the largest point (%s per DPU on %d ranks) "
        "would need %.0f GiB of MRAM. Points that fit %s MB of host memory run end to end through the SDK "
        "(STUDY_BUDGET_MB); the others are the same SDK calls evaluated on the timing model directly "
        "(study_model.c, op_xfer_time_us, the function the SDK calls); the self-check row compares both where "
        "both run. Rows say which kind each value is."
        "\n\n"
        "Machine: UPMEM_PROFILE=%s (%s). The paper's server preset (`timing/presets/server-xferstudy.desc`) takes "
        "the 2024 UPMEM cloud server's per-DPU curves and fixed costs (calibration-sources §3.3; the paper "
        "publishes no per-size number) and adds the paper's host: its 11 MB L3 (`host_llc_bytes`: a broadcast "
        "block that fits stays cached and runs at the curves' best rate; larger blocks are memory-bound like "
        "per-DPU data). %s The block-size, 30 %% and L3-gap rows follow from the L3 model: they are predictions "
        "and trends."
        % (_fmt_size(biggest[2]), biggest[1], need_gib, budget, profile,
           ctx.rel(desc) if desc else "no preset file",
           ("This machine feeds two of the paper's statements in as constants: %s; their rows are calibrated "
            "inputs, shown grey and not counted." % fed) if fed else
           "This machine sets neither the retrieval curves nor the WRAM factor from the paper: those rows are "
           "predictions."))
    for r in sorted(mem):
        sec.notes.append("%s end to end: emulator memory %.0f MB, host process peak RSS %.0f MB" %
                         (label(r), mem[r][0], mem[r][1]))
    if skipped:
        small = sorted(skipped, key=lambda k: k[2] * k[1])[0]
        sec.notes.append("%d points over the memory budget were evaluated on the timing model only (from %s x %d "
                         "ranks = %.0f MB of MRAM upwards)" % (len(skipped), _fmt_size(small[2]), small[1],
                                                             small[2] * small[1] * 64 / MB))

    # ---- agreement of the two paths
    both = [k for k in e2e if k in model]
    worst = max((abs(e2e[k] / model[k] - 1) for k in both if model[k] > 0), default=None)
    if worst is None:
        raise ReportError("transfer study: no point ran both end to end and on the model")
    rows_check = [Row("SDK end to end = timing model direct", "%d points run both ways" % len(both),
                      "max difference %.2g%%" % (100 * worst), "identical (same model)",
                      "bench/transfer_study/study_model.c", kind=SELF_CHECK, test="every point differs by < 0.01 %",
                      holds=worst < 1e-4, how="both",
                      note="" if worst < 1e-4 else "the SDK's mapping of a call differs from study_model.c's: "
                      "the points evaluated directly are not trustworthy")]

    # ---- Fig. 2: broadcast time versus ranks and size (the paper gives trends, no number)
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(13, 4.6))
    for r in ranks:
        a1.plot(sizes, [D.us("bcast", r, s) / 1e3 for s in sizes], "-", color=colour[r], label=label(r))
        ee = [(s, e2e[("bcast", r, s, s)] / 1e3) for s in sizes if ("bcast", r, s, s) in e2e]
        a1.plot([s for s, _ in ee], [y for _, y in ee], "o", mfc="none", color=colour[r])
    a1.set_xscale("log", base=2)
    a1.set_yscale("log")
    a1.set_xlabel("bytes per DPU (one dpu_broadcast_to)")
    a1.set_ylabel("modelled time (ms)")
    a1.set_title("Broadcast time vs size (line: model, o: SDK end to end)", fontsize=10)
    a1.legend(fontsize=7)
    for i, s in enumerate([x for x in sizes if x >= 64 * 1024]):
        a2.plot(ranks, [D.us("bcast", r, s) / 1e3 for r in ranks], "o-", color="C%d" % i, label=_fmt_size(s))
    a2.set_yscale("log")
    a2.set_xlabel("ranks allocated")
    a2.set_ylabel("modelled time (ms)")
    a2.set_title("Broadcast time vs ranks (paper Fig. 2)", fontsize=10)
    a2.legend(fontsize=7)
    sec.figures.append(ctx.figure(fig, "Paper Fig. 2 analogue: time to broadcast the same array to every DPU of "
                                  "1-40 ranks. Paper: time increases with the number of ranks and the size (no "
                                  "number published, so none is overlaid).", cmds))
    inc_size = [(r, a, b) for r in ranks for a, b in zip(sizes, sizes[1:])]
    bad_size = [(r, a, b) for r, a, b in inc_size if not D.us("bcast", r, b) > D.us("bcast", r, a)]
    inc_ranks = [(s, a, b) for s in sizes for a, b in zip(ranks, ranks[1:])]
    bad_ranks = [(s, a, b) for s, a, b in inc_ranks if not D.us("bcast", b, s) > D.us("bcast", a, s)]

    # ---- Fig. 3: 64 MB in blocks
    total = 64 * MB
    fig, ax = plt.subplots(figsize=(8, 4.6))
    best = {}
    for r in ranks:
        ys = [D.us("bcast", r, total, b) / 1e3 for b in blocks]
        ax.plot(blocks, ys, "o-", color=colour[r], label=label(r))
        i = min(range(len(blocks)), key=lambda j: ys[j])
        best[r] = blocks[i]
        ax.plot([blocks[i]], [ys[i]], "o", ms=13, mfc="none", mec=colour[r], mew=2)
    ax.axvline(8 * MB, color="k", ls="--", lw=1, label="paper: best block 8 MB")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xticks(blocks)
    ax.set_xticklabels([_fmt_size(b) for b in blocks])
    ax.set_xlabel("block size (64 MB per DPU broadcast in 64 MB / block calls)")
    ax.set_ylabel("modelled time (ms)")
    ax.set_title("Broadcasting 64 MB in blocks (large circles: minimum of each series)", fontsize=10)
    ax.legend(fontsize=7)
    sec.figures.append(ctx.figure(fig, "Paper Fig. 3 analogue. Paper: at 10 ranks, 8 blocks of 8 MB are 30 % "
                                  "faster than one 64 MB transfer; 8 MB is the best block size for the other "
                                  "series as well (dashed line).", cmds))
    r10 = 10 if 10 in ranks else ranks[len(ranks) // 2]
    t8, t64 = D.us("bcast", r10, total, 8 * MB), D.us("bcast", r10, total, total)

    # ---- Fig. 4: broadcast versus different data per DPU
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(13, 4.6))
    for r in ranks:
        a1.plot(psizes, [D.us("to", r, s) / D.us("bcast", r, s) for s in psizes], "o-", color=colour[r],
                label=label(r))
    a1.axhline(1.0, color="k", ls="--", lw=1, label="paper: broadcast faster (ratio > 1)")
    a1.axvspan(psizes[0], L3_MB * MB, color="#ffe9a8", alpha=0.5, label="fits the paper's 11 MB L3")
    a1.set_xscale("log", base=2)
    a1.set_xlabel("bytes per DPU")
    a1.set_ylabel("t(different data per DPU) / t(broadcast)")
    a1.set_title("Broadcast vs different data per DPU (paper Fig. 4)", fontsize=10)
    a1.legend(fontsize=7)
    for r in (ranks[0], r10, ranks[-1]):
        a2.plot(psizes, [D.us("to", r, s) / 1e3 for s in psizes], "o-", color=colour[r],
                label="different data, %s" % label(r))
        a2.plot(psizes, [D.us("bcast", r, s) / 1e3 for s in psizes], "s--", color=colour[r],
                label="broadcast, %s" % label(r))
    a2.set_xscale("log", base=2)
    a2.set_yscale("log")
    a2.set_xlabel("bytes per DPU")
    a2.set_ylabel("modelled time (ms)")
    a2.legend(fontsize=7)
    sec.figures.append(ctx.figure(fig, "Paper Fig. 4 analogue. Paper: broadcasting is faster than sending "
                                  "different data to each DPU; broadcast benefits from the host's cache while "
                                  "the data fits the 11 MB L3.", cmds))

    # ---- Fig. 5: retrieval versus sending
    fig, ax = plt.subplots(figsize=(8, 4.6))
    for r in ranks:
        ax.plot(psizes, [D.us("from", r, s) / D.us("to", r, s) for s in psizes], "o-", color=colour[r],
                label=label(r))
    ax.axhline(2.0, color="k", ls="--", lw=1, label="paper: about 2x")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("bytes per DPU (different data per DPU)")
    ax.set_ylabel("t(retrieve) / t(send)")
    ax.set_title("Retrieval vs sending (paper Fig. 5)", fontsize=10)
    ax.legend(fontsize=7)
    sec.figures.append(ctx.figure(fig, "Paper Fig. 5 analogue: dpu_push_xfer FROM_DPU against TO_DPU of the "
                                  "same size. Paper: retrieving is around twice slower than sending%s." %
                                  (" (fed into this machine's DPU->CPU curves: a calibrated input; small "
                                   "transfers differ by the per-call fixed costs)" if fed_retrieval else ""), cmds))

    # ---- Fig. 6: MRAM versus WRAM broadcast (a figure only when the ratio is not one constant)
    wr = [D.us("wbcast", r, s) / D.us("bcast", r, s) for r in ranks for s in wsizes]
    if max(wr) - min(wr) > 1e-3 * max(wr):
        fig, ax = plt.subplots(figsize=(8, 4.6))
        for r in ranks:
            ax.plot(wsizes, [D.us("wbcast", r, s) / D.us("bcast", r, s) for s in wsizes], "o-", color=colour[r],
                    label=label(r))
        ax.axhline(3.0, color="k", ls="--", lw=1, label="paper: about 3x")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("bytes per DPU (broadcast)")
        ax.set_ylabel("t(WRAM) / t(MRAM)")
        ax.set_title("Broadcast into WRAM vs MRAM (paper Fig. 6)", fontsize=10)
        ax.legend(fontsize=7)
        sec.figures.append(ctx.figure(fig, "Paper Fig. 6 analogue: dpu_broadcast_to a __host WRAM array against "
                                      "the MRAM heap. Paper: writing into MRAM is around 3 times faster.", cmds))
    else:
        sec.notes.append("Fig. 6 (WRAM against MRAM broadcast) is not plotted: the modelled ratio is %.4g at every "
                         "size and rank count, the machine's constant (its row below)." % wr[0])

    rows_st = _statements(D, ranks, sizes, psizes, wsizes, blocks, bad_size, inc_size, bad_ranks, inc_ranks,
                          r10, t8 / t64, best, desc and ctx.rel(desc), fed_retrieval, fed_wram)
    sec.tables = [
        Table("The paper's statements, one row each (the figures above show every point)", rows_st, cmds),
        Table("Method check", rows_check, cmds),
    ]
    return sec


def _statements(D, ranks, sizes, psizes, wsizes, blocks, bad_size, inc_size, bad_ranks, inc_ranks, r10, r8_64,
                best, desc, fed_retrieval, fed_wram):
    """One row per statement of the paper (§3)."""
    total = 64 * MB
    all_b = [("bcast", r, s) for r in ranks for s in sizes]
    rows = [
        Row("broadcast time grows with the size", "%s-%s per DPU, %d rank counts" % (
            _fmt_size(sizes[0]), _fmt_size(sizes[-1]), len(ranks)), "%d/%d steps grow" % (
            len(inc_size) - len(bad_size), len(inc_size)), "increases", PAPER + ", §3 Fig. 2", kind=TREND,
            test="every step to the next size takes longer, at every rank count", holds=not bad_size,
            note=("not growing at: " + "; ".join("%d ranks %s->%s" % (r, _fmt_size(a), _fmt_size(b))
                                                  for r, a, b in bad_size[:6])) if bad_size else "",
            how=D.how(*all_b)),
        Row("broadcast time grows with the ranks", "%s ranks, every size" % "/".join(map(str, ranks)),
            "%d/%d steps grow" % (len(inc_ranks) - len(bad_ranks), len(inc_ranks)), "increases",
            PAPER + ", §3 Fig. 2", kind=TREND, test="every step to more ranks takes longer, at every size",
            holds=not bad_ranks,
            note=("flat or lower at: %s. In the model, ranks sharing a memory channel serialise and the channels "
                  "work in parallel (calibration-sources §3.1, §3.3: the 2024 tables show equal times for 1 and 2 "
                  "channels' worth of ranks at 32 MB), so adding ranks on idle channels costs no time" %
                  "; ".join("%s %d->%d ranks" % (_fmt_size(s), a, b) for s, a, b in bad_ranks[:6]))
            if bad_ranks else "", how=D.how(*all_b)),
        Row("8 x 8 MB / 1 x 64 MB broadcast (\"30 % faster\")", "%d ranks" % r10, r8_64, 0.70,
            PAPER + ", §3 Fig. 3", kind=PREDICTION, measure=RATIO, fmt="%.3f",
            how=D.how(("bcast", r10, total, 8 * MB), ("bcast", r10, total, total))),
    ]
    _why(rows[-1], "the model's gain from 8 MB blocks is %.0f %%; %s" % (100 * (1 - r8_64), WHY_BLOCK))
    n8 = sum(1 for r in ranks if best[r] == 8 * MB)
    rows.append(Row("best block size for 64 MB (\"8 MB, for other series as well\")",
                    "blocks %s-%s, %d rank counts" % (_fmt_size(blocks[0]), _fmt_size(blocks[-1]), len(ranks)),
                    ", ".join("%d: %s" % (r, _fmt_size(best[r])) for r in ranks), "8 MB", PAPER + ", §3 Fig. 3",
                    kind=TREND, test="the fastest block size is 8 MB at every rank count", holds=n8 == len(ranks),
                    note="" if n8 == len(ranks) else WHY_BLOCK,
                    how=D.how(*[("bcast", r, total, b) for r in ranks for b in blocks])))
    gaps = [D.us("to", r, s) / D.us("bcast", r, s) for r in ranks for s in psizes]
    rows.append(Row("t(different data) / t(broadcast)", "every size and rank count",
                    "%.2f-%.2f" % (min(gaps), max(gaps)), "> 1 (broadcast faster)", PAPER + ", §3 Fig. 4",
                    kind=TREND, test="the ratio is > 1 at every size and rank count", holds=min(gaps) > 1,
                    note="" if min(gaps) > 1 else "broadcast is not faster at every point",
                    how=D.how(*[(k, r, s) for k in ("to", "bcast") for r in ranks for s in psizes])))
    inside = [s for s in psizes if 1 * MB <= s <= 8 * MB]
    outside = [s for s in psizes if s >= 16 * MB]

    def gap_ratio(r):
        g = {s: D.us("to", r, s) / D.us("bcast", r, s) for s in inside + outside}
        return (sum(g[s] for s in inside) / len(inside)) / (sum(g[s] for s in outside) / len(outside))
    gr = [gap_ratio(r) for r in ranks]
    ok = min(gr) > GAP_MARGIN
    rows.append(Row("broadcast gap while the data fits the 11 MB L3 / beyond it",
                    "mean gap at %s-%s vs %s-%s, %d rank counts" % (_fmt_size(inside[0]), _fmt_size(inside[-1]),
                                                                     _fmt_size(outside[0]), _fmt_size(outside[-1]),
                                                                     len(ranks)),
                    "%.3f-%.3f" % (min(gr), max(gr)), "> 1 (broadcast benefits from the cache)",
                    PAPER + ", §3 Fig. 4", kind=TREND,
                    test="the mean gap inside the L3 exceeds the mean gap beyond it by more than %.0f %%, at every "
                         "rank count" % (100 * (GAP_MARGIN - 1)), holds=ok, note="" if ok else WHY_BCAST_GAP,
                    how=D.how(*[(k, r, s) for k in ("to", "bcast") for r in ranks for s in inside + outside])))
    # retrieval: the ratio where the per-call fixed costs are negligible (>= 8 MB per DPU), the range beside
    big = [s for s in psizes if s >= 8 * MB]
    pts5 = [(r, s) for r in ranks for s in psizes if s >= 32 * 1024]
    all5 = [D.us("from", r, s) / D.us("to", r, s) for r, s in pts5]
    ret = sum(D.us("from", r, s) / D.us("to", r, s) for r in ranks for s in big) / (len(ranks) * len(big))
    how5 = D.how(*[(k, r, s) for k in ("from", "to") for r, s in pts5])
    params5 = ("mean over %s-%s per DPU, %d rank counts (%.2f-%.2f from %s)" %
               (_fmt_size(big[0]), _fmt_size(big[-1]), len(ranks), min(all5), max(all5), _fmt_size(pts5[0][1])))
    if fed_retrieval:
        rows.append(Row("t(retrieve) / t(send) (\"around twice slower\")", params5, ret, 2.0,
                        PAPER + ", §3 Fig. 5", kind=CALIBRATED, measure=RATIO, fmt="%.3f", how=how5,
                        input="%s: %s set to the CPU->DPU curves / 2 from this statement" %
                        (desc, ", ".join(fed_retrieval))))
    else:
        rows.append(Row("t(retrieve) / t(send) (\"around twice slower\")", params5, ret, 2.0,
                        PAPER + ", §3 Fig. 5", kind=PREDICTION, measure=RATIO, fmt="%.3f", how=how5))
    _why(rows[-1], WHY_RETRIEVAL)
    wr = [D.us("wbcast", r, s) / D.us("bcast", r, s) for r in ranks for s in wsizes]
    wmean = sum(wr) / len(wr)
    params6 = "mean over %s-%s per DPU, %d rank counts (%.4g-%.4g)" % (_fmt_size(wsizes[0]), _fmt_size(wsizes[-1]),
                                                                       len(ranks), min(wr), max(wr))
    how6 = D.how(*[(k, r, s) for k in ("wbcast", "bcast") for r in ranks for s in wsizes])
    if fed_wram:
        rows.append(Row("t(WRAM broadcast) / t(MRAM broadcast) (\"around 3 times\")", params6, wmean, 3.0,
                        PAPER + ", §3 Fig. 6", kind=CALIBRATED, measure=RATIO, fmt="%.4g", how=how6,
                        input="%s: %s = %s from this statement" % (desc, WRAM_KEY, fed_wram)))
    else:
        rows.append(Row("t(WRAM broadcast) / t(MRAM broadcast) (\"around 3 times\")", params6, wmean, 3.0,
                        PAPER + ", §3 Fig. 6", kind=PREDICTION, measure=RATIO, fmt="%.4g", how=how6))
    _why(rows[-1], WHY_WRAM)
    return rows


def _why(row, text):
    """The explanation of a miss, on a row that misses only."""
    if row.status == MISS:
        row.note = text
