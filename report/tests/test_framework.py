# SPDX-License-Identifier: MIT
"""The report framework: rows, figures, tables, rendering, section discovery,
the run context and the command line."""
import base64
import os
import re
import sys
import textwrap

import pytest

from conftest import ROOT
from openpim_report import (CALIBRATED, INFO, KERNEL, MISS, PREDICTION, RATIO, SELF_CHECK, SHARE, TIME, TREND,
                            UNCOMPARED, WITHIN, Command, Context, Figure, ReportError, Row, Section, Table)
from openpim_report import cli, registry, render
from openpim_report.browser import png_size, static_problems

CMD = Command(argv=["true"], env={}, cwd=".", seconds=0.0, returncode=0, ident=1)
PNG = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9aw"
                       "AAAABJRU5ErkJggg==")  # a 1x1 PNG


# ---- rows and their classes
def test_a_prediction_is_judged_by_the_rule_of_its_measure():
    r = Row("q", "p", 1.1, 1.0, "src", kind=PREDICTION, measure=TIME)  # time: 20 %
    assert r.status == WITHIN and r.deviation == "+10.0%" and r.target_text() == "±20% (time)"
    r = Row("q", "p", 1.25, 1.0, "src", kind=PREDICTION, measure=TIME)
    assert r.status == MISS and r.deviation == "+25.0%"
    r = Row("q", "p", 0.8, 1.0, "src", kind=PREDICTION, measure=TIME)  # exactly at the tolerance: within
    assert r.status == WITHIN and r.deviation == "-20.0%"
    assert Row("q", "p", 1.15, 1.0, "src", kind=PREDICTION, measure=KERNEL).status == MISS  # kernel: 10 %
    assert Row("q", "p", 1.25, 1.0, "src", kind=PREDICTION, measure=RATIO).status == WITHIN  # ratio: 25 %
    # shares: percentage points, not relative
    r = Row("q", "p", 44.9, 40.0, "src", kind=PREDICTION, measure=SHARE, unit="%")
    assert r.status == WITHIN and r.deviation == "+4.9 points"
    assert Row("q", "p", 2.0, 8.0, "src", kind=PREDICTION, measure=SHARE).status == MISS


def test_every_row_declares_its_class():
    with pytest.raises(TypeError):
        Row("q", "p", 1.0, 1.0, "src")  # no default class
    with pytest.raises(ReportError, match="kind"):
        Row("q", "p", 1.0, 1.0, "src", kind="fine")
    with pytest.raises(TypeError):
        Row("q", "p", 1.0, 1.0, "src", kind=PREDICTION, measure=TIME, target=0.5)  # no per-row tolerance


def test_a_prediction_needs_numbers_and_a_measure():
    with pytest.raises(ReportError, match="names its measure"):
        Row("q", "p", 1.0, 1.0, "src", kind=PREDICTION)
    with pytest.raises(ReportError, match="a statement is a trend"):
        Row("q", "p", "yes", "increases", "src", kind=PREDICTION, measure=TIME)
    with pytest.raises(ReportError, match="modelled number beside a published number"):
        Row("q", "p", 2.0, None, "src", kind=PREDICTION, measure=TIME)
    with pytest.raises(ReportError, match="measure"):
        Row("q", "p", 1.0, 1.0, "src", kind=PREDICTION, measure="speed")


def test_a_trend_states_its_test_and_whether_it_held():
    with pytest.raises(ReportError, match="states its test"):
        Row("q", "p", "1 -> 2", "increases", "src", kind=TREND)
    with pytest.raises(ReportError, match="states its test"):
        Row("q", "p", "1 -> 2", "increases", "src", kind=TREND, test="each step larger", holds=1)
    with pytest.raises(ReportError, match="needs the published statement"):
        Row("q", "p", "1 -> 2", None, "src", kind=TREND, test="each step larger", holds=True)
    with pytest.raises(ReportError, match="not by a tolerance"):
        Row("q", "p", 2.0, 1.0, "src", kind=TREND, test="larger", holds=True, measure=RATIO)
    r = Row("q", "p", "1 -> 2", "increases", "src", kind=TREND, test="each step larger", holds=True)
    assert r.status == WITHIN and r.deviation == "holds" and r.target_text() == "each step larger"
    r = Row("q", "p", "2 -> 1", "increases", "src", kind=TREND, test="each step larger", holds=False)
    assert r.status == MISS and r.deviation == "does not hold"
    with pytest.raises(ReportError, match="belong to trends"):
        Row("q", "p", 1.0, 1.0, "src", kind=PREDICTION, measure=TIME, holds=True)


