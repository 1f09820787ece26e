#!/usr/bin/env python3
"""Table of scripts/device-choice-bench.sh's OUTDIR (docs/PERFORMANCE.md, "Device choice").

Per graph: median wall time of three runs per device, what auto chose and its
ratio to the better device, the CUDA context's own duration (median of the
cuda runs) and the cuda runs' wall time minus it, the model's predictions, and
the measured phases the rates are fitted on.
    scripts/device_choice_table.py OUTDIR
"""
import json
import os
import statistics
import sys


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def main(out):
    walls = {}
    order = []
    with open(os.path.join(out, "walls.txt")) as f:
        for line in f:
            p = line.split()
            if len(p) != 5:
                continue
            name, dev, rnd, rc, wall = p
            if name not in order:
                order.append(name)
            walls.setdefault((name, dev), []).append((float(wall), int(rc), rnd))
    med = statistics.median
    print("| graph | vertices | links | iters | cpu s | cuda s | auto s (chose) | auto / best | context s"
          " (driver) | cuda − context s | predicted cpu / cuda s |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    fit = []
    for name in order:
        runs = {dev: walls.get((name, dev), []) for dev in ("cpu", "cuda", "auto")}
        if not all(runs.values()):
            continue
        w = {dev: med(x[0] for x in r) for dev, r in runs.items()}
        js = {dev: [load(os.path.join(out, f"{name}.{dev}.{x[2]}.json")) for x in r] for dev, r in runs.items()}
        js = {dev: [j for j in l if j] for dev, l in js.items()}
        if not js["cuda"] or not js["cpu"] or not js["auto"]:
            print(f"| {name} | (runs failed) |")
            continue
        chose = sorted({j["device"] for j in js["auto"]})
        ctx = [j["seconds"]["context"] for j in js["cuda"] if j["seconds"]["context"] is not None]
        drv = [j["seconds"]["driver"] for j in js["cuda"] if j["seconds"]["driver"] is not None]
        c = med(ctx) if ctx else float("nan")
        pa = js["auto"][0]["device_choice"].get("predicted", {})
        j0 = js["cpu"][0]
        best = min(w["cpu"], w["cuda"])
        print(f"| {name} | {j0['vertices']} | {j0['links']} | {j0['iterations']} | {w['cpu']:.3f} | {w['cuda']:.3f}"
              f" | {w['auto']:.3f} ({'/'.join(chose)}) | {w['auto'] / best:.2f} | {c:.3f} ({med(drv) if drv else float('nan'):.3f})"
              f" | {w['cuda'] - c:.3f} | {pa.get('cpu', float('nan')):.3f} / {pa.get('cuda', float('nan')):.3f} |")
        ph = lambda dev, k: med(j["seconds"][k] for j in js[dev])
        fit.append((name, j0["vertices"], j0["links"], j0["iterations"], j0["device_choice"].get("threads"),
                    ph("cpu", "load"), ph("cpu", "convert"), ph("cpu", "solve"), ph("cuda", "load"),
                    ph("cuda", "context_wait"), ph("cuda", "convert"), js["cuda"][0]["convert_on"],
                    ph("cuda", "transfer"), ph("cuda", "solve"), ph("cuda", "total"), ph("cpu", "total")))
    print()
    print("| graph | vertices | links | iters | threads | cpu: load | convert | solve | cuda: load | context wait"
          " | convert (on) | transfer | solve | total in-process cuda / cpu |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in fit:
        print(f"| {r[0]} | {r[1]} | {r[2]} | {r[3]} | {r[4]} | {r[5]:.4f} | {r[6]:.4f} | {r[7]:.4f} | {r[8]:.4f}"
              f" | {r[9]:.4f} | {r[10]:.4f} ({r[11]}) | {r[12]:.4f} | {r[13]:.4f} | {r[14]:.4f} / {r[15]:.4f} |")
    waited = [n for n in order if walls.get((n, "cuda-wait")) and walls.get((n, "cuda"))]
    if waited:  # the detached teardown (apps/common/detached_exit.hpp) against one process
        print()
        print("| graph | cuda s (teardown detached) | cuda s (one process, teardown waited) | difference s |")
        print("|---|---|---|---|")
        for n in waited:
            a, b = med(x[0] for x in walls[(n, "cuda")]), med(x[0] for x in walls[(n, "cuda-wait")])
            print(f"| {n} | {a:.3f} | {b:.3f} | {b - a:.3f} |")
    extra = [k for k in walls if k[1] not in ("cpu", "cuda", "cuda-wait", "auto")]
    for k in sorted(extra):
        print(k[0], k[1], " ".join(f"{x[0]:.3f}" for x in walls[k]))


if __name__ == "__main__":
    main(sys.argv[1])
