#!/usr/bin/env python3
"""Writes one random directed weighted graph in the layouts networkx 3 writes
(GraphML, GML, Pajek) and as an edge list of names, for timing perron's graph
file readers (docs/PERFORMANCE.md, "GraphML, GML and Pajek files").
Usage: graph_files_bench.py OUT_DIR [VERTICES [ARCS]]; then, for each file,
pagerank OUT_DIR/big.FMT --no-cache --device cpu --max-iter 1 --top 0"""
import os
import random
import sys

out = sys.argv[1]
n = int(sys.argv[2]) if len(sys.argv) > 2 else 1_000_000
m = int(sys.argv[3]) if len(sys.argv) > 3 else 10_000_000
os.makedirs(out, exist_ok=True)
random.seed(7)
src = [random.randrange(n) for _ in range(m)]
dst = [random.randrange(n) for _ in range(m)]
with open(os.path.join(out, 'big.graphml'), 'w') as f:
    f.write("<?xml version='1.0' encoding='utf-8'?>\n<graphml xmlns=\"http://graphml.graphdrawing.org/xmlns\">\n"
            '<key id="d0" for="edge" attr.name="weight" attr.type="double" />\n<graph edgedefault="directed">\n')
    f.writelines('<node id="v%d" />\n' % i for i in range(n))
    f.writelines('<edge source="v%d" target="v%d">\n  <data key="d0">1.5</data>\n</edge>\n' % e for e in zip(src, dst))
    f.write('</graph></graphml>\n')
with open(os.path.join(out, 'big.gml'), 'w') as f:
    f.write('graph [\n  directed 1\n')
    f.writelines('  node [\n    id %d\n    label "v%d"\n  ]\n' % (i, i) for i in range(n))
    f.writelines('  edge [\n    source %d\n    target %d\n    weight 1.5\n  ]\n' % e for e in zip(src, dst))
    f.write(']\n')
with open(os.path.join(out, 'big.net'), 'w') as f:
    f.write('*vertices %d\n' % n)
    f.writelines('%d v%d 0.0 0.0 ellipse\n' % (i + 1, i) for i in range(n))
    f.write('*arcs\n')
    f.writelines('%d %d 1.5\n' % (s + 1, t + 1) for s, t in zip(src, dst))
with open(os.path.join(out, 'big.txt'), 'w') as f:
    f.writelines('v%d v%d 1.5\n' % e for e in zip(src, dst))
