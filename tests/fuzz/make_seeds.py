#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes the hand-made seeds of tests/fuzz/corpus-api and corpus-image.

The API seeds are call sequences in fuzz_api.c's input encoding (this file
mirrors its decoder: change both together).  The image seeds are small ELF
files made here (raw mode of fuzz_image.c) and mutation lists.  Regression
inputs for fixed bugs (regress-*) are written the same way.

    python3 tests/fuzz/make_seeds.py        (from anywhere)
"""
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))

# ---- fuzz_api.c encoding ---------------------------------------------------------

OP = dict(alloc=0, alloc_ranks=1, free=2, load_path=3, load_mem=4, launch=5, status_sync=6, callback=7,
          copy_to=8, broadcast=9, copy_from=10, copy_symbol=11, prepare=12, push=13, sg=14, log=15,
          queries=16, iterate=17, checked_run=18, rank_view=21, misc=22, overflow=23)
COUNTS = [1, 2, 7, 8, 9, 15, 16, 17, 0, 0xffffffff, 64, 0xfffffffe]
PROFILES = ["base", "sg", "sg3", "noreset", "unknownkeys", "nrRanks=0", "dpus65", "chip", "timeout",
            "sgbad", "noequals", "eq", "commas", "backend"]
SYMBOLS = ["words", "results", "counter", "launches", "magic", "rounds", "heap_words", "fault_kind",
           "fault_arg", "m_init", "m_out", "__sys_used_mram_end", "__stdout_buffer", "__stdout_buffer_state",
           "__op_env", "main", "nonexistent", "", "__op_nr_tasklets", "__op_heap_start"]


def b(*xs):
    return bytes(xs)


def u16(x):
    return struct.pack("<H", x & 0xffff)


def u32(x):
    return struct.pack("<I", x & 0xffffffff)


def u64(x):
    return struct.pack("<Q", x & 0xffffffffffffffff)


def set_slot(i):
    """pick_set: allocation slot i (live or freed)."""
    return b(0, i)


def set_dpu(i):
    """pick_set: DPU handle i (from op iterate)."""
    return b(3, i)


def set_rank(i):
    return b(5, i)


def set_garbage(kind=1, ptr=1, count=1):
    """pick_set: garbage; kind 0 ranks, 1 DPU; ptr index of fuzz_api.c's ptrs[] (9, 10: harness memory)."""
    out = b(7, kind & 1, ptr)
    if kind & 1 == 0:
        out += b(count)
    return out


def alloc(count=16, profile="base", ranks=False):
    return b(OP["alloc_ranks"] if ranks else OP["alloc"], COUNTS.index(count), PROFILES.index(profile), 1)


def alloc_alt(count=64):
    """on ALT_PROFILE: one rank of 64 DPUs (v1B: the DPU program does not load there)"""
    return b(OP["alloc"], COUNTS.index(count), 255, 1)


def rank_view(setb, group, word, lines, ok=True):
    """write `lines` 64-byte lines at MRAM offset 8 * word of the group, read them back
    (ok: expected to succeed; else a read of the same is tried)"""
    g = b(0, group) if group < 9 else b(200) + u32(group)
    return b(OP["rank_view"]) + setb + g + b(0) + u16(word) + b(0, lines) + b(1) + (b() if ok else b(1))


def misc(setb, k=0xf):
    return b(OP["misc"]) + setb + b(k)


def free(setb):
    return b(OP["free"]) + setb


def symbol(name):
    if name is None:
        return b(240)
    return b(SYMBOLS.index(name))


def off_exact(o):
    """pick_off via its u32 case."""
    return b(4) + u32(o)


def len_exact(n):
    """pick_len via its u32 case."""
    return b(5) + u32(n)


def load_path(setb, valid=True, want_prog=True):
    path = 7 if valid is True else 1 if valid is False else valid  # or an index of fuzz_api.c's paths[]
    return b(OP["load_path"]) + setb + b(path, 1 if want_prog else 0, 1, 0)


