# SPDX-License-Identifier: MIT
"""Section: how far the timing model is from real hardware, on the PrIM runs
of a PrIM-era UPMEM server (bench/calibration/data: 77 runs on 1 and 4 DPUs;
the same table's runs on 16 and 64 DPUs are held out and not in this
repository).

What is shown, and what each row is:
  * host transfers on every training row, through the calls recorded from
    PrIM's host code (bench/calibration/accuracy.py --replay): FITS, the
    `prim` server preset was fitted to these rows (fit_prim.py);
  * the same errors cross-validated (fit_prim.py --cv): PREDICTIONS, each
    app's rows predicted by a fit that never saw the app;
  * PrIM-shaped kernels of our own (VA, RED, HST-S, bench/calibration/
    prim_shapes_dpu.c) beside the hardware's cycles per element: PREDICTIONS
    (the DPU model is not fitted to these rows);
  * with OPENPIM_PRIM_DIR set to a PrIM checkout: every training row run
    through PrIM itself (prim_hw.py), kernel, CPU->DPU and DPU->CPU errors per
    app beside uPIMulator's simulated kernel on the same rows.  The DPU side
    is a prediction, the transfers and the launch cost are fits.
Needs the build's tests/calibration targets (xfer_replay, prim_shapes_host).
"""
import json
import os
import sys

import openpim_report.model as M
from openpim_report import ReportError, Row, Section, Table

TITLE = "Model accuracy: OpenPIM against PrIM runs on real hardware (server=prim)"
ORDER = 12
SOURCE = "[uPIMulator] real-hardware PrIM runs (bench/calibration/data)"
LABEL = {"cpu_to_dpu": "CPU->DPU", "dpu_to_cpu": "DPU->CPU", "kernel": "DPU kernel"}


def _row(quantity, params, modelled, published, note, fit, measure):
    """A row as the page's model takes it: a fit is a calibrated input, else a prediction."""
    if fit:
        return Row(quantity, params, modelled, published, SOURCE, kind=M.CALIBRATED, measure=measure,
                   input="timing/presets/server-prim.desc (fitted to these rows: fit_prim.py)", note=note,
                   fmt="%.4g", unit="ms")
    return Row(quantity, params, modelled, published, SOURCE, kind=M.PREDICTION, measure=measure, note=note,
               fmt="%.4g", unit="ms")


def _miss_note(row, why):
    if row.status == M.MISS and why not in row.note:
        row.note = (row.note + " " + why).strip()
    return row


def _binary(ctx, name):
    p = os.path.join(ctx.build, "tests", "calibration", name)
    if not os.path.exists(p):
        raise ReportError("%s is missing: build the tree (cmake --build %s)" % (p, ctx.build))
    return p


def _totals(ctx):
    """Sums of hardware milliseconds per app and column, from the training data."""
    sys.path.insert(0, ctx.path("bench", "calibration"))
    import accuracy

    tot = {}
    for r in accuracy.read_csv(accuracy.TRAIN):
        for col, hw in accuracy.COLUMNS:
            tot.setdefault((r["benchmark"], col), 0.0)
            tot[(r["benchmark"], col)] += float(r[hw])
    return tot


def _error_rows(per_app, column, hw_tot, fit, extra=None):
    """One row per app: its mean signed error shown as modelled vs measured
    total (measured x (1 + mean error)), the MAPE in the note."""
    rows = []
    for app, (mape, signed, n) in per_app.items():
        h = hw_tot[(app, column)]
        if h <= 0:
            continue
        note = "MAPE %.1f %% over %d rows (signed mean %+.1f %%)" % (100 * mape, n, 100 * signed)
        if extra and app in extra:
            note += "; uPIMulator's sim_kernel: MAPE %.1f %% (%+.1f %%)" % (100 * extra[app][0], 100 * extra[app][1])
        r = _row("%s time, %s" % (LABEL[column], app), "%d runs, 1 and 4 DPUs" % n, h * (1 + signed), h, note, fit,
                 M.KERNEL if column == "kernel" else M.TIME)
        why = KERNEL_WHY.get(app, KERNEL_WHY[""]) if column == "kernel" else WHY[column]
        rows.append(_miss_note(r, why))
    return rows


