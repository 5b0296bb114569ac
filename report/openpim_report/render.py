"""The page: one self-contained HTML file (figures embedded as PNG data: URIs,
no scripts, no outside resources)."""
from __future__ import annotations

import base64
import html
import re
from typing import List

from .model import INFO, MISS, WITHIN, Section

CSS = """
body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;margin:0;background:#fafafa;color:#222}
main{max-width:1240px;margin:0 auto;padding:16px 24px 48px;background:#fff}
h1{margin:8px 0 4px}h2{margin-top:40px;border-bottom:2px solid #ddd;padding-bottom:4px}
h3{margin-top:24px}
.meta{color:#555;font-size:13px}
code,pre{font-family:ui-monospace,'DejaVu Sans Mono',monospace;font-size:12px}
pre{background:#f3f3f3;padding:8px;white-space:pre-wrap;word-break:break-all}
.scroll{overflow-x:auto;max-width:100%}
table{border-collapse:collapse;font-size:12.5px;margin:8px 0}
th,td{border:1px solid #ddd;padding:3px 6px;vertical-align:top;text-align:left}
th{background:#f0f0f0}
td.num{text-align:right;white-space:nowrap;font-variant-numeric:tabular-nums}
td.note{max-width:420px}
tr.miss td.status{background:#fde2e1;color:#8a1f11;font-weight:600}
tr.within td.status{background:#e3f6e3;color:#1d5e20}
tr.info td.status{background:#eef;color:#335}
figure{margin:16px 0;border:1px solid #e4e4e4;padding:8px;background:#fff}
figure img{max-width:100%;height:auto;display:block}
figcaption{font-size:13px;margin-top:6px}
.cmd{font-size:12px;color:#333;margin-top:4px}
.error{border:2px solid #c0392b;background:#fdecea;padding:8px 12px;margin:12px 0}
details{margin:8px 0}summary{cursor:pointer;font-weight:600}
"""


def _inline(s: str) -> str:
    """Escaped text with `code` spans."""
    return re.sub(r"`([^`]+)`", r"<code>\1</code>", html.escape(s))


def _text(s: str) -> str:
    """Escaped text; `code` spans and blank-line paragraphs."""
    return "\n".join("<p>%s</p>" % _inline(p) for p in re.split(r"\n\s*\n", s.strip()) if p.strip())


def _cmds(cmds) -> str:
    return "".join('<div class="cmd">Command [%d]: <code>%s</code></div>' % (c.ident, html.escape(c.shell_text()))
                   for c in cmds)


def _table(t) -> str:
    head = ("Quantity", "Parameters", "OpenPIM (modelled)", "Published", "Deviation", "Target", "Status",
            "Source", "Note (why it misses)")
    rows = []
    for r in t.rows:
        cls = {WITHIN: "within", MISS: "miss", INFO: "info"}[r.status]
        how = (" [%s]" % r.how) if r.how else ""
        unit = (" " + r.unit) if r.unit else ""
        rows.append(
            '<tr class="%s"><td>%s</td><td>%s%s</td><td class="num">%s%s</td><td class="num">%s</td>'
            '<td class="num">%s</td><td class="num">%s</td><td class="status">%s</td><td>%s</td>'
            '<td class="note">%s</td></tr>' %
            (cls, html.escape(r.quantity), html.escape(r.params), html.escape(how), html.escape(r.modelled_text()),
             html.escape(unit), html.escape(r.published_text()), html.escape(r.deviation or ""),
             html.escape(r.target_text()), html.escape(r.status), html.escape(r.source), html.escape(r.note)))
    body = ('<div class="scroll"><table><thead><tr>%s</tr></thead><tbody>%s</tbody></table></div>' %
            ("".join("<th>%s</th>" % h for h in head), "".join(rows)))
    c = {WITHIN: 0, MISS: 0, INFO: 0}
    for r in t.rows:
        c[r.status] += 1
    summary = "%s — %d within target, %d miss%s" % (t.title, c[WITHIN], c[MISS],
                                                     (", %d without a published value" % c[INFO]) if c[INFO] else "")
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


def page(sections: List["tuple[str, Section]"], meta: List["tuple[str, str]"]) -> str:
    parts = ['<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
             '<meta name="viewport" content="width=device-width, initial-scale=1">'
             "<title>OpenPIM reproduction report</title><style>%s</style></head><body><main>" % CSS,
             "<h1>OpenPIM reproduction report</h1>"]
    parts.append('<div class="meta">%s</div>' % "<br>".join(
        "%s: %s" % (html.escape(k), html.escape(v)) for k, v in meta))
    parts.append(_text(
        "Each row sets a quantity modelled by OpenPIM (the emulated server and its timing model) beside the "
        "published value, with the source, the deviation (modelled / published - 1 unless stated), the target, "
        "and the status; a row that misses says why in its note. Every OpenPIM value on this page comes from a "
        "command run while the page was generated; the command is written under each figure and table."))
    # summary
    srows = []
    for name, s in sections:
        c = s.counts()
        state = "FAILED" if s.error else "ok"
        srows.append('<tr class="%s"><td><a href="#%s">%s</a></td><td class="num">%d</td><td class="num">%d</td>'
                     '<td class="num">%d</td><td class="status">%s</td></tr>' %
                     ("miss" if s.error else "within", anchor(name), html.escape(s.title), c[WITHIN], c[MISS],
                      c[INFO], state))
    parts.append('<h2 id="summary">Summary</h2><div class="scroll"><table><thead><tr><th>Section</th>'
                 '<th>within target</th><th>miss</th><th>no published value</th><th>section run</th></tr></thead>'
                 "<tbody>%s</tbody></table></div>" % "".join(srows))
    for name, s in sections:
        parts.append('<section id="%s"><h2>%s</h2>' % (anchor(name), html.escape(s.title)))
        if s.error:
            parts.append('<div class="error"><strong>This section failed.</strong><pre>%s</pre></div>' %
                         html.escape(s.error))
        if s.intro:
            parts.append(_text(s.intro))
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