def load_mem_valid(setb, sym="results"):
    return b(OP["load_mem"]) + setb + b(0) + symbol(sym)


def load_mem_mutated(setb, mutations):
    """mutations: list of mutated_image() encodings (at most 6)."""
    return b(OP["load_mem"]) + setb + b(3, len(mutations) - 1) + b"".join(mutations) + b(0)


def mut_symbol(name_idx, size, value_sel):
    """mutation 3: value (or size) of a runtime symbol (fuzz_api.c names[name_idx]) := vals[value_sel]."""
    return b(3, 0, value_sel, 0) + u16(0) + b(name_idx, 0, 1 if size else 0)


def mut_truncate(n):
    return b(5, 0, 0, 0) + u32(n)


def mut_code(at, value):
    return b(6, 0, 0, 0) + u16(at) + b(value)


def launch(setb, policy="sync"):
    return b(OP["launch"]) + setb + b({"sync": 0, "async": 130}[policy])


def status_sync(setb):
    return b(OP["status_sync"]) + setb + b(3)


def copy(kind, setb, sym, off, n, fill=0x41, null=False, ok=True):
    """ok: the call is expected to succeed (the harness then reads one more byte)."""
    op = {"to": OP["copy_to"], "bcast": OP["broadcast"], "from": OP["copy_from"]}[kind]
    out = b(op) + setb + symbol(sym) + off_exact(off) + len_exact(n) + b(fill, 0 if null else 1)
    if kind == "bcast":
        out += b(0)
    if kind != "from" and ok and n <= 256 << 10:
        out += b(0)  # which DPU reads it back
    return out


def iterate(slot, ndpus, have=0):
    """DPU_RANK_FOREACH / DPU_FOREACH over a live set of ndpus DPUs, keeping every DPU handle
    (the harness keeps at most 24; `have` are kept already)"""
    return b(OP["iterate"], slot) + b(1) * max(0, min(ndpus, 24 - have))


def prepare(setb, ndpus):
    """a buffer for each DPU of a live set of ndpus DPUs"""
    return b(OP["prepare"]) + setb + b(2) + b(1) * ndpus


def push(setb, to_dpu, sym, off, n, flags=0):
    return b(OP["push"]) + setb + b(0 if to_dpu else 130) + symbol(sym) + off_exact(off) + len_exact(n) + \
        b(0, flags) + b(0)


def sg(setb, sym, off, n, nblocks, null=False):
    """blocks of n / nblocks bytes each (null: with a NULL address)"""
    return b(OP["sg"]) + setb + b(0) + symbol(sym) + off_exact(off) + len_exact(n) + b(nblocks, 1 if null else 0) + \
        b(0) * nblocks + b(0, 0)


def log(setb, record=b"", at=0, state=0):
    out = b(OP["log"]) + setb + b(1, len(record)) + record + u32(at) + b(0) + u32(state)
    return out + b(1)


LOG_PIECES = ["%d", "%i", "%*d", "%-*d", "%.*d", "%*.*f", "%u", "%x", "%#X", "%o", "%b", "%#b", "%08.3b", "%c",
              "%s", "%.3s", "%-10s", "%p", "%f", "%e", "%g", "%a", "%Lf", "%n", "%%", "%hhd", "%lld", "%zu",
              "%'d", "%+ d", "%4096.4096f", "%99999d", "%", "%5", "%.", "%k", "text ", "\n", "%*", "%.*"]
LOG_SPECIALS = [0, 1, -1, -(1 << 63), (1 << 63) - 1, 0x7ff0000000000000, 0x7ff8000000000001, 0x7fefffffffffffff,
                4096, 4097, -4096, -(1 << 31)]


def log_records(setb, records, at=0):
    """records: list of (pieces, items); items: ('i'|'u'|'f'|'p', special value) or ('s', bytes)."""
    out = b(OP["log"]) + setb + b(2, len(records) - 1)
    for pieces, items in records:
        out += b(len(pieces)) + bytes(LOG_PIECES.index(p) for p in pieces) + b(len(items))
        for tag, v in items:
            out += b("iufps".index(tag))
            out += b(len(v)) + v if tag == "s" else b(0, LOG_SPECIALS.index(v))
        out += b(1)  # trailer intact
    out += b(1) if at == 0 else b(0) + u32(at)
    return out + b(1)


