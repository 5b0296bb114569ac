#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Randomized differential test of the HE library (run by CTest: test_he_fuzz.py HE_CLI).

Each case draws its own shape from its seed and compares he_cli's result exactly
with an independent reference: the pure-Python reference (he_ref.py: NTT by
evaluation order, Kronecker products), numpy for the element-wise operations and
Microsoft SEAL (seal-python) for BGV ciphertexts:
  - n = 2^10 ... 2^16, k = 1 ... 5 moduli each of a random width from the
    smallest NTT-friendly one up to 32 bits (mixed widths, so that the 30-bit
    and the 32-bit kernels both run), in a random order;
  - DPUs not a multiple of k (unused DPUs, uneven sub-polynomial counts), more
    polynomials than DPUs, both multiply variants;
  - values: random, 0, 1, q - 1 and q - 2 in runs;
  - SEAL's BGV at CoeffModulus.Create(n, random widths <= 32) as it is:
    NTT form, iNTT, the ciphertext product and relinearisation;
  - the 2D NTT with random group sizes;
  - refusals: a composite modulus, one not 1 mod 2n, a repeated one, fewer
    DPUs than moduli: he_cli must fail with the library's reason.
Environment: OPENPIM_FUZZ_SEED (master seed), OPENPIM_FUZZ_CASES (default 60),
OPENPIM_FUZZ_SECONDS (long mode: a random master seed, cases until the time is
up).  A failing case prints its seed; OPENPIM_FUZZ_ONE=1 with
OPENPIM_FUZZ_SEED=<it> reruns it alone.
"""
import os
import random
import subprocess
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import he_ref as ref  # noqa: E402
import test_he as th  # noqa: E402

MUL_CUSTOM, MUL_NATIVE = th.MUL_CUSTOM, th.MUL_NATIVE


def random_moduli(rng, n, k):
    """k distinct NTT-friendly primes of random widths in [log2(2n) + 2, 32], in random order."""
    lo = (2 * n).bit_length() + 1
    out = set()
    while len(out) < k:
        bits = rng.choice([32, 32, 31, 30, rng.randint(lo, 32)])
        cands = ref.ntt_friendly_primes(n, 4, bits)
        if cands:
            out.add(rng.choice(cands))
    out = list(out)
    rng.shuffle(out)
    return out


def values(rng, count, moduli, n):
    a = th.random_array(rng, count, moduli, n)
    for p in range(count):
        for i, q in enumerate(moduli):
            for _ in range(rng.randint(0, 3)):  # runs of edge values
                at, run = rng.randrange(n), rng.randint(1, 64)
                a[p, i, at:at + run] = rng.choice([0, 1, q - 1, q - 2])
    return a


def case_ops(rng, cli, tag):
    n = 1 << rng.choice([10, 10, 11, 12, 13, 14, 16])
    k = rng.randint(1, 5 if n <= 8192 else 2)
    moduli = random_moduli(rng, n, k)
    count = rng.randint(1, 6 if n <= 8192 else 2)
    dpus = k * rng.randint(1, 3) + rng.randint(0, k - 1)
    mul = rng.choice([MUL_CUSTOM, MUL_NATIVE])
    op = rng.choice(["ntt", "intt", "ntt_intt", "add", "sub", "neg", "mul"] + (["polymul"] if n <= 2048 else []))
    a, b = values(rng, count, moduli, n), values(rng, count, moduli, n)
    qs = np.array(moduli, dtype=np.uint64)[None, :, None]
    a64, b64 = a.astype(np.uint64), b.astype(np.uint64)
    tag += " %s n=%d moduli=%s count=%d dpus=%d mul=%d" % (op, n, moduli, count, dpus, mul)
    if op == "ntt_intt":
        (fwd, back), _ = th.run_cli(cli, op, n, moduli, dpus, mul, [a])
        th.same(fwd, th.ref_each(ref.ntt, a, moduli), tag + " forward")
        th.same(back, a, tag + " inverse(forward(a)) = a")
        return
    inputs = [a] if op in ("ntt", "intt", "neg") else [a, b]
    (got,), _ = th.run_cli(cli, op, n, moduli, dpus, mul, inputs)
    if op == "ntt":
        want = th.ref_each(ref.ntt, a, moduli)
    elif op == "intt":
        want = th.ref_each(ref.intt, a, moduli)
    elif op == "polymul":
        want = np.array([[ref.negacyclic_kronecker([int(x) for x in a[p, i]], [int(x) for x in b[p, i]], q)
                          for i, q in enumerate(moduli)] for p in range(count)], dtype=np.uint32)
    else:
        want = {"add": (a64 + b64) % qs, "sub": (a64 + qs - b64) % qs, "neg": (qs - a64) % qs,
                "mul": (a64 * b64) % qs}[op].astype(np.uint32)
    th.same(got, want, tag)


def case_seal(rng, cli, tag):
    import seal
    n = 1 << rng.choice([10, 11, 12, 13])
    k = rng.randint(2, 4)
    lo = max(20, (2 * n).bit_length() + 1)
    bits = [rng.choice([32, 32, 31, rng.randint(lo, 32)]) for _ in range(k + 1)]
    mul = rng.choice([MUL_CUSTOM, MUL_NATIVE])
    nrng = np.random.default_rng(rng.getrandbits(32))
    tag += " SEAL n=%d CoeffModulus.Create(%s)" % (n, bits)
    try:
        parms = seal.EncryptionParameters(seal.scheme_type.bgv)
        parms.set_poly_modulus_degree(n)
        parms.set_coeff_modulus(seal.CoeffModulus.Create(n, bits))
        parms.set_plain_modulus(seal.PlainModulus.Batching(n, 20))
        usable = seal.SEALContext(parms, True, seal.sec_level_type.none).parameters_set()
    except (ValueError, RuntimeError):  # SEAL has too few primes of these widths for n
        usable = False
    if not usable:  # e.g. a 20-bit coefficient prime equal to the plain modulus: SEAL refuses, not a case
        return
    dpus = k * rng.randint(1, 2) + rng.randint(0, k - 1)
    if rng.random() < 0.5:
        th.bgv_seal_case(cli, seal, nrng, n, mul, bits, dpus, decrypt=False)
    else:
        th.relin_seal_case(cli, seal, nrng, n, bits, rng.randint(0, 1), mul, count=rng.randint(1, 2), decrypt=False)


def case_2d(rng, cli, tag):
    n = 1 << rng.choice([10, 11, 12, 13, 14])
    k = rng.randint(1, 3)
    moduli = random_moduli(rng, n, k)
    count = rng.randint(1, 4)
    log_n2 = (n.bit_length() - 1) // 2  # the rows' length: group sizes divide it
    g = 1 << rng.randint(0, min(log_n2, 4))
    dpus = g * rng.randint(1, 4)
    mul = rng.choice([MUL_CUSTOM, MUL_NATIVE])
    op = rng.choice(["ntt2d", "intt2d"])
    a = values(rng, count, moduli, n)
    tag += " %s n=%d moduli=%s count=%d dpus=%d g=%d mul=%d" % (op, n, moduli, count, dpus, g, mul)
    got, _ = th.run_2d(cli, n, moduli, dpus, g, mul, a, op=op)
    th.same(got, th.ref_each(ref.ntt if op == "ntt2d" else ref.intt, a, moduli), tag)


def case_refused(rng, cli, tag):
    n = 1 << rng.choice([10, 12, 13])
    moduli = random_moduli(rng, n, rng.randint(2, 4))
    dpus = len(moduli)
    what = rng.choice(["composite", "not friendly", "repeated", "dpus"])
    if what == "composite":
        moduli[rng.randrange(len(moduli))] = (2 * n + 1) * (4 * n + 1)  # = 1 mod 2n
        want = "not prime"
    elif what == "not friendly":
        q = next(q for q in range(2 ** 31 + 1, 2 ** 32, 2) if ref.is_prime(q) and (q - 1) % (2 * n))
        moduli[rng.randrange(len(moduli))] = q
        want = "NTT-friendly"
    elif what == "repeated":
        moduli[-1] = moduli[0]
        want = "twice"
    else:
        dpus = len(moduli) - 1
        want = "DPU"
    a = np.zeros((1, len(moduli), n), dtype=np.uint32)
    with tempfile.TemporaryDirectory() as d:
        fin, fout = os.path.join(d, "in.bin"), os.path.join(d, "out.bin")
        hdr = np.array([n, len(moduli), dpus, MUL_CUSTOM, 1, 1, 0, 0] + moduli, dtype="<u4")
        with open(fin, "wb") as f:
            f.write(hdr.tobytes() + a.tobytes())
        r = subprocess.run([cli, "ntt", fin, fout], capture_output=True, text=True)
        wrote = os.path.exists(fout)
    th.check(r.returncode == 1 and want in r.stderr and not wrote,
             "%s refusal (%s, moduli %s, %d DPUs): status %d, %r" % (tag, what, moduli, dpus, r.returncode,
                                                                     r.stderr.strip()))


CASES = [(case_ops, 6), (case_seal, 2), (case_2d, 2), (case_refused, 1)]


def run_case(cli, seed):
    rng = random.Random(seed)
    fn = rng.choices([c for c, _ in CASES], [w for _, w in CASES])[0]
    before = th.failures
    try:
        fn(rng, cli, "case seed %d:" % seed)
    except SystemExit as e:  # he_cli failed (th.run_cli): a failure of this case, not the end of the run
        th.check(False, "case seed %d: %s" % (seed, e))
    if th.failures != before:
        print("FAILED case seed %d (OPENPIM_FUZZ_ONE=1 OPENPIM_FUZZ_SEED=%d)" % (seed, seed), flush=True)
    return fn.__name__


def main():
    if len(sys.argv) != 2:
        raise SystemExit("usage: test_he_fuzz.py HE_CLI")
    cli = os.path.abspath(sys.argv[1])
    seconds = float(os.environ.get("OPENPIM_FUZZ_SECONDS", "0"))
    master = os.environ.get("OPENPIM_FUZZ_SEED")
    master = int(master, 0) if master else (random.SystemRandom().getrandbits(48) if seconds > 0 else 20261128)
    print("test_he_fuzz: master seed %d%s" % (master, " (long mode)" if seconds > 0 else ""), flush=True)
    counts, t0 = {}, time.monotonic()
    if os.environ.get("OPENPIM_FUZZ_ONE"):
        seeds = iter([master])
    else:
        mrng = random.Random(master)
        cases = int(os.environ.get("OPENPIM_FUZZ_CASES", "60"))
        seeds = (mrng.getrandbits(48) for i in (iter(int, 1) if seconds > 0 else range(cases)))
    for seed in seeds:
        if seconds > 0 and time.monotonic() - t0 >= seconds:
            break
        name = run_case(cli, seed)
        counts[name] = counts.get(name, 0) + 1
    print("test_he_fuzz: %s in %.1f s, %d failures (master seed %d)"
          % (", ".join("%d %s" % (v, k[5:]) for k, v in sorted(counts.items())), time.monotonic() - t0,
             th.failures, master))
    sys.exit(1 if th.failures else 0)


if __name__ == "__main__":
    main()
