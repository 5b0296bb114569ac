# SPDX-License-Identifier: MIT
"""Checks a report page in a real headless browser (Debian's chromium):

  * every <img> is a PNG data: URI that decodes (static check), and in the
    browser every image has loaded (complete, naturalWidth > 0) and is laid
    out with a width;
  * the layout is not broken: nothing wider than the window (no horizontal
    overflow of the page), and nothing wider than its own scroll container
    (a table whose note column sits behind a horizontal scrollbar fails: every
    note must be readable at the window's 1400 px), every section has a
    heading, the screenshot is produced and is not blank.

    python3 -m openpim_report.browser PAGE.html [--screenshot OUT.png]

Exit 0 when the page passes, 1 with the reasons otherwise; chromium missing
is a failure (never a skip): install it with `apt-get install chromium`.
"""
from __future__ import annotations

import base64
import html.parser
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
from typing import List

WIDTH, HEIGHT = 1400, 2400
MARK = "openpim-page-check"

# Run in the page once it has loaded: the results go into an element that
# --dump-dom prints.
CHECK_JS = """
<script>
window.addEventListener('load', function () {
  // collapsed tables are checked too: open them before measuring
  Array.prototype.slice.call(document.querySelectorAll('details')).forEach(function (d) { d.open = true; });
  var imgs = Array.prototype.slice.call(document.images);
  // where an element sits: the nearest heading before it
  function where(e) {
    for (var n = e; n; n = n.parentElement) {
      for (var p = n.previousElementSibling; p; p = p.previousElementSibling) {
        if (/^H[1-4]$/.test(p.tagName)) return p.textContent.slice(0, 100);
        var h = p.querySelector && p.querySelector('h2, h3, summary');
        if (h) return h.textContent.slice(0, 100);
      }
      if (n.tagName === 'DETAILS') return n.querySelector('summary').textContent.slice(0, 100);
    }
    return '(top of the page)';
  }
  var overflow = [];
  Array.prototype.slice.call(document.querySelectorAll('body *')).forEach(function (e) {
    var ox = getComputedStyle(e).overflowX;
    if ((ox === 'auto' || ox === 'scroll' || ox === 'hidden') && e.clientWidth > 0 &&
        e.scrollWidth > e.clientWidth + 1)
      overflow.push(e.tagName.toLowerCase() + '.' + e.className + ' under "' + where(e) + '": ' +
                    e.scrollWidth + ' > ' + e.clientWidth + ' px');
  });
  var r = {
    images: imgs.length,
    broken: imgs.filter(function (i) {
      return !(i.complete && i.naturalWidth > 0 && i.naturalHeight > 0 && i.getBoundingClientRect().width > 0);
    }).map(function (i) { return (i.alt || i.src.slice(0, 40)); }),
    scrollWidth: document.documentElement.scrollWidth,
    innerWidth: window.innerWidth,
    sections: document.querySelectorAll('section').length,
    sectionsWithHeading: document.querySelectorAll('section > h2').length,
    tables: document.querySelectorAll('table').length,
    overflow: overflow
  };
  var pre = document.createElement('pre');
  pre.id = '%s';
  pre.textContent = JSON.stringify(r);
  document.body.appendChild(pre);
});
</script>
""" % MARK


def find_chromium() -> str:
    for name in (os.environ.get("CHROMIUM", ""), "chromium", "chromium-browser", "google-chrome"):
        if name and shutil.which(name):
            return shutil.which(name)
    raise RuntimeError("no chromium on PATH: the page check needs a real browser "
                       "(Debian: apt-get install chromium; scripts/setup.sh installs it)")


def _chromium(args: List[str], timeout: float = 180) -> subprocess.CompletedProcess:
    argv = [find_chromium(), "--headless", "--disable-gpu", "--hide-scrollbars", "--no-first-run",
            "--disable-extensions", "--allow-file-access-from-files", "--window-size=%d,%d" % (WIDTH, HEIGHT)]
    if os.geteuid() == 0:
        argv.append("--no-sandbox")  # chromium refuses to run as root with its sandbox
    with tempfile.TemporaryDirectory(prefix="openpim-chromium-") as prof:
        argv.append("--user-data-dir=" + prof)
        return subprocess.run(argv + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout)