def queries(setb):
    return b(OP["queries"]) + setb + b(1, 1, 1) + u32(0x12345)


def callback(setb, ret=1, flags=1):
    return b(OP["callback"]) + setb + b(ret, 0, flags, 0)


def inputs(rounds=5, heap_words=40):
    return b(rounds, 0) + u16(heap_words) + b"".join(u32(0x1000 * i + 7) for i in range(16)) + u64(0x1234567)


def checked_run(slot, single=None, fault=0, arg=12345, nlaunch=1, asyncs=(0, 0), rounds=5, heap_words=40):
    out = b(OP["checked_run"], slot)
    out += b(1, single) if single is not None else b(0)
    out += inputs(rounds, heap_words) + b(fault, 0) + u32(arg)
    if fault == 8:
        out += b(0)
    return out + b(nlaunch - 1) + bytes(asyncs[:nlaunch])


def ovf_wrap(d=0):
    """ovf_len, case 0: a length such that off + len == d modulo 2^64"""
    return b(d & 0xff, 0)


def ovf_len(n):
    """ovf_len, case 6: exactly n"""
    return b(0, 6) + u64(n)


def overflow(setb, call, length, sym="__sys_used_mram_end", given=None, off=0, extra=b""):
    """op_overflow: call 0 copy_to, 1 broadcast_to, 2 copy_from, 3-5 the same with a given symbol
    (address, size), 6/7 push to/from (a buffer per DPU), 8 scatter-gather (extra: direction and block
    choices), 9 rank view (extra: group, read/write; off is 64-bit)"""
    out = b(OP["overflow"]) + setb + b(call)
    if call in (0, 1, 2, 6, 7, 8):
        out += symbol(sym)
    if call in (3, 4, 5):
        out += b(250, 250) + u32(given[0]) + u32(given[1])
    out += b(3) + u64(off) if call == 9 else b(5) + u32(off)
    return out + length + extra


