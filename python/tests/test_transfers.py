# SPDX-License-Identifier: MIT
"""copy(): broadcasts, per-DPU buffers, offsets and sizes, every kind of host
buffer, symbols as attributes, and hostile arguments that must change nothing."""

import array
import struct

import numpy as np
import pytest

from dpu import DPU_MRAM_HEAP_POINTER_NAME, DpuError, DpuSet, DpuSymbol
from dpu import ffi
from conftest import SMALL


def words(data):
    return list(struct.unpack(f"<{len(data) // 4}I", bytes(data)))


def read_all(s, symbol, size, offset=0):
    out = [bytearray(size) for _ in s]
    s.copy(out, symbol, offset=offset)
    return [bytes(b) for b in out]


@pytest.fixture
def dpus(scale4):
    with DpuSet(nr_dpus=6, profile=SMALL, binary=scale4) as s:
        yield s


def test_broadcast_and_read_back_every_buffer_kind(dpus):
    payload = bytes(range(256)) * 8  # 2048 bytes = input[0..511]
    kinds = [payload, bytearray(payload), memoryview(payload), array.array("B", payload),
             np.frombuffer(payload, dtype=np.uint32).copy(), np.frombuffer(payload, dtype=np.uint8).reshape(64, 32)]
    for i, host in enumerate(kinds):
        expected = bytes((b + i) & 0xFF for b in payload)
        if isinstance(host, np.ndarray):
            host = (np.frombuffer(expected, dtype=host.dtype).reshape(host.shape)).copy()
        elif isinstance(host, array.array):
            host = array.array("B", expected)
        else:
            host = type(host)(expected) if not isinstance(host, memoryview) else memoryview(expected)
        dpus.copy("input", host)
        assert read_all(dpus, "input", 2048) == [expected] * 6


def test_per_dpu_buffers_offsets_and_sizes(dpus):
    base = [bytes([d]) * 2048 for d in range(6)]
    dpus.copy("input", base)
    assert read_all(dpus, "input", 2048) == base
    # 8 bytes at offset 16 of each DPU, from numpy rows
    rows = np.arange(6 * 2, dtype=np.uint32).reshape(6, 2) + 1000
    dpus.copy("input", [rows[d] for d in range(6)], offset=16)
    for d, got in enumerate(read_all(dpus, "input", 2048)):
        expected = bytearray(base[d])
        expected[16:24] = struct.pack("<2I", 1000 + 2 * d, 1001 + 2 * d)
        assert got == bytes(expected)
    # size= moves only the first bytes of larger buffers
    dpus.copy("input", [b"\xee" * 64 for _ in range(6)], size=8, offset=2040)
    for got in read_all(dpus, "input", 8, offset=2040):
        assert got == b"\xee" * 8
    # reading at an offset into numpy arrays
    out = np.zeros((6, 2), dtype=np.uint32)
    dpus.copy([out[d] for d in range(6)], "input", offset=16)
    assert out.tolist() == rows.tolist()


def test_none_skips_dpus(dpus):
    dpus.copy("input", bytes(2048))
    dpus.copy("input", [b"\x01" * 8 if d % 2 else None for d in range(6)])
    got = read_all(dpus, "input", 8)
    assert got == [b"\x01" * 8 if d % 2 else bytes(8) for d in range(6)]
    out = [bytearray(8) if d == 3 else None for d in range(6)]
    dpus.copy(out, "input")
    assert out[3] == b"\x01" * 8 and out[2] is None
    dpus.copy("input", [None] * 6)  # nothing to do


def test_single_dpu_and_rank_subsets(dpus):
    dpus.copy("input", bytes(2048))
    d4 = dpus.dpus()[4]
    d4.copy("input", b"\x44" * 16)
    rank1 = dpus.ranks()[1]  # DPUs 4 and 5
    rank1.copy("input", [b"\x55" * 8, b"\x66" * 8], offset=8)
    got = read_all(dpus, "input", 16)
    assert got[:4] == [bytes(16)] * 4
    assert got[4] == b"\x44" * 8 + b"\x55" * 8
    assert got[5] == bytes(8) + b"\x66" * 8
    one = bytearray(16)
    d4.copy(one, "input")  # one buffer, one DPU
    assert one == got[4]
    one_list = [bytearray(16)]
    d4.copy(one_list, "input")  # a list of one for a one-DPU set
    assert one_list[0] == got[4]


def test_symbols_by_dpusymbol_and_heap(dpus, scale4):
    program = dpus.load(scale4)
    sym = program.get_symbol("input")
    assert isinstance(sym, DpuSymbol) and sym.size() == 2048 and sym.name == "input"
    assert program.get_symbol("no_such_symbol") is None
    dpus.copy(sym, b"\x12" * 2048)
    assert read_all(dpus, sym, 2048) == [b"\x12" * 2048] * 6
    # a DpuSymbol built by hand from (address, size)
    manual = DpuSymbol("input-copy", (sym.value(), sym.size()))
    assert read_all(dpus, manual, 8, offset=8) == [b"\x12" * 8] * 6
    # the MRAM heap: everything past the program's MRAM data
    heap = program.get_symbol(DPU_MRAM_HEAP_POINTER_NAME)
    assert heap.size() > 60 << 20
    dpus.copy(DPU_MRAM_HEAP_POINTER_NAME, [bytes([d]) * 1024 for d in range(6)], offset=1 << 20)
    assert read_all(dpus, DPU_MRAM_HEAP_POINTER_NAME, 1024, offset=1 << 20) == [bytes([d]) * 1024 for d in range(6)]


