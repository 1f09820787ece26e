"""perron: PageRank and sparse kernels on the GPU (CUDA) or the CPU (OpenMP).

    import perron, scipy.sparse as sp
    ranks, info = perron.pagerank(A)            # A: any scipy.sparse matrix, row = source
    ranks, info = perron.pagerank(G)            # G: a networkx graph -> ranks {node: rank}, as networkx gives
    R, info = perron.pagerank_batched(A, [[3], [7, 9]])  # personalized, one column per source set
    A = perron.read_matrix("graph.mtx.gz")      # Matrix Market or SNAP; .gz/.bz2/.xz, .tar.gz, .zip -> scipy CSR
    y = perron.spmv(A, x, kernel="auto")

Errors: ValueError for bad arguments and malformed files, TypeError for an
argument of the wrong type (alpha="x", an index array of floats), FileNotFoundError /
OSError for files that cannot be read, MemoryError where a graph needs more
memory than the host or the GPU has free (refused before it is copied),
CudaError (a RuntimeError) where the GPU fails. Messages name the keywords
(max_iter), not the command line's flags.

perron's tol bounds the L1 change of the rank vector between two steps,
||r_k+1 - r_k||_1 < tol. networkx.pagerank stops when that change is below
N * tol, so perron.pagerank(A, tol=t) matches networkx.pagerank(G, tol=t / N).
"""

import collections.abc as _abc
import itertools as _itertools
import numbers as _numbers
import os as _os
import re as _re
import warnings as _warnings

import numpy as _np
import scipy.sparse as _sp

from . import _perron

__all__ = ["pagerank", "pagerank_batched", "BatchedPageRankInfo", "read_matrix", "spmv", "gpu_available", "kernels", "PageRankInfo", "CudaError"]

CudaError = _perron.CudaError


def gpu_available():
    """True when perron was built with CUDA and a GPU is usable."""
    return _perron.gpu_available()


def kernels():
    """The SpMV kernels spmv() accepts, in perron's order ("cpu" first, "auto" last)."""
    return _perron.kernels()


class PageRankInfo:
    """What a solve did: iterations, residual (L1 change of the last step),
    converged, device ("cpu" / "cuda") and device_choice (why: with device="auto", each
    device's predicted time), pull, kernel, and timings in seconds."""

    def __init__(self, d):
        self.iterations = d["iterations"]
        self.residual = d["residual"]
        self.converged = d["converged"]
        self.device = d["device"]
        self.device_choice = d["device_choice"]
        self.pull = d["pull"]
        self.kernel = d["kernel"]
        self.timings = {"solve": d["solve_seconds"], "device": d["device_seconds"], "trial": d["trial_seconds"]}
        self.host_syncs = d["host_syncs"]
        self.accelerate = d["accelerate"]
        self.extrapolations = d["extrapolations"]
        self.extrapolations_rejected = d["extrapolations_rejected"]

    def __repr__(self):
        state = "converged" if self.converged else "not converged"
        return (f"PageRankInfo({state} in {self.iterations} iterations, residual {self.residual:.3g}, "
                f"{self.device}, {self.kernel}, {self.timings['solve'] * 1e3:.3f} ms)")


def _index_array(a):
    a = _np.asarray(a)
    # A float or bool array would be cast to int32 without a word (1.5 -> 1, True -> 1).
    if a.size and a.dtype.kind not in "iu":
        raise TypeError(f"an index array must hold integers, got dtype {a.dtype}")
    if a.size and a.min() < 0:
        raise ValueError(f"an index array holds a negative value ({a.min()})")
    if a.size and a.max() > _np.iinfo(_np.int32).max:
        raise ValueError(f"perron uses 32-bit indices; an index array holds {a.max()}, past 2^31 - 1")
    return _np.ascontiguousarray(a, dtype=_np.int32)


def _check_shape(A):
    # Before any conversion: tocsr() of a COO matrix of 3 * 2^30 rows allocates 24 GiB for
    # indptr before a 32-bit index could be refused.
    if max(A.shape) > _np.iinfo(_np.int32).max:
        raise ValueError(f"perron uses 32-bit indices; a {A.shape[0]} x {A.shape[1]} matrix has more than "
                         f"2^31 - 1 rows or columns")


# The values of an unweighted graph, which the solver never reads.
_no_values = _np.empty(0)


def _check_memory(n, links):
    """The solve's check of the host memory a PageRank of n vertices and `links` links needs
    (MemoryError, in its words), run before A is converted or copied: tocsr() of a COO matrix
    of 1.5e9 vertices and one entry first allocated 6 GB (its indptr) for a solve of 72 GB to
    refuse. Below 2^16 vertices and links, where the copies come to a few MB at most, the
    solve's check alone (reading the memory free takes 0.14 ms, a fifth of karate's whole
    call); past 32-bit ids the reader of the arrays refuses the graph."""
    if n + links < 1 << 16 or n > _np.iinfo(_np.int32).max:
        return
    _perron.check_pagerank_memory(int(n), int(links))


