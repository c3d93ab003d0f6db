# Independent S0 pdf, cdf and quantiles, at 40 digits, for alpha = 1 +- 10^-k (k = 3..15) and
# alpha = 1, beta in {-1, -0.5, 0.5, 1}: the reference for the continuity of the S0 law across
# alpha = 1 (tests/test_stable.cpp, "near alpha = 1").
#
# Nolan's integrals (Nolan 1997, Theorem 1; the alpha = 1 form for alpha = 1) evaluated in mpmath
# at 80 digits: at alpha = 1 + delta the integrand's exponent is alpha/delta times a difference of
# numbers of order 1, so 15 digits cancel at delta = 1e-15 and 80 leave more than 40. The peak of
# g e^-g is located by bisection on log g and the quadrature's panels are graded from it in steps
# of its own width, which is about delta radians. A second source checks the first: the density
# by Fourier inversion of the S0 characteristic function (Nolan 2020, eq. 1.2), which is
# continuous in alpha by construction, at a few of the points (the script stops if they disagree).
#
# Inputs are the doubles the tests pass: alpha = float(1 + 10^-k), so the reference is for the
# alpha the library sees. Output rows: alpha,beta,x,pdf,cdf,sf (x a point) and alpha,beta,p,quantile.
# Run: python3 tools/golden/stable_near_one.py > tests/data/stable/near_one_mpmath.csv
# (about five minutes on 16 cores). Rows whose integrals need more than 4000 panels are left out
# and named on stderr.
import multiprocessing
import sys

import mpmath as mp
from mpmath.calculus.quadrature import GaussLegendre

DPS = 64
XS = ['-30', '-5', '-2', '-0.5', '0', '0.5', '2', '5', '30']
PS = ['0.01', '0.5', '0.99']
BETAS = ['-1', '-0.5', '0.5', '1']


def alphas():
    out = [1.0]
    for k in range(3, 16):
        out += [1 + 10.0 ** -k, 1 - 10.0 ** -k]
    return out


def unit_alpha1(x, b):
    """S0 = S1 unit law at alpha = 1, beta = b > 0: Nolan's alpha = 1 integrals."""
    def lg(th):
        w = mp.pi / 2 + b * th
        return -mp.pi * x / (2 * b) + mp.log(2 / mp.pi) + mp.log(abs(w / mp.cos(th))) + w * mp.tan(th) / b
    return lg, -mp.pi / 2, mp.pi / 2


def unit_general(xi, a, b):
    """Nolan's g for alpha != 1 at distance xi > 0 from zeta."""
    th0 = mp.atan(b * mp.tan(mp.pi * a / 2)) / a
    a1 = a / (a - 1)

    def lg(th):
        # Each factor is positive on (lo, hi); abs() keeps quadrature nodes within the working
        # precision of an end (where a factor vanishes) real.
        c, s, ca = abs(mp.cos(th)), abs(mp.sin(a * (th0 + th))), abs(mp.cos(a * th0 + (a - 1) * th))
        return a1 * mp.log(xi) + mp.log(mp.cos(a * th0)) / (a - 1) + a1 * (mp.log(c) - mp.log(s)) + mp.log(ca / c)
    return lg, -th0, mp.pi / 2, th0


def integrals(lg, lo, hi):
    """int g e^-g, int e^-g and int 1 - e^-g over (lo, hi), panels graded from the peak (log g = 0)."""
    eps = (hi - lo) * mp.mpf(10) ** -60
    x0, x1 = lo + eps, hi - eps
    f0, f1 = lg(x0), lg(x1)
    if (f0 < 0) == (f1 < 0):
        # No crossing (the light tail of |beta| = 1): the integrands are largest at the end where
        # log g is nearest 0, and fall off within a small distance of it; panels graded from it.
        end = lo if abs(f0) <= abs(f1) else hi
        sgn = 1 if end == lo else -1
        pts = {lo, hi} | {end + sgn * (hi - lo) * mp.mpf(2) ** -k for k in range(1, 80)}
    else:
        for _ in range(400):
            m = (x0 + x1) / 2
            if (lg(m) < 0) == (f0 < 0):
                x0 = m
            else:
                x1 = m
        t = (x0 + x1) / 2
        hs = min(t - lo, hi - t) * mp.mpf(10) ** -6
        slope = abs(lg(t + hs) - lg(t - hs)) / (2 * hs)
        w = 1 / slope if slope > 0 else (hi - lo) / 8
        pts = {lo, hi, t}
        d = w / 4
        while t - d > lo:
            pts.add(t - d)
            d *= 2
        d = w / 4
        while t + d < hi:
            pts.add(t + d)
            d *= 2
    pts = sorted(pts)

    return gauss(lg, pts + list(mp.linspace(lo, hi, 17)))


