"""The Python module against scipy (SpMV, reading) and networkx (PageRank)."""
import gzip
import os
import pathlib

import networkx as nx
import numpy as np
import pytest
import scipy.io
import scipy.sparse as sp

import perron

DATA = pathlib.Path(os.environ.get("PERRON_SOURCE_DIR", pathlib.Path(__file__).parents[2])) / "data"
DEVICES = ["cpu"] + (["cuda"] if perron.gpu_available() else [])


def karate():
    return scipy.io.mmread(DATA / "karate.mtx").tocsr()


def nx_ranks(A, **kw):
    G = nx.from_scipy_sparse_array(A, create_using=nx.DiGraph)
    r = nx.pagerank(G, tol=1e-13, max_iter=10000, **kw)
    return np.array([r[i] for i in range(A.shape[0])])


def object_csr(values, indices, indptr, shape):
    """A CSR matrix of Python objects, or None where scipy refuses the dtype (as 1.11 and later do)."""
    try:
        return sp.csr_matrix((np.array(values, dtype=object), indices, indptr), shape=shape)
    except ValueError:
        return None


def random_digraph(n, links, seed):
    rng = np.random.default_rng(seed)
    rows, cols = rng.integers(0, n, links), rng.integers(0, n, links)
    return sp.coo_matrix((np.ones(links), (rows, cols)), shape=(n, n)).tocsr()


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("fmt", ["csr", "csc", "coo", "tuple", "dense"])
def test_pagerank_matches_networkx(device, fmt):
    A = random_digraph(300, 1500, 7)
    A.data[:] = 1.0  # duplicates summed by tocsr: networkx keeps one unweighted arc
    A = (A != 0).astype(np.float64)
    want = nx_ranks(A)
    given = (A.indptr, A.indices) if fmt == "tuple" else A.toarray() if fmt == "dense" else A.asformat(fmt)
    ranks, info = perron.pagerank(given, tol=1e-12, precision="double", device=device)
    assert info.converged and info.device == device
    assert ranks.shape == (300,)
    np.testing.assert_allclose(ranks, want, rtol=0, atol=1e-10)


@pytest.mark.parametrize("device", DEVICES)
def test_float_is_close_and_result_reports(device):
    A = karate()
    want = nx_ranks(A)
    ranks, info = perron.pagerank(A, device=device)  # float, tol 1e-6 (L1)
    assert ranks.dtype == np.float64 and abs(ranks.sum() - 1) < 1e-6
    np.testing.assert_allclose(ranks, want, atol=1e-5)
    assert info.iterations > 0 and info.residual < 1e-6 and info.timings["solve"] >= 0
    assert "converged" in repr(info)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("mode", ["quadratic", "aitken", "auto"])
def test_accelerate_meets_tol_and_reports(device, mode):
    A = random_digraph(400, 2400, 11)
    A = (A != 0).astype(np.float64)
    want = nx_ranks(A, alpha=0.99)
    ranks, info = perron.pagerank(A, alpha=0.99, tol=1e-10, precision="double", device=device,
                                  accelerate=mode, accelerate_every=8)
    # auto reports none where the persistent pull ran the solve (small graphs on the GPU)
    assert info.converged and info.extrapolations >= 0
    assert info.accelerate == mode or (mode == "auto" and info.accelerate == "none")
    np.testing.assert_allclose(ranks, want, rtol=0, atol=3e-8)  # (tol + nx tol) / (1 - alpha)
    with pytest.raises(ValueError, match="^accelerate_every must be at least 4"):
        perron.pagerank(A, accelerate=mode, accelerate_every=3)
    with pytest.raises(ValueError, match="acceleration"):
        perron.pagerank(A, accelerate="cubic")


def test_personalization_nstart_and_weights():
    A = karate().astype(np.float64)
    rng = np.random.default_rng(3)
    A.data = rng.uniform(0.5, 2.0, A.nnz)
    pers = {0: 1.0, 33: 3.0}
    want = nx_ranks(A, personalization=pers, weight="weight")
    ranks, _ = perron.pagerank(A, personalization=pers, weighted=True, tol=1e-12, precision="double",
                               device="cpu")
    np.testing.assert_allclose(ranks, want, atol=1e-10)
    start = np.full(A.shape[0], 1.0)
    ranks2, info = perron.pagerank(A, personalization=pers, nstart=start, weighted=True, tol=1e-12,
                                   precision="double", device="cpu")
    np.testing.assert_allclose(ranks2, want, atol=1e-10)


def test_dangling_vertices_match_networkx():
    A = sp.csr_matrix(([1.0, 1.0, 1.0], ([0, 1, 1], [1, 2, 3])), shape=(5, 5))  # 2, 3, 4 dangling
    ranks, _ = perron.pagerank(A, tol=1e-13, precision="double", device="cpu")
    np.testing.assert_allclose(ranks, nx_ranks(A), atol=1e-11)


def test_messages_name_the_keywords_not_the_command_lines_flags(tmp_path, monkeypatch):
    A = karate()
    for kwargs, start in [({"alpha": 1.5}, "alpha must be in [0, 1)"),
                          ({"tol": 0.0}, "tol must be a positive number"),
                          ({"max_iter": 0}, "max_iter must be at least 1"),
                          ({"nstart": {0: -1.0}}, "nstart: vertex 0 has weight -1"),
                          ({"device": "cpu", "kernel": "csr-vector"}, "device cpu runs the cpu kernel; kernel")]:
        with pytest.raises(ValueError) as e:
            perron.pagerank(A, **kwargs)
        assert str(e.value).startswith(start) and "--" not in str(e.value), (kwargs, str(e.value))
    # a file's name stays as it is, flag-like or not
    monkeypatch.chdir(tmp_path)
    (tmp_path / "--tol").write_text("%%MatrixMarket matrix coordinate real general\n3 3 1\n1 4 1\n")
    with pytest.raises(ValueError, match=r"^--tol:3: "):
        perron.read_matrix("--tol", cache=False)


def test_a_tol_no_change_can_reach_is_refused():
    # The L1 change of two rank vectors (each summing to 1) is at most 2: tol=10 stopped after one
    # step and said converged. The C++ options' validate() refuses it, for the command line too.
    A = karate()
    for tol in (2, 10.0):
        with pytest.raises(ValueError, match=r"^tol must be below 2, got (2|10): it bounds the L1 change"):
            perron.pagerank(A, tol=tol, device="cpu")
        with pytest.raises(ValueError, match=r"^tol must be below 2"):
            perron.pagerank_batched(A, [[0]], tol=tol, device="cpu")
    _, info = perron.pagerank(A, tol=1.9, device="cpu")
    assert info.converged and info.residual < 1.9


def test_switches_take_only_true_or_false(tmp_path):
    # bool() took weighted="no" as True (the values read as weights) and labels=[] or cache=None as
    # False, without a word: a switch is True or False (numpy's too), else a TypeError naming it.
    A, path = karate(), DATA / "karate.mtx"
    for bad in ("no", "False", 0, 1, None, [], 1.0, np.array([True])):
        if bad is not None:  # weighted=None is its default (a matrix: False; a networkx graph: "weight")
            with pytest.raises(TypeError, match=r"^weighted must be True or False, got "):
                perron.pagerank(A, weighted=bad, device="cpu")
            with pytest.raises(TypeError, match=r"^weighted must be True or False, got "):
                perron.pagerank_batched(A, [[0]], weighted=bad, device="cpu")
        for kw in ("cache", "labels", "undirected"):
            with pytest.raises(TypeError, match=rf"^read_matrix: {kw} must be True or False, got "):
                perron.read_matrix(path, **{kw: bad})
    assert perron.pagerank(A, weighted=np.bool_(True), device="cpu")[1].converged
    assert perron.pagerank_batched(A, [[0]], weighted=np.False_, device="cpu")[1].converged.all()
    A2, ids = perron.read_matrix(path, cache=np.False_, labels=np.True_, undirected=np.bool_(False))
    assert A2.shape == (34, 34) and len(ids) == 0


def test_auto_takes_the_device_predicted_to_answer_first():
    # karate solves in well under a millisecond on the CPU; a GPU call costs milliseconds
    # even with the context up (it took the GPU wherever one was usable).
    ranks, info = perron.pagerank(karate(), device="auto")
    assert info.device == "cpu"
    if perron.gpu_available():
        assert info.device_choice.startswith("auto: predicted cpu"), info.device_choice
        _, cuda = perron.pagerank(karate(), device="cuda")
        assert cuda.device == "cuda" and cuda.device_choice == "device='cuda'"
        assert perron.pagerank(karate(), device="auto")[1].device == "cpu"  # the context up: still the CPU
        assert perron.pagerank(karate(), kernel="merge")[1].device == "cuda"  # a GPU kernel named
    else:  # the model says CPU before CUDA is asked (or perron has no CUDA)
        assert info.device_choice.startswith(("auto: predicted cpu", "auto: perron was built without CUDA"))
    assert perron.pagerank(karate(), device="cpu")[1].device_choice == "device='cpu'"


