# SPDX-License-Identifier: MIT
"""Independent pure-Python reference for the HE library's arithmetic.

Nothing here mirrors the DPU kernels: the NTT is a twisted cyclic DFT computed
by a recursive radix-2 FFT (not the Cooley-Tukey/Gentleman-Sande loops with
bit-reversed twiddle tables), the root comes from a generator of Z_q^*, and
the negacyclic product is computed without any NTT (schoolbook, or Kronecker
substitution with Python integers).
"""
import random


def is_prime(q):
    if q < 2:
        return False
    for p in (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37):
        if q % p == 0:
            return q == p
    d, s = q - 1, 0
    while d % 2 == 0:
        d //= 2
        s += 1
    for a in (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37):
        x = pow(a, d, q)
        if x in (1, q - 1):
            continue
        for _ in range(s - 1):
            x = x * x % q
            if x == q - 1:
                break
        else:
            return False
    return True


def prime_factors(m):
    f, p = set(), 2
    while p * p <= m:
        while m % p == 0:
            f.add(p)
            m //= p
        p += 1
    if m > 1:
        f.add(m)
    return f


def minimal_root(q, n):
    """Smallest primitive 2n-th root of unity mod q (SEAL's and HEXL's psi)."""
    assert is_prime(q) and (q - 1) % (2 * n) == 0
    fac = prime_factors(q - 1)
    g = next(g for g in range(2, q) if all(pow(g, (q - 1) // p, q) != 1 for p in fac))
    r = pow(g, (q - 1) // (2 * n), q)
    return min(pow(r, k, q) for k in range(1, 2 * n, 2))


def ntt_friendly_primes(n, count, bits):
    """The `count` largest primes below 2^bits that are 1 mod 2n, ascending."""
    out, q = [], (2 ** bits - 1) // (2 * n) * (2 * n) + 1
    while len(out) < count and q > 2 ** (bits - 1):
        if is_prime(q):
            out.append(q)
        q -= 2 * n
    return sorted(out)


def bitrev(x, bits):
    return int(format(x, "0%db" % bits)[::-1], 2) if bits else 0


def _fft(a, w, q):
    """Cyclic DFT: X_j = sum_i a_i w^(ij) mod q, recursive radix 2."""
    n = len(a)
    if n == 1:
        return a[:]
    even, odd = _fft(a[0::2], w * w % q, q), _fft(a[1::2], w * w % q, q)
    out, f = [0] * n, 1
    for j in range(n // 2):
        t = f * odd[j] % q
        out[j], out[j + n // 2] = (even[j] + t) % q, (even[j] - t) % q
        f = f * w % q
    return out


def ntt(a, q, psi=None):
    """Negacyclic NTT in SEAL's form: slot bitrev(j) holds a(psi^(2j+1))."""
    n = len(a)
    psi = psi or minimal_root(q, n)
    twisted = [x * pow(psi, i, q) % q for i, x in enumerate(a)]
    x = _fft(twisted, psi * psi % q, q)
    bits = n.bit_length() - 1
    out = [0] * n
    for j in range(n):
        out[bitrev(j, bits)] = x[j]
    return out


def intt(y, q, psi=None):
    n = len(y)
    psi = psi or minimal_root(q, n)
    bits = n.bit_length() - 1
    x = [y[bitrev(j, bits)] for j in range(n)]
    psi_inv = pow(psi, q - 2, q)
    b = _fft(x, psi_inv * psi_inv % q, q)
    n_inv = pow(n, q - 2, q)
    return [v * n_inv % q * pow(psi_inv, i, q) % q for i, v in enumerate(b)]


def eval_at(a, x, q):
    """a(x) mod q by Horner."""
    r = 0
    for c in reversed(a):
        r = (r * x + c) % q
    return r


def negacyclic_schoolbook(a, b, q):
    n = len(a)
    c = [0] * n
    for i, x in enumerate(a):
        for j, y in enumerate(b):
            if i + j < n:
                c[i + j] += x * y
            else:
                c[i + j - n] -= x * y
    return [v % q for v in c]


def negacyclic_kronecker(a, b, q):
    """a * b in Z_q[x]/(x^n + 1) through one big-integer product."""
    n = len(a)
    w = 2 * q.bit_length() + n.bit_length() + 1
    pa = int.from_bytes(b"".join(x.to_bytes(w // 8 + 1, "little") for x in a), "little")
    pb = int.from_bytes(b"".join(x.to_bytes(w // 8 + 1, "little") for x in b), "little")
    slot = (w // 8 + 1) * 8
    prod = (pa * pb).to_bytes((2 * n) * slot // 8 + 8, "little")
    step = slot // 8
    c = [int.from_bytes(prod[i * step:(i + 1) * step], "little") for i in range(2 * n)]
    return [(c[i] - c[i + n]) % q for i in range(n)]


def random_poly(rng, n, q):
    return [rng.randrange(q) for _ in range(n)]
