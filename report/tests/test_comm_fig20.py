# SPDX-License-Identifier: MIT
"""comm's section, PID-Comm Fig. 20 decomposed: the paper's four maxima as read, write and reduction rates
(worked out by hand below) beside the model's, from benchmark CSV rows."""
import os

import pytest

from conftest import ROOT
from openpim_report import CALIBRATED, MISS, PREDICTION, WITHIN, registry


def _section():
    return registry.load_section(os.path.join(ROOT, "comm", "report_section.py"), "comm").module


def _row(prim, dims, modelled_us, xfer_rd_us, xfer_wr_us, bytes_per_dpu=524288, dpus=1024):
    return {"primitive": prim, "variant": "optimised", "dpus": str(dpus), "dims": dims, "mask": "100",
            "bytes_per_dpu": str(bytes_per_dpu), "modelled_us": "%.3f" % modelled_us,
            "xfer_us": "%.3f" % (xfer_rd_us + xfer_wr_us), "xfer_rd_us": "%.3f" % xfer_rd_us,
            "xfer_wr_us": "%.3f" % xfer_wr_us, "modelled_gbps": "%.4f" % (bytes_per_dpu * dpus / modelled_us / 1e3)}


# 512 KB on 1,024 PEs = 0.536870912 GB
GB = 0.536870912
BEST = {"alltoall": _row("alltoall", "8x8x16", 46838.0, 25000.0, 16000.0),
        "reduce_scatter": _row("reduce_scatter", "128x4x2", 44000.0, 25000.0, 200.0),
        "allgather": _row("allgather", "128x4x2", 20000.0, 200.0, 16000.0),
        "allreduce": _row("allreduce", "8x8x16", 59000.0, 25000.0, 16000.0)}


def test_the_papers_terms_and_the_models():
    rows = _section()._fig20_terms(BEST)
    read, write, red = rows
    # paper: write = 1/36.1 s per GB; read = 1/20.6 - 1/36.1 s per GB, i.e. 20.6 x 36.1 / 15.5 = 47.978 GB/s;
    # reduction = 1/12.2 - 1/20.6, i.e. 12.2 x 20.6 / 8.4 = 29.919 GB/s
    assert read.published == pytest.approx(20.6 * 36.1 / 15.5, rel=1e-12)
    assert write.published == pytest.approx(36.1, rel=1e-12)
    assert red.published == pytest.approx(12.2 * 20.6 / 8.4, rel=1e-12)
    # model: AlltoAll's 0.537 GB read in 25 ms, AllGather's written in 16 ms, AllReduce's 59 - 41 ms beyond
    assert read.modelled == pytest.approx(GB / 0.025, rel=1e-12)
    assert write.modelled == pytest.approx(GB / 0.016, rel=1e-12)
    assert red.modelled == pytest.approx(GB / 0.018, rel=1e-12)
    assert read.status == MISS and write.status == WITHIN and red.status == WITHIN
    # the reduction rate is comm's cost model's input, taken from these maxima: not a prediction
    assert read.kind == write.kind == PREDICTION and red.kind == CALIBRATED and "comm/README.md" in red.input
    # the check that the paper's terms add up: ReduceScatter at N = 128 (the best RS row's x length):
    # 0.0208430 + 0.0334234 + 0.0277008 / 128 = 0.0544828 s per GB -> 18.35 GB/s against 17.8
    assert "N = 128 is 18.4 GB/s against the published 17.8" in read.note


def test_shares_of_a_row():
    s = _section()._shares(BEST["alltoall"])
    # 25 / 46.838 = 53.4 %, 16 / 46.838 = 34.2 %, the rest 12.5 % (rounded down: 12.46)
    assert s == "read from the DPUs 53 %, written to them 34 %, kernels and host work 12 %"
