# SPDX-License-Identifier: MIT
"""The page: one self-contained HTML file (figures embedded as PNG data: URIs,
no scripts, no outside resources).  The row classes and the tolerance rules
are stated once, at the top; the summary counts predictions and trends apart
and shows calibrated inputs, self-checks and uncompared rows without counting
them; every section says how long it ran."""
from __future__ import annotations

import base64
import html
import re
from typing import List

from .model import (CALIBRATED, INFO, KINDS, MISS, PREDICTION, SELF_CHECK, TOLERANCES, TREND, UNCOMPARED, WITHIN,
                    Section, tolerance_text)

# No prose cell keeps its text on one line (white-space:nowrap only where the
# cell holds a number), notes have a minimum width, and long words break:
# every note is readable without horizontal scrolling at 1400 px.
CSS = """
body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;margin:0;background:#fafafa;color:#222}
main{max-width:1320px;margin:0 auto;padding:16px 24px 48px;background:#fff}
h1{margin:8px 0 4px}h2{margin-top:40px;border-bottom:2px solid #ddd;padding-bottom:4px}
h3{margin-top:24px}
.meta{color:#555;font-size:13px}
code,pre{font-family:ui-monospace,'DejaVu Sans Mono',monospace;font-size:12px}
pre{background:#f3f3f3;padding:8px;white-space:pre-wrap;word-break:break-all}
.scroll{overflow-x:auto;max-width:100%}
table{border-collapse:collapse;font-size:12.5px;margin:8px 0}
table.rows{width:100%}
th,td{border:1px solid #ddd;padding:3px 6px;vertical-align:top;text-align:left;overflow-wrap:anywhere}
th{background:#f0f0f0}
td.num{text-align:right;white-space:nowrap;font-variant-numeric:tabular-nums}
td.note{min-width:18em}
td.qty{min-width:12em}
.src{display:block;color:#555;font-size:11.5px;margin-top:2px}
tr.miss td.status{background:#fde2e1;color:#8a1f11;font-weight:600}
tr.within td.status{background:#e3f6e3;color:#1d5e20}
tr.info td.status{background:#eef;color:#335}
tr.calibrated td{color:#777;background:#f4f4f4}
tr.calibrated td.status{background:#e9e9e9;color:#555;font-weight:400}
tr.selfcheck td.status{background:#eef;color:#335;font-weight:400}
.rowsum{font-size:13px;color:#444}
figure{margin:16px 0;border:1px solid #e4e4e4;padding:8px;background:#fff}
figure img{max-width:100%;height:auto;display:block}
figcaption{font-size:13px;margin-top:6px}
.cmd{font-size:12px;color:#333;margin-top:4px;overflow-wrap:anywhere}
.error{border:2px solid #c0392b;background:#fdecea;padding:8px 12px;margin:12px 0}
details{margin:8px 0}summary{cursor:pointer;font-weight:600}
.elapsed{font-size:13px;color:#555;font-weight:400}
"""

KIND_CLASS = {PREDICTION: "prediction", TREND: "trend", CALIBRATED: "calibrated", SELF_CHECK: "selfcheck",
              UNCOMPARED: "uncompared"}
STATUS_TEXT = {
    PREDICTION: {WITHIN: "within tolerance", MISS: "miss"},
    TREND: {WITHIN: "holds", MISS: "does not hold"},
    CALIBRATED: {WITHIN: "input (fit within rule)", MISS: "input (fit outside rule)", INFO: "input"},
    SELF_CHECK: {WITHIN: "check passes", MISS: "check FAILS"},
    UNCOMPARED: {INFO: "not compared"},
}
KIND_TEXT = {
    PREDICTION: "a number the model produced that could miss its published value; judged by the tolerance rule "
                "of its kind of quantity (below). Counted.",
    TREND: "a qualitative statement of the paper with the test that was applied written in the row (thresholds "
           "included); it holds or it does not. Counted apart from predictions.",
    CALIBRATED: "the published value was fed into the model (a preset constant or a fit; the row names it): "
                "shown grey, its deviation is the quality of the fit, never counted as reproduced.",
    SELF_CHECK: "the model or the method checked against itself (two paths that must agree, a result equal to a "
                "reference). Not counted.",
    UNCOMPARED: "OpenPIM's value with no comparable published one (none is published, or it was measured on "
                "something else: the note says what). Not counted.",
}


def _inline(s: str) -> str:
    """Escaped text with `code` spans."""
    return re.sub(r"`([^`]+)`", r"<code>\1</code>", html.escape(s))


def _text(s: str) -> str:
    """Escaped text; `code` spans and blank-line paragraphs."""
    return "\n".join("<p>%s</p>" % _inline(p) for p in re.split(r"\n\s*\n", s.strip()) if p.strip())


def _cmds(cmds) -> str:
    return "".join('<div class="cmd">Command [%d]: <code>%s</code></div>' % (c.ident, html.escape(c.shell_text()))
                   for c in cmds)


