# SPDX-License-Identifier: MIT
"""Compiling DPU C code from Python (the SDK's dpu.compiler module).

The default compiler is the SDK prefix's dpu-upmem-dpurte-clang (OpenPIM's
driver), found next to this package, else in $UPMEM_HOME/bin, else on PATH."""

import os
import shutil
import subprocess
import sys

O0 = "-O0"
O1 = "-O1"
O2 = "-O2"
O3 = "-O3"
Os = "-Os"
Oz = "-Oz"

DPU_TARGET = "dpu-upmem-dpurte"


class Compiler:
    """A compiler executable with a default target.

    Attributes:
        path (str): the executable
        target (str, optional): passed as --target=... unless compile() names another
        verbose (bool): print each command and its output
    """

    def __init__(self, path, target=None, verbose=False):
        self.path = path
        self.target = target
        self.verbose = verbose

    def compile(self, sources, output=None, includes=(), defines=None, options=(), target=None, opt_lvl=None,
                debug=True, verbose=False):
        """Compiles `sources` (a path or a list of paths).

        includes: -I directories; defines: {name: value or None} for -D;
        options: extra arguments; opt_lvl: O0..Oz of this module; debug: -g.
        Returns the CompletedProcess; raises subprocess.CalledProcessError when
        the compiler fails (its output is in the exception's stdout/stderr)."""
        args = [self.path]
        target = target if target is not None else self.target
        if target is not None:
            args.append(f"--target={target}")
            arch = os.environ.get("DPU_ARCH_VERSION")
            if target == DPU_TARGET and arch:
                args.append(f"-mcpu={arch}")
        if opt_lvl is not None:
            args.append(opt_lvl)
        if debug:
            args.append("-g")
        for name, value in (defines or {}).items():
            args += ["-D", name if value is None else f"{name}={value}"]
        for inc in includes:
            args += ["-I", inc]
        args += [sources] if isinstance(sources, (str, os.PathLike)) else list(sources)
        args += list(options)
        if output is not None:
            args += ["-o", output]
        loud = verbose or self.verbose
        if loud:
            print(" ".join(str(a) for a in args))
        return subprocess.run([str(a) for a in args], check=True, universal_newlines=True,
                              stdout=sys.stdout if loud else subprocess.PIPE,
                              stderr=sys.stderr if loud else subprocess.PIPE)


def _find_default_compiler():
    name = "dpu-upmem-dpurte-clang"
    here = os.path.dirname(os.path.abspath(__file__))
    # <prefix>/lib/python3/dist-packages/dpu -> <prefix>/bin
    candidates = [os.path.normpath(os.path.join(here, "..", "..", "..", "..", "bin", name))]
    if os.environ.get("UPMEM_HOME"):
        candidates.append(os.path.join(os.environ["UPMEM_HOME"], "bin", name))
    path = next((c for c in candidates if os.access(c, os.X_OK)), None) or shutil.which(name) or name
    return Compiler(path, DPU_TARGET)


DEFAULT_DPU_COMPILER = _find_default_compiler()
"""The DPU compiler of the SDK this package belongs to."""
