# SPDX-License-Identifier: MIT
"""The run context a section receives: where the source tree and the SDK build
are, a scratch folder for the section, and `run()`, which runs a command,
records it (the page shows it beside what it produced) and fails loudly when
the command fails."""
from __future__ import annotations

import io
import os
import subprocess
import time
from typing import Dict, List, Optional

from .model import Command, Figure, ReportError


class Context:
    def __init__(self, root: str, build: str, work: str, name: str):
        self.root = os.path.abspath(root)
        self.build = os.path.abspath(build)
        self.work = os.path.abspath(work)  # this section's scratch and log folder
        self.name = name
        self.commands: List[Command] = []
        os.makedirs(self.work, exist_ok=True)

    def path(self, *parts: str) -> str:
        """A path inside the source tree."""
        return os.path.join(self.root, *parts)

    def rel(self, path: str) -> str:
        """`path` relative to the source tree when inside it (for display)."""
        p = os.path.abspath(path)
        return os.path.relpath(p, self.root) if p.startswith(self.root + os.sep) else p

    def run(self, argv: List[str], env: Optional[Dict[str, str]] = None, cwd: Optional[str] = None,
            timeout: float = 3600, log: Optional[str] = None) -> "tuple[Command, str]":
        """Runs argv (from the source tree unless cwd is given) with the extra
        variables `env`; returns the recorded command and its stdout.  stdout
        and stderr also go to a log file in the section's work folder.  A
        non-zero exit raises ReportError with the end of stderr."""
        if not argv:
            raise ReportError("empty command")
        full_env = dict(os.environ)
        full_env.update(env or {})
        cwd = cwd or self.root
        n = len(self.commands) + 1
        log = log or os.path.join(self.work, "cmd%02d.log" % n)
        t0 = time.monotonic()
        try:
            p = subprocess.run(argv, cwd=cwd, env=full_env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               timeout=timeout)
        except subprocess.TimeoutExpired as e:
            raise ReportError("command timed out after %.0f s: %s" % (timeout, " ".join(argv))) from e
        except OSError as e:
            raise ReportError("cannot run %s: %s" % (argv[0], e)) from e
        dt = time.monotonic() - t0
        out = p.stdout.decode("utf-8", "replace")
        err = p.stderr.decode("utf-8", "replace")
        with open(log, "w") as f:
            f.write("$ %s\n# exit %d, %.1f s\n--- stdout\n%s--- stderr\n%s" % (" ".join(argv), p.returncode, dt,
                                                                          out, err))
        cmd = Command(argv=[self.rel(a) if os.path.isabs(a) else a for a in argv], env=dict(env or {}),
                      cwd=self.rel(cwd) if cwd != self.root else ".", seconds=dt, returncode=p.returncode,
                      ident=n)
        self.commands.append(cmd)
        if p.returncode != 0:
            tail = "\n".join(err.strip().splitlines()[-15:])
            raise ReportError("command failed (exit %d): %s\n%s\n(full log: %s)" %
                              (p.returncode, cmd.shell_text(), tail, log))
        return cmd, out

    def figure(self, fig, caption: str, commands: List[Command], alt: str = "", dpi: int = 100) -> Figure:
        """A matplotlib figure as a PNG (closed afterwards)."""
        import matplotlib.pyplot as plt

        buf = io.BytesIO()
        fig.tight_layout()
        fig.savefig(buf, format="png", dpi=dpi)
        plt.close(fig)
        return Figure(png=buf.getvalue(), caption=caption, commands=list(commands), alt=alt or caption)

    def figure_file(self, path: str, caption: str, commands: List[Command], alt: str = "") -> Figure:
        """A PNG a command wrote."""
        try:
            with open(path, "rb") as f:
                data = f.read()
        except OSError as e:
            raise ReportError("figure %s: %s" % (path, e)) from e
        return Figure(png=data, caption=caption, commands=list(commands), alt=alt or caption)


def matplotlib_pyplot():
    """pyplot on the Agg backend (no display); a clear error when matplotlib
    is missing (python/requirements-test.txt lists it)."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as e:
        raise ReportError("matplotlib is not importable (%s): pip install -r python/requirements-test.txt" % e)
    return plt
