# SPDX-License-Identifier: MIT
"""python/examples/checksum.py gives the line the C example examples/checksum
gives, on the same DPU program built by the example's own Makefile."""

import os
import pathlib
import subprocess
import sys

import pytest

from conftest import run_env

ROOT = pathlib.Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "python" / "examples" / "checksum.py"


@pytest.fixture(scope="module", params=[1, 11, 24])
def built(request, tmp_path_factory):
    out = tmp_path_factory.mktemp(f"checksum-t{request.param}")
    r = subprocess.run(["make", "-s", "-C", str(ROOT / "examples" / "checksum"), f"BUILDDIR={out / 'bin'}",
                        f"NR_TASKLETS={request.param}", "all"], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    return out


def run(cmd, cwd):
    r = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=300, env=run_env())
    return r.returncode, r.stdout


@pytest.mark.parametrize("nr_dpus, size", [(1, 8), (7, 65536), (64, 20000)])
def test_python_example_matches_c(built, nr_dpus, size):
    args = ["-d", str(nr_dpus), "-n", str(size)]
    c_rc, c_out = run([str(built / "bin" / "host_app"), *args], built)
    py_rc, py_out = run([sys.executable, str(EXAMPLE), *args], built)
    assert c_rc == 0 and c_out.startswith("[OK] checksum:"), c_out
    assert (py_rc, py_out) == (c_rc, c_out)


def test_python_example_prints_the_log(built):
    rc, out = run([sys.executable, str(EXAMPLE), "-d", "2", "-n", "64", "-v"], built)
    assert rc == 0 and "--- log of DPU 0 ---\ntasklet 0: checksum 0x" in out, out


def test_python_example_reports_failures(built):
    rc, out = run([sys.executable, str(EXAMPLE), "-d", "2", "-n", "12"], built)
    assert rc == 1 and out.startswith("[ERROR] checksum: the size must be a multiple of 8")
    r = subprocess.run([sys.executable, str(EXAMPLE), "-d", "2", "-n", "64", "--binary", os.devnull], cwd=built,
                       capture_output=True, text=True, timeout=300, env=run_env())
    assert r.returncode != 0 and "DpuError: dpu_load('/dev/null')" in r.stderr, r.stderr