def test_batched_auto_asks_the_model_with_the_number_of_sets():
    # 64 sets on karate: a fraction of a millisecond on the CPU, a context's creation on the GPU
    # (pagerank_batched took the GPU wherever one was usable).
    R, info = perron.pagerank_batched(karate(), [[v] for v in range(34)] * 2, device="auto")
    assert R.shape == (34, 68) and info.device == "cpu"
    if perron.gpu_available():
        assert info.device_choice.startswith("auto: predicted cpu"), info.device_choice
        assert "of 68 source sets" in info.device_choice, info.device_choice
        _, cuda = perron.pagerank_batched(karate(), [[0]], device="cuda")
        assert cuda.device == "cuda" and cuda.device_choice == "device='cuda'"
    else:
        assert info.device_choice.startswith(("auto: predicted cpu", "auto: perron was built without CUDA"))
    assert perron.pagerank_batched(karate(), [[0]], device="cpu")[1].device_choice == "device='cpu'"


def test_a_negative_index_is_named_as_such():
    with pytest.raises(ValueError, match=r"an index array holds a negative value \(-1\)"):
        perron.pagerank((np.array([0, 1, 2]), np.array([0, -1])), device="cpu")


def test_not_converged_is_reported_not_raised():
    ranks, info = perron.pagerank(karate(), max_iter=2, tol=1e-12, device="cpu")
    assert not info.converged and info.iterations == 2 and ranks.shape == (34,)


def test_bad_arguments_raise_value_error():
    A = karate()
    with pytest.raises(ValueError, match="alpha"):
        perron.pagerank(A, alpha=1.5)
    with pytest.raises(ValueError, match="tol"):
        perron.pagerank(A, tol=-1)
    with pytest.raises(ValueError, match="square"):
        perron.pagerank(sp.csr_matrix((3, 4)))
    with pytest.raises(ValueError, match="personalization"):
        perron.pagerank(A, personalization=np.ones(3))
    with pytest.raises(ValueError):
        perron.pagerank(A, personalization=-np.ones(34))
    with pytest.raises(ValueError, match="precision"):
        perron.pagerank(A, precision="half", device="cpu")
    with pytest.raises(ValueError, match="device"):
        perron.pagerank(A, device="tpu")
    with pytest.raises(ValueError, match="got list"):  # (a numpy array is a dense adjacency matrix)
        perron.pagerank([[1, 0], [0, 1]])


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("precision,bound", [("double", 1e-9), ("float", 1e-6)])
def test_batched_columns_equal_single_solves(device, precision, bound):
    A = random_digraph(500, 3000, 5)  # dangling vertices included
    sets = [3, [7, 9], {4: 0.5, 8: 1.5}, np.int64(499), [11]]  # ([11, 11] is refused: listed twice)
    R, info = perron.pagerank_batched(A, sets, tol=1e-10, device=device, precision=precision)
    assert R.shape == (500, len(sets)) and R.flags.f_contiguous
    assert info.device == device and info.converged.all() and len(info.iterations) == len(sets)
    assert np.allclose(R.sum(axis=0), 1.0, atol=1e-5)
    for c, item in enumerate(sets):
        if isinstance(item, dict):
            v = item
        else:
            v = {int(x): 1.0 for x in np.atleast_1d(item)}
        single, sinfo = perron.pagerank(A, personalization=v, tol=1e-10, device=device, precision=precision,
                                        accelerate="none")  # the batched solve's plain steps
        assert np.abs(R[:, c] - single).max() <= bound, c
        if precision == "double":
            assert abs(int(info.iterations[c]) - sinfo.iterations) <= 1


def test_batched_matches_networkx_personalized():
    A = karate()
    R, _ = perron.pagerank_batched(A, [[0], [33], {5: 1.0, 6: 3.0}], tol=1e-12, device="cpu", precision="double")
    for c, v in enumerate([{0: 1}, {33: 1}, {5: 1.0, 6: 3.0}]):
        assert np.abs(R[:, c] - nx_ranks(A, personalization=v)).max() < 1e-9


def test_batched_not_converged_and_bad_sources():
    A = karate()
    R, info = perron.pagerank_batched(A, [[1], [2]], max_iter=2, tol=1e-14, device="cpu")
    assert not info.converged.any() and (info.iterations == 2).all()
    for bad, what in [([[]], "sources\\[0\\]: no vertices"), ([[1], [34]], "sources\\[1\\]: vertex 34"),
                      ([{1: -1.0}], "weight"), ([{1: 0.0}], "all weights are zero"), ([], "no source sets"),
                      ([[1.5]], "not an integer"), (5, "a sequence of source sets"), ([None], "sources\\[0\\]")]:
        with pytest.raises(ValueError, match=what):
            perron.pagerank_batched(A, bad, device="cpu")
    with pytest.raises(ValueError, match="alpha"):
        perron.pagerank_batched(A, [[1]], alpha=2.0, device="cpu")
    with pytest.raises(ValueError, match="precision"):
        perron.pagerank_batched(A, [[1]], precision="half", device="cpu")


def test_a_vertex_listed_twice_in_a_source_set_is_refused():
    # As --sources ("s.txt:1: vertex 1 is listed twice in the set") and --personalize refuse it:
    # [[1, 1, 2]] was taken without a word as [{1: 2, 2: 1}].
    A = karate()
    for bad, what in [([[1, 1, 2]], "sources\\[0\\]: vertex 1 is listed twice in the set"),
                      ([[0], (3, 5, 3)], "sources\\[1\\]: vertex 3 is listed twice in the set"),
                      ([[0], [4], np.array([7, 7])], "sources\\[2\\]: vertex 7 is listed twice"),
                      ([[2, np.int64(2)]], "sources\\[0\\]: vertex 2 is listed twice")]:
        with pytest.raises(ValueError, match=f"^{what}"):
            perron.pagerank_batched(A, bad, device="cpu")
    # a networkx graph's set names its nodes, as the caller gave them (1.0 is node 1)
    G = nx.relabel_nodes(nx.from_scipy_sparse_array(A, create_using=nx.DiGraph), {0: "hub"})
    for bad, what in [([["hub", 5, "hub"]], "sources\\[0\\]: vertex 'hub' is listed twice in the set"),
                      ([[2], [1, 1.0]], "sources\\[1\\]: vertex 1.0 is listed twice in the set")]:
        with pytest.raises(ValueError, match=f"^{what}"):
            perron.pagerank_batched(G, bad, device="cpu")
    # the same vertex in two sets, or once with a weight, is no repeat
    R, info = perron.pagerank_batched(A, [[1, 2], [1], {1: 2.0, 2: 1.0}], tol=1e-12, device="cpu", precision="double")
    assert info.converged.all()
    assert np.abs(R[:, 2] - nx_ranks(A, personalization={1: 2.0, 2: 1.0})).max() < 1e-9


def test_read_matrix_matches_scipy(tmp_path):
    for name in ["karate.mtx", "wb-cs-stanford.mtx"]:
        A = perron.read_matrix(DATA / name, cache=False)
        B = scipy.io.mmread(DATA / name).tocsr()
        B.sum_duplicates()
        assert A.shape == B.shape
        assert abs(A - B).max() == 0
    snap = tmp_path / "edges.txt"
    snap.write_text("# a SNAP edge list\n10\t20\n20\t30\n30\t10\n")
    A, ids = perron.read_matrix(snap, labels=True)
    assert A.shape == (3, 3) and A.nnz == 3 and list(ids) == [10, 20, 30]
    U = perron.read_matrix(snap, undirected=True)
    assert abs(U - (A + A.T)).max() == 0 and U.nnz == 6
    K = perron.read_matrix(DATA / "karate.mtx", cache=False, undirected=True)  # symmetric already
    assert abs(K - perron.read_matrix(DATA / "karate.mtx", cache=False)).max() == 0


def test_read_matrix_vertex_names(tmp_path):
    # networkx's write_edgelist of a graph of strings: the names, in order of first appearance, with a
    # byte that is not UTF-8 given back as os.fsdecode gives it.
    named = tmp_path / "named.edgelist"
    named.write_bytes(b"alice bob {}\nbob caf\xe9 {'weight': 2.0}\ncaf\xe9 alice {}\n")
    A, names = perron.read_matrix(named, cache=False, labels=True)
    assert names == ["alice", "bob", "caf\udce9"]
    assert A.shape == (3, 3) and A.nnz == 3 and A[1, 2] == 2.0
    # From the cache the same names (its second read).
    A2, names2 = perron.read_matrix(named, labels=True)
    A3, names3 = perron.read_matrix(named, labels=True)
    assert names3 == names and abs(A3 - A).max() == 0