WHY = {
    "cpu_to_dpu": ("The hardware's transfer times of one shape spread by up to +-40 % between rows (one "
                   "repetition, no warm-up: data/README.md); one set of constants serves every app."),
    "dpu_to_cpu": ("The hardware's transfer times of one shape spread by up to +-40 % between rows (one "
                   "repetition, no warm-up: data/README.md); one set of constants serves every app."),
}
KERNEL_WHY = {
    "VA": "Streaming: 2 cycles per element slower on the hardware than its instructions (timing/README.md, "
          "Known gaps).",
    "RED": "Streaming: 2 cycles per element slower on the hardware than its instructions (timing/README.md, "
           "Known gaps).",
    "BS": "The hardware ran PrIM's first BS (a boundary bug fixed since); the model runs today's code.",
    "HST-S": "About 3 cycles per pixel unaccounted for; the 32-bit multiply by the bin count (8 + 9 "
             "instructions) dominates its cost (timing/README.md, Known gaps).",
    "": "See timing/README.md, Known gaps.",
}


def run(ctx):
    cal = ctx.path("bench", "calibration")
    replay = _binary(ctx, "xfer_replay")
    hw_tot = _totals(ctx)
    sec = Section(title=TITLE, intro=(
        "Real-hardware runs of the PrIM benchmarks on a PrIM-era UPMEM server (v1A DPUs at 350 MHz, "
        "UPMEM SDK 2020-21; uPIMulator's published table, MIT licence): the 77 runs on 1 and 4 DPUs are "
        "in this repository and calibrate the `prim` server preset; the 113 runs on 16 and 64 DPUs are "
        "held out and judge it elsewhere. Errors are modelled / measured - 1; each row shows an app's "
        "measured total time beside the modelled one at the app's mean error, with the mean absolute "
        "error (MAPE) in its note.\n\n"
        "Rows marked as fits (calibrated inputs) compare the preset with the rows it was fitted to; "
        "cross-validated rows and the kernels are predictions."))
    cmd, out = ctx.run([sys.executable, os.path.join(cal, "accuracy.py"), "--replay", replay, "--profile",
                        "server=prim", "--json"])
    rep = json.loads(out)["replay"]
    rows = []
    for column in ("cpu_to_dpu", "dpu_to_cpu"):
        per_app, overall = rep[column][0], rep[column][1]
        rows += _error_rows(per_app, column, hw_tot, fit=True)
    sec.tables.append(Table("Host transfers on the training rows (fits), server=prim", rows, [cmd], intro=(
        "PrIM's own transfer calls (sizes, DPUs, kinds) replayed through the transfer model; "
        "overall MAPE CPU->DPU %.1f %%, DPU->CPU %.1f %%." % (100 * rep["cpu_to_dpu"][1],
                                                          100 * rep["dpu_to_cpu"][1]))))
    cmd, out = ctx.run([sys.executable, os.path.join(cal, "fit_prim.py"), "--replay", replay, "--cv", "--json"],
                       timeout=1800)
    cv = json.loads(out)
    rows = []
    for column, folds in cv.items():
        per_app, overall = folds["leave-one-app-out"]
        rows += _error_rows(per_app, column, hw_tot, fit=False)
    one = {c: folds["1-DPU -> 4-DPU"][1] for c, folds in cv.items()}
    sec.tables.append(Table("Host transfers cross-validated: leave one app out (predictions)", rows, [cmd], intro=(
        "Each app's rows predicted by the preset fitted to the other 12 apps; overall MAPE CPU->DPU %.1f %%, "
        "DPU->CPU %.1f %%. Fitted on the 13 one-DPU rows and predicting the 64 four-DPU rows: "
        "CPU->DPU %.0f %% (a rank's line rate never binds on one DPU, so one-DPU runs cannot teach it), "
        "DPU->CPU %.1f %%." % (100 * cv["cpu_to_dpu"]["leave-one-app-out"][1],
                              100 * cv["dpu_to_cpu"]["leave-one-app-out"][1], 100 * one["cpu_to_dpu"],
                              100 * one["dpu_to_cpu"]))))
    sec.tables.append(_shapes(ctx, cal))
    prim = os.environ.get("OPENPIM_PRIM_DIR", "")
    if prim:
        sec.tables.append(_prim_runs(ctx, cal, prim, hw_tot))
    else:
        sec.notes.append("The per-app table of every training row run through PrIM itself (kernel, "
                         "CPU->DPU, DPU->CPU, beside uPIMulator's sim_kernel) needs a PrIM checkout: "
                         "OPENPIM_PRIM_DIR=/path/to/prim-benchmarks scripts/report.sh (about 1 min more).")
    return sec