def api_seeds():
    s = {}
    s["basic-run"] = alloc(16) + iterate(0, 16) + checked_run(0, nlaunch=2, asyncs=(0, 1)) + free(set_slot(0))
    s["copies"] = (alloc(9) + load_mem_valid(set_slot(0)) + copy("to", set_slot(0), "words", 4, 32) +
                   copy("bcast", set_slot(0), "__sys_used_mram_end", 0, 4096) +
                   copy("to", set_slot(0), "m_out", 8, 13) + copy("to", set_slot(0), "results", 2, 8, ok=False) +
                   copy("from", set_slot(0), "words", 0, 8) + iterate(0, 9) +
                   copy("from", set_dpu(2), "magic", 0, 4) + copy("to", set_slot(0), None, 0, 4, ok=False) +
                   copy("to", set_slot(0), "words", 0, 0xffffffff, ok=False))
    s["async"] = (alloc(8) + load_path(set_slot(0)) + launch(set_slot(0), "async") + status_sync(set_slot(0)) +
                  callback(set_slot(0), ret=1, flags=1) + status_sync(set_slot(0)))
    # fixed: sdk/alloc.c dpu_free read the list of a set it had freed (and freed it again)
    s["regress-double-free"] = alloc(8) + free(set_slot(0)) + free(set_slot(0)) + launch(set_slot(0))
    # fixed: sdk/alloc.c op_set_check followed the pointers of freed sets (use after free) and of
    # garbage sets (a DPU pointer of 1 was dereferenced)
    s["regress-freed-sets"] = (alloc(16) + iterate(0, 16) + free(set_slot(0)) +
                       copy("to", set_dpu(1), "words", 0, 4, ok=False) +
                       launch(set_rank(1)) + free(set_rank(0)) + alloc(8) + launch(set_dpu(0)))
    s["regress-garbage-sets"] = b"".join(launch(set_garbage(1, p)) + free(set_garbage(0, p, 2)) +
                            copy("to", set_garbage(0, p, 3), "words", 0, 4, ok=False) for p in range(11))
    s["push-sg"] = (alloc(16, "sg") + load_path(set_slot(0)) + iterate(0, 16) + prepare(set_slot(0), 16) +
                    push(set_slot(0), True, "__sys_used_mram_end", 0, 1 << 20) +
                    push(set_slot(0), False, "m_out", 0, 64, flags=1) + push(set_slot(0), True, "words", 0, 64) +
                    sg(set_slot(0), "__sys_used_mram_end", 0, 4096, 4) + sg(set_slot(0), "words", 0, 64, 1))
    # fixed: sdk/xfer.c sg_push passed a NULL address to memcpy for an empty block
    # fixed: sdk/program.c dpu_load read /dev/zero (or any endless file) until memory ran out
    s["regress-load-dev-zero"] = alloc(8) + load_path(set_slot(0), valid=6) + load_path(set_slot(0), valid=2)
    s["regress-sg-null-empty-block"] = (alloc(16, "sg") + load_path(set_slot(0)) +
                                        sg(set_slot(0), "__sys_used_mram_end", 0, 0, 2, null=True))
    s["log"] = (alloc(8) + iterate(0, 8) + checked_run(0) + log(set_dpu(0)) +
                log(set_dpu(1), record=u32(24) + u32(3) + b"%d\n" + b"i" + u64(7) + u32(24), at=0, state=24) +
                log(set_dpu(2), at=8, state=(1 << 40)) + queries(set_dpu(0)))
    s["rank-view"] = (alloc_alt(64) + rank_view(set_slot(0), 3, 5, 7) + rank_view(set_slot(0), 8, 0, 1, ok=False) +
                      load_path(set_slot(0)) + iterate(0, 64) + rank_view(set_dpu(0), 0, 0, 1, ok=False) +
                      misc(set_slot(0)) + misc(set_dpu(0)) + free(set_slot(0)) + rank_view(set_slot(0), 0, 0, 1, ok=False))
    s["log-records"] = (alloc(8) + iterate(0, 8) + load_path(set_slot(0)) +
                        log_records(set_dpu(0), [(["%d", "%s", "text "], [("i", -1), ("s", b"abc")]),
                                                 (["%5", "%b", "%#b"], [("u", 4097), ("u", 0)]),
                                                 (["%.*d", "%f"], [("i", 4097), ("i", 1), ("f", 0x7ff0000000000000)])],
                                    at=1000) +
                        log_records(set_dpu(1), [(["%4096.4096f", "%n", "%%"], [("f", 0x7fefffffffffffff)])]))
    # fixed: sdk/log_format.c negated a '*' width of INT64_MIN (signed overflow)
    s["regress-log-star-width-min"] = (alloc(8) + iterate(0, 8) + load_path(set_slot(0)) +
                                       log_records(set_dpu(0), [(["%*d"], [("i", -(1 << 63)), ("i", 4096)])]))
    # fixed: sdk/log.c read __stdout_buffer_state wherever the image's symbol said, past the DPU's WRAM
    s["regress-log-state-outside-wram"] = (alloc(16) + iterate(0, 16) +
                                           load_mem_mutated(set_slot(0), [mut_symbol(7, False, 22)]) +
                                           log(set_dpu(15)) + log(set_dpu(0)))
    s["faults"] = alloc(16) + b"".join(checked_run(0, single=k, fault=k, arg=0 if k != 3 else 0x0c000000)
                                       for k in range(1, 9))
    s["mutated-images"] = (alloc(8) + load_mem_mutated(set_slot(0), [mut_symbol(0, False, 18)]) +
                           launch(set_slot(0)) +
                           load_mem_mutated(set_slot(0), [mut_symbol(2, False, 11)]) + launch(set_slot(0)) +
                           load_mem_mutated(set_slot(0), [mut_symbol(3, False, 11)]) + launch(set_slot(0)) +
                           load_mem_mutated(set_slot(0), [mut_code(0x40, 0xcc), mut_code(0x80, 0x0f)]) +
                           launch(set_slot(0)) +
                           load_mem_mutated(set_slot(0), [mut_truncate(500000)]))
    s["profiles"] = b"".join(alloc(1, p) + free(set_slot(0)) for p in PROFILES) + \
        b(OP["alloc"], 0, 255, 1) + free(set_slot(0))
    # fixed: sdk/xfer.c check_access tested off + len <= size in 64 bits, which wraps: copy_to of
    # (size_t)-8 bytes at offset 8 of the MRAM heap succeeded, copy_from of it crashed the host
    heap = "__sys_used_mram_end"
    s["regress-overflow-copies"] = (alloc(16) + load_path(set_slot(0)) + iterate(0, 16) +
                                    overflow(set_dpu(0), 0, ovf_wrap(0), off=8) +
                                    overflow(set_dpu(1), 2, ovf_wrap(0), off=8) +
                                    overflow(set_slot(0), 1, ovf_wrap(8), off=16) +
                                    overflow(set_dpu(2), 0, ovf_wrap(0), sym="words", off=4) +
                                    overflow(set_dpu(2), 2, ovf_wrap(4), sym="words", off=0xfffffffc) +
                                    overflow(set_dpu(3), 0, ovf_len((1 << 32) + 8), sym="m_out") +
                                    overflow(set_dpu(3), 3, ovf_wrap(0), given=(0x08000000, 0xffffffff), off=8) +
                                    overflow(set_dpu(3), 5, ovf_len(1 << 63), given=(0x10000000, 0xffffffff)) +
                                    overflow(set_slot(0), 4, ovf_wrap(0), given=(0x08000000, 0xffffffff), off=64) +
                                    overflow(set_slot(0), 6, ovf_wrap(0), off=8) +
                                    overflow(set_slot(0), 7, ovf_wrap(0), off=8))
    # fixed: sdk/xfer.c sg_push copied the blocks of the first DPUs before finding those of a later
    # one wrong (and the same bound as above)
    s["regress-overflow-sg"] = (alloc(16, "sg") + load_path(set_slot(0)) +
                                overflow(set_slot(0), 8, ovf_wrap(0), off=8, extra=b(0, 0, 0)) +
                                overflow(set_slot(0), 8, ovf_len(16), off=0, extra=b(0, 0, 200, 0)) +
                                overflow(set_slot(0), 8, ovf_len(16), off=0, extra=b(1, 0, 200, 0)))
    s["regress-overflow-rank-view"] = (alloc_alt(64) +
                                       overflow(set_slot(0), 9, ovf_len(64), off=(1 << 64) - 8, extra=b(0, 0)) +
                                       overflow(set_slot(0), 9, ovf_wrap(0), off=8, extra=b(0, 1)))
    return s