def _graph_arrays(A, weighted):
    """(n, indptr, indices, data, transposed): CSC is already the CSR of A^T and
    CSR is passed as is; other formats convert to CSR (a copy). Stored zeros are
    dropped (a copy where A has them)."""
    if isinstance(A, tuple):
        if len(A) != 2:
            raise ValueError("a graph given as a tuple is (indptr, indices) of its CSR")
        indptr, indices = (_np.asarray(x) for x in A)
        if indptr.ndim != 1 or indices.ndim != 1:  # len() of a scalar named nothing; 2-D was raveled
            raise ValueError(f"a graph given as a tuple is (indptr, indices) of its CSR, two 1-D arrays; got shapes "
                             f"{indptr.shape} and {indices.shape}")
        n = len(indptr) - 1
        if n < 0:
            raise ValueError("indptr must hold n + 1 entries")
        if n == 0:  # (checked here: a source or personalization vertex was "not in the graph (0 .. -1)")
            raise ValueError("the graph is empty (0 vertices)")
        _check_memory(n, len(indices))
        values = _np.ones(len(indices)) if weighted else _no_values
        return n, _index_array(indptr), _index_array(indices), values, False
    if isinstance(A, _np.ndarray):  # a dense adjacency matrix (np.matrix too): its nonzeros are the arcs
        if A.ndim != 2:
            raise ValueError(f"A as a numpy array is a dense adjacency matrix, 2-D; got shape {A.shape}")
        if A.dtype.kind not in "biufcO":  # (strings, dates and times: refused before scipy casts them)
            raise TypeError(f"A must hold numbers, got dtype {A.dtype}")
        if A.dtype.kind == "O":
            # Its entries checked as a sparse object matrix's (below): np.array([[0, 1], [1, 0]],
            # dtype=object) was refused as "not numbers" where its csr_matrix was taken. scipy
            # converts no object array, so the CSR is built here, row by row.
            A = _np.asarray(A)
            rows, cols = _np.nonzero(_np.asarray(A != 0, dtype=bool))
            indptr = _np.concatenate(([0], _np.cumsum(_np.bincount(rows, minlength=A.shape[0]))))
            A = _sp.csr_matrix((A[rows, cols], cols, indptr), shape=A.shape)
        else:
            A = _sp.csr_matrix(A)  # (its shape checked below, as a sparse A's)
    if not _sp.issparse(A):
        raise ValueError("A must be a scipy.sparse matrix, a 2-D numpy array, an (indptr, indices) tuple or a "
                         f"networkx graph; got {type(A).__name__}")
    if A.shape[0] != A.shape[1]:
        raise ValueError(f"PageRank needs a square adjacency matrix, got {A.shape[0]} x {A.shape[1]}")
    if A.shape[0] == 0:
        raise ValueError("the graph is empty (0 vertices)")
    _check_shape(A)
    # Strings, dates and times were taken as numbers where weighted (a date as its days since
    # 1970), and failed in numpy ("ufunc 'logical_and' did not contain a loop") where not.
    if A.dtype.kind not in "biufcO":
        raise TypeError(f"A must hold numbers, got dtype {A.dtype}")
    if weighted and A.dtype.kind == "c":  # casting to float64 would drop the imaginary parts
        raise TypeError(f"weighted=True needs real arc weights, A holds {A.dtype}")
    _check_memory(A.shape[0], A.nnz)  # before tocsr() or a canonical copy (A.nnz: duplicates too)
    if A.format not in ("csr", "csc"):
        A = A.tocsr()
    if A.dtype.kind == "O":
        _check_objects(A, _numbers.Real if weighted else _numbers.Number)
        # As numbers (scipy sums no duplicates of objects, nor drops their zeros): the weights
        # in double, or unweighted, each entry's arc or none (a complex object too).
        data = _np.asarray(A.data, dtype=_np.float64) if weighted else (A.data != 0).astype(_np.float64)
        # (a new matrix over the same index arrays, not A.copy(): scipy 1.11 and later copy no object matrix)
        A = (_sp.csr_matrix if A.format == "csr" else _sp.csc_matrix)((data, A.indices, A.indptr), shape=A.shape)
    # Unsorted indices or duplicates, or stored zeros (left by arithmetic or by zeroing an
    # entry: A[i, j] == 0 is no arc, as in networkx, where it weighs 0): a canonical copy.
    if not A.has_canonical_format or not A.data.all():
        A = A.copy()
        A.sum_duplicates()
        A.eliminate_zeros()
    # Unweighted, the values are not read (no cast of a complex or object A, no
    # array of ones: 13 ms at 10^7 links).
    data = _np.ascontiguousarray(A.data, dtype=_np.float64) if weighted else _no_values
    if weighted:
        _check_weights(A, data)
    return A.shape[0], _index_array(A.indptr), _index_array(A.indices), data, A.format == "csc"


def _unsorted_column(indptr, indices):
    """(column, row, next row) at the first place a CSC's column does not list its rows strictly
    increasing, or None. One numpy pass: only after a solve refused the arrays."""
    indptr, indices = _np.asarray(indptr, dtype=_np.int64), _np.asarray(indices, dtype=_np.int64)
    bad = _np.diff(indices) <= 0  # bad[k]: indices[k] >= indices[k + 1]
    ends = indptr[1:-1] - 1  # a column's last entry before the next column's first
    bad[ends[(ends >= 0) & (ends < len(bad))]] = False
    if not bad.any():
        return None
    k = int(_np.argmax(bad))
    return int(_np.searchsorted(indptr, k, side="right")) - 1, int(indices[k]), int(indices[k + 1])


