# examples/python_quickstart.py: clstat from Python, each area once, each checked against
# NumPy or SciPy (run by ctest as example.python_quickstart).
import numpy as np
import scipy.stats

import clstat

rng = np.random.default_rng(1)
x = np.concatenate([rng.normal(-2, 0.5, 1000), rng.normal(1, 1, 2000)])

# KDE: a drop-in for scipy.stats.gaussian_kde, exact sums on the device.
grid = np.linspace(-5, 5, 11)
f = clstat.gaussian_kde(x)(grid)
assert np.allclose(f, scipy.stats.gaussian_kde(x)(grid), rtol=1e-12)

# Bandwidths in data units: the exact plug-in (KernSmooth::dpik) and LSCV (ks::hlscv).
h = clstat.bandwidth.plugin(x)[0]
cv = clstat.bandwidth.lscv_h(x)
print(f"plug-in h = {h:.4f}, LSCV h = {cv.h[0]:.4f}")

# Alpha-stable laws in SciPy's argument order; S0 unless told otherwise.
p = clstat.stable.pdf([-1.0, 0.0, 2.0], 1.5, 0.5)
q = clstat.stable.ppf([0.05, 0.5, 0.95], 1.5, 0.5)
assert np.allclose(clstat.stable.cdf(q, 1.5, 0.5), [0.05, 0.5, 0.95], atol=1e-12)
alpha, beta, loc, scale = clstat.stable.fit(clstat.stable.rvs(1.7, -0.3, size=3000, seed=3))
print(f"stable pdf {p}, MLE alpha {alpha:.3f} beta {beta:.3f}")

# Exact order statistics with NumPy's names; float32 stays float32.
big = rng.normal(size=1_000_001).astype(np.float32)
assert clstat.median(big) == np.median(big.astype(np.float64))
assert np.array_equal(clstat.quantile(x, [0.1, 0.9]), np.quantile(x, [0.1, 0.9]))

# Robust regression: LTS ignores the 20% of rows planted far off the line.
X = rng.uniform(0, 10, size=(500, 1))
y = 1 + 2 * X[:, 0] + rng.normal(0, 0.3, 500)
y[:100] += 30
fit = clstat.robust.lts(X, y)
assert abs(fit.coefficients[1] - 2) < 0.05
print(f"LTS: {fit.coefficients.round(3)}, {len(fit.outliers)} outliers")
