#!/usr/bin/env python3
"""Graph shapes that perron's generators (io/synthetic.hpp) do not make, for
held-out checks of pagerank's automatic choices (docs/PERFORMANCE.md, "3D
meshes, shuffled ids ...", session 78): 3D meshes of 7, 19 and 27-point
stencils, any shape with its ids shuffled, random geometric (k nearest)
graphs, random recursive trees, preferential attachment, disjoint cliques,
banded random graphs and one vertex linking to all. The random shapes draw
from one seeded stream in the order named: the same command line gives the
same files (with the same NumPy).
    python3 scripts/held_out_shapes.py OUTDIR NAME...
writes OUTDIR/NAME.mtx (a pattern, general; arc i -> j at (i, j), self loops
dropped) for each NAME of SHAPES below; then, on the GPU machine,
    OUT=DIR PERRON_CORPUS_RUNS=5 scripts/pagerank-corpus.sh .gpu OUTDIR/*.mtx"""
import sys, os, time
import numpy as np

rng = np.random.default_rng(78)


def mesh(X, Y, Z, full):
    """Arcs both ways between each vertex of an X x Y x Z lattice and its 6 (or 26) neighbours."""
    idx = np.arange(X * Y * Z, dtype=np.int64).reshape(Z, Y, X)
    src, dst = [], []
    offs = [(dz, dy, dx) for dz in (-1, 0, 1) for dy in (-1, 0, 1) for dx in (-1, 0, 1)
            if (dz, dy, dx) != (0, 0, 0) and (full or abs(dz) + abs(dy) + abs(dx) == 1)]
    for dz, dy, dx in offs:
        a = idx[max(0, -dz):Z - max(0, dz), max(0, -dy):Y - max(0, dy), max(0, -dx):X - max(0, dx)]
        b = idx[max(0, dz):Z + min(0, dz), max(0, dy):Y + min(0, dy), max(0, dx):X + min(0, dx)]
        src.append(a.ravel()); dst.append(b.ravel())
    return X * Y * Z, np.concatenate(src), np.concatenate(dst)


def mesh19(X, Y, Z):
    """Arcs both ways to the 18 neighbours sharing a face or an edge."""
    idx = np.arange(X * Y * Z, dtype=np.int64).reshape(Z, Y, X)
    src, dst = [], []
    for dz in (-1, 0, 1):
        for dy in (-1, 0, 1):
            for dx in (-1, 0, 1):
                if (dz, dy, dx) == (0, 0, 0) or abs(dz) + abs(dy) + abs(dx) == 3:
                    continue
                a = idx[max(0, -dz):Z - max(0, dz), max(0, -dy):Y - max(0, dy), max(0, -dx):X - max(0, dx)]
                b = idx[max(0, dz):Z + min(0, dz), max(0, dy):Y + min(0, dy), max(0, dx):X + min(0, dx)]
                src.append(a.ravel()); dst.append(b.ravel())
    return X * Y * Z, np.concatenate(src), np.concatenate(dst)


def band(n, k, w):
    """Each vertex links to k uniform vertices within w ids of it (a banded random graph)."""
    s = np.repeat(np.arange(n, dtype=np.int64), k)
    d = np.clip(s + rng.integers(-w, w + 1, s.size), 0, n - 1)
    return n, s, d


def grid(R, C):
    n, s, d = mesh(C, R, 1, False)
    return n, s, d


def ws(n, k, p):
    """A ring, each vertex linked both ways to its k nearest on each side, each arc rewired w.p. p."""
    v = np.arange(n, dtype=np.int64)
    s = np.concatenate([v for _ in range(k)] * 2)
    d = np.concatenate([(v + j) % n for j in range(1, k + 1)] + [(v - j) % n for j in range(1, k + 1)])
    r = rng.random(s.size) < p
    d[r] = rng.integers(0, n, r.sum())
    return n, s, d


def rgg(n, k):
    """k nearest neighbours in the unit square, both ways; ids by a 1024 x 1024 cell's row-major order."""
    from scipy.spatial import cKDTree
    pts = rng.random((n, 2))
    cell = (np.floor(pts[:, 1] * 1024) * 1024 + np.floor(pts[:, 0] * 1024)).astype(np.int64)
    pts = pts[np.argsort(cell, kind='stable')]
    _, nb = cKDTree(pts).query(pts, k + 1, workers=-1)
    s = np.repeat(np.arange(n, dtype=np.int64), k)
    d = nb[:, 1:].ravel().astype(np.int64)
    return n, np.concatenate([s, d]), np.concatenate([d, s])