def _solve(transposed, call, indptr, indices, *args):
    """call(indptr, indices, *args), a solver given _graph_arrays' arrays. transposed: they are a
    CSC's own, passed uncopied on the word of A.has_canonical_format; the solver refuses a column
    out of order, in its own terms (the C++ functions that sort, vertices from 1), which become the
    matrix's here, with scipy's cure: sum_duplicates() and sort_indices() do nothing while the flags
    say their work is done."""
    try:
        return call(indptr, indices, *args)
    except ValueError as e:
        # A CSC's indices are rows: the CSR check's "column index 5 of entry 2" named the wrong axis.
        outside = _re.search(r"column index (-?\d+) of entry (\d+) lies outside \[0, (\d+)\)", str(e))
        if transposed and outside:
            row, entry, n = (int(g) for g in outside.groups())
            column = int(_np.searchsorted(_np.asarray(indptr, dtype=_np.int64), entry, side="right")) - 1
            raise ValueError(f"A (CSC): row index {row} of entry {entry} (column {column}) lies outside "
                             f"[0, {n})") from None
        found = _unsorted_column(indptr, indices) if transposed else None
        if found is None:
            raise
        column, row, following = found
        what = f"holds row {row} twice" if row == following else f"lists row {row} before row {following}"
        raise ValueError(f"A (CSC) is flagged has_canonical_format, but its column {column} {what}: "
                         "set A.has_sorted_indices and A.has_canonical_format to False, then call "
                         "A.sum_duplicates()") from None


def _is_networkx(A):
    """A networkx Graph, DiGraph, MultiGraph or MultiDiGraph (or a subclass), told
    without importing networkx."""
    return any(c.__module__.startswith("networkx.") and c.__name__ == "Graph" for c in type(A).__mro__)


def _from_networkx(G, weighted):
    """(A, nodes, index, weighted): G's adjacency matrix in CSR with its vertices in the order of list(G).
    weighted: None (the default: as True, networkx.pagerank's weight="weight"), False (each linked
    pair once, a multigraph's parallel edges too), True (the 'weight' attribute, 1 where an edge has
    none, as networkx.pagerank's default weight="weight" reads it) or an attribute's name. An
    undirected graph's edges go both ways (its adjacency holds them so); a multigraph's parallel
    edges add up. Read from the adjacency dicts in one pass: networkx.to_scipy_sparse_array took
    3.2 s at 10^6 arcs, 8x this, and 90% of a whole perron.pagerank(G)."""
    if isinstance(weighted, str):
        attribute = weighted
    elif weighted is None:  # the default: networkx.pagerank's weight="weight"
        attribute = "weight"
    else:
        attribute = "weight" if _flag(weighted, "weighted") else None
    nodes = list(G)
    n = len(nodes)
    if n == 0:
        raise ValueError("the graph is empty (0 vertices)")
    index = _node_index(nodes)
    adj = getattr(G, "_adj", None)
    if adj is None:
        adj = G.adj
    rows = [adj[u] for u in nodes]
    if type(adj) is not dict:  # a view's atlases, as dicts: networkx 2.8's UnionAtlas (to_undirected(as_view=True))
        rows = [dict(r) for r in rows]  # counts a pair linked both ways twice in len(), once in its keys
    indptr = _np.zeros(n + 1, dtype=_np.int64)
    indptr[1:] = _np.cumsum(_np.fromiter(map(len, rows), dtype=_np.int64, count=n))
    links = int(indptr[-1])
    if links > _np.iinfo(_np.int32).max:
        raise ValueError(f"perron uses 32-bit indices; the graph has {links} arcs, past 2^31 - 1")
    _check_memory(n, links)  # before the arrays of the arcs
    neighbours = _itertools.chain.from_iterable(rows)
    if nodes == list(range(n)):  # the nodes are their positions: no lookup (numpy ints hash slowly: 30x)
        indices = _np.fromiter(neighbours, dtype=_np.int32, count=links)
    else:
        indices = _np.fromiter(map(index.__getitem__, neighbours), dtype=_np.int32, count=links)
    data = _np.ones(links)
    if weighted is None and not G.is_multigraph() and not any(attribute in d for r in rows for d in r.values()):
        attribute = None  # every edge weighs 1: the pattern alone, the same ranks (no weighted P^T to build)
    if attribute is not None:
        if G.is_multigraph():
            weights = (sum(d.get(attribute, 1) for d in keys.values()) for r in rows for keys in r.values())
        else:
            weights = (d.get(attribute, 1) for r in rows for d in r.values())
        try:
            data = _np.fromiter(weights, dtype=_np.float64, count=links)
        except (TypeError, ValueError) as e:  # "could not convert string to float: 'heavy'"
            raise TypeError(f"weighted: the edges' {attribute!r} attribute must hold real numbers ({e})") from None
        except OverflowError:  # an int past double's range (10**400), named by edge as the others below
            for u, r in zip(nodes, rows):
                for v, d in r.items():
                    w = sum(k.get(attribute, 1) for k in d.values()) if G.is_multigraph() else d.get(attribute, 1)
                    try:
                        float(w)
                    except OverflowError:
                        raise ValueError(f"weighted: edge {u!r} -> {v!r} has {_huge(w)} past double's range "
                                         f"as its weight (weights must be finite and non-negative)") from None
            raise
        bad = _np.flatnonzero(~(_np.isfinite(data) & (data >= 0)))
        if len(bad):  # named here by node (_check_weights names positions)
            u = int(_np.searchsorted(indptr, bad[0], side="right")) - 1
            v = nodes[indices[bad[0]]]
            given = data[bad[0]]
            if not G.is_multigraph() and G[nodes[u]][v].get(attribute, 1) is None:
                given = None  # (numpy reads None as nan: "has weight nan" for weight=None)
            raise ValueError(f"weighted: edge {nodes[u]!r} -> {v!r} has weight {given} "
                             f"(weights must be finite and non-negative)")
        with _np.errstate(over="ignore"):
            total = data.sum()
        if not _np.isfinite(total):  # a node's out-weights past double, named by node (_check_weights: its position)
            out = _np.bincount(_np.repeat(_np.arange(n), _np.diff(indptr)), weights=data, minlength=n)
            over = _np.flatnonzero(~_np.isfinite(out))
            if len(over):
                raise ValueError(f"weighted: node {nodes[over[0]]!r}: the sum of its out-edge weights overflows a double")
    A = _sp.csr_matrix((data, indices, indptr), shape=(n, n))
    return A, nodes, index, attribute is not None


