#!/usr/bin/env python3
"""Tables and a plot from scripts/multigpu-run.sh's results.tsv (issue 20).

    scripts/multigpu_summary.py results.tsv [--svg efficiency.svg] [--busbw 360]

Correctness: per graph and GPU count, iterations and the largest |difference| against the one-GPU
solve (the bound: 1e-12). Strong scaling (one graph on P GPUs): ms per iteration, compute and
communication of the slowest GPU, GTEPS per GPU, efficiency t(1) / (P t(P)). Weak scaling (R-MAT
scale S0 + log2 P on P GPUs): efficiency t(1) / t(P) scaled by the links per GPU. Beside each
measured point, the 1D model of docs/PERFORMANCE.md ("Distributed PageRank ... Model"): compute
m / (P G) with G the measured one-GPU rate of the same run, plus the all-gather of r, 4 n (P - 1) / P
bytes at the NCCL bus bandwidth busbw (GB/s, an input: 360 inside an NVLink node) and 8 us per peer,
divided by --gpus' automatic chunk count K (only the last chunk's exchange is left in the step;
--no-overlap for the model without it, as the runs before session 22 were).
"""
import argparse
import csv
import math
import re
import sys


def number(x):
    try:
        return float(x)
    except (TypeError, ValueError):
        return float("nan")


def load(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f, delimiter="\t"))


def exchange_chunks(vertices, p, value_bytes=4):
    """--gpus' automatic chunk count (solvers/dist/ranges.cpp, dist::exchange_chunks)."""
    if p < 2:
        return 1
    return int(min(8, max(1, math.floor(vertices * value_bytes * (1 - 1 / p) / 32e6))))


def model_ms(links, vertices, p, g_per_ms, busbw_gbs, value_bytes=4, chunks=1):
    """The 1D model's ms per iteration on p GPUs: compute + the all-gather of r, of which only the last of
    `chunks` pieces is left in the step (the others run beside the pull; chunks = 1: no overlap)."""
    compute = links / (p * g_per_ms)
    transfer = value_bytes * vertices * (p - 1) / p / (busbw_gbs * 1e6) / chunks + (p - 1) * 0.008
    return compute + transfer


def scaling_rows(rows, part, busbw, overlap=True):
    runs = sorted((r for r in rows if r["part"] == part and number(r["step_ms"]) > 0), key=lambda r: int(r["gpus"]))
    if not runs:
        return []
    base = runs[0]
    if int(base["gpus"]) != 1:
        print(f"{part}: no one-GPU run; efficiency needs it", file=sys.stderr)
        return []
    t1, m1 = number(base["step_ms"]), number(base["links"])
    g = m1 / t1  # links per ms on one GPU, as measured
    out = []
    for r in runs:
        p, t, m, n = int(r["gpus"]), number(r["step_ms"]), number(r["links"]), number(r["vertices"])
        # Strong: same graph, ideal t1 / p. Weak: links per GPU about constant, ideal t1 scaled by it.
        ideal = t1 / p if part == "strong" else t1 * (m / p) / m1
        predicted = model_ms(m, n, p, g, busbw, chunks=exchange_chunks(n, p) if overlap else 1)
        ideal_model = m / (p * g)
        out.append(
            {
                "graph": r["graph"],
                "gpus": p,
                "links": m,
                "step": t,
                "compute": number(r["compute_ms"]),
                "comm": number(r["comm_ms"]),
                "gteps_gpu": m / t / p / 1e6,
                "eff": ideal / t,
                "model_step": predicted,
                "model_eff": ideal_model / predicted,
            }
        )
    return out


