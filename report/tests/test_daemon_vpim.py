# SPDX-License-Identifier: MIT
"""daemon/'s section (vPIM's Figs. 9 and 14): its rows from bench_vpim.c and
examples.sh output lines made up here, checked against ratios worked out by
hand."""
import os

import pytest

from conftest import ROOT
from openpim_report import INFO, MISS, WITHIN, registry


def _section():
    return registry.load_section(os.path.join(ROOT, "daemon", "report_section.py"), "daemon").module


CSV = """
csv,cpu,host,0,0,0.100000,0.110000,0
csv,nw,emb,0,60,0.080000,0.100000,1.400000
csv,nw,unix-C,0,60,0.350000,0.400000,1.400000
csv,nw,unix-P,0,60,0.300000,0.320000,1.400000
csv,nw,unix-B,0,60,0.200000,0.200000,1.400000
csv,nw,unix-PB,0,60,0.070000,0.080000,1.400000
csv,nw-xfer,emb,0,60,0.060000,0.070000,1.400000
csv,nw-xfer,unix-PB,0,60,0.080000,0.085000,1.400000
csv,fig9,emb,8,60,0.300000,0.400000,0.080000
csv,fig9-xfer,emb,8,60,0.100000,0.200000,0.080000
csv,fig9,unix,8,60,0.340000,0.500000,0.080000
csv,fig9-xfer,unix,8,60,0.140000,0.150000,0.080000
csv,fig9,emb,60,60,1.000000,1.200000,0.600000
csv,fig9-xfer,emb,60,60,0.500000,0.600000,0.600000
csv,fig9,unix,60,60,0.900000,1.300000,0.600000
csv,fig9-xfer,unix,60,60,0.400000,0.600000,0.600000
not a csv line
"""

EXAMPLES = """example         emb min s  emb med s  rem min s  rem med s   ratio
checksum            0.052      0.058      0.060      0.076    1.30
histogram           0.626      0.835      0.577      0.839    1.00
mean ratio over 2 examples: 1.150
"""


def test_parse_reads_every_csv_line_and_nothing_else():
    d = _section().parse(CSV)
    assert len(d) == 16
    assert d[("fig9", "unix", 60)] == (0.9, 1.3, 0.6, 60)
    assert d[("cpu", "host", 0)][0] == 0.1


def test_on_server_adds_the_daemons_extra_time_without_launches_and_never_a_gain():
    m = _section()
    d = m.parse(CSV)
    assert m.on_server(d, "fig9", "unix", 8) == pytest.approx((0.08 + 0.04) / 0.08)
    assert m.on_server(d, "fig9", "unix", 60) == 1.0  # faster than embedded: no cost, not a speed-up
    assert m.on_server(d, "nw", "unix-PB", 0) == pytest.approx((1.4 + 0.02) / 1.4)


def test_fig9_rows_are_comparisons_beside_the_published_endpoints():
    m = _section()
    rows = m.fig9_rows(m.parse(CSV), [8, 60], 60, [("UNIX", "unix")])
    assert len(rows) == 4 and all(r.status == INFO for r in rows)
    measured8, server8, measured60, _ = rows
    assert measured8.modelled == pytest.approx(0.5 / 0.4)
    assert measured8.published == 2.33 and measured60.published == 1.29
    assert server8.modelled == pytest.approx(1.5)
    assert measured60.modelled == pytest.approx(1.3 / 1.2)


def test_stream_rows_set_streaming_against_shared_memory():
    m = _section()
    d = m.parse(CSV + "csv,fig9-xfer,unix-stream,8,60,0.340000,0.400000,0.080000\n")
    rows = m.stream_rows(d, [8, 60], 60)
    assert len(rows) == 1 and rows[0].status == INFO
    assert rows[0].modelled == pytest.approx(0.34 / 0.14)
    assert "+200 ms for the 8 MB" in rows[0].note


def test_nw_rows_ratios_and_gains():
    m = _section()
    rows = m.nw_rows(m.parse(CSV), 60, 83, [("UNIX", "unix")])
    by = {r.quantity: r for r in rows}
    assert by["NW-like overhead, batching and prefetch off (vPIM-C)"].modelled == pytest.approx(4.0)
    assert by["NW-like overhead, batching and prefetch off (vPIM-C)"].published == 53.0
    assert by["NW-like overhead, both on (vPIM-PB)"].modelled == pytest.approx(0.8)
    assert by["NW-like overhead, both on (vPIM-PB)"].published == pytest.approx(53.0 / 10.8)
    assert by["gain of batching + prefetch (C / PB)"].modelled == pytest.approx(5.0)
    assert by["gain of prefetch alone (C / P)"].modelled == pytest.approx(0.4 / 0.32)
    assert all(r.status == INFO for r in rows)


def test_goal_rows_pass_and_miss_on_their_goal():
    m = _section()
    ok = m.goal_row("x", "p", 1.05, 1.10, "how")
    bad = m.goal_row("x", "p", 1.20, 1.10, "how")
    assert ok.status == WITHIN and bad.status == MISS and bad.note
    ok.check()
    bad.check()


def test_examples_table_and_its_mean():
    rows, mean = _section().parse_examples(EXAMPLES)
    assert mean == 1.15
    assert rows["checksum"] == (0.052, 0.058, 0.060, 0.076)


def test_vm_explanation_rows():
    m = _section()
    d = m.parse(CSV + "\ncsv,cpu,vm,0,0,0.150000,0.160000,0\ncsv,calls,emb,0,60,0.020000,0.030000,0.07\n"
                      "csv,calls,vm,0,60,0.498000,0.500000,0.07\ncsv,nw,vm-PB,0,60,1.800000,2.000000,1.4\n")
    rows = m.vm_explain_rows(d, 60, 83)
    assert rows[0].modelled == pytest.approx(1.5)
    assert rows[1].modelled == pytest.approx(0.498 / (60 * 83) * 1e6)
    assert rows[2].modelled == pytest.approx(100 * 3 * 0.498 / 2.0)