def _hashable(v):
    try:
        hash(v)
        return True
    except TypeError:
        return False


def _node_index(nodes):
    return {v: i for i, v in enumerate(nodes)}


# A Python float: Python compares an int of any size with it exactly, where
# NumPy 2 raised OverflowError converting the int to compare with a float64.
_DOUBLE_MAX = float(_np.finfo(_np.float64).max)


def _huge(v):
    return "an integer" if isinstance(v, _numbers.Integral) else "a number"


def _entry(A, k):
    """(row, column) of the k-th stored entry of A, CSR or CSC."""
    major, minor = int(_np.searchsorted(A.indptr, k, side="right")) - 1, int(A.indices[k])
    return (minor, major) if A.format == "csc" else (major, minor)


def _check_objects(A, kind, prefix=""):
    # An object array's values are numpy's to cast: None became NaN (spmv returned NaN rows without a
    # word), a string its number, and pagerank failed in scipy ("unsupported data types in input").
    for k, v in enumerate(A.data):
        if not isinstance(v, kind):
            i, j = _entry(A, k)
            raise TypeError(f"{prefix}A[{i}, {j}] holds {v!r}, not a {'real ' if kind is _numbers.Real else ''}number")
        # an int past double's range: numpy's cast raised "int too large to convert to float", naming nothing
        if kind is _numbers.Real and isinstance(v, _numbers.Rational) and abs(v) > _DOUBLE_MAX:
            i, j = _entry(A, k)
            raise ValueError(f"{prefix}A[{i}, {j}] holds {_huge(v)} past double's range")


def _check_weights(A, data):
    # Checked here to name vertices as the caller numbers them: the solver's message said
    # "arc 1 -> 3" (1-based, as in a Matrix Market file) for A[0, 2], and named --weighted.
    bad = _np.flatnonzero(~(_np.isfinite(data) & (data >= 0)))
    if len(bad):
        i, j = _entry(A, bad[0])
        raise ValueError(f"weighted: arc {i} -> {j} has weight {data[bad[0]]} (weights must be finite and "
                         f"non-negative)")
    with _np.errstate(over="ignore"):
        total = data.sum()
    if not _np.isfinite(total):  # no vertex's out-weight can overflow where the total does not
        source = A.indices if A.format == "csc" else _np.repeat(_np.arange(A.shape[0]), _np.diff(A.indptr))
        out = _np.bincount(source, weights=data, minlength=A.shape[0])
        over = _np.flatnonzero(~_np.isfinite(out))
        if len(over):
            raise ValueError(f"weighted: vertex {over[0]}: the sum of its out-arc weights overflows a double")


def _integer(v, what):
    # int() took max_iter=1.7 as 1 and True as 1; past 2^31 - 1, pybind11 refused the
    # assignment with "incompatible function arguments", naming no keyword.
    if isinstance(v, (bool, _np.bool_)) or not isinstance(v, (int, _np.integer)):
        raise TypeError(f"{what} must be an integer, got {v!r}")
    if not -2**31 <= v < 2**31:
        raise ValueError(f"{what} must be below 2^31, got {v}")
    return int(v)


def _flag(v, what):
    # bool() takes any object: weighted="no" (a non-empty string) was True, and cache=None or
    # labels=[] False, without a word. Only True and False (numpy's too) say which.
    if not isinstance(v, (bool, _np.bool_)):
        raise TypeError(f"{what} must be True or False, got {v!r}")
    return bool(v)