def svg(path, series, title):
    """Efficiency (0-110%) against GPUs (log2 axis): one polyline per series."""
    w, h, left, bottom, top, right = 600, 360, 60, 50, 40, 190
    ps = sorted({p for _, pts, _ in series for p, _ in pts}) or [1]
    lo, hi = 0, max(1, math.log2(max(ps)))
    x = lambda p: left + (math.log2(p) - lo) / (hi - lo) * (w - left - right)
    y = lambda e: h - bottom - min(e, 1.1) / 1.1 * (h - bottom - top)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" font-family="sans-serif" font-size="12">',
           f'<text x="{left}" y="20" font-size="14">{title}</text>']
    for e in (0, 0.2, 0.4, 0.6, 0.8, 1.0):
        out.append(f'<line x1="{left}" x2="{w - right}" y1="{y(e):.1f}" y2="{y(e):.1f}" stroke="#ddd"/>')
        out.append(f'<text x="{left - 8}" y="{y(e) + 4:.1f}" text-anchor="end">{e:.0%}</text>')
    for p in ps:
        out.append(f'<text x="{x(p):.1f}" y="{h - bottom + 18}" text-anchor="middle">{p}</text>')
    out.append(f'<text x="{(left + w - right) / 2:.0f}" y="{h - 12}" text-anchor="middle">GPUs</text>')
    out.append(f'<line x1="{left}" x2="{w - right}" y1="{y(0.8):.1f}" y2="{y(0.8):.1f}" stroke="#c00" stroke-dasharray="2,3"/>')
    for k, (name, pts, dash) in enumerate(series):
        color = ["#1f77b4", "#1f77b4", "#ff7f0e", "#ff7f0e"][k % 4]  # a colour per part, dashed: the model
        pts = sorted(pts)
        path_d = " ".join(f"{x(p):.1f},{y(e):.1f}" for p, e in pts)
        out.append(f'<polyline points="{path_d}" fill="none" stroke="{color}" stroke-width="2"'
                   + (' stroke-dasharray="6,4"' if dash else "") + "/>")
        for p, e in pts:
            out.append(f'<circle cx="{x(p):.1f}" cy="{y(e):.1f}" r="3" fill="{color}"/>')
        ly = top + 10 + 18 * k
        out.append(f'<line x1="{w - right + 10}" x2="{w - right + 34}" y1="{ly}" y2="{ly}" stroke="{color}" stroke-width="2"'
                   + (' stroke-dasharray="6,4"' if dash else "") + "/>")
        out.append(f'<text x="{w - right + 40}" y="{ly + 4}">{name}</text>')
    out.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


