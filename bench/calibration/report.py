#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Calibration suite report: compares the modelled values recorded by run.sh
(results.csv) with the published UPMEM measurements collected in
docs/calibration-sources.md ("calibration-sources §N"), prints the table and, when
matplotlib is importable, writes the figures.

    report.py [--no-figures] results.csv out-dir
"""
import csv
import math
import os
import sys
from collections import defaultdict

from kernels_report import add_kernel_rows  # mutex-heavy and streaming kernels (kernels_dpu.c)

F_MHZ = 350.0

# ---------------------------------------------------------------------------
# Published values (ref = docs/calibration-sources.md), exactly as
# written there.
# ---------------------------------------------------------------------------
TYPES = ["int32", "int64", "float", "double"]
OPS = ["add", "sub", "mul", "div"]
# calibration-sources §1.2: PrIM arithmetic throughput, MOPS, 1 DPU, >= 11 tasklets
ARITH_MOPS = {
    "int32": [58.56, 58.56, 10.27, 11.27],
    "int64": [50.16, 50.16, 2.56, 1.40],
    "float": [4.91, 4.59, 1.91, 0.34],
    "double": [3.32, 3.11, 0.53, 0.16],
}
# calibration-sources §1.3: STREAM on WRAM, uint64, 16 tasklets, MB/s (SCALE/TRIAD "≈", order of magnitude)
WRAM_MBS = {"copy": (2818.98, ""), "add": (1682.46, ""), "scale": (42.0, "≈"), "triad": (62.0, "≈")}
# calibration-sources §2.2: MRAM latency (cycles) = alpha + beta * B, 1 tasklet
MRAM_ALPHA = {"read": 77.0, "write": 61.0}
MRAM_BETA = 0.5
MRAM_BW_2048 = {"read": 628.23, "write": 633.22}  # calibration-sources §2.2, MB/s at 2,048 B
COPY_DMA_MBS = 624.0  # calibration-sources §2.3, COPY-DMA, read+written bytes, lower confidence
# calibration-sources §3.2 (PrIM Figs. 10-11), GB/s, one rank, 32 MB per DPU; the parallel
# curve starts near the serial rate at 1 DPU and reaches its peak at 64
PRIM_XFER = {
    ("push", "h2d", 1): 0.33, ("push", "d2h", 1): 0.12,
    ("push", "h2d", 64): 6.68, ("push", "d2h", 64): 4.74, ("broadcast", "h2d", 64): 16.88,
    ("serial", "h2d", 1): 0.33, ("serial", "d2h", 1): 0.12,
    ("serial", "h2d", 64): 0.33, ("serial", "d2h", 64): 0.12,  # "stays ≈ flat at the 1-DPU value"
}
# calibration-sources §3.3: UPMEM cloud server (downmem upmemLut-mramxfer.c), ms
GRID_DPUS = [64, 128, 320, 640, 1280, 2560]
GRID_SIZES = [32, 2048, 65536, 1048576, 8388608, 33554432]
GRID_MS = {
    "h2d": [[0.059, 0.089, 0.135, 0.168, 0.201, 0.327], [0.09, 0.13, 0.17, 0.32, 0.45, 0.65],
            [0.88, 1.41, 2.61, 4.97, 5.24, 4.29], [6.61, 10.8, 16.8, 38.1, 43.9, 46.8],
            [60.1, 97.2, 134, 228, 268, 372], [327, 654, 652, 1226, 1265, 1718]],
    "d2h": [[0.157, 0.165, 0.185, 0.239, 0.285, 0.432], [0.19, 0.26, 0.33, 0.62, 0.86, 1.36],
            [2.32, 3.76, 6.16, 11.0, 13.0, 14.9], [20.1, 47.2, 57.7, 116, 145, 202],
            [188, 412, 464, 1004, 1069, 1540], [788, 1609, 1875, 4006, 4318, 5947]],
}
GRID_NOISY = {("h2d", 65536, 2560)}  # calibration-sources §3.3 "Table quirks": less time than 1,280 DPUs for twice the data
PEAK_H2D_2560, PEAK_D2H_2560 = 57.7, 14.4  # calibration-sources §3.3 observations (8 MB H->D, 32 MB D->H columns)
# calibration-sources §3.5 (Loremkang, 4 ranks = 256 DPUs, SDK 2023.2), total bytes -> us
LOREM_H2D = {8192: 142, 65536: 114, 1048576: 234, 4194304: 697, 16777216: 2351}
LOREM_D2H = {1048576: 326, 16777216: 4018}
LAUNCH_4RANKS_US = 183.0  # calibration-sources §3.5: SDK launch, 4 ranks / 2 channels
LOREM_AFTER_LAUNCH_US = 275.0  # calibration-sources §3.5: receive right after a launch, 274-277 us (64 KB in all, 256 DPUs)
# small reads of results right after a launch, us: (what, DPUs, bytes/DPU) -> (published, server, source)
SMALL_US = {
    ("wram_after_launch", 1, 256): (88.0, "prim", "§6"),     # PrIM-era BS, 1 DPU (WRAM results)
    ("mram_after_launch", 4, 1024): (120.0, "prim", "§6"),   # PrIM-era GEMV, 4 DPUs (size not published)
    ("wram_after_launch", 64, 256): (1160.0, "prim", "§3.4"),  # PrIM-era RED, 64 DPUs: 1.10-1.22 ms
}
# calibration-sources §3.4 (same server as §3.3): WRAM __host transfers of 8 B per DPU, us
SEL_SERIAL_MS = 101.6  # calibration-sources §3.7: PrIM-era SEL, 64 DPUs, 8.4 MB retrieved serially (dpu_copy_from per DPU)
WRAM8_US = {("h2d", 64): 230.0, ("d2h", 64): 130.0, ("h2d", 2560): 570.0, ("d2h", 2560): 450.0}

# Which server each published source measured (timing/presets/server-<name>.desc):
# a preset is judged on its own server's rows; the others are shown for
# comparison, without a target.
SOURCE_SERVER = {"§3.2": "prim", "§6": "prim", "§3.7": "prim", "§3.3": "cloud2024", "§3.4": "cloud2024", "§3.5": "loremkang"}

TARGET_DPU, TARGET_XFER = 0.10, 0.20  # acceptance targets (calibration-sources §4.3)


def size_name(b):
    b = int(b)
    if b >= 1 << 20 and b % (1 << 20) == 0:
        return "%d MB" % (b >> 20)
    if b >= 1024 and b % 1024 == 0:
        return "%d KB" % (b >> 10)
    return "%d B" % b


def load(path):
    recs = defaultdict(list)
    with open(path) as f:
        for row in csv.reader(f):
            if row and not row[0].startswith("#"):
                recs[row[0]].append(row)
    return recs


class Table:
    def __init__(self):
        self.rows = []  # (section, measurement, params, model, pub, err, source, target, note)

    def add(self, section, meas, params, model, pub, source, target, fmt="%.2f", note=""):
        err = None if pub is None or model is None else (model - pub) / pub
        self.rows.append((section, meas, params, model, pub, err, source, target, fmt, note))

    def render(self):
        head = ("measurement", "parameters", "OpenPIM modelled", "published", "rel. error", "source")
        body = []
        for (sec, meas, params, model, pub, err, source, target, fmt, note) in self.rows:
            m = "—" if model is None else fmt % model
            p = "—" if pub is None else (note if note.startswith("≈") else "") + fmt % pub
            if err is None:
                e = "n/a"
            elif target is None:
                e = "%+.1f%% (other server)" % (100 * err)
            else:
                e = "%+.1f%%" % (100 * err)
                e += "" if abs(err) <= target else " MISS"
            body.append((meas, params, m, p, e, source + (" " + note if note and not note.startswith("≈") else "")))
        w = [max(len(r[i]) for r in body + [head]) for i in range(6)]
        line = lambda r: " | ".join(r[i].ljust(w[i]) if i < 2 or i == 5 else r[i].rjust(w[i]) for i in range(6))
        out = [line(head), "-+-".join("-" * x for x in w)]
        last = None
        for r, row in zip(body, self.rows):
            if row[0] != last and last is not None:
                out.append("-+-".join("-" * x for x in w))
            last = row[0]
            out.append(line(r))
        return "\n".join(out)

    def summary(self):
        out = []
        groups = defaultdict(list)
        for row in self.rows:
            if row[5] is not None and row[7] is not None:
                groups[row[0]].append(row)
        for sec, rows in groups.items():
            errs = [abs(r[5]) for r in rows]
            ok = sum(1 for r in rows if abs(r[5]) <= r[7])
            out.append("  %-58s %3d/%-3d within %2.0f%%   max |err| %6.1f%%   mean |err| %5.1f%%" %
                       (sec, ok, len(rows), 100 * rows[0][7], 100 * max(errs), 100 * sum(errs) / len(errs)))
        return "\n".join(out)


def main():
    args = sys.argv[1:]
    figures = True
    if args and args[0] == "--no-figures":
        figures = False
        args = args[1:]
    if len(args) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    recs = load(args[0])
    outdir = args[1]
    T = Table()
    notes = []

    # ---- 1. arithmetic throughput (calibration-sources §1.2) ----
    arith = {}  # (type, op, tasklets) -> mops
    bad = []
    for r in recs["arith"]:
        arith[(r[1], r[2], int(r[3]))] = float(r[5])
        if r[9] != "1":
            bad.append("%s %s %s tasklets" % (r[1], r[2], r[3]))
    plain = {(r[1], r[2]): float(r[5]) for r in recs["arith_plain"]}
    if bad:
        notes.append("WRONG DPU RESULTS in arithmetic runs: " + ", ".join(bad))
    sec = "1. arithmetic, MOPS (calibration-sources §1.2, target 10%)"
    for tl in (16, 11):
        for ty in TYPES:
            for i, op in enumerate(OPS):
                if (ty, op, tl) in arith:
                    T.add(sec, "arith MOPS %s %s" % (ty, op), "1 DPU, %d tasklets" % tl, arith[(ty, op, tl)],
                          ARITH_MOPS[ty][i], "§1.2", TARGET_DPU, "%.3f" if ARITH_MOPS[ty][i] < 1 else "%.2f")
    sec = "1b. tasklet curve, MOPS (calibration-sources §1.1 IPC rule x §1.2)"
    for tl in (1, 2, 4, 8):
        for ty, op in (("int32", "add"), ("int64", "add"), ("float", "add")):
            if (ty, op, tl) in arith:
                pub = ARITH_MOPS[ty][OPS.index(op)] * min(1.0, tl / 11.0)
                T.add(sec, "arith MOPS %s %s" % (ty, op), "1 DPU, %d tasklets" % tl, arith[(ty, op, tl)], pub,
                      "§1.1×§1.2", TARGET_DPU, note="(published × n/11)")
    # saturation check over all kernels
    dev, sat = 0.0, 0.0
    for ty in TYPES:
        for op in OPS:
            if (ty, op, 11) not in arith:
                continue
            base = arith[(ty, op, 11)]
            for tl in (1, 2, 4, 8, 16):
                if (ty, op, tl) in arith:
                    d = arith[(ty, op, tl)] / base / min(1.0, tl / 11.0) - 1
                    dev = max(dev, abs(d))
                    if tl == 16:
                        sat = max(sat, abs(d))
    if arith:
        notes.append("tasklet curve (all 16 kernels, 1/2/4/8/11/16 tasklets): MOPS(n)/MOPS(11) deviates from "
                     "min(1, n/11) by at most %.2f%%; 16 vs 11 tasklets: %.2f%% (saturates at 11, calibration-sources §1.1)"
                     % (100 * dev, 100 * sat))
    sec = "1c. codegen check: plain `-O2` as users build (calibration-sources §1.2)"
    for ty, op in (("int32", "add"), ("int64", "add"), ("int32", "mul"), ("int32", "div"), ("double", "add")):
        if (ty, op) in plain:
            T.add(sec, "arith MOPS %s %s [plain -O2]" % (ty, op), "1 DPU, 16 tasklets", plain[(ty, op)],
                  ARITH_MOPS[ty][OPS.index(op)], "§1.2", TARGET_DPU)

    # ---- 2. WRAM STREAM (calibration-sources §1.3) ----
    sec = "2. WRAM STREAM, MB/s (calibration-sources §1.3, target 10%)"
    wram = {}
    for r in recs["wram"]:
        wram[r[1]] = float(r[4])
        pub, mark = WRAM_MBS[r[1]]
        T.add(sec, "WRAM STREAM %s MB/s" % r[1].upper(), "uint64, 1 DPU, %s tasklets" % r[2], float(r[4]), pub,
              "§1.3", TARGET_DPU, note=mark)
        if r[6] != "1":
            notes.append("WRONG DPU RESULTS in WRAM %s" % r[1])

    # ---- 3. MRAM (calibration-sources §2.2, §2.3) ----
    sec = "3. MRAM DMA (calibration-sources §2.2/§2.3, target 10%)"
    lat = {}
    for r in recs["mram_lat"]:
        op, size = r[1], int(r[2])
        lat[(op, size)] = (float(r[4]), float(r[5]))
    for op in ("read", "write"):
        for size in sorted(s for (o, s) in lat if o == op):
            T.add(sec, "mram_%s latency, cycles" % op, "%s, 1 tasklet" % size_name(size), lat[(op, size)][0],
                  MRAM_ALPHA[op] + MRAM_BETA * size, "§2.2", TARGET_DPU, "%.0f", note="(77/61 + 0.5·B)")
    for op in ("read", "write"):
        if (op, 2048) in lat:
            T.add(sec, "mram_%s bandwidth, MB/s" % op, "2 KB, 1 tasklet", lat[(op, 2048)][1], MRAM_BW_2048[op],
                  "§2.2", TARGET_DPU)
    bw = {}
    for r in recs["mram_bw"]:
        bw[(r[1], int(r[3]))] = float(r[5])
    tls = sorted({t for (_, t) in bw})
    if tls:
        tmax = tls[-1]
        for op in ("read", "write"):
            T.add(sec, "mram_%s sustained, MB/s" % op, "2 KB DMAs, %d tasklets" % tmax, bw[(op, tmax)],
                  MRAM_BW_2048[op], "§2.2/§2.3", TARGET_DPU)
        T.add(sec, "COPY-DMA sustained, MB/s", "2 KB DMAs, %d tasklets" % tmax, bw[("copy", tmax)], COPY_DMA_MBS,
              "§2.3", TARGET_DPU, note="(lower confidence)")

    # ---- 4. host transfers: each server preset against its own server's rows ----
    server = recs["server"][0][1] if recs["server"] else "cloud2024"

    def judged(source, target):
        """The target where the source measured this preset's server, else None (shown, not judged)."""
        return target if SOURCE_SERVER.get(source) == server else None

    def on(source):
        return "" if SOURCE_SERVER.get(source) == server else "(measured on server=%s)" % SOURCE_SERVER[source]

    e2e, model = {}, {}
    for r in recs["xfer"]:
        key = (r[2], r[3], r[4], int(r[5]), int(float(r[6])))
        (e2e if r[1] == "e2e" else model)[key] = float(r[7])

    def pick(key):
        if key in e2e:
            return e2e[key], "SDK e2e"
        return model.get(key), "direct model"

    sec = "4a. CPU-DPU one rank, GB/s (calibration-sources §3.2, PrIM's server, target 20%)"
    for (kind, d, n), pub in PRIM_XFER.items():
        key = ("s32", kind, d, n, 33554432)
        us, how = pick(key)
        if us is not None:
            gbs = 33554432 * n / (us * 1e3)
            T.add(sec, "%s %s GB/s" % (kind, "CPU->DPU" if d == "h2d" else "DPU->CPU"),
                  "%d DPU%s, 32 MB/DPU [%s]" % (n, "s" if n > 1 else "", how), gbs, pub, "§3.2",
                  judged("§3.2", TARGET_XFER), note=on("§3.2"))
    us, how = pick(("s37", "serial", "d2h", 64, 131250))
    if us is not None:
        T.add(sec, "serial DPU->CPU ms (SEL)", "8.4 MB over 64 DPUs, dpu_copy_from each [%s]" % how, us / 1e3,
              SEL_SERIAL_MS, "§3.7", judged("§3.7", TARGET_XFER), "%.1f", note=on("§3.7"))
    sec = "4b. CPU-DPU push, ms (calibration-sources §3.3 table, 2024 cloud server, target 20%)"
    for d in ("h2d", "d2h"):
        for si, size in enumerate(GRID_SIZES):
            for ci, n in enumerate(GRID_DPUS):
                us, how = pick(("s33", "push", d, n, size))
                if us is None:
                    continue
                pub = GRID_MS[d][si][ci]
                T.add(sec, "push %s ms" % ("CPU->DPU" if d == "h2d" else "DPU->CPU"),
                      "%s/DPU x %d DPUs [%s]" % (size_name(size), n, how), us / 1e3, pub, "§3.3",
                      judged("§3.3", TARGET_XFER), "%.3f" if pub < 10 else "%.1f",
                      note="(noisy entry)" if (d, size, n) in GRID_NOISY else on("§3.3"))
    sec = "4c. full machine and chunking (calibration-sources §3.3, 2024 cloud server, target 20%)"
    if ("s33", "push", "h2d", 2560, 8388608) in model:
        for d, pub, what in (("h2d", PEAK_H2D_2560, "CPU->DPU"), ("d2h", PEAK_D2H_2560, "DPU->CPU")):
            best = max((size * 2560 / (model[("s33", "push", d, 2560, size)] * 1e3), size) for size in GRID_SIZES)
            pbest = max((size * 2560 / (GRID_MS[d][si][5] * 1e6), size) for si, size in enumerate(GRID_SIZES))
            T.add(sec, "peak push %s GB/s" % what, "2560 DPUs, best size (model %s, published %s) [direct model]"
                  % (size_name(best[1]), size_name(pbest[1])), best[0], pub, "§3.3", judged("§3.3", TARGET_XFER),
                  "%.1f", note=on("§3.3"))
        m8, m32 = model[("s33", "push", "h2d", 2560, 8388608)], model[("s33", "push", "h2d", 2560, 33554432)]
        p8, p32 = GRID_MS["h2d"][4][5], GRID_MS["h2d"][5][5]
        T.add(sec, "8 MB chunking: GB/s(32 MB)/GB/s(8 MB)", "CPU->DPU, 2560 DPUs [direct model]",
              4 * m8 / m32, 4 * p8 / p32, "§3.3", judged("§3.3", TARGET_XFER), "%.3f", note=on("§3.3"))
    sec = "4d. 4 ranks, SDK 2023 box, us (calibration-sources §3.5, target 20%)"
    for d, tab in (("h2d", LOREM_H2D), ("d2h", LOREM_D2H)):
        for total, pub in tab.items():
            us, how = pick(("s35", "push", d, 256, total // 256))
            if us is not None:
                T.add(sec, "push %s us" % ("CPU->DPU" if d == "h2d" else "DPU->CPU"),
                      "%s total, 256 DPUs [%s]" % (size_name(total), how), us, pub, "§3.5",
                      judged("§3.5", TARGET_XFER), "%.0f", note=on("§3.5"))
    us, how = pick(("small", "mram_after_launch", "d2h", 256, 256))
    if us is not None:
        T.add(sec, "push DPU->CPU us, right after a launch", "64 KB total, 256 DPUs [%s]" % how, us,
              LOREM_AFTER_LAUNCH_US, "§3.5", judged("§3.5", TARGET_XFER), "%.0f", note=on("§3.5"))
    sec = "4e. small transfers (result variables), us (calibration-sources §3.4, §6, target 20%)"
    for (what, n, size), (pub, srv, source) in SMALL_US.items():
        us, how = pick(("small", what, "d2h", n, size))
        if us is not None:
            T.add(sec, "DPU->CPU %s us, right after a launch" % ("WRAM" if what.startswith("wram") else "MRAM"),
                  "%d B/DPU x %d DPU%s [%s]" % (size, n, "s" if n > 1 else "", how), us, pub, source,
                  TARGET_XFER if srv == server else None, "%.0f",
                  note="" if srv == server else "(measured on server=%s)" % srv)
    for (d, n), pub in WRAM8_US.items():
        us, how = pick(("small", "wram", d, n, 8))
        if us is not None:
            T.add(sec, "WRAM __host push %s us" % ("CPU->DPU" if d == "h2d" else "DPU->CPU"),
                  "8 B/DPU x %d DPUs [%s]" % (n, how), us, pub, "§3.4", judged("§3.4", TARGET_XFER), "%.0f",
                  note=on("§3.4"))

    # ---- 5. launch (calibration-sources §3.5) ----
    sec = "5. launch overhead, us (calibration-sources §3.5, target 20%)"
    launch_e2e = {int(r[1]): float(r[4]) for r in recs["launch"] if r[1] != "model"}
    launch_model = {int(r[2]): float(r[3]) for r in recs["launch"] if r[1] == "model"}
    for n in sorted(launch_e2e):
        T.add(sec, "dpu_launch overhead us", "%d rank%s, empty kernel [SDK e2e]" % (n, "s" if n > 1 else ""),
              launch_e2e[n], LAUNCH_4RANKS_US if n == 4 else None, "§3.5", TARGET_XFER, "%.0f",
              note="" if n == 4 else "(no published point)")

    # ---- 6. DPU kernels: mutexes and streaming (kernels_report.py) ----
    add_kernel_rows(T, recs, notes, TARGET_DPU)

    # e2e versus direct model
    diffs = [abs(e2e[k] / model[k] - 1) for k in e2e if k in model and model[k] > 0]
    if diffs:
        notes.append("host transfers: %d points ran end to end through the SDK (CAL_E2E_MAX_MB bounds them); "
                     "they agree with the direct model (timing/xfer_model.c) to %.2g%% at worst; the other "
                     "points of the tables are the direct model" % (len(diffs), 100 * max(diffs)))
    le = [abs(launch_e2e[n] / launch_model[n] - 1) for n in launch_e2e if n in launch_model]
    if le:
        notes.append("launch: SDK e2e overhead = direct model (op_launch_overhead_us) to %.2g%%" % (100 * max(le)))

    prof = ",".join(recs["profile"][0][1:]) if recs["profile"] else ""
    win = {r[1]: float(r[4]) for r in recs["mram_window"]}
    if win:
        lat8 = lat.get(("read", 8), (0, 0))[0]
        notes.append("MRAM latency diagnosis: PrIM's window (between the two perfcounter_get reads) costs %.0f "
                     "cycles at 8 B in the model against 77 + 0.5*8 = 81 published; the DPU's instruction "
                     "counter sees %.1f instructions in it, the emulator also charges rt_dma_call per DMA; each "
                     "instruction costs 11 cycles at 1 tasklet, and dma_read_fixed/dma_write_fixed (77/61 in "
                     "v1A) already are PrIM's measured window latencies" % (lat8, win.get("read", 0)))
    print()
    print("== OpenPIM calibration: modelled (v1A preset%s; server %s) versus published UPMEM measurements ==" %
          (" + " + prof if prof else "", server))
    print("   transfers are judged on the rows measured on this server; the other servers' rows are shown")
    print("   with '(other server)' and no target (timing/presets/server-*.desc, profile key server=)")
    print("   published values: docs/calibration-sources.md (section in the last column)")
    print("   rel. error = (modelled - published) / published; MISS = outside the target (calibration-sources §4.3)")
    print("   (10% for arithmetic, WRAM and MRAM; 20% for transfers and launch)")
    print()
    print(T.render())
    print()
    print("Summary (rows with a published value):")
    print(T.summary())
    for n in notes:
        print("note: " + n)

    if figures:
        try:
            import matplotlib
            matplotlib.use("Agg")
            import matplotlib.pyplot as plt
        except Exception as ex:  # pragma: no cover
            print("FIGURES SKIPPED: matplotlib not importable (%s)" % ex)
            return 0
        written = make_figures(plt, outdir, arith, plain, wram, lat, bw, model, e2e, launch_e2e, launch_model)
        print("figures written to %s: %s" % (outdir, ", ".join(written)))
    return 0


def make_figures(plt, outdir, arith, plain, wram, lat, bw, model, e2e, launch_e2e, launch_model):
    written = []

    def save(fig, name):
        fig.tight_layout()
        fig.savefig(os.path.join(outdir, name), dpi=110)
        plt.close(fig)
        written.append(name)

    # arithmetic throughput versus tasklets
    if arith:
        fig, axes = plt.subplots(1, 4, figsize=(16, 4))
        for ax, ty in zip(axes, TYPES):
            for i, op in enumerate(OPS):
                tls = sorted(t for (a, b, t) in arith if a == ty and b == op)
                if not tls:
                    continue
                line, = ax.plot(tls, [arith[(ty, op, t)] for t in tls], "o-", label="%s (OpenPIM)" % op)
                xs = list(range(1, 25))
                ax.plot(xs, [ARITH_MOPS[ty][i] * min(1, x / 11) for x in xs], "--", color=line.get_color(),
                        alpha=0.6, label="%s published×min(1,n/11)" % op)
            ax.set_yscale("log")
            ax.set_title("%s (calibration-sources §1.2)" % ty)
            ax.set_xlabel("tasklets")
            ax.set_ylabel("MOPS")
            ax.axvline(11, color="grey", lw=0.5)
            ax.legend(fontsize=6)
        save(fig, "arith_tasklets.png")
        fig, ax = plt.subplots(figsize=(12, 4))
        labels, mv, pv, pl = [], [], [], []
        for ty in TYPES:
            for i, op in enumerate(OPS):
                if (ty, op, 16) in arith:
                    labels.append("%s\n%s" % (ty, op))
                    mv.append(arith[(ty, op, 16)])
                    pv.append(ARITH_MOPS[ty][i])
                    pl.append(plain.get((ty, op), float("nan")))
        x = range(len(labels))
        ax.bar([i - 0.27 for i in x], pv, 0.27, label="published (PrIM, calibration-sources §1.2)")
        ax.bar(list(x), mv, 0.27, label="OpenPIM, DPU-like codegen")
        ax.bar([i + 0.27 for i in x], pl, 0.27, label="OpenPIM, plain -O2 (driver today)")
        ax.set_xticks(list(x))
        ax.set_xticklabels(labels, fontsize=7)
        ax.set_yscale("log")
        ax.set_ylabel("MOPS (16 tasklets)")
        ax.legend(fontsize=8)
        save(fig, "arith_16tasklets.png")

    if wram:
        fig, ax = plt.subplots(figsize=(6, 4))
        ks = ["copy", "add", "scale", "triad"]
        ax.bar([i - 0.2 for i in range(4)], [WRAM_MBS[k][0] for k in ks], 0.4, label="published (calibration-sources §1.3)")
        ax.bar([i + 0.2 for i in range(4)], [wram.get(k, 0) for k in ks], 0.4, label="OpenPIM")
        ax.set_xticks(range(4))
        ax.set_xticklabels([k.upper() for k in ks])
        ax.set_yscale("log")
        ax.set_ylabel("MB/s (uint64, 16 tasklets)")
        ax.legend()
        save(fig, "wram_stream.png")

    if lat:
        fig, (a1, a2) = plt.subplots(1, 2, figsize=(11, 4))
        for op, c in (("read", "C0"), ("write", "C1")):
            sizes = sorted(s for (o, s) in lat if o == op)
            a1.plot(sizes, [lat[(op, s)][0] for s in sizes], "o-", color=c, label="%s OpenPIM" % op)
            a1.plot(sizes, [MRAM_ALPHA[op] + MRAM_BETA * s for s in sizes], "--", color=c,
                    label="%s published %g+0.5B" % (op, MRAM_ALPHA[op]))
            a2.plot(sizes, [lat[(op, s)][1] for s in sizes], "o-", color=c, label="%s OpenPIM" % op)
            a2.plot(sizes, [s * F_MHZ / (MRAM_ALPHA[op] + MRAM_BETA * s) for s in sizes], "--", color=c,
                    label="%s from published fit" % op)
            a2.plot([2048], [MRAM_BW_2048[op]], "x", color=c, ms=10, label="%s published @2KB" % op)
        for a in (a1, a2):
            a.set_xscale("log", base=2)
            a.set_xlabel("DMA size (B), 1 tasklet")
            a.legend(fontsize=7)
        a1.set_ylabel("latency (cycles)")
        a1.set_title("MRAM latency (calibration-sources §2.2)")
        a2.set_ylabel("MB/s")
        a2.set_title("MRAM bandwidth (calibration-sources §2.2)")
        save(fig, "mram_latency.png")
    if bw:
        fig, ax = plt.subplots(figsize=(6, 4))
        for op in ("read", "write", "copy"):
            tls = sorted(t for (o, t) in bw if o == op)
            ax.plot(tls, [bw[(op, t)] for t in tls], "o-", label="%s OpenPIM" % op)
        ax.axhline(MRAM_BW_2048["read"], ls="--", color="C0", label="read 628.23 (calibration-sources §2.2)")
        ax.axhline(MRAM_BW_2048["write"], ls="--", color="C1", label="write 633.22 (calibration-sources §2.2)")
        ax.axhline(COPY_DMA_MBS, ls=":", color="C2", label="COPY-DMA ≈624 (calibration-sources §2.3)")
        ax.set_xlabel("tasklets (2 KB DMAs)")
        ax.set_ylabel("sustained MB/s per DPU")
        ax.legend(fontsize=7)
        save(fig, "mram_tasklets.png")

    if model:
        fig, axes = plt.subplots(1, 2, figsize=(13, 4.5))
        for ax, d in zip(axes, ("h2d", "d2h")):
            for ci, n in enumerate(GRID_DPUS):
                c = "C%d" % ci
                pts = sorted((k[4], v) for k, v in model.items() if k[0] == "curve_size" and k[2] == d and k[3] == n)
                ax.plot([s for s, _ in pts], [s * n / (us * 1e3) for s, us in pts], "-", color=c,
                        label="%d DPUs model" % n)
                ax.plot(GRID_SIZES, [s * n / (GRID_MS[d][si][ci] * 1e6) for si, s in enumerate(GRID_SIZES)], "x",
                        color=c, ms=8)
                ee = sorted((k[4], v) for k, v in e2e.items() if k[0] == "s33" and k[2] == d and k[3] == n)
                ax.plot([s for s, _ in ee], [s * n / (us * 1e3) for s, us in ee], "o", mfc="none", color=c)
            ax.set_xscale("log", base=2)
            ax.set_yscale("log")
            ax.set_xlabel("bytes per DPU")
            ax.set_ylabel("GB/s")
            ax.set_title("%s push: line = model, o = SDK e2e, x = published (calibration-sources §3.3)"
                         % ("CPU->DPU" if d == "h2d" else "DPU->CPU"), fontsize=9)
            ax.legend(fontsize=7)
        save(fig, "xfer_vs_size.png")
        fig, axes = plt.subplots(1, 2, figsize=(13, 4.5))
        for ax, d in zip(axes, ("h2d", "d2h")):
            for si, s in enumerate((1048576, 8388608, 33554432)):
                c = "C%d" % si
                pts = sorted((k[3] // 64, v) for k, v in model.items()
                             if k[0] == "curve_ranks" and k[2] == d and k[4] == s)
                ax.plot([r for r, _ in pts], [s * r * 64 / (us * 1e3) for r, us in pts], "-", color=c,
                        label="%s/DPU model" % size_name(s))
                gi = GRID_SIZES.index(s)
                ax.plot([n // 64 for n in GRID_DPUS], [s * n / (GRID_MS[d][gi][ci] * 1e6)
                                                       for ci, n in enumerate(GRID_DPUS)], "x", color=c, ms=8,
                        label="%s/DPU published" % size_name(s))
            ax.set_xlabel("ranks (64 DPUs each)")
            ax.set_ylabel("GB/s")
            ax.set_title("%s push versus ranks (calibration-sources §3.3)" % ("CPU->DPU" if d == "h2d" else "DPU->CPU"))
            ax.legend(fontsize=7)
        save(fig, "xfer_vs_ranks.png")
    if launch_model:
        fig, ax = plt.subplots(figsize=(6, 4))
        rs = sorted(launch_model)
        ax.plot(rs, [launch_model[r] for r in rs], "-", label="model (op_launch_overhead_us)")
        rs = sorted(launch_e2e)
        ax.plot(rs, [launch_e2e[r] for r in rs], "o", mfc="none", label="SDK e2e")
        ax.plot([4], [LAUNCH_4RANKS_US], "x", ms=10, color="k", label="published 183 us, 4 ranks (calibration-sources §3.5)")
        ax.set_xlabel("ranks")
        ax.set_ylabel("dpu_launch overhead (us)")
        ax.legend(fontsize=8)
        save(fig, "launch.png")
    return written


if __name__ == "__main__":
    sys.exit(main())
