# SPDX-License-Identifier: MIT
"""The five-application geomean of PID-Comm's Fig. 15 (workloads/gnn's section), from the DLRM section's
records and the graph apps' speedups: one speedup per application, only the largest PE count."""
import importlib.util
import math
import os
import types

import pytest

from conftest import ROOT
from openpim_report import INFO, ReportError, registry


def _modules():
    gnn = registry.load_section(os.path.join(ROOT, "workloads", "gnn", "report_section.py"), "workloads-gnn").module
    spec = importlib.util.spec_from_file_location(
        "graph_summary_t", os.path.join(ROOT, "bench", "pidcomm_apps", "graph_summary.py"))
    S = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(S)
    return gnn, S


def _ctx(tmp_path, dlrm_rows):
    work = tmp_path / "workloads-gnn"
    work.mkdir(parents=True)
    if dlrm_rows is not None:
        d = tmp_path / "workloads-dlrm"
        d.mkdir()
        lines = ["app,variant,pes,dtype,total_us,kernel_us,comm_us,host_us,cpu_us"]
        lines += ["%s,%s,%d,int32,%g,0,0,0,1" % r for r in dlrm_rows]
        (d / "apps.csv").write_text("\n".join(lines) + "\n")
    return types.SimpleNamespace(work=str(work))


DLRM = [("dlrm_d16", "baseline", 1024, 200), ("dlrm_d16", "optimised", 1024, 100),
        ("dlrm_d32", "baseline", 1024, 300), ("dlrm_d32", "optimised", 1024, 100),
        ("mlp_f8192", "baseline", 1024, 400), ("mlp_f8192", "optimised", 1024, 100),
        # smaller PE counts must not count
        ("dlrm_d16", "baseline", 64, 900), ("dlrm_d16", "optimised", 64, 100),
        ("mlp_f8192", "baseline", 64, 100), ("mlp_f8192", "optimised", 64, 100)]
GRAPH = {"gnn_rsar": 2.0, "gnn_arag": 8.0, "bfs": 1.5, "cc": 6.0}


def test_one_speedup_per_application_at_the_largest_pe_count(tmp_path):
    gnn, S = _modules()
    row = gnn._five_app_geomean(_ctx(tmp_path, DLRM), S, GRAPH)
    per_app = [math.sqrt(2.0 * 3.0), math.sqrt(2.0 * 8.0), 1.5, 6.0, 4.0]
    assert row.modelled == pytest.approx(math.prod(per_app) ** 0.2, rel=1e-12)
    assert row.published == 1.99 and "DLRM 2.45x, GNN 4.00x, BFS 1.50x, CC 6.00x, MLP 4.00x" in row.note


def test_without_the_dlrm_section_the_row_says_so(tmp_path):
    gnn, S = _modules()
    row = gnn._five_app_geomean(_ctx(tmp_path, None), S, GRAPH)
    assert row.status == INFO and "did not run" in row.note


def test_a_missing_application_is_an_error(tmp_path):
    gnn, S = _modules()
    with pytest.raises(ReportError, match="missing applications"):
        gnn._five_app_geomean(_ctx(tmp_path, DLRM), S, {k: v for k, v in GRAPH.items() if k != "cc"})
    with pytest.raises(ReportError, match="missing applications"):
        gnn._five_app_geomean(_ctx(tmp_path / "b", [r for r in DLRM if not r[0].startswith("mlp")]), S, GRAPH)