def test_read_matrix_graph_files():
    # Newman's Les Miserables GML (labels, edge `value` weights) against networkx's reader and pagerank.
    A, names = perron.read_matrix(DATA / "lesmis.gml", cache=False, labels=True)
    G = nx.read_gml(DATA / "lesmis.gml")
    assert names == list(G.nodes())
    ranks, _ = perron.pagerank(A, weighted=True, tol=1e-12, device="cpu", precision="double")
    want = nx.pagerank(G.to_directed(), weight="value", tol=1e-14)
    assert max(abs(ranks[i] - want[v]) for i, v in enumerate(names)) < 1e-9
    # GraphML names its vertices by id, Pajek by label.
    _, ids = perron.read_matrix(DATA / "karate.graphml", cache=False, labels=True)
    assert ids[:3] == ["1", "2", "3"]
    _, dolphins = perron.read_matrix(DATA / "dolphins.net", cache=False, labels=True)
    assert dolphins[0] == "Beak" and len(dolphins) == 62


def test_read_matrix_errors():
    with pytest.raises(FileNotFoundError):
        perron.read_matrix("/no/such/file.mtx")
    with pytest.raises(OSError, match="directory"):
        perron.read_matrix(DATA / "invalid" / "a-directory.mtx")
    with pytest.raises(ValueError, match=r"banner-short\.mtx:1"):  # file and line
        perron.read_matrix(DATA / "invalid" / "banner-short.mtx", cache=False)
    with pytest.raises(ValueError, match="complex"):
        perron.read_matrix(DATA / "invalid" / "complex.mtx", cache=False)


@pytest.mark.parametrize("kernel", ["cpu", "auto"] + (["csr-vector", "merge"] if perron.gpu_available() else []))
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_spmv_matches_scipy(kernel, dtype):
    A = random_digraph(500, 4000, 11)
    A.data = np.random.default_rng(1).uniform(-1, 1, A.nnz)
    x = np.random.default_rng(2).uniform(-1, 1, 500).astype(dtype)
    y = perron.spmv(A, x, kernel=kernel)
    assert y.dtype == dtype
    tol = 1e-12 if dtype == np.float64 else 1e-4
    np.testing.assert_allclose(y, A @ x.astype(np.float64), atol=tol)


def test_spmv_errors():
    A = random_digraph(10, 30, 1)
    with pytest.raises(ValueError, match="x has"):
        perron.spmv(A, np.ones(9))
    with pytest.raises(ValueError, match="kernel"):
        perron.spmv(A, np.ones(10), kernel="nope")
    assert "cpu" in perron.kernels() and perron.kernels()[-1] == "auto"


def test_tuple_graph_repeats_count_once_and_indices_are_integers():
    # (indptr, indices) is taken as given: an arc listed twice once counted twice in the out-degree
    dup = (np.array([0, 3, 4, 4]), np.array([1, 1, 2, 0]))  # 0 -> 1 twice, unsorted in the second form
    want, _ = perron.pagerank((np.array([0, 2, 3, 3]), np.array([1, 2, 0])), tol=1e-12, precision="double",
                              device="cpu")
    for g in [dup, (np.array([0, 3, 4, 4]), np.array([2, 1, 1, 0]))]:
        ranks, _ = perron.pagerank(g, tol=1e-12, precision="double", device="cpu")
        np.testing.assert_allclose(ranks, want, rtol=0, atol=1e-14)
        R, _ = perron.pagerank_batched(g, [[0]], tol=1e-12, precision="double", device="cpu")
        single, _ = perron.pagerank(g, personalization={0: 1}, tol=1e-12, precision="double", device="cpu",
                                    accelerate="none")
        np.testing.assert_allclose(R[:, 0], single, rtol=0, atol=1e-12)
    # weighted: repeats add up, as scipy sums them
    A = sp.csr_matrix((np.ones(4), dup[1], dup[0]), shape=(3, 3))
    np.testing.assert_allclose(perron.pagerank(dup, weighted=True, tol=1e-12, precision="double")[0],
                               perron.pagerank(A, weighted=True, tol=1e-12, precision="double")[0], atol=1e-14)
    # 1.5 would become vertex 1 and True vertex 1 without a word
    with pytest.raises(TypeError, match="integers"):
        perron.pagerank((np.array([0, 2, 3, 3]), np.array([1.5, 2, 0])))
    with pytest.raises(TypeError, match="integers"):
        perron.pagerank((np.array([0, 1, 2, 2]), np.array([True, False])))


def test_stored_zeros_are_no_arcs_and_complex_weights_are_refused():
    # A[i, j] != 0 is an arc: a zero left stored (an entry zeroed, or +1 and -1 summed) once
    # counted as one in the unweighted solve
    A = sp.csr_matrix((np.array([1.0, 0.0, 1.0]), np.array([1, 2, 0]), np.array([0, 2, 3, 3])), shape=(3, 3))
    B = A.copy()
    B.eliminate_zeros()
    want = nx_ranks(B)
    for fmt in ["csr", "csc", "coo"]:
        ranks, _ = perron.pagerank(A.asformat(fmt), tol=1e-13, precision="double", device="cpu")
        np.testing.assert_allclose(ranks, want, atol=1e-12)
        R, _ = perron.pagerank_batched(A.asformat(fmt), [[0]], tol=1e-13, precision="double", device="cpu")
        np.testing.assert_allclose(R[:, 0], nx_ranks(B, personalization={0: 1}), atol=1e-12)
    assert A.nnz == 3 and A.data[1] == 0  # the caller's matrix keeps its zero
    cancel = sp.coo_matrix((np.array([1.0, -1.0, 1.0]), (np.array([0, 0, 1]), np.array([1, 1, 2]))), shape=(3, 3))
    np.testing.assert_allclose(perron.pagerank(cancel, device="cpu")[0],
                               perron.pagerank(sp.csr_matrix(([1.0], ([1], [2])), shape=(3, 3)), device="cpu")[0])
    # unweighted, complex values are only nonzeros; weighted, the cast would drop their imaginary parts
    K = karate()
    np.testing.assert_allclose(perron.pagerank(K.astype(np.complex128) * 1j, device="cpu")[0],
                               perron.pagerank(K, device="cpu")[0])
    with pytest.raises(TypeError, match="real arc weights"):
        perron.pagerank(K.astype(np.complex128), weighted=True)


def test_a_shape_past_32_bits_is_refused_before_any_conversion():
    # scipy's tocsr() of such a COO matrix allocated indptr (8 bytes a row) before perron looked
    big = sp.coo_matrix((np.ones(1), (np.array([0]), np.array([1]))), shape=(2**40, 2**40))
    for call in [lambda: perron.pagerank(big), lambda: perron.pagerank_batched(big, [0]),
                 lambda: perron.spmv(sp.coo_matrix(([1.0], ([0], [0])), shape=(2**40, 1)), np.ones(1)),
                 lambda: perron.spmv(sp.csr_matrix(([1.0], [0], [0, 1]), shape=(1, 2**31)), np.ones(1))]:
        with pytest.raises(ValueError, match="32-bit indices"):
            call()


def test_inputs_taken_as_their_numbers_say():
    # x as a sparse matrix (or None) was "not real numbers, got dtype object"; a dense object
    # adjacency matrix was refused where its sparse twin was taken; np.array(1) as a source
    # set was "a sequence" that was none.
    A = random_digraph(15, 40, 3)
    for bad, says in [(sp.csr_matrix(np.ones((15, 1))), "scipy.sparse csr_matrix"), (None, "got None")]:
        with pytest.raises(TypeError, match="dense 1-D numpy array.*" + says):
            perron.spmv(A, bad)
    dense = np.array([[0, 1, 0], [1, 0, 1], [1, 0, 0]], dtype=object)
    np.testing.assert_array_equal(perron.pagerank(dense, tol=1e-12)[0],
                                  perron.pagerank(dense.astype(float), tol=1e-12)[0])
    with pytest.raises(TypeError, match=r"A\[0, 1\] holds 'a', not a number"):
        perron.pagerank(np.array([[0, "a"], [1, 0]], dtype=object))
    R, _ = perron.pagerank_batched(A, [np.array(4), [4]])
    np.testing.assert_array_equal(R[:, 0], R[:, 1])


def test_spmv_refuses_complex_values_and_an_x_that_is_no_vector():
    A = random_digraph(15, 40, 3)
    x = np.arange(15.0)
    # complex values lost their imaginary parts with only a ComplexWarning
    with pytest.raises(TypeError, match="real"):
        perron.spmv(A.astype(np.complex128), x)
    with pytest.raises(TypeError, match="real"):
        perron.spmv(A, x + 1j)
    with pytest.raises(TypeError, match="real"):
        perron.spmv(random_digraph(1, 1, 3), None)  # became NaN: y = [nan] for a 1-column A
    # a 3 x 5 x was taken for the 15 entries it holds
    for bad in [x.reshape(3, 5), x.reshape(15, 1), np.array(1.0)]:
        with pytest.raises(ValueError, match="1-D"):
            perron.spmv(A, bad)


