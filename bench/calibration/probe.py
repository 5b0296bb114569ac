#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Reads the kernel probe's records (probe_host.c, run by probe.sh) and sets a
real DPU's beside OpenPIM's.

    bench/calibration/probe.py HW.csv [OPENPIM.csv] [--json]

For each kernel (va, red, hst_s) and tasklet count: the DPU cycles and
instructions per element of the streaming kernel (variant 0), of its compute
alone (1) and of its DMA alone (2), each the difference between the probe's two
sizes over the difference in elements, so that fixed costs (launch, barriers,
counter calls) cancel.  With a second file, what differs, in the terms that
tell the candidate causes of a miss apart:

  instructions  the compiler's loop executes another number of instructions
                per element than OpenPIM counts
  compute       cycles per instruction with no DMA running (a pipeline rule:
                the issue interval, a stall) differ from the model's
  dma           the DMA engine alone moves the kernel's blocks at another rate
  overlap       cycles per element of the whole kernel beyond the slower of its
                two halves: DMA and compute slowing each other down
"""
import argparse
import csv
import json
import sys

VARIANTS = {0: "stream", 1: "compute", 2: "dma"}


def load(path):
    """{(kernel, tasklets): {variant name: {"cycles": c, "instructions": i}}},
    per element; raises on a record whose result was wrong or a missing size."""
    pts = {}
    with open(path) as f:
        for row in csv.reader(line for line in f if line.strip() and not line.startswith("#")):
            if not row or row[0] != "probe":
                continue
            _, kernel, variant, tasklets, n, counter, count, ok = row
            if ok != "1":
                raise ValueError("%s: %s computed a wrong result (%s)" % (path, kernel, ",".join(row)))
            key = (kernel, int(tasklets), VARIANTS[int(variant)], counter)
            pts.setdefault(key, []).append((int(n), int(count)))
    out = {}
    for (kernel, tasklets, variant, counter), p in pts.items():
        if len(p) != 2 or p[0][0] == p[1][0]:
            raise ValueError("%s: %s/%s/%s needs two sizes, got %s" % (path, kernel, variant, counter, p))
        (n1, c1), (n2, c2) = sorted(p)
        out.setdefault((kernel, tasklets), {}).setdefault(variant, {})[counter] = (c2 - c1) / (n2 - n1)
    return out


def derived(v):
    """Per element: the three variants' figures and what follows from them."""
    missing = [(var, cnt) for var in VARIANTS.values() for cnt in ("cycles", "instructions")
               if cnt not in v.get(var, {})]
    if missing:
        raise ValueError("incomplete probe records: missing %s" % ", ".join("%s %s" % m for m in missing))
    s, c, d = v["stream"], v["compute"], v["dma"]
    return {
        "instructions": s["instructions"],
        "cycles": s["cycles"],
        "compute_cpi": c["cycles"] / c["instructions"],
        "dma_cycles": d["cycles"],
        "overlap": s["cycles"] - max(c["cycles"], d["cycles"]),
    }


def compare(hw, model):
    """One finding per kernel and tasklet count present in both."""
    out = []
    for key in sorted(set(hw) & set(model)):
        h, m = derived(hw[key]), derived(model[key])
        out.append({
            "kernel": key[0], "tasklets": key[1],
            "cycles": (h["cycles"], m["cycles"], m["cycles"] / h["cycles"] - 1),
            "instructions": (h["instructions"], m["instructions"], m["instructions"] / h["instructions"] - 1),
            "compute": (h["compute_cpi"], m["compute_cpi"], m["compute_cpi"] / h["compute_cpi"] - 1),
            "dma": (h["dma_cycles"], m["dma_cycles"], m["dma_cycles"] / h["dma_cycles"] - 1),
            "overlap": (h["overlap"], m["overlap"], m["overlap"] - h["overlap"]),
        })
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("hw", help="records of a real DPU (or of any one run)")
    ap.add_argument("model", nargs="?", help="OpenPIM's records of the same probe")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args(argv)
    hw = load(a.hw)
    if not a.model:
        rows = {"%s/%d" % k: derived(v) for k, v in sorted(hw.items())}
        if a.json:
            print(json.dumps(rows, indent=1))
            return 0
        print("%-12s %10s %10s %12s %10s %10s" % ("kernel/T", "cycles/el", "instr/el", "compute CPI",
                                                   "dma/el", "overlap/el"))
        for k, d in rows.items():
            print("%-12s %10.3f %10.3f %12.3f %10.3f %10.3f" % (k, d["cycles"], d["instructions"],
                                                                d["compute_cpi"], d["dma_cycles"], d["overlap"]))
        return 0
    found = compare(hw, load(a.model))
    if not found:
        print("no kernel and tasklet count in common", file=sys.stderr)
        return 1
    if a.json:
        print(json.dumps(found, indent=1))
        return 0
    print("per element; first the DPU's, then OpenPIM's (error: OpenPIM against the DPU)")
    for f in found:
        print("%s, %d tasklets: cycles %.3f / %.3f (%+.1f %%)" % ((f["kernel"], f["tasklets"]) + f["cycles"][:2]
                                                               + (100 * f["cycles"][2],)))
        print("  instructions %.3f / %.3f (%+.1f %%)" % (f["instructions"][:2] + (100 * f["instructions"][2],)))
        print("  compute alone, cycles per instruction %.3f / %.3f (%+.1f %%)"
              % (f["compute"][:2] + (100 * f["compute"][2],)))
        print("  DMA alone, cycles %.3f / %.3f (%+.1f %%)" % (f["dma"][:2] + (100 * f["dma"][2],)))
        print("  overlap loss, cycles %.3f / %.3f (%+.3f)" % f["overlap"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
