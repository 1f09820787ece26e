#!/usr/bin/env python3
"""Prints the PageRank corpus table (issue 17) from the JSON lines of
`pagerank --bench --json` (scripts/pagerank-corpus.sh writes corpus.jsonl):

  1. per graph, the statistics a model of the pull can read;
  2. per graph and precision: each pull's us per iteration (fused; spmv with
     auto's kernel; spmv with the best kernel where auto took another), the
     best SpMV kernel's us, the pull `auto` chose, its ratio to the best pull,
     one iteration over one best SpMV, the whole-solve speedup over the
     cuSPARSE-loop baseline (auto's pull; in brackets the best of the pulls);
  3. how many graphs meet the issue's targets, and every one-threshold rule
     over the statistics that picks fused or spmv, ranked by the graphs where
     the picked pull is within 5% of the best (then by the worst ratio).

  scripts/pagerank_corpus_summary.py [--strip PREFIX] corpus.jsonl...
"""
import json
import math
import os
import sys

PRECISIONS = ("float", "double")


def short(name, strip):
    if strip and name.startswith(strip):
        name = name[len(strip):]
    base = os.path.basename(name) if "/" in name else name
    for ext in (".gz", ".mtx", ".txt"):
        if base.endswith(ext):
            base = base[: -len(ext)]
    return base


def load(files):
    recs = []
    for f in files:
        for line in open(f):
            line = line.strip()
            if line:
                recs.append(json.loads(line))
    return recs


def pull(rec, prec, which):
    for p in rec[prec]["pulls"]:
        if p["pull"] == which and "error" not in p:
            return p
    return None


def fmt(x, spec=".2f", width=8):
    return f"{'-':>{width}}" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:>{width}{spec}}"


def features(rec, prec):
    s = rec["stats"]
    n, links = s["vertices"], s["links"]
    return {
        "vertices": n,
        "links": links,
        "mean_degree": s["mean_degree"],
        "dangling_fraction": s["dangling_fraction"],
        "in_max": s["in_degree"]["max"],
        "in_cv": s["in_degree"]["cv"],
        "in_max/mean": s["in_degree"]["max"] / max(s["mean_degree"], 1e-30),
        "in_zero_fraction": s["in_degree"]["zero_fraction"],
        "out_cv": s["out_degree"]["cv"],
        "x_bytes": rec[prec]["x_bytes"],
    }


def print_stats(recs, strip):
    print("Graph statistics (in-degree = links into a vertex = a row of P^T)")
    print(f"{'graph':<34}{'n':>10}{'links':>11}{'mean':>7}{'dangl%':>7}{'in max':>9}{'in cv':>7}"
          f"{'in0%':>6}{'out cv':>7}  x in L2 (f/d)")
    for r in recs:
        s = r["stats"]
        fits = "/".join("y" if r[p]["x_fits_l2"] else "n" for p in PRECISIONS)
        print(f"{short(r['graph'], strip):<34}{s['vertices']:>10}{s['links']:>11}{s['mean_degree']:>7.2f}"
              f"{100 * s['dangling_fraction']:>7.1f}{s['in_degree']['max']:>9.0f}{s['in_degree']['cv']:>7.2f}"
              f"{100 * s['in_degree']['zero_fraction']:>6.1f}{s['out_degree']['cv']:>7.2f}  {fits}")
    print()


def print_pulls(recs, prec, strip):
    print(f"{prec}: us per iteration (marginal, CUDA events), best SpMV on P^T, auto's pull, speedups")
    print(f"{'graph':<34}{'fused':>8}{'spmv':>8}{'spmv kernel':>15}{'sp-best':>8}{'best SpMV':>10}"
          f"{' kernel':<15}{'auto':>6}{'ratio':>7}{'xSpMV':>7}{'speedup':>9}{'(best)':>8}")
    for r in recs:
        d = r[prec]
        f, s, b = pull(r, prec, "fused"), pull(r, prec, "spmv"), pull(r, prec, "spmv-best")
        a = d["auto"]
        print(f"{short(r['graph'], strip):<34}{fmt(f and f['us_iter'])}{fmt(s and s['us_iter'])}"
              f"{(s['kernel'] if s else '-'):>15}{fmt(b and b['us_iter'])}{fmt(d['best_spmv_us'], width=10)}"
              f" {d['best_kernel']:<14}{a['pull']:>6}{fmt(a['ratio_to_best'], '.3f', 7)}"
              f"{fmt(a['x_best_spmv'], '.2f', 7)}{fmt(a['speedup'], '.2f', 8)}x{fmt(d['best_speedup'], '.2f', 7)}x")
    print()


