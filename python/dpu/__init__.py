# SPDX-License-Identifier: MIT
"""OpenPIM's Python host API, with the names of the UPMEM SDK's `dpu` package.

    from dpu import DpuSet
    with DpuSet(nr_dpus=64, binary="./bin/dpu_task") as dpus:
        dpus.copy("input", data)
        dpus.exec()

Modules: dpu.driver (DpuSet and friends, re-exported here), dpu.compiler
(compiling DPU C), dpu.ffi (the ctypes binding of libdpu)."""

from . import compiler
from .driver import (ALLOCATE_ALL, DpuContext, DpuError, DpuProgram, DpuSet, DpuSymbol, DpuVariable)
from .ffi import DPU_MRAM_HEAP_POINTER_NAME

__all__ = ["ALLOCATE_ALL", "DPU_MRAM_HEAP_POINTER_NAME", "DpuContext", "DpuError", "DpuProgram", "DpuSet",
           "DpuSymbol", "DpuVariable", "compiler"]
