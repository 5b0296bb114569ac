"""A small section for the report's own tests: runs one quick command, makes
two figures and a table with a row of each status, so the page can be
generated and checked in a browser in seconds.  Not registered (it lives in
report/tests/); the tests pass it with --section."""
import sys

from openpim_report import MISS, Row, Section, Table, matplotlib_pyplot

TITLE = "Fixture section <with markup & quotes\">"
ORDER = 1


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
        Row("square of 2", "fixture", float(ys[1]), 4.0, "arithmetic"),
        Row("square of 3", "fixture", float(ys[2]), 12.0, "a wrong table", note="the table is wrong"),
        Row("square of 4", "fixture", float(ys[3]), None, "nothing published"),
        Row("squares increase", "fixture", "yes", "increase", "statement", status=MISS,
            note="<script>alert(1)</script> stays text"),
    ]
    sec.tables.append(Table("fixture rows", rows, [cmd]))
    sec.notes.append("a note with `code`")
    return sec
