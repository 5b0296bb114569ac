#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""checksum with the Python host API: the host side of examples/checksum in
Python, on the same DPU program, with the same input and the same output line.

Writes one buffer (8 MiB by default) into the MRAM array dpu_mram_buffer of
all DPUs (a broadcast); each DPU checksums its share, per tasklet; the host
checks every tasklet's result, their total, and the line tasklet 0 of the
first DPU prints.

    source build/sdk/upmem_env.sh
    make -C examples/checksum NR_TASKLETS=16       # builds bin/dpu_task
    cd examples/checksum && python3 ../../python/examples/checksum.py -d 64 [-n bytes] [-v]
"""

import argparse
import io
import struct
import sys

from dpu import DpuSet

EXAMPLE = "checksum"
BUFFER_SIZE = 8 << 20
RESULT = struct.Struct("<QQII")  # dpu_result_t: checksum, cycles, nr_bytes, reserved
ARGUMENTS = struct.Struct("<II")  # dpu_arguments_t: first_byte, nr_bytes
MASK64 = (1 << 64) - 1


def fail(message):
    print(f"[ERROR] {EXAMPLE}: {message}")
    sys.exit(1)


def make_input(size):
    """The C example's bytes: the top byte of each step of a 64-bit LCG (Knuth's MMIX constants)."""
    state = 0x5EED0007
    out = bytearray(size)
    for p in range(size):
        state = (state * 6364136223846793005 + 1442695040888963407) & MASK64
        out[p] = state >> 56
    return out


def host_checksum(buffer, start, length):
    """Sum of (p + 1) * buffer[p] over [start, start + length)."""
    return sum((p + 1) * buffer[p] for p in range(start, start + length))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-d", type=int, default=64, dest="nr_dpus", help="DPUs to allocate")
    parser.add_argument("-n", type=int, default=BUFFER_SIZE, dest="size", help="bytes (a multiple of 8, <= 8 MiB)")
    parser.add_argument("-v", action="store_true", dest="verbose", help="print the first DPU's log")
    parser.add_argument("--binary", default="./bin/dpu_task", help="the DPU program")
    args = parser.parse_args()
    if args.nr_dpus <= 0:
        fail(f"invalid DPU count '{args.nr_dpus}'")
    if args.size <= 0 or args.size % 8 or args.size > BUFFER_SIZE:
        fail(f"the size must be a multiple of 8 and at most {BUFFER_SIZE} bytes")
    size, nr_dpus = args.size, args.nr_dpus

    buffer = make_input(size)
    words = size // 8
    shares = []  # (first_byte, nr_bytes) per DPU
    for d in range(nr_dpus):
        extra = words % nr_dpus
        first_word = d * (words // nr_dpus) + min(d, extra)
        shares.append((first_word * 8, (words // nr_dpus + (1 if d < extra else 0)) * 8))

    with DpuSet(nr_dpus=nr_dpus) as dpus:
        if len(dpus) != nr_dpus:
            fail(f"asked for {nr_dpus} DPUs, got {len(dpus)}")
        program = dpus.load(args.binary)
        # the program's tasklet count is the size of its per-tasklet result array
        nr_tasklets = program.get_symbol("dpu_wram_results").size() // RESULT.size
        block_bytes = 2048 if nr_tasklets <= 16 else 1024

        dpus.copy("dpu_mram_buffer", buffer[:size])  # one buffer: a broadcast
        dpus.copy("DPU_INPUT_ARGUMENTS", [ARGUMENTS.pack(*share) for share in shares])
        dpus.exec()
        results = [bytearray(RESULT.size * nr_tasklets) for _ in dpus]
        dpus.copy(results, "dpu_wram_results")
        log = io.StringIO()
        dpus.dpus()[0].log(log)
    log_text = log.getvalue()
    if args.verbose:
        print(f"--- log of DPU 0 ---\n{log_text}--- end of log ---")

    total, errors, max_cycles, first_bad = 0, 0, 0, None
    for d, (first, nbytes) in enumerate(shares):
        for t in range(nr_tasklets):
            expected, expected_bytes = 0, 0
            for offset in range(t * block_bytes, nbytes, nr_tasklets * block_bytes):
                length = min(nbytes - offset, block_bytes)
                expected += host_checksum(buffer, first + offset, length)
                expected_bytes += length
            checksum, cycles, done, _ = RESULT.unpack_from(results[d], t * RESULT.size)
            total = (total + checksum) & MASK64
            max_cycles = max(max_cycles, cycles)
            if checksum != expected & MASK64 or done != expected_bytes:
                errors += 1
                first_bad = first_bad or (d, t, checksum, expected & MASK64)
    if errors:
        d, t, value, expected = first_bad
        fail(f"{errors} tasklet results differ; first: DPU {d} tasklet {t} = 0x{value:016x}, "
             f"expected 0x{expected:016x}")
    expected_total = host_checksum(buffer, 0, size) & MASK64
    if total != expected_total:
        fail(f"total 0x{total:016x}, expected 0x{expected_total:016x}")
    checksum0, _, bytes0, _ = RESULT.unpack_from(results[0], 0)
    line = f"tasklet 0: checksum 0x{checksum0:016x} over {bytes0} bytes"
    if line + "\n" not in log_text:
        fail(f'the log of DPU 0 ({len(log_text)} bytes) lacks the line "{line}"')
    print(f"[OK] {EXAMPLE}: checksum 0x{total:016x} of {size} bytes on {nr_dpus} DPUs, {nr_tasklets} tasklets, "
          f"DPU log checked (max {max_cycles} cycles)")


if __name__ == "__main__":
    main()
