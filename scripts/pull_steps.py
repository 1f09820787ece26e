#!/usr/bin/env python3
"""The pulls' time a step, each pinned and auto's, by the device's clock: the
held-out checks of pagerank's automatic pull (issue 17 item 2;
docs/PERFORMANCE.md, sessions 83-85).

  scripts/pull_steps.py run --out FILE [options] GRAPH...   (ON THE GPU MACHINE)
  scripts/pull_steps.py table FILE...

`run` starts one process per (round, graph, configuration):
    pagerank GRAPH --device cuda -p P --accelerate none --tol 1e-30
        --max-iter ITERATIONS --json --top 0 --no-cache [the configuration's]
with the configurations
    auto   the model's (or the trial's) pick
    spmv   --pull spmv
    own    --pull fused, the fused pull in the graph's own order
           (PERRON_FUSED_WINDOW=1024: runs of 1024 ids)
    indeg  --pull fused in the in-degree order (PERRON_FUSED_WINDOW=0)
and appends one JSON line to FILE per run: the graph, precision,
configuration, round, iterations, `device_us` (seconds.device / iterations:
CUDA events around the solve; session 83 found the host's wait a step moving
10-25% between processes where the device's did not), the pull and kernel it
ran, how it was decided (`reason`: "model", "trial: ...", "named") and why
(`why`: the run's kernel_reason, which gives the model's clause and the facts
it read). Rounds go over every graph before the next starts, so
that a configuration's samples come from processes apart in time. A solve
that does not reach 1e-30 exits non-zero with its JSON: its figure stands. A
run with no JSON is reported and skipped. `--budget S` starts no run after S
seconds (the device tool's 600-second calls).

`table` (and `run` at its end) prints per graph and precision each
configuration's median us a step, the pull auto ran, auto over the best pinned
configuration and the SpMV pull over the fused pull's better order.

Options of `run`: --bin (default: `pagerank` on PATH, as scripts/gpu-env.sh
sets it), --precision float|double (float), --rounds (2), --configs
(auto,spmv,own,indeg), --iterations (100), --budget (0: none), --set NAME (a
label kept with each line).
"""
import argparse
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import time
from collections import defaultdict

CONFIGS = {
    "auto": ({}, []),
    "spmv": ({}, ["--pull", "spmv"]),
    "own": ({"PERRON_FUSED_WINDOW": "1024"}, ["--pull", "fused"]),
    "indeg": ({"PERRON_FUSED_WINDOW": "0"}, ["--pull", "fused"]),
}

LAYOUT_PINS = ("PERRON_FUSED_HUB", "PERRON_FUSED_WINDOW", "PERRON_FUSED_INDEX", "PERRON_FUSED_LOOP",
               "PERRON_PERSISTENT")


def run(args):
    configs = args.configs.split(",")
    unknown = [c for c in configs if c not in CONFIGS]
    if unknown:
        sys.exit(f"pull_steps: unknown configuration(s) {', '.join(unknown)} (known: {', '.join(CONFIGS)})")
    binary = args.bin or shutil.which("pagerank")
    if not binary or not os.access(binary, os.X_OK):
        sys.exit("pull_steps: no pagerank binary (source scripts/gpu-env.sh .gpu, or give --bin)")
    deadline = time.time() + args.budget if args.budget > 0 else float("inf")
    with open(args.out, "a") as out:
        for r in range(args.rounds):
            for g in args.graphs:
                for c in configs:
                    if time.time() > deadline:
                        print("pull_steps: budget spent; no more runs", flush=True)
                        table([args.out])
                        return
                    # A layout pin left in the caller's environment (solvers/pagerank_trial.hpp,
                    # layout_pin) would pin auto too: each configuration sets only its own.
                    env = {k: v for k, v in os.environ.items() if k not in LAYOUT_PINS}
                    env.update(CONFIGS[c][0])
                    cmd = [binary, g, "--device", "cuda", "-p", args.precision, "--accelerate", "none", "--tol",
                           "1e-30", "--max-iter", str(args.iterations), "--json", "--top", "0", "--no-cache"]
                    p = subprocess.run(cmd + CONFIGS[c][1], env=env, capture_output=True, text=True)
                    try:
                        d = json.loads(p.stdout)
                        it = d["iterations"]
                        us = 1e6 * d["seconds"]["device"] / it
                    except (ValueError, KeyError, TypeError, ZeroDivisionError):
                        err = (p.stderr.strip().splitlines() or ["no output"])[-1]
                        print(f"FAIL {g} {c} rc={p.returncode}: {err[:300]}", flush=True)
                        continue
                    choice = d.get("pull_choice", {})
                    rec = {"graph": g, "precision": args.precision, "config": c, "round": r, "iterations": it,
                           "device_us": round(us, 2), "pull": choice.get("pull"), "kernel": d.get("kernel"),
                           "reason": choice.get("reason"), "why": d.get("kernel_reason"), "set": args.set}
                    out.write(json.dumps(rec) + "\n")
                    out.flush()
                    print(f"{g} {c} {rec['device_us']} us ({rec['pull']})", flush=True)
    table([args.out])


def table(files):
    steps = defaultdict(lambda: defaultdict(list))
    auto_pull = {}
    order = []
    for fn in files:
        with open(fn) as f:
            for line in f:
                line = line.strip()
                if not line:
                    continue
                d = json.loads(line)
                us = d.get("device_us")
                if us is None:
                    continue
                key = (d["graph"], d["precision"])
                if key not in steps:
                    order.append(key)
                steps[key][d["config"]].append(us)
                if d["config"] == "auto":
                    auto_pull[key] = d.get("pull")
    names = [c for c in CONFIGS if any(c in steps[k] for k in order)]
    width = max([len(g) for g, _ in order] + [5])
    print(f"{'graph':{width}} p " + " ".join(f"{c:>8}" for c in names) + "  auto ran  auto/best  spmv/fused")
    for key in order:
        med = {c: statistics.median(v) for c, v in steps[key].items()}
        pinned = [v for c, v in med.items() if c != "auto"]
        best = min(pinned) if pinned else None
        fused = min([med[c] for c in ("own", "indeg") if c in med] or [0]) or None
        cells = " ".join(f"{med[c]:8.1f}" if c in med else f"{'-':>8}" for c in names)
        ratio = f"{med['auto'] / best:9.3f}" if best and "auto" in med else f"{'-':>9}"
        spmv = f"{med['spmv'] / fused:10.3f}" if fused and "spmv" in med else f"{'-':>10}"
        print(f"{key[0]:{width}} {key[1][0]} {cells}  {str(auto_pull.get(key, '-')):8} {ratio}  {spmv}")


def main():
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # `| head` ends the table quietly
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="what", required=True)
    r = sub.add_parser("run", help="time the configurations (on the GPU machine)")
    r.add_argument("--out", required=True)
    r.add_argument("--bin")
    r.add_argument("--precision", choices=("float", "double"), default="float")
    r.add_argument("--rounds", type=int, default=2)
    r.add_argument("--configs", default="auto,spmv,own,indeg")
    r.add_argument("--iterations", type=int, default=100)
    r.add_argument("--budget", type=float, default=0)
    r.add_argument("--set", default="")
    r.add_argument("graphs", nargs="+")
    t = sub.add_parser("table", help="the table of earlier runs' lines")
    t.add_argument("files", nargs="+")
    args = ap.parse_args()
    if args.what == "run":
        run(args)
    else:
        table(args.files)


if __name__ == "__main__":
    main()