# ---- small ELF images for fuzz_image.c (raw mode) ---------------------------------------

def elf(sections, symbols, shoff_misalign=0, sym_misalign=0):
    """An ELF32 x86-64 image (the DPU driver's x32 output).
    sections: (name, type, flags, addr, data or size); symbols: (name, value, size, shndx)."""
    shstr = b"\0" + b"".join(n.encode() + b"\0" for n, *_ in sections) + b".symtab\0.strtab\0.shstrtab\0"
    strtab = b"\0" + b"".join(n.encode() + b"\0" for n, *_ in symbols)
    body = bytearray(52)
    hdrs = []
    for name, typ, flags, addr, data in sections:
        off = len(body)
        size = data if isinstance(data, int) else len(data)
        if not isinstance(data, int):
            body += data
        while len(body) % 4:
            body.append(0)
        hdrs.append((shstr.index(name.encode() + b"\0"), typ, flags, addr, off, size, 0, 0, 4, 0))
    body += bytes(sym_misalign)
    symoff = len(body)
    body += bytes(16)  # null symbol
    soff = 1
    for name, value, size, shndx in symbols:
        body += struct.pack("<IIIBBH", soff, value, size, 0x11, 0, shndx)
        soff += len(name) + 1
    symsize = len(body) - symoff
    stroff = len(body)
    body += strtab
    shstroff = len(body)
    body += shstr
    while len(body) % 4:
        body.append(0)
    body += bytes(shoff_misalign)
    shoff = len(body)
    nsec = len(sections) + 4
    symidx = len(sections) + 1
    hdrs.append((shstr.index(b".symtab\0"), 2, 0, 0, symoff, symsize, symidx + 1, 1, 4, 16))
    hdrs.append((shstr.index(b".strtab\0"), 3, 0, 0, stroff, len(strtab), 0, 0, 1, 0))
    hdrs.append((shstr.index(b".shstrtab\0"), 3, 0, 0, shstroff, len(shstr), 0, 0, 1, 0))
    body += bytes(40)
    for h in hdrs:
        body += struct.pack("<IIIIIIIIII", *h)
    ident = b"\x7fELF" + bytes([1, 1, 1]) + bytes(9)
    eh = ident + struct.pack("<HHIIIIIHHHHHH", 2, 62, 1, 0x20000000, 0, shoff, 0, 52, 0, 0, 40, nsec, nsec - 1)
    body[0:52] = eh
    return bytes(body)


