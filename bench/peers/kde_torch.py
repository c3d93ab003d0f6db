#!/usr/bin/env python3
"""Exact Gaussian KDE in PyTorch, timed on the same device clstat-bench measures.

What a PyTorch user would write: points in chunks, a dense (chunk x n) block of squared distances,
exp, and a row sum. Exact (no binning, no FFT), like clstat's kde(). Data are N(0, 1) with the
same seeds' shape as clstat-bench (not the same values: the comparison is of throughput).

usage: kde_torch.py --n N --m M --d D --dtype float32|float64 [--device cuda|cpu] [--repeats R]
Prints one JSON object: {"peer": "torch", "n", "m", "d", "dtype", "device", "seconds", "gpairs_per_s",
"torch_version", "device_name"}. Exit code 3 when torch (or the device) is not available.
"""
import argparse
import json
import sys
import time


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, required=True)
    ap.add_argument("--m", type=int, required=True)
    ap.add_argument("--d", type=int, default=1)
    ap.add_argument("--dtype", default="float32", choices=["float32", "float64"])
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--repeats", type=int, default=1)
    ap.add_argument("--h", type=float, default=0.3)
    ap.add_argument("--block-bytes", type=float, default=2e9, help="size of one distance block")
    a = ap.parse_args()
    try:
        import torch
    except ImportError:
        print(json.dumps({"peer": "torch", "error": "torch not installed"}))
        return 3
    if a.device == "cuda" and not torch.cuda.is_available():
        print(json.dumps({"peer": "torch", "error": "no CUDA device"}))
        return 3
    dt = getattr(torch, a.dtype)
    dev = torch.device(a.device)
    g = torch.Generator(device="cpu").manual_seed(1234)
    x = torch.randn(a.n, a.d, generator=g, dtype=torch.float64).to(dev, dt)
    y = torch.randn(a.m, a.d, generator=g, dtype=torch.float64).to(dev, dt)
    elem = 8 if a.dtype == "float64" else 4
    chunk = max(1, min(a.m, int(a.block_bytes // (a.n * elem))))
    norm = 1.0 / (a.n * (2 * 3.141592653589793) ** (a.d / 2) * a.h ** a.d)
    inv = -0.5 / (a.h * a.h)

    def run(yv):
        out = torch.empty(yv.shape[0], dtype=dt, device=dev)
        for s in range(0, yv.shape[0], chunk):
            yc = yv[s:s + chunk]
            if a.d == 1:
                q = (yc - x.T) ** 2  # (chunk, n)
            else:
                q = torch.cdist(yc, x) ** 2  # default mode: a matrix product for large blocks
            out[s:s + chunk] = torch.exp(q * inv).sum(dim=1) * norm
        return out

    def sync():
        if dev.type == "cuda":
            torch.cuda.synchronize()

    # Warm-up on a small problem (kernel selection, allocator), then the timed runs.
    run(y[:min(a.m, 1024)])
    sync()
    times = []
    for _ in range(max(1, a.repeats)):
        sync()
        t0 = time.perf_counter()
        run(y)
        sync()
        times.append(time.perf_counter() - t0)
    times.sort()
    sec = times[len(times) // 2]
    name = torch.cuda.get_device_name(dev) if dev.type == "cuda" else "cpu"
    print(json.dumps({"peer": "torch", "n": a.n, "m": a.m, "d": a.d, "dtype": a.dtype, "device": a.device,
                      "seconds": sec, "gpairs_per_s": a.n * a.m / sec / 1e9, "torch_version": torch.__version__,
                      "device_name": name}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
