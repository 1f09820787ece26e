"""apps/pagerank_networkx_bench.py runs end to end and its perron results agree
with networkx's (the benchmark fails a run that does not)."""
import json
import os
import pathlib
import subprocess
import sys

import perron

ROOT = pathlib.Path(os.environ.get("PERRON_SOURCE_DIR", pathlib.Path(__file__).parents[2]))


def test_the_benchmark_agrees_with_networkx():
    devices = "cpu,cuda" if perron.gpu_available() else "cpu"
    graphs = [str(ROOT / "data" / "karate.mtx"), str(ROOT / "data" / "wb-cs-stanford.mtx"), "rmat:10:5000"]
    run = subprocess.run([sys.executable, str(ROOT / "apps" / "pagerank_networkx_bench.py"), "--repeat", "1",
                          "--devices", devices] + graphs, capture_output=True, text=True, env=os.environ)
    assert run.returncode == 0, run.stderr
    rows = [json.loads(line) for line in run.stdout.splitlines()]
    assert [r["graph"] for r in rows] == graphs
    for r in rows:
        assert r["networkx_s"] > 0 and r["scipy_s"] > 0 and 0 < r["networkx_convert_s"]
        assert r["scipy_l1"] < 1e-4
        assert r["perron_graph_s"] > 0 and r["perron_graph_l1"] < 1e-4, r
        for dev in devices.split(","):
            assert r[f"perron_{dev}_double_l1"] < 1e-4, r
            assert r[f"perron_{dev}_float_l1"] < 1e-3, r
            assert r[f"perron_{dev}_double_device"] == dev
    assert "speedup over networkx" in run.stderr