class NotConverged(Exception):
    """More than 4000 panels: the row is left out (and named on stderr) rather than guessed."""


def gl_rule(degree):
    """Gauss-Legendre nodes and weights on [-1, 1] at the working precision."""
    key = (degree, mp.mp.prec)
    if key not in _RULES:
        _RULES[key] = GaussLegendre(mp.mp).calc_nodes(degree, mp.mp.prec)
    return _RULES[key]


_RULES = {}


def panel(lg, a, b, degree):
    """(int g e^-g, int e^-g, int 1 - e^-g) over [a, b] by Gauss-Legendre (mpmath's degree:
    3 * 2^(degree-1) nodes)."""
    c, h = (a + b) / 2, (b - a) / 2
    I = J = K = mp.mpf(0)
    for x, w in gl_rule(degree):
        l = lg(c + h * x)
        if l < 20000:
            g = mp.exp(l)
            I += w * mp.exp(l - g)
            J += w * mp.exp(-g)
            K += w * -mp.expm1(-g)
        else:
            K += w
    return h * I, h * J, h * K


def gauss(lg, pts):
    """The three integrals over the panels between pts: each panel by 48- and 96-point
    Gauss-Legendre, bisected until the two agree to 1e-42 of the totals. (mp.quad was not used: its tanh-sinh rule
    converges slowly on a panel much wider than a Gaussian peak, and it returned values 2e-9 off
    in the light tail of alpha = 1, beta = 1 without complaint.)"""
    pts = sorted(set(pts))
    first = [panel(lg, a, b, 6) for a, b in zip(pts[:-1], pts[1:])]
    scale = [max(abs(mp.fsum(f[k] for f in first)), mp.mpf(10) ** -300) for k in (0, 1, 2)]
    todo = [(a, b, f) for (a, b), f in zip(zip(pts[:-1], pts[1:]), first)]
    done = []
    while todo:
        if len(done) + len(todo) > 4000:
            raise NotConverged()
        a, b, hi_ = todo.pop()
        lo_ = panel(lg, a, b, 5)
        ok = all(abs(p - q) <= mp.mpf(10) ** -42 * s for p, q, s in zip(lo_, hi_, scale))
        if ok or b - a < mp.mpf(10) ** -30 * (pts[-1] - pts[0]):
            done.append(hi_)
        else:
            m = (a + b) / 2
            todo += [(a, m, panel(lg, a, m, 6)), (m, b, panel(lg, m, b, 6))]
    return tuple(mp.fsum(d[k] for d in done) for k in (0, 1, 2))


def s0(x, a, b):
    """S0 unit pdf, cdf and sf at x, each tail computed directly (never as 1 minus the other),
    on the side x > zeta after the reflection f(x; b) = f(-x; -b), F(x; b) = S(-x; -b)."""
    if a == 1:
        if b == 0:
            return 1 / (mp.pi * (1 + x * x)), mp.mpf(1) / 2 + mp.atan(x) / mp.pi, mp.mpf(1) / 2 - mp.atan(x) / mp.pi
        if b < 0:
            f, F, S = s0(-x, a, -b)
            return f, S, F
        lg, lo, hi = unit_alpha1(x, b)
        I, J, K = integrals(lg, lo, hi)
        return I / (2 * b), J / mp.pi, K / mp.pi
    zeta = -b * mp.tan(mp.pi * a / 2)
    xi = x - zeta
    if a < 1 and abs(b) == 1 and (xi < 0 if b == 1 else xi > 0):  # outside the support
        return mp.mpf(0), mp.mpf(0 if b == 1 else 1), mp.mpf(1 if b == 1 else 0)
    if xi < 0:
        f, F, S = s0(-x, a, -b)
        return f, S, F
    lg, lo, hi, th0 = unit_general(xi, a, b)
    I, J, K = integrals(lg, lo, hi)
    pdf = a / (mp.pi * xi * abs(a - 1)) * I
    lead = (mp.pi / 2 - th0) / mp.pi
    # With J = int e^-g and K = int (1 - e^-g) (J + K = pi/2 + theta0, the interval's width).
    if a < 1:
        return pdf, lead + J / mp.pi, K / mp.pi
    return pdf, lead + K / mp.pi, J / mp.pi


