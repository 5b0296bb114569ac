# SPDX-License-Identifier: MIT
"""The calibration section's own logic on synthetic rows of the suite's
report.py (the suite itself runs in scripts/report.sh): sources, row classes
(the published machines' rows are calibrated inputs, other servers' and
what-if presets' rows are not compared), why a row misses, the DPU chip of a
preset."""
import importlib.util
import os

import pytest

from conftest import ROOT
from openpim_report import CALIBRATED, INFO, KERNEL, MISS, TIME, UNCOMPARED, WITHIN, ReportError, Table


def _section():
    spec = importlib.util.spec_from_file_location("cal", os.path.join(ROOT, "report", "sections", "calibration.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


# (section, measurement, params, model, published, err, source, target, fmt, note): report.py's Table rows
G3 = "3. MRAM DMA (calibration-sources §2.2/§2.3, target 10%)"
G4 = "4a. CPU-DPU one rank, GB/s (calibration-sources §3.2, target 20%)"
ROWS = [
    (G3, "mram_read latency, cycles", "8 B, 1 tasklet", 126.0, 81.0, None, "§2.2", 0.10, "%.0f", "(77/61 + 0.5·B)"),
    (G3, "mram_read bandwidth, MB/s", "2 KB, 1 tasklet", 604.0, 628.23, None, "§2.2", 0.10, "%.2f", ""),
    (G4, "push DPU->CPU GB/s", "64 DPUs, 32 MB/DPU [SDK e2e]", 2.82, 4.74, None, "§3.2", 0.20, "%.2f", ""),
    # another server's row (report.py gives it no target): shown, not judged
    (G4, "push CPU->DPU GB/s", "1 DPU, 32 MB/DPU [direct model]", 0.39, 0.33, None, "§3.2", None, "%.2f",
     "(measured on server=prim)"),
    ("5. launch", "dpu_launch overhead us", "1 rank [SDK e2e]", 116.0, None, None, "§3.5", 0.20, "%.0f", ""),
]


def test_rows_get_sources_classes_statuses_and_reasons():
    cal = _section()
    groups = cal.convert(ROWS, [], "v1A")
    lat, bw = groups[G3]
    assert lat.kind == CALIBRATED and lat.measure == KERNEL and "v1A.desc" in lat.input
    assert lat.status == MISS and "45 cycles" in lat.note and "PrIM" in lat.source
    assert bw.status == WITHIN and bw.note == ""
    xfer, other = groups[G4]
    assert xfer.kind == CALIBRATED and xfer.measure == TIME
    assert xfer.status == MISS and "server-prim.desc" in xfer.note and xfer.how == "SDK e2e"
    assert xfer.params == "64 DPUs, 32 MB/DPU"
    # another server's row: shown with its deviation, not compared
    assert other.kind == UNCOMPARED and other.status == INFO and "server=prim" in other.note
    assert other.deviation == "+18.2%"
    launch = groups["5. launch"][0]
    assert launch.kind == UNCOMPARED and launch.status == INFO
    for rs in groups.values():
        Table("t", rs, [cal_cmd()])  # every miss says why


def cal_cmd():
    from openpim_report import Command

    return Command(argv=["bench/calibration/run.sh"], env={}, cwd=".", seconds=0, returncode=0, ident=1)


def test_a_what_if_preset_is_not_compared_with_v1A_servers():
    cal = _section()
    rows = cal.convert(ROWS, ["dma_read_fixed"], "fastdma")
    for rs in rows.values():
        for r in rs:
            assert r.kind == UNCOMPARED and not r.counted()
            if r.published is not None:
                assert "this preset changes dma_read_fixed" in r.note or "server=prim" in r.note


def test_preset_files_name_their_chip(tmp_path):
    cal = _section()
    assert cal.dpu_chip(os.path.join(ROOT, "timing", "presets", "v1A.desc")) == "v1A"
    assert cal.dpu_chip(os.path.join(ROOT, "timing", "presets", "v1B.desc")) == "v1B"
    odd = tmp_path / "odd.desc"
    odd.write_text("preset = v1A\nname = odd\nwram_bytes = 1234  # no such chip\n")
    with pytest.raises(ReportError, match="matches no DPU chip"):
        cal.dpu_chip(str(odd))
    assert cal.preset_changes(str(odd)) == ["wram_bytes"]


def test_default_presets_are_the_published_machines(monkeypatch):
    """v1A and the server presets that set a key; 'all' adds the what-ifs and v1B."""
    from types import SimpleNamespace

    cal = _section()
    ctx = SimpleNamespace(path=lambda *p: os.path.join(ROOT, *p))
    monkeypatch.delenv("OPENPIM_REPORT_PRESETS", raising=False)
    names = [n for n, _ in cal.presets(ctx)]
    assert names[0] == "v1A" and "server-prim" in names and "server-xferstudy" in names
    assert "server-cloud2024" not in names  # v1A's own server: the same run
    assert not {"mul1", "mul10x", "fastdma", "channels8", "v1B"} & set(names)
    monkeypatch.setenv("OPENPIM_REPORT_PRESETS", "all")
    every = [n for n, _ in cal.presets(ctx)]
    assert {"mul1", "v1B", "server-cloud2024"} <= set(every) and every[0] == "v1A"
