"""OpenPIM's reproduction report: sections (report/sections/*.py and
<folder>/report_section.py) run benchmarks through the SDK build and return
rows and figures that set OpenPIM's modelled values beside published ones;
`python3 -m openpim_report` renders them into one self-contained HTML page."""
from .context import Context, matplotlib_pyplot
from .model import INFO, MISS, WITHIN, Command, Figure, ReportError, Row, Section, Table

__all__ = ["Context", "Command", "Figure", "INFO", "MISS", "ReportError", "Row", "Section", "Table", "WITHIN",
           "matplotlib_pyplot"]
