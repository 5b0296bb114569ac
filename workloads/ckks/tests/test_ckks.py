#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Checks of the CKKS multiplication on the DPUs (run by CTest: test_ckks.py MODE CKKS_CLI).

MODE ref      the reference itself: NTT against naive evaluation at the odd powers of psi,
              negacyclic products against schoolbook, the fast base conversion against its
              definition (x + u Q_F, 0 <= u < |F|) with big integers, encode/decode
MODE moduli   the moduli ckks_cli uses = the reference's (largest primes = 1 mod 2n)
MODE exact2d  the same on the 2D layout (each limb over g DPUs, resident; openpim_ckks2d_*), g = 1 .. n2
MODE exact    random ciphertexts and keys (words uniform, the extension limbs of the inputs
              garbage): every output word equal to the reference's, several (n, L, K, dnum),
              batches, DPUs per limb, both multiply variants
MODE baseconv he's base conversion alone (added to he for this workload): moduli of 22, 26
              and 30 bits (both kernel paths), sources and targets in any order, batches
MODE decrypt  real keys and encryptions of random complex slots: the DPU product equal to the
              reference's bit for bit, and its decryption = the slot-wise product within
              2^-12 (absolute, slots of modulus <= 1)

Every DPU result is compared exactly; any difference fails the test.
"""
import os
import subprocess
import sys
import tempfile

import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
sys.path.insert(0, os.path.join(here, "..", "..", "..", "he", "tests"))
import ckks_ref as ref  # noqa: E402
import he_ref  # noqa: E402  (the HE library's independent NTT reference, for a cross-check)

failures = 0


def check(cond, what):
    global failures
    if not cond:
        failures += 1
        print("FAIL:", what, flush=True)
    return cond


def same(got, want, what):
    ok = got.shape == want.shape and np.array_equal(got, want)
    if not ok and got.shape == want.shape:
        idx = np.argwhere(got != want)
        what += " (%d words differ, first at %s: %d != %d)" % (len(idx), tuple(idx[0]), got[tuple(idx[0])],
                                                               want[tuple(idx[0])])
    return check(ok, what)


def run_cli(cli, par, nr_dpus, mul, a, b, key, repeat=1, group_2d=0):
    """a, b: (count, 2, k, n); key (dnum, 2, k, n).  Returns (count, 2, k, n) and the step lines.
    group_2d > 0: the 2D layout's multiplication with that many DPUs per limb."""
    count = a.shape[0]
    with tempfile.TemporaryDirectory() as d:
        fin, fout = os.path.join(d, "in.bin"), os.path.join(d, "out.bin")
        hdr = np.array([par.n, par.L, par.K, par.dnum, par.bits, nr_dpus, mul, count, repeat], dtype="<u4")
        with open(fin, "wb") as f:
            f.write(hdr.tobytes())
            for arr in (a[:, 0], a[:, 1], b[:, 0], b[:, 1]):
                f.write(np.ascontiguousarray(arr, dtype="<u4").tobytes())
            f.write(np.ascontiguousarray(key, dtype="<u4").tobytes())
        cmd = [cli, "multiply2d", fin, fout, str(group_2d)] if group_2d else [cli, "multiply", fin, fout]
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            raise SystemExit("ckks_cli multiply failed:\n%s%s" % (r.stdout, r.stderr))
        out = np.fromfile(fout, dtype="<u4").reshape(2, count, par.k, par.n).transpose(1, 0, 2, 3)
        return out.astype(np.uint64), r.stdout


def random_ct(par, rng, count):
    return np.stack([np.stack([np.stack([rng.integers(0, q, par.n) for q in par.moduli]) for _ in range(2)])
                     for _ in range(count)]).astype(np.uint64)


# ---- modes -------------------------------------------------------------------------------------------


