#!/usr/bin/env python3
"""perron against networkx on the same PageRank, from Python, in one process.

For each graph (a file perron.read_matrix reads, or a generated spec such as
rmat:18:2000000) it times, as medians of --repeat runs after one warm-up:
  networkx   networkx.pagerank(G) on a DiGraph of the graph (G built once,
             untimed: a networkx user already holds it), and apart the part of
             it that turns G into a SciPy matrix (networkx_convert_s), which a
             networkx user who calls perron pays too;
  scipy      a hand-written SciPy power iteration on the CSR matrix, networkx's
             own algorithm without its graph-to-matrix conversion and its
             Python-level sum over the dangling vertices: the best a SciPy
             user writes by hand;
  perron     perron.pagerank(A) on each device asked for (--devices), in double
             and float; and perron.pagerank(G) on the networkx graph (its
             conversion included, the first device, double: perron_graph_s),
             what a networkx user's call costs.
Every solver stops at the same test, the L1 change of one step below --tol
(networkx's tol is per vertex: it gets tol / N), at alpha 0.85, with a uniform
teleport and dangling vertices spread uniformly. Each perron result is checked
against networkx's ranks (L1 distance; both are within about
tol * alpha / (1 - alpha) of the fixed point), and a run whose distance is
past 1e-4 (double) or 1e-3 (float) fails the benchmark. One JSON object per
graph on stdout, then a table on stderr.

  python3 apps/pagerank_networkx_bench.py --devices cpu,cuda data/wb-cs-stanford.mtx ...
"""
import argparse
import json
import statistics
import sys
import time

import networkx as nx
import numpy as np
import scipy.sparse as sp

import perron


def median_seconds(f, repeat):
    f()  # warm-up (caches, the CUDA context, perron's plans)
    times = []
    out = None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = f()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), out