class _Imgs(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.srcs = []

    def handle_starttag(self, tag, attrs):
        if tag == "img":
            self.srcs.append(dict(attrs).get("src") or "")


def png_size(data: bytes):
    """(width, height) of a PNG, or None when it is not one."""
    if len(data) < 24 or not data.startswith(b"\x89PNG\r\n\x1a\n") or data[12:16] != b"IHDR":
        return None
    return struct.unpack(">II", data[16:24])


def static_problems(page: str) -> List[str]:
    p = _Imgs()
    p.feed(page)
    bad = []
    for i, src in enumerate(p.srcs):
        if not src.startswith("data:image/png;base64,"):
            bad.append("image %d is not an embedded PNG (src %r): the page must be self-contained" % (i, src[:60]))
            continue
        try:
            size = png_size(base64.b64decode(src.split(",", 1)[1], validate=True))
        except (ValueError, base64.binascii.Error):
            size = None
        if not size or size[0] == 0 or size[1] == 0:
            bad.append("image %d: its data: URI does not decode to a PNG" % i)
    return bad


def browser_result(page_path: str) -> dict:
    """Loads a copy of the page with CHECK_JS in chromium; returns its findings."""
    with open(page_path, encoding="utf-8") as f:
        page = f.read()
    if "</body>" not in page:
        raise RuntimeError("%s has no </body>" % page_path)
    with tempfile.TemporaryDirectory(prefix="openpim-page-") as d:
        probe = os.path.join(d, "probe.html")
        with open(probe, "w", encoding="utf-8") as f:
            f.write(page.replace("</body>", CHECK_JS + "</body>", 1))
        p = _chromium(["--virtual-time-budget=10000", "--dump-dom", "file://" + probe])
    dom = p.stdout.decode("utf-8", "replace")
    start = dom.find('<pre id="%s">' % MARK)
    if start < 0:
        raise RuntimeError("chromium did not run the page check (exit %d): %s" %
                           (p.returncode, p.stderr.decode("utf-8", "replace")[-1500:]))
    start = dom.index(">", start) + 1
    end = dom.index("</pre>", start)
    import html as h

    return json.loads(h.unescape(dom[start:end]))


def screenshot(page_path: str, out_png: str) -> None:
    if os.path.exists(out_png):
        os.unlink(out_png)
    p = _chromium(["--screenshot=" + os.path.abspath(out_png), "file://" + os.path.abspath(page_path)])
    if not os.path.exists(out_png):
        raise RuntimeError("chromium wrote no screenshot (exit %d): %s" %
                           (p.returncode, p.stderr.decode("utf-8", "replace")[-1500:]))


def screenshot_problems(png_path: str) -> List[str]:
    """A blank or broken screenshot: not a PNG, wrong size, (nearly) one colour."""
    with open(png_path, "rb") as f:
        data = f.read()
    size = png_size(data)
    if not size:
        return ["the screenshot is not a PNG"]
    if size != (WIDTH, HEIGHT):
        return ["the screenshot is %dx%d, not %dx%d" % (size + (WIDTH, HEIGHT))]
    import matplotlib.image as mpimg  # decodes PNGs (matplotlib is a report dependency)

    px = mpimg.imread(png_path)[..., :3]
    non_white = float((px.min(axis=2) < 0.92).mean())
    if non_white < 0.01 or float(px.std()) < 0.02:
        return ["the screenshot is blank (%.2f %% non-white pixels, std %.3f)" % (100 * non_white, px.std())]
    return []


def check(page_path: str, shot: str):
    """(every problem found, the browser's findings); no problems: the page passes."""
    with open(page_path, encoding="utf-8") as f:
        page = f.read()
    problems = static_problems(page)
    r = browser_result(page_path)
    if r["broken"]:
        problems.append("%d of %d images did not load in the browser: %s" % (len(r["broken"]), r["images"],
                                                                          ", ".join(r["broken"][:5])))
    if r["scrollWidth"] > r["innerWidth"] + 1:
        problems.append("the page is wider than the window (%d > %d px): something overflows" %
                        (r["scrollWidth"], r["innerWidth"]))
    if r["overflow"]:
        problems.append("%d scroll containers overflow in a %d px window (their content sits behind a horizontal "
                        "scrollbar): %s" % (len(r["overflow"]), WIDTH, "; ".join(r["overflow"][:8])))
    if r["sections"] != r["sectionsWithHeading"]:
        problems.append("%d sections but %d section headings" % (r["sections"], r["sectionsWithHeading"]))
    screenshot(page_path, shot)
    problems += screenshot_problems(shot)
    return problems, r


def main(argv=None) -> int:
    import argparse

    ap = argparse.ArgumentParser(prog="openpim_report.browser", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("page")
    ap.add_argument("--screenshot", default="", help="where the screenshot goes (default: beside the page)")
    a = ap.parse_args(argv)
    shot = a.screenshot or os.path.splitext(a.page)[0] + "-screenshot.png"
    try:
        problems, r = check(a.page, shot)
    except (RuntimeError, subprocess.TimeoutExpired, OSError, ValueError) as e:
        print("page check FAILED: %s" % e, file=sys.stderr)
        return 1
    for p in problems:
        print("page check: %s" % p, file=sys.stderr)
    if problems:
        return 1
    print("page check: %s passes in chromium (%d images loaded, %d tables, %d sections; screenshot %s)" %
          (a.page, r["images"], r["tables"], r["sections"], shot))
    return 0


if __name__ == "__main__":
    sys.exit(main())
