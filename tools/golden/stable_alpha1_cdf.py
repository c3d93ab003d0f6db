# Independent values of the alpha = 1 (S1, unit scale) cdf at the six points where Nolan's table
# (tests/data/stable/stable-Z1-cdf-sample-data.csv) lists pct = 0.01 / 0.99 but the listed x is not
# that quantile: Gil-Pelaez inversion of the characteristic function
#   phi(t) = exp(-|t| (1 + i beta (2/pi) sgn(t) log|t|)),
#   F(x) = 1/2 - (1/pi) int_0^inf Im[exp(-i t x) phi(t)] / t dt,
# with mpmath: [0, 2] by quad on 200 panels (the log t phase needs them near 0; quadosc alone
# was off by 8e-8 there), the rest by quadosc. Nolan's alpha = 1 integral in mpmath at 30 digits
# gives the same values. Run: python3 tools/golden/stable_alpha1_cdf.py (a few minutes).
import csv
import mpmath as mp

mp.mp.dps = 30


def cdf(x, b):
    def g(t):
        ph = -t * b * (2 / mp.pi) * mp.log(t) - t * x
        return mp.exp(-t) * mp.sin(ph) / t
    head = mp.quad(g, mp.linspace(0, 2, 200))
    tail = mp.quadosc(g, [2, mp.inf], omega=abs(x))
    return mp.mpf(1) / 2 - (head + tail) / mp.pi


rows = csv.DictReader(open('tests/data/stable/stable-Z1-cdf-sample-data.csv'))
for r in rows:
    if r['alpha'] == '1.0' and r['beta'] in ('-0.3', '-0.2', '-0.1', '0.1', '0.2', '0.3') and r['pct'] in ('0.01', '0.99'):
        if (float(r['beta']) < 0) == (r['pct'] == '0.01'):
            print('%s,%s,%s' % (r['x'], r['beta'], mp.nstr(cdf(mp.mpf(r['x']), mp.mpf(r['beta'])), 17)))
