#!/usr/bin/env python3
"""A numpy model of the CPU solver's --accelerate auto (solvers/pagerank.cpp, the
rules of solvers/pagerank_accel.hpp: the two-step gate, the idle stop, the quadratic
fit and its weight bounds), to compare safeguards on many small graphs at once.

    scripts/accel_fit_model.py [--graphs 1500] [--seed 7] [--uniform]
        [--rules plain,none,neg,root0.1,...]

Rules: plain (no extrapolation); none (auto as it was before session 109); neg
(reject a jump whose negative mass proves it worse than x_k: 2 neg > alpha / (1 -
alpha) residual); strikeK (stop extrapolating after K jumps that raised the
residual); rootS (both fitted modes within alpha + S (1 - alpha): what auto does
now with S = 0.1). Graphs: 3-60 vertices, 2n random arcs, personalized to 1-2
vertices, alpha 0.99 or 0.999 (--uniform: 50-400 vertices, 1-5 n arcs, uniform
v, alpha 0.85 or 0.99). Prints per rule the solves not converged in 1000 steps,
those that ended off the exact answer (farther than alpha / (1 - alpha) tol, or
by more than 1) and the mean steps (docs/PERFORMANCE.md, session 109).
"""
import argparse

import numpy as np
import scipy.sparse as sp


def quadratic_weights(a11, a12, a22, b1, b2, s, alpha, slack):
    det = a11 * a22 - a12 * a12
    b0, bb1 = 0.0, 0.0
    if det > 1e-10 * a11 * a22 and np.isfinite(det):
        g1 = (a12 * b2 - a22 * b1) / det
        g2 = (a12 * b1 - a11 * b2) / det
        b0, bb1 = g1 + g2 + 1, g2 + 1
        if slack is not None:
            rho = alpha + slack * (1 - alpha)
            if bb1 * bb1 < 4 * b0:
                within = b0 <= rho * rho
            else:
                within = abs(bb1) <= 2 * rho and rho * rho + bb1 * rho + b0 >= 0 and rho * rho - bb1 * rho + b0 >= 0
            if not within:
                return None
    else:
        cross, last = b2 - b1 - a22 + a12, a22 - 2 * a12 + a11
        if not last > 0:
            return None
        lam = cross / last
        if not abs(lam) <= alpha or lam == 0:
            return None
        bb1 = -lam
    total = b0 * s[0] + bb1 * s[1] + s[2]
    if not np.isfinite(total) or total == 0:
        return None
    w = (b0 / total, bb1 / total, 1 / total)
    bound = 2 / (1 - alpha) ** 2
    if max(abs(x) for x in w) > bound or sum(abs(x) for x in w) * 2.2e-16 > 1e-3:
        return None
    return w


def solve(pt, dangling, v, alpha, rule, tol=1e-6, every=10, max_iter=1000):
    n = len(v)
    x = np.full(n, 1 / n)
    hist = [None] * 3
    accel = rule != "plain"
    slack = float(rule[4:]) if rule.startswith("root") else None
    run = idle = strikes = 0
    checking = False
    res1 = res_before = rate1 = 0.0
    l1 = 0.0
    for k in range(1, max_iter + 1):
        y = alpha * (pt @ x) + (alpha * x[dangling].sum() + 1 - alpha) * v
        l1 = np.abs(y - x).sum()
        previous, x = x, y
        if l1 < tol:
            return x, k, l1
        if not accel or k == max_iter:
            continue
        run += 1
        slot = run - 1 - (every - 3)
        if 0 <= slot < 3:
            hist[slot] = previous
        if run == every - 1:
            res1 = l1
        if run == every and checking:
            checking = False
            plain = res_before * rate1**every
            idle = idle + 1 if 0 < rate1 < 1 and abs(l1 - plain) <= 0.02 * plain else 0
            if idle >= 2:
                accel = False
                continue
            if rule.startswith("strike") and l1 > res_before:
                strikes += 1
                if strikes >= int(rule[6:]):
                    accel = False
                    continue
        if run != every:
            continue
        run = 0
        if l1 < 2.2e-16:
            continue
        if res1 > 0 and l1 / res1 < 1 and l1 * (l1 / res1) ** 2 < tol:
            continue
        h0, h1, h2 = hist
        y1, y2, y3 = h1 - h0, h2 - h0, x - h0
        w = quadratic_weights(y1 @ y1, y1 @ y2, y2 @ y2, y1 @ y3, y2 @ y3, (h1.sum(), h2.sum(), x.sum()), alpha,
                              slack)
        if w is None:
            continue
        jump = w[0] * h1 + w[1] * h2 + w[2] * x
        if rule == "neg" and 2 * -jump[jump < 0].sum() > alpha / (1 - alpha) * l1:
            continue
        x, res_before, rate1, checking = jump, l1, (l1 / res1 if res1 > 0 else 0), True
    return x, max_iter, l1


def google(n, arcs):
    rows, cols = zip(*arcs)
    a = sp.csr_matrix((np.ones(len(arcs)), (rows, cols)), shape=(n, n))
    a.sum_duplicates()
    a.data[:] = 1
    out = np.asarray(a.sum(1)).ravel()
    dangling = out == 0
    return (sp.diags(np.where(dangling, 0, 1 / np.maximum(out, 1))) @ a).T.tocsr(), dangling


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--graphs", type=int, default=1500)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--uniform", action="store_true")
    ap.add_argument("--rules", default="plain,none,neg,strike2,root0,root0.1,root0.5")
    a = ap.parse_args()
    rules = a.rules.split(",")
    rng = np.random.default_rng(a.seed)
    stats = {r: [0, 0, 0] for r in rules}  # not converged, off, steps
    for _ in range(a.graphs):
        if a.uniform:
            alpha = float(rng.choice([0.85, 0.99]))
            n = int(rng.integers(50, 400))
            pt, dangling = google(n, [(int(rng.integers(n)), int(rng.integers(n)))
                                      for _ in range(int(rng.integers(1, 6)) * n)])
            v = np.full(n, 1 / n)
        else:
            n = int(rng.integers(3, 61))
            pt, dangling = google(n, [(int(rng.integers(n)), int(rng.integers(n))) for _ in range(2 * n)])
            v = np.zeros(n)
            v[rng.choice(n, size=int(rng.integers(1, 3)), replace=False)] = 1
            v /= v.sum()
            alpha = float(rng.choice([0.99, 0.999]))
        exact = np.linalg.solve(np.eye(n) - alpha * (pt.toarray() + np.outer(v, dangling)), (1 - alpha) * v)
        for r in rules:
            x, k, l1 = solve(pt, dangling, v, alpha, r)
            err = np.abs(x - exact).sum()
            stats[r][0] += l1 >= 1e-6
            stats[r][1] += bool((l1 < 1e-6 and err > alpha / (1 - alpha) * 1e-6 * 1.01) or err > 1)
            stats[r][2] += k
    for r, (unconverged, off, steps) in stats.items():
        print(f"{r:10s} not converged {unconverged:5d}  off {off:4d}  mean steps {steps / a.graphs:.1f}")


if __name__ == "__main__":
    main()
