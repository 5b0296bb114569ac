# SPDX-License-Identifier: MIT
"""Section: the timing calibration (bench/calibration/run.sh) for every machine
description preset of timing/presets/: DPU kernels (arithmetic, WRAM, MRAM DMA)
and host transfers and launches against the published tables collected in
docs/calibration-sources.md.

The suite's own report.py compares the values; this section imports it, takes
its rows as they are (so the published values live in one place) and adds the
source, the status and why a row misses.

Environment:
  OPENPIM_REPORT_PRESETS   preset names to run (file stems, e.g. "v1A v1B"), or "all";
                           default: the published machines, v1A and every server-*.desc
                           that sets a key (server-cloud2024 is v1A's server: the same
                           run); the what-if presets and v1B, whose rows are never
                           compared, only when named
  OPENPIM_REPORT_CAL_E2E_MB   largest transfer run end to end (CAL_E2E_MAX_MB, 2048)
"""
import contextlib
import glob
import importlib.util
import io
import os
import sys
from collections import OrderedDict

from openpim_report import (CALIBRATED, KERNEL, MISS, TIME, UNCOMPARED, WITHIN, ReportError, Row, Section, Table,
                            matplotlib_pyplot)
from openpim_report.presets import preset_keys

TITLE = "Timing calibration: kernels and transfers against the published tables, per preset"
ORDER = 10
BASELINE = "v1A"  # the default machine; the other presets are compared with it

REF = "docs/calibration-sources.md"
SOURCES = {
    "§1.1×§1.2": "PrIM (arXiv 2105.03814) §3.1.1 Fig. 4 x the n/11 issue rule (calibration-sources §1.1, §1.2)",
    "§1.2": "PrIM (Gómez-Luna et al., arXiv 2105.03814) §3.1.1 Fig. 4 (calibration-sources §1.2)",
    "§1.3": "PrIM §3.1.2 Fig. 5, STREAM on WRAM (calibration-sources §1.3)",
    "§2.2": "PrIM §3.2.1 Fig. 6, MRAM latency (calibration-sources §2.2)",
    "§2.2/§2.3": "PrIM §3.2 Figs. 6-7 (calibration-sources §2.2, §2.3)",
    "§2.3": "PrIM §3.2.2 Fig. 7 (calibration-sources §2.3)",
    "§3.2": "PrIM §3.4 Figs. 10-11 (calibration-sources §3.2)",
    "§3.3": "UPMEM cloud server tables, Nov. 2024 (benbii/downmem upmemLut-mramxfer.c; calibration-sources §3.3)",
    "§3.5": "4-rank SDK 2023.2 server (Loremkang/upmem_communication_performance_test; calibration-sources §3.5)",
    "§3.4": "WRAM transfers: UPMEM cloud server tables (downmem wramxfer.c) and PrIM-era RED (calibration-sources §3.4)",
    "§6": "PrIM-era real-hardware runs shipped with uPIMulator (BS, GEMV; calibration-sources §6, §3.7)",
    "§3.7": "PrIM-era real-hardware runs shipped with uPIMulator (SEL, serial retrieval; calibration-sources §3.7)",
    "§7": "a real-hardware run of a mutex-per-update histogram, 16 tasklets, unpublished (calibration-sources §7)",
}
FIGURES = OrderedDict([
    ("arith_16tasklets.png", "Arithmetic throughput, 16 tasklets, against PrIM Fig. 4 (calibration-sources §1.2)"),
    ("arith_tasklets.png", "Arithmetic throughput versus tasklets against PrIM x min(1, n/11) (calibration-sources §1.1, §1.2)"),
    ("wram_stream.png", "STREAM on WRAM against PrIM Fig. 5 (calibration-sources §1.3)"),
    ("mram_latency.png", "MRAM DMA latency and bandwidth versus size, 1 tasklet, against PrIM Fig. 6 (calibration-sources §2.2)"),
    ("mram_tasklets.png", "Sustained MRAM bandwidth versus tasklets (calibration-sources §2.2, §2.3)"),
    ("xfer_vs_size.png", "Host push transfers versus size against the 2024 cloud-server tables (calibration-sources §3.3)"),
    ("xfer_vs_ranks.png", "Host push transfers versus ranks against the 2024 cloud-server tables (calibration-sources §3.3)"),
    ("launch.png", "dpu_launch overhead versus ranks (calibration-sources §3.5)"),
])


