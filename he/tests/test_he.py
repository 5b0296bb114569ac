#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Bit-exact checks of the HE library (run by CTest: test_he.py MODE HE_CLI).

MODE ref       the pure-Python reference itself: HEXL's published NTT known
               answers, naive evaluation, schoolbook vs Kronecker products
MODE params    generated moduli and roots vs the reference and SEAL
MODE ntt       DPU NTT / iNTT vs the reference, n = 1024 ... 65536
MODE ops       add, sub, negate, pointwise and negacyclic products
MODE bgv_seal  SEAL (seal-python): NTT form of real BGV ciphertexts, the
               ciphertext product (Evaluator.multiply) and its decryption
MODE relin_seal  relinearisation vs SEAL's Evaluator.relinearize, decryption
MODE ntt2d     the 2D NTT across DPUs vs the reference and the 1D NTT: group
               sizes 1 ... 256, several groups, uneven batches, both
               multiply variants, both All-to-All implementations of comm
MODE intt2d    the inverse 2D NTT: vs the reference's inverse on random NTT-form
               inputs, inverse(forward(x)) = x, at the ntt2d shapes
MODE ntt2d_seal  the 2D NTT of real BGV ciphertexts = SEAL's NTT form,
               n = 4096 ... 65536
MODE wide      moduli of 31 and 32 bits: generation, NTT and operations, SEAL's
               BGV multiply and relinearisation at its own <= 32-bit primes