def rtree(n, both):
    """A random recursive tree: vertex i > 0 links to a uniform older vertex (and back if both)."""
    c = np.arange(1, n, dtype=np.int64)
    p = (rng.random(n - 1) * c).astype(np.int64)
    return (n, np.concatenate([c, p]), np.concatenate([p, c])) if both else (n, c, p)


def ba(n, m):
    """Preferential attachment: each new vertex links to m older ones (Batagelj-Brandes:
    an arc's target is an endpoint of a uniform earlier arc); a star on 0..m to start."""
    M = np.empty(2 * (n * m), dtype=np.int64)
    k = 0
    src = np.empty((n - m - 1) * m, dtype=np.int64); dst = np.empty_like(src)
    for v in range(1, m + 1):
        M[k] = v; M[k + 1] = 0; k += 2
    e = 0
    r = rng.random((n - m - 1) * m)
    for v in range(m + 1, n):
        for j in range(m):
            t = M[int(r[e] * k)]
            src[e] = v; dst[e] = t
            M[k] = v; M[k + 1] = t; k += 2
            e += 1
    return n, src, dst


def cliques(count, size):
    base = np.arange(count, dtype=np.int64)[:, None, None] * size
    a = np.arange(size)
    i, j = np.meshgrid(a, a, indexing='ij')
    keep = i != j
    s = (base + i[None]).reshape(count, -1)[:, keep.ravel()].ravel()
    d = (base + j[None]).reshape(count, -1)[:, keep.ravel()].ravel()
    return count * size, s, d


def outhub(n, m):
    """Vertex 0 links to every vertex (one row of A with n - 1 entries), plus m uniform arcs."""
    s = np.concatenate([np.zeros(n - 1, dtype=np.int64), rng.integers(0, n, m)])
    d = np.concatenate([np.arange(1, n, dtype=np.int64), rng.integers(0, n, m)])
    return n, s, d


