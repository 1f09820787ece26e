#!/usr/bin/env python3
"""Prints the PageRank corpus table (issue 17) from the JSON lines of
`pagerank --bench --json` (scripts/pagerank-corpus.sh writes corpus.jsonl):

  1. per graph, the statistics a model of the pull can read;
  2. per graph and precision: each pull's us per iteration (fused;
     persistent; spmv with auto's kernel; spmv with the best kernel where auto
     took another), the best SpMV kernel's us, the pull `auto` chose, its
     ratio to the best pull, one iteration over one best SpMV, the whole-solve
     speedup over the
     cuSPARSE-loop baseline: median wall of auto's pull against the baseline's,
     (min) the same from the least wall of each, (best) the pull with the least
     median wall.
     Where every solve of a pull reached an exact fixed point within 10
     iterations, its us per iteration is device time / iterations instead;
  3. how many graphs meet the issue's targets, and every one-threshold rule
     over the statistics that picks fused or spmv, ranked by the graphs where
     the picked pull is within 5% of the best (then by the worst ratio).

  scripts/pagerank_corpus_summary.py [--strip PREFIX] corpus.jsonl...
(a graph in several files: the last measured record counts)
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
    """Records in file order; a later record of the same graph (a second run
    that re-measured it) replaces the earlier one in its place."""
    recs, where = [], {}
    for f in files:
        for line in open(f):
            line = line.strip()
            if not line:
                continue
            r = json.loads(line)
            key = os.path.basename(r["graph"])
            if key in where:
                if "stats" in r or "stats" not in recs[where[key]]:
                    recs[where[key]] = r
            else:
                where[key] = len(recs)
                recs.append(r)
    return recs


def name(rec):
    """The graph's file name (or generator spec), without its folders and .gz."""
    return os.path.basename(rec["graph"]).removesuffix(".gz")


def us_iter(p):
    """us per iteration; where every solve reached an exact fixed point within
    10 iterations (nothing to difference), device time / iterations instead."""
    if p["us_iter"] is not None:
        return p["us_iter"]
    return 1e3 * p["device_ms"] / max(1, p["iterations"])


def pull(rec, prec, which):
    for p in rec[prec]["pulls"]:
        if p["pull"] == which and "error" not in p:
            return p
    return None


def best_us(rec, prec):
    return min(us_iter(p) for p in rec[prec]["pulls"] if "error" not in p)


def fmt(x, spec=".2f", width=8):
    return f"{'-':>{width}}" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:>{width}{spec}}"


def times(x, width):
    return f"{'-':>{width}}" if x is None else f"{x:>{width - 1}.2f}x"


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
    print(f"{'graph':<34}{'fused':>8}{'persist':>8}{'spmv':>8}{'spmv kernel':>15}{'sp-best':>8}{'best SpMV':>10}"
          f"{' kernel':<15}{'auto':>8}{'ratio':>7}{'xSpMV':>7}{'speedup':>9}{'(min)':>8}{'(best)':>8}")
    for r in recs:
        d = r[prec]
        f, s, b = pull(r, prec, "fused"), pull(r, prec, "spmv"), pull(r, prec, "spmv-best")
        q = pull(r, prec, "persistent")
        a = d["auto"]
        print(f"{short(r['graph'], strip):<34}{fmt(f and us_iter(f))}{fmt(q and us_iter(q))}{fmt(s and us_iter(s))}"
              f"{(s['kernel'] if s else '-'):>15}{fmt(b and us_iter(b))}{fmt(d['best_spmv_us'], width=10)}"
              f" {d['best_kernel']:<14}{a['pull'] + '/' + how(r, prec)[0]:>8}{fmt(ratio(r, prec), '.3f', 7)}"
              f"{fmt(a['x_best_spmv'], '.2f', 7)}{times(a['speedup'], 9)}{times(a.get('speedup_min'), 8)}"
              f"{times(d['best_speedup'], 8)}")
    print()


def ratio(rec, prec):
    """auto's pull over the best pull, per iteration."""
    a = rec[prec]["auto"]
    if "decision" in a:  # issue 17 item 2 records: auto's own row (pull and kernel), measured in the same run
        return a.get("ratio_to_best")
    p = pull(rec, prec, a["pull"])
    return us_iter(p) / best_us(rec, prec) if p else None


