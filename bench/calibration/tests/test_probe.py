# SPDX-License-Identifier: MIT
"""The kernel probe (probe.sh, probe_host.c, probe.py) on OpenPIM: the script a
user with a UPMEM server runs, end to end through OpenPIM's SDK, every result
checked on the host; what OpenPIM's DPU model gives for its parts, against the
rules of timing/README.md ("DPU model") and the description's DMA costs; and
probe.py's arithmetic on records with known differences.  Run by CTest
(calibration_probe) with OPENPIM_SDK = the build's sdk folder and OPENPIM_CAL_BIN =
the build folder of tests/calibration."""
import os
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
CAL = os.path.dirname(HERE)
ROOT = os.path.normpath(os.path.join(CAL, "..", ".."))
sys.path.insert(0, CAL)
import probe  # noqa: E402

SDK = os.environ.get("OPENPIM_SDK", "")
BIN = os.environ.get("OPENPIM_CAL_BIN", "")
SCRIPT = os.path.join(CAL, "probe.sh")


def desc(key):
    """A key of the default description (v1A.desc), as a number."""
    with open(os.path.join(ROOT, "timing", "presets", "v1A.desc")) as f:
        for line in f:
            k, _, v = line.split("#", 1)[0].partition("=")
            if k.strip() == key:
                return float(v)
    raise KeyError(key)


@pytest.fixture(scope="module")
def records(tmp_path_factory):
    env_sh = os.path.join(SDK, "upmem_env.sh")
    if not os.path.exists(env_sh):
        pytest.fail("%s is missing: set OPENPIM_SDK to the build's sdk folder" % env_sh)
    out = tmp_path_factory.mktemp("probe") / "openpim.csv"
    # sanitizer builds: the script's host program is not instrumented, libdpu is
    env = dict(os.environ)
    if os.environ.get("OPENPIM_RUN_PRELOAD"):
        env.update(LD_PRELOAD=os.environ["OPENPIM_RUN_PRELOAD"], ASAN_OPTIONS="detect_leaks=0")
    r = subprocess.run(["bash", "-c", 'source "$0" >/dev/null && "$1" "$2" 4 16', env_sh, SCRIPT, str(out)],
                       capture_output=True, text=True, env=env)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "72 records" in r.stdout
    return out


def test_every_result_checked_and_complete(records):
    """72 records (3 kernels x 3 variants x 2 sizes x 2 counters x 2 tasklet
    counts), each result equal to the host's; probe.load refuses a wrong one."""
    lines = [l for l in records.read_text().splitlines() if l.startswith("probe,")]
    assert len(lines) == 72 and all(l.endswith(",1") for l in lines)
    got = probe.load(str(records))
    assert sorted(got) == [(k, t) for k in ("hst_s", "red", "va") for t in (4, 16)]
    header = records.read_text().splitlines()[:3]
    assert header[1].startswith("# DPU compiler: dpu-upmem-dpurte-clang (OpenPIM")


def test_the_build_runs_the_same_probe(records):
    """The project's own build of the probe (instrumented in sanitizer builds)
    prints what probe.sh's build printed, record for record (4 tasklets)."""
    host, dpu = os.path.join(BIN, "probe_host"), os.path.join(BIN, "prim_shapes_t4")
    for path in (host, dpu):
        if not os.path.exists(path):
            pytest.fail("%s is missing: build tests/calibration (OPENPIM_CAL_BIN=%r)" % (path, BIN))
    r = subprocess.run([host, dpu, "4"], capture_output=True, text=True, cwd=BIN)
    assert r.returncode == 0, r.stderr
    want = [l for l in records.read_text().splitlines() if l.startswith("probe,") and l.split(",")[3] == "4"]
    assert r.stdout.splitlines() == want


def test_compute_alone_follows_the_issue_rule(records):
    """With no DMA running, one instruction per cycle with 16 tasklets and one
    per 11 cycles per tasklet with 4 (cycles per instruction 11/4)."""
    got = probe.load(str(records))
    for kernel in ("va", "red", "hst_s"):
        assert probe.derived(got[(kernel, 16)])["compute_cpi"] == pytest.approx(1.0, rel=0.01)
        assert probe.derived(got[(kernel, 4)])["compute_cpi"] == pytest.approx(11 / 4, rel=0.01)


def test_dma_alone_costs_what_the_description_says(records):
    """DMA alone keeps the engine busy (4 and 16 tasklets): per element, the
    blocks' DMA costs from v1A.desc (fixed + per byte x 1 KB) over the block's
    elements; VA reads two blocks and writes one."""
    rd = desc("dma_read_fixed") + desc("dma_cycles_per_byte") * 1024
    wr = desc("dma_write_fixed") + desc("dma_cycles_per_byte") * 1024
    want = {"va": (2 * rd + wr) / 256, "red": rd / 128, "hst_s": rd / 256}
    got = probe.load(str(records))
    for (kernel, tasklets), v in got.items():
        assert v["dma"]["cycles"] == pytest.approx(want[kernel], rel=0.01), (kernel, tasklets)
        assert v["dma"]["instructions"] < 0.1  # a few per block: the DMA calls and the loop