def _real(v, what):
    # float() reads text too: alpha="0.5" and the weight "2" were taken as numbers; and True and
    # False (tol=True ran as tol 1: "converged" after a step), which max_iter refuses
    if isinstance(v, (str, bytes, bytearray, _np.str_, _np.bytes_, bool, _np.bool_)):
        raise TypeError(f"{what} must be a real number, got {v!r}")
    try:
        return float(v)
    except (TypeError, ValueError):  # float()'s own message names no keyword
        raise TypeError(f"{what} must be a real number, got {v!r}") from None
    except OverflowError:  # nor does "int too large to convert to float"
        raise ValueError(f"{what} must be a finite number, got {_huge(v)} past double's range") from None


def _vertex_vector(v, n, what, nodes=None, index=None):
    """One weight a vertex from None, a vector or a dict {vertex: weight}; nodes and index
    (node -> position): a networkx graph's, which a dict names (vertex i is nodes[i] in messages)."""
    if v is None:
        return _np.empty(0)
    name = (lambda i: repr(nodes[i])) if nodes is not None else str
    if isinstance(v, dict):  # networkx style: {vertex: weight}, unlisted vertices 0
        out = _np.zeros(n)
        for k, w in v.items():
            if index is not None:
                if k not in index:
                    raise ValueError(f"{what}: vertex {k!r} is not in the graph")
                i = index[k]
            else:
                # int() made {1.5: w} and {True: w} vertex 1 and {"3": w} vertex 3
                if isinstance(k, (bool, _np.bool_)) or not isinstance(k, (int, _np.integer)):
                    raise ValueError(f"{what}: vertex {k!r} is not an integer")
                if not 0 <= int(k) < n:
                    raise ValueError(f"{what}: vertex {k} is not in the graph (0 .. {n - 1})")
                i = int(k)
            if isinstance(w, (complex, _np.complexfloating)):
                raise TypeError(f"{what}: the weight of vertex {name(i)} is complex ({w})")
            out[i] = _real(w, f"{what}: the weight of vertex {name(i)}")
    else:
        if _sp.issparse(v):  # np.asarray made it a 0-d object array: "setting an array element with a sequence"
            v = v.toarray()
        if isinstance(v, (set, frozenset)):
            raise TypeError(f"{what}: a set has no order; give a vector of one weight per vertex or a dict "
                            f"{{vertex: weight}}")
        if isinstance(v, _abc.Iterator):  # a generator, map(): np.asarray made it a 0-d object array
            v = list(v)
        v = _np.asarray(v)
        if v.dtype.kind == "c":  # the cast to float64 would drop the imaginary parts
            raise TypeError(f"{what}: the weights must be real, got {v.dtype}")
        if v.ndim > 1 and max(v.shape) != v.size:  # (n, 1) is a vector; (2, n / 2) is not
            raise ValueError(f"{what}: a vector of one weight per vertex, got shape {v.shape}")
        # numpy casts text to its number, a date to its days since 1970, and an object None to NaN
        if v.dtype.kind not in "biufO" or (v.dtype.kind == "O" and not all(
                isinstance(w, _numbers.Real) for w in v.ravel())):
            raise TypeError(f"{what}: the weights must be real numbers, got {v.dtype} {str(v)[:60]}")
        try:
            out = v.astype(_np.float64).ravel()
        except OverflowError:  # an object int past double's range: "int too large to convert to float"
            k = next(k for k, w in enumerate(v.ravel()) if abs(w) > _DOUBLE_MAX)
            raise ValueError(f"{what}: vertex {name(k) if k < n else k} has a weight past double's range (weights "
                             f"must be finite and non-negative)") from None
        if len(out) != n:
            raise ValueError(f"{what}: {len(out)} values for a graph of {n} vertices")
    # Checked here to name the vertex as the caller numbers it (the solver says "entry k + 1")
    bad = _np.flatnonzero(~(_np.isfinite(out) & (out >= 0)))
    if len(bad):
        raise ValueError(f"{what}: vertex {name(bad[0])} has weight {out[bad[0]]} (weights must be finite and "
                         f"non-negative)")
    if not out.any():
        raise ValueError(f"{what}: all weights are zero")
    return out  # the solver normalizes them, over the largest where their sum overflows


