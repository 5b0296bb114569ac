# SPDX-License-Identifier: MIT
"""Independent reference for workloads/ckks: RNS-CKKS homomorphic multiplication
(tensor product, hybrid key switching with dnum digits and K extension limbs,
rescaling) in numpy uint64 arithmetic (every product of two residues < 2^30
fits 64 bits) and Python big integers, written from the textbook definitions
(Cheon-Kim-Kim-Song; Han-Ki hybrid key switching; Bajard et al.'s fast base
conversion), not from the DPU code.

Conventions shared with the HE library (and SEAL): moduli are the largest
primes q < 2^bits with q = 1 mod 2n, increasing; psi is the minimal primitive
2n-th root of unity; the NTT form holds a(psi^(2j+1)) at slot bitrev(j).
Limbs 0..L are the ciphertext modulus Q, limbs L+1..L+K the extension P.
"""
import numpy as np

# ---- primes, roots, NTT ---------------------------------------------------------------------------


def is_prime(q):
    if q < 2:
        return False
    for p in (2, 3, 5, 7, 11, 13):
        if q % p == 0:
            return q == p
    d, s = q - 1, 0
    while d % 2 == 0:
        d //= 2
        s += 1
    for a in (2, 7, 61):  # deterministic for q < 2^32
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


def primes(n, count, bits):
    """The `count` largest primes q < 2^bits, q = 1 mod 2n, in increasing order."""
    out, q = [], ((1 << bits) - 1) // (2 * n) * (2 * n) + 1
    while len(out) < count:
        if q >= (1 << bits):
            q -= 2 * n
            continue
        if q <= 2 * n:
            raise ValueError("not enough primes")
        if is_prime(q):
            out.append(q)
        q -= 2 * n
    return sorted(out)


