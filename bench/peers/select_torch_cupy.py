#!/usr/bin/env python3
"""Median and order statistics in PyTorch and CuPy, timed on the same GPU clstat-bench measures.

What a PyTorch or CuPy user would call: torch.median (the lower median), torch.kthvalue,
cupy.median (the mean of the two middle values, as clstat::order::median) and a full torch.sort.
Data are generated on the GPU by torch and cupy generators in the named
distribution (uniform or normal; the same distributions as clstat-bench, not the same values: the
comparison is of speed), copied to the GPU once; each call is timed with CUDA events after a
warm-up, median of --repeats.

usage: select_torch_cupy.py --n N --dtype float32|float64 --dist uniform|normal [--repeats R]
Prints one JSON object with "<name>_ms" for each peer that ran, plus versions and the device name.
Exit code 3 when neither torch nor cupy (or no CUDA device) is available.
"""
import argparse
import json
import statistics
import sys


def time_cuda(fn, repeats, start_event, end_event, sync):
    fn()
    sync()
    out = []
    for _ in range(repeats):
        s, e = start_event(), end_event()
        s.record()
        fn()
        e.record()
        e.synchronize()
        out.append(s.elapsed_time(e))
    return statistics.median(out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, required=True)
    ap.add_argument("--dtype", default="float64", choices=["float32", "float64"])
    ap.add_argument("--dist", default="normal", choices=["uniform", "normal"])
    ap.add_argument("--repeats", type=int, default=10)
    a = ap.parse_args()
    res = {"n": a.n, "dtype": a.dtype, "dist": a.dist}
    ran = False
    try:
        import torch
        if torch.cuda.is_available():
            dt = getattr(torch, a.dtype)
            g = torch.Generator(device="cuda").manual_seed(2011)
            if a.dist == "normal":
                x = torch.randn(a.n, generator=g, device="cuda", dtype=dt)
            else:
                x = torch.rand(a.n, generator=g, device="cuda", dtype=dt)
            ev = lambda: torch.cuda.Event(enable_timing=True)
            sync = torch.cuda.synchronize
            k = (a.n + 1) // 2
            res["torch.median_ms"] = time_cuda(lambda: torch.median(x), a.repeats, ev, ev, sync)
            # torch.kthvalue takes about a second at 2^27: three repetitions.
            res["torch.kthvalue_ms"] = time_cuda(lambda: torch.kthvalue(x, k), min(a.repeats, 3), ev, ev, sync)
            res["torch.sort_ms"] = time_cuda(lambda: torch.sort(x), a.repeats, ev, ev, sync)
            res["torch_version"] = torch.__version__
            res["device_name"] = torch.cuda.get_device_name(0)
            del x
            torch.cuda.empty_cache()
            ran = True
    except ImportError:
        res["torch_error"] = "torch not installed"
    try:
        import cupy as cp
        dt = getattr(cp, a.dtype)
        rs = cp.random.RandomState(2011)
        x = rs.standard_normal(a.n, dtype=dt) if a.dist == "normal" else rs.random_sample(a.n, dtype=dt)

        class E:
            def __init__(self):
                self.e = cp.cuda.Event()

            def record(self):
                self.e.record()

            def synchronize(self):
                self.e.synchronize()

            def elapsed_time(self, other):
                return cp.cuda.get_elapsed_time(self.e, other.e)

        sync = cp.cuda.Device().synchronize
        res["cupy.median_ms"] = time_cuda(lambda: cp.median(x), a.repeats, E, E, sync)
        res["cupy_version"] = cp.__version__
        ran = True
    except ImportError:
        res["cupy_error"] = "cupy not installed"
    except Exception as e:  # no device, no driver
        res["cupy_error"] = str(e)
    print(json.dumps(res))
    return 0 if ran else 3


if __name__ == "__main__":
    sys.exit(main())
