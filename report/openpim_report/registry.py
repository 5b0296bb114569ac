# SPDX-License-Identifier: MIT
"""Finding the sections of the page.

A section is a Python module with
    TITLE = "..."            the heading on the page
    ORDER = 50               place on the page (smaller first; default 100)
    def run(ctx): ...        runs its benchmarks through ctx.run() and returns
                             an openpim_report.Section
It is registered by existing in one of two places:
    report/sections/<name>.py        sections of the report itself
    <folder>/report_section.py       a library's own section (e.g. he/),
                                     named after its folder
    workloads/<name>/report_section.py   a workload's own section, named
                                     workloads-<name>
"""
from __future__ import annotations

import glob
import importlib.util
import os
from dataclasses import dataclass
from types import ModuleType
from typing import List

from .model import ReportError


@dataclass
class SectionSpec:
    name: str
    path: str
    module: ModuleType
    title: str
    order: int


def load_section(path: str, name: str) -> SectionSpec:
    spec = importlib.util.spec_from_file_location("openpim_report_section_" + name.replace("-", "_"), path)
    if spec is None or spec.loader is None:
        raise ReportError("section %s: cannot load %s" % (name, path))
    mod = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(mod)
    except Exception as e:  # a broken section must not hide the others' results
        raise ReportError("section %s (%s) does not import: %s: %s" % (name, path, type(e).__name__, e)) from e
    title = getattr(mod, "TITLE", None)
    run = getattr(mod, "run", None)
    if not isinstance(title, str) or not title or not callable(run):
        raise ReportError("section %s (%s) must define TITLE (str) and run(ctx)" % (name, path))
    order = getattr(mod, "ORDER", 100)
    if not isinstance(order, int):
        raise ReportError("section %s: ORDER must be an int" % name)
    return SectionSpec(name=name, path=path, module=mod, title=title, order=order)


def discover(root: str) -> List[str]:
    """Paths of every registered section module, as (name, path) pairs."""
    found = []
    for p in sorted(glob.glob(os.path.join(root, "report", "sections", "*.py"))):
        base = os.path.basename(p)[:-3]
        if not base.startswith("_"):
            found.append((base, p))
    for p in sorted(glob.glob(os.path.join(root, "*", "report_section.py"))):
        found.append((os.path.basename(os.path.dirname(p)), p))
    for p in sorted(glob.glob(os.path.join(root, "workloads", "*", "report_section.py"))):
        found.append(("workloads-" + os.path.basename(os.path.dirname(p)), p))
    names = [n for n, _ in found]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise ReportError("two sections share the name(s) %s" % ", ".join(dup))
    return found