def test_symbol_attributes(dpus):
    dpus.factor = struct.pack("<I", 7)
    assert dpus.factor.uint32() == [7] * 6
    d2 = dpus.dpus()[2]
    d2.factor = array.array("I", [9])
    assert d2.factor.uint32() == 9 and d2.factor.int32() == 9
    assert dpus.factor.uint32() == [7, 7, 9, 7, 7, 7]
    dpus.copy("input", [struct.pack("<4i", d, -d, 2**31 - 1, -2**31) + bytes(2032) for d in range(6)])
    v = d2.input
    assert v.int32()[:4] == [2, -2, 2**31 - 1, -2**31]
    assert v.uint32()[:4] == [2, 2**32 - 2, 2**31 - 1, 2**31]
    assert v.int64()[0] == struct.unpack("<q", struct.pack("<2i", 2, -2))[0]
    assert v.uint8()[:8] == list(struct.pack("<2i", 2, -2))
    assert v.int16()[:2] == [2, 0] and v.uint16()[2:4] == [0xFFFE, 0xFFFF]
    assert bytes(v.data()[:8]) == struct.pack("<2i", 2, -2)
    dpus.copy("input", struct.pack("<fd", 1.5, -2.25) + bytes(2036))
    assert dpus.dpus()[0].input.float()[0] == 1.5
    assert struct.unpack_from("<d", bytes(dpus.dpus()[0].input.data()), 4)[0] == -2.25
    dpus.odd = bytes(range(12))
    assert dpus.odd.uint32() == [list(struct.unpack("<3I", bytes(range(12))))] * 6
    with pytest.raises(DpuError, match="whole number"):
        dpus.odd.uint64()  # 12 bytes
    assert dpus.dpus()[5].odd.uint8() == list(range(12))
    with pytest.raises(AttributeError, match="no attribute 'no_such_symbol'"):
        dpus.no_such_symbol
    with pytest.raises(DpuError, match="no DPU symbol 'no_such_symbol'"):
        dpus.no_such_symbol = b"1234"  # a typo must not pass silently
    with pytest.raises(AttributeError):
        dpus.copy = b"1234"  # methods are not DPU symbols


def test_fetch_all_symbols(dpus, scale4):
    program = dpus.dpus()[0].load(scale4)
    symbols = program.fetch_all_symbols()
    for name, size in (("factor", 4), ("dpu_id", 4), ("sums", 32), ("odd", 12), ("input", 2048),
                       ("output", 2048), ("main", None)):
        assert name in symbols
        if size is not None:
            assert symbols[name].size() == size
    for name, sym in symbols.items():
        assert program.get_symbol(name).value() == sym.value()


def test_async_copies_complete_at_sync(scale4):
    with DpuSet(nr_dpus=4, profile=SMALL, binary=scale4, async_mode=True) as s:
        s.copy("input", [bytes([d + 1]) * 2048 for d in range(4)])
        out = [bytearray(2048) for _ in range(4)]
        s.copy(out, "input")
        s.sync()
        assert out == [bytearray([d + 1]) * 2048 for d in range(4)]
        # attribute reads are synchronous whatever the mode
        s.factor = struct.pack("<I", 3)
        assert s.factor.uint32() == [3] * 4


# ---- hostile arguments -------------------------------------------------------------------

def assert_unchanged(s, before):
    assert read_all(s, "input", 2048) == before


@pytest.fixture
def filled(dpus):
    before = [bytes([0x30 + d]) * 2048 for d in range(6)]
    dpus.copy("input", before)
    return dpus, before


def test_sizes_past_the_symbol_are_refused(filled):
    s, before = filled
    cases = [dict(src=bytes(2049)), dict(src=bytes(8), offset=2044), dict(src=bytes(8), offset=2048),
             dict(src=bytes(8), offset=2**32 - 8), dict(src=[bytes(2056)] * 6), dict(src=[bytes(8)] * 6, offset=2041)]
    for kw in cases:
        with pytest.raises(DpuError) as e:
            s.copy("input", **kw)
        assert e.value.code in (ffi.DPU_ERR_INVALID_SYMBOL_ACCESS, ffi.DPU_ERR_INVALID_MRAM_ACCESS), kw
        assert "'input'" in str(e.value)
        assert_unchanged(s, before)
    with pytest.raises(DpuError) as e:
        s.copy([bytearray(16)] * 6, "factor")  # a 4-byte WRAM symbol
    assert e.value.code == ffi.DPU_ERR_INVALID_SYMBOL_ACCESS
    with pytest.raises(DpuError) as e:
        s.copy("odd", bytes(16))
    assert e.value.code == ffi.DPU_ERR_INVALID_SYMBOL_ACCESS
    with pytest.raises(DpuError) as e:
        s.copy("odd", bytes(3))  # WRAM moves whole 32-bit words
    assert e.value.code == ffi.DPU_ERR_INVALID_WRAM_ACCESS