def kleinberg(side, q):
    """A side x side grid (both ways to the 4 neighbours, row-major ids) plus q long-range arcs a
    vertex, each to a vertex at lattice distance r with probability ~ r^-2 (Kleinberg's small world)."""
    n, s, d = grid(side, side)
    src = np.repeat(np.arange(n, dtype=np.int64), q)
    # r with density ~ 1/r on [1, side): the r^-2 law summed over the ~r points at distance r
    r = np.floor(np.exp(rng.random(src.size) * np.log(side))).astype(np.int64)
    t = rng.random(src.size) * 2 * np.pi
    x = np.clip(src % side + np.round(r * np.cos(t)).astype(np.int64), 0, side - 1)
    y = np.clip(src // side + np.round(r * np.sin(t)).astype(np.int64), 0, side - 1)
    return n, np.concatenate([s, src]), np.concatenate([d, y * side + x])


def kron3(levels, m):
    """A stochastic Kronecker graph of a 3 x 3 initiator (not R-MAT's 2 x 2): 3^levels vertices,
    m arcs, each arc's base-3 digits of source and target drawn per level from the initiator."""
    P = np.array([[0.40, 0.12, 0.08], [0.12, 0.10, 0.04], [0.08, 0.04, 0.02]]).ravel()
    P = np.cumsum(P / P.sum())
    s = np.zeros(m, dtype=np.int64); d = np.zeros(m, dtype=np.int64)
    for _ in range(levels):
        c = np.searchsorted(P, rng.random(m))
        s = s * 3 + c // 3
        d = d * 3 + c % 3
    return 3 ** levels, s, d


def coreper(n, core, k, pcore):
    """Core-periphery: every periphery vertex links to k uniform core vertices (ids 0..core-1) and
    each core vertex back to k periphery ones; the core's own links at density pcore."""
    per = np.repeat(np.arange(core, n, dtype=np.int64), k)
    tocore = rng.integers(0, core, per.size)
    back = np.repeat(np.arange(core, dtype=np.int64), k)
    toper = rng.integers(core, n, back.size)
    cm = int(pcore * core * core)
    cs = rng.integers(0, core, cm); cd = rng.integers(0, core, cm)
    return n, np.concatenate([per, back, cs]), np.concatenate([tocore, toper, cd])


def multihub(n, m, hubs, share):
    """m uniform arcs, a fraction share of them aimed at one of `hubs` uniform vertices
    (many rows of P^T thousands of links long, none holding most of them)."""
    s = rng.integers(0, n, m)
    d = rng.integers(0, n, m)
    h = rng.random(m) < share
    d[h] = rng.choice(n, hubs, replace=False)[rng.integers(0, hubs, h.sum())]
    return n, s, d


def hsbm(n, m, levels):
    """Nested communities: an arc stays inside its source's block of n / 2^l ids with l drawn
    uniformly from 1..levels (each level halves the block), its target uniform in that block."""
    s = rng.integers(0, n, m)
    l = rng.integers(1, levels + 1, m)
    size = np.maximum(n >> l, 1)
    d = np.minimum((s // size) * size + rng.integers(0, 1 << 62, m) % size, n - 1)
    return n, s, d


def repeated(g, mean):
    """Every arc given 1 + Poisson(mean - 1) times (duplicates the reader merges)."""
    n, s, d = g
    r = 1 + rng.poisson(mean - 1, s.size)
    return n, np.repeat(s, r), np.repeat(d, r)


def reversed_arcs(g):
    n, s, d = g
    return n, d, s


def clique_ring(count, size):
    """cliques(count, size) joined in a ring: one arc each way between consecutive cliques."""
    n, s, d = cliques(count, size)
    a = np.arange(count, dtype=np.int64) * size
    b = (a + size) % n
    return n, np.concatenate([s, a, b]), np.concatenate([d, b, a])


def shuffled(g):
    n, s, d = g
    p = rng.permutation(n)
    return n, p[s], p[d]


SHAPES = {
    'mesh7-50': lambda: mesh(50, 50, 50, False),
    'mesh7-100': lambda: mesh(100, 100, 100, False),
    'mesh7-160': lambda: mesh(160, 160, 160, False),
    'mesh27-30': lambda: mesh(30, 30, 30, True),
    'mesh27-60': lambda: mesh(60, 60, 60, True),
    'mesh27-100': lambda: mesh(100, 100, 100, True),
    'mesh7-100-shuf': lambda: shuffled(mesh(100, 100, 100, False)),
    'grid-1000-shuf': lambda: shuffled(grid(1000, 1000)),
    'grid-300-shuf': lambda: shuffled(grid(300, 300)),
    'ws-1000000-5-shuf': lambda: shuffled(ws(1000000, 5, 0.05)),
    'rgg-1000000-8': lambda: rgg(1000000, 8),
    'rgg-200000-8': lambda: rgg(200000, 8),
    'rgg-1000000-8-shuf': lambda: shuffled(rgg(1000000, 8)),
    'rtree-1000000': lambda: rtree(1000000, False),
    'rtree-2000000-both': lambda: rtree(2000000, True),
    'rtree-300000-shuf': lambda: shuffled(rtree(300000, False)),
    'ba-300000-4': lambda: ba(300000, 4),
    'ba-300000-4-shuf': lambda: shuffled(ba(300000, 4)),
    'cliques-10000-20': lambda: cliques(10000, 20),
    'cliques-2000-50-shuf': lambda: shuffled(cliques(2000, 50)),
    'outhub-1000000-4000000': lambda: outhub(1000000, 4000000),
    'outhub-100000-500000': lambda: outhub(100000, 500000),
    'mesh27-62': lambda: mesh(62, 62, 62, True),
    'mesh27-64': lambda: mesh(64, 64, 64, True),
    'mesh27-66': lambda: mesh(66, 66, 66, True),
    'mesh27-60-shuf': lambda: shuffled(mesh(60, 60, 60, True)),
    'cliques-15000-20': lambda: cliques(15000, 20),
    'rgg-300000-20': lambda: rgg(300000, 20),
    'rgg-300000-20-shuf': lambda: shuffled(rgg(300000, 20)),
    'mesh19-64': lambda: mesh19(64, 64, 64),
    'mesh27-58': lambda: mesh(58, 58, 58, True),
    'band-250000-24-500': lambda: band(250000, 24, 500),
    'band-250000-24-20': lambda: band(250000, 24, 20),
    'cliques-10000-25': lambda: cliques(10000, 25),
    'mesh19-64-shuf': lambda: shuffled(mesh19(64, 64, 64)),
    # session 79: local, even graphs past 2^23 links (the fused pull's own order)
    'rgg-600000-16': lambda: rgg(600000, 16),
    'rgg-2000000-10': lambda: rgg(2000000, 10),
    'band-1000000-12-1000': lambda: band(1000000, 12, 1000),
    'mesh19-120': lambda: mesh19(120, 120, 120),
    'mesh7-220': lambda: mesh(220, 220, 220, False),
    'mesh19-120-shuf': lambda: shuffled(mesh19(120, 120, 120)),
    'rgg-4000000-8': lambda: rgg(4000000, 8),
    'rgg-1000000-30': lambda: rgg(1000000, 30),
    'mesh19-160': lambda: mesh19(160, 160, 160),
    # session 80: local, even graphs past 32 M links with links at mid range
    # (512-4096 ids apart: a layer of 1600 or 900 ids, a cell row of 4-8 points)
    'mesh7-40x40x5000': lambda: mesh(40, 40, 5000, False),
    'mesh27-30x30x1500': lambda: mesh(30, 30, 1500, True),
    'rgg-2000000-16': lambda: rgg(2000000, 16),
    'rgg-6000000-6': lambda: rgg(6000000, 6),
    'rgg-8000000-4': lambda: rgg(8000000, 4),
    # held out after the rule's change
    'rgg-3000000-12': lambda: rgg(3000000, 12),
    'rgg-9000000-4': lambda: rgg(9000000, 4),
    'rgg-1500000-12': lambda: rgg(1500000, 12),
    'mesh27-40x40x900': lambda: mesh(40, 40, 900, True),
    'mesh19-36x36x2000': lambda: mesh19(36, 36, 2000),
    'band-4000000-10-2000': lambda: band(4000000, 10, 2000),
    # session 82: rows of Poisson-like lengths (the longest 4-8x the mean), x past half of L2
    'band-9000000-4-2000': lambda: band(9000000, 4, 2000),
    'band-12000000-3-5000': lambda: band(12000000, 3, 5000),
    # session 102: shapes no rule was fitted on (small worlds on a lattice, a 3 x 3
    # Kronecker initiator, core-periphery, many hubs, nested communities, repeated
    # arcs, preferential attachment reversed, rings of cliques)
    'kleinberg-1000-1': lambda: kleinberg(1000, 1),
    'kleinberg-300-2-shuf': lambda: shuffled(kleinberg(300, 2)),
    'kron3-12-1500000': lambda: kron3(12, 1500000),
    'kron3-14-20000000': lambda: kron3(14, 20000000),
    'coreper-1000000-2000-3-0.2': lambda: coreper(1000000, 2000, 3, 0.2),
    'coreper-100000-300-5-0.5': lambda: coreper(100000, 300, 5, 0.5),
    'multihub-2000000-16000000-300-0.3': lambda: multihub(2000000, 16000000, 300, 0.3),
    'multihub-200000-1000000-50-0.5': lambda: multihub(200000, 1000000, 50, 0.5),
    'hsbm-4000000-30000000-12': lambda: hsbm(4000000, 30000000, 12),
    'hsbm-500000-3000000-8-shuf': lambda: shuffled(hsbm(500000, 3000000, 8)),
    'repeated-er-300000-1500000-4': lambda: repeated((300000, rng.integers(0, 300000, 1500000),
                                                      rng.integers(0, 300000, 1500000)), 4),
    'ba-200000-5-rev': lambda: reversed_arcs(ba(200000, 5)),
    'cliquering-40000-12': lambda: clique_ring(40000, 12),
    'cliquering-3000-40-shuf': lambda: shuffled(clique_ring(3000, 40)),
}


def digits(v, w):
    """v (int64, < 10^w) as right-aligned decimal text, w bytes a value."""
    out = np.empty((v.size, w), dtype=np.uint8)
    for p in range(w):
        q = v // 10 ** (w - 1 - p)
        out[:, p] = np.where((q == 0) & (p < w - 1), 32, 48 + q % 10)
    return out


def write_mtx(path, n, s, d):
    w = len(str(n))
    body = np.empty((s.size, 2 * w + 2), dtype=np.uint8)
    body[:, :w] = digits(s + 1, w)
    body[:, w] = 32
    body[:, w + 1:2 * w + 1] = digits(d + 1, w)
    body[:, -1] = 10
    with open(path, 'wb') as f:
        f.write(b'%%MatrixMarket matrix coordinate pattern general\n')
        f.write(f'{n} {n} {s.size}\n'.encode())
        f.write(body.tobytes())


if __name__ == '__main__':
    if len(sys.argv) < 3 or any(a not in SHAPES for a in sys.argv[2:]):
        sys.exit('usage: held_out_shapes.py OUTDIR NAME...\nnames: ' + ' '.join(SHAPES))
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for name in sys.argv[2:]:
        t = time.time()
        n, s, d = SHAPES[name]()
        keep = s != d
        write_mtx(os.path.join(out, name + '.mtx'), n, s[keep], d[keep])
        print(f'{name}: n {n}, arcs {keep.sum()}, {time.time() - t:.1f} s', flush=True)