def pagerank(A, alpha=0.85, personalization=None, nstart=None, tol=1e-6, max_iter=1000, weighted=None,
             device="auto", precision="float", kernel="auto", pull="auto", accelerate="auto",
             accelerate_every=10):
    """PageRank of the graph whose adjacency matrix is A (A[i, j] != 0: an arc i -> j; scipy
    sparse, or a dense 2-D numpy array), or of the networkx graph A (Graph, DiGraph and their multigraphs: an undirected edge both ways).

    Returns (ranks, info): a numpy array of n ranks summing to 1, and a PageRankInfo; for a
    networkx graph, ranks is a dict {node: rank} as networkx.pagerank returns, personalization
    and nstart dicts are keyed by node (a vector follows list(G)), and weighted may name the edge
    attribute (True: "weight"; an edge without it weighs 1; left out, the edges' "weight" as
    networkx.pagerank's default reads it; False: each linked pair once).
    personalization / nstart: None (uniform), an array (or scipy sparse vector) of n non-negative weights, or a
    dict {vertex: weight}. weighted (a matrix; left out, False): use A's values as arc weights (else every nonzero
    counts once; a stored zero is no arc either way; the command line takes every entry a file lists
    as an arc, one stored as 0 too: A with A.data[:] = 1 counts them here). device: "auto", "cpu" or
    "cuda" (auto: the device predicted to answer first, as `pagerank --device auto` (the CUDA context
    counted until this process has used the GPU), info.device_choice says why; the GPU where kernel
    names a GPU kernel or pull a GPU step, which raises without one); precision: "float" or "double"
    (reductions are in double either way). Not converging within max_iter is reported
    in info.converged, not raised. accelerate: "auto" (quadratic where the residual's
    rate says the solve has more than a few steps left), "none", "quadratic", "aitken" or "rre"
    (reduced rank extrapolation over the last 8 differences, behind auto's rules: fewer steps
    than auto on slowly mixing graphs, a dearer run), an
    extrapolation after every accelerate_every plain steps (fewer steps where mixing is slow;
    convergence is still decided by a plain step, so the result meets tol as without it;
    info.extrapolations counts those applied). The solve releases the GIL; Ctrl-C
    (KeyboardInterrupt on the main thread) ends it within about 0.1 s: on the CPU after the
    step under way, on the GPU once the device has stopped at its next step (the persistent
    pull's at the end of its launch of up to 1024 steps).
    """
    nodes = index = None
    if _is_networkx(A):
        A, nodes, index, weighted = _from_networkx(A, weighted)
    else:
        weighted = _flag(False if weighted is None else weighted, "weighted")
    n, indptr, indices, data, transposed = _graph_arrays(A, weighted)
    req = _perron.PageRankRequest()
    req.n, req.transposed, req.weighted = n, transposed, weighted
    req.device, req.precision, req.kernel, req.pull = str(device), str(precision), str(kernel), str(pull)
    opt = _perron.PageRankOptions()
    opt.alpha, opt.tol, opt.max_iter = _real(alpha, "alpha"), _real(tol, "tol"), _integer(max_iter, "max_iter")
    req.accelerate, opt.accelerate_every = str(accelerate), _integer(accelerate_every, "accelerate_every")
    opt.personalization = _vertex_vector(personalization, n, "personalization", nodes, index)
    opt.initial = _vertex_vector(nstart, n, "nstart", nodes, index)
    ranks, info = _solve(transposed, _perron.pagerank_csr, indptr, indices, data, req, opt)
    _warn_below_rounding(info["converged"], req.precision, opt.tol, info["iterations"])
    if nodes is not None:
        return dict(zip(nodes, ranks.tolist())), PageRankInfo(info)
    return ranks, PageRankInfo(info)


def _warn_below_rounding(converged, precision, tol, iterations):
    # The command line's warning: a float solve asked for a tol under float's
    # rounding ran max_iter steps and returned converged=False with no hint why.
    if not _np.all(converged) and precision == "float" and tol < float(_np.finfo(_np.float32).eps):
        _warnings.warn(f"not converged after {int(_np.max(iterations))} iterations: tol {tol:g} is below float's "
                       f"rounding ({float(_np.finfo(_np.float32).eps):.3g}), which the residual may never reach; "
                       f"use precision='double' or a larger tol", RuntimeWarning, stacklevel=3)


class BatchedPageRankInfo:
    """What a batched solve did: per source set (numpy arrays of length s) iterations,
    residual and converged; device ("cpu" / "cuda") and device_choice (why: with
    device="auto", each device's predicted time), column_steps (column-steps of
    work), compactions, timings in seconds, and on the GPU step: which step ran
    ("fused" or "two kernels") and the times of the trial that chose it."""

    def __init__(self, d):
        self.iterations = d["iterations"]
        self.residual = d["residual"]
        self.converged = d["converged"].astype(bool)
        self.device = d["device"]
        self.device_choice = d["device_choice"]
        self.column_steps = d["column_steps"]
        self.compactions = d["compactions"]
        self.step = d.get("step", "")
        self.timings = {"solve": d["solve_seconds"], "device": d["device_seconds"]}

    def __repr__(self):
        return (f"BatchedPageRankInfo({len(self.iterations)} sources, {int(self.converged.sum())} converged, "
                f"iterations {self.iterations.min() if len(self.iterations) else 0}-"
                f"{self.iterations.max() if len(self.iterations) else 0}, {self.device}, "
                f"{self.timings['solve'] * 1e3:.3f} ms)")


