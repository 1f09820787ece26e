"""scripts/pull_steps.py (the pulls' time a step, pinned and auto's) against a
stand-in pagerank that answers as the real one does: the configurations'
options and environment reach it, a run with no JSON is reported and
skipped, a non-zero exit with its JSON (a solve short of 1e-30) counts, and
the table's medians and ratios are the lines'."""
import json
import os
import pathlib
import stat
import subprocess
import sys

ROOT = pathlib.Path(os.environ.get("PERRON_SOURCE_DIR", pathlib.Path(__file__).parents[2]))
SCRIPT = str(ROOT / "scripts" / "pull_steps.py")

# us a step: the SpMV pull 90, the fused pull 100 in its own order and 120 in
# the in-degree order, auto 100 (the fused pull; 130 under a layout pin);
# "bad" graphs fail.
FAKE = r'''#!{python}
import json, os, sys
args = sys.argv[1:]
if args[0].startswith("bad"):
    sys.stderr.write("pagerank: error: " + args[0] + ": no such file\n")
    sys.exit(66)
assert args[args.index("--tol") + 1] == "1e-30" and "--no-cache" in args and "--json" in args
pull = args[args.index("--pull") + 1] if "--pull" in args else "auto"
window = os.environ.get("PERRON_FUSED_WINDOW")
us = {{"spmv": 90, "fused": 120 if window == "0" else 100, "auto": 130 if window else 100}}[pull]
iterations = int(args[args.index("--max-iter") + 1])
print(json.dumps({{"iterations": iterations, "seconds": {{"device": us * iterations * 1e-6}},
                  "pull_choice": {{"pull": "fused" if pull == "auto" else pull, "reason": "why"}},
                  "kernel": "pull-fused", "kernel_reason": "auto pull: " + pull}}))
sys.exit(3)  # as a solve that did not reach its tolerance
'''


def test_runs_each_configuration_and_tables_them(tmp_path):
    fake = tmp_path / "pagerank"
    fake.write_text(FAKE.format(python=sys.executable))
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    out = tmp_path / "steps.jsonl"
    env = dict(os.environ, PERRON_FUSED_WINDOW="0")  # a pin left set: auto and spmv must not see it
    run = subprocess.run([sys.executable, SCRIPT, "run", "--bin", str(fake), "--out", str(out), "--precision",
                          "double", "--rounds", "2", "--iterations", "50", "--set", "t", "sbm:1000:2000:10",
                          "bad.mtx"], capture_output=True, text=True, env=env)
    assert run.returncode == 0, run.stderr
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(lines) == 8  # 2 rounds x 4 configurations of the good graph
    assert {(d["config"], d["device_us"]) for d in lines} == {("auto", 100.0), ("spmv", 90.0), ("own", 100.0),
                                                               ("indeg", 120.0)}
    assert all(d["precision"] == "double" and d["iterations"] == 50 and d["set"] == "t" for d in lines)
    assert {d["why"] for d in lines if d["config"] == "auto"} == {"auto pull: auto"}
    assert run.stdout.count("FAIL bad.mtx") == 8 and "no such file" in run.stdout
    table = run.stdout[run.stdout.index("\ngraph ") :]  # after the progress lines
    row = [line for line in table.splitlines() if line.startswith("sbm:1000:2000:10 ")]
    assert len(row) == 1
    cells = row[0].split()
    assert cells[1:6] == ["d", "100.0", "90.0", "100.0", "120.0"]
    assert cells[6] == "fused" and cells[7] == "1.111" and cells[8] == "0.900"
    again = subprocess.run([sys.executable, SCRIPT, "table", str(out)], capture_output=True, text=True)
    assert again.returncode == 0 and row[0] in again.stdout


def test_refuses_an_unknown_configuration_and_a_missing_binary(tmp_path):
    run = subprocess.run([sys.executable, SCRIPT, "run", "--bin", sys.executable, "--configs", "auto,nope", "--out",
                          str(tmp_path / "x.jsonl"), "g"], capture_output=True, text=True)
    assert run.returncode != 0 and "unknown configuration(s) nope" in run.stderr
    run = subprocess.run([sys.executable, SCRIPT, "run", "--bin", str(tmp_path / "none"), "--out",
                          str(tmp_path / "x.jsonl"), "g"], capture_output=True, text=True)
    assert run.returncode != 0 and "no pagerank binary" in run.stderr
    assert not (tmp_path / "x.jsonl").exists()
