# SPDX-License-Identifier: MIT
"""exec(): results against an independent reference, logs, asynchronous
launches, callbacks, and faults."""

import io
import random
import struct
import sys

import pytest

from dpu import DpuError, DpuSet
from dpu import ffi
from conftest import FAULT, SCALE, SMALL, scale_reference


def run_scale(s, factor, seed):
    rng = random.Random(seed)
    inputs = [[rng.getrandbits(32) for _ in range(512)] for _ in s]
    s.copy("input", [struct.pack("<512I", *w) for w in inputs])
    s.copy("dpu_id", [struct.pack("<I", d) for d in range(len(s))])
    s.factor = struct.pack("<I", factor)
    return inputs


@pytest.mark.parametrize("tasklets", [1, 4, 16])
def test_exec_results_exact(build, tasklets):
    with DpuSet(nr_dpus=5, profile=SMALL, binary=build(SCALE, tasklets)) as s:
        inputs = run_scale(s, 0x9E3779B1, tasklets)
        s.exec()
        outputs = [bytearray(2048) for _ in s]
        s.copy(outputs, "output")
        sums = [bytearray(8 * tasklets) for _ in s]
        s.copy(sums, "sums")
        for d in range(5):
            out, tsums = scale_reference(inputs[d], 0x9E3779B1, tasklets)
            assert list(struct.unpack("<512I", outputs[d])) == out
            assert list(struct.unpack(f"<{tasklets}Q", sums[d])) == tsums
            assert s.dpus()[d].sums.uint64() == (tsums[0] if tasklets == 1 else tsums)


def test_exec_twice_and_on_subsets(scale4):
    with DpuSet(nr_dpus=6, profile=SMALL, binary=scale4) as s:
        inputs = run_scale(s, 3, 1)
        s.exec()
        first = [bytearray(2048) for _ in s]
        s.copy(first, "output")
        # run rank 1 only (DPUs 4, 5) with another factor: the others keep their output
        s.ranks()[1].factor = struct.pack("<I", 5)
        s.ranks()[1].exec()
        second = [bytearray(2048) for _ in s]
        s.copy(second, "output")
        for d in range(6):
            factor = 5 if d >= 4 else 3
            assert list(struct.unpack("<512I", second[d])) == scale_reference(inputs[d], factor, 4)[0]
        assert second[:4] == first[:4]


def expected_log(d, factor):
    return f"dpu {d}: factor {factor}\n"


def test_logs(scale4, capsys):
    with DpuSet(nr_dpus=3, profile=SMALL, binary=scale4) as s:
        run_scale(s, 11, 2)
        # exec without a log prints nothing
        s.exec()
        assert capsys.readouterr().out == ""
        # one text stream for all DPUs, in DPU order
        text = io.StringIO()
        s.exec(log=text)
        assert text.getvalue() == "".join(expected_log(d, 11) for d in range(3))
        # a binary stream, a list per DPU (None: no log), a dict
        raw = io.BytesIO()
        s.log(raw)
        assert raw.getvalue() == "".join(expected_log(d, 11) for d in range(3)).encode()
        per = [io.StringIO(), None, io.StringIO()]
        s.exec(log=per)
        assert [per[0].getvalue(), per[2].getvalue()] == [expected_log(0, 11), expected_log(2, 11)]
        only = io.StringIO()
        s.log({s.dpus()[1]: only})
        assert only.getvalue() == expected_log(1, 11)
        # the DPUs a dict leaves out go to the default stream (stdout for log())
        assert capsys.readouterr().out == expected_log(0, 11) + expected_log(2, 11)
        # log() defaults to sys.stdout
        s.dpus()[2].log()
        assert capsys.readouterr().out == expected_log(2, 11)
        with pytest.raises(DpuError, match="3 DPUs"):
            s.log([io.StringIO()])
        with pytest.raises(DpuError, match="'write' method"):
            s.log(42)
        with DpuSet(nr_dpus=1, profile=SMALL) as other:
            with pytest.raises(DpuError, match="not in this set"):
                s.log({other.dpus()[0]: io.StringIO()})


def test_constructor_log(scale4):
    streams = [io.StringIO() for _ in range(3)]
    with DpuSet(nr_dpus=3, profile=SMALL, binary=scale4, log=streams) as s:
        run_scale(s, 4, 3)
        s.exec()
        assert [x.getvalue() for x in streams] == [expected_log(d, 4) for d in range(3)]
    one = io.StringIO()
    with DpuSet(nr_dpus=2, profile=SMALL, binary=scale4, log=one) as s:
        run_scale(s, 6, 3)
        s.exec()
        assert one.getvalue() == expected_log(0, 6) + expected_log(1, 6)
    with pytest.raises(DpuError, match="2 entries for 3 DPUs"):
        DpuSet(nr_dpus=3, profile=SMALL, log=[sys.stdout, sys.stdout])


