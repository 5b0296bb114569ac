# SPDX-License-Identifier: MIT
"""Rows of the mutex-heavy and streaming DPU kernels (kernels_dpu.c / kernels_host.c) for report.py.

Records: kernel,<name>,<tasklets>,<units>,<cycles>,<cycles per unit>,<ok>.
Published values exist for the mutex-per-update histogram only; the other
kernels are reported modelled, with "(no published point)", until their
hardware figures are collected (see timing/README.md, "Known gaps").
"""

# name -> (what a unit is, {tasklets: (published cycles per unit, source)})
KERNELS = {
    "hist_mutex_wram": ("cycles per update, mutex per update, values in WRAM",
                        {16: (97.0, "§7")}),
    "hist_mutex_hstl": ("cycles per update, HST-L shape (MRAM 256-B blocks)", {}),
    "trns_step3_sync": ("cycles per item, TRNS step-3 mutexes + 8-B flag DMAs", {}),
    "va": ("cycles per element, vector add, 1 KB blocks", {}),
    "red": ("cycles per element, reduction, 1 KB blocks", {}),
}


def add_kernel_rows(T, recs, notes, target):
    """Adds section 6 to table T from the 'kernel' records."""
    sec = "6. DPU kernels (mutexes, streaming), 1 DPU (target %d%%)" % round(100 * target)
    bad = []
    for r in recs.get("kernel", []):
        name, tl, per, ok = r[1], int(r[2]), float(r[5]), r[6] == "1"
        if not ok:
            bad.append("%s %d tasklets" % (name, tl))
        what, pubs = KERNELS.get(name, (name, {}))
        pub, src = pubs.get(tl, (None, "—"))
        T.add(sec, "%s %s" % (name, what), "1 DPU, %d tasklet%s" % (tl, "s" if tl > 1 else ""), per, pub, src,
              target, "%.1f", note="" if pub is not None else "(no published point)")
    if bad:
        notes.append("WRONG DPU RESULTS in kernels: " + ", ".join(bad))