def presets(ctx):
    files = sorted(glob.glob(ctx.path("timing", "presets", "*.desc")))
    if not files:
        raise ReportError("no machine description presets in timing/presets/")
    by_name = OrderedDict((os.path.basename(f)[:-5], f) for f in files)
    want = os.environ.get("OPENPIM_REPORT_PRESETS", "").split()
    if not want:
        want = [n for n, f in by_name.items() if n == BASELINE or (n.startswith("server-") and preset_keys(f))]
    elif want == ["all"]:
        want = list(by_name)
    if want:
        missing = [w for w in want if w not in by_name]
        if missing:
            raise ReportError("OPENPIM_REPORT_PRESETS names %s; presets: %s" % (", ".join(missing),
                                                                               ", ".join(by_name)))
        by_name = OrderedDict((k, v) for k, v in by_name.items() if k in want)
    # the baseline first: the others' notes refer to it
    order = sorted(by_name, key=lambda n: (n != BASELINE, n))
    return [(n, by_name[n]) for n in order]


def preset_changes(path):
    """The keys a preset sets besides its base (`preset =`) and label."""
    return [k for k in preset_keys(path) if k not in ("preset", "name")]


def dpu_chip(path):
    """The -mcpu the suite's DPU programs need for this preset: the WRAM size
    of the description decides (the driver links for v1A's 65,536 B or v1B's
    63,488 B, calibration-sources §1.1)."""
    wram = preset_keys(path).get("wram_bytes", "65536")
    chips = {"65536": "v1A", "63488": "v1B"}
    if wram not in chips:
        raise ReportError("preset %s: wram_bytes %s matches no DPU chip the driver builds for" % (path, wram))
    return chips[wram]