def test_async_exec_and_sync(scale4):
    with DpuSet(nr_dpus=8, profile=SMALL, binary=scale4, async_mode=True) as s:
        inputs = run_scale(s, 13, 4)
        s.exec()
        with pytest.raises(DpuError, match="asynchronous"):
            s.exec(log=io.StringIO())
        outputs = [bytearray(2048) for _ in s]
        s.copy(outputs, "output")
        s.sync()
        for d in range(8):
            assert list(struct.unpack("<512I", outputs[d])) == scale_reference(inputs[d], 13, 4)[0]
        text = io.StringIO()
        s.log(text)
        assert text.getvalue() == "".join(expected_log(d, 13) for d in range(8))
    # per-call override of the set's mode
    with DpuSet(nr_dpus=2, profile=SMALL, binary=scale4) as s:
        inputs = run_scale(s, 2, 5)
        s.exec(async_mode=True)
        s.sync()
        out = [bytearray(2048) for _ in s]
        s.copy(out, "output", async_mode=True)
        s.sync()
        assert list(struct.unpack("<512I", out[1])) == scale_reference(inputs[1], 2, 4)[0]


def test_callbacks(scale4):
    with DpuSet(nr_dpus=9, profile=SMALL, binary=scale4) as s:
        seen = []
        s.call(lambda dpus, i, arg: seen.append((dpus, i, arg)), "x")
        assert seen == [(r, i, "x") for i, r in enumerate(s.ranks())]
        seen.clear()
        s.call(lambda dpus, i, arg: seen.append((dpus, i, arg)), 7, single_call=True)
        assert seen == [(s, 0, 7)]
        seen.clear()
        d = s.dpus()[6]
        d.call(lambda dpus, i, arg: seen.append((dpus, i)), None)
        assert seen == [(d, 0)]

        # the callback can use the API on the set it gets
        def fill(rank, i, arg):
            rank.copy("input", bytes([i + arg]) * 2048)
        s.call(fill, 40)
        got = [bytearray(8) for _ in s]
        s.copy(got, "input")
        assert got == [bytearray([40 + d // 4]) * 8 for d in range(9)]

        def boom(rank, i, arg):
            raise ValueError(f"callback {i}")
        with pytest.raises(ValueError, match="callback 0"):
            s.call(boom, None)
        with pytest.raises(TypeError):
            s.call(42, None)


def test_fault_is_an_error_with_the_dpus_message(build):
    with DpuSet(nr_dpus=5, profile=SMALL, binary=build(FAULT)) as s:
        s.copy("trigger", [struct.pack("<I", 1 if d == 3 else 0) for d in range(5)])
        s.copy("done", bytes(4))
        with pytest.raises(DpuError) as e:
            s.exec()
        assert e.value.code == ffi.DPU_ERR_DPU_FAULT
        message = str(e.value)
        assert "DPU 3:" in message and "assert" in message.lower()
        assert "DPU 0:" not in message
        # the others finished; the set runs again once the trigger is cleared
        assert s.done.uint32() == [0xD0E, 0xD0E, 0xD0E, 0, 0xD0E]
        s.copy("trigger", bytes(4))
        s.exec()
        assert s.done.uint32() == [0xD0E] * 5
        # an asynchronous launch's fault surfaces at sync
        s.dpus()[1].trigger = struct.pack("<I", 1)
        s.exec(async_mode=True)
        with pytest.raises(DpuError) as e:
            s.sync()
        assert e.value.code == ffi.DPU_ERR_DPU_FAULT and "DPU 1:" in str(e.value)


def test_exec_without_program():
    with DpuSet(nr_dpus=2, profile=SMALL) as s:
        with pytest.raises(DpuError) as e:
            s.exec()
        assert e.value.code == ffi.DPU_ERR_NO_PROGRAM_LOADED


def test_async_callbacks_run_in_order_and_raise_at_sync(scale4):
    with DpuSet(nr_dpus=9, profile=SMALL, binary=scale4) as s:
        inputs = run_scale(s, 21, 6)
        s.exec(async_mode=True)
        seen = {}

        def collect(rank, i, arg):
            # queued behind the rank's launch: its output is complete here
            out = [bytearray(2048) for _ in rank]
            rank.copy(out, "output")
            seen[i] = [bytes(o) for o in out]
        s.call(collect, None, async_mode=True)
        s.dpus()[8].call(lambda dpu, i, arg: seen.setdefault("dpu8", (dpu, i, arg)), "z", async_mode=True,
                         is_blocking=False)
        s.sync()
        assert sorted(seen, key=str) == [0, 1, 2, "dpu8"]
        assert seen["dpu8"] == (s.dpus()[8], 0, "z")
        for d in range(9):
            expected = struct.pack("<512I", *scale_reference(inputs[d], 21, 4)[0])
            assert seen[d // 4][d % 4] == expected

        def boom(rank, i, arg):
            raise KeyError(f"rank {i}")
        s.call(boom, None, async_mode=True)
        with pytest.raises(KeyError, match="rank 0"):
            s.sync()
        s.sync()  # reported once
        # a set in asynchronous mode queues its callbacks too
    with DpuSet(nr_dpus=2, profile=SMALL, binary=scale4, async_mode=True) as s:
        seen = []
        s.call(lambda rank, i, arg: seen.append(i), None, single_call=True)
        s.sync()
        assert seen == [0]
