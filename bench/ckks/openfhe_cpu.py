#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""CPU baseline for bench/ckks: OpenFHE's CKKS on this host, one thread, at the
parameters of [Jonatan24] Fig. 16 (N = 65536, L = 23: 24 limbs, dnum = 3, hybrid
key switching), 54-bit scaling moduli as the paper's.  Times (ms of the
process's CPU time, minimum of REPEAT runs) of the operations of a multiplication:
    add        EvalAdd of two ciphertexts (2 x 24-limb polynomial additions)
    tensor     EvalMultNoRelin (the tensor product)
    relin      Relinearize (key switching: ModUp, inner product, ModDown, their NTTs)
    rescale    Rescale by the last limb
    hmult      EvalMult + Rescale (the whole multiplication)
Needs the openfhe wheel, which imports only on CPython 3.10 (its .so is built for
it), e.g.  python3.10 -m venv V && V/bin/pip install openfhe==1.6.1.0.22.4
    V/bin/python bench/ckks/openfhe_cpu.py [N] [L] [DNUM] [REPEAT]
Output: "openfhe,OP,N,L,dnum,ms" lines (CSV), and a decryption check line."""
import os
import sys
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")
import openfhe as fhe  # noqa: E402


def best(fn, repeat):
    # the process's CPU time, not wall time: this host is shared, and one thread's CPU time is
    # what it would take on an idle core
    t = []
    for _ in range(repeat):
        t0 = time.process_time()
        fn()
        t.append(time.process_time() - t0)
    return 1000 * min(t)


def main(n=65536, levels=23, dnum=3, repeat=3):
    p = fhe.CCParamsCKKSRNS()
    p.SetMultiplicativeDepth(levels)
    p.SetScalingModSize(54)
    p.SetFirstModSize(60)
    p.SetScalingTechnique(fhe.FIXEDMANUAL)
    p.SetKeySwitchTechnique(fhe.HYBRID)
    p.SetNumLargeDigits(dnum)
    p.SetRingDim(n)
    p.SetBatchSize(n // 2)
    p.SetSecurityLevel(fhe.HEStd_NotSet)
    cc = fhe.GenCryptoContext(p)
    for f in (fhe.PKE, fhe.KEYSWITCH, fhe.LEVELEDSHE):
        cc.Enable(f)
    keys = cc.KeyGen()
    cc.EvalMultKeyGen(keys.secretKey)
    import random
    rnd = random.Random(3)
    x = [rnd.uniform(-1, 1) for _ in range(n // 2)]
    y = [rnd.uniform(-1, 1) for _ in range(n // 2)]
    c1 = cc.Encrypt(keys.publicKey, cc.MakeCKKSPackedPlaintext(x))
    c2 = cc.Encrypt(keys.publicKey, cc.MakeCKKSPackedPlaintext(y))
    t3 = cc.EvalMultNoRelin(c1, c2)
    r = cc.Relinearize(t3)
    times = {
        "add": best(lambda: cc.EvalAdd(c1, c2), repeat),
        "tensor": best(lambda: cc.EvalMultNoRelin(c1, c2), repeat),
        "relin": best(lambda: cc.Relinearize(t3), repeat),
        "rescale": best(lambda: cc.Rescale(r), repeat),
        "hmult": best(lambda: cc.Rescale(cc.EvalMult(c1, c2)), repeat),
    }
    for op, ms in times.items():
        print("openfhe,%s,%d,%d,%d,%.3f" % (op, n, levels, dnum, ms))
    out = cc.Decrypt(keys.secretKey, cc.Rescale(cc.EvalMult(c1, c2)))
    out.SetLength(8)
    got = out.GetRealPackedValue()
    err = max(abs(got[i] - x[i] * y[i]) for i in range(8))
    print("# openfhe decryption of the product: max error %.2g over 8 slots" % err)


if __name__ == "__main__":
    a = [int(v) for v in sys.argv[1:]]
    main(*a)
