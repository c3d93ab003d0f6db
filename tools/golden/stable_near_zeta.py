# Independent pdf and cdf, at 40 digits, for the table rows close to zeta at alpha <= 0.2, where
# Nolan's tables are known to be weak (tests/data/stable/README.md): Nolan's integrals (the same
# formulas as cl/stable/stable_point.cl) in mpmath, with the point's distance from zeta taken
# exactly from the S1 coordinate and panels graded towards the peak. Inputs are taken as the
# doubles the tests pass (float(...)), not as the decimal strings: near zeta the density at
# alpha = 0.1 is steep enough that the difference shows at 1e-8.
# Output rows: file,x,alpha,beta,pdf,cdf. Run: python3 tools/golden/stable_near_zeta.py
import csv
import mpmath as mp

mp.mp.dps = 40


def log_g(xi, a, b):
    """theta0 and Nolan's log g(theta) at distance xi > 0 from zeta (S0, unit scale), alpha != 1."""
    th0 = mp.atan(b * mp.tan(mp.pi * a / 2)) / a
    a1 = a / (a - 1)

    def lg(th):
        return (a1 * mp.log(xi) + mp.log(mp.cos(a * th0)) / (a - 1)
                + a1 * (mp.log(mp.cos(th)) - mp.log(mp.sin(a * (th0 + th))))
                + mp.log(mp.cos(a * th0 + (a - 1) * th)) - mp.log(mp.cos(th)))
    return th0, lg


def unit(xi, a, b):
    """S0 pdf and cdf at zeta + xi (unit scale), alpha != 1."""
    if xi == 0:
        th0 = mp.atan(b * mp.tan(mp.pi * a / 2)) / a
        zeta = -b * mp.tan(mp.pi * a / 2)
        return mp.gamma(1 + 1 / a) * mp.cos(th0) / (mp.pi * (1 + zeta ** 2) ** (1 / (2 * a))), (mp.pi / 2 - th0) / mp.pi
    if xi < 0:
        f, F = unit(-xi, a, -b)
        return f, 1 - F
    th0, lg = log_g(xi, a, b)

    def h(th):
        l = lg(th)
        return mp.mpf(0) if l > 5000 else mp.exp(l - mp.exp(l))

    def e(th):
        l = lg(th)
        return mp.mpf(0) if l > 5000 else mp.exp(-mp.exp(l))

    lo, hi = -th0, mp.pi / 2
    x0, x1 = lo + mp.mpf(10) ** -35, hi - mp.mpf(10) ** -35
    f0 = lg(x0)
    for _ in range(300):
        m = (x0 + x1) / 2
        if (lg(m) < 0) == (f0 < 0):
            x0 = m
        else:
            x1 = m
    t = (x0 + x1) / 2
    pts = sorted([lo, t, hi] + [t - (t - lo) * mp.mpf(4) ** -k for k in range(1, 30)]
                 + [t + (hi - t) * mp.mpf(4) ** -k for k in range(1, 30)])
    pdf = a / (mp.pi * xi * abs(a - 1)) * mp.quad(h, pts)
    c1 = (mp.pi / 2 - th0) / mp.pi if a < 1 else 1
    cdf = c1 + (1 if a < 1 else -1) / mp.pi * mp.quad(e, pts)
    return pdf, cdf


def main():
    print('file,x,alpha,beta,pdf,cdf')
    for name in ('pdf', 'cdf'):
        for r in csv.DictReader(open('tests/data/stable/stable-Z1-%s-sample-data.csv' % name)):
            a, x = mp.mpf(float(r['alpha'])), mp.mpf(float(r['x']))
            if a <= mp.mpf('0.2') + mp.mpf(10) ** -9 and abs(x) < mp.mpf('1e-6'):
                f, F = unit(x, a, mp.mpf(float(r['beta'])))  # S1 unit: x is the distance from zeta
                print('%s,%s,%s,%s,%s,%s' % (name, r['x'], r['alpha'], r['beta'], mp.nstr(f, 17), mp.nstr(F, 17)))
    for r in csv.DictReader(open('tests/data/stable/stable-loc-scale-sample-data.csv')):
        a, b, g, d, x = (mp.mpf(float(r[k])) for k in ('alpha', 'beta', 'gamma', 'delta', 'x'))
        d1 = d - b * g * mp.tan(mp.pi * a / 2) if r['param'] == '0' else d  # S1 location
        xi = (x - d1) / g
        if a <= mp.mpf('0.2') + mp.mpf(10) ** -9 and abs(xi) < mp.mpf('1e-6'):
            f, F = unit(xi, a, b)
            print('locscale%s,%s,%s,%s,%s,%s' % (r['param'], r['x'], r['alpha'], r['beta'], mp.nstr(f / g, 17), mp.nstr(F, 17)))


if __name__ == '__main__':
    main()
