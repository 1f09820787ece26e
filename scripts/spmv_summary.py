#!/usr/bin/env python3
"""Summarises spmv-bench --json files against issue 3's targets:
  auto at least as fast as cuSPARSE ALG1 on every anchor and every matrix with
  >= 100k nonzeros; geometric-mean speedup of auto over ALG1 >= 1.25x on them;
  tridiag:100000000 >= 90% and synthetic:seed002 >= 45% of copy bandwidth.
Also prints, for every matrix, the fastest kernel and each seed kernel's time
relative to ALG1 (the table PERFORMANCE.md explains).

  scripts/spmv_summary.py spmv-shared.json spmv-anchors.json
"""
import json
import math
import os
import sys

SEEDS = ["csr-scalar", "csr-vector", "csr-adaptive", "csr-cached", "csr-cte", "ell", "merge", "cusparse-alg2"]


def short(name):
    b = os.path.basename(name)
    for ext in (".gz", ".mtx", ".txt"):
        if b.endswith(ext):
            b = b[: -len(ext)]
    return b


def main(files):
    rows = {}
    order = []
    copy = None
    for f in files:
        d = json.load(open(f))
        copy = d["copy_gbs"]
        for r in d["results"]:
            m = r["matrix"]
            if m not in rows:
                rows[m] = {"nnz": r["nnz"], "k": {}}
                order.append(m)
            rows[m]["k"][r["kernel"]] = r
    print(f"device copy bandwidth {copy:.0f} GB/s")
    hdr = f"{'matrix':<26}{'nnz':>11}{'alg1 us':>9}{'auto us':>9}{'auto':>14}{'x alg1':>8}{'%copy':>7}  best (us)"
    print(hdr)
    judged, speedups, losses = [], [], []
    anchors = ("synthetic:", "rmat:", "tridiag:", "cnr-2000")
    for m in order:
        k = rows[m]["k"]
        a1, au = k.get("cusparse"), k.get("auto")
        if not a1 or not au:
            continue
        ran = [r for r in k.values() if not r["refused"] and r["kernel"] != "auto" and not r["kernel"].startswith("x-gather-floor")]
        best = min(ran, key=lambda r: r["median_us"])
        ratio = a1["median_us"] / au["median_us"]
        big = rows[m]["nnz"] >= 100_000 or any(x in m for x in anchors)
        flag = "" if not big else (" ok" if ratio >= 1.0 else " SLOWER")
        print(f"{short(m):<26}{rows[m]['nnz']:>11}{a1['median_us']:>9.2f}{au['median_us']:>9.2f}{au['ran']:>14}"
              f"{ratio:>8.3f}{au['pct_copy']:>7.1f}  {best['kernel']} ({best['median_us']:.2f}){flag}")
        if big:
            judged.append(m)
            speedups.append(ratio)
            if ratio < 1.0:
                losses.append((short(m), ratio))
    if speedups:
        g = math.exp(sum(math.log(x) for x in speedups) / len(speedups))
        print(f"\nauto vs ALG1 over {len(speedups)} matrices (anchors + >= 100k nnz): geomean {g:.3f}x "
              f"(target 1.25x: {'met' if g >= 1.25 else 'MISSED'}); slower on {len(losses)}: {losses}")
    for name, target in (("tridiag:100000000", 90), ("synthetic:seed002:1000000", 45)):
        if name in rows and "auto" in rows[name]["k"]:
            p = rows[name]["k"]["auto"]["pct_copy"]
            print(f"{name}: auto at {p:.1f}% of copy bandwidth (target {target}%: {'met' if p >= target else 'MISSED'})")
    # Seed kernels relative to ALG1 (time ratio ALG1 / kernel: > 1 is faster).
    print(f"\nseed kernels, ALG1 time / kernel time (>1 faster; '-' refused):")
    print(f"{'matrix':<26}" + "".join(f"{s.replace('csr-', ''):>10}" for s in SEEDS))
    wins = {s: 0 for s in SEEDS}
    for m in order:
        k = rows[m]["k"]
        a1 = k.get("cusparse")
        if not a1:
            continue
        cells = []
        for s in SEEDS:
            r = k.get(s)
            if not r or r["refused"]:
                cells.append(f"{'-':>10}")
            else:
                cells.append(f"{a1['median_us'] / r['median_us']:>10.2f}")
        ran = [(r["median_us"], s) for s, r in k.items() if s in SEEDS and not r["refused"]]
        if ran:
            wins[min(ran)[1]] += 1
        print(f"{short(m):<26}" + "".join(cells))
    print("fastest seed kernel counts:", wins)


if __name__ == "__main__":
    main(sys.argv[1:])
