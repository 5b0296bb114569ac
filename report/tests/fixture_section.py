# SPDX-License-Identifier: MIT
"""A small section for the report's own tests: runs one quick command, makes
two figures and a table with a row of each class and status, so the page can
be generated and checked in a browser in seconds.  Not registered (it lives in
report/tests/); the tests pass it with --section."""
import sys

from openpim_report import (CALIBRATED, PREDICTION, RATIO, SELF_CHECK, TIME, TREND, UNCOMPARED, Row, Section, Table,
                            matplotlib_pyplot)

TITLE = "Fixture section <with markup & quotes\">"
ORDER = 1
LONG = ("a long explanation of why a row misses, with enough words to fill several lines of the note column "
        "so that a table whose cells did not wrap would be far wider than the window; ") * 3


def run(ctx):
    plt = matplotlib_pyplot()
    cmd, out = ctx.run([sys.executable, "-c", "for i in range(1, 9): print(i, i * i)"])
    xs, ys = zip(*[tuple(map(int, line.split())) for line in out.splitlines()])
    sec = Section(title=TITLE, intro="Numbers from `python3 -c`.\n\nSecond paragraph <b>not bold</b>.")
    for kind in ("line", "bar"):
        fig, ax = plt.subplots(figsize=(6, 3))
        (ax.plot if kind == "line" else ax.bar)(xs, ys)
        ax.set_title("fixture %s" % kind)
        sec.figures.append(ctx.figure(fig, "fixture %s figure" % kind, [cmd]))
    rows = [
        Row("square of 2", "fixture", float(ys[1]), 4.0, "arithmetic", kind=PREDICTION, measure=TIME),
        Row("square of 3", "fixture", float(ys[2]), 12.0, "a wrong table", kind=PREDICTION, measure=RATIO,
            note=LONG),
        Row("square of 4", "fixture", float(ys[3]), None, "nothing published", kind=UNCOMPARED),
        Row("squares increase", "fixture", "1 -> 4 -> 9 -> 16 -> 25 -> 36 -> 49 -> 64, every step of the eight "
            "values larger than the one before it, printed in full in the modelled cell", "increase", "statement",
            kind=TREND, test="every step larger", holds=False, note="<script>alert(1)</script> stays text"),
        Row("square of 5", "fixture", float(ys[4]), 25.0, "the preset", kind=CALIBRATED, measure=TIME,
            input="fixture.desc: square = 25"),
        Row("two ways agree", "fixture", "identical", "identical", "method", kind=SELF_CHECK, test="equal",
            holds=True),
    ]
    sec.tables.append(Table("fixture rows", rows, [cmd]))
    sec.notes.append("a note with `code`")
    return sec