def mode_ref(_cli):
    rng = np.random.default_rng(1)
    for n, q in ((16, 97), (1024, ref.primes(1024, 1, 30)[0]), (64, ref.primes(64, 1, 20)[0])):
        t = ref.Ntt(q, n)
        psi = ref.minimal_root(q, n)
        check(psi == he_ref.minimal_root(q, n), "minimal root of %d (n=%d) vs he_ref" % (q, n))
        a = rng.integers(0, q, n).astype(np.uint64)
        f = t.forward(a)
        logn = n.bit_length() - 1
        for j in (range(n) if n <= 64 else rng.integers(0, n, 16)):
            x = pow(psi, 2 * int(j) + 1, q)
            naive = sum(int(a[i]) * pow(x, i, q) for i in range(n)) % q
            if not check(int(f[ref.bitrev(int(j), logn)]) == naive, "NTT slot %d, n=%d q=%d" % (j, n, q)):
                break
        same(t.inverse(f), a, "iNTT(NTT(a)) = a, n=%d" % n)
        b = rng.integers(0, q, n).astype(np.uint64)
        prod = t.inverse(f * t.forward(b) % np.uint64(q))
        school = [0] * n
        for i in range(n):
            for j in range(n):
                v = int(a[i]) * int(b[j])
                if i + j < n:
                    school[i + j] += v
                else:
                    school[i + j - n] -= v
        same(prod, np.array([v % q for v in school], dtype=np.uint64), "negacyclic product, n=%d" % n)
        if n >= 1024:
            same(f, np.array(he_ref.ntt([int(v) for v in a], q), dtype=np.uint64), "NTT vs he_ref, n=%d" % n)
    # base conversion: y = x + u Q_F (0 <= u < |F|) for x in [0, Q_F)
    par = ref.Params(1024, 4, 3, 5, 30)
    src, dst = [0, 1, 2], [3, 4, 5, 6, 7]
    x = {i: rng.integers(0, par.moduli[i], par.n).astype(np.uint64) for i in src}
    y = ref.base_convert(par, x, src, dst)
    qf = par.moduli[0] * par.moduli[1] * par.moduli[2]
    for c in range(0, par.n, 97):
        big = 0  # CRT of the source residues
        for i in src:
            q = par.moduli[i]
            qh = qf // q
            big += int(x[i][c]) * qh * pow(qh % q, q - 2, q)
        big %= qf
        u = None
        for cand in range(len(src)):
            if all(int(y[j][c]) == (big + cand * qf) % par.moduli[j] for j in dst):
                u = cand
        check(u is not None, "base conversion of coefficient %d is x + u Q_F, 0 <= u < 3" % c)
    # encode / decode
    z = rng.uniform(-1, 1, 512) + 1j * rng.uniform(-1, 1, 512)
    back = ref.decode(1024, ref.encode(1024, z, 2.0 ** 30), 2.0 ** 30)
    check(np.max(np.abs(back - z)) < 1e-6, "decode(encode(z)) = z (%.2g)" % np.max(np.abs(back - z)))
    # encoding is a ring homomorphism: slot-wise product = negacyclic product of the encodings
    z2 = rng.uniform(-1, 1, 512) + 1j * rng.uniform(-1, 1, 512)
    m1, m2 = ref.encode(1024, z, 2.0 ** 20), ref.encode(1024, z2, 2.0 ** 20)
    prod = np.zeros(1024)
    for i in range(1024):
        prod[i:] += m1[i] * m2[:1024 - i]
        prod[:i] -= m1[i] * m2[1024 - i:]
    check(np.max(np.abs(ref.decode(1024, prod, 2.0 ** 40) - z * z2)) < 1e-4, "encode is multiplicative")


def mode_moduli(cli):
    for n, L, K, dnum in ((1024, 2, 1, 3), (4096, 5, 3, 3), (65536, 23, 8, 3)):
        out = subprocess.run([cli, "moduli", str(n), str(L), str(K), str(dnum), "30"], capture_output=True,
                             text=True, check=True).stdout.split()
        check([int(v) for v in out] == ref.primes(n, L + 1 + K, 30), "moduli n=%d k=%d" % (n, L + 1 + K))


# (n, L, K, dnum, nr_dpus, count, mul)
EXACT_CASES = [
    (1024, 2, 1, 3, 4, 1, 0),     # alpha = 1: each digit one limb
    (1024, 3, 2, 2, 12, 3, 0),    # 2 DPUs per limb, 3 ciphertexts: uneven slots
    (2048, 5, 3, 3, 9, 2, 1),     # native multiplies
    (4096, 3, 4, 1, 8, 1, 0),     # dnum = 1: one digit of all limbs
    (4096, 7, 2, 4, 10, 2, 0),    # K < alpha
]


