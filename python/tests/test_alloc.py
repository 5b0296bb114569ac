# SPDX-License-Identifier: MIT
"""Allocation, the set's structure (ranks, DPUs, len, iteration) and freeing."""

import re

import pytest

import dpu
from dpu import ALLOCATE_ALL, DpuError, DpuSet
from dpu import ffi
from conftest import SMALL


def test_package_names():
    # the SDK's module layout: dpu.driver, dpu.compiler, dpu.ffi; names re-exported by dpu
    assert dpu.DpuSet is dpu.driver.DpuSet and dpu.DpuError is dpu.driver.DpuError
    assert ALLOCATE_ALL == 0xFFFFFFFF
    assert dpu.DPU_MRAM_HEAP_POINTER_NAME == "__sys_used_mram_end"
    assert callable(dpu.compiler.DEFAULT_DPU_COMPILER.compile)


def test_error_codes_match_the_header():
    # dpu_error.h is parsed independently of ffi.ERROR_NAMES
    import os
    header = os.path.join(os.environ["UPMEM_HOME"], "include", "dpu", "dpu_error.h")
    body = open(header).read().split("typedef enum _dpu_error_t {")[1].split("}")[0]
    names = [n for n in re.findall(r"^\s*(DPU_\w+)\s*(?:=[^,]*)?,", body, re.M)]
    assert names[-1] == "DPU_ERR_ASYNC_JOBS"
    assert list(ffi.ERROR_NAMES) == names[:-1]


@pytest.mark.parametrize("count", [1, 3, 4, 5, 12])
def test_alloc_counts_ranks_and_order(count):
    with DpuSet(nr_dpus=count, profile=SMALL) as s:
        assert len(s) == count == len(s.dpus()) == len(list(s))
        ranks = s.ranks()
        assert len(ranks) == -(-count // 4)  # whole ranks of 4 DPUs
        # every DPU is in exactly one rank; the set's order is rank by rank
        assert [d for r in ranks for d in r.dpus()] == s.dpus()
        assert [len(r) for r in ranks] == [min(4, count - 4 * i) for i in range(len(ranks))]
        for r in ranks:
            assert r.ranks() == [r]
            for d in r:
                assert len(d) == 1 and d.dpus() == [d] and d.ranks() == [r]


def test_alloc_ranks_and_all():
    with DpuSet(nr_ranks=2, profile=SMALL) as s:
        assert len(s) == 8 and len(s.ranks()) == 2
    with DpuSet(nr_dpus=ALLOCATE_ALL, profile=SMALL) as s:
        assert len(s) == 12 and len(s.ranks()) == 3
    with DpuSet(profile=SMALL) as s:  # neither count: every DPU
        assert len(s) == 12


def test_alloc_refusals():
    with pytest.raises(DpuError, match="cannot specify nr_dpus and nr_ranks"):
        DpuSet(nr_dpus=1, nr_ranks=1, profile=SMALL)
    for count in (13, 0):  # more than the machine has; none
        with pytest.raises(DpuError) as e:
            DpuSet(nr_dpus=count, profile=SMALL)
        assert e.value.code == ffi.DPU_ERR_ALLOCATION
    with pytest.raises(DpuError) as e:
        DpuSet(nr_ranks=4, profile=SMALL)
    assert e.value.code == ffi.DPU_ERR_ALLOCATION
    with pytest.raises(DpuError) as e:
        DpuSet(nr_dpus=1, profile="nrRanks=zero")
    assert e.value.code == ffi.DPU_ERR_INVALID_PROFILE
    assert "nrRanks=zero" in str(e.value)
    for bad in (-1, 2**32, 1.5, "4", None.__class__):
        with pytest.raises((DpuError, TypeError)):
            DpuSet(nr_dpus=bad, profile=SMALL)
    with pytest.raises(TypeError):
        DpuSet(nr_dpus=True, profile=SMALL)
    with pytest.raises(TypeError):
        DpuSet(nr_dpus=1, profile=b"nrRanks=1")
    with pytest.raises(DpuError, match="NUL"):
        DpuSet(nr_dpus=1, profile="nrRanks=1\0x")


def test_refused_allocation_leaves_the_dpus_free():
    # a failed load inside the constructor frees what it allocated
    for _ in range(3):
        with pytest.raises(DpuError):
            DpuSet(nr_dpus=ALLOCATE_ALL, profile=SMALL, binary="/nonexistent/prog.dpu")
    with DpuSet(nr_dpus=ALLOCATE_ALL, profile=SMALL) as s:
        assert len(s) == 12


def test_free_and_use_after_free(scale4):
    s = DpuSet(nr_dpus=12, profile=SMALL, binary=scale4)
    d = s.dpus()[5]
    r = s.ranks()[1]
    with pytest.raises(DpuError, match="only a set made by DpuSet"):
        d.free()
    with pytest.raises(DpuError, match="only a set made by DpuSet"):
        r.free()
    s.free()
    # all 12 DPUs are free again
    with DpuSet(nr_dpus=12, profile=SMALL):
        pass
    with pytest.raises(DpuError, match="already freed"):
        s.free()
    for target in (s, r, d):
        with pytest.raises(DpuError, match="freed"):
            target.copy("factor", bytearray(4))
        with pytest.raises(DpuError, match="freed"):
            target.exec()
        with pytest.raises(DpuError, match="freed"):
            target.load(scale4)


def test_context_manager_frees_even_on_error():
    with pytest.raises(RuntimeError):
        with DpuSet(nr_dpus=12, profile=SMALL):
            raise RuntimeError("boom")
    with DpuSet(nr_dpus=12, profile=SMALL) as s:
        s.free()  # explicit free inside: the exit does not free twice
    with DpuSet(nr_dpus=12, profile=SMALL):
        pass


def test_forgotten_set_is_freed_by_the_garbage_collector():
    import gc
    s = DpuSet(nr_dpus=12, profile=SMALL)
    del s
    gc.collect()
    with DpuSet(nr_dpus=12, profile=SMALL):
        pass


def test_a_child_keeps_its_set_alive():
    import gc
    d = DpuSet(nr_dpus=12, profile=SMALL).dpus()[3]
    gc.collect()
    with pytest.raises(DpuError) as e:
        DpuSet(nr_dpus=1, profile=SMALL)  # all 12 are still held through d
    assert e.value.code == ffi.DPU_ERR_ALLOCATION
    del d
    gc.collect()
    with DpuSet(nr_dpus=12, profile=SMALL):
        pass
