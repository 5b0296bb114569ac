"""What a report section hands back: rows that set OpenPIM's modelled value
beside a published one, figures, and the commands that produced them.

The rules the page relies on are checked here, when a section builds its
result, so a section that breaks them fails loudly instead of printing a
misleading page:
  * every row names its source and has a status; a row that misses its target
    says why (its note; checked when the row goes into a Table);
  * every figure and table names at least one command recorded by the run
    context (OpenPIM numbers come from commands run during report generation,
    never from constants in the section).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import List, Optional, Union

WITHIN = "within target"
MISS = "miss"
INFO = "info"  # no published value to compare with (shown, not counted)
STATUSES = (WITHIN, MISS, INFO)


class ReportError(Exception):
    """A section broke a rule of the report (or its command failed)."""


@dataclass
class Row:
    """One quantity: OpenPIM's modelled value beside the published one.

    published is a number (the deviation is modelled / published - 1 and the
    status follows from `target`) or a statement (str: the paper's wording;
    then `status` and `deviation` must be given by the section, which
    computed them from the modelled values).
    """

    quantity: str
    params: str
    modelled: Union[float, str]
    published: Union[float, str, None]
    source: str
    unit: str = ""
    target: Optional[float] = 0.20  # relative; None: no target (INFO)
    note: str = ""  # why it misses (required for MISS), or a remark
    status: Optional[str] = None
    deviation: Optional[str] = None  # text; computed when published is a number
    how: str = ""  # how the modelled value was obtained (e.g. "SDK end to end")
    fmt: str = "%.3g"

    def __post_init__(self):
        if not self.quantity or not self.source:
            raise ReportError("row %r: quantity and source are required" % (self.quantity,))
        if isinstance(self.modelled, float) and not math.isfinite(self.modelled):
            raise ReportError("row %r: modelled value %r is not finite" % (self.quantity, self.modelled))
        numeric = isinstance(self.published, (int, float)) and not isinstance(self.published, bool)
        if numeric and isinstance(self.modelled, (int, float)):
            if self.published == 0:
                raise ReportError("row %r: published value 0 has no relative deviation" % self.quantity)
            rel = self.modelled / self.published - 1.0
            if self.deviation is None:
                self.deviation = "%+.1f%%" % (100.0 * rel)
            if self.status is None:
                if self.target is None:
                    self.status = INFO
                else:
                    self.status = WITHIN if abs(rel) <= self.target + 1e-12 else MISS
            self.rel = rel
        else:
            self.rel = None
            if self.published is None and self.status is None:
                self.status = INFO
            if self.status is None:
                raise ReportError("row %r: a statement (%r) needs an explicit status" %
                                  (self.quantity, self.published))
            if self.deviation is None:
                self.deviation = "n/a"
        if self.status not in STATUSES:
            raise ReportError("row %r: unknown status %r" % (self.quantity, self.status))

    def check(self):
        """The rules a finished row obeys (a section may set the note after
        the status is known; Table checks its rows)."""
        if self.status not in STATUSES:
            raise ReportError("row %r: unknown status %r" % (self.quantity, self.status))
        if self.status == MISS and not self.note.strip():
            raise ReportError("row %r (%s) misses its target (%s) but its note does not say why" %
                              (self.quantity, self.params, self.deviation))

    def modelled_text(self) -> str:
        if isinstance(self.modelled, str):
            return self.modelled
        return self.fmt % self.modelled

    def published_text(self) -> str:
        if self.published is None:
            return "—"
        if isinstance(self.published, str):
            return self.published
        return self.fmt % self.published

    def target_text(self) -> str:
        if self.target is None or self.status == INFO:
            return ""
        return "±%.0f%%" % (100 * self.target)


@dataclass
class Command:
    """A command run during report generation (shown beside what it produced)."""

    argv: List[str]
    env: dict  # the variables the section set (not the whole environment)
    cwd: str
    seconds: float
    returncode: int
    ident: int = 0

    def shell_text(self) -> str:
        import shlex

        env = " ".join("%s=%s" % (k, shlex.quote(v)) for k, v in sorted(self.env.items()))
        return (env + " " if env else "") + " ".join(shlex.quote(a) for a in self.argv)


@dataclass
class Figure:
    png: bytes
    caption: str
    commands: List[Command]
    alt: str = ""

    def __post_init__(self):
        if not self.png.startswith(b"\x89PNG\r\n\x1a\n"):
            raise ReportError("figure %r is not a PNG" % self.caption)
        if not self.commands:
            raise ReportError("figure %r names no command: OpenPIM's figures must come from commands run "
                              "during report generation" % self.caption)


@dataclass
class Table:
    title: str
    rows: List[Row]
    commands: List[Command]
    intro: str = ""
    collapsed: bool = False  # rendered inside <details>

    def __post_init__(self):
        if not self.commands:
            raise ReportError("table %r names no command: OpenPIM's values must come from commands run during "
                              "report generation" % self.title)
        for r in self.rows:
            if not isinstance(r, Row):
                raise ReportError("table %r holds %r, not a Row" % (self.title, r))
            r.check()


@dataclass
class Section:
    """What one registered section produced."""

    title: str
    intro: str = ""  # HTML-escaped text; paragraphs separated by blank lines
    figures: List[Figure] = field(default_factory=list)
    tables: List[Table] = field(default_factory=list)
    notes: List[str] = field(default_factory=list)
    commands: List[Command] = field(default_factory=list)
    error: str = ""  # set by the framework when the section failed

    def rows(self):
        for t in self.tables:
            yield from t.rows

    def counts(self):
        c = {s: 0 for s in STATUSES}
        for r in self.rows():
            c[r.status] += 1
        return c
