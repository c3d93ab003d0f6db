#!/usr/bin/env python3
"""Golden values for tests/test_kde_golden.cpp from scipy.stats.gaussian_kde.

gaussian_kde uses H = factor^2 * cov(x) (weighted covariance when weights are given), which is
clstat's Bandwidth::scaled_covariance(factor) for unweighted data. Writes tests/data/kde_scipy.csv:
  case,d,factor,weighted,kind,index,values...
kind "x" rows are samples (with weight last when weighted), "y" rows evaluation points, "f" rows
the density at the points. Data come from numpy's PCG64 with a fixed seed.
"""
import sys

import numpy as np
import scipy
from scipy.stats import gaussian_kde


def main(out):
    rng = np.random.default_rng(20261122)
    rows = []
    cases = [("d1", 1, 0.35, False), ("d2", 2, 0.5, False), ("d3", 3, 0.6, False), ("d2w", 2, 0.45, True)]
    for name, d, factor, weighted in cases:
        n, m = 200, 25
        x = rng.normal(size=(d, n)) * np.arange(1, d + 1)[:, None] + 0.3
        if d > 1:
            x[1] += 0.5 * x[0]  # correlated, so the full matrix matters
        y = rng.normal(size=(d, m)) * 1.2
        w = rng.uniform(0.1, 2.0, size=n) if weighted else None
        k = gaussian_kde(x, bw_method=factor, weights=w)
        f = k(y)
        for j in range(n):
            vals = list(x[:, j]) + ([w[j]] if weighted else [])
            rows.append([name, d, factor, int(weighted), "x", j] + vals)
        for i in range(m):
            rows.append([name, d, factor, int(weighted), "y", i] + list(y[:, i]))
            rows.append([name, d, factor, int(weighted), "f", i, f[i]])
    with open(out, "w") as fh:
        fh.write("# scipy.stats.gaussian_kde golden values, scipy %s numpy %s; made by tools/golden/kde_scipy.py\n"
                 % (scipy.__version__, np.__version__))
        for r in rows:
            fh.write(",".join(repr(v) if isinstance(v, float) else str(v) for v in r) + "\n")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "tests/data/kde_scipy.csv")