def _source_set(item, n, c, index=None):
    """One source set as [(vertex, weight)]: a vertex, a sequence of vertices (equal
    weights) or a dict {vertex: weight}; index: a networkx graph's {node: position}."""
    if isinstance(item, dict):  # float() named no set: "could not convert string to float: 'x'"
        pairs = [(k, _real(w, f"sources[{c}]: the weight of vertex {k!r}")) for k, w in item.items()]
    elif index is not None and ((_hashable(item) and item in index) or isinstance(item, (str, bytes))):
        pairs = [(item, 1.0)]  # one node (a tuple of grid_2d_graph's too); a string is no sequence of nodes
    elif isinstance(item, (int, _np.integer)):
        pairs = [(item, 1.0)]
    elif isinstance(item, _np.ndarray) and item.ndim == 0:  # np.array(1): a vertex, not "a sequence of one"
        pairs = [(item.item(), 1.0)]
    else:
        try:
            pairs = [(v, 1.0) for v in item]
        except TypeError:
            raise ValueError(f"sources[{c}]: a vertex, a sequence of vertices or a dict {{vertex: weight}}, "
                             f"got {type(item).__name__}") from None
    if not pairs:
        raise ValueError(f"sources[{c}]: no vertices")
    out = []
    seen = set()
    for v, w in pairs:
        if index is not None:
            if not _hashable(v) or v not in index:
                raise ValueError(f"sources[{c}]: vertex {v!r} is not in the graph")
            if not _np.isfinite(w) or w < 0:
                raise ValueError(f"sources[{c}]: weight {w} of vertex {v!r} is not a finite non-negative number")
            i, name = index[v], repr(v)
        else:
            if isinstance(v, bool) or not isinstance(v, (int, _np.integer)):
                raise ValueError(f"sources[{c}]: vertex {v!r} is not an integer")
            if not 0 <= int(v) < n:
                raise ValueError(f"sources[{c}]: vertex {v} is not in the graph (0 .. {n - 1})")
            if not _np.isfinite(w) or w < 0:
                raise ValueError(f"sources[{c}]: weight {w} of vertex {v} is not a finite non-negative number")
            i, name = int(v), str(v)
        # As --sources and --personalize refuse it: [1, 1, 2] was taken as {1: 2, 2: 1}. (A dict
        # cannot repeat a key, but one node can be named twice: 1 and 1.0 in a networkx graph.)
        if i in seen:
            raise ValueError(f"sources[{c}]: vertex {name} is listed twice in the set")
        seen.add(i)
        out.append((i, w))
    if not any(w > 0 for _, w in out):
        raise ValueError(f"sources[{c}]: all weights are zero")
    return out  # the solver normalizes them, over the largest where their sum overflows (as --sources)


def pagerank_batched(A, sources, alpha=0.85, tol=1e-6, max_iter=1000, weighted=None, device="auto",
                     precision="float"):
    """Personalized PageRank for many source sets at once: one sparse x dense-block
    product per step reads the graph once for every set still iterating.

    sources: a sequence of source sets, each a vertex, a sequence of vertices (sharing
    the teleport equally; a vertex listed twice in a set is refused, as the command line's
    --sources refuses it) or a dict {vertex: weight} (weights normalized to sum 1).
    A networkx graph is taken as pagerank() takes it: its source sets name nodes, and R's
    rows follow list(G).
    Returns (R, info): R an n x s numpy array whose column c holds the ranks for
    sources[c] (each column sums to 1; the same as pagerank(A, personalization=...)
    for that set, within the precision), and a BatchedPageRankInfo. Each set stops on
    its own when its L1 change falls below tol. device, precision, weighted, alpha,
    tol and max_iter as for pagerank() (device="auto": the device predicted to answer
    first for this many sets; info.device_choice says why). The solve releases the GIL;
    Ctrl-C ends it after the step under way (on the GPU, after its batch of up to 8 steps).
    """
    nodes = index = None
    if _is_networkx(A):
        A, nodes, index, weighted = _from_networkx(A, weighted)
    else:
        weighted = _flag(False if weighted is None else weighted, "weighted")
    n, indptr, indices, data, transposed = _graph_arrays(A, weighted)
    if isinstance(sources, (int, _np.integer, dict)) or not hasattr(sources, "__iter__"):
        raise ValueError("sources: a sequence of source sets (e.g. [[3], [7, 9], {4: 0.5, 8: 1.5}])")
    sets = [_source_set(item, n, c, index) for c, item in enumerate(sources)]
    if not sets:
        raise ValueError("sources: no source sets")
    req = _perron.PageRankRequest()
    req.n, req.transposed, req.weighted = n, transposed, weighted
    req.device, req.precision = str(device), str(precision)
    opt = _perron.PageRankOptions()
    opt.alpha, opt.tol, opt.max_iter = _real(alpha, "alpha"), _real(tol, "tol"), _integer(max_iter, "max_iter")
    R, info = _solve(transposed, _perron.pagerank_batched_csr, indptr, indices, data, req, opt, sets)
    _warn_below_rounding(info["converged"], req.precision, opt.tol, info["iterations"])
    return R, BatchedPageRankInfo(info)