def mode_exact(cli):
    rng = np.random.default_rng(12)
    for n, L, K, dnum, dpus, count, mul in EXACT_CASES:
        par = ref.Params(n, L, K, dnum, 30)
        a, b = random_ct(par, rng, count), random_ct(par, rng, count)
        key = np.stack([np.stack([np.stack([rng.integers(0, q, n) for q in par.moduli]) for _ in range(2)])
                        for _ in range(dnum)]).astype(np.uint64)
        got, text = run_cli(cli, par, dpus, mul, a, b, key)
        for c in range(count):
            want = ref.multiply(par, a[c], b[c], key)
            same(got[c], want, "n=%d L=%d K=%d dnum=%d dpus=%d mul=%d: ciphertext %d" % (n, L, K, dnum, dpus, mul, c))
        steps = [ln for ln in text.splitlines() if ln.startswith("step ")]
        # 1 tensor + 1 iNTT + dnum (conv, relay, NTT, 2 mult) + (dnum-1) 2 adds + 2 (ModDown 7) + 2 (rescale 6)
        check(len(steps) == 2 + 5 * dnum + 2 * (dnum - 1) + 14 + 12, "step count %d" % len(steps))
        # a second identical run (repeat) gives the same modelled time: deterministic
        if n == 1024 and count == 1:
            _, text2 = run_cli(cli, par, dpus, mul, a, b, key, repeat=2)
            # (the first step's launch may overlap the uploads before it; every later step is the same)
            check(text2.splitlines()[1:] == text.splitlines()[1:-1] + text2.splitlines()[-1:] and
                  text2.splitlines()[1:-1] == text.splitlines()[1:-1], "modelled steps repeatable")
        print("n=%d L=%d K=%d dnum=%d dpus=%d count=%d mul=%d: exact; %s" % (n, L, K, dnum, dpus, count, mul,
                                                                            text.splitlines()[-1]), flush=True)


# (n, L, K, dnum, DPUs per limb, count, mul)
EXACT_2D_CASES = [
    (1024, 2, 1, 3, 2, 1, 0),     # alpha = 1: each digit one limb
    (1024, 3, 2, 2, 4, 3, 0),     # 3 ciphertexts: 3 residues per group
    (2048, 5, 3, 3, 1, 2, 1),     # g = 1 (each limb whole on one DPU), native multiplies
    (4096, 3, 4, 1, 8, 1, 0),     # dnum = 1: one digit of all limbs
    (2048, 7, 2, 4, 32, 1, 0),    # g = n2 = 32: each DPU two columns and one row of each limb; K < alpha
]


def mode_exact2d(cli):
    """The 2D layout (each limb over g DPUs, resident): every word equal to the reference's; the
    breakdown's steps and categories add up; a second run gives the same modelled steps."""
    rng = np.random.default_rng(21)
    for n, L, K, dnum, g, count, mul in EXACT_2D_CASES:
        par = ref.Params(n, L, K, dnum, 30)
        a, b = random_ct(par, rng, count), random_ct(par, rng, count)
        key = np.stack([np.stack([np.stack([rng.integers(0, q, n) for q in par.moduli]) for _ in range(2)])
                        for _ in range(dnum)]).astype(np.uint64)
        got, text = run_cli(cli, par, 0, mul, a, b, key, group_2d=g)
        what = "2D n=%d L=%d K=%d dnum=%d g=%d count=%d mul=%d" % (n, L, K, dnum, g, count, mul)
        for c in range(count):
            same(got[c], ref.multiply(par, a[c], b[c], key), "%s: ciphertext %d" % (what, c))
        steps = [ln.split(" | ") for ln in text.splitlines() if ln.startswith("step ")]
        # tensor 4; each (i)NTT and conversion 2 (launches, Inter-DPU): iNTT d2, dnum (conv, NTT, 2 products),
        # 2 ModDown (iNTT, conv, NTT, sub, mult, add), 2 rescale (iNTT, conv, NTT, sub, mult)
        check(len(steps) == 4 + 2 + dnum * 6 + 2 * 9 + 2 * 8, "%s: step count %d" % (what, len(steps)))
        total = float(text.splitlines()[-1].split()[1])
        check(abs(sum(float(s[2]) for s in steps) - total) < 1e-6 * total, "%s: steps add up to the total" % what)
        inter = [s for s in steps if s[1] == "Inter-DPU"]
        check(len(inter) == 1 + 2 * dnum + 2 * 3 + 2 * 3 and all(float(s[2]) > 0 for s in inter),
              "%s: every All-to-All and relay is Inter-DPU" % what)
        if n == 1024 and count == 1:
            _, text2 = run_cli(cli, par, 0, mul, a, b, key, repeat=2, group_2d=g)
            # every step but the first is the same: the first one's launch hands the freshly uploaded
            # inputs' MRAM to the DPUs, a repeat finds it there (the run before ended with a kernel)
            lines, lines2 = text.splitlines(), text2.splitlines()
            check(lines[0].startswith("step ") and lines2[1:-1] == lines[1:-1], "%s: modelled steps repeatable" % what)
            first_diff = float(lines[0].split(" | ")[2]) - float(lines2[0].split(" | ")[2])
            check(abs(total - float(lines2[-1].split()[1]) - first_diff) < 1e-2 and first_diff >= 0,
                  "%s: a repeat's total differs by its first step alone" % what)
        print("%s: exact; %s" % (what, text.splitlines()[-1]), flush=True)


