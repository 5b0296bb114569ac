# SPDX-License-Identifier: MIT
"""The page in a real browser (Debian's chromium, headless, 1400 px wide): a
page generated from the fixture section (long notes and long text values
included) loads every image, does not overflow, not even inside a table's
scroll container, and renders a non-blank screenshot; a page with a broken
image, an overflowing element or a table wider than its scroll container is
caught.  No chromium is a failure, not a skip."""
import os
import subprocess
import sys

from conftest import HERE, REPORT, ROOT
from openpim_report import browser


def _generate(tmp_path, build_dir):
    out = tmp_path / "index.html"
    env = dict(os.environ, PYTHONPATH=REPORT)
    p = subprocess.run([sys.executable, "-m", "openpim_report", "--build", build_dir, "--out", str(out),
                        "--section", os.path.join(HERE, "fixture_section.py")], env=env, cwd=ROOT,
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    return out


def test_chromium_is_installed():
    assert browser.find_chromium(), "apt-get install chromium"


def test_fixture_page_passes_in_chromium(tmp_path, build_dir):
    page = _generate(tmp_path, build_dir)
    problems, r = browser.check(str(page), str(tmp_path / "shot.png"))
    assert problems == []
    assert r["images"] == 2 and r["broken"] == []
    assert r["sections"] == 1 and r["tables"] >= 2
    assert os.path.getsize(tmp_path / "shot.png") > 10000
    # the command-line form used by scripts/report.sh
    p = subprocess.run([sys.executable, "-m", "openpim_report.browser", str(page)], capture_output=True, text=True,
                       env=dict(os.environ, PYTHONPATH=REPORT), timeout=600)
    assert p.returncode == 0, p.stderr
    assert "passes in chromium (2 images loaded" in p.stdout


def test_broken_image_and_overflow_are_caught(tmp_path, build_dir):
    page = _generate(tmp_path, build_dir).read_text()
    # an image whose data decodes in base64 but is not a PNG, and a wide element
    bad = page.replace("data:image/png;base64,iVBOR", "data:image/png;base64,AAAAA", 1)
    bad = bad.replace("</main>", '<div style="width:3000px">wide</div></main>', 1)
    path = tmp_path / "bad.html"
    path.write_text(bad)
    problems, r = browser.check(str(path), str(tmp_path / "bad.png"))
    text = "\n".join(problems)
    assert "does not decode to a PNG" in text
    assert "1 of 2 images did not load in the browser" in text
    assert "wider than the window" in text


def test_overflow_inside_a_scroll_container_is_caught(tmp_path, build_dir):
    """A note pushed behind a horizontal scrollbar: the page itself is not
    wider than the window (the .scroll div scrolls), the table inside is."""
    page = _generate(tmp_path, build_dir).read_text()
    assert "scroll containers overflow" not in "\n".join(browser.check(str(tmp_path / "index.html"),
                                                                       str(tmp_path / "ok.png"))[0])
    wide = "prose that does not wrap " * 40
    bad = page.replace('<td class="note">', '<td class="num">%s</td><td class="note">' % wide, 1)
    path = tmp_path / "wide.html"
    path.write_text(bad)
    problems, r = browser.check(str(path), str(tmp_path / "wide.png"))
    text = "\n".join(problems)
    assert "wider than the window" not in text  # the page scrolls nothing: only its table does
    assert "1 scroll containers overflow" in text and "fixture rows" in text, text


def test_blank_screenshot_is_caught(tmp_path):
    path = tmp_path / "blank.html"
    path.write_text("<!DOCTYPE html><html><body></body></html>")
    browser.screenshot(str(path), str(tmp_path / "blank.png"))
    assert "blank" in " ".join(browser.screenshot_problems(str(tmp_path / "blank.png")))
