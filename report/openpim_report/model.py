# SPDX-License-Identifier: MIT
"""What a report section hands back: rows that set OpenPIM's modelled value
beside a published one, figures, and the commands that produced them.

Every row declares its class (`kind=`, a required keyword, no default):

  PREDICTION   a number the model produced that could miss its published
               value. `measure=` names the kind of quantity; its tolerance is
               the page's one rule for that kind (TOLERANCES), never a
               per-row target. Counted.
  TREND        a qualitative statement of the paper with a stated, falsifiable
               test: `test=` says exactly what was checked (thresholds
               included), `holds=` whether it held. Counted apart from
               predictions.
  CALIBRATED   the published value was fed into the model (a preset constant
               or a fit): `input=` names where (e.g. "server-xferstudy.desc:
               h2d_wram_bcast_factor = 3"). Shown grey with its deviation,
               never counted as reproduced.
  SELF_CHECK   the model or the method checked against itself (two paths
               that must agree, a result equal to a reference): `test=`,
               `holds=`. Not counted.
  UNCOMPARED   OpenPIM's value without a comparable published one (none is
               published, or it was measured on something else: the note says
               what). Shown, not counted.

The rules the page relies on are checked here, when a section builds its
result, so a section that breaks them fails loudly instead of printing a
misleading page:
  * every row names its source and its class with the fields that class
    needs; a prediction has numbers on both sides and a `measure`;
  * a row that misses (a prediction outside its tolerance, a trend that does
    not hold, a failed self-check) says why in its note (checked when the row
    goes into a Table);
  * every figure and table names at least one command recorded by the run
    context (OpenPIM numbers come from commands run during report generation,
    never from constants in the section).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import List, Optional, Union

# ---- row classes
PREDICTION = "prediction"
TREND = "trend"
CALIBRATED = "calibrated input"
SELF_CHECK = "self-check"
UNCOMPARED = "not compared"
KINDS = (PREDICTION, TREND, CALIBRATED, SELF_CHECK, UNCOMPARED)
COUNTED = (PREDICTION, TREND)  # what the summary counts as reproduced or missed

# ---- statuses
WITHIN = "within target"
MISS = "miss"
INFO = "info"  # nothing judged (an uncompared row)
STATUSES = (WITHIN, MISS, INFO)

# ---- kinds of quantity and their one tolerance rule each (stated once on the page)
KERNEL = "kernel"
TIME = "time"
RATIO = "ratio"
SHARE = "share"
# measure -> (what it covers, tolerance, relative (True) or absolute in the row's unit)
TOLERANCES = {
    KERNEL: ("DPU-side quantities: cycles, instructions per operation, kernel times, DPU throughput and "
             "WRAM/MRAM bandwidth", 0.10, True),
    TIME: ("host-side and whole-run quantities: transfer, launch and end-to-end times, transfer rates, "
           "collective throughput", 0.20, True),
    RATIO: ("ratios of two modelled quantities: speedups, slowdowns, one time over another", 0.25, True),
    SHARE: ("shares of a total, in percent (the deviation is in percentage points)", 5.0, False),
}


def tolerance_text(measure: str) -> str:
    _, tol, rel = TOLERANCES[measure]
    return "±%.0f%%" % (100 * tol) if rel else "±%g points" % tol


class ReportError(Exception):
    """A section broke a rule of the report (or its command failed)."""


def _number(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


@dataclass
class Row:
    """One quantity: OpenPIM's modelled value beside the published one.

    quantity, params, modelled, published, source are positional; `kind` and
    the fields of its class are keywords (see the module's docstring).
    published is a number or the paper's statement (str); modelled is a
    number or a text that shows the values a trend's test used.
    """

    quantity: str
    params: str
    modelled: Union[float, str]
    published: Union[float, str, None]
    source: str
    kind: str = field(kw_only=True)  # required: PREDICTION, TREND, CALIBRATED, SELF_CHECK or UNCOMPARED
    measure: Optional[str] = field(default=None, kw_only=True)  # KERNEL, TIME, RATIO or SHARE
    test: str = field(default="", kw_only=True)  # a trend's or self-check's stated test
    holds: Optional[bool] = field(default=None, kw_only=True)  # whether that test held
    input: str = field(default="", kw_only=True)  # a calibrated row: where the published value was fed in
    unit: str = field(default="", kw_only=True)
    note: str = field(default="", kw_only=True)  # why it misses (required for MISS), or a remark
    deviation: Optional[str] = field(default=None, kw_only=True)  # text; computed when both sides are numbers
    how: str = field(default="", kw_only=True)  # how the modelled value was obtained (e.g. "SDK end to end")
    fmt: str = field(default="%.3g", kw_only=True)
    status: str = field(default="", init=False)
    rel: Optional[float] = field(default=None, init=False)  # modelled / published - 1 (relative measures)

    def _fail(self, why: str):
        raise ReportError("row %r (%s, %s): %s" % (self.quantity, self.params, self.kind, why))

    def __post_init__(self):
        if not self.quantity or not self.source:
            raise ReportError("row %r: quantity and source are required" % (self.quantity,))
        if self.kind not in KINDS:
            raise ReportError("row %r: kind %r is not one of %s" % (self.quantity, self.kind, ", ".join(KINDS)))
        if isinstance(self.modelled, float) and not math.isfinite(self.modelled):
            self._fail("modelled value %r is not finite" % self.modelled)
        both = _number(self.modelled) and _number(self.published)
        if self.measure is not None and self.measure not in TOLERANCES:
            self._fail("measure %r is not one of %s" % (self.measure, ", ".join(TOLERANCES)))
        if self.kind in (TREND, SELF_CHECK):
            if not self.test.strip() or not isinstance(self.holds, bool):
                self._fail("a %s states its test (test=) and whether it held (holds=True/False)" % self.kind)
            if self.measure is not None:
                self._fail("a %s is judged by its test, not by a tolerance (no measure=)" % self.kind)
            if self.kind == TREND and self.published is None:
                self._fail("a trend needs the published statement it tests")
            self.status = WITHIN if self.holds else MISS
            if self.deviation is None:
                self.deviation = "holds" if self.holds else "does not hold"
            return
        if self.test or self.holds is not None:
            self._fail("test=/holds= belong to trends and self-checks")
        if self.kind == PREDICTION:
            if not both:
                self._fail("a prediction sets a modelled number beside a published number (got %r and %r); "
                           "a statement is a trend" % (self.modelled, self.published))
            if self.measure is None:
                self._fail("a prediction names its measure= (%s): its tolerance is that kind's rule" %
                           ", ".join(TOLERANCES))
        if self.kind == CALIBRATED:
            if not self.input.strip():
                self._fail("a calibrated input names where its published value was fed in (input=)")
            if both and self.measure is None:
                self._fail("a calibrated number names its measure= (its deviation is judged by that rule)")
        elif self.input:
            self._fail("input= belongs to calibrated inputs")
        if self.kind == UNCOMPARED:
            if self.measure is not None:
                self._fail("an uncompared row has no tolerance (no measure=)")
            if self.published is not None and not self.note.strip():
                self._fail("a published value shown without comparing to it needs a note saying why")
            self.status = INFO
            if self.deviation is None:
                self.deviation = "n/a"
            return
        # PREDICTION, or CALIBRATED
        if both:
            _, tol, relative = TOLERANCES[self.measure]
            if relative:
                if self.published == 0:
                    self._fail("published value 0 has no relative deviation")
                self.rel = self.modelled / self.published - 1.0
                dev, within = self.rel, abs(self.rel) <= tol + 1e-12
                if self.deviation is None:
                    self.deviation = "%+.1f%%" % (100.0 * dev)
            else:
                dev = self.modelled - self.published
                within = abs(dev) <= tol + 1e-12
                if self.deviation is None:
                    self.deviation = "%+.1f points" % dev
            self.status = WITHIN if within else MISS
        else:  # a calibrated statement: what the model gives back, not judged
            self.status = INFO
            if self.deviation is None:
                self.deviation = "n/a"

    def counted(self) -> bool:
        return self.kind in COUNTED

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
        """The tolerance (a number's rule) or the trend's stated test."""
        if self.kind in (TREND, SELF_CHECK):
            return self.test
        if self.measure is None or self.status == INFO:
            return ""
        return "%s (%s)" % (tolerance_text(self.measure), self.measure)


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
    seconds: float = 0.0  # how long the section ran (set by the framework)

    def rows(self):
        for t in self.tables:
            yield from t.rows

    def counts(self):
        """{(kind, status): rows} over every table."""
        c = {}
        for r in self.rows():
            c[(r.kind, r.status)] = c.get((r.kind, r.status), 0) + 1
        return c
