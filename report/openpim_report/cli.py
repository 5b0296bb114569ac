# SPDX-License-Identifier: MIT
"""python3 -m openpim_report --build DIR --out FILE [--only NAME,...] [--section FILE ...]

Runs every registered section (or those named) and writes the page.  A
section that fails (its command fails, it breaks a rule of the report) is
shown on the page in red with the reason, the other sections still run, and
the exit status is 1.  A page of some sections only (--only, --section) is
marked as such and never replaces a page of every section: give it its own
--out (scripts/report.sh does)."""
from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys
import time
import traceback

from . import registry, render
from .context import Context
from .model import ReportError, Section


def _git(root: str) -> str:
    try:
        rev = subprocess.run(["git", "-C", root, "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                             timeout=20).stdout.strip()
        dirty = subprocess.run(["git", "-C", root, "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True, timeout=60).stdout.strip()
    except (OSError, subprocess.TimeoutExpired):
        return "unknown (git not available)"
    if not rev:
        return "unknown (not a git checkout)"
    return rev + (" with uncommitted changes" if dirty else "")


def _cpu() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def run_section(spec, root, build, work) -> Section:
    ctx = Context(root, build, os.path.join(work, spec.name), spec.name)
    t0 = time.monotonic()
    print("report: section %s (%s) ..." % (spec.name, spec.title), file=sys.stderr, flush=True)
    try:
        sec = spec.module.run(ctx)
        if not isinstance(sec, Section):
            raise ReportError("section %s: run() returned %r, not a Section" % (spec.name, type(sec).__name__))
    except ReportError as e:
        sec = Section(title=spec.title, error=str(e))
    except Exception:  # any bug in a section: shown on the page, exit 1
        sec = Section(title=spec.title, error=traceback.format_exc())
    sec.commands = list(ctx.commands)
    sec.seconds = time.monotonic() - t0
    status = "FAILED" if sec.error else "done"
    print("report: section %s %s in %.0f s" % (spec.name, status, sec.seconds), file=sys.stderr, flush=True)
    if sec.error:
        print(sec.error, file=sys.stderr)
    return sec


def is_full_page(path: str) -> bool:
    """Whether path is a page that the run of every section wrote."""
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            head = f.read(4096)
    except OSError:
        return False
    return '<meta name="openpim-report-sections" content="all">' in head


def main(argv=None) -> int:
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(prog="openpim_report", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--root", default=os.path.dirname(os.path.dirname(here)), help="OpenPIM source tree")
    ap.add_argument("--build", required=True, help="a built OpenPIM tree (its sdk/ is used)")
    ap.add_argument("--out", required=True, help="the HTML page to write")
    ap.add_argument("--only", default="", help="comma-separated section names (default: all registered)")
    ap.add_argument("--section", action="append", default=[],
                    help="run this section file instead of the registered ones (repeatable)")
    ap.add_argument("--list", action="store_true", help="list the registered sections and exit")
    a = ap.parse_args(argv)

    root = os.path.abspath(a.root)
    try:
        found = ([(os.path.splitext(os.path.basename(p))[0], os.path.abspath(p)) for p in a.section]
                 if a.section else registry.discover(root))
    except ReportError as e:
        print("report: %s" % e, file=sys.stderr)
        return 2
    if a.only:
        want = [w.strip() for w in a.only.split(",") if w.strip()]
        unknown = [w for w in want if w not in [n for n, _ in found]]
        if unknown:
            print("report: no section named %s (registered: %s)" % (", ".join(unknown),
                                                                     ", ".join(n for n, _ in found)),
                  file=sys.stderr)
            return 2
        found = [(n, p) for n, p in found if n in want]
    specs, failed_loads = [], []
    for name, path in found:
        try:
            specs.append(registry.load_section(path, name))
        except ReportError as e:
            failed_loads.append((name, Section(title="%s (failed to load)" % name, error=str(e))))
    if a.list:
        for s in sorted(specs, key=lambda s: (s.order, s.name)):
            print("%-20s %4d  %s  (%s)" % (s.name, s.order, s.title, os.path.relpath(s.path, root)))
        for name, s in failed_loads:
            print("%-20s BROKEN  %s" % (name, s.error))
        return 1 if failed_loads else 0
    if not os.path.isdir(os.path.join(a.build, "sdk")):
        print("report: %s is not an OpenPIM build (no sdk/ in it)" % a.build, file=sys.stderr)
        return 2

    out = os.path.abspath(a.out)
    complete = not a.only and not a.section
    if not complete and is_full_page(out):
        print("report: %s holds the page of every section; a page of some sections (--only/--section) goes to "
              "another --out" % out, file=sys.stderr)
        return 2
    # a partial page keeps its logs apart too (the full page names its work folder)
    work = os.path.join(os.path.dirname(out), "work" if complete else
                        os.path.splitext(os.path.basename(out))[0] + "-work")
    os.makedirs(work, exist_ok=True)
    t0 = time.monotonic()
    results = list(failed_loads)
    for spec in sorted(specs, key=lambda s: (s.order, s.name)):
        results.append((spec.name, run_section(spec, root, a.build, work)))
    meta = [
        ("generated", time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime())),
        ("source", "%s (%s)" % (root, _git(root))),
        ("build", os.path.abspath(a.build)),
        ("host", "%s, %s, %d cores" % (platform.node(), _cpu(), os.cpu_count() or 0)),
        ("generation time", "%s (sections only; the set-up and build before it are not counted)" %
         render.duration(time.monotonic() - t0)),
        ("logs of every command", work),
    ]
    tmp = out + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(render.page(results, meta, complete=complete))
    os.replace(tmp, out)
    bad = [n for n, s in results if s.error]
    print("report: wrote %s (%d sections%s)" % (out, len(results),
                                                 ", FAILED: " + ", ".join(bad) if bad else ""), file=sys.stderr)
    print("report: rows: %s" % render.row_summary([r for _, s in results for r in s.rows()]), file=sys.stderr)
    return 1 if bad else 0