def targets(recs, prec):
    ok5 = sum(1 for r in recs if r[prec]["auto"]["ratio_to_best"] is not None
              and r[prec]["auto"]["ratio_to_best"] <= 1.05)
    sp = [r[prec]["auto"]["speedup"] for r in recs if r[prec]["auto"]["speedup"] is not None]
    five = sum(1 for x in sp if x >= 5)
    small = [r[prec]["auto"]["speedup"] for r in recs if r["stats"]["links"] <= 5_000_000]
    eight = sum(1 for x in small if x is not None and x >= 8)
    fused_best = sum(1 for r in recs if r[prec]["best_pull"]["pull"] == "fused")
    print(f"{prec}: auto's pull within 5% of the best pull on {ok5} of {len(recs)}; fused is the best pull "
          f"on {fused_best}; speedup >= 5x on {five} of {len(sp)} (range {min(sp):.2f}-{max(sp):.2f}x), "
          f">= 8x on {eight} of {len(small)} graphs <= 5 M links")


def fit_rules(recs):
    """Every rule 'fused if FEATURE > t (or < t) else spmv', per precision and
    over both; scored by graphs within 5% of the best pull, then worst ratio."""
    cases = []  # (features, cost of fused, cost of spmv, best, precision)
    for r in recs:
        for prec in PRECISIONS:
            f, s = pull(r, prec, "fused"), pull(r, prec, "spmv")
            if not f or not s:
                continue
            best = min(p["us_iter"] for p in r[prec]["pulls"] if "error" not in p)
            cases.append((features(r, prec), f["us_iter"], s["us_iter"], best, prec))
    if not cases:
        return
    print(f"\nOne-threshold rules 'fused if FEATURE OP t, else spmv' over {len(cases)} (graph, precision) "
          "cases (within 5% of the best pull; worst ratio)")
    for scope in ("both",) + PRECISIONS:
        sub = [c for c in cases if scope == "both" or c[4] == scope]
        rules = []
        for feat in sub[0][0]:
            values = sorted({c[0][feat] for c in sub})
            cuts = [values[0] - 1] + [(a + b) / 2 for a, b in zip(values, values[1:])]
            for t in cuts:
                for op in (">", "<"):
                    ratios = []
                    for c in sub:
                        fused = c[0][feat] > t if op == ">" else c[0][feat] < t
                        ratios.append((c[1] if fused else c[2]) / c[3])
                    within = sum(1 for x in ratios if x <= 1.05)
                    rules.append((within, -max(ratios), -sum(ratios), feat, op, t))
        rules.sort(reverse=True)
        always_f = sum(1 for c in sub if c[1] / c[3] <= 1.05)
        always_s = sum(1 for c in sub if c[2] / c[3] <= 1.05)
        print(f"  {scope}: always fused {always_f}/{len(sub)}, always spmv {always_s}/{len(sub)}; best rules:")
        seen = set()
        for within, worst, _, feat, op, t in rules:
            if (feat, op) in seen:
                continue
            seen.add((feat, op))
            print(f"    fused if {feat} {op} {t:.4g}: {within}/{len(sub)} within 5%, worst {-worst:.3f}")
            if len(seen) == 5:
                break


def main(argv):
    strip = None
    if argv[:1] == ["--strip"]:
        strip, argv = argv[1], argv[2:]
    recs = load(argv)
    bad = [r for r in recs if "stats" not in r]
    recs = [r for r in recs if "stats" in r]
    if recs:
        r0 = recs[0]
        print(f"device {r0['device']}, L2 {r0['l2_bytes'] / 1e6:.0f} MB, --bench-runs {r0['runs']}, "
              f"alpha {r0['alpha']}, tol {r0['tol']}\n")
        print_stats(recs, strip)
        for prec in PRECISIONS:
            print_pulls(recs, prec, strip)
        for prec in PRECISIONS:
            targets(recs, prec)
        fit_rules(recs)
    for r in bad:
        print(f"not measured: {short(r['graph'], strip)}: {r.get('error') or r.get('skipped')}")


if __name__ == "__main__":
    main(sys.argv[1:])
