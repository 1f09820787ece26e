#!/usr/bin/env python3
"""Would block Gauss-Seidel sweeps cut PageRank's iterations (issue 17 item 5,
issue 18 items 3-4)? On the gather-bound graphs the step already sits at the
L2 gather floor that cuSPARSE's SpMV meets too, so only fewer iterations could
move the whole solve against the cuSPARSE loop. This counts, on the CPU and in
double, the iterations to --tol 1e-6 (L1 change, as pagerank's default) of

  power   x' = alpha A x + (alpha d.x + 1 - alpha) / n       (pagerank's step)
  GS K    the vertices in K blocks of consecutive ids (in-degree order, or the
          graph's own); block k's rows gather the new values of blocks < k
          and the old ones of the rest (two arrays: deterministic on a GPU,
          one grid barrier a block), then x normalized; its stop is the L1
          change, and one plain power step at the end counts too (the check
          that --accelerate's results meet tol by).

(The linear system (I - alpha A) y = 1/n, the other way to Gauss-Seidel, was
slower still: its mass converges at rate alpha whatever the graph's mixing, 71-78
sweeps on R-MAT and Erdos-Renyi graphs that power iteration solves in 11-17.)

  scripts/gauss_seidel_probe.py FILE.mtx[.gz] ...   (write generated graphs with
                                                     read-bench --write SPEC FILE.mtx)
Findings: docs/PERFORMANCE.md, "Gauss-Seidel sweeps counted and dropped".
"""
import sys

import numpy as np
import scipy.io
import scipy.sparse as sp


def pull_matrix(path):
    M = scipy.io.mmread(path).tocsr()
    M.data[:] = 1
    M.sum_duplicates()
    M.data[:] = 1  # a pattern: row i -> column j is a link
    out = np.asarray(M.sum(axis=1)).ravel()
    inv = np.where(out > 0, 1.0 / np.maximum(out, 1), 0.0)
    return (sp.diags(inv) @ M).T.tocsr(), out == 0, np.asarray(M.sum(axis=0)).ravel()


def power_iterations(A, dangling, alpha, tol, cap=3000):
    n = A.shape[0]
    x = np.full(n, 1.0 / n)
    for k in range(1, cap + 1):
        y = alpha * (A @ x) + (alpha * x[dangling].sum() + 1 - alpha) / n
        change = np.abs(y - x).sum()
        x = y
        if change < tol:
            return k
    return cap


def gauss_seidel(A, dangling, blocks, alpha, tol, cap=3000):
    """Sweeps (plus the final plain step) and that step's residual / tol."""
    n = A.shape[0]
    bounds = np.linspace(0, n, blocks + 1).astype(int)
    old = np.full(n, 1.0 / n)
    for sweep in range(1, cap + 1):
        c = (alpha * old[dangling].sum() + 1 - alpha) / n
        new = np.empty(n)
        for lo, hi in zip(bounds[:-1], bounds[1:]):
            z = old.copy()
            z[:lo] = new[:lo]
            new[lo:hi] = alpha * (A[lo:hi] @ z) + c
        new /= new.sum()
        change = np.abs(new - old).sum()
        old = new
        if change < tol:
            break
    plain = alpha * (A @ old) + (alpha * old[dangling].sum() + 1 - alpha) / n
    return sweep + 1, np.abs(plain - old).sum() / tol


def main(files, alpha=0.85, tol=1e-6, counts=(2, 4, 16, 64)):
    for path in files:
        A, dangling, indeg = pull_matrix(path)
        row = [f"{path}: n {A.shape[0]}, links {A.nnz}, power {power_iterations(A, dangling, alpha, tol)}"]
        for name, perm in (("in-degree", np.argsort(-indeg, kind="stable")), ("own", np.arange(A.shape[0]))):
            Ap = A[perm][:, perm].tocsr()
            for K in counts:
                sweeps, ratio = gauss_seidel(Ap, dangling[perm], K, alpha, tol)
                row.append(f"{name} K={K} {sweeps} ({ratio:.2f} tol)")
        print("; ".join(row), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