def read_matrix(path, cache=True, labels=False, undirected=False, names=False, bipartite=False):
    """Reads a Matrix Market (.mtx, .mtx.gz, SuiteSparse .tar.gz), edge-list (SNAP .txt, CSV),
    GraphML, GML or Pajek file through perron's parsers and binary cache; returns a scipy CSR matrix
    (duplicates summed; an undirected graph file's edges both ways), and with labels=True also the
    original vertex ids of a SNAP file or a GML file without labels (empty for Matrix Market and
    Pajek numbers, where vertex i is i + 1), or for an edge list of vertex names ("alice bob"
    lines), a GraphML file or labelled GML and Pajek files a list of the names, vertex i's at i. undirected=True takes every
    arc both ways, as pagerank --undirected does (A + A^T, a self-loop once; a symmetric file is so already):
    SNAP's undirected sets list each edge once. names=True reads an edge list's every vertex as
    a name where its first edge gives integer ids too ("1 2" then "2 alice"), as pagerank --names
    (its cache entry is one of its own: the file read by ids keeps another). bipartite=True reads
    the two columns of an edge list (a matrix's rows and columns) as two sets of vertices, as
    pagerank --bipartite does: KONECT's "% bip" sets, or a rectangular matrix as a square
    adjacency of rows + columns vertices; the second set's vertices follow the first's (an edge
    list's second-column ids moved past the first column's where they overlap, a matrix's
    column j vertex rows + j). A path may name a pipe or a named pipe (read as it comes); Ctrl-C
    (KeyboardInterrupt on the main thread) ends a read that waits on its writer."""
    # As open() takes it: str(b"g.mtx") named the file "b'g.mtx'", and C++ stops a path at
    # a NUL, so "g.mtx\0x" read g.mtx. It goes to C++ as the bytes open() would use: a name
    # that is not UTF-8 (os.fsdecode's surrogates) failed pybind11's str conversion.
    cache, labels = _flag(cache, "read_matrix: cache"), _flag(labels, "read_matrix: labels")
    undirected = _flag(undirected, "read_matrix: undirected")
    names = _flag(names, "read_matrix: names")
    bipartite = _flag(bipartite, "read_matrix: bipartite")
    path = _os.fsdecode(_os.fspath(path))
    if "\0" in path:
        raise ValueError(f"read_matrix: the path {path!r} holds a NUL character")
    shape, indptr, indices, data, ids = _perron.read_matrix(_os.fsencode(path), cache, undirected, names, bipartite)
    A = _sp.csr_matrix((data, indices, indptr), shape=shape)
    return (A, ids) if labels else A


def spmv(A, x, kernel="auto"):
    """y = A x with one of perron's SpMV kernels (kernels() lists them; "auto" picks per
    matrix on the GPU, or runs on the CPU without one). x's dtype (float32 or float64)
    chooses the precision."""
    if not _sp.issparse(A):
        raise ValueError("A must be a scipy.sparse matrix")
    _check_shape(A)
    # Casting complex values to float64 drops their imaginary parts (only a ComplexWarning),
    # and an x of any shape was taken by its size (3 x 5 for 15 columns); None became NaN.
    if A.dtype.kind not in "biufO":  # strings, dates and times were cast to numbers too
        raise TypeError(f"spmv: A must be real, got {A.dtype}")
    if _sp.issparse(x) or x is None:  # np.asarray wrapped them as one object: "got dtype object"
        raise TypeError(f"spmv: x must be a dense 1-D numpy array of real numbers, got "
                        f"{'None' if x is None else 'a scipy.sparse ' + type(x).__name__ + ' (x.toarray().ravel())'}")
    x = _np.asarray(x)
    if x.dtype.kind not in "biuf":
        raise TypeError(f"spmv: x must be a vector of real numbers, got dtype {x.dtype}")
    if x.ndim != 1:
        raise ValueError(f"spmv: x must be a vector (1-D), got shape {x.shape}")
    if A.shape[0] + A.nnz >= 1 << 16:
        # The memory the spmv needs, and a CSR copy's where A is in another format, checked
        # before that copy: tocsr() of a COO of 1.5e9 rows and one entry allocated 6 GB (its
        # indptr) before the module's own check could refuse it.
        copy = 0 if A.format == "csr" else 4.0 * (A.shape[0] + 1) + (4.0 + A.dtype.itemsize) * A.nnz
        _perron.check_spmv_memory(int(A.shape[0]), int(A.shape[1]), int(A.nnz), float(copy))
    A = A.tocsr()
    if A.dtype.kind == "O":
        _check_objects(A, _numbers.Real, "spmv: ")
    if x.dtype != _np.float32:
        x = _np.ascontiguousarray(x, dtype=_np.float64)
    data = _np.ascontiguousarray(A.data, dtype=_np.float64)
    if x.dtype == _np.float32:
        # A's values are rounded to float32 too: one past its range became inf, and inf * 0 NaN
        # (A = [[1e300, 1]], x = [0, 1] gave NaN where A @ x is 1)
        with _np.errstate(over="ignore"):
            big = _np.flatnonzero(_np.isinf(data.astype(_np.float32)) & _np.isfinite(data))
        if len(big):
            i, j = _entry(A, big[0])
            raise ValueError(f"spmv: A[{i}, {j}] = {data[big[0]]:g} is past float32's range, the precision a float32 x "
                             f"chooses; pass x as float64")
    return _perron.spmv_csr(A.shape[0], A.shape[1], _index_array(A.indptr), _index_array(A.indices), data,
                            _np.ascontiguousarray(x), str(kernel))
