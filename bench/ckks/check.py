#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Compares a product dumped by bench_ckks (PREFIX.in / PREFIX.out) with the Python
reference (workloads/ckks/tests/ckks_ref.py), word for word:
    bench/ckks/check.py PREFIX
Prints one line; exits 1 on any difference."""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "workloads", "ckks", "tests"))
import ckks_ref as ref  # noqa: E402


def main(prefix):
    raw = np.fromfile(prefix + ".in", dtype="<u4")
    n, L, K, dnum, bits, dpus, _mul, count, _rep = (int(v) for v in raw[:9])
    par = ref.Params(n, L, K, dnum, bits)
    k, words = par.k, count * par.k * n
    arrs = [raw[9 + i * words: 9 + (i + 1) * words].reshape(count, k, n).astype(np.uint64) for i in range(4)]
    key = raw[9 + 4 * words:].reshape(dnum, 2, k, n).astype(np.uint64)
    out = np.fromfile(prefix + ".out", dtype="<u4").reshape(2, count, k, n).astype(np.uint64)
    bad = 0
    for c in range(count):
        a = np.stack([arrs[0][c], arrs[1][c]])
        b = np.stack([arrs[2][c], arrs[3][c]])
        want = ref.multiply(par, a, b, key)
        bad += int(np.count_nonzero(out[:, c] != want))
    print("check n=%d L=%d K=%d dnum=%d dpus=%d count=%d: %s" % (n, L, K, dnum, dpus, count,
          "bit-exact with the Python reference" if bad == 0 else "%d WORDS DIFFER" % bad))
    return 1 if bad else 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit("usage: check.py PREFIX")
    sys.exit(main(sys.argv[1]))