def test_read_matrix_paths_as_open_takes_them(tmp_path):
    karate_path = DATA / "karate.mtx"
    # C++ ends a path at its NUL: this read karate.mtx
    with pytest.raises(ValueError, match="NUL"):
        perron.read_matrix(str(karate_path) + "\0junk", cache=False)
    # bytes named the file "b'...'"; other types are a TypeError as for open()
    assert perron.read_matrix(os.fsencode(karate_path), cache=False).shape == (34, 34)
    with pytest.raises(TypeError):
        perron.read_matrix(None)
    # the translator's exists() threw on the loop: a RuntimeError from std::filesystem
    (tmp_path / "a.mtx").symlink_to(tmp_path / "b.mtx")
    (tmp_path / "b.mtx").symlink_to(tmp_path / "a.mtx")
    with pytest.raises(OSError, match="symbolic links") as e:
        perron.read_matrix(tmp_path / "a.mtx", cache=False)
    assert not isinstance(e.value, FileNotFoundError)


@pytest.mark.filterwarnings("error::RuntimeWarning")  # numpy's overflow warning came before the error
def test_personalization_and_nstart_name_the_vertex_and_refuse_what_int_or_a_cast_hid():
    A = karate()
    for kw in ["personalization", "nstart"]:
        # int() made {1.5: w} and {True: w} vertex 1, {"3": w} vertex 3
        for key in [1.5, True, "3", np.float64(3.0)]:
            with pytest.raises(ValueError, match=f"{kw}: vertex .* is not an integer"):
                perron.pagerank(A, device="cpu", **{kw: {key: 1.0}})
        # a (2, 17) array was raveled into 34 weights; the imaginary parts were dropped
        with pytest.raises(ValueError, match="shape"):
            perron.pagerank(A, device="cpu", **{kw: np.ones((2, 17))})
        with pytest.raises(TypeError, match="real"):
            perron.pagerank(A, device="cpu", **{kw: np.ones(34) + 1j})
        # the solver's message said "entry 2" (1-based) for vertex 1, and named the command line's flags
        with pytest.raises(ValueError, match=f"^{kw}: vertex 1 has weight nan"):
            perron.pagerank(A, device="cpu", **{kw: {1: float("nan")}})
        with pytest.raises(ValueError, match=f"^{kw}: all weights are zero"):
            perron.pagerank(A, device="cpu", **{kw: np.zeros(34)})
        # weights are relative: a sum past double's range is normalized, not refused
        np.testing.assert_array_equal(perron.pagerank(A, device="cpu", **{kw: np.full(34, 1e308)})[0],
                                      perron.pagerank(A, device="cpu", **{kw: np.ones(34)})[0])
        # a generator or map() of weights is read as its list ("got object <generator ...>" before); a
        # set has no order
        weights = [1.0 + (i % 3) for i in range(34)]
        np.testing.assert_array_equal(perron.pagerank(A, device="cpu", **{kw: (w for w in weights)})[0],
                                      perron.pagerank(A, device="cpu", **{kw: weights})[0])
        np.testing.assert_array_equal(perron.pagerank(A, device="cpu", **{kw: map(float, weights)})[0],
                                      perron.pagerank(A, device="cpu", **{kw: weights})[0])
        with pytest.raises(TypeError, match="a set has no order"):
            perron.pagerank(A, device="cpu", **{kw: set(weights)})
    column = np.ones((34, 1))  # a column vector is still one weight per vertex
    np.testing.assert_allclose(perron.pagerank(A, personalization=column, device="cpu")[0],
                               perron.pagerank(A, device="cpu")[0])


