# SPDX-License-Identifier: MIT
"""Names of the symbols an OpenPIM DPU image defines (DpuProgram.fetch_all_symbols).

The C API looks symbols up by name but cannot list them, so the names are read
from the image's ELF32 symbol table here; libdpu stays the judge of each one
(dpu_get_symbol), so a name this reader gets wrong is dropped, never invented."""

import struct

_SHT_SYMTAB = 2
_STT_SECTION, _STT_FILE = 3, 4


def symbol_names(image):
    """Defined, named symbols of an ELF32 little-endian image (bytes-like);
    [] for anything else."""
    data = memoryview(image).cast("B")
    if len(data) < 52 or bytes(data[:4]) != b"\x7fELF" or data[4] != 1 or data[5] != 1:
        return []
    shoff, = struct.unpack_from("<I", data, 0x20)
    shentsize, shnum = struct.unpack_from("<HH", data, 0x2E)
    if shentsize != 40 or shoff + shnum * 40 > len(data):
        return []
    sections = [struct.unpack_from("<10I", data, shoff + 40 * i) for i in range(shnum)]
    names = []
    for sh in sections:
        sh_type, sh_offset, sh_size, sh_link, sh_entsize = sh[1], sh[4], sh[5], sh[6], sh[9]
        if sh_type != _SHT_SYMTAB or sh_entsize != 16 or sh_link >= shnum or sh_offset + sh_size > len(data):
            continue
        str_off, str_size = sections[sh_link][4], sections[sh_link][5]
        if str_off + str_size > len(data):
            continue
        strtab = bytes(data[str_off:str_off + str_size])
        for k in range(sh_size // 16):
            st_name, _value, _size, st_info, _other, st_shndx = struct.unpack_from("<IIIBBH", data, sh_offset + 16 * k)
            if st_name == 0 or st_name >= str_size or st_shndx == 0 or (st_info & 0xF) in (_STT_SECTION, _STT_FILE):
                continue
            end = strtab.find(b"\0", st_name)
            if end < 0:
                continue
            names.append(strtab[st_name:end].decode("utf-8", "replace"))
    return sorted(set(names))
