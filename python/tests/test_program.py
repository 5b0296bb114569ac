# SPDX-License-Identifier: MIT
"""load(): binaries by path or bytes, C sources compiled on the fly, and what
OpenPIM refuses (DPU assembly, checkpoints)."""

import io
import pathlib
import struct

import pytest

from dpu import DpuContext, DpuError, DpuProgram, DpuSet, compiler
from dpu import ffi
from conftest import SCALE, SMALL, scale_reference

ADD = r"""
#include <stdint.h>
#include <mram.h>
__host uint32_t a, b, sum;
int main(void) { sum = a + b; return 0; }
"""


def check_add(s):
    s.a = struct.pack("<I", 40)
    s.copy("b", [struct.pack("<I", d) for d in range(len(s))])
    s.exec()
    return s.sum.uint32()


def test_load_by_path_bytes_and_pathlib(build):
    path = build(ADD)
    image = pathlib.Path(path).read_bytes()
    for binary in (path, pathlib.Path(path), image, bytearray(image), memoryview(image)):
        with DpuSet(nr_dpus=3, profile=SMALL) as s:
            program = s.load(binary)
            assert isinstance(program, DpuProgram)
            assert program.get_symbol("sum").size() == 4
            assert check_add(s) == [40, 41, 42]


def test_c_source_from_file_objects_and_paths(tmp_path):
    with DpuSet(nr_dpus=2, profile=SMALL, c_source=io.StringIO(ADD)) as s:
        assert check_add(s) == [40, 41]
    src = tmp_path / "add.c"
    src.write_text(ADD)
    with DpuSet(nr_dpus=2, profile=SMALL, c_source=str(src)) as s:
        assert check_add(s) == [40, 41]
    # several sources, one a binary file object
    (tmp_path / "helper.c").write_text("#include <stdint.h>\nuint32_t twice(uint32_t x) { return 2 * x; }\n")
    main = io.BytesIO(b"#include <stdint.h>\n#include <mram.h>\nuint32_t twice(uint32_t);\n"
                      b"__host uint32_t a, b, sum;\nint main(void) { sum = twice(a) + b; return 0; }\n")
    with DpuSet(nr_dpus=2, profile=SMALL) as s:
        program = s.load(c_source=[main, str(tmp_path / "helper.c")])
        assert check_add(s) == [80, 81]
        # the program's symbols can be listed although its temporary file is gone
        assert {"a", "b", "sum", "twice", "main"} <= set(program.fetch_all_symbols())


def test_c_source_multi_tasklet_results():
    src = SCALE.replace("#define N 512", "#ifndef NR_TASKLETS\n#define NR_TASKLETS 1\n#endif\n#define N 512")
    with DpuSet(nr_dpus=1, profile=SMALL, c_source=io.StringIO(src)) as s:
        words = list(range(1000, 1512))
        s.copy("input", struct.pack("<512I", *words))
        s.factor = struct.pack("<I", 3)
        s.exec()
        assert s.output.uint32() == scale_reference(words, 3, 1)[0]


def test_compile_errors_are_dpu_errors():
    with pytest.raises(DpuError, match="cannot compile") as e:
        DpuSet(nr_dpus=1, profile=SMALL, c_source=io.StringIO("int main(void) { return undefined_name; }\n"))
    assert "undefined_name" in str(e.value)
    with pytest.raises(TypeError):
        DpuSet(nr_dpus=1, profile=SMALL, c_source=42)


def test_load_refusals(build, tmp_path):
    with DpuSet(nr_dpus=2, profile=SMALL) as s:
        with pytest.raises(DpuError) as e:
            s.load(str(tmp_path / "missing.dpu"))
        assert e.value.code == ffi.DPU_ERR_ELF_NO_SUCH_FILE and "missing.dpu" in str(e.value)
        assert "No such file or directory" in str(e.value)  # libdpu's own reason, openpim_last_error
        garbage = tmp_path / "garbage.dpu"
        garbage.write_bytes(b"\x7fELF" + bytes(200))
        for bad in (str(garbage), b"not an ELF image", bytes(0)):
            with pytest.raises(DpuError) as e:
                s.load(bad)
            assert e.value.code == ffi.DPU_ERR_ELF_INVALID_FILE
        with pytest.raises(DpuError) as e:
            s.load(str(tmp_path))  # a directory
        assert e.value.code == ffi.DPU_ERR_ELF_INVALID_FILE
        with pytest.raises(DpuError, match="one and only one"):
            s.load()
        with pytest.raises(DpuError, match="one and only one"):
            s.load(build(ADD), c_source=io.StringIO(ADD))
        with pytest.raises(DpuError, match="NUL"):
            s.load("a\0b")
        with pytest.raises(TypeError):
            s.load(12345)
        # nothing was loaded by the refusals
        with pytest.raises(DpuError) as e:
            s.exec()
        assert e.value.code == ffi.DPU_ERR_NO_PROGRAM_LOADED


def test_unsupported_features_fail_loudly(build):
    with pytest.raises(NotImplementedError, match="assembly"):
        DpuSet(nr_dpus=1, profile=SMALL, asm_source=io.StringIO("nop\n"))
    with DpuSet(nr_dpus=1, profile=SMALL, binary=build(ADD)) as s:
        with pytest.raises(NotImplementedError):
            s.load(asm_source="prog.S")
        with pytest.raises(NotImplementedError):
            s.checkpoint()
        with pytest.raises(NotImplementedError):
            s.restore(None)
    with pytest.raises(NotImplementedError):
        DpuContext.from_buffer(memoryview(b""))


def test_compiler_module(tmp_path):
    assert compiler.O2 == "-O2"
    src = tmp_path / "add.c"
    src.write_text(ADD)
    out = tmp_path / "add.dpu"
    compiler.DEFAULT_DPU_COMPILER.compile(str(src), output=str(out), defines={"UNUSED": None, "ALSO": 3},
                                          opt_lvl=compiler.O1)
    with DpuSet(nr_dpus=1, profile=SMALL, binary=str(out)) as s:
        assert check_add(s) == 40
    bad = tmp_path / "bad.c"
    bad.write_text("this is not C\n")
    with pytest.raises(compiler.subprocess.CalledProcessError):
        compiler.DEFAULT_DPU_COMPILER.compile(str(bad), output=str(tmp_path / "bad.dpu"))


def test_symbol_attributes_follow_the_loaded_program(build, tmp_path):
    other = build("#include <stdint.h>\n#include <mram.h>\n__host uint64_t pad, sum;\nint main(void) { return 0; }\n")
    with DpuSet(nr_dpus=2, profile=SMALL, binary=build(ADD)) as s:
        assert check_add(s) == [40, 41]
        s.load(other)  # 'sum' moves; 'a' is gone
        s.sum = struct.pack("<Q", 2**40 + 5)
        assert s.sum.uint64() == [2**40 + 5] * 2
        with pytest.raises(DpuError, match="no DPU symbol 'a'"):
            s.a = struct.pack("<I", 1)
        # a failed load leaves the DPUs' programs unknown: no attributes until one loads
        bad = tmp_path / "bad.dpu"
        bad.write_bytes(b"\x7fELF" + bytes(100))
        with pytest.raises(DpuError):
            s.load(str(bad))
        with pytest.raises(DpuError, match="no DPU symbol 'sum'"):
            s.sum = bytes(8)
        with pytest.raises(AttributeError):
            s.sum
        s.load(build(ADD))
        assert check_add(s) == [40, 41]