def test_scalar_keywords_are_checked_and_named():
    A = karate()
    # int() took 1.7 as 1 (a silent one-step solve) and True as 1
    for bad in [1.7, True, "10", None]:
        with pytest.raises(TypeError, match="max_iter must be an integer"):
            perron.pagerank(A, max_iter=bad, device="cpu")
    with pytest.raises(TypeError, match="accelerate_every must be an integer"):
        perron.pagerank(A, accelerate_every=4.5, device="cpu")
    # past 2^31 pybind11 said only "incompatible function arguments"
    with pytest.raises(ValueError, match="max_iter must be below 2\\^31"):
        perron.pagerank(A, max_iter=2**40, device="cpu")
    with pytest.raises(ValueError, match="max_iter must be below 2\\^31"):
        perron.pagerank_batched(A, [[1]], max_iter=2**40, device="cpu")
    # float(None) names no keyword
    with pytest.raises(TypeError, match="alpha must be a real number"):
        perron.pagerank(A, alpha=None, device="cpu")
    with pytest.raises(TypeError, match="alpha must be a real number, got '0.5'"):  # float() read the text
        perron.pagerank(A, alpha="0.5", device="cpu")
    with pytest.raises(TypeError, match=r"^sources\[0\]: the weight of vertex 3 must be a real number, got '2'"):
        perron.pagerank_batched(A, [{3: "2"}], device="cpu")
    with pytest.raises(TypeError, match="tol must be a real number"):
        perron.pagerank_batched(A, [[1]], tol=1j, device="cpu")
    # True ran as tol 1 ("converged" after one step), False as alpha 0; max_iter refused them
    with pytest.raises(TypeError, match="tol must be a real number, got True"):
        perron.pagerank(A, tol=True, device="cpu")
    with pytest.raises(TypeError, match="alpha must be a real number, got (np\\.)?False"):  # numpy 2: np.False_
        perron.pagerank_batched(A, [[1]], alpha=np.bool_(False), device="cpu")
    with pytest.raises(ValueError, match="sources: a sequence"):
        perron.pagerank_batched(A, None, device="cpu")
    assert perron.pagerank(A, max_iter=np.int64(3), device="cpu")[1].iterations <= 3


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("batched", [False, True])
def test_ctrl_c_ends_a_long_solve(batched, device):
    # the solve ran with the GIL released and looked at no signal: Ctrl-C waited for max_iter steps
    # (here 30-100 s; with max_iter=2**31 - 1 and a tol out of reach, days); on the GPU too, whose
    # solvers now stop the device at their next step (a persistent solve at its batch's end)
    import signal
    import threading
    import time
    A = perron.read_matrix(DATA / "wb-cs-stanford.mtx", cache=False)
    # a ring of 20000 vertices and one chord, alpha 0.99999: every eigenvalue of its walk on the unit
    # circle, so the iterates change for about a million steps (on wb-cs-stanford the GPU's iterates
    # reached their fixed point, a residual of 0 that meets any tol, before the Ctrl-C came)
    n = 20000
    ring = sp.csr_matrix((np.ones(n + 1), (np.r_[np.arange(n), 0], np.r_[np.arange(1, n + 1) % n, n // 2])),
                         shape=(n, n))
    kw = dict(alpha=0.99999, tol=1e-300, max_iter=10**6, precision="double", device=device)
    timer = threading.Timer(0.2, os.kill, (os.getpid(), signal.SIGINT))
    start = time.monotonic()
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            if batched:
                perron.pagerank_batched(ring, [[0], [1], list(range(n))], **kw)
            else:
                perron.pagerank(ring, accelerate="none", **kw)
    finally:
        timer.cancel()
    assert time.monotonic() - start < 5
    ranks, info = perron.pagerank(A, device=device)  # the next solve runs as before
    assert info.converged and abs(ranks.sum() - 1) < 1e-5
    R, info = perron.pagerank_batched(A, [[0]], device=device)
    assert info.converged.all() and abs(R.sum() - 1) < 1e-5


def test_a_dense_adjacency_matrix_is_taken_as_its_nonzeros():
    # a numpy array was refused ("A must be a scipy.sparse matrix or an (indptr, indices) tuple")
    A = np.array([[0, 2.0, 1], [1, 0, 0], [0, 3, 0]])
    for weighted in (False, True):
        want, _ = perron.pagerank(sp.csr_matrix(A), weighted=weighted, tol=1e-12, precision="double", device="cpu")
        for given in (A, A.astype(np.int32), A.astype(bool)):
            if weighted and given.dtype == bool:
                continue
            got, _ = perron.pagerank(given, weighted=weighted, tol=1e-12, precision="double", device="cpu")
            np.testing.assert_allclose(got, want, rtol=0, atol=1e-14)
    R, _ = perron.pagerank_batched(A, [[0], [2]], tol=1e-12, precision="double", device="cpu")
    for c, v in enumerate([0, 2]):
        want, _ = perron.pagerank(sp.csr_matrix(A), personalization={v: 1}, tol=1e-12, precision="double",
                                  device="cpu")
        np.testing.assert_allclose(R[:, c], want, rtol=0, atol=1e-10)
    with pytest.raises(ValueError, match="square adjacency matrix, got 2 x 3"):
        perron.pagerank(np.ones((2, 3)))
    with pytest.raises(ValueError, match="2-D; got shape \\(3,\\)"):
        perron.pagerank(np.ones(3))
    with pytest.raises(TypeError, match="must hold numbers, got dtype <U1"):
        perron.pagerank(np.array([["a", "b"], ["c", "d"]]))
    with pytest.raises(ValueError, match="a 2-D numpy array, an \\(indptr, indices\\) tuple or a networkx graph; got list"):
        perron.pagerank([[0, 1], [1, 0]])


def test_bad_weights_name_the_arc_as_the_caller_numbers_it():
    # the solver's message named A[0, 2] "arc 1 -> 3" (1-based, a Matrix Market file's numbers) and
    # the command line's --weighted; vertex 0's overflowing out-weight was "vertex 1"
    A = np.array([[0, 1, 1], [1, 0, 0], [0, 1, 0]], float)
    for w, shown in [(np.nan, "nan"), (-1.0, "-1.0"), (np.inf, "inf")]:
        B = A.copy()
        B[0, 2] = w
        B = sp.csr_matrix(B)
        for fmt in ["csr", "csc", "coo"]:
            with pytest.raises(ValueError, match=f"^weighted: arc 0 -> 2 has weight {shown} "):
                perron.pagerank(B.asformat(fmt), weighted=True, device="cpu")
            with pytest.raises(ValueError, match="^weighted: arc 0 -> 2 "):
                perron.pagerank_batched(B.asformat(fmt), [[1]], weighted=True, device="cpu")
        perron.pagerank(B, device="cpu")  # unweighted, the values are not read
    C = A.copy()
    C[2, 1], C[2, 0] = 1e308, 1e308  # vertex 2's out-weight overflows
    for fmt in ["csr", "csc"]:
        with pytest.raises(ValueError, match="^weighted: vertex 2: the sum of its out-arc weights overflows"):
            perron.pagerank(sp.csr_matrix(C).asformat(fmt), weighted=True, device="cpu")
    D = A.copy()
    D[0, 1], D[1, 0] = 1e308, 1e308  # the total overflows, no vertex's out-weight does
    ranks, info = perron.pagerank(sp.csr_matrix(D), weighted=True, device="cpu")
    assert info.converged and abs(ranks.sum() - 1) < 1e-5


def test_a_csc_falsely_flagged_canonical_is_named_in_scipy_terms():
    # The flag let its columns through uncopied; the solver's check caught them, and its message
    # named C++ functions (make_pagerank_graph, to_csr) and vertices from 1.
    for indices, what in [([1, 0, 1], "lists row 1 before row 0"), ([0, 0, 1], "holds row 0 twice")]:
        for weighted in [False, True]:
            A = sp.csc_matrix((np.array([1.0, 2.0, 3.0]), np.array(indices), np.array([0, 2, 3, 3])), shape=(3, 3))
            A.has_canonical_format = True
            message = f"^A \\(CSC\\) is flagged has_canonical_format, but its column 0 {what}: set A.has_sorted_indices"
            with pytest.raises(ValueError, match=message):
                perron.pagerank(A, weighted=weighted, device="cpu")
            with pytest.raises(ValueError, match=message):
                perron.pagerank_batched(A, [[1]], weighted=weighted, device="cpu")
            # the cure the message gives
            A.has_sorted_indices = A.has_canonical_format = False
            A.sum_duplicates()
            ranks, info = perron.pagerank(A, weighted=weighted, device="cpu")
            expected, _ = perron.pagerank(sp.csr_matrix(A), weighted=weighted, device="cpu")
            assert info.converged and np.allclose(ranks, expected, rtol=0, atol=1e-7)
    # the first column out of order, past an empty one and a column whose last row exceeds the next's first
    A = sp.csc_matrix((np.ones(5), np.array([1, 3, 0, 2, 1]), np.array([0, 2, 2, 3, 5])), shape=(4, 4))
    A.has_canonical_format = True
    message = r"^A \(CSC\) is flagged has_canonical_format, but its column 3 lists row 2 before row 1"
    with pytest.raises(ValueError, match=message):
        perron.pagerank(A, device="cpu")
    # a CSR flagged so is transposed, which sorts and merges: the ranks are right
    A = sp.csr_matrix((np.ones(3), np.array([1, 0, 1]), np.array([0, 2, 3, 3])), shape=(3, 3))
    A.has_canonical_format = True
    ranks, _ = perron.pagerank(A, device="cpu")
    expected, _ = perron.pagerank(sp.csr_matrix(A.toarray()), device="cpu")
    assert np.allclose(ranks, expected, rtol=0, atol=1e-7)


def test_a_csc_row_index_out_of_range_is_named_as_a_row():
    # The CSR check ran on the CSC's arrays as they are (A^T's CSR): it called the row a column.
    A = sp.csc_matrix((3, 3))
    A.indptr, A.indices, A.data = np.array([0, 1, 2, 3]), np.array([1, 2, 5]), np.ones(3)
    message = r"^A \(CSC\): row index 5 of entry 2 \(column 2\) lies outside \[0, 3\)$"
    with pytest.raises(ValueError, match=message):
        perron.pagerank(A, device="cpu")
    with pytest.raises(ValueError, match=message):
        perron.pagerank_batched(A, [[0]], device="cpu")
    # a CSR's column index is still a column
    B = sp.csr_matrix((3, 3))
    B.indptr, B.indices, B.data = np.array([0, 1, 2, 3]), np.array([1, 2, 5]), np.ones(3)
    with pytest.raises(ValueError, match=r"column index 5 of entry 2 lies outside \[0, 3\)"):
        perron.pagerank(B, device="cpu")


def test_weights_given_in_python_name_their_keyword():
    A = karate()
    # float()'s and numpy's own messages named neither the keyword nor the set:
    # "could not convert string to float: 'x'", "setting an array element with a sequence."
    with pytest.raises(TypeError, match=r"^sources\[1\]: the weight of vertex 0 must be a real number"):
        perron.pagerank_batched(A, [[0], {0: "x"}], device="cpu")
    with pytest.raises(TypeError, match=r"^sources\[0\]: the weight of vertex 3 must be a real number"):
        perron.pagerank_batched(A, [{3: 1j}], device="cpu")
    # Weights whose sum overflows are relative, as --sources reads them (refused here before).
    R, _ = perron.pagerank_batched(A, [{0: 1e308, 1: 1e308}, {0: 1, 1: 1}], precision="double", device="cpu")
    assert np.array_equal(R[:, 0], R[:, 1])
    for kw in ["personalization", "nstart"]:
        # numpy cast text to its number, a date to its days since 1970, an object None to NaN
        for bad in [["a"] * 34, ["1"] * 34, np.array([np.datetime64("2020-01-01")] * 34),
                    np.array([np.timedelta64(1, "D")] * 34), np.array([b"1"] * 34),
                    np.array([1.0] * 33 + [None], dtype=object)]:
            with pytest.raises(TypeError, match=f"^{kw}: the weights must be real numbers"):
                perron.pagerank(A, device="cpu", **{kw: bad})
        with pytest.raises(TypeError, match=f"^{kw}: the weight of vertex 2 must be a real number, got '2'"):
            perron.pagerank(A, device="cpu", **{kw: {2: "2"}})
        assert perron.pagerank(A, device="cpu", **{kw: np.array([1] * 34, dtype=object)})[1].converged
        # an int past double's range raised OverflowError "int too large to convert to float", naming nothing
        with pytest.raises(ValueError, match=f"^{kw}: vertex 3 has a weight past double's range"):
            perron.pagerank(A, device="cpu", **{kw: [1] * 3 + [10**400] + [1] * 30})
        with pytest.raises(ValueError, match=f"^{kw}: the weight of vertex 3 must be a finite number, got an integer"):
            perron.pagerank(A, device="cpu", **{kw: {3: 10**400}})
        with pytest.raises(TypeError, match=f"^{kw}: the weight of vertex 2 must be a real number"):
            perron.pagerank(A, device="cpu", **{kw: {2: [1.0]}})
    with pytest.raises(ValueError, match="^alpha must be a finite number, got an integer past double's range"):
        perron.pagerank(A, alpha=10**400, device="cpu")
    with pytest.raises(ValueError, match=r"^sources\[0\]: the weight of vertex 0 must be a finite number"):
        perron.pagerank_batched(A, [{0: 10**400}], device="cpu")
    B = object_csr([1, 10**400], np.array([1, 0]), np.array([0, 1, 2]), (2, 2))
    if B is not None:
        with pytest.raises(ValueError, match=r"^spmv: A\[1, 0\] holds an integer past double's range"):
            perron.spmv(B, np.ones(2))
        with pytest.raises(ValueError, match=r"^A\[1, 0\] holds an integer past double's range"):
            perron.pagerank(B, weighted=True, device="cpu")
        assert perron.pagerank(B, device="cpu")[1].converged  # unweighted, its values are not read
    # a scipy sparse vector is one weight per vertex (it was an error naming nothing)
    v = np.zeros(34)
    v[[0, 33]] = [1.0, 3.0]
    for sparse in [sp.csr_matrix(v), sp.csc_matrix(v.reshape(34, 1))]:
        np.testing.assert_allclose(perron.pagerank(A, personalization=sparse, device="cpu")[0],
                                   perron.pagerank(A, personalization=v, device="cpu")[0])


def test_read_matrix_takes_a_file_name_that_is_not_utf8(tmp_path):
    # os.fsdecode's surrogates failed pybind11's str conversion ("incompatible function arguments"),
    # and a message naming such a path came out empty
    folder = os.fsencode(tmp_path)
    good, bad, missing = folder + b"/k\xff.mtx", folder + b"/bad\xff.mtx", folder + b"/none\xff.mtx"
    try:
        with open(good, "wb") as f:
            f.write((DATA / "karate.mtx").read_bytes())
    except OSError:
        pytest.skip("this file system refuses names that are not UTF-8")
    with open(bad, "wb") as f:
        f.write(b"garbage\n")
    for path in [good, os.fsdecode(good), pathlib.Path(os.fsdecode(good))]:
        assert perron.read_matrix(path, cache=False).shape == (34, 34)
    with pytest.raises(ValueError, match=r"bad\\xff\.mtx:1: "):
        perron.read_matrix(bad, cache=False)
    with pytest.raises(FileNotFoundError, match=r"none\\xff\.mtx: no such file"):
        perron.read_matrix(missing)


def test_an_empty_graph_and_a_tuple_of_other_shapes_are_named():
    # pagerank_batched and a personalization said "vertex 0 is not in the graph (0 .. -1)"
    for empty in [sp.csr_matrix((0, 0)), sp.coo_matrix((0, 0)), (np.array([0]), np.array([], dtype=np.int32))]:
        for call in [lambda: perron.pagerank(empty, device="cpu"),
                     lambda: perron.pagerank(empty, personalization={0: 1.0}, device="cpu"),
                     lambda: perron.pagerank_batched(empty, [[0]], device="cpu")]:
            with pytest.raises(ValueError, match="^the graph is empty"):
                call()
    # a scalar indptr raised "len() of unsized object"; a 2-D one the C++ "row_ptr has 4 entries for 1 rows"
    for bad in [(np.int64(3), np.array([1, 0])), (np.array([[0, 1], [2, 2]]), np.array([1, 0])),
                (np.array([0, 1, 2]), np.array([[1], [0]]))]:
        with pytest.raises(ValueError, match="two 1-D arrays"):
            perron.pagerank(bad, device="cpu")


def test_values_that_are_not_numbers_are_refused():
    # spmv took a date as its days since 1970 and a string as its number; pagerank(weighted=True) the
    # same, and unweighted failed in numpy ("ufunc 'logical_and' did not contain a loop")
    pattern = (np.array([1, 2, 0]), np.array([0, 2, 3, 3]))
    for values in [np.array(["1", "2", "3"]), np.array([np.datetime64("2020-01-01")] * 3),
                   np.array([np.timedelta64(1, "D")] * 3)]:
        A = sp.csr_matrix((values, *pattern), shape=(3, 3))
        with pytest.raises(TypeError, match="spmv: A must be real"):
            perron.spmv(A, np.ones(3))
        for weighted in [False, True]:
            with pytest.raises(TypeError, match="A must hold numbers"):
                perron.pagerank(A, weighted=weighted, device="cpu")
            with pytest.raises(TypeError, match="A must hold numbers"):
                perron.pagerank_batched(A, [[0]], weighted=weighted, device="cpu")
    B = object_csr([1, 2.5, 3], *pattern, (3, 3))  # numbers as objects
    if B is not None:
        np.testing.assert_allclose(perron.spmv(B, np.ones(3)), [3.5, 3, 0])
        np.testing.assert_allclose(perron.pagerank(B, weighted=True, device="cpu", precision="double")[0],
                                   perron.pagerank(B.astype(float), weighted=True, device="cpu",
                                                   precision="double")[0])


def test_objects_that_are_not_numbers_are_refused():
    # numpy casts an object array's None to NaN: spmv returned NaN rows without a word; pagerank failed in
    # scipy ("unsupported data types in input"), and took the string "2" as the weight 2
    pattern = (np.array([1, 2, 0]), np.array([0, 2, 3, 3]))
    for v in [None, "2", 2j]:
        A = object_csr([1, v, 3], *pattern, (3, 3))
        if A is None:
            pytest.skip("this scipy has no sparse matrices of objects")
        with pytest.raises(TypeError, match=r"^spmv: A\[0, 2\] holds .*, not a real number$"):
            perron.spmv(A, np.ones(3))
        # (scipy converts no object array between formats: the CSC is built from the same arrays)
        for B, at in [(A, r"A\[0, 2\]"), (sp.csc_matrix((A.data, A.indices, A.indptr), shape=(3, 3)), r"A\[2, 0\]")]:
            with pytest.raises(TypeError, match=f"^{at} holds .*, not a real number$"):
                perron.pagerank(B, weighted=True, device="cpu")
            with pytest.raises(TypeError, match=f"^{at} holds .*, not a real number$"):
                perron.pagerank_batched(B, [[0]], weighted=True, device="cpu")
            if isinstance(v, complex):  # unweighted, a nonzero number is an arc, a complex one too
                assert perron.pagerank(B, device="cpu")[1].converged
            else:
                with pytest.raises(TypeError, match=f"^{at} holds {v!r}, not a number$"):
                    perron.pagerank(B, device="cpu")


def test_spmv_in_float32_refuses_values_past_its_range():
    # a float32 x rounds A to float32: 1e300 became inf, and inf * 0 NaN where A @ x is 1
    A = sp.csr_matrix(np.array([[0.0, 1.0, 0.0], [1e300, 1.0, 0.0]]))
    x = np.array([0, 1, 0], dtype=np.float32)
    with pytest.raises(ValueError, match=r"^spmv: A\[1, 0\] = 1e\+300 is past float32's range"):
        perron.spmv(A, x, kernel="cpu")
    np.testing.assert_array_equal(perron.spmv(A, x.astype(np.float64), kernel="cpu"), [1, 1])
    B = sp.csr_matrix(np.array([[np.inf, 3e38]]))  # inf is a value as given; 3e38 fits
    assert np.isnan(perron.spmv(B, np.array([0, 1], dtype=np.float32), kernel="cpu")[0])


@pytest.mark.skipif(perron.gpu_available(), reason="a GPU runs these kernels")
def test_spmv_names_a_gpu_kernel_without_a_gpu():
    # the plan's error said only "perron was built without CUDA (...)", naming neither spmv nor the kernel
    A = random_digraph(10, 30, 1)
    for k in perron.kernels():
        if k not in ("cpu", "auto"):
            with pytest.raises(perron.CudaError, match=f"^spmv: kernel '{k}' runs on the GPU: "):
                perron.spmv(A, np.ones(10), kernel=k)


def test_a_daemon_thread_solving_at_exit_does_not_abort_the_process(tmp_path):
    # a solve that ended while the interpreter was finalizing took the GIL back in
    # py::gil_scoped_release's destructor, which ended the thread by pthread_exit: the process
    # aborted ("terminate called without an active exception", signal 6) instead of exiting
    import subprocess
    import sys
    script = tmp_path / "daemon.py"
    script.write_text(f"""
import gc, threading, time
import perron
A = perron.read_matrix({str(DATA / "wb-cs-stanford.mtx")!r}, cache=False)
kw = dict(tol=1e-300, precision="double", accelerate="none", device="cpu")
start = time.monotonic()
perron.pagerank(A, max_iter=200, **kw)
steps = int(0.5 / ((time.monotonic() - start) / 200))  # a solve of about 0.5 s

class Slow:  # cyclic garbage: its __del__ runs in the finalizing interpreter and holds it open 1 s
    def __del__(self, sleep=time.sleep):
        sleep(1.0)

gc.disable()
s = Slow()
s.me = s
del s
threading.Thread(target=perron.pagerank, args=(A,), kwargs=dict(max_iter=steps, **kw), daemon=True).start()
time.sleep(0.2)  # the thread is in the solve, the GIL released, when the interpreter finalizes
""")
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr


def test_a_thread_joined_by_an_atexit_callback_still_solves(tmp_path):
    # a thread (no daemon) solving in an atexit callback that ran after perron's: every thread
    # but the main one waited forever at the end of its call once atexit had run (e88f448)
    import subprocess
    import sys
    script = tmp_path / "late.py"
    script.write_text(f"""
import atexit, threading

def late():
    A = perron.read_matrix({str(DATA / "karate.mtx")!r}, cache=False)
    t = threading.Thread(target=lambda: print("solved", perron.pagerank(A, device="cpu")[1].converged))
    t.start()
    t.join()

atexit.register(late)  # before perron's own callback is registered: it runs after it
import perron
""")
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and "solved True" in done.stdout, done.stderr


def test_a_graph_too_large_for_the_memory_is_refused_before_it_is_copied(monkeypatch):
    # the module's path had no memory check (the command line's make_pagerank_graph has one):
    # under PERRON_MEMORY_LIMIT=3G, pagerank of 2^28 vertices took 4.3 GB and spmv 5 GB.
    # The refusal is a MemoryError (it was a ValueError: nothing was wrong with the arguments).
    A = random_digraph(100000, 300000, 4)
    monkeypatch.setenv("PERRON_MEMORY_LIMIT", "1M")
    for call in [lambda: perron.pagerank(A, device="cpu"), lambda: perron.pagerank_batched(A, [[0]], device="cpu")]:
        with pytest.raises(MemoryError, match="^PageRank of a graph of 100000 vertices and .* links needs about .* "
                                              "PERRON_MEMORY_LIMIT allows"):
            call()
    with pytest.raises(MemoryError, match="^spmv of a 100000 x 100000 matrix .* PERRON_MEMORY_LIMIT allows"):
        perron.spmv(A, np.ones(100000))
    monkeypatch.setenv("PERRON_MEMORY_LIMIT", "1G")
    assert perron.pagerank(A, device="cpu")[1].converged


def test_a_graph_too_large_is_refused_before_tocsr_allocates_it(tmp_path):
    # A COO (or DOK) matrix went through tocsr() before the memory check: 1.5e9 vertices and one
    # entry allocated a 6 GB indptr (peak RSS 5.9 GB, 12 s) before "needs about 72.0 GB" was said.
    # In a process of its own, for its peak RSS (ru_maxrss); PERRON_MEMORY_LIMIT refuses on any host.
    import subprocess
    import sys
    script = tmp_path / "huge.py"
    script.write_text("""
import resource, numpy as np, scipy.sparse as sp, perron
n = 1_500_000_000
coo = sp.coo_matrix((np.ones(1), ([0], [1])), shape=(n, n))
tall = sp.coo_matrix((np.ones(1), ([0], [1])), shape=(n, 3))
for A, T in [(coo, tall), (coo.todok(), tall.todok())]:
    for call in [lambda: perron.pagerank(A), lambda: perron.pagerank_batched(A, [[0]]),
                 lambda: perron.spmv(T, np.ones(3))]:
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        try:
            call()
            print("not refused")
        except MemoryError as e:
            print(e)
        print("grew", resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before)  # KiB on Linux
""")
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=60,
                          env=os.environ | {"PERRON_MEMORY_LIMIT": "1G"})
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) == 12, done.stdout
    for k, (refusal, grew) in enumerate(zip(lines[::2], lines[1::2])):
        # spmv too: its own check came after tocsr() (the CSR copy now counted in it)
        assert refusal.startswith("spmv of a 1500000000 x 3 matrix with 1 entries needs about" if k % 3 == 2
                                  else "PageRank of a graph of 1500000000 vertices and 1 links needs about 72.0 GB"), refusal
        assert int(grew.split()[1]) < 100_000, (refusal, grew)  # KiB: 100 MB, against the 6 GB of an indptr


def test_networkx_and_tuple_graphs_are_refused_before_they_are_converted(monkeypatch):
    # The same check, with the same words, before a networkx graph's arcs or a tuple's int32 copies are made.
    monkeypatch.setenv("PERRON_MEMORY_LIMIT", "1M")
    G = nx.empty_graph(100000, create_using=nx.DiGraph)
    G.add_edges_from([(0, 1), (1, 2)])
    A = random_digraph(100000, 2, 5)
    tuple_graph = (A.indptr.astype(np.int64), A.indices.astype(np.int64))
    for graph, where in [(G, "_from_networkx"), (tuple_graph, "_graph_arrays")]:
        for call in [lambda: perron.pagerank(graph), lambda: perron.pagerank_batched(graph, [[0]])]:
            with pytest.raises(MemoryError, match="^PageRank of a graph of 100000 vertices and 2 links needs about "
                                                  ".* PERRON_MEMORY_LIMIT allows") as e:
                call()
            assert where in [t.name for t in e.traceback]  # refused there, before the conversion
    monkeypatch.setenv("PERRON_MEMORY_LIMIT", "1G")
    assert perron.pagerank(G, device="cpu")[1].converged
    assert perron.pagerank_batched(tuple_graph, [[0], [1, 2]], device="cpu")[1].converged.all()


# A networkx graph is taken as it is: ranks keyed by node as networkx.pagerank gives them, personalization,
# nstart and source sets by node, weights from an edge attribute.
@pytest.mark.parametrize("device", DEVICES)
def test_networkx_graphs_as_networkx_ranks_them(device):
    lesmis = nx.read_gml(DATA / "lesmis.gml")  # labels, edge `value` weights
    nx.set_edge_attributes(lesmis, {e: float(v) for e, v in nx.get_edge_attributes(lesmis, "value").items()}, "w")
    G = nx.gnm_random_graph(200, 900, seed=3, directed=True)
    G = nx.relabel_nodes(G, {v: f"v{v}" for v in G})  # names, not positions
    G.add_node("alone")  # a vertex without links: dangling, in no edge
    cases = [
        (lesmis, {}, {}),
        (lesmis, {"weighted": "w"}, {"weight": "w"}),
        (nx.DiGraph(lesmis), {}, {}),
        (G, {}, {}),
        (G, {"personalization": {"v3": 1, "v7": 2}}, {"personalization": {"v3": 1, "v7": 2}}),
        (nx.grid_2d_graph(7, 9), {}, {}),  # tuples as nodes
        (nx.DiGraph([(5, 3), (3, 9), (9, 5), (9, 0)]), {}, {}),  # integers, not their positions
        (nx.from_scipy_sparse_array(karate(), create_using=nx.DiGraph), {}, {}),  # positions (numpy ints)
    ]
    multi = nx.MultiDiGraph([(0, 1), (0, 1), (1, 2), (2, 0), (0, 2)])
    cases.append((multi, {"weighted": True}, {}))  # parallel arcs add up: networkx's weight 1 each
    for graph, ours, theirs in cases:
        want = nx.pagerank(graph, tol=1e-14, max_iter=10000, **({"weight": None} | theirs))
        ranks, info = perron.pagerank(graph, tol=1e-13, precision="double", device=device, **ours)
        assert info.converged and isinstance(ranks, dict) and list(ranks) == list(graph)
        assert max(abs(ranks[v] - want[v]) for v in graph) < 1e-10, (graph, ours)
    # nstart by node, a vector in the order of list(G)
    ranks, _ = perron.pagerank(G, nstart={"v5": 1.0}, device=device)
    same, _ = perron.pagerank(G, nstart=np.eye(1, G.number_of_nodes(), list(G).index("v5")).ravel(), device=device)
    assert ranks == same
    # source sets by node; R's rows follow list(G)
    R, info = perron.pagerank_batched(G, ["v3", ["v3", "v9"], {"alone": 1}], tol=1e-12, precision="double",
                                      device=device)
    one, _ = perron.pagerank(G, personalization={"v3": 1}, tol=1e-12, precision="double", device=device)
    np.testing.assert_allclose(R[:, 0], [one[v] for v in G], atol=1e-9)
    assert R[list(G).index("alone"), 2] > 0.15
    R, _ = perron.pagerank_batched(nx.grid_2d_graph(3, 3), [(1, 1)], device=device)
    assert R.shape == (9, 1)


def test_networkx_graphs_bad_input_named():
    G = nx.DiGraph([("a", "b"), ("b", "c")])
    with pytest.raises(ValueError, match="personalization: vertex 'z' is not in the graph"):
        perron.pagerank(G, personalization={"z": 1})
    with pytest.raises(ValueError, match="personalization: vertex 'b' has weight -1"):
        perron.pagerank(G, personalization={"b": -1})
    with pytest.raises(ValueError, match=r"sources\[1\]: vertex 'zz' is not in the graph"):
        perron.pagerank_batched(G, ["a", "zz"])
    with pytest.raises(ValueError, match="the graph is empty"):
        perron.pagerank(nx.Graph())
    G["a"]["b"]["weight"] = "heavy"
    with pytest.raises(TypeError, match="'weight' attribute must hold real numbers"):
        perron.pagerank(G, weighted=True)
    G["a"]["b"]["weight"] = -2.0
    with pytest.raises(ValueError, match="weighted: edge 'a' -> 'b' has weight -2.0"):
        perron.pagerank(G, weighted=True)
    G["a"]["b"]["weight"] = None  # (numpy read it as nan: "has weight nan")
    with pytest.raises(ValueError, match="weighted: edge 'a' -> 'b' has weight None"):
        perron.pagerank(G, weighted=True)
    # out-weights past double named by node, not by position ("vertex 0")
    H = nx.DiGraph([("x", "y", {"weight": 1e308}), ("x", "z", {"weight": 1e308}), ("y", "x", {"weight": 1.0})])
    with pytest.raises(ValueError, match="^weighted: node 'x': the sum of its out-edge weights overflows a double"):
        perron.pagerank(H, weighted=True)
    with pytest.raises(TypeError, match="weighted must be True or False"):
        perron.pagerank(G, weighted=1)


def test_read_matrix_names(tmp_path):
    # the first edge gives integer ids, a later one a name: refused, unless names=True
    f = tmp_path / "mixed.txt"
    f.write_text("1 2\n2 alice\nalice 007\n")
    with pytest.raises(ValueError, match="names=True"):
        perron.read_matrix(f)
    A, names = perron.read_matrix(f, labels=True, names=True)
    assert names == ["1", "2", "alice", "007"] and A.nnz == 3
    with pytest.raises(TypeError, match="read_matrix: names must be True or False"):
        perron.read_matrix(f, names="yes")


def test_read_matrix_bipartite(tmp_path, monkeypatch):
    # KONECT's "% bip": users and items each from 1; the items after the users; its cache entry
    # (a reading of its own) in this test's folder
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    f = tmp_path / "out.konect"
    f.write_text("% bip unweighted\n1 1\n1 2\n2 2\n3 3\n3 1\n")
    for cache in (False, True, True):
        A, ids = perron.read_matrix(f, labels=True, bipartite=True, cache=cache)
        assert A.shape == (6, 6) and list(ids) == [1, 2, 3, 4, 5, 6]
        assert sorted(zip(*A.nonzero())) == [(0, 3), (0, 4), (1, 4), (2, 3), (2, 5)]
    assert len(list((tmp_path / "cache" / "perron").glob("out.konect.bipartite.*.perron-cache"))) == 1
    assert perron.read_matrix(f).shape == (3, 3)  # the file's own reading: another entry
    # a rectangular matrix: its rows, then its columns
    plain = perron.read_matrix(DATA / "lp_afiro.mtx", cache=False)
    A = perron.read_matrix(DATA / "lp_afiro.mtx", cache=False, bipartite=True)
    assert A.shape == (78, 78)
    assert (A[:27, 27:] != plain).nnz == 0 and A[:27, :27].nnz == 0 and A[27:, :].nnz == 0
    with pytest.raises(Exception, match="one set of vertices"):
        perron.read_matrix(DATA / "karate.mtx", cache=False, bipartite=True)
    with pytest.raises(TypeError, match="read_matrix: bipartite must be True or False"):
        perron.read_matrix(f, bipartite="yes")


def test_a_forked_child_runs_its_calls():
    # libgomp's pool does not survive fork(): after a call large enough for a team, a child's
    # call (multiprocessing's default on Linux) waited forever for the parent's threads.
    import signal
    A = random_digraph(100_000, 500_000, 3)
    want, _ = perron.pagerank(A, device="cpu")
    pid = os.fork()
    if pid == 0:
        signal.alarm(60)  # a hang ends the child
        try:
            got, _ = perron.pagerank(A, device="cpu")
            os._exit(0 if np.array_equal(got, want) else 3)
        except BaseException:
            os._exit(4)
    _, status = os.waitpid(pid, 0)
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0, status


def test_networkx_views_and_odd_weights():
    # networkx 2.8's undirected view counts a pair linked both ways twice in len(adj[u])
    V = nx.DiGraph([(0, 1), (1, 0), (1, 2)]).to_undirected(as_view=True)
    got, _ = perron.pagerank(V, tol=1e-12, precision="double", device="cpu")
    want = nx.pagerank(V, tol=1e-12, max_iter=10000)
    assert max(abs(got[k] - want[k]) for k in want) < 1e-9
    # an int weight past double's range, named by edge
    G = nx.DiGraph()
    G.add_edge("a", "b", weight=10**400)
    G.add_edge("b", "a")
    with pytest.raises(ValueError, match="edge 'a' -> 'b' has an integer past double's range"):
        perron.pagerank(G, weighted=True)


def test_object_matrices_with_zeros_and_duplicates():
    # scipy sums no duplicates of an object matrix, nor drops its zeros: read as numbers first
    ind, ptr = np.array([1, 0, 0, 1]), np.array([0, 2, 4])
    for weighted in (False, True):
        A = object_csr([1, 0, 2, 3], ind, ptr, (2, 2))
        if A is None:
            pytest.skip("this scipy has no sparse matrices of objects")
        F = sp.csr_matrix((np.array([1.0, 0.0, 2.0, 3.0]), ind, ptr), shape=(2, 2))
        got, _ = perron.pagerank(A, device="cpu", precision="double", weighted=weighted)
        want, _ = perron.pagerank(F, device="cpu", precision="double", weighted=weighted)
        assert np.array_equal(got, want)


def test_ctrl_c_during_a_blocked_read_is_keyboard_interrupt(tmp_path):
    # open() of a FIFO with no writer failed with EINTR: OSError "Interrupted system call" came first,
    # and the KeyboardInterrupt only after it, inside the caller's except OSError
    import signal
    import threading
    if threading.current_thread() is not threading.main_thread():
        pytest.skip("signals reach the main thread only")
    fifo = tmp_path / "g.mtx"
    os.mkfifo(fifo)
    timer = threading.Timer(0.5, lambda: os.kill(os.getpid(), signal.SIGINT))
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            perron.read_matrix(fifo, cache=False)
    finally:
        timer.cancel()


_FIFO_TEXT = b"%%MatrixMarket matrix coordinate pattern general\n3 3 2\n1 2\n2 3\n"


def _fifo_tar():
    import io
    import tarfile
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w") as t:
        info = tarfile.TarInfo("g.mtx")
        info.size = len(_FIFO_TEXT)
        t.addfile(info, io.BytesIO(_FIFO_TEXT))
    return out.getvalue()


def _reads_archives():
    try:
        perron.read_matrix(DATA / "karate.tar.gz", cache=False)
        return True
    except ValueError as e:
        if "needs libarchive" in str(e):
            return False
        raise


def _read_a_fifo_fed(tmp_path, name, head, rest=None, handler=None):
    """read_matrix of a FIFO whose writer sends `head` and then waits: SIGINT at 0.3 s, then
    `rest` and the end at 0.8 s (or, with rest None, the end once the read is over)."""
    import signal
    import threading
    import time
    if threading.current_thread() is not threading.main_thread():
        pytest.skip("signals reach the main thread only")
    if ".tar" in name and not _reads_archives():
        pytest.skip("perron was built without libarchive")
    fifo = tmp_path / name
    os.mkfifo(fifo)
    over = threading.Event()

    def writer():
        fd = os.open(fifo, os.O_WRONLY)
        try:
            os.write(fd, head)
            if rest is None:
                over.wait(30)
            else:
                time.sleep(0.8)
                os.write(fd, rest)
        finally:
            os.close(fd)

    feed = threading.Thread(target=writer, daemon=True)
    feed.start()
    old = signal.signal(signal.SIGINT, handler) if handler else None
    timer = threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGINT))
    timer.start()
    start = time.monotonic()
    try:
        return perron.read_matrix(fifo, cache=False), time.monotonic() - start
    finally:
        timer.cancel()
        over.set()
        feed.join(5)
        if old:
            signal.signal(signal.SIGINT, old)