def wall_ratio(rec, prec):
    """auto's pull's median wall over the fastest pull's (fused, persistent, spmv as auto runs it)."""
    walls = {p["pull"]: p.get("wall_ms") for p in rec[prec]["pulls"] if p["pull"] != "spmv-best"}
    mine = walls.get(rec[prec]["auto"]["pull"])
    rest = [w for w in walls.values() if w]
    return mine / min(rest) if mine and rest else None


def how(rec, prec):
    """How auto decided: model, trial or cached (records before item 2: model)."""
    d = rec[prec]["auto"].get("decision", "model")
    return "cached" if d.startswith("cached") else "trial" if d.startswith("trial") else "model"


def targets(recs, prec):
    ok5 = sum(1 for r in recs if ratio(r, prec) is not None and ratio(r, prec) <= 1.05)
    sp = [r[prec]["auto"]["speedup"] for r in recs if r[prec]["auto"]["speedup"] is not None]
    five = sum(1 for x in sp if x >= 5)
    small = [r[prec]["auto"]["speedup"] for r in recs if r["stats"]["links"] <= 5_000_000]
    eight = sum(1 for x in small if x is not None and x >= 8)
    fused_best = sum(1 for r in recs if pull(r, prec, "fused") and us_iter(pull(r, prec, "fused")) == best_us(r, prec))
    for kind in ("model", "trial"):
        ks = [r for r in recs if how(r, prec) == kind and ratio(r, prec) is not None]
        if ks:
            worst = max(ratio(r, prec) for r in ks)
            cost = [r[prec]["auto"].get("trial_ms") or 0 for r in ks]
            print(f"{prec}: decided by {kind}: {sum(1 for r in ks if ratio(r, prec) <= 1.05)} of {len(ks)} within "
                  f"5%, worst {worst:.3f}" + (f"; trial {min(cost):.1f}-{max(cost):.1f} ms" if kind == "trial" else ""))
    # Item 3: auto's step <= 4 us up to 10^6 links, <= 6 us up to 5 M.
    steps = [(name(r), r[prec]["auto"]["us_iter"], 4 if r["stats"]["links"] <= 1_000_000 else 6)
             for r in recs if r["stats"]["links"] <= 5_000_000]
    slow = [(g, u) for g, u, limit in steps if u is None or u > limit]
    print(f"{prec}: auto's step <= 4 us to 10^6 links, <= 6 us to 5 M: {len(steps) - len(slow)} of {len(steps)}"
          + ("; missed: " + ", ".join(f"{g} {fmt(u, '.2f', 0).strip()}" for g, u in slow) if slow else ""))
    print(f"{prec}: auto's pull within 5% of the best pull on {ok5} of {len(recs)}; fused is the best pull "
          f"on {fused_best}; speedup >= 5x on {five} of {len(sp)} (range {min(sp):.2f}-{max(sp):.2f}x), "
          f">= 8x on {eight} of {len(small)} graphs <= 5 M links")
    # The same choice judged by whole solves (median walls: each pull's own
    # steps and per-solve costs), which item 2 does not ask but a user waits for.
    walls = [(name(r), w) for r in recs if (w := wall_ratio(r, prec)) is not None]
    over = [(g, w) for g, w in walls if w > 1.05]
    print(f"{prec}: auto's pull's whole solve within 5% of the fastest pull's on {len(walls) - len(over)} of "
          f"{len(walls)}" + ("; over: " + ", ".join(f"{g} {w:.3f}" for g, w in over) if over else ""))
    misses = [(name(r), r[prec]["auto"]["speedup"]) for r in recs
              if (x := r[prec]["auto"]["speedup"]) is None or x < (8 if r["stats"]["links"] <= 5_000_000 else 5)]
    if misses:
        print(f"{prec}: speedup below its target (8x to 5 M links, 5x beyond): "
              + ", ".join(f"{g} {fmt(x, '.2f', 0).strip()}x" for g, x in misses))


def fit_rules(recs):
    """Every rule 'fused if FEATURE > t (or < t) else spmv', per precision and
    over both; scored by graphs within 5% of the best pull, then worst ratio."""
    cases = []  # (features, cost of fused, cost of spmv, best, precision)
    for r in recs:
        for prec in PRECISIONS:
            f, s = pull(r, prec, "fused"), pull(r, prec, "spmv")
            if not f or not s:
                continue
            cases.append((features(r, prec), us_iter(f), us_iter(s), best_us(r, prec), prec))
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
