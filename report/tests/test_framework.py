"""The report framework: rows, figures, tables, rendering, section discovery,
the run context and the command line."""
import base64
import os
import sys
import textwrap

import pytest

from conftest import ROOT
from openpim_report import INFO, MISS, WITHIN, Command, Context, Figure, ReportError, Row, Section, Table
from openpim_report import cli, registry, render
from openpim_report.browser import png_size, static_problems

CMD = Command(argv=["true"], env={}, cwd=".", seconds=0.0, returncode=0, ident=1)
PNG = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9aw"
                       "AAAABJRU5ErkJggg==")  # a 1x1 PNG


# ---- rows
def test_row_deviation_and_status_follow_the_target():
    r = Row("q", "p", 1.1, 1.0, "src", target=0.2)
    assert r.status == WITHIN and r.deviation == "+10.0%"
    r = Row("q", "p", 1.25, 1.0, "src", target=0.2)
    assert r.status == MISS and r.deviation == "+25.0%"
    r = Row("q", "p", 0.8, 1.0, "src", target=0.2)  # exactly at the target: within
    assert r.status == WITHIN and r.deviation == "-20.0%"


def test_row_without_published_value_is_info():
    r = Row("q", "p", 3.0, None, "src")
    assert r.status == INFO and r.deviation == "n/a" and r.target_text() == ""


def test_a_miss_must_say_why():
    r = Row("q", "p", 2.0, 1.0, "src")
    with pytest.raises(ReportError, match="does not say why"):
        Table("t", [r], [CMD])
    r.note = "the model lacks X"
    Table("t", [r], [CMD])


def test_statement_rows_need_an_explicit_status():
    with pytest.raises(ReportError, match="explicit status"):
        Row("q", "p", "yes", "increases", "src")
    r = Row("q", "p", "yes", "increases", "src", status=WITHIN)
    assert r.deviation == "n/a"
    with pytest.raises(ReportError, match="unknown status"):
        Row("q", "p", "yes", "increases", "src", status="fine")


def test_row_refuses_missing_source_nan_and_zero_published():
    with pytest.raises(ReportError):
        Row("q", "p", 1.0, 1.0, "")
    with pytest.raises(ReportError, match="not finite"):
        Row("q", "p", float("nan"), 1.0, "src")
    with pytest.raises(ReportError, match="published value 0"):
        Row("q", "p", 1.0, 0.0, "src")


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
    r = Row("<script>alert(1)</script>", "p&q", 2.0, 1.0, "s\"rc", note="why <u>")
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
        return Section(title=TITLE, tables=[Table("t", [Row("q", "p", float(out), 7.0, "src")], [cmd])])
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
    rc = cli.main(["--root", str(tmp_path), "--build", _fake_build(tmp_path), "--out", str(out),
                   "--only", "alpha,lib1"])
    assert rc == 0


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