@pytest.mark.parametrize("name,head", [
    ("g.mtx", _FIFO_TEXT[:30]),                    # text read whole from a stream
    ("g.mtx.gz", gzip.compress(_FIFO_TEXT)[:20]),  # inflated as it comes
    ("g.tar", b""),                                # an archive through libarchive's callback
    ("g.graphml", b"<?xml version='1.0'?>"),
])
def test_ctrl_c_ends_a_read_whose_writer_never_writes(tmp_path, name, head):
    # the read retried its interrupted read() (EINTR) and waited for the writer: Ctrl-C came
    # through only when the writer wrote, never if it did not
    import time
    start = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        _read_a_fifo_fed(tmp_path, name, head)
    assert time.monotonic() - start < 3


def test_a_read_goes_on_under_a_signal_handler_that_does_not_raise(tmp_path):
    # a handler that only notes the signal: the read waits on and returns the whole matrix
    noted = []
    A, took = _read_a_fifo_fed(tmp_path, "g.mtx", _FIFO_TEXT[:30], _FIFO_TEXT[30:], lambda *a: noted.append(a))
    assert noted and took >= 0.7 and A.shape == (3, 3) and A.nnz == 2
    if _reads_archives():
        A, _ = _read_a_fifo_fed(tmp_path, "h.tar", b"", _fifo_tar(), lambda *a: None)
        assert A.nnz == 2

    class Raised(Exception):
        pass

    def raise_it(*a):
        raise Raised("from the handler")

    with pytest.raises(Raised, match="from the handler"):  # what the handler raises comes out
        _read_a_fifo_fed(tmp_path, "i.mtx.gz", gzip.compress(_FIFO_TEXT)[:20], None, raise_it)


def test_a_float_solve_under_floats_rounding_says_why_it_did_not_converge():
    # The command line warns; the module returned converged=False after max_iter steps with no hint.
    A = karate()
    with pytest.warns(RuntimeWarning, match=r"below float's rounding .* precision='double'"):
        _, info = perron.pagerank(A, tol=1e-10, max_iter=200, device="cpu")
    assert not info.converged
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert perron.pagerank(A, tol=1e-10, precision="double", device="cpu")[1].converged
        assert not perron.pagerank(A, tol=1e-6, max_iter=2, device="cpu")[1].converged  # no rounding to blame


def test_kernel_cpu_with_the_spmv_pull_is_the_cpu_path():
    # the command line's --kernel cpu --pull spmv; the module refused it as a GPU step, though its
    # error for kernel="cpu", pull="fused" says the cpu kernel needs pull="spmv"
    A = random_digraph(50, 200, 3)
    r, info = perron.pagerank(A, kernel="cpu", pull="spmv")
    want, _ = perron.pagerank(A, device="cpu")
    np.testing.assert_array_equal(r, want)
    assert info.device == "cpu"