def scipy_pagerank(A, alpha, tol, max_iter):
    """networkx's pagerank_scipy on a CSR matrix (row = source), vectorised."""
    n = A.shape[0]
    out = np.asarray(A.sum(axis=1)).ravel()
    inv = np.zeros(n)
    inv[out != 0] = 1.0 / out[out != 0]
    P = sp.csr_matrix(sp.diags(inv) @ A)  # rows scaled to sum 1
    PT = P.T.tocsr()  # x @ P as P^T x, a CSR product
    dangling = np.flatnonzero(out == 0)
    x = np.full(n, 1.0 / n)
    for it in range(1, max_iter + 1):
        last = x
        x = alpha * (PT @ x + x[dangling].sum() / n) + (1 - alpha) / n
        if np.abs(x - last).sum() < tol:
            return x, it
    raise RuntimeError("scipy loop did not converge")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("graphs", nargs="+")
    ap.add_argument("--tol", type=float, default=1e-6, help="L1 change of a step at which every solver stops")
    ap.add_argument("--alpha", type=float, default=0.85)
    ap.add_argument("--repeat", type=int, default=3, help="timed runs per solver (median)")
    ap.add_argument("--devices", default="cpu", help="perron devices, comma-separated: cpu, cuda, auto")
    ap.add_argument("--max-links", type=int, default=4_000_000,
                    help="skip networkx past this many links (its DiGraph takes ~1 KB a link)")
    args = ap.parse_args()
    devices = [d for d in args.devices.split(",") if d]
    rows = []
    failed = False
    for path in args.graphs:
        A = perron.read_matrix(path).tocsr()
        A.data[:] = 1.0  # the pattern: every solver unweighted
        n, m = A.shape[0], A.nnz
        rec = {"graph": path, "vertices": n, "links": m, "tol": args.tol, "alpha": args.alpha}
        reference = None
        if m <= args.max_links:
            t0 = time.perf_counter()
            G = nx.from_scipy_sparse_array(A, create_using=nx.DiGraph)
            rec["networkx_graph_build_s"] = time.perf_counter() - t0
            s, r = median_seconds(lambda: nx.pagerank(G, alpha=args.alpha, tol=args.tol / n, max_iter=10000),
                                  args.repeat)
            rec["networkx_s"] = s
            reference = np.array([r[i] for i in range(n)])
            # What of it is networkx turning G into a matrix, which a networkx user who
            # calls perron pays too (perron takes a matrix): its SciPy solve is the rest.
            rec["networkx_convert_s"], _ = median_seconds(
                lambda: nx.to_scipy_sparse_array(G, nodelist=list(G), weight="weight", dtype=float), args.repeat)
            # The networkx user's whole call on perron: G read from its adjacency dicts, then solved.
            dev = next(d for d in devices if d != "cuda" or perron.gpu_available())
            s, (ranks, info) = median_seconds(
                lambda: perron.pagerank(G, alpha=args.alpha, tol=args.tol, device=dev, precision="double",
                                        max_iter=10000), args.repeat)
            rec["perron_graph_s"], rec["perron_graph_device"] = s, info.device
            rec["perron_graph_l1"] = float(np.abs(np.array([ranks[i] for i in range(n)]) - reference).sum())
            if not info.converged or rec["perron_graph_l1"] > 1e-4:
                rec["perron_graph_failed"] = True
                failed = True
            del G
        s, (x, it) = median_seconds(lambda: scipy_pagerank(A, args.alpha, args.tol, 10000), args.repeat)
        rec["scipy_s"], rec["scipy_iterations"] = s, it
        if reference is None:
            reference = x
        rec["scipy_l1"] = float(np.abs(x - reference).sum())
        for dev in devices:
            if dev in ("cuda",) and not perron.gpu_available():
                continue
            for prec in ("double", "float"):
                key = f"perron_{dev}_{prec}"
                s, (ranks, info) = median_seconds(
                    lambda: perron.pagerank(A, alpha=args.alpha, tol=args.tol, device=dev, precision=prec,
                                            max_iter=10000), args.repeat)
                l1 = float(np.abs(np.asarray(ranks, dtype=float) - reference).sum())
                rec[key + "_s"] = s
                rec[key + "_iterations"] = info.iterations
                rec[key + "_device"] = info.device
                # Where the call's time went, for the device model: the solve
                # (its set-up excluded), the GPU's pull trial, and why auto chose.
                rec[key + "_solve_s"] = info.timings["solve"]
                rec[key + "_trial_s"] = info.timings["trial"]
                rec[key + "_choice"] = info.device_choice
                rec[key + "_l1"] = l1
                if not info.converged or l1 > (1e-4 if prec == "double" else 1e-3):
                    rec[key + "_failed"] = True
                    failed = True
        print(json.dumps(rec), flush=True)
        rows.append(rec)

    cols = [(f"perron_{d}_{p}", f"{d} {p}") for d in devices for p in ("double", "float")]
    head = (f"{'graph':28} {'links':>9} {'networkx s (convert)':>20} {'perron(G) s':>19} {'scipy s':>9}" +
            "".join(f" {c[1]:>28}" for c in cols))
    print(head, file=sys.stderr)
    for r in rows:
        line = f"{r['graph'][-28:]:28} {r['links']:>9} "
        line += (f"{r['networkx_s']:>10.4f} ({r['networkx_convert_s']:>7.4f}) " if "networkx_s" in r
                 else f"{'skipped':>20} ")
        line += (f"{r['perron_graph_s']:>9.4f} {r['networkx_s'] / r['perron_graph_s']:>6.0f}x"
                 f"{'!' if r.get('perron_graph_failed') else ' '}  " if "perron_graph_s" in r else f"{'-':>19} ")
        line += f"{r['scipy_s']:>9.4f}"
        for key, _ in cols:
            if key + "_s" not in r:
                line += f" {'-':>28}"
                continue
            t = r[key + "_s"]
            nxr = f"{r['networkx_s'] / t:.0f}x" if "networkx_s" in r else "-"
            line += f" {t:>8.4f} {nxr:>7} {r['scipy_s'] / t:>6.1f}x{'!' if r.get(key + '_failed') else ' '}".rjust(29)
        print(line, file=sys.stderr)
    print("perron(G): perron.pagerank on the networkx graph, seconds and speedup over networkx; each perron "
          "column: seconds, speedup over networkx, over the scipy loop; '!' = converged off networkx's ranks",
          file=sys.stderr)
    for prec in ("double", "float") if "auto" in devices else ():
        # auto against the better of cpu and cuda measured in the same run
        picks = [(r["graph"], r.get(f"perron_auto_{prec}_device")) for r in rows]
        worst = []
        for r in rows:
            best = min(r[f"perron_{d}_{prec}_s"] for d in ("cpu", "cuda") if f"perron_{d}_{prec}_s" in r)
            worst.append(r[f"perron_auto_{prec}_s"] / best)
        gpu = [g for g, d in picks if d == "cuda"]
        print(f"auto, {prec}: cuda on {len(gpu)} of {len(picks)} graphs ({', '.join(gpu) or 'none'}); auto / best "
              f"device {min(worst):.2f}-{max(worst):.2f}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