Every DPU result is compared exactly; any difference fails the test.
"""
import os
import random
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import he_ref as ref  # noqa: E402

MUL_CUSTOM, MUL_NATIVE = 0, 1
failures = 0


def check(cond, what):
    global failures
    if not cond:
        failures += 1
        print("FAIL:", what, flush=True)
    return cond


def run_cli(cli, op, n, moduli, nr_dpus, mul, inputs, special=0, plain=0, key=None):
    """inputs: list of uint32 arrays shaped (count, k, n); returns the output arrays and cycles."""
    count = inputs[0].shape[0]
    with tempfile.TemporaryDirectory() as d:
        fin, fout = os.path.join(d, "in.bin"), os.path.join(d, "out.bin")
        hdr = np.array([n, len(moduli), nr_dpus, mul, count, len(inputs), special, plain] + list(moduli), dtype="<u4")
        with open(fin, "wb") as f:
            f.write(hdr.tobytes())
            for a in inputs + ([key] if key is not None else []):
                f.write(np.ascontiguousarray(a, dtype="<u4").tobytes())
        r = subprocess.run([cli, op, fin, fout], capture_output=True, text=True)
        if r.returncode != 0:
            raise SystemExit("he_cli %s failed:\n%s%s" % (op, r.stdout, r.stderr))
        out = np.fromfile(fout, dtype="<u4").reshape(-1, count, len(moduli), n)
        cycles = int(r.stdout.split()[-1])
        return out, cycles


def random_array(rng, count, moduli, n):
    return np.array([[[rng.randrange(q) for _ in range(n)] for q in moduli] for _ in range(count)], dtype=np.uint32)


def ref_each(fn, arr, moduli):
    """Applies fn(poly, q) to every residue polynomial of an array."""
    return np.array([[fn([int(v) for v in arr[p, i]], q) for i, q in enumerate(moduli)] for p in range(arr.shape[0])],
                    dtype=np.uint32)


def same(got, want, what):
    ok = got.shape == want.shape and np.array_equal(got, want)
    if not ok and got.shape == want.shape:
        idx = np.argwhere(got != want)
        what += " (%d words differ, first at %s: %d != %d)" % (len(idx), tuple(idx[0]), got[tuple(idx[0])],
                                                               want[tuple(idx[0])])
    return check(ok, what)


# ---- modes -------------------------------------------------------------------------------------

def mode_ref(_cli):
    # Intel HEXL's NTT known answers (test/test-ntt.cpp, minimal root): n, q, input, output
    kats = [
        (4, 113, [94, 109, 11, 18], [82, 2, 81, 98]),
        (4, 113, [59, 50, 98, 50], [1, 2, 3, 4]),
        (4, 73, [2, 1, 1, 1], [17, 41, 36, 60]),
        (4, 16417, [31, 21, 15, 34], [1611, 14407, 14082, 2858]),
        (4, 4194353, [4127, 9647, 1987, 5410], [1478161, 3359347, 222964, 3344742]),
        (8, 4194353, [1, 1, 0, 0, 0, 0, 0, 0], [132171, 4062184, 2675172, 1519183, 462763, 3731592, 1824324, 2370031]),
    ]
    for n, q, a, want in kats:
        check(ref.ntt(a, q) == want, "HEXL KAT n=%d q=%d" % (n, q))
        check(ref.intt(want, q) == a, "HEXL KAT inverse n=%d q=%d" % (n, q))
    rng = random.Random(1)
    for n, q in [(64, 7681), (256, 40961), (1024, 12289)]:
        psi = ref.minimal_root(q, n)
        check(pow(psi, n, q) == q - 1, "psi^n = -1 (q=%d)" % q)
        a, b = ref.random_poly(rng, n, q), ref.random_poly(rng, n, q)
        y = ref.ntt(a, q)
        bits = n.bit_length() - 1
        idx = range(n) if n <= 256 else rng.sample(range(n), 32)
        check(all(y[ref.bitrev(j, bits)] == ref.eval_at(a, pow(psi, 2 * j + 1, q), q) for j in idx),
              "NTT = evaluation at odd powers of psi (n=%d)" % n)
        check(ref.intt(y, q) == a, "iNTT inverts (n=%d)" % n)
        school = ref.negacyclic_schoolbook(a, b, q) if n <= 256 else None
        kron = ref.negacyclic_kronecker(a, b, q)
        if school is not None:
            check(school == kron, "schoolbook = Kronecker (n=%d)" % n)
        via_ntt = ref.intt([x * z % q for x, z in zip(ref.ntt(a, q), ref.ntt(b, q))], q)
        check(via_ntt == kron, "NTT product = Kronecker (n=%d)" % n)
    check(ref.ntt([1] + [0] * 15, 97) == [1] * 16, "NTT(delta) = ones")


def mode_params(cli):
    for n in (1024, 4096, 16384, 65536):
        for bits, k in ((30, 4), (24, 2)):
            if bits < (2 * n).bit_length() + 1:
                continue
            out = subprocess.run([cli, "primes", str(n), str(k), str(bits)], capture_output=True, text=True,
                                 check=True).stdout.split()
            want = ref.ntt_friendly_primes(n, k, bits)
            check([int(x) for x in out] == want, "generated primes n=%d bits=%d: %s vs %s" % (n, bits, out, want))
            for q in want[:2]:
                r = subprocess.run([cli, "root", str(q), str(n)], capture_output=True, text=True, check=True)
                check(int(r.stdout) == ref.minimal_root(q, n), "minimal root q=%d n=%d" % (q, n))
    try:
        import seal
    except ImportError:
        check(False, "seal-python is not installed (pip install -r python/requirements-test.txt)")
        return
    for n in (1024, 8192, 32768):
        seal_q = [m.value() for m in seal.CoeffModulus.Create(n, [30] * 5)]
        out = subprocess.run([cli, "primes", str(n), "5", "30"], capture_output=True, text=True, check=True)
        check([int(x) for x in out.stdout.split()] == seal_q, "SEAL CoeffModulus.Create(%d, [30]*5) = ours" % n)


def mode_ntt(cli):
    rng = random.Random(2)
    # (n, number of moduli, polynomials, DPUs, multiply variant)
    cases = [(1024, 2, 3, 5, MUL_CUSTOM), (1024, 1, 40, 1, MUL_NATIVE), (2048, 3, 2, 3, MUL_NATIVE),
             (4096, 2, 3, 4, MUL_CUSTOM), (8192, 2, 2, 2, MUL_NATIVE), (16384, 2, 1, 2, MUL_CUSTOM),
             (32768, 1, 2, 1, MUL_CUSTOM), (65536, 1, 1, 1, MUL_NATIVE)]
    for n, k, count, dpus, mul in cases:
        bits = 30 if n < 32768 else 29
        moduli = ref.ntt_friendly_primes(n, k, bits)
        a = random_array(rng, count, moduli, n)
        want = ref_each(ref.ntt, a, moduli)
        (got,), _ = run_cli(cli, "ntt", n, moduli, dpus, mul, [a])
        same(got, want, "NTT n=%d k=%d count=%d dpus=%d mul=%d" % (n, k, count, dpus, mul))
        (got_fwd, got_back), _ = run_cli(cli, "ntt_intt", n, moduli, dpus, mul, [a])
        same(got_fwd, want, "in-place NTT n=%d" % n)
        same(got_back, a, "iNTT(NTT(a)) = a, n=%d" % n)
        y = random_array(rng, count, moduli, n)
        (got,), _ = run_cli(cli, "intt", n, moduli, dpus, mul, [y])
        same(got, ref_each(ref.intt, y, moduli), "iNTT n=%d" % n)
    # edge values: all q - 1, all 0, and a single 1 (NTT = all ones)
    n, moduli = 4096, ref.ntt_friendly_primes(4096, 2, 30)
    edge = np.zeros((3, 2, n), dtype=np.uint32)
    edge[0] = np.array(moduli, dtype=np.uint32)[:, None] - 1
    edge[2, :, 0] = 1
    (got,), _ = run_cli(cli, "ntt", n, moduli, 2, MUL_CUSTOM, [edge])
    same(got, ref_each(ref.ntt, edge, moduli), "NTT of edge values")
    check(bool((got[2] == 1).all()) and not got[1].any(), "NTT(delta) = ones, NTT(0) = 0")


def mode_ops(cli):
    rng = random.Random(3)
    for n, k, count, dpus, mul in [(1024, 2, 5, 4, MUL_CUSTOM), (4096, 3, 3, 3, MUL_NATIVE),
                                   (8192, 1, 2, 2, MUL_CUSTOM)]:
        moduli = ref.ntt_friendly_primes(n, k, 30)
        qs = np.array(moduli, dtype=np.uint64)[None, :, None]
        a, b = random_array(rng, count, moduli, n), random_array(rng, count, moduli, n)
        a[0, 0, :4] = [0, moduli[0] - 1, moduli[0] - 1, 0]
        b[0, 0, :4] = [0, moduli[0] - 1, 1, moduli[0] - 1]
        a64, b64 = a.astype(np.uint64), b.astype(np.uint64)
        tag = "n=%d k=%d mul=%d" % (n, k, mul)
        (got,), _ = run_cli(cli, "add", n, moduli, dpus, mul, [a, b])
        same(got, ((a64 + b64) % qs).astype(np.uint32), "add " + tag)
        (got,), _ = run_cli(cli, "sub", n, moduli, dpus, mul, [a, b])
        same(got, ((a64 + qs - b64) % qs).astype(np.uint32), "sub " + tag)
        (got,), _ = run_cli(cli, "neg", n, moduli, dpus, mul, [a])
        same(got, ((qs - a64) % qs).astype(np.uint32), "negate " + tag)
        (got,), _ = run_cli(cli, "mul", n, moduli, dpus, mul, [a, b])
        same(got, ((a64 * b64) % qs).astype(np.uint32), "pointwise multiply " + tag)
        (got,), _ = run_cli(cli, "polymul", n, moduli, dpus, mul, [a, b])
        want = np.array([[ref.negacyclic_kronecker([int(x) for x in a[p, i]], [int(x) for x in b[p, i]], q)
                          for i, q in enumerate(moduli)] for p in range(count)], dtype=np.uint32)
        same(got, want, "negacyclic product (vs Kronecker) " + tag)
    # schoolbook product at n = 1024 (independent of both NTT and Kronecker)
    moduli = ref.ntt_friendly_primes(1024, 1, 30)
    a, b = random_array(rng, 1, moduli, 1024), random_array(rng, 1, moduli, 1024)
    (got,), _ = run_cli(cli, "polymul", 1024, moduli, 1, MUL_NATIVE, [a, b])
    want = ref.negacyclic_schoolbook([int(x) for x in a[0, 0]], [int(x) for x in b[0, 0]], moduli[0])
    same(got[0, 0], np.array(want, dtype=np.uint32), "negacyclic product (vs schoolbook) n=1024")


def mode_bgv_seal(cli):
    try:
        import seal
    except ImportError:
        check(False, "seal-python is not installed (pip install -r python/requirements-test.txt)")
        return
    rng = np.random.default_rng(4)
    for n, mul in [(1024, MUL_CUSTOM), (2048, MUL_NATIVE), (4096, MUL_CUSTOM), (8192, MUL_NATIVE),
                   (16384, MUL_CUSTOM), (32768, MUL_NATIVE)]:
        bgv_seal_case(cli, seal, rng, n, mul, [30] * 4)  # 3 data-level moduli and SEAL's special one


def bgv_seal_case(cli, seal, rng, n, mul, coeff_bits, dpus=None, decrypt=True):
    """SEAL's BGV at n with CoeffModulus.Create(n, coeff_bits) as it is: NTT, iNTT and the ciphertext
    product bit-exact with SEAL, and the product decrypts to m1 * m2 (dpus: DPUs, default 2 per modulus)."""
    if True:
        k = len(coeff_bits) - 1  # data-level moduli; SEAL's last (special) modulus never appears in ciphertexts
        parms = seal.EncryptionParameters(seal.scheme_type.bgv)
        parms.set_poly_modulus_degree(n)
        parms.set_coeff_modulus(seal.CoeffModulus.Create(n, coeff_bits))
        parms.set_plain_modulus(seal.PlainModulus.Batching(n, 20))
        ctx = seal.SEALContext(parms, True, seal.sec_level_type.none)  # test parameters, not secure
        moduli = [m.value() for m in ctx.first_context_data().parms().coeff_modulus()]
        keygen = seal.KeyGenerator(ctx)
        pk = keygen.create_public_key()
        enc, dec = seal.Encryptor(ctx, pk), seal.Decryptor(ctx, keygen.secret_key())
        ev, coder = seal.Evaluator(ctx), seal.BatchEncoder(ctx)
        t = parms.plain_modulus().value()
        m1, m2 = rng.integers(0, t, n, dtype=np.uint64), rng.integers(0, t, n, dtype=np.uint64)
        c1, c2 = enc.encrypt(coder.encode(m1)), enc.encrypt(coder.encode(m2))

        def raw(ct):
            size = ct.size()
            b = ct.to_string()
            return np.frombuffer(b[-size * k * n * 8:], dtype="<u8").reshape(size, k, n).astype(np.uint32)

        tag = "n=%d mul=%d moduli %s" % (n, mul, moduli)
        check(c1.is_ntt_form(), "SEAL BGV ciphertexts are in NTT form")
        r1, r2 = raw(c1), raw(c2)
        coeff1 = raw(ev.transform_from_ntt(c1))
        # NTT / iNTT against SEAL's own transforms of a real ciphertext
        (got,), _ = run_cli(cli, "ntt", n, moduli, dpus or k, mul, [coeff1])
        same(got, r1, "NTT = SEAL NTT form " + tag)
        (got,), _ = run_cli(cli, "intt", n, moduli, dpus or k, mul, [r1])
        same(got, coeff1, "iNTT = SEAL transform_from_ntt " + tag)
        # ciphertext product
        prod = ev.multiply(c1, c2)
        want = raw(prod)
        outs, cycles = run_cli(cli, "bgv", n, moduli, dpus or 2 * k, mul, [r1[:1], r1[1:], r2[:1], r2[1:]])
        got = outs[:, 0]
        same(got, want, "BGV multiply = SEAL Evaluator.multiply " + tag)
        if not decrypt:
            return
        # our product, written into a SEAL ciphertext, decrypts to m1 * m2 (slot-wise mod t)
        blob = prod.to_string()
        mine = seal.Ciphertext()
        mine.load_bytes(ctx, blob[:-3 * k * n * 8] + got.astype("<u8").tobytes())
        budget = dec.invariant_noise_budget(mine)
        check(budget > 0, "noise budget left after the product (%d bits) %s" % (budget, tag))
        plain = np.asarray(coder.decode(dec.decrypt(mine)), dtype=np.int64) % t  # decode centres values
        check(np.array_equal(plain.astype(np.uint64), (m1 * m2) % t), "decrypts to m1*m2 " + tag)
        print("%s: NTT/iNTT/BGV bit-exact with SEAL, %d data moduli, budget %d bits, tensor %d cycles"
              % (tag, k, budget, cycles), flush=True)


def seal_relin_key(rk, k, n):
    """The key-switching polynomials of SEAL RelinKeys, (k, 2, k + 1, n) uint32, by
    walking its serialisation: SEALHeader (16 bytes, object size at offset 8),
    parms_id (32), two uint64 counts, then k PublicKey objects whose data block
    (2 * (k + 1) * n uint64) ends each object."""
    b = rk.to_string()
    assert b[:2] == b"\x5e\xa1", "not a SEAL object"
    pos, keys, block = 64, [], 2 * (k + 1) * n * 8
    dims = np.frombuffer(b[48:64], dtype="<u8")
    assert list(dims) == [1, k], "unexpected RelinKeys shape %s" % list(dims)
    for _ in range(k):
        size = int(np.frombuffer(b[pos + 8:pos + 16], dtype="<u8")[0])
        keys.append(np.frombuffer(b[pos + size - block:pos + size], dtype="<u8").reshape(2, k + 1, n))
        pos += size
    assert pos == len(b)
    return np.array(keys).astype(np.uint32)


def mode_relin_seal(cli):
    try:
        import seal
    except ImportError:
        check(False, "seal-python is not installed (pip install -r python/requirements-test.txt)")
        return
    rng = np.random.default_rng(5)
    for n, k, extra, mul in [(1024, 3, 0, MUL_CUSTOM), (2048, 3, 1, MUL_NATIVE), (4096, 3, 2, MUL_CUSTOM),
                             (8192, 4, 0, MUL_NATIVE)]:
        relin_seal_case(cli, seal, rng, n, [30] * (k + 1), extra, mul)


def relin_seal_case(cli, seal, rng, n, coeff_bits, extra, mul, count=3, decrypt=True):
    """Relinearisation of `count` products bit-exact with SEAL's Evaluator.relinearize at
    CoeffModulus.Create(n, coeff_bits) as it is; extra: more DPUs per group and unused ones."""
    if True:
        k = len(coeff_bits) - 1
        parms = seal.EncryptionParameters(seal.scheme_type.bgv)
        parms.set_poly_modulus_degree(n)
        parms.set_coeff_modulus(seal.CoeffModulus.Create(n, coeff_bits))
        parms.set_plain_modulus(seal.PlainModulus.Batching(n, 20))
        ctx = seal.SEALContext(parms, True, seal.sec_level_type.none)
        all_q = [m.value() for m in parms.coeff_modulus()]
        moduli, special = all_q[:k], all_q[k]
        keygen = seal.KeyGenerator(ctx)
        rk = keygen.create_relin_keys()
        enc = seal.Encryptor(ctx, keygen.create_public_key())
        dec, ev, coder = seal.Decryptor(ctx, keygen.secret_key()), seal.Evaluator(ctx), seal.BatchEncoder(ctx)
        t = parms.plain_modulus().value()
        m1 = rng.integers(0, t, (count, n), dtype=np.uint64)
        m2 = rng.integers(0, t, (count, n), dtype=np.uint64)
        prods = [ev.multiply(enc.encrypt(coder.encode(m1[i])), enc.encrypt(coder.encode(m2[i])))
                 for i in range(count)]

        def raw(ct):
            b = ct.to_string()
            return np.frombuffer(b[-ct.size() * k * n * 8:], dtype="<u8").reshape(ct.size(), k, n).astype(np.uint32)

        ins = np.array([raw(p) for p in prods])  # (count, 3, k, n)
        want = np.array([raw(ev.relinearize(p, rk)) for p in prods])  # (count, 2, k, n)
        key = seal_relin_key(rk, k, n)
        dpus = k + 1 + extra * (k + 1) + extra  # several DPUs per group, and unused ones
        outs, cycles = run_cli(cli, "relin", n, moduli, dpus, mul, [ins[:, 0], ins[:, 1], ins[:, 2]],
                               special=special, plain=t, key=key)
        got = np.stack([outs[0], outs[1]], axis=1)
        tag = "n=%d moduli %s special %d count=%d dpus=%d mul=%d" % (n, moduli, special, count, dpus, mul)
        same(got, want, "relinearisation = SEAL Evaluator.relinearize " + tag)
        for i in range(count if decrypt else 0):
            blob = ev.relinearize(prods[i], rk).to_string()
            mine = seal.Ciphertext()
            mine.load_bytes(ctx, blob[:-2 * k * n * 8] + got[i].astype("<u8").tobytes())
            budget = dec.invariant_noise_budget(mine)
            check(budget > 0, "noise budget left after relinearisation (%d bits) %s" % (budget, tag))
            plain = np.asarray(coder.decode(dec.decrypt(mine)), dtype=np.int64) % t
            check(np.array_equal(plain.astype(np.uint64), (m1[i] * m2[i]) % t), "decrypts to m1*m2 " + tag)
        print("%s: relinearisation bit-exact with SEAL, %d cycles" % (tag, cycles), flush=True)


def run_2d(cli, n, moduli, nr_dpus, group_dpus, mul, a, comm_impl=None, op="ntt2d"):
    """The 2D NTT of a (count, k, n) (op intt2d: the inverse; ntt2d_intt2d: the forward, then the inverse of
    its output, both returned stacked); returns the output and he_cli's report (groups, slots, view,
    cycles)."""
    env = dict(os.environ)
    env.pop("OPENPIM_COMM_IMPL", None)
    if comm_impl:
        env["OPENPIM_COMM_IMPL"] = comm_impl
    count = a.shape[0]
    with tempfile.TemporaryDirectory() as d:
        fin, fout = os.path.join(d, "in.bin"), os.path.join(d, "out.bin")
        hdr = np.array([n, len(moduli), nr_dpus, mul, count, 1, 0, group_dpus] + list(moduli), dtype="<u4")
        with open(fin, "wb") as f:
            f.write(hdr.tobytes() + np.ascontiguousarray(a, dtype="<u4").tobytes())
        r = subprocess.run([cli, op, fin, fout], capture_output=True, text=True, env=env)
        if r.returncode != 0:
            raise SystemExit("he_cli %s failed:\n%s%s" % (op, r.stdout, r.stderr))
        words = r.stdout.split()
        info = dict(zip(words[0:8:2], (int(x) for x in words[1:8:2])))
        info["cycles"] = (int(words[9]), int(words[10]))
        if op == "ntt2d_intt2d":
            info["icycles"] = (int(words[12]), int(words[13]))
            return np.fromfile(fout, dtype="<u4").reshape(2, count, len(moduli), n), info
        return np.fromfile(fout, dtype="<u4").reshape(count, len(moduli), n), info


# (n, k, polynomials, DPUs, group DPUs, multiply variant, comm implementation, groups, slots, view).  At
# these sizes comm's optimised AlltoAll takes its general path: on a whole rank its kernel path (PE-assisted
# reordering, a program load and two launches) is the dearer one in modelled time (openpim_comm.h: the
# choice by the model), so view is 0; comm's own tests cover the view path.
NTT2D_CASES = [
    (1024, 2, 3, 4, 4, MUL_CUSTOM, None, 1, 6, 0),          # 32 x 32, one group, 6 residue NTTs
    (2048, 1, 5, 8, 4, MUL_NATIVE, None, 2, 3, 0),          # 64 x 32 (odd log n), 2 groups, 3 + 2 NTTs
    (8192, 3, 1, 6, 2, MUL_NATIVE, "baseline", 3, 1, 0),    # 128 x 64, 3 groups of 2 DPUs
    (4096, 1, 4, 64, 0, MUL_CUSTOM, "optimised", 1, 4, 0),  # a whole rank: comm's optimised AlltoAll
    (4096, 1, 4, 64, 64, MUL_CUSTOM, "baseline", 1, 4, 0),  # the same through the host-mediated path
    (4096, 1, 5, 128, 64, MUL_NATIVE, None, 2, 3, 0),       # one column per DPU, 3 + 2 NTTs: odd rows
    (4096, 1, 9, 64, 64, MUL_CUSTOM, None, 1, 9, 0),        # one column per DPU, 9 NTTs: padded rows
    (16384, 1, 9, 128, 16, MUL_CUSTOM, None, 8, 2, 0),      # 8 groups, 9 NTTs: the last 7 groups hold 1
]


def mode_ntt2d(cli):
    rng = random.Random(6)
    for n, k, count, dpus, g, mul, impl, want_groups, want_slots, want_view in NTT2D_CASES:
        moduli = ref.ntt_friendly_primes(n, k, 30)
        a = random_array(rng, count, moduli, n)
        got, info = run_2d(cli, n, moduli, dpus, g, mul, a, impl)
        tag = "2D NTT n=%d k=%d count=%d dpus=%d g=%d mul=%d comm=%s" % (n, k, count, dpus, g, mul, impl)
        same(got, ref_each(ref.ntt, a, moduli), tag + " vs reference")
        check((info["groups"], info["slots"], info["view"]) == (want_groups, want_slots, want_view),
              "%s: shape %s" % (tag, info))
        (one_d,), _ = run_cli(cli, "ntt", n, moduli, k, mul, [a])
        same(got, one_d, tag + " vs the 1D NTT")
        print("%s: ok, kernel cycles %s" % (tag, info["cycles"]), flush=True)
    # n = 2^16 (the paper's 256 x 256): one DPU, 16 DPUs and 256 DPUs per NTT give the reference's answer
    n, moduli = 65536, ref.ntt_friendly_primes(65536, 1, 30)
    a = random_array(rng, 1, moduli, n)
    want = ref_each(ref.ntt, a, moduli)
    for dpus, g in ((1, 1), (16, 16), (256, 256)):
        got, info = run_2d(cli, n, moduli, dpus, g, MUL_CUSTOM, a)
        same(got, want, "2D NTT n=65536 g=%d" % g)
        print("2D NTT n=65536 on %d DPUs: ok, kernel cycles %s" % (dpus, info["cycles"]), flush=True)
    # edge values: all q - 1, all 0, a single 1 (NTT = all ones)
    n, moduli = 4096, ref.ntt_friendly_primes(4096, 2, 30)
    edge = np.zeros((3, 2, n), dtype=np.uint32)
    edge[0] = np.array(moduli, dtype=np.uint32)[:, None] - 1
    edge[2, :, 0] = 1
    got, _ = run_2d(cli, n, moduli, 8, 8, MUL_NATIVE, edge)
    same(got, ref_each(ref.ntt, edge, moduli), "2D NTT of edge values")
    check(bool((got[2] == 1).all()) and not got[1].any(), "2D NTT(delta) = ones, NTT(0) = 0")
    # the modelled kernel time depends only on the DPU's own share: the same with more groups doing the
    # same work (what lets the benchmarks time kernels on fewer groups).  The same data too: a 16x16
    # product is shorter when both factors fit a byte (UPMEM's compiler), so cycles follow the data a little
    n, moduli = 16384, ref.ntt_friendly_primes(16384, 2, 30)
    a = random_array(rng, 2, moduli, n)
    _, one = run_2d(cli, n, moduli, 32, 32, MUL_CUSTOM, a[:1])   # 2 NTTs on 1 group
    _, four = run_2d(cli, n, moduli, 128, 32, MUL_CUSTOM, np.concatenate([a[:1]] * 4))  # 8 NTTs on 4 groups
    check(one["cycles"] == four["cycles"], "kernel cycles independent of the number of groups: %s vs %s"
          % (one["cycles"], four["cycles"]))


def mode_intt2d(cli):
    rng = random.Random(16)
    for n, k, count, dpus, g, mul, impl, want_groups, want_slots, want_view in NTT2D_CASES:
        moduli = ref.ntt_friendly_primes(n, k, 30)
        tag = "inverse 2D NTT n=%d k=%d count=%d dpus=%d g=%d mul=%d comm=%s" % (n, k, count, dpus, g, mul, impl)
        y = random_array(rng, count, moduli, n)  # any words below the moduli are an NTT form
        got, info = run_2d(cli, n, moduli, dpus, g, mul, y, impl, op="intt2d")
        same(got, ref_each(ref.intt, y, moduli), tag + " vs reference")
        check((info["groups"], info["slots"], info["view"]) == (want_groups, want_slots, want_view),
              "%s: shape %s" % (tag, info))
        a = random_array(rng, count, moduli, n)
        both, info2 = run_2d(cli, n, moduli, dpus, g, mul, a, impl, op="ntt2d_intt2d")
        same(both[1], a, tag + ": inverse(forward(a)) = a")
        if mul == MUL_CUSTOM:  # constant time (the native multiply's time depends on the operands)
            check(info2["icycles"] == info["cycles"], "%s: inverse's kernel cycles independent of the data: %s vs %s"
                  % (tag, info2["icycles"], info["cycles"]))
        print("%s: ok, kernel cycles %s (forward %s)" % (tag, info["cycles"], info2["cycles"]), flush=True)
    # against the 1D library's iNTT too
    n, moduli = 2048, ref.ntt_friendly_primes(2048, 2, 30)
    y = random_array(rng, 3, moduli, n)
    got, _ = run_2d(cli, n, moduli, 4, 2, MUL_NATIVE, y, op="intt2d")
    (one_d,), _ = run_cli(cli, "intt", n, moduli, 2, MUL_NATIVE, [y])
    same(got, one_d, "inverse 2D NTT vs the 1D iNTT")
    # n = 2^16 (256 x 256) on 1, 16 and 256 DPUs per NTT
    n, moduli = 65536, ref.ntt_friendly_primes(65536, 1, 30)
    y = random_array(rng, 1, moduli, n)
    want = ref_each(ref.intt, y, moduli)
    for dpus, g in ((1, 1), (16, 16), (256, 256)):
        both, info = run_2d(cli, n, moduli, dpus, g, MUL_CUSTOM, y, op="ntt2d_intt2d")
        same(both[1], y, "2D NTT n=65536 g=%d: inverse(forward(y)) = y" % g)
        got, _ = run_2d(cli, n, moduli, dpus, g, MUL_NATIVE, y, op="intt2d")
        same(got, want, "inverse 2D NTT n=65536 g=%d vs reference" % g)
        print("inverse 2D NTT n=65536 on %d DPUs: ok, kernel cycles %s" % (dpus, info["icycles"]), flush=True)
    # edge values: all q - 1, all 0, all ones (the inverse of NTT(delta): delta)
    n, moduli = 4096, ref.ntt_friendly_primes(4096, 2, 30)
    edge = np.zeros((3, 2, n), dtype=np.uint32)
    edge[0] = np.array(moduli, dtype=np.uint32)[:, None] - 1
    edge[2] = 1
    got, _ = run_2d(cli, n, moduli, 8, 8, MUL_CUSTOM, edge, op="intt2d")
    same(got, ref_each(ref.intt, edge, moduli), "inverse 2D NTT of edge values")
    delta = np.zeros((2, n), dtype=np.uint32)
    delta[:, 0] = 1
    check(np.array_equal(got[2], delta) and not got[1].any(), "inverse 2D NTT(ones) = delta, of 0 = 0")


def mode_ntt2d_seal(cli):
    try:
        import seal
    except ImportError:
        check(False, "seal-python is not installed (pip install -r python/requirements-test.txt)")
        return
    rng = np.random.default_rng(7)
    for n, k, dpus, g, mul in [(4096, 3, 16, 16, MUL_NATIVE), (32768, 2, 64, 64, MUL_CUSTOM),
                               (65536, 2, 512, 256, MUL_CUSTOM)]:
        parms = seal.EncryptionParameters(seal.scheme_type.bgv)
        parms.set_poly_modulus_degree(n)
        parms.set_coeff_modulus(seal.CoeffModulus.Create(n, [30] * (k + 1)))
        parms.set_plain_modulus(seal.PlainModulus.Batching(n, 20))
        ctx = seal.SEALContext(parms, True, seal.sec_level_type.none)
        moduli = [m.value() for m in ctx.first_context_data().parms().coeff_modulus()]
        enc = seal.Encryptor(ctx, seal.KeyGenerator(ctx).create_public_key())
        ev, coder = seal.Evaluator(ctx), seal.BatchEncoder(ctx)
        ct = enc.encrypt(coder.encode(rng.integers(0, parms.plain_modulus().value(), n, dtype=np.uint64)))

        def raw(c):
            b = c.to_string()
            return np.frombuffer(b[-c.size() * k * n * 8:], dtype="<u8").reshape(c.size(), k, n).astype(np.uint32)

        want, coeff = raw(ct), raw(ev.transform_from_ntt(ct))
        got, info = run_2d(cli, n, moduli, dpus, g, mul, coeff)
        tag = "2D NTT n=%d k=%d dpus=%d g=%d mul=%d" % (n, k, dpus, g, mul)
        same(got, want, tag + " = SEAL's NTT form of a BGV ciphertext")
        print("%s: bit-exact with SEAL, kernel cycles %s" % (tag, info["cycles"]), flush=True)


def mode_wide(cli):
    """Moduli of 31 and 32 bits (DRAMatic's; SEAL's parameter sets of primes up to 32 bits as they are):
    generation vs the reference and SEAL, NTT / ops vs the reference (the largest NTT-friendly primes,
    mixed widths, edge values), BGV multiply and relinearisation bit-exact with SEAL, the 2D NTT."""
    try:
        import seal
    except ImportError:
        check(False, "seal-python is not installed (pip install -r python/requirements-test.txt)")
        return
    for n, k, bits in ((4096, 3, 32), (8192, 2, 31), (65536, 2, 32)):
        out = subprocess.run([cli, "primes", str(n), str(k), str(bits)], capture_output=True, text=True,
                             check=True).stdout.split()
        seal_q = [m.value() for m in seal.CoeffModulus.Create(n, [bits] * k)]
        check([int(x) for x in out] == ref.ntt_friendly_primes(n, k, bits) == seal_q,
              "%d-bit primes n=%d: ours %s, SEAL %s" % (bits, n, out, seal_q))
    rng = random.Random(9)
    for n, moduli, count, dpus, mul in [
            (4096, ref.ntt_friendly_primes(4096, 2, 32), 3, 4, MUL_CUSTOM),
            (8192, ref.ntt_friendly_primes(8192, 3, 31), 2, 5, MUL_NATIVE),
            (2048, ref.ntt_friendly_primes(2048, 1, 32) + ref.ntt_friendly_primes(2048, 1, 20)
             + ref.ntt_friendly_primes(2048, 1, 31), 2, 3, MUL_CUSTOM),
            (65536, ref.ntt_friendly_primes(65536, 1, 32), 1, 1, MUL_CUSTOM)]:
        a, b = random_array(rng, count, moduli, n), random_array(rng, count, moduli, n)
        qs = np.array(moduli, dtype=np.uint64)[None, :, None]
        for i, q in enumerate(moduli):  # edges: q - 1 + q - 1 (past 2^32 for 32-bit q), (q - 1)^2, 0, 1
            a[0, i, :4], b[0, i, :4] = [q - 1, q - 1, 0, q - 1], [q - 1, q - 2, 1, 0]
        a64, b64 = a.astype(np.uint64), b.astype(np.uint64)
        tag = "n=%d moduli %s mul=%d" % (n, moduli, mul)
        (got,), _ = run_cli(cli, "ntt", n, moduli, dpus, mul, [a])
        same(got, ref_each(ref.ntt, a, moduli), "NTT " + tag)
        (got,), _ = run_cli(cli, "intt", n, moduli, dpus, mul, [b])
        same(got, ref_each(ref.intt, b, moduli), "iNTT " + tag)
        if n <= 8192:
            for op, want in (("add", (a64 + b64) % qs), ("sub", (a64 + qs - b64) % qs), ("neg", (qs - a64) % qs),
                             ("mul", (a64 * b64) % qs)):
                (got,), _ = run_cli(cli, op, n, moduli, dpus, mul, [a, b] if op != "neg" else [a])
                same(got, want.astype(np.uint32), "%s %s" % (op, tag))
        print("%s: ok" % tag, flush=True)
    nrng = np.random.default_rng(10)
    for n, coeff_bits, mul, dpus in ((4096, [32, 32, 32, 32], MUL_CUSTOM, None),
                                     (8192, [32, 31, 30, 32], MUL_NATIVE, 7), (2048, [32, 24, 32, 32], MUL_CUSTOM, 5)):
        bgv_seal_case(cli, seal, nrng, n, mul, coeff_bits, dpus)
    # Three data moduli at n = 2048: with two ([31, 32] + special 32) SEAL's random keys leave 0-4 bits of noise
    # budget after a product and its relinearisation, and 0 fails the check below about once in 60 runs; with
    # three, 33-38 bits (40 keys each).
    for n, coeff_bits, extra, mul in ((4096, [32, 32, 32, 32], 1, MUL_CUSTOM), (2048, [31, 32, 32, 32], 0, MUL_NATIVE)):
        relin_seal_case(cli, seal, nrng, n, coeff_bits, extra, mul, count=2)
    for n, k, count, dpus, g, mul in ((4096, 2, 3, 8, 4, MUL_CUSTOM), (16384, 1, 2, 16, 16, MUL_NATIVE)):
        moduli = ref.ntt_friendly_primes(n, k, 32)
        a = random_array(rng, count, moduli, n)
        got, _ = run_2d(cli, n, moduli, dpus, g, mul, a)
        same(got, ref_each(ref.ntt, a, moduli), "2D NTT n=%d 32-bit moduli mul=%d" % (n, mul))
        got, _ = run_2d(cli, n, moduli, dpus, g, mul, a, op="intt2d")
        same(got, ref_each(ref.intt, a, moduli), "inverse 2D NTT n=%d 32-bit moduli mul=%d" % (n, mul))


def main():
    if len(sys.argv) != 3:
        raise SystemExit("usage: test_he.py MODE HE_CLI")
    mode, cli = sys.argv[1], os.path.abspath(sys.argv[2])
    globals()["mode_" + mode](cli)
    print("%s: %s" % (mode, "ok" if failures == 0 else "%d failures" % failures))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