def test_negative_and_huge_offsets_and_sizes(filled):
    s, before = filled
    for offset in (-1, -8, -2**32 + 8, 2**32, 2**64):
        with pytest.raises(DpuError, match="offset .* out of range"):
            s.copy("input", bytes(8), offset=offset)
    for size in (-1, 2**64):
        with pytest.raises(DpuError, match="size .* out of range"):
            s.copy("input", bytes(8), size=size)
    for bad in (1.0, "8", None, True, [8]):
        with pytest.raises(TypeError):
            s.copy("input", bytes(8), offset=bad)
    with pytest.raises(TypeError):
        s.copy("input", bytes(8), size=2.0)
    with pytest.raises(DpuError, match="too small"):
        s.copy("input", bytes(8), size=16)
    with pytest.raises(DpuError, match="too small"):
        s.copy("input", [bytes(8)] * 6, size=16)
    assert_unchanged(s, before)


def test_wrong_buffer_types_and_shapes(filled):
    s, before = filled
    for bad in (1234, "text", 3.5, object(), [1, 2, 3, 4, 5, 6], {"a": 1}):
        with pytest.raises((TypeError, DpuError)):
            s.copy("input", bad)
    with pytest.raises(TypeError, match="host buffer 2"):
        s.copy("input", [bytes(8), bytes(8), "x" * 8, bytes(8), bytes(8), bytes(8)])
    with pytest.raises(DpuError, match="5 host buffers for a set of 6"):
        s.copy("input", [bytes(8)] * 5)
    with pytest.raises(DpuError, match="differ in size"):
        s.copy("input", [bytes(8)] * 5 + [bytes(16)])
    with pytest.raises(DpuError, match="C-contiguous"):
        s.copy("input", np.zeros((4, 4), dtype=np.uint32)[:, 1])
    with pytest.raises(DpuError, match="C-contiguous"):
        s.copy("input", np.asfortranarray(np.arange(16, dtype=np.uint32).reshape(4, 4)))
    assert_unchanged(s, before)
    # reading needs writable buffers, one per DPU
    with pytest.raises(TypeError, match="read-only"):
        s.copy([bytes(8)] * 6, "input")
    with pytest.raises(DpuError, match="cannot be read into one host buffer"):
        s.copy(bytearray(8), "input")
    with pytest.raises(TypeError):
        s.dpus()[0].copy(b"12345678", "input")
    # both sides on the host, or both on the DPUs
    with pytest.raises(DpuError, match="exactly one of dst and src"):
        s.copy(bytearray(8), bytes(8))
    with pytest.raises(DpuError, match="exactly one of dst and src"):
        s.copy("input", "output")
    assert_unchanged(s, before)


def test_unknown_and_malformed_symbols(filled):
    s, before = filled
    with pytest.raises(DpuError) as e:
        s.copy("no_such_symbol", bytes(8))
    assert e.value.code == ffi.DPU_ERR_UNKNOWN_SYMBOL and "no_such_symbol" in str(e.value)
    with pytest.raises(DpuError, match="NUL"):
        s.copy("input\0x", bytes(8))
    with pytest.raises(DpuError):
        s.copy(DpuSymbol("bogus", (0x7FFFFFF0, 64)), bytes(8))
    with pytest.raises(DpuError):
        DpuSymbol("bad", (-1, 8))
    assert_unchanged(s, before)


def test_failed_push_leaves_no_prepared_buffer(filled):
    # a push refused by libdpu after the buffers were prepared must not leave
    # them behind for the next push, which skips DPUs without a buffer
    s, before = filled
    with pytest.raises(DpuError):
        s.copy("input", [b"\xff" * 8] * 6, offset=2044)
    s.copy("input", [b"\x01" * 8 if d == 0 else None for d in range(6)])
    expected = list(before)
    expected[0] = b"\x01" * 8 + before[0][8:]
    assert_unchanged(s, expected)


def test_transfers_need_one_program_on_the_set(build, scale4):
    other = build("#include <stdint.h>\n#include <mram.h>\n__host uint32_t factor;\nint main(void) { return 0; }\n")
    with DpuSet(nr_dpus=4, profile=SMALL, binary=scale4) as s:
        s.dpus()[1].load(other)
        with pytest.raises(DpuError, match="no DPU symbol"):
            s.factor = b"\x01\x00\x00\x00"  # two programs: no common symbols
        s.dpus()[1].factor = b"\x05\x00\x00\x00"
        assert s.dpus()[1].factor.uint32() == 5
        with pytest.raises(DpuError) as e:
            s.copy("input", bytes(8))  # 'input' is missing from DPU 1's program
        assert e.value.code in (ffi.DPU_ERR_UNKNOWN_SYMBOL, ffi.DPU_ERR_DIFFERENT_DPU_PROGRAMS)
