# SPDX-License-Identifier: MIT
"""No fixed numbers in the page's prose: a host's timings come from the run.

What is checked, precisely: every string literal of every registered section
module (report/sections/*.py, <folder>/report_section.py,
workloads/<name>/report_section.py; adjacent literals count as one, as Python
joins them) is split into sentences, and a sentence that holds a literal
number with a unit of time or clock rate (ns, us, µs, ms, s, sec, seconds,
min, minutes, GHz, MHz; a range such as "4-16 ms" included) must
  1. cite a published source (a citation key in brackets such as
     [Jonatan24], a section sign §, or the words "paper", "published",
     "PrIM", "DRAMatic", "PID-Comm"): a published figure, and
  2. not speak of a measurement on a host ("this host", "this VM", "this
     machine", "measured here", "in one run", "another run", "between
     runs"): such numbers vary between runs and must be formatted in from the
     run (min / median / max of its repeats), never typed into the source.
The module docstring is not on the page and is not checked; function
docstrings are (a section may print one, as he's does).
Numbers written by a format operation ("%.1f ms") are not literals and pass.
"""
import ast
import os
import re

from conftest import ROOT
from openpim_report import registry

UNIT = r"(?:ns|us|µs|ms|s|sec|seconds|min|minutes|GHz|MHz)"
NUMBER_WITH_UNIT = re.compile(r"(?<![\w%.])~?\d[\d,.]*(?:\s*[-–]\s*~?\d[\d,.]*)?\s*" + UNIT + r"\b")
CITATION = re.compile(r"\[[A-Za-z][\w-]*\]|§|\bpaper\b|\bpublished\b|\bPrIM\b|\bDRAMatic\b|\bPID-Comm\b")
HOST = re.compile(r"\bthis host\b|\bthis VM\b|\bthis machine\b|\bmeasured here\b|\bin one run\b|"
                  r"\banother run\b|\bbetween runs\b", re.I)


def fixed_numbers(text):
    """The sentences of text that break the rule (see the module's docstring)."""
    bad = []
    for sentence in re.split(r"(?<=[.!?])\s+(?=[A-Z(`])", text):
        if not NUMBER_WITH_UNIT.search(sentence):
            continue
        if HOST.search(sentence) or not CITATION.search(sentence):
            bad.append(sentence.strip())
    return bad


def _strings(path):
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read(), path)
    module_doc = tree.body[0].value if tree.body and isinstance(tree.body[0], ast.Expr) else None
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and node is not module_doc:
            yield node.lineno, node.value


def test_the_rule_catches_host_timings_and_passes_published_ones():
    # caught: a development machine's timings typed into the page
    assert fixed_numbers("One plain loop over RM2's tables takes 4-16 ms on this host against 0.3 ms for RM1's.")
    assert fixed_numbers("RM1 itself measured 0.6 ms in one run and ~12 ms in another.")
    assert fixed_numbers("SEAL's time moved with this host's clock (~2.7 GHz busy, ~3.6 GHz quiet).")
    assert fixed_numbers("comm charges each piece 4 ns (measured on this host, [Jonatan24] §5).")
    assert fixed_numbers("the loop takes ~25 ms.")  # no source at all
    # passes: published figures with their source, numbers formatted in, numbers without a unit
    assert not fixed_numbers("small transfers add the per-call fixed costs (157 vs 59 us, calibration-sources §3.3).")
    assert not fixed_numbers("The paper's server runs its DPUs at 350 MHz.")
    assert not fixed_numbers("RM1 min %.0f / median %.0f / max %.0f us")
    assert not fixed_numbers("a lookup costs ~31 fixed instructions and 26 DMA-engine cycles")


def test_no_section_prints_fixed_numbers():
    problems = []
    for name, path in registry.discover(ROOT):
        for line, text in _strings(path):
            for s in fixed_numbers(text):
                problems.append("%s:%d: %s" % (os.path.relpath(path, ROOT), line, s[:160]))
    assert not problems, "fixed numbers in the page's prose (format them in from the run):\n" + "\n".join(problems)
