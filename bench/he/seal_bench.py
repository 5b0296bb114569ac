#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""SEAL (seal-python) on this host beside the modelled DPU figures of bench_he.

    seal_bench.py BENCH_HE_OUTPUT

Reads the RESULT lines of bench_he (per-ciphertext modelled DPU times, us),
measures SEAL's BGV NTT (of a 2-polynomial ciphertext), iNTT (of a
3-polynomial product), both in place as half a forward+inverse pair, multiply
(tensor, no relinearisation) and the combined test (2 NTT + multiply + iNTT,
summed) with DRAMatic's parameters (section 4.2: SEAL's default coefficient
modulus, CoeffModulus.BFVDefault(n), whose ciphertexts carry all its primes
but the last, in 64-bit words; bench_he splits the same bits into 30-bit DPU
moduli, which this script checks), one process, then one per host core (time
per call divided by the processes: the host's throughput), and prints the
DPU/SEAL ratios beside DRAMatic's (383 DPUs vs SEAL 16 threads on a Xeon Gold
5415+: NTT ~7x, iNTT ~7x, BGV ~3x, combined ~6x slower on DPUs).

DRAMatic's 16 threads are estimated as SEAL16 = SEAL1 / 8.4 (its section 4.4:
4 -> 16 threads 2.1x; 1 -> 4 threads taken as linear), where SEAL1 is one of
its threads.  Relating one thread there to one here: with HE_HOST_CLOCK naming
bench/he/host_clock.c's program, this host's core clock f is measured before
and after the one-process timing, and SEAL1 there = SEAL1 here x f / F at
equal work per cycle, F = 4.1 GHz (the 5415+'s maximum turbo, one busy core)
or 2.9 GHz (its base clock): the ratios are printed with "one thread there =
one here" (f = F) and with both F.
"""
import multiprocessing as mp
import os
import statistics
import subprocess
import sys
import time

import numpy as np
import seal


DPU_MODULUS_BITS = 32  # bench_he's BENCH_MODULUS_BITS
SEAL16_PER_THREAD = 8.4  # DRAMatic's 16 threads / one (4 x 2.1)
XEON_GHZ = {"max turbo": 4.1, "base": 2.9}  # Intel Xeon Gold 5415+ (DRAMatic section 4.4)


def host_ghz():
    """This core's clock in GHz (host_clock: dependent adds), None without HE_HOST_CLOCK."""
    exe = os.environ.get("HE_HOST_CLOCK")
    if not exe:
        return None
    return float(subprocess.run([exe, "20"], check=True, capture_output=True, text=True).stdout)


def data_level(n):
    """SEAL's default coefficient modulus for n (128-bit security, as DRAMatic
    used it): the bit sizes of the primes a ciphertext carries (all but the
    special prime, the last, when there are several)."""
    bits = [q.bit_count() for q in seal.CoeffModulus.BFVDefault(n)]
    return bits[:-1] if len(bits) > 1 else bits


def setup(n):
    parms = seal.EncryptionParameters(seal.scheme_type.bgv)
    parms.set_poly_modulus_degree(n)
    parms.set_coeff_modulus(seal.CoeffModulus.BFVDefault(n))
    parms.set_plain_modulus(seal.PlainModulus.Batching(n, 20))
    ctx = seal.SEALContext(parms, True, seal.sec_level_type.tc128)
    keygen = seal.KeyGenerator(ctx)
    enc = seal.Encryptor(ctx, keygen.create_public_key())
    ev, coder = seal.Evaluator(ctx), seal.BatchEncoder(ctx)
    t = parms.plain_modulus().value()
    rng = np.random.default_rng(1)
    c1 = enc.encrypt(coder.encode(rng.integers(0, t, n, dtype=np.uint64)))
    c2 = enc.encrypt(coder.encode(rng.integers(0, t, n, dtype=np.uint64)))
    return ev, c1, c2


def ops(ev, c1, c2):
    """Each returns the microseconds of its operation for one call (the
    transforms in place, as half of a forward+inverse pair, which needs no
    copies between calls)."""
    coeff = ev.transform_from_ntt(c1)
    prod = ev.multiply(c1, c2)
    prod_coeff = ev.transform_from_ntt(prod)

    def pair(ct, first, second):
        t0 = time.perf_counter()
        first(ct)
        second(ct)
        return (time.perf_counter() - t0) * 1e6 / 2

    def once(fn):
        t0 = time.perf_counter()
        fn()
        return (time.perf_counter() - t0) * 1e6

    return {
        "ntt": lambda: pair(coeff, ev.transform_to_ntt_inplace, ev.transform_from_ntt_inplace),
        "intt": lambda: pair(prod_coeff, ev.transform_to_ntt_inplace, ev.transform_from_ntt_inplace),
        "bgv": lambda: once(lambda: ev.multiply(c1, c2)),
    }


def time_one(n, reps, min_seconds=3.0):
    """min and median microseconds per call, one process, over at least `reps`
    calls and `min_seconds` of sampling (on a busy host the minimum needs calls
    that ran undisturbed); combined = 2 NTT + BGV + iNTT (sums)."""
    ev, c1, c2 = setup(n)
    out = {}
    for name, fn in ops(ev, c1, c2).items():
        fn()
        samples, t0 = [], time.perf_counter()
        while len(samples) < reps or time.perf_counter() - t0 < min_seconds:
            samples.append(fn())
        out[name] = (min(samples), statistics.median(samples))
    out["combined"] = tuple(2 * out["ntt"][i] + out["bgv"][i] + out["intt"][i] for i in range(2))
    return out


def _worker(args):
    n, reps, barrier = args
    ev, c1, c2 = setup(n)
    fns = ops(ev, c1, c2)
    barrier.wait()
    return {name: statistics.median([fn() for _ in range(reps)]) for name, fn in fns.items()}


def time_all_cores(n, reps, procs):
    """median microseconds per call with `procs` processes busy at once (the
    host's throughput is procs / that)."""
    with mp.Manager() as m:
        barrier = m.Barrier(procs)
        with mp.Pool(procs) as pool:
            res = pool.map(_worker, [(n, reps, barrier)] * procs)
    out = {name: statistics.mean(r[name] for r in res) / procs for name in res[0]}
    out["combined"] = 2 * out["ntt"] + out["bgv"] + out["intt"]
    return out


def main():
    dpu = {}
    for line in open(sys.argv[1]):
        f = line.split()
        if f and f[0] == "RESULT":
            dpu[(int(f[1]), int(f[2]), f[3])] = dict(zip(("ntt", "intt", "bgv", "combined", "up", "down"),
                                                         map(float, f[4:])))
    procs = os.cpu_count()
    drama = {"ntt": 7, "intt": 7, "bgv": 3, "combined": 6}
    print("## SEAL %s (seal-python) on this host, %d cores; us per ciphertext (pair for bgv/combined)"
          % (seal.__version__ if hasattr(seal, "__version__") else "", procs))
    print("## DPU = modelled bench_he figure per ciphertext at its DPU count; ratio = DPU / SEAL (>1: DPUs slower)")
    print("%6s %3s %9s %12s %12s %12s %12s %12s %10s %10s %9s" % (
        "n", "k", "op", "SEAL1 min", "SEAL1 med", "SEAL%d /call" % procs, "DPU custom", "DPU native",
        "cust/S1", "cust/S%d" % procs, "DRAMatic"))
    for n, k in sorted({(n, k) for n, k, _ in dpu}):
        seal_bits = data_level(n)
        if -(-sum(seal_bits) // DPU_MODULUS_BITS) != k:
            sys.exit("seal_bench: bench_he ran n=%d with %d moduli, but SEAL's default ciphertext modulus (%s bits) "
                     "takes %d of %d bits" % (n, k, "+".join(map(str, seal_bits)),
                                              -(-sum(seal_bits) // DPU_MODULUS_BITS), DPU_MODULUS_BITS))
        print("%6d %3d %9s  SEAL: %d residues of %s bits (BFVDefault less the special prime); DPUs: %d of %d bits"
              % (n, k, "", len(seal_bits), "+".join(map(str, seal_bits)), k, DPU_MODULUS_BITS))
        f0 = host_ghz()
        one = time_one(n, 40)
        f1 = host_ghz()
        every = time_all_cores(n, 40, procs)
        for name in ("ntt", "intt", "bgv", "combined"):
            allc = every[name]
            dc, dn = dpu[(n, k, "custom")][name], dpu[(n, k, "native")][name]
            print("%6d %3d %9s %12.1f %12.1f %12.1f %12.2f %12.2f %10.2f %10.2f %8dx" % (
                n, k, name, one[name][0], one[name][1], allc, dc, dn, dc / one[name][1], dc / allc, drama[name]))
        print("%6d %3d %9s  SEAL throughput on %d processes / one: %.2fx (median per call: ntt %.2f, intt %.2f, "
              "bgv %.2f)" % (n, k, "", procs, one["combined"][1] / every["combined"], one["ntt"][1] / every["ntt"],
                             one["intt"][1] / every["intt"], one["bgv"][1] / every["bgv"]))
        ops4 = ("ntt", "intt", "bgv", "combined")
        rel = [("one thread there = one here", 1.0)]
        if f0 is not None:
            f = max(f0, f1)  # SEAL's minimum is its fastest, undisturbed call
            print("%6d %3d %9s  this host's core: %.2f and %.2f GHz before and after the one-process timing; SEAL1 "
                  "min in k cycles at %.2f GHz: %s" % (n, k, "", f0, f1, f, ", ".join(
                      "%s %.0f" % (o, one[o][0] * f) for o in ops4)))
            rel += [("one thread there at the 5415+'s %s %.1f GHz" % (name, g), f / g)
                    for name, g in XEON_GHZ.items()]
        for what, scale in rel:
            print("%6d %3d %9s  DPU custom / SEAL16 (SEAL1 min x %.3f / %.1f), %s: %s" % (
                n, k, "", scale, SEAL16_PER_THREAD, what, ", ".join(
                    "%s %.2f" % (o, dpu[(n, k, "custom")][o] / (one[o][0] * scale / SEAL16_PER_THREAD))
                    for o in ops4)))
        c = dpu[(n, k, "custom")]
        print("%6d %3d %9s  transfers per pair: up %.2f us, down %.2f us (%.1f%% and %.1f%% of the combined kernels;"
              " DRAMatic: 3%% and 6%%)" % (n, k, "", c["up"], c["down"], 100 * c["up"] / c["combined"],
                                           100 * c["down"] / c["combined"]))
        sys.stdout.flush()


if __name__ == "__main__":
    main()
