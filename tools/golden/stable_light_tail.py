# Independent 50-digit density in the light left tail of alpha = 1.5, beta = 1 (S0, unit scale),
# x = -10, where log g has no zero (g > 98 on the whole interval) and the mass sits at the
# interval's upper end: Nolan's integral after the reflection f(x; beta) = f(-x; -beta), by
# mpmath's quadrature on panels spread uniformly and graded towards that end. (The bisection
# of stable_near_zeta.py assumes a zero of log g and misplaces its panels here.)
# log g is stable_near_zeta.py's.
# Run: python3 tools/golden/stable_light_tail.py  ->  pdf and log pdf at x = -10.
import mpmath as mp

from stable_near_zeta import log_g

mp.mp.dps = 50
a, b, x = mp.mpf(1.5), mp.mpf(-1), mp.mpf(10)  # reflected: x -> -x, beta -> -beta
zeta = -b * mp.tan(mp.pi * a / 2)
xi = x - zeta
th0, lg = log_g(xi, a, b)


def h(th):
    l = lg(th)
    return mp.exp(l - mp.exp(l))


lo, hi = -th0, mp.pi / 2
pts = sorted(set([lo, hi] + [hi - (hi - lo) * k / mp.mpf(64) for k in range(1, 64)]
                 + [hi - mp.mpf(10) ** -k for k in range(3, 30)]))
pdf = mp.re(a / (mp.pi * xi * abs(a - 1)) * mp.quad(h, pts))
print(mp.nstr(pdf, 17), mp.nstr(mp.log(pdf), 17))
