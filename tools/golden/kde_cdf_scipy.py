#!/usr/bin/env python3
"""Golden values for tests/test_kde_cdf.cpp from scipy.stats.gaussian_kde.integrate_box_1d.

For 1-d data gaussian_kde's kernel is the normal with variance k.covariance[0, 0] (factor^2 times
the, possibly weighted, sample variance), so its CDF at y is clstat::kde_cdf with
Bandwidth::scalar(sqrt(k.covariance[0, 0])); the file records that h, so the test does not depend
on how SciPy weights the variance. Writes tests/data/kde_cdf_scipy.csv:
  case,weighted,h,kind,index,value[,weight]
kind "x": a sample (and its weight when weighted); "y": a point; "F": the CDF at the point.
Points reach into both tails (F down to about 1e-30 and up to 1 - 1e-12). Data come from numpy's
PCG64 with a fixed seed.
"""
import sys

import numpy as np
import scipy
from scipy.stats import gaussian_kde


def main(out):
    rng = np.random.default_rng(20261125)
    rows = []
    for name, factor, weighted in [("plain", 0.4, False), ("weighted", 0.3, True), ("skewed", 0.25, False)]:
        n = 300
        x = rng.normal(size=n) * 1.5 + 0.2
        if name == "skewed":
            x = rng.gamma(2.0, size=n)
        w = rng.uniform(0.1, 2.0, size=n) if weighted else None
        k = gaussian_kde(x, bw_method=factor, weights=w)
        h = float(np.sqrt(k.covariance[0, 0]))
        lo, hi = x.min(), x.max()
        y = np.concatenate([np.linspace(lo - 11 * h, hi + 7 * h, 40), rng.choice(x, 5)])
        F = [k.integrate_box_1d(-np.inf, v) for v in y]
        for j in range(n):
            rows.append([name, int(weighted), h, "x", j, float(x[j])] + ([float(w[j])] if weighted else []))
        for i, v in enumerate(y):
            rows.append([name, int(weighted), h, "y", i, float(v)])
            rows.append([name, int(weighted), h, "F", i, float(F[i])])
    with open(out, "w") as fh:
        fh.write("# scipy.stats.gaussian_kde.integrate_box_1d golden values, scipy %s numpy %s; made by tools/golden/kde_cdf_scipy.py\n"
                 % (scipy.__version__, np.__version__))
        for r in rows:
            fh.write(",".join(repr(v) if isinstance(v, float) else str(v) for v in r) + "\n")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "tests/data/kde_cdf_scipy.csv")