def minimal_root(q, n):
    """Smallest primitive 2n-th root of unity mod q."""
    for g in range(2, q):
        r = pow(g, (q - 1) // (2 * n), q)
        if pow(r, n, q) == q - 1:
            break
    best, x, r2 = r, r, r * r % q
    for _ in range(n - 1):  # the odd powers of r are all the primitive 2n-th roots
        x = x * r2 % q
        best = min(best, x)
    return best


def bitrev(x, bits):
    return int(format(x, "0%db" % bits)[::-1], 2) if bits else 0


class Ntt:
    """Negacyclic NTT mod q (Cooley-Tukey, natural order in, bit-reversed out) and its inverse."""

    def __init__(self, q, n):
        self.q, self.n = q, n
        logn = n.bit_length() - 1
        psi = minimal_root(q, n)
        pw = [1] * n
        for i in range(1, n):
            pw[i] = pw[i - 1] * psi % q
        br = [bitrev(i, logn) for i in range(n)]
        self.fwd = np.array([pw[br[i]] for i in range(n)], dtype=np.uint64)          # psi^bitrev(i)
        self.inv = np.array([pow(pw[br[i]], q - 2, q) for i in range(n)], dtype=np.uint64)
        self.n_inv = pow(n, q - 2, q)

    def forward(self, a):
        q, n = np.uint64(self.q), self.n
        a = np.array(a, dtype=np.uint64).copy()
        m, t = 1, n
        while m < n:
            t //= 2
            v = a.reshape(m, 2, t)
            s = self.fwd[m:2 * m].reshape(m, 1)
            u, w = v[:, 0, :].copy(), v[:, 1, :] * s % q
            v[:, 0, :] = (u + w) % q
            v[:, 1, :] = (u + q - w) % q
            m *= 2
        return a

    def inverse(self, a):
        q, n = np.uint64(self.q), self.n
        a = np.array(a, dtype=np.uint64).copy()
        m, t = n, 1
        while m > 1:
            h = m // 2
            v = a.reshape(h, 2, t)
            s = self.inv[h:2 * h].reshape(h, 1)
            u, w = v[:, 0, :].copy(), v[:, 1, :].copy()
            v[:, 0, :] = (u + w) % q
            v[:, 1, :] = (u + q - w) % q * s % q
            t *= 2
            m = h
        return a * np.uint64(self.n_inv) % q


# ---- parameters -------------------------------------------------------------------------------------


class Params:
    def __init__(self, n, levels, ext_limbs, dnum, bits):
        assert (levels + 1) % dnum == 0
        self.n, self.L, self.K, self.dnum, self.bits = n, levels, ext_limbs, dnum, bits
        self.k = levels + 1 + ext_limbs
        self.moduli = primes(n, self.k, bits)
        self.alpha = (levels + 1) // dnum
        self.ntt = [Ntt(q, n) for q in self.moduli]
        self.Q = list(range(levels + 1))
        self.P = list(range(levels + 1, self.k))

    def digit(self, d):
        return list(range(d * self.alpha, (d + 1) * self.alpha))

    def big_P(self):
        r = 1
        for j in self.P:
            r *= self.moduli[j]
        return r


def mulmod(a, b, q):
    return np.asarray(a, dtype=np.uint64) * np.asarray(b, dtype=np.uint64) % np.uint64(q)


def base_convert(par, x, src, dst):
    """Fast base conversion: x[i] (coefficient residues at limbs src) -> residues at each limb of dst:
    sum_f [x_f (Q_F/q_f)^-1]_{q_f} ((Q_F/q_f) mod q) mod q."""
    qs = [par.moduli[i] for i in src]
    t = []
    for f, i in enumerate(src):
        qhat = 1
        for g, qg in enumerate(qs):
            if g != f:
                qhat *= qg
        t.append((mulmod(x[i], pow(qhat % qs[f], qs[f] - 2, qs[f]), qs[f]), qhat))
    out = {}
    for j in dst:
        q = par.moduli[j]
        acc = np.zeros(par.n, dtype=np.uint64)
        for tf, qhat in t:
            acc = (acc + mulmod(tf % np.uint64(q), qhat % q, q)) % np.uint64(q)
        out[j] = acc
    return out


# ---- the multiplication ---------------------------------------------------------------------------


def multiply(par, a, b, key):
    """a, b: (2, k, n) uint64 ciphertexts in NTT form (residues at the P limbs ignored);
    key: (dnum, 2, k, n) NTT form.  Returns (2, k, n): the product at level L-1, zeros at q_L and P."""
    k, n, mod = par.k, par.n, par.moduli
    Q, P, L = par.Q, par.P, par.L
    d = np.zeros((3, k, n), dtype=np.uint64)
    for j in Q:
        q = mod[j]
        d[0, j] = mulmod(a[0, j], b[0, j], q)
        d[1, j] = (mulmod(a[0, j], b[1, j], q) + mulmod(a[1, j], b[0, j], q)) % np.uint64(q)
        d[2, j] = mulmod(a[1, j], b[1, j], q)
    x = {j: par.ntt[j].inverse(d[2, j]) for j in Q}
    s = np.zeros((2, k, n), dtype=np.uint64)
    for dg in range(par.dnum):
        src = par.digit(dg)
        ext = base_convert(par, x, src, [j for j in range(k) if j not in src])
        for j in src:
            ext[j] = x[j]
        for j in range(k):
            e = par.ntt[j].forward(ext[j])
            for c in range(2):
                s[c, j] = (s[c, j] + mulmod(e, key[dg, c, j], mod[j])) % np.uint64(mod[j])
    out = np.zeros((2, k, n), dtype=np.uint64)
    big_p = par.big_P()
    for c in range(2):
        y = {j: par.ntt[j].inverse(s[c, j]) for j in P}
        z = base_convert(par, y, P, Q)
        u = {}
        for j in Q:
            q = mod[j]
            r = mulmod((s[c, j] + np.uint64(q) - par.ntt[j].forward(z[j])) % np.uint64(q), pow(big_p % q, q - 2, q), q)
            u[j] = (d[c, j] + r) % np.uint64(q)
        # rescale by q_L
        yl = par.ntt[L].inverse(u[L])
        for j in range(L):
            q = mod[j]
            zl = par.ntt[j].forward(yl % np.uint64(q))
            out[c, j] = mulmod((u[j] + np.uint64(q) - zl) % np.uint64(q), pow(mod[L], q - 2, q), q)
    return out


# ---- keys, encryption, encoding (for the decryption check) -------------------------------------


def to_ntt_limbs(par, coeffs, limbs):
    """Signed integer coefficients -> NTT-form residues at the given limbs."""
    out = np.zeros((par.k, par.n), dtype=np.uint64)
    for j in limbs:
        q = par.moduli[j]
        out[j] = par.ntt[j].forward(np.array([int(c) % q for c in coeffs], dtype=np.uint64))
    return out


def keygen(par, rng):
    """Secret s (ternary) and the switching key of s^2 over Q and P:
    key[d] = (-a s + e + P [j in digit d] s^2, a), NTT form."""
    k, n, mod = par.k, par.n, par.moduli
    s = rng.integers(-1, 2, n)
    s_ntt = to_ntt_limbs(par, s, range(k))
    big_p = par.big_P()
    key = np.zeros((par.dnum, 2, k, n), dtype=np.uint64)
    for dg in range(par.dnum):
        e = to_ntt_limbs(par, np.rint(rng.normal(0, 3.2, n)).astype(np.int64), range(k))
        digit = set(par.digit(dg))
        for j in range(k):
            q = mod[j]
            a = np.array([int(v) for v in rng.integers(0, q, n)], dtype=np.uint64)
            b = (np.uint64(q) - mulmod(a, s_ntt[j], q)) % np.uint64(q)
            b = (b + e[j]) % np.uint64(q)
            if j in digit:
                b = (b + mulmod(mulmod(s_ntt[j], s_ntt[j], q), big_p % q, q)) % np.uint64(q)
            key[dg, 0, j], key[dg, 1, j] = b, a
    return s, s_ntt, key


def encrypt(par, rng, s_ntt, m):
    """Symmetric encryption of the integer polynomial m at level L; the P limbs get random words
    (the multiplication must ignore them)."""
    k, n, mod = par.k, par.n, par.moduli
    e = to_ntt_limbs(par, np.rint(rng.normal(0, 3.2, n)).astype(np.int64), par.Q)
    mm = to_ntt_limbs(par, m, par.Q)
    ct = np.zeros((2, k, n), dtype=np.uint64)
    for j in range(k):
        q = mod[j]
        a = rng.integers(0, q, n).astype(np.uint64)
        if j in par.Q:
            ct[0, j] = ((np.uint64(q) - mulmod(a, s_ntt[j], q)) + e[j] + mm[j]) % np.uint64(q)
        else:
            ct[0, j] = rng.integers(0, q, n).astype(np.uint64)
        ct[1, j] = a
    return ct


def decrypt(par, s_ntt, ct, limbs):
    """Centred integer coefficients of ct0 + ct1 s modulo the product of `limbs`."""
    big_q, res = 1, []
    for j in limbs:
        q = par.moduli[j]
        res.append(par.ntt[j].inverse((ct[0, j] + mulmod(ct[1, j], s_ntt[j], q)) % np.uint64(q)))
        big_q *= q
    out = []
    for i in range(par.n):
        v = 0
        for j, r in zip(limbs, res):
            q = par.moduli[j]
            qh = big_q // q
            v += int(r[i]) * qh * pow(qh % q, q - 2, q)
        v %= big_q
        out.append(v - big_q if v > big_q // 2 else v)
    return out


def _slot_index(n):
    """Index m of the odd power 2m+1 of zeta = exp(i pi / n) that slot j uses: 5^j mod 2n."""
    return np.array([(pow(5, j, 2 * n) - 1) // 2 for j in range(n // 2)])


def encode(n, z, scale):
    """Complex slots (n/2) -> integer coefficients round(scale * sigma^-1(z))."""
    v = np.zeros(n, dtype=complex)
    idx = _slot_index(n)
    v[idx] = z
    v[n - 1 - idx] = np.conj(z)  # zeta^(2n - k) is the conjugate of zeta^k
    zeta = np.exp(1j * np.pi * np.arange(n) / n)
    c = np.fft.fft(v) / n / zeta
    return np.rint(c.real * scale).astype(np.int64)


def decode(n, coeffs, scale):
    zeta = np.exp(1j * np.pi * np.arange(n) / n)
    vals = n * np.fft.ifft(np.array(coeffs, dtype=float) * zeta)
    return vals[_slot_index(n)] / scale