RUNTIME = [("__op_nr_tasklets", 4, 0), ("__op_wram_size", 65536, 0), ("__op_stack_total", 4096, 0),
           ("__op_accounting", 0, 0), ("__op_heap_start", 0x10000100, 0), ("__sys_used_mram_end", 0x08000010, 0),
           ("__op_env", 0x20001000, 4), ("__op_boot", 0x20000000, 1), ("__op_tasklet_main", 0x20000001, 1),
           ("__op_icount", 0x20001008, 8), ("words", 0x10000000, 64), ("m_init", 0x08000000, 16)]
SECTIONS = [(".text", 1, 6, 0x20000000, b"\xc3\xc3" + bytes(14)), (".opbss", 8, 3, 0x20001000, 0x100),
            (".data", 1, 3, 0x10000000, bytes(range(64))), (".bss", 8, 3, 0x10000040, 0x40),
            (".mram", 1, 3, 0x08000000, bytes(16))]


def small_image(**kw):
    return elf(SECTIONS, [(n, v, s, 1 if v >= 0x20000000 else 3 if v >= 0x10000000 else 5)
                          for n, v, s in RUNTIME], **kw)


def image_seeds():
    s = {}
    s["small-valid"] = b"\0" + small_image()
    s["regress-misaligned-shoff"] = b"\0" + small_image(shoff_misalign=4)
    s["regress-misaligned-symtab"] = b"\0" + small_image(sym_misalign=4)
    nobits_text = [(".text", 8, 6, 0x20000000, 0x4000)] + SECTIONS[1:]
    s["regress-nobits-code"] = b"\0" + elf(nobits_text, [(n, v, sz, 1 if v >= 0x20000000 else 3) for n, v, sz in RUNTIME])
    s["truncated-header"] = b"\0\x7fELF\x01\x01\x01"
    # mutation lists on the valid image: (kind, u32 at, value of 1 << (kind >> 6) bytes)
    s["mut-shdr-fields"] = b"\1" + b"".join(bytes([0x85]) + u32(i | (3 << 16)) + u32(0x40000000) for i in range(10))
    s["mut-symtab"] = b"\1" + b"".join(bytes([0x83]) + u32(16 * i + 4) + u32(0xffffffff) for i in range(1, 40, 3))
    s["mut-truncate"] = b"\1" + bytes([4]) + u32(1150000)
    return s


def write(dirname, seeds):
    d = os.path.join(HERE, dirname)
    os.makedirs(d, exist_ok=True)
    for name, data in seeds.items():
        with open(os.path.join(d, name), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    write("corpus-api", api_seeds())
    write("corpus-image", image_seeds())