def test_a_calibrated_input_names_its_input_and_is_never_counted():
    with pytest.raises(ReportError, match="input="):
        Row("q", "p", 3.0, 3.0, "src", kind=CALIBRATED, measure=RATIO)
    with pytest.raises(ReportError, match="belongs to calibrated"):
        Row("q", "p", 3.0, 3.0, "src", kind=PREDICTION, measure=RATIO, input="x.desc: k = 3")
    r = Row("q", "p", 3.0, 3.0, "src", kind=CALIBRATED, measure=RATIO, input="x.desc: k = 3")
    assert r.status == WITHIN and r.deviation == "+0.0%" and not r.counted()
    assert Row("q", "p", 1.0, 3.0, "src", kind=CALIBRATED, measure=RATIO, input="k").status == MISS
    assert Row("q", "p", "x", "y", "src", kind=CALIBRATED, input="k").status == INFO
    assert Row("q", "p", 3.0, 3.0, "src", kind=PREDICTION, measure=RATIO).counted()


def test_uncompared_rows_say_why_a_published_value_is_not_compared():
    r = Row("q", "p", 3.0, None, "src", kind=UNCOMPARED)
    assert r.status == INFO and r.deviation == "n/a" and r.target_text() == ""
    with pytest.raises(ReportError, match="needs a note"):
        Row("q", "p", 3.0, 1.0, "src", kind=UNCOMPARED)
    Row("q", "p", 3.0, 1.0, "src", kind=UNCOMPARED, note="measured on another server")
    with pytest.raises(ReportError, match="no tolerance"):
        Row("q", "p", 3.0, None, "src", kind=UNCOMPARED, measure=TIME)


def test_a_miss_must_say_why():
    for r in (Row("q", "p", 2.0, 1.0, "src", kind=PREDICTION, measure=TIME),
              Row("q", "p", "no", "yes", "src", kind=TREND, test="t", holds=False),
              Row("q", "p", "no", "yes", "src", kind=SELF_CHECK, test="t", holds=False)):
        with pytest.raises(ReportError, match="does not say why"):
            Table("t", [r], [CMD])
        r.note = "the model lacks X"
        Table("t", [r], [CMD])


def test_row_refuses_missing_source_nan_and_zero_published():
    with pytest.raises(ReportError):
        Row("q", "p", 1.0, 1.0, "", kind=PREDICTION, measure=TIME)
    with pytest.raises(ReportError, match="not finite"):
        Row("q", "p", float("nan"), 1.0, "src", kind=PREDICTION, measure=TIME)
    with pytest.raises(ReportError, match="published value 0"):
        Row("q", "p", 1.0, 0.0, "src", kind=PREDICTION, measure=TIME)


def test_the_summary_counts_predictions_and_trends_apart():
    rows = [Row("a", "p", 1.0, 1.0, "s", kind=PREDICTION, measure=TIME),
            Row("b", "p", 2.0, 1.0, "s", kind=PREDICTION, measure=TIME, note="why"),
            Row("c", "p", "up", "up", "s", kind=TREND, test="t", holds=True),
            Row("d", "p", 3.0, 3.0, "s", kind=CALIBRATED, measure=RATIO, input="k"),
            Row("e", "p", 3.0, 3.0, "s", kind=CALIBRATED, measure=RATIO, input="k"),
            Row("f", "p", "=", "=", "s", kind=SELF_CHECK, test="t", holds=True),
            Row("g", "p", 1.0, None, "s", kind=UNCOMPARED)]
    assert render.row_summary(rows) == ("1/2 predictions within tolerance, 1/1 trends hold, 2 calibrated inputs, "
                                        "1/1 self-checks pass, 1 not compared")
    sec = Section(title="S", tables=[Table("t", rows, [CMD])], seconds=75.0)
    page = render.page([("s", sec)], [])
    summary = page[page.index('id="summary"'):page.index('id="rules"')]
    # predictions 1/2, trends 1/1, calibrated 2, self-checks 1/1, not compared 1, the run time
    assert re.search(r"<td class=\"num\">1 / 2</td><td class=\"num\">1 / 1</td><td class=\"num\">2</td>"
                     r"<td class=\"num\">1 / 1</td><td class=\"num\">1</td><td class=\"num\">1 min 15 s</td>",
                     summary)
    assert "(ran in 1 min 15 s)" in page
    # the tolerance rules are stated once, on the page, not per row
    rules = page[page.index('id="rules"'):page.index('<section')]
    assert "±20%" in rules and "±10%" in rules and "±25%" in rules and "±5 points" in rules
    assert page.count("±20% (time)") == 2  # rows a and b name their rule, no row sets its own
    # a calibrated row is grey (its own class) and its status says it is an input
    assert '<tr class="calibrated within">' in page and "input (fit within rule)" in page


