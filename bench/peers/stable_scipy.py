#!/usr/bin/env python3
"""scipy.stats.levy_stable timed on the machine clstat-bench runs on (issue 5's peer).

The same shapes as clstat-bench --suite stable, scaled down where SciPy is slow: pdf and cdf at N
points uniform in [-20, 20], ppf at N probabilities uniform in (0, 1), for the bench's laws, and
fit (SciPy's MLE) on a sample of n points; each timing is capped (--budget seconds per call: the
call still finishes, but larger N are skipped once one call passes it). SciPy's own defaults are
used (pdf by its default 'piecewise' quadrature), in the parameterisation --param names (SciPy's
default is S1; clstat-bench passes S0, the one it times). --fit-n "" skips the fits.
Prints one JSON object to stdout: {"peer": "scipy.stats.levy_stable", "scipy_version", "rows":
[{"op", "alpha", "beta", "n", "seconds", "points_per_s"}...]}. Exit code 3 without SciPy.

usage: stable_scipy.py [--sizes 100,1000,10000] [--fit-n 200,1000] [--budget 60] [--param S0|S1]
"""
import argparse
import json
import sys
import time


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="100,1000,10000")
    ap.add_argument("--fit-n", default="200,1000")
    ap.add_argument("--budget", type=float, default=60.0)
    ap.add_argument("--laws", default="0.3:0,0.8:0.5,1:0.5,1.2:0,1.5:0.5,1.9:1")
    ap.add_argument("--param", default="S1", choices=["S0", "S1"])
    a = ap.parse_args()
    try:
        import numpy as np
        import scipy
        from scipy.stats import levy_stable
    except ImportError as e:
        print(json.dumps({"peer": "scipy.stats.levy_stable", "error": str(e)}))
        return 3
    levy_stable.parameterization = a.param
    laws = [tuple(float(v) for v in s.split(":")) for s in a.laws.split(",")]
    rows = []

    def timed(op, alpha, beta, n, f):
        t0 = time.perf_counter()
        f()
        dt = time.perf_counter() - t0
        rows.append({"op": op, "alpha": alpha, "beta": beta, "n": n, "seconds": dt, "points_per_s": n / dt})
        print(f"[stable_scipy] {op} alpha={alpha} beta={beta} n={n}: {dt:.3f} s", file=sys.stderr)
        return dt

    for alpha, beta in laws:
        law = levy_stable(alpha, beta)
        for op in ("pdf", "cdf", "ppf"):
            for n in (int(s) for s in a.sizes.split(",")):
                if op == "ppf":
                    pts = (np.arange(n) + 0.5) / n
                    f = lambda: law.ppf(pts)
                else:
                    pts = -20 + 40 * (np.arange(n) + 0.5) / n
                    f = (lambda: law.pdf(pts)) if op == "pdf" else (lambda: law.cdf(pts))
                if timed(op, alpha, beta, n, f) > a.budget:
                    break
    rng = np.random.default_rng(77)
    for n in (int(s) for s in a.fit_n.split(",") if s):
        x = levy_stable.rvs(1.5, 0.5, size=n, random_state=rng)
        if timed("fit", 1.5, 0.5, n, lambda: levy_stable.fit(x)) > a.budget:
            break
    print(json.dumps({"peer": "scipy.stats.levy_stable", "scipy_version": scipy.__version__, "param": a.param, "rows": rows}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