def _shapes(ctx, cal):
    sys.path.insert(0, cal)
    import numpy as np

    import accuracy

    cmd, out = ctx.run([_binary(ctx, "prim_shapes_host"), _binary(ctx, "prim_shapes_t16"), "16"],
                       cwd=os.path.dirname(_binary(ctx, "prim_shapes_host")))
    rows = []
    for line in out.splitlines():
        _, name, _, n, cycles, ok = line.split(",")
        if ok != "1":
            raise ReportError("prim_shapes_host: %s computed a wrong result" % name)
        app = {"va": "VA", "red": "RED", "hst_s": "HST-S"}[name]
        data = [r for r in accuracy.read_csv(accuracy.TRAIN) if r["benchmark"] == app and r["num_dpus"] == "4"]
        x = np.array([float(r["data_prep_param"]) for r in data])
        y = np.array([float(r["hw_kernel"]) for r in data])
        slope = np.linalg.lstsq(np.vstack([np.ones_like(x), x]).T, y, rcond=None)[0][1]
        hw_cpe = slope * 4 * 350e3  # cycles per element per DPU (P elements on 4 DPUs, 350 MHz)
        model_cpe = int(cycles) / int(n)
        note = ("hardware: the slope of kernel time against size over %d four-DPU runs; ours: %s elements on "
                "one DPU, 16 tasklets" % (len(data), n))
        r = Row("DPU cycles per element, %s shape" % app, "16 tasklets, 1-KB blocks", model_cpe, hw_cpe,
                SOURCE, kind=M.PREDICTION, measure=M.KERNEL, note=note, fmt="%.3g")
        rows.append(_miss_note(r, "Streaming kernels run 2 cycles per element slower on the hardware than "
                                  "their instructions; no mechanism found that also fits GEMV, MLP, SEL, UNI "
                                  "and SCAN (timing/README.md, Known gaps). bench/calibration/probe.sh, run "
                                  "on a UPMEM server, measures which part takes them."))
    return Table("PrIM-shaped kernels of our own against the hardware's cost per element (predictions)", rows,
                 [cmd])


def _prim_runs(ctx, cal, prim, hw_tot):
    out_csv = os.path.join(ctx.work, "prim-runs.csv")
    run_cmd, _ = ctx.run([sys.executable, os.path.join(cal, "prim_hw.py"), "--prim", prim, "--build", ctx.build,
                          "--out", out_csv, "--work", os.path.join(ctx.work, "prim")], timeout=3600)
    cmd, out = ctx.run([sys.executable, os.path.join(cal, "accuracy.py"), out_csv, "--json"])
    res = json.loads(out)["results"]
    upim = res["uPIMulator kernel"][0]
    rows = _error_rows(res["kernel"][0], "kernel", hw_tot, fit=False, extra=upim)
    rows += _error_rows(res["cpu_to_dpu"][0], "cpu_to_dpu", hw_tot, fit=True)
    rows += _error_rows(res["dpu_to_cpu"][0], "dpu_to_cpu", hw_tot, fit=True)
    return Table("Every training row run through PrIM (kernel: predictions; transfers: fits)", rows,
                 [run_cmd, cmd], intro=(
                     "Overall MAPE: kernel %.1f %% (uPIMulator's sim_kernel %.1f %% on the same rows), "
                     "CPU->DPU %.1f %%, DPU->CPU %.1f %%." % (100 * res["kernel"][1], 100 * res["uPIMulator kernel"][1],
                                                             100 * res["cpu_to_dpu"][1], 100 * res["dpu_to_cpu"][1])))