def load_suite_report(ctx):
    path = ctx.path("bench", "calibration", "report.py")
    if os.path.dirname(path) not in sys.path:  # report.py imports its helpers (kernels_report.py) by name
        sys.path.insert(0, os.path.dirname(path))
    spec = importlib.util.spec_from_file_location("openpim_calibration_report", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    if not hasattr(mod, "Table") or not hasattr(mod, "main"):
        raise ReportError("bench/calibration/report.py no longer has Table and main(): update this section")
    return mod


def suite_rows(mod, csv_path, outdir):
    """Runs the suite's report.py on its results and returns (rows, notes, text)."""
    tables = []

    class Capture(mod.Table):
        def __init__(self):
            super().__init__()
            tables.append(self)

    saved_table, saved_argv = mod.Table, sys.argv
    mod.Table = Capture
    sys.argv = ["report.py", "--no-figures", csv_path, outdir]
    buf = io.StringIO()
    try:
        with contextlib.redirect_stdout(buf):
            rc = mod.main()
    finally:
        mod.Table, sys.argv = saved_table, saved_argv
    if rc not in (0, None) or len(tables) != 1:
        raise ReportError("bench/calibration/report.py failed on %s (exit %r):\n%s" % (csv_path, rc,
                                                                                       buf.getvalue()[-2000:]))
    text = buf.getvalue()
    notes = [l[len("note: "):] for l in text.splitlines() if l.startswith("note: ")]
    return tables[0].rows, notes, text


def why(group, meas, note, model, pub):
    """Why a row of the baseline misses, from what is known about the model and
    the sources (docs/calibration-sources.md); never empty."""
    if "noisy" in note:
        return ("the published entry is noisy: it is less than the 1,280-DPU value for twice the data "
                "(calibration-sources §3.3, table quirks)")
    if "latency" in meas:
        # PrIM's window: the cycles between two perfcounter_get() calls around
        # one mram_read/mram_write with one tasklet (every instruction then
        # costs the 11-cycle issue spacing, calibration-sources §1.1)
        return ("the model charges %.0f cycles (~%.0f instructions at 11 cycles each with one tasklet) more than "
                "PrIM's fit 77/61 + 0.5 B; the excess is nearly constant over sizes (it grows only by the "
                "description's 0.52 against 0.5 cycles per byte), so the modelled window holds more instruction "
                "slots than the ~5 that dma_read_fixed/dma_write_fixed (22/6) were derived with" %
                (model - pub, (model - pub) / 11.0))
    if "§3.2" in group:
        return ("PrIM's server (timing/presets/server-prim.desc) is fitted to 77 PrIM-era runs on 1 and 4 DPUs "
                "(bench/calibration/fit_prim.py): their one-DPU pushes run at 0.46-0.56 GB/s at 8-16 MB per DPU, "
                "where this row's recalled PrIM figure says 0.33; between 4 and 64 DPUs the curves are interpolated")
    if "§3.5" in group:
        return ("the 4-rank SDK 2023 box (timing/presets/server-loremkang.desc): fixed cost and two curve points "
                "per direction solved from its few published times; the others fall between them")
    if "small" in group:
        return ("a single published run (PrIM-era real-hardware data shipped with uPIMulator) whose transfer size "
                "is not published; the row assumes one")
    return "not diagnosed yet (the calibration suite, bench/calibration/, has the raw records)"


def convert(rows, changes, preset="v1A"):
    """The suite's rows as report rows (grouped by the suite's sections).
    changes: the keys a what-if preset changes ([] for v1A and the server
    presets).

    The constants of v1A and of each server preset were fitted to these
    published tables, so their rows are calibrated inputs (the deviation is
    the fit); a row measured on another server (report.py gives it no target)
    and every row of a what-if preset (hardware that was never measured) are
    shown without a comparison."""
    groups = OrderedDict()
    for (group, meas, params, model, pub, err, source, target, fmt, note) in rows:
        if model is None:
            continue
        src = SOURCES.get(source, "%s %s" % (REF, source))
        remark = note if note and not note.startswith("≈") else ""
        how = ""
        if "[" in params:
            params, how = params.rsplit("[", 1)
            params, how = params.strip(), how.rstrip("]")
        measure = KERNEL if target is not None and target <= 0.10 + 1e-9 else TIME
        if pub is None:
            r = Row(meas, params, model, None, src, kind=UNCOMPARED, fmt=fmt, note=remark, how=how)
        elif target is None:
            r = Row(meas, params, model, pub, src, kind=UNCOMPARED, fmt=fmt, how=how,
                    deviation="%+.1f%%" % (100 * (model / pub - 1)) if pub else "n/a",
                    note=(remark or "measured on another server") + ": judged only on its own server's preset")
        elif changes:
            r = Row(meas, params, model, pub, src, kind=UNCOMPARED, fmt=fmt, how=how,
                    deviation="%+.1f%%" % (100 * (model / pub - 1)) if pub else "n/a",
                    note=("this preset changes %s (what-if hardware or another chip); the published value was "
                          "measured on v1A servers, so it is shown, not compared. %s" %
                          (", ".join(changes), remark)).strip())
        else:
            r = Row(meas, params, model, pub, src, kind=CALIBRATED, measure=measure, fmt=fmt, how=how,
                    input="timing/presets/%s.desc, fitted to this table" % preset, note=remark)
            if r.status == MISS:
                r.note = (why(group, meas, note, model, pub) + (" " + remark if remark else "")).strip()
        r.key = (group, meas, params + (" [%s]" % how if how else ""))
        groups.setdefault(group, []).append(r)
    return groups


def run(ctx):
    plt = matplotlib_pyplot()
    mod = load_suite_report(ctx)
    e2e_mb = os.environ.get("OPENPIM_REPORT_CAL_E2E_MB", "2048")
    sec = Section(title=TITLE)
    sec.intro = (
        "The calibration suite (`bench/calibration/`, PrIM's methodology on OpenPIM's emulated server) runs once "
        "per machine-description preset of `timing/presets/` (selected with `desc_file=`), and its report.py sets "
        "the modelled values beside the published ones collected in %s. The constants of v1A and of each "
        "server preset were fitted to these tables: their rows are calibrated inputs (shown grey, judged by the "
        "page's kernel and time rules as the quality of the fit, never counted as reproduced); the held-out "
        "judgement of the model is a separate section. Transfer points up to %s MB (bytes per DPU x DPUs) run end "
        "to end through the SDK, larger ones are the same model evaluated directly (`xfer_model.c`); the suite "
        "checks that both agree. "
        "\n\n"
        "%s is the default machine (the 2024 cloud server, `server=cloud2024`). The `server-*` presets are the "
        "other published servers (`server=NAME`: the PrIM paper's server, the 2023 SDK four-rank box, the "
        "data-transfer study's server): each preset's transfer rows are set beside the rows measured on its own "
        "server; the other servers' rows are shown without a comparison. The remaining presets are what-if "
        "hardware or another chip: their rows are shown beside the published v1A-server values without a "
        "comparison, and say which keys the preset changes." % (REF, e2e_mb, BASELINE))
    summary = OrderedDict()  # preset -> group -> (within, total)
    figs_done = False
    errors = []
    for name, path in presets(ctx):
        out = os.path.join(ctx.work, name)
        os.makedirs(out, exist_ok=True)
        env = {"CAL_PROFILE": "desc_file=" + ctx.rel(path), "CAL_E2E_MAX_MB": e2e_mb}
        chip = dpu_chip(path)
        if chip != "v1A":  # the driver's default chip (every DPU program the suite builds)
            env["OPENPIM_DPU_ARCH"] = chip
        try:
            cmd, text = ctx.run(["bench/calibration/run.sh", ctx.build, out], env=env, timeout=3600)
            csv_path = os.path.join(out, "results.csv")
            if not os.path.exists(csv_path):
                raise ReportError("bench/calibration/run.sh wrote no %s" % csv_path)
            rows, notes, _ = suite_rows(mod, csv_path, out)
        except ReportError as e:  # the other presets still run; the section fails at the end
            errors.append("preset %s: %s" % (name, e))
            continue
        # a server preset (server-*.desc) is judged on its own server's published rows (report.py)
        changes = preset_changes(path) if name != BASELINE and not name.startswith("server-") else []
        groups = convert(rows, changes, name)
        wrong = [n for n in notes if "WRONG" in n]
        if wrong:
            errors.append("preset %s: the calibration kernels computed wrong results: %s" % (name, wrong))
        summary[name] = OrderedDict((g, (sum(r.status == WITHIN for r in rs),
                                         sum(r.kind == CALIBRATED for r in rs)))
                                    for g, rs in groups.items())
        label = "%s%s" % (name, " (default machine)" if name == BASELINE else
                          " — changes " + ", ".join(changes) if changes else "")
        for g, rs in groups.items():
            sec.tables.append(Table("%s — %s" % (label, g), rs, [cmd], collapsed=name != BASELINE))
        if name == BASELINE:
            # the suite's "MRAM latency diagnosis" note describes an older
            # description (dma_*_fixed 77/61); the rows' notes say why instead
            for n in notes:
                if not n.startswith("MRAM latency diagnosis"):
                    sec.notes.append("%s: %s" % (name, n))
            for fname, caption in FIGURES.items():
                p = os.path.join(out, fname)
                if os.path.exists(p):
                    sec.figures.append(ctx.figure_file(p, "%s (%s preset; the suite's report.py figure)" %
                                                       (caption, name), [cmd]))
                    figs_done = True
    if not summary:
        raise ReportError("\n".join(errors) or "no preset ran")
    if not figs_done and BASELINE in summary:
        errors.append("the calibration suite wrote no figures (is matplotlib importable by python3?)")

    # the per-preset summary: share of rows within target, per group of the suite
    fitted = OrderedDict((n, per) for n, per in summary.items() if any(v[1] for v in per.values()))
    groups = list(OrderedDict((g, 0) for p in fitted.values() for g in p))
    fig, ax = plt.subplots(figsize=(12, 4.8))
    w = 0.8 / max(1, len(fitted))
    for i, (name, per) in enumerate(fitted.items()):
        vals = [100.0 * per[g][0] / per[g][1] if g in per and per[g][1] else float("nan") for g in groups]
        ax.bar([j + i * w - 0.4 + w / 2 for j in range(len(groups))], vals, w, label=name)
    ax.set_xticks(range(len(groups)))
    ax.set_xticklabels([g.split(" (")[0] for g in groups], rotation=25, ha="right", fontsize=8)
    ax.set_ylabel("calibrated rows within the rule (%)")
    ax.set_ylim(0, 125)  # room for the legend above the 100 % bars
    ax.set_yticks(range(0, 101, 20))
    ax.set_title("Fit: calibrated rows within the page's rule, per preset and group of the suite", fontsize=10)
    ax.legend(fontsize=8, ncol=len(fitted), loc="upper center")
    sec.figures.insert(0, ctx.figure(fig, "Quality of the fit: share of the calibrated rows within the page's rule "
                                     "per preset of a published machine (the tables below list every row).",
                                     list(ctx.commands)))
    for name, per in summary.items():
        within = sum(v[0] for v in per.values())
        total = sum(v[1] for v in per.values())
        if not total:
            continue  # a what-if preset: nothing compared
        sec.notes.append("preset %s: %d of %d calibrated rows within the rule (%s)" % (
            name, within, total, "; ".join("%s %d/%d" % (g.split(" (")[0], v[0], v[1]) for g, v in per.items()
                                           if v[1])))  # groups of other servers' rows only: nothing judged
    sec.error = "\n".join(errors)  # shown in red; the report exits 1
    return sec