def mode_decrypt(cli):
    rng = np.random.default_rng(5)
    for n, L, K, dnum, dpus in ((1024, 2, 1, 3, 4), (2048, 3, 2, 2, 6)):
        par = ref.Params(n, L, K, dnum, 30)
        scale = float(par.moduli[L])  # the rescaling divides by q_L: the scale stays about q_L
        s, s_ntt, key = ref.keygen(par, rng)
        z1 = rng.uniform(-1, 1, n // 2) + 1j * rng.uniform(-1, 1, n // 2)
        z2 = rng.uniform(-1, 1, n // 2) + 1j * rng.uniform(-1, 1, n // 2)
        c1 = ref.encrypt(par, rng, s_ntt, ref.encode(n, z1, scale))
        c2 = ref.encrypt(par, rng, s_ntt, ref.encode(n, z2, scale))
        got, _ = run_cli(cli, par, dpus, 0, c1[None], c2[None], key)
        want = ref.multiply(par, c1, c2, key)
        same(got[0], want, "decrypt case n=%d: DPU product = reference" % n)
        m = ref.decrypt(par, s_ntt, got[0], list(range(L)))
        err = np.max(np.abs(ref.decode(n, m, scale * scale / par.moduli[L]) - z1 * z2))
        check(err < 2.0 ** -12, "n=%d L=%d K=%d dnum=%d: decrypted product within 2^-12 (error %.3g)"
              % (n, L, K, dnum, err))
        print("n=%d L=%d K=%d dnum=%d: decryption error %.3g" % (n, L, K, dnum, err), flush=True)


def mode_baseconv(cli):
    """he's base conversion alone, with moduli of different sizes (a source wider than a target takes
    the kernel's other path: reduce before weighing), several DPUs per modulus and uneven batches."""
    rng = np.random.default_rng(7)
    n = 1024
    mods = ref.primes(n, 3, 30) + ref.primes(n, 2, 22) + ref.primes(n, 2, 26)  # 30, 22, 26 bits
    par = ref.Params.__new__(ref.Params)
    par.n, par.moduli = n, mods
    cases = [([0, 1, 2], [3, 4, 5, 6], 7, 1),   # 30-bit sources -> narrower targets (reduce first)
             ([3, 5], [0, 1, 6], 14, 3),        # narrow sources -> wider targets (one Barrett), 2 DPUs / modulus
             ([6], [3], 7, 2),                  # one source; moduli outside the conversion become 0
             ([1, 4, 5, 6, 0], [2], 21, 5)]     # mixed, 3 DPUs / modulus
    for src, dst, dpus, count in cases:
        x = np.stack([np.stack([rng.integers(0, q, n) for q in mods]) for _ in range(count)]).astype(np.uint64)
        with tempfile.TemporaryDirectory() as d:
            fin, fout = os.path.join(d, "in.bin"), os.path.join(d, "out.bin")
            hdr = [n, len(mods), dpus, count, len(src), len(dst)] + mods + src + dst
            with open(fin, "wb") as f:
                f.write(np.array(hdr, dtype="<u4").tobytes())
                f.write(np.ascontiguousarray(x, dtype="<u4").tobytes())
            r = subprocess.run([cli, "baseconv", fin, fout], capture_output=True, text=True)
            if r.returncode != 0:
                raise SystemExit("ckks_cli baseconv failed:\n%s%s" % (r.stdout, r.stderr))
            got = np.fromfile(fout, dtype="<u4").reshape(count, len(mods), n).astype(np.uint64)
        for c in range(count):
            want = np.zeros((len(mods), n), dtype=np.uint64)
            y = ref.base_convert(par, {i: x[c, i] for i in src}, src, dst)
            for j in dst:
                want[j] = y[j]
            for i in src:
                want[i] = x[c, i]
            same(got[c], want, "base conversion %s -> %s, %d DPUs, polynomial %d" % (src, dst, dpus, c))
        print("base conversion %s -> %s on %d DPUs, %d polynomials: exact" % (src, dst, dpus, count), flush=True)


MODES = {"ref": mode_ref, "moduli": mode_moduli, "exact": mode_exact, "exact2d": mode_exact2d, "decrypt": mode_decrypt,
         "baseconv": mode_baseconv}

if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] not in MODES:
        raise SystemExit("usage: test_ckks.py {%s} CKKS_CLI" % "|".join(MODES))
    MODES[sys.argv[1]](sys.argv[2])
    if failures:
        raise SystemExit("%d check(s) failed" % failures)
    print("all checks passed")
