#!/usr/bin/env python3
"""The baseline for read-bench: scipy.io.mmread on the same files, same
machine, same number of threads. Prints one JSON object per file with the
median of --repeat reads after one warm-up (the file then sits in the page
cache, as for read-bench). scipy >= 1.12 reads with fast_matrix_market's
multithreaded parser (threads set through its PARALLELISM); older scipy (Debian 12 ships
1.10) has the old single-threaded Python reader, and --threads does nothing.

  apps/read_bench_scipy.py --threads 16 --repeat 5 cnr-2000.mtx rmat.mtx
"""
import argparse
import contextlib
import json
import os
import statistics
import time

import scipy
import scipy.io


@contextlib.contextmanager
def thread_limit(n):
    """Sets fast_matrix_market's PARALLELISM directly: scipy hooks it into
    threadpoolctl only from threadpoolctl 3.5 on, and with an older one a
    threadpool_limits() block would silently leave every core in use."""
    if n <= 0:
        yield "all"
        return
    try:
        import scipy.io._fast_matrix_market as fmm
        old = fmm.PARALLELISM
    except (ImportError, AttributeError):
        yield "none (scipy < 1.12: single-threaded reader)"
        return
    fmm.PARALLELISM = n
    try:
        yield "PARALLELISM"
    finally:
        fmm.PARALLELISM = old


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("files", nargs="+")
    ap.add_argument("--threads", type=int, default=0, help="0: scipy's default (all cores)")
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    for f in args.files:
        with thread_limit(args.threads) as how:
            m = scipy.io.mmread(f)  # warm-up
            times = []
            for _ in range(args.repeat):
                t = time.perf_counter()
                m = scipy.io.mmread(f)
                times.append(time.perf_counter() - t)
        s = statistics.median(times)
        size = os.path.getsize(f)
        print(json.dumps({"file": f, "scipy": scipy.__version__, "threads": args.threads or os.cpu_count(),
                          "thread_control": how, "repeat": args.repeat, "file_bytes": size, "nnz": int(m.nnz),
                          "seconds": round(s, 6), "MB_per_s": round(size / s / 1e6, 1)}), flush=True)


if __name__ == "__main__":
    main()