def fourier_pdf(x, a, b):
    """S0 unit pdf by inversion of exp(-|t|^a (1 + i b sign(t) tan(pi a/2) (|t|^(1-a) - 1)))."""
    def psi(t):  # Im log phi(t) for t > 0, continuous at a = 1
        if a == 1:
            return -b * t * (2 / mp.pi) * mp.log(t)
        return -b * t ** a * mp.tan(mp.pi * a / 2) * (t ** (1 - a) - 1)
    f = lambda t: mp.exp(-t ** a) * mp.cos(psi(t) - x * t)
    return mp.quad(f, mp.linspace(0, 130, 521)) / mp.pi


def point_row(args):
    a, b, x = args
    with mp.workdps(DPS):
        try:
            f, F, S = s0(mp.mpf(x), mp.mpf(a), mp.mpf(b))
        except NotConverged:
            return None, 'not converged: alpha=%r beta=%s x=%s' % args
    return '%r,%s,%s,%s,%s,%s' % (a, b, x, mp.nstr(f, 40), mp.nstr(F, 40), mp.nstr(S, 40)), None


def quantile_row(args):
    try:
        return quantile_solve(*args), None
    except NotConverged:
        return None, 'not converged: alpha=%r beta=%s p=%s' % args


def quantile_solve(a, b, p):
    with mp.workdps(DPS):
        A, B, P = mp.mpf(a), mp.mpf(b), mp.mpf(p)
        # Newton from the alpha = 1 Cauchy-like guess, safeguarded by bisection on a bracket.
        lo, hi = mp.mpf(-400), mp.mpf(400)
        z = mp.tan(mp.pi * (P - mp.mpf(1) / 2))
        for _ in range(200):
            f, F, _ = s0(z, A, B)
            r = F - P
            if r > 0:
                hi = z
            else:
                lo = z
            step = r / f
            nz = z - step
            if not (lo < nz < hi):
                nz = (lo + hi) / 2
            if abs(nz - z) < mp.mpf(10) ** -45 * max(1, abs(z)):
                z = nz
                break
            z = nz
    return '%r,%s,%s,%s' % (a, b, p, mp.nstr(z, 40))


def check_second_source():
    # Nolan's integral against Fourier inversion where the latter converges fast (|x| small).
    with mp.workdps(50):
        for a in (1 + 1e-6, 1 - 1e-9, 1.0):
            for b in (-0.5, 1.0):
                for x in (-0.5, 0.5):
                    f = s0(mp.mpf(x), mp.mpf(a), mp.mpf(b))[0]
                    g = fourier_pdf(mp.mpf(x), mp.mpf(a), mp.mpf(b))
                    if abs(f - g) > mp.mpf(10) ** -28 * abs(f):
                        sys.exit('Nolan and Fourier disagree at alpha=%r beta=%r x=%r: %s vs %s' % (a, b, x, f, g))


def main():
    check_second_source()
    pts = [(a, b, x) for a in alphas() for b in BETAS for x in XS]
    qs = [(a, b, p) for a in alphas() for b in BETAS for p in PS
          if a == 1 or round(-mp.log10(abs(a - 1))) in (3, 6, 9, 12, 15)]
    with multiprocessing.Pool() as pool:
        print('alpha,beta,x,pdf,cdf,sf')
        for row, skipped in pool.imap_unordered(point_row, pts):
            print(row or '', flush=True)
            if skipped:
                print(skipped, file=sys.stderr)
        print('alpha,beta,p,quantile')
        for row, skipped in pool.imap_unordered(quantile_row, qs):
            print(row or '', flush=True)
            if skipped:
                print(skipped, file=sys.stderr)


if __name__ == '__main__':
    main()