def test_the_parts_add_up(records):
    """The whole kernel executes its compute's instructions and its DMA's, and
    at 16 tasklets runs at most a little slower than the slower part (the model
    overlaps the two)."""
    got = probe.load(str(records))
    for (kernel, tasklets), v in got.items():
        s, c, d = v["stream"], v["compute"], v["dma"]
        assert s["instructions"] == pytest.approx(c["instructions"] + d["instructions"], rel=0.01)
        assert s["cycles"] >= max(c["cycles"], d["cycles"]) - 0.01
        if tasklets == 16:
            assert probe.derived(v)["overlap"] < 0.1


def write(path, rows):
    path.write_text("".join("probe,%s,%d,%d,%d,%s,%d,1\n" % r for r in rows))
    return str(path)


def synthetic(tmp_path, name, instr, stream_extra):
    """Records of a made-up DPU: VA at 16 tasklets, n and 2n elements; the
    compute part runs at one instruction per cycle, the DMA part at 6 cycles
    per element, the whole kernel at max(both) + stream_extra per element."""
    rows = []
    for n in (65536, 131072):
        fixed = 5000
        rows += [("va", 0, 16, n, "cycles", fixed + n * (max(instr, 6) + stream_extra)),
                 ("va", 0, 16, n, "instructions", fixed + n * instr + n // 32),
                 ("va", 1, 16, n, "cycles", fixed + n * instr),
                 ("va", 1, 16, n, "instructions", fixed + n * instr),
                 ("va", 2, 16, n, "cycles", fixed + n * 6),
                 ("va", 2, 16, n, "instructions", fixed + n // 32)]
    return write(tmp_path / name, rows)


def test_compare_names_each_difference(tmp_path):
    """A DPU whose whole kernel takes 2 cycles per element more than its parts
    (overlap), and one whose compiler emits 10 instructions where OpenPIM counts
    8 (instructions), against a model with neither."""
    model = probe.load(synthetic(tmp_path, "m.csv", 8, 0))
    overlap = probe.compare(probe.load(synthetic(tmp_path, "o.csv", 8, 2)), model)[0]
    assert overlap["overlap"] == pytest.approx((2, 0, -2), abs=1e-9)
    assert overlap["cycles"][2] == pytest.approx(8 / 10 - 1)
    assert overlap["instructions"][2] == pytest.approx(0, abs=1e-9)
    assert overlap["compute"][2] == pytest.approx(0, abs=1e-9)
    more = probe.compare(probe.load(synthetic(tmp_path, "i.csv", 10, 0)), model)[0]
    assert more["instructions"][2] == pytest.approx((8 + 1 / 32) / (10 + 1 / 32) - 1)
    assert more["compute"][2] == pytest.approx(0, abs=1e-9)
    assert more["overlap"][2] == pytest.approx(0, abs=1e-9)
    assert more["dma"][2] == pytest.approx(0, abs=1e-9)


def test_load_refuses_bad_records(tmp_path):
    bad = write(tmp_path / "bad.csv", [("va", 0, 16, 4096, "cycles", 100, )])
    with open(bad, "a") as f:
        f.write("probe,va,0,16,8192,cycles,200,0\n")
    with pytest.raises(ValueError, match="wrong result"):
        probe.load(bad)
    one = write(tmp_path / "one.csv", [("red", 1, 4, 4096, "instructions", 100)])
    with pytest.raises(ValueError, match="two sizes"):
        probe.load(one)
    part = write(tmp_path / "part.csv", [("red", 1, 4, n, c, n) for n in (4096, 8192)
                                         for c in ("cycles", "instructions")])
    with pytest.raises(ValueError, match="missing stream cycles"):
        probe.derived(probe.load(part)[("red", 4)])


def test_script_help_and_arguments(tmp_path):
    """--help before any work, without an SDK; a bad tasklet count refused."""
    env = dict(os.environ, PATH="/usr/bin:/bin")
    r = subprocess.run([SCRIPT, "--help"], capture_output=True, text=True, env=env)
    assert r.returncode == 0 and "usage: bench/calibration/probe.sh" in r.stdout
    r = subprocess.run([SCRIPT, str(tmp_path / "x.csv"), "25"], capture_output=True, text=True, env=env)
    assert r.returncode == 2 and "1-24" in r.stderr
    assert not (tmp_path / "x.csv").exists()