def sweep(rows, prefix, name, title, base_value):
    """A table of the runs of parts PREFIX<value> (one option swept), each against the value base_value."""
    runs = sorted((r for r in rows if r["part"].startswith(prefix) and number(r["step_ms"]) > 0),
                  key=lambda r: (r["graph"], int(r["gpus"]), number(r["part"][len(prefix):])))
    if not runs:
        return
    print(f"## {title}\n")
    print(f"| graph | GPUs | {name} | ms/iteration (events) | compute ms (slowest GPU) | exchange left ms (most) | "
          f"loop ms/iteration | vs {name} = {base_value} |")
    print("|---|---|---|---|---|---|---|---|")
    for r in runs:
        base = [b for b in runs if b["graph"] == r["graph"] and b["gpus"] == r["gpus"] and b["part"] == prefix + base_value]
        ratio = number(base[0]["step_ms"]) / number(r["step_ms"]) if base else float("nan")
        print(f"| {r['graph']} | {r['gpus']} | {r['part'][len(prefix):]} | {number(r['step_ms']):.3f} | "
              f"{number(r['compute_ms']):.3f} | {number(r['comm_ms']):.3f} | {number(r['loop_ms']):.3f} | {ratio:.2f}x |")
    print()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("results")
    ap.add_argument("--svg")
    ap.add_argument("--busbw", type=float, default=360.0, help="NCCL all-gather bus bandwidth, GB/s (model input)")
    ap.add_argument("--no-overlap", action="store_true", help="the model without chunks (runs before session 22)")
    a = ap.parse_args()
    rows = load(a.results)

    correct = [r for r in rows if r["part"] == "correct"]
    if correct:
        print("## Correctness: --gpus P against the one-GPU solve (double, tol 1e-10; bound 1e-12)\n")
        print("| graph | GPUs | iterations | max abs difference | within 1e-12 | rc |")
        print("|---|---|---|---|---|---|")
        for r in correct:
            d = number(r["max_diff"])
            print(f"| {r['graph']} | {r['gpus']} | {r['iterations']} | {r['max_diff']} | "
                  f"{'yes' if d <= 1e-12 else 'NO'} | {r['rc']} |")
        bad = [r for r in correct if not number(r["max_diff"]) <= 1e-12]
        print(f"\n{len(correct) - len(bad)} of {len(correct)} runs within 1e-12.\n")

    series = []
    for part, target in (("strong", "efficiency >= 80% on 4 GPUs"), ("weak", ">= 80% at 4 GPUs, >= 15 GTEPS per GPU")):
        pts = scaling_rows(rows, part, a.busbw, overlap=not a.no_overlap)
        if not pts:
            continue
        print(f"## {part.capitalize()} scaling (float; target: {target}; model busbw {a.busbw:g} GB/s)\n")
        print("| graph | GPUs | links | ms/iteration | compute ms | comm ms | GTEPS per GPU | efficiency | model ms | model efficiency |")
        print("|---|---|---|---|---|---|---|---|---|---|")
        for q in pts:
            print(f"| {q['graph']} | {q['gpus']} | {q['links'] / 1e6:.0f} M | {q['step']:.3f} | {q['compute']:.3f} | "
                  f"{q['comm']:.3f} | {q['gteps_gpu']:.1f} | {q['eff']:.0%} | {q['model_step']:.3f} | {q['model_eff']:.0%} |")
        print()
        one = [r for r in rows if r["part"] == "onegpu" and r["graph"] == pts[0]["graph"] and number(r["step_ms"]) > 0]
        if one and part == "strong":
            t = number(one[0]["step_ms"])
            print(f"The one-GPU solver on {pts[0]['graph']} (no --gpus, its {one[0]['max_diff']} pull): {t:.3f} ms per "
                  "iteration; against it, " + ", ".join(f"{q['gpus']} GPUs {t / (q['gpus'] * q['step']):.0%}" for q in pts) + ".\n")
        series.append((f"{part}, measured", [(q["gpus"], q["eff"]) for q in pts], False))
        series.append((f"{part}, model", [(q["gpus"], q["model_eff"]) for q in pts], True))
    sweep(rows, "chunks", "K", "The exchange in K chunks beside the pull (--exchange-chunks K; K = 1: no overlap)", "1")
    sweep(rows, "cost", "L", "The row's weight in the cut (--row-cost L: links + L x rows per GPU)", "2")
    shape_rows = [r for r in rows if r["part"] == "shape" and number(r["step_ms"]) > 0]
    if shape_rows:
        print("## Other graph shapes: strong scaling of each (automatic chunks)\n")
        print("| graph | GPUs | links | ms/iteration | compute ms | comm ms | loop ms/iteration | efficiency |")
        print("|---|---|---|---|---|---|---|---|")
        for r in shape_rows:
            one = [b for b in shape_rows if b["graph"] == r["graph"] and b["gpus"] == "1"]
            p = int(r["gpus"])
            eff = number(one[0]["step_ms"]) / (p * number(r["step_ms"])) if one else float("nan")
            print(f"| {r['graph']} | {p} | {number(r['links']) / 1e6:.0f} M | {number(r['step_ms']):.3f} | "
                  f"{number(r['compute_ms']):.3f} | {number(r['comm_ms']):.3f} | {number(r['loop_ms']):.3f} | {eff:.0%} |")
        print()
    big = [r for r in rows if r["part"] == "big" and number(r["step_ms"]) > 0]
    if big:
        print("## Beyond one GPU (issue 20 item 4): refused on one GPU by the memory check, solved on several\n")
        print("| graph | links | on one GPU | GPUs | peak GB per GPU (nvidia-smi) | ms/iteration | compute ms | comm ms | "
              "GTEPS per GPU |")
        print("|---|---|---|---|---|---|---|---|---|")
        for r in big:
            one = [b for b in rows if b["part"] == "big-one" and b["graph"] == r["graph"]]
            said = one[0]["max_diff"] if one else ""
            m = re.search(r"needs about ([0-9.]+ GB).*?the ([0-9.]+ GB) free", said)
            refusal = f"refused: needs {m.group(1)}, {m.group(2)} free" if m else (said or "not run")
            p, links, step = int(r["gpus"]), number(r["links"]), number(r["step_ms"])
            print(f"| {r['graph']} | {links / 1e9:.2f} G | {refusal} | {p} | {number(r['peak_gpu_mib']) * 1.048576e-3:.1f} | "
                  f"{step:.3f} | {number(r['compute_ms']):.3f} | {number(r['comm_ms']):.3f} | {links / (step * 1e6) / p:.1f} |")
        print()
    if a.svg and series:
        svg(a.svg, series, "PageRank on R-MAT, pagerank --gpus P: efficiency")
        print(f"(plot: {a.svg})")


if __name__ == "__main__":
    main()
