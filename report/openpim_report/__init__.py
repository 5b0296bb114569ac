# SPDX-License-Identifier: MIT
"""OpenPIM's reproduction report: sections (report/sections/*.py and
<folder>/report_section.py) run benchmarks through the SDK build and return
rows and figures that set OpenPIM's modelled values beside published ones;
`python3 -m openpim_report` renders them into one self-contained HTML page.
Row classes and the tolerance rules: openpim_report/model.py."""
from .context import Context, matplotlib_pyplot
from .model import (CALIBRATED, INFO, KERNEL, MISS, PREDICTION, RATIO, SELF_CHECK, SHARE, TIME, TREND, UNCOMPARED,
                    WITHIN, Command, Figure, ReportError, Row, Section, Table)

__all__ = ["CALIBRATED", "Context", "Command", "Figure", "INFO", "KERNEL", "MISS", "PREDICTION", "RATIO",
           "ReportError", "Row", "SELF_CHECK", "SHARE", "Section", "TIME", "TREND", "Table", "UNCOMPARED", "WITHIN",
           "matplotlib_pyplot"]