def duration(seconds: float) -> str:
    s = int(round(seconds))
    return "%d min %02d s" % (s // 60, s % 60) if s >= 60 else "%d s" % s


def _cell(text: str, numeric: bool) -> str:
    return '<td class="%s">%s</td>' % ("num" if numeric else "text", html.escape(text))


def _row(r) -> str:
    cls = "%s %s" % (KIND_CLASS[r.kind], {WITHIN: "within", MISS: "miss", INFO: "info"}[r.status])
    how = (" [%s]" % r.how) if r.how else ""
    unit = (" " + r.unit) if r.unit else ""
    modelled_num = not isinstance(r.modelled, str)
    published_num = r.published is None or not isinstance(r.published, str)
    return ('<tr class="%s"><td class="text">%s</td><td class="qty">%s<span class="src">%s</span></td>'
            '<td class="text">%s%s</td>%s%s%s<td class="text">%s</td><td class="status">%s</td>'
            '<td class="note">%s</td></tr>' %
            (cls, html.escape(r.kind), html.escape(r.quantity),
             html.escape(r.source) + (html.escape("; input: " + r.input) if r.input else ""),
             html.escape(r.params), html.escape(how),
             _cell(r.modelled_text() + unit, modelled_num), _cell(r.published_text(), published_num),
             _cell(r.deviation or "", modelled_num and published_num), html.escape(r.target_text()),
             html.escape(STATUS_TEXT[r.kind][r.status]), html.escape(r.note)))


def row_summary(rows) -> str:
    """'2/3 predictions within tolerance, 1/1 trends hold, 4 calibrated inputs, ...'"""
    c = {}
    for r in rows:
        c[(r.kind, r.status)] = c.get((r.kind, r.status), 0) + 1

    def n(kind, status=None):
        return sum(v for (k, s), v in c.items() if k == kind and (status is None or s == status))
    parts = []
    if n(PREDICTION):
        parts.append("%d/%d predictions within tolerance" % (n(PREDICTION, WITHIN), n(PREDICTION)))
    if n(TREND):
        parts.append("%d/%d trends hold" % (n(TREND, WITHIN), n(TREND)))
    if n(CALIBRATED):
        parts.append("%d calibrated input%s" % (n(CALIBRATED), "s" if n(CALIBRATED) > 1 else ""))
    if n(SELF_CHECK):
        parts.append("%d/%d self-checks pass" % (n(SELF_CHECK, WITHIN), n(SELF_CHECK)))
    if n(UNCOMPARED):
        parts.append("%d not compared" % n(UNCOMPARED))
    return ", ".join(parts) or "no rows"


def _table(t) -> str:
    head = ("Class", "Quantity (source)", "Parameters", "OpenPIM (modelled)", "Published", "Deviation",
            "Tolerance or test", "Status", "Note (why it misses, what it means)")
    body = ('<div class="scroll"><table class="rows"><thead><tr>%s</tr></thead><tbody>%s</tbody></table></div>' %
            ("".join("<th>%s</th>" % h for h in head), "".join(_row(r) for r in t.rows)))
    summary = "%s — %s" % (t.title, row_summary(t.rows))
    inner = (_text(t.intro) if t.intro else "") + body + _cmds(t.commands)
    if t.collapsed:
        return "<details><summary>%s</summary>%s</details>" % (html.escape(summary), inner)
    return "<h3>%s</h3>%s" % (html.escape(summary), inner)


def _figure(f) -> str:
    data = base64.b64encode(f.png).decode("ascii")
    return ('<figure><img src="data:image/png;base64,%s" alt="%s"><figcaption>%s</figcaption>%s</figure>' %
            (data, html.escape(f.alt), html.escape(f.caption), _cmds(f.commands)))


def anchor(name: str) -> str:
    return "sec-" + re.sub(r"[^A-Za-z0-9_-]", "-", name)


def _counts(sections):
    """Per section: [(kind, status) counts]."""
    return [(name, s, s.counts()) for name, s in sections]


def _n(c, kind, status=None):
    return sum(v for (k, st), v in c.items() if k == kind and (status is None or st == status))


def summary_table(sections) -> str:
    head = ("Section", "predictions within tolerance", "trends that hold", "calibrated inputs (not counted)",
            "self-checks passing (not counted)", "not compared", "run time", "section run")
    rows, tot = [], {}
    for name, s, c in _counts(sections):
        for k, v in c.items():
            tot[k] = tot.get(k, 0) + v
        rows.append('<tr class="%s"><td class="text"><a href="#%s">%s</a></td><td class="num">%d / %d</td>'
                    '<td class="num">%d / %d</td><td class="num">%d</td><td class="num">%d / %d</td>'
                    '<td class="num">%d</td><td class="num">%s</td><td class="status">%s</td></tr>' %
                    ("miss" if s.error else "within", anchor(name), html.escape(s.title),
                     _n(c, PREDICTION, WITHIN), _n(c, PREDICTION), _n(c, TREND, WITHIN), _n(c, TREND),
                     _n(c, CALIBRATED), _n(c, SELF_CHECK, WITHIN), _n(c, SELF_CHECK), _n(c, UNCOMPARED),
                     duration(s.seconds), "FAILED" if s.error else "ok"))
    rows.append('<tr><th>All sections</th><th class="num">%d / %d</th><th class="num">%d / %d</th>'
                '<th class="num">%d</th><th class="num">%d / %d</th><th class="num">%d</th><th class="num">%s</th>'
                '<th></th></tr>' %
                (_n(tot, PREDICTION, WITHIN), _n(tot, PREDICTION), _n(tot, TREND, WITHIN), _n(tot, TREND),
                 _n(tot, CALIBRATED), _n(tot, SELF_CHECK, WITHIN), _n(tot, SELF_CHECK), _n(tot, UNCOMPARED),
                 duration(sum(s.seconds for _, s in sections))))
    return ('<div class="scroll"><table><thead><tr>%s</tr></thead><tbody>%s</tbody></table></div>' %
            ("".join("<th>%s</th>" % h for h in head), "".join(rows)))


def rules() -> str:
    kinds = "".join('<tr><td class="text">%s</td><td class="text">%s</td></tr>' % (html.escape(k),
                                                                                   html.escape(KIND_TEXT[k]))
                    for k in KINDS)
    tols = "".join('<tr><td class="text">%s</td><td class="text">%s</td><td class="num">%s</td></tr>' %
                   (html.escape(m), html.escape(what), html.escape(tolerance_text(m)))
                   for m, (what, _, _) in TOLERANCES.items())
    return ('<h2 id="rules">How to read the rows</h2>'
            '<div class="scroll"><table><thead><tr><th>Row class</th><th>Meaning</th></tr></thead><tbody>%s'
            '</tbody></table></div>'
            '<p>One tolerance rule per kind of quantity, for every prediction (and every calibrated number\'s fit) '
            'on the page; no row sets its own. The deviation is modelled / published - 1, or modelled - published '
            'for shares.</p>'
            '<div class="scroll"><table><thead><tr><th>Kind of quantity</th><th>Covers</th><th>Tolerance</th></tr>'
            '</thead><tbody>%s</tbody></table></div>' % (kinds, tols))


def page(sections: List["tuple[str, Section]"], meta: List["tuple[str, str]"], complete: bool = True) -> str:
    """complete: every registered section ran (a page of some sections only
    says so at the top and in a <meta> that the command line reads)."""
    parts = ['<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
             '<meta name="viewport" content="width=device-width, initial-scale=1">'
             '<meta name="openpim-report-sections" content="%s">'
             "<title>OpenPIM reproduction report</title><style>%s</style></head><body><main>" %
             ("all" if complete else "some", CSS),
             "<h1>OpenPIM reproduction report%s</h1>" % ("" if complete else " (some sections only)")]
    parts.append('<div class="meta">%s</div>' % "<br>".join(
        "%s: %s" % (html.escape(k), html.escape(v)) for k, v in meta))
    parts.append(_text(
        "Each row sets a quantity modelled by OpenPIM (the emulated server and its timing model) beside the "
        "published value, with the source, its class, the deviation, the tolerance or test that judges it, and "
        "the status; a row that misses says why in its note. Every OpenPIM value on this page comes from a "
        "command run while the page was generated; the command is written under each figure and table."))
    parts.append('<h2 id="summary">Summary</h2>' + summary_table(sections))
    parts.append(rules())
    for name, s in sections:
        parts.append('<section id="%s"><h2>%s <span class="elapsed">(ran in %s)</span></h2>' %
                     (anchor(name), html.escape(s.title), duration(s.seconds)))
        if s.error:
            parts.append('<div class="error"><strong>This section failed.</strong><pre>%s</pre></div>' %
                         html.escape(s.error))
        if s.intro:
            parts.append(_text(s.intro))
        rows = list(s.rows())
        if rows:
            parts.append('<p class="rowsum">Rows: %s.</p>' % html.escape(row_summary(rows)))
        if s.notes:
            parts.append("<ul>%s</ul>" % "".join("<li>%s</li>" % _inline(n) for n in s.notes))
        for f in s.figures:
            parts.append(_figure(f))
        for t in s.tables:
            parts.append(_table(t))
        if s.commands:
            parts.append("<details><summary>Commands run for this section (%d)</summary><ol>%s</ol></details>" % (
                len(s.commands), "".join("<li value=\"%d\"><code>%s</code> (cwd %s, %.1f s, exit %d)</li>" % (
                    c.ident, html.escape(c.shell_text()), html.escape(c.cwd), c.seconds, c.returncode)
                    for c in s.commands)))
        parts.append("</section>")
    parts.append("</main></body></html>\n")
    return "\n".join(parts)