def test_prose_cells_wrap_and_numbers_do_not():
    long = "a text value " * 20
    sec = Section(title="S", tables=[Table("t", [
        Row("q", "p", long, "grows", "s", kind=TREND, test="t", holds=True),
        Row("r", "p", 2.0, 2.0, "s", kind=PREDICTION, measure=TIME)], [CMD])])
    page = render.page([("s", sec)], [])
    assert '<td class="text">%s</td>' % long in page
    assert '<td class="num">2</td>' in page
    assert "white-space:nowrap" in render.CSS and "td.note{min-width" in render.CSS


# ---- figures and tables name their commands
def test_figures_and_tables_need_a_command():
    with pytest.raises(ReportError, match="names no command"):
        Figure(png=PNG, caption="c", commands=[])
    with pytest.raises(ReportError, match="not a PNG"):
        Figure(png=b"GIF89a....", caption="c", commands=[CMD])
    with pytest.raises(ReportError, match="names no command"):
        Table("t", [], [])
    with pytest.raises(ReportError, match="not a Row"):
        Table("t", [("q", 1)], [CMD])


# ---- rendering
def test_page_escapes_text_and_embeds_pngs():
    sec = Section(title="<b>T</b>", intro="a `x<y` b")
    sec.figures.append(Figure(png=PNG, caption="cap <i>", commands=[CMD]))
    r = Row("<script>alert(1)</script>", "p&q", 2.0, 1.0, "s\"rc", kind=PREDICTION, measure=TIME, note="why <u>")
    sec.tables.append(Table("tab", [r], [CMD]))
    page = render.page([("n", sec)], [("k", "<v>")])
    assert "<script>alert" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "<b>T</b>" not in page and "&lt;b&gt;T&lt;/b&gt;" in page
    assert "<code>x&lt;y</code>" in page
    assert "&lt;v&gt;" in page and "why &lt;u&gt;" in page
    assert page.count('src="data:image/png;base64,') == 1
    assert static_problems(page) == []
    assert "Command [1]: <code>true</code>" in page


def test_static_check_finds_broken_and_outside_images():
    ok = '<img src="data:image/png;base64,%s">' % base64.b64encode(PNG).decode()
    assert static_problems(ok) == []
    assert "does not decode" in static_problems('<img src="data:image/png;base64,AAAA">')[0]
    assert "not an embedded PNG" in static_problems('<img src="plot.png">')[0]
    assert png_size(PNG) == (1, 1) and png_size(b"nope") is None


def test_failed_section_is_shown_in_red():
    page = render.page([("x", Section(title="X", error="boom <here>"))], [])
    assert 'class="error"' in page and "boom &lt;here&gt;" in page and "FAILED" in page


# ---- the run context
def test_context_records_commands_and_fails_loudly(tmp_path):
    ctx = Context(ROOT, str(tmp_path), str(tmp_path / "w"), "t")
    cmd, out = ctx.run([sys.executable, "-c", "print(42)"], env={"X_OPENPIM": "1"})
    assert out == "42\n" and cmd.ident == 1 and cmd.returncode == 0
    assert cmd.shell_text().startswith("X_OPENPIM=1 ")
    assert os.path.exists(tmp_path / "w" / "cmd01.log")
    with pytest.raises(ReportError, match=r"command failed \(exit 3\)[\s\S]*went wrong"):
        ctx.run([sys.executable, "-c", "import sys; sys.stderr.write('went wrong\\n'); sys.exit(3)"])
    assert len(ctx.commands) == 2 and ctx.commands[1].returncode == 3
    with pytest.raises(ReportError, match="cannot run"):
        ctx.run(["/nonexistent/openpim-tool"])


# ---- discovery
def _write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(textwrap.dedent(text))


GOOD = """
    from openpim_report import Row, Section, Table
    TITLE = "%s"
    ORDER = %d
    def run(ctx):
        cmd, out = ctx.run(["echo", "7"])
        return Section(title=TITLE, tables=[Table("t", [Row("q", "p", float(out), 7.0, "src", kind="prediction",
                                                        measure="time")], [cmd])])
"""


