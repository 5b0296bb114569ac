"""The calibration section's own logic on synthetic rows of the suite's
report.py (the suite itself runs in scripts/report.sh): sources, statuses,
why a row misses, which preset a miss belongs to, the DPU chip of a preset."""
import importlib.util
import os

import pytest

from conftest import ROOT
from openpim_report import INFO, MISS, WITHIN, ReportError, Table


def _section():
    spec = importlib.util.spec_from_file_location("cal", os.path.join(ROOT, "report", "sections", "calibration.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


# (section, measurement, params, model, published, err, source, target, fmt, note): report.py's Table rows
G3 = "3. MRAM DMA (ref §2.2/§2.3, target 10%)"
G4 = "4a. CPU-DPU one rank, GB/s (ref §3.2, target 20%)"
ROWS = [
    (G3, "mram_read latency, cycles", "8 B, 1 tasklet", 126.0, 81.0, None, "§2.2", 0.10, "%.0f", "(77/61 + 0.5·B)"),
    (G3, "mram_read bandwidth, MB/s", "2 KB, 1 tasklet", 604.0, 628.23, None, "§2.2", 0.10, "%.2f", ""),
    (G4, "push DPU->CPU GB/s", "64 DPUs, 32 MB/DPU [SDK e2e]", 2.82, 4.74, None, "§3.2", 0.20, "%.2f", ""),
    # another server's row (report.py gives it no target): shown, not judged
    (G4, "push CPU->DPU GB/s", "1 DPU, 32 MB/DPU [direct model]", 0.39, 0.33, None, "§3.2", None, "%.2f",
     "(measured on server=prim)"),
    ("5. launch", "dpu_launch overhead us", "1 rank [SDK e2e]", 116.0, None, None, "§3.5", 0.20, "%.0f", ""),
]


def test_rows_get_sources_statuses_and_reasons():
    cal = _section()
    groups = cal.convert(ROWS, [], {})
    lat, bw = groups[G3]
    assert lat.status == MISS and "45 cycles" in lat.note and "PrIM" in lat.source
    assert bw.status == WITHIN and bw.note == ""
    xfer, other = groups[G4]
    assert xfer.status == MISS and "server-prim.desc" in xfer.note and xfer.how == "SDK e2e"
    assert xfer.params == "64 DPUs, 32 MB/DPU"
    assert other.status == INFO and "server=prim" in other.note
    launch = groups["5. launch"][0]
    assert launch.status == INFO
    for rs in groups.values():
        Table("t", rs, [cal_cmd()])  # every miss says why


def cal_cmd():
    from openpim_report import Command

    return Command(argv=["bench/calibration/run.sh"], env={}, cwd=".", seconds=0, returncode=0, ident=1)


def test_a_preset_keeps_the_baseline_reason_only_where_it_did_not_move_the_row():
    cal = _section()
    base = cal.convert(ROWS, [], {})
    baseline = {r.key: (r.status, r.rel) for rs in base.values() for r in rs}
    same = cal.convert(ROWS, ["freq_mhz"], baseline)
    assert "45 cycles" in same[G3][0].note  # unchanged by the preset: the baseline's reason
    moved = list(ROWS)
    moved[0] = moved[0][:3] + (60.0,) + moved[0][4:]  # a what-if DMA makes it too fast
    rows = cal.convert(moved, ["dma_read_fixed"], baseline)
    assert rows[G3][0].status == MISS and "this preset changes dma_read_fixed" in rows[G3][0].note
    worse = list(ROWS)
    worse[1] = worse[1][:3] + (300.0,) + worse[1][4:]  # within in the baseline, a miss with the preset
    assert "this preset changes mul" in cal.convert(worse, ["mul"], baseline)[G3][1].note


def test_preset_files_name_their_chip(tmp_path):
    cal = _section()
    assert cal.dpu_chip(os.path.join(ROOT, "timing", "presets", "v1A.desc")) == "v1A"
    assert cal.dpu_chip(os.path.join(ROOT, "timing", "presets", "v1B.desc")) == "v1B"
    odd = tmp_path / "odd.desc"
    odd.write_text("preset = v1A\nname = odd\nwram_bytes = 1234  # no such chip\n")
    with pytest.raises(ReportError, match="matches no DPU chip"):
        cal.dpu_chip(str(odd))
    assert cal.preset_changes(str(odd)) == ["wram_bytes"]