def test_discovery_finds_report_sections_and_library_sections(tmp_path):
    _write(tmp_path / "report/sections/alpha.py", GOOD % ("Alpha", 5))
    _write(tmp_path / "report/sections/_private.py", "")
    _write(tmp_path / "mylib/report_section.py", GOOD % ("My library", 1))
    _write(tmp_path / "workloads/bfs/report_section.py", GOOD % ("BFS", 9))
    _write(tmp_path / "deep/er/report_section.py", GOOD % ("not registered: only workloads/ nests", 2))
    found = registry.discover(str(tmp_path))
    assert [n for n, _ in found] == ["alpha", "mylib", "workloads-bfs"]
    specs = [registry.load_section(p, n) for n, p in found]
    assert [(s.title, s.order) for s in specs] == [("Alpha", 5), ("My library", 1), ("BFS", 9)]


def test_discovery_refuses_duplicate_names(tmp_path):
    _write(tmp_path / "report/sections/he.py", GOOD % ("A", 1))
    _write(tmp_path / "he/report_section.py", GOOD % ("B", 1))
    with pytest.raises(ReportError, match="share the name"):
        registry.discover(str(tmp_path))


def test_broken_sections_are_refused_clearly(tmp_path):
    _write(tmp_path / "a.py", "import no_such_module_openpim\n")
    with pytest.raises(ReportError, match="does not import"):
        registry.load_section(str(tmp_path / "a.py"), "a")
    _write(tmp_path / "b.py", "TITLE = 'b'\n")
    with pytest.raises(ReportError, match="TITLE"):
        registry.load_section(str(tmp_path / "b.py"), "b")


# ---- the command line
def _fake_build(tmp_path):
    os.makedirs(tmp_path / "build" / "sdk", exist_ok=True)
    return str(tmp_path / "build")


def test_cli_orders_sections_and_exits_1_when_one_fails(tmp_path):
    _write(tmp_path / "report/sections/alpha.py", GOOD % ("Alpha", 5))
    _write(tmp_path / "lib1/report_section.py", GOOD % ("Lib one", 1))
    _write(tmp_path / "report/sections/broken.py", """
        TITLE = "Broken"
        def run(ctx):
            ctx.run(["false"])
    """)
    _write(tmp_path / "report/sections/wrong.py", """
        TITLE = "Wrong type"
        def run(ctx):
            return 42
    """)
    out = tmp_path / "page" / "index.html"
    rc = cli.main(["--root", str(tmp_path), "--build", _fake_build(tmp_path), "--out", str(out)])
    assert rc == 1
    page = out.read_text()
    assert page.index("Lib one") < page.index("Alpha")  # ORDER 1 before 5
    assert "command failed (exit 1): false" in page
    assert "not a Section" in page
    assert page.count('class="error"') == 2
    assert cli.is_full_page(str(out))


def test_only_never_replaces_the_full_page(tmp_path, capsys):
    _write(tmp_path / "report/sections/alpha.py", GOOD % ("Alpha", 5))
    _write(tmp_path / "lib1/report_section.py", GOOD % ("Lib one", 1))
    out = tmp_path / "page" / "index.html"
    assert cli.main(["--root", str(tmp_path), "--build", _fake_build(tmp_path), "--out", str(out)]) == 0
    full = out.read_text()
    assert "Lib one" in full and "Alpha" in full and cli.is_full_page(str(out))
    # --only onto the full page: refused, the page is untouched
    assert cli.main(["--root", str(tmp_path), "--build", _fake_build(tmp_path), "--out", str(out),
                     "--only", "alpha"]) == 2
    assert "another --out" in capsys.readouterr().err and out.read_text() == full
    # its own page: marked partial, its logs apart from the full page's
    part = tmp_path / "page" / "only-alpha.html"
    assert cli.main(["--root", str(tmp_path), "--build", _fake_build(tmp_path), "--out", str(part),
                     "--only", "alpha"]) == 0
    text = part.read_text()
    assert "(some sections only)" in text and "Lib one" not in text and not cli.is_full_page(str(part))
    assert os.path.isdir(tmp_path / "page" / "only-alpha-work" / "alpha")
    assert out.read_text() == full


def test_cli_refuses_unknown_sections_and_non_builds(tmp_path, capsys):
    _write(tmp_path / "report/sections/alpha.py", GOOD % ("Alpha", 5))
    out = str(tmp_path / "index.html")
    assert cli.main(["--root", str(tmp_path), "--build", _fake_build(tmp_path), "--out", out,
                     "--only", "nope"]) == 2
    assert "no section named nope" in capsys.readouterr().err
    assert cli.main(["--root", str(tmp_path), "--build", str(tmp_path), "--out", out]) == 2
    assert not os.path.exists(out)


def test_the_repository_sections_load():
    """Every section registered in this checkout imports and names itself."""
    found = registry.discover(ROOT)
    names = [n for n, _ in found]
    assert "calibration" in names and "transfer_study" in names
    for n, p in found:
        registry.load_section(p, n)
