// The distributed PageRank's in-process parts under mpirun -np 1..4 (ctest
// runs this executable through mpirun; it has its own main): each rank's rows
// of P^T against make_pagerank_graph's, the solve against pagerank_cpu, both
// bitwise; ranges; uneven vertex counts; ranks without vertices or arcs; a
// failure on one rank reaching every rank.
#include <gtest/gtest.h>
#include <mpi.h>
#include <omp.h>
#include <sched.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "io/synthetic.hpp"
#include "kernels/convert.hpp"
#include "solvers/dist/pagerank_dist.hpp"
#include "solvers/dist/pagerank_nccl.hpp"
#include "solvers/pagerank.hpp"

namespace perron {
namespace {

int world_rank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}
int world_size() {
  int s = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &s);
  return s;
}

// Rank p's contiguous slice of all arcs (every rank builds the same graph).
dist::arc_slice slice_of(const coo_matrix<double>& a, int p, int parts) {
  const std::size_t nnz = a.nnz(), P = static_cast<std::size_t>(parts), q = static_cast<std::size_t>(p);
  const std::size_t from = nnz / P * q + std::min(q, nnz % P),
                    to = nnz / P * (q + 1) + std::min(q + 1, nnz % P);
  return {a.row_idx.data() + from, a.col_idx.data() + from, a.values.data() + from, to - from};
}

// The rows [lo, hi) of P^T of the whole graph equal this rank's, bit for bit.
template <class T>
void expect_rows_match(const pagerank_graph<T>& whole, const dist::local_graph<T>& mine) {
  ASSERT_EQ(mine.rows.pt.rows, mine.hi - mine.lo);
  ASSERT_EQ(mine.rows.pt.cols, whole.pt.cols);
  const index_t base = whole.pt.row_ptr[mine.lo];
  for (index_t i = 0; i <= mine.hi - mine.lo; ++i)
    ASSERT_EQ(mine.rows.pt.row_ptr[i], whole.pt.row_ptr[mine.lo + i] - base) << "row " << mine.lo + i;
  for (std::size_t k = 0; k < mine.rows.pt.nnz(); ++k) {
    ASSERT_EQ(mine.rows.pt.col_idx[k], whole.pt.col_idx[base + k]) << "entry " << k;
    ASSERT_EQ(std::memcmp(&mine.rows.pt.values[k], &whole.pt.values[base + k], sizeof(T)), 0)
        << "entry " << k;
  }
  EXPECT_EQ(mine.rows.dangling, whole.dangling);
  EXPECT_EQ(mine.dangling_count, static_cast<std::uint64_t>(whole.dangling_count));
  EXPECT_EQ(mine.links, whole.links());
}

template <class T>
void expect_solve_matches(const pagerank_graph<T>& whole, const dist::local_graph<T>& mine) {
  pagerank_options opt;
  opt.tol = 1e-10;
  opt.max_iter = 200;
  opt.accelerate = pagerank_accel::none;  // the distributed solve's plain steps
  const pagerank_result one = pagerank_cpu(whole, opt);
  // Automatic, then each exchange forced: the same ranks, bit for bit.
  for (const dist::exchange_kind how :
       {dist::exchange_kind::automatic, dist::exchange_kind::all, dist::exchange_kind::halo}) {
    const dist::exchange_plan x = dist::plan_exchange(mine, how);
    EXPECT_EQ(x.halo, world_size() > 1 &&
                          (how == dist::exchange_kind::halo ||
                           (how == dist::exchange_kind::automatic &&
                            dist::halo_share(x.one_host) * double(x.halo_values) <= double(x.all_values))));
    dist::iteration_stats stats;
    const pagerank_result many = dist::pagerank_mpi(mine, opt, x, &stats);
    EXPECT_EQ(many.iterations, one.iterations);
    EXPECT_EQ(many.converged, one.converged);
    EXPECT_EQ(many.residual, one.residual);
    ASSERT_EQ(many.rank.size(), one.rank.size());
    for (std::size_t i = 0; i < one.rank.size(); ++i)
      ASSERT_EQ(many.rank[i], one.rank[i]) << "vertex " << i << ", halo " << x.halo;
    EXPECT_EQ(stats.compute_seconds.size(), static_cast<std::size_t>(many.iterations));
  }
}

// The halo's lists: what each rank reads of the others, sent by the owners.
TEST(DistHalo, ListsAgreeWithTheRowsColumns) {
  const coo_matrix<double> a = io::generate_synthetic("grid:90:100");
  const dist::local_graph<double> mine = dist::distribute_graph<double>(
      slice_of(a, world_rank(), world_size()), a.rows, false, dist::mirror::none);
  const std::vector<index_t> cols = dist::columns_outside(mine.rows.pt, mine.lo, mine.hi);
  EXPECT_TRUE(std::is_sorted(cols.begin(), cols.end()));
  EXPECT_EQ(std::adjacent_find(cols.begin(), cols.end()), cols.end());
  for (const index_t j : cols) {
    EXPECT_TRUE(j < mine.lo || j >= mine.hi) << j;
  }
  std::vector<std::uint8_t> read(static_cast<std::size_t>(a.rows), 0);
  for (const index_t j : mine.rows.pt.col_idx) read[static_cast<std::size_t>(j)] = 1;
  for (index_t j = 0; j < a.rows; ++j) {
    if (j >= mine.lo && j < mine.hi) continue;
    EXPECT_EQ(read[static_cast<std::size_t>(j)] != 0, std::binary_search(cols.begin(), cols.end(), j)) << j;
  }
  // A grid's rows read their neighbours' only: on several ranks the halo is a
  // sliver of r (two grid rows of 100 a boundary), and automatic takes it.
  const dist::exchange_plan x = dist::plan_exchange(mine, dist::exchange_kind::automatic);
  const auto P = static_cast<std::uint64_t>(world_size());
  EXPECT_EQ(x.all_values, (P - 1) * 9000u);
  if (P > 1) {
    EXPECT_TRUE(x.halo);
    EXPECT_LE(x.halo_values, 2 * (P - 1) * 2 * 100);
    EXPECT_EQ(x.recv_columns, cols);
    std::uint64_t sent = 0;
    for (const int c : x.send_count) sent += static_cast<std::uint64_t>(c);
    EXPECT_EQ(x.send_rows.size(), sent);
    for (const index_t i : x.send_rows) {
      EXPECT_TRUE(i >= 0 && i < mine.hi - mine.lo) << i;
    }
    EXPECT_EQ(dist::total_sum(sent), x.halo_values);
  }
  // Uniform arcs, 15 a vertex: every rank's rows read nearly all of r, and
  // the all-gather moves it (R-MAT's many vertices without out-links are
  // read by no one: its halo can be under half of r).
  const coo_matrix<double> b = io::generate_synthetic("er:32768:480000");
  const dist::local_graph<double> dense = dist::distribute_graph<double>(
      slice_of(b, world_rank(), world_size()), b.rows, false, dist::mirror::none);
  EXPECT_FALSE(dist::plan_exchange(dense, dist::exchange_kind::automatic).halo);
}

// Every arc's slice on its rank, then rows and solve against the whole graph.
template <class T>
void check_graph(const coo_matrix<double>& a, bool weighted) {
  const pagerank_graph<T> whole = make_pagerank_graph<T>(a, weighted);
  const dist::local_graph<T> mine = dist::distribute_graph<T>(slice_of(a, world_rank(), world_size()), a.rows,
                                                              weighted, dist::mirror::none);
  expect_rows_match(whole, mine);
  expect_solve_matches(whole, mine);
}

coo_matrix<double> with_positive_weights(coo_matrix<double> a, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> w(0.0, 3.0);
  for (double& v : a.values) v = w(gen);
  return a;
}

TEST(DistGraph, RmatUnweightedDoubleAndFloat) {
  const coo_matrix<double> a = io::generate_synthetic("rmat:15:200000");
  check_graph<double>(a, false);
  check_graph<float>(a, false);
}

TEST(DistGraph, WeightedWithDuplicatesSumsInArcOrder) {
  // Duplicate arcs with different weights: summed in arc order across ranks;
  // d_j summed over targets in order (the rank-by-rank chain).
  coo_matrix<double> a = with_positive_weights(io::generate_synthetic("rmat:14:120000"), 7);
  check_graph<double>(a, true);
  check_graph<float>(a, true);
}

TEST(DistGraph, UnevenVertexCountsAndEmptyRanks) {
  // 10007 vertices (not a multiple of the 4096-vertex block), and 100 (one
  // block: every rank but one owns no vertex).
  for (index_t n : {10007, 100}) {
    coo_matrix<double> a;
    a.rows = a.cols = n;
    for (index_t j = 0; j < n; ++j)
      for (index_t d : {1, 7, 13})
        if (j % 5 != 0) {  // every fifth vertex dangling
          a.row_idx.push_back(j);
          a.col_idx.push_back((j * d + 3) % n);
          a.values.push_back(1.0);
        }
    check_graph<double>(a, false);
  }
}

TEST(DistGraph, RanksWithoutArcsOrLinks) {
  // All arcs on rank 0 and all of them into the first block: the other ranks
  // bring nothing, and those owning vertices own no links.
  const index_t n = 3 * 4096 + 5;
  coo_matrix<double> a;
  a.rows = a.cols = n;
  for (index_t j = 0; j < n; ++j) {
    a.row_idx.push_back(j);
    a.col_idx.push_back(j % 4096);
    a.values.push_back(1.0);
  }
  const pagerank_graph<double> whole = make_pagerank_graph<double>(a, false);
  dist::arc_slice none;
  const dist::arc_slice all{a.row_idx.data(), a.col_idx.data(), a.values.data(), a.nnz()};
  const auto mine =
      dist::distribute_graph<double>(world_rank() == 0 ? all : none, n, false, dist::mirror::none);
  expect_rows_match(whole, mine);
  expect_solve_matches(whole, mine);
}

TEST(DistGraph, MirrorsComeAfterEveryRanksArcs) {
  // A symmetric file: each rank mirrors its own entries; the whole graph has
  // all entries first, then all mirrors (as io's reader expands them).
  coo_matrix<double> half = with_positive_weights(io::generate_synthetic("rmat:13:40000"), 3);
  coo_matrix<double> full = half;
  for (std::size_t k = 0; k < half.nnz(); ++k)
    if (half.row_idx[k] != half.col_idx[k]) {
      full.row_idx.push_back(half.col_idx[k]);
      full.col_idx.push_back(half.row_idx[k]);
      full.values.push_back(half.values[k]);
    }
  for (bool weighted : {false, true}) {
    const pagerank_graph<double> whole = make_pagerank_graph<double>(full, weighted);
    const auto mine = dist::distribute_graph<double>(slice_of(half, world_rank(), world_size()), half.rows,
                                                     weighted, dist::mirror::symmetric);
    expect_rows_match(whole, mine);
  }
}

TEST(DistGraph, RangesAreBlockAlignedAndCoverTheVertices) {
  for (index_t n : {1, 4095, 4096, 4097, 100000}) {
    const std::size_t blocks = static_cast<std::size_t>((n + 4095) / 4096);
    std::vector<std::uint64_t> links(blocks);
    for (std::size_t b = 0; b < blocks; ++b) links[b] = (b * 7919) % 13;
    for (int parts : {1, 2, 3, 4, 7}) {
      const auto first = dist::balanced_ranges(links, n, parts);
      ASSERT_EQ(first.size(), static_cast<std::size_t>(parts) + 1);
      EXPECT_EQ(first.front(), 0);
      EXPECT_EQ(first.back(), n);
      for (int p = 0; p < parts; ++p) {
        EXPECT_LE(first[p], first[p + 1]);
        EXPECT_TRUE(first[p] % pagerank_sum_block == 0 || first[p] == n) << first[p];
      }
    }
  }
}

// pagerank --gpus's share of GPU d: its rows of P^T, columns unchanged; the
// ranges cut at equal cost where a row also costs links_per_row links.
TEST(DistGraph, RowRangesKeepEveryColumnAndBalanceRowsWithLinks) {
  const pagerank_graph<double> g =
      make_pagerank_graph<double>(with_positive_weights(io::generate_synthetic("rmat:16:300000"), 3), true);
  const index_t n = g.vertices();
  for (std::uint64_t per_row : {0, 2, 1000}) {
    for (int parts : {1, 2, 3, 4}) {
      const auto first = dist::balanced_ranges(g.pt.row_ptr, parts, per_row);
      ASSERT_EQ(first.size(), static_cast<std::size_t>(parts) + 1);
      EXPECT_EQ(first.front(), 0);
      EXPECT_EQ(first.back(), n);
      // Each cut is the first block boundary with p / parts of the cost before it.
      const auto cost = [&](index_t lo, index_t hi) {
        return double(g.pt.row_ptr[hi] - g.pt.row_ptr[lo]) + double(per_row) * double(hi - lo);
      };
      const double total = cost(0, n);
      for (int p = 1; p < parts; ++p) {
        const index_t c = first[p];
        EXPECT_TRUE(c % pagerank_sum_block == 0 || c == n) << c;
        EXPECT_GE(cost(0, c), total * p / parts) << "parts " << parts << " cut " << p;
        if (c > first[p - 1]) {
          EXPECT_LT(cost(0, c - pagerank_sum_block), total * p / parts);  // moved here
        }
      }
      for (int q = 0; q < parts; ++q) {
        const csr_matrix<double> rows = dist::row_range(g.pt, first[q], first[q + 1]);
        ASSERT_EQ(rows.rows, first[q + 1] - first[q]);
        EXPECT_EQ(rows.cols, g.pt.cols);
        const index_t b = g.pt.row_ptr[first[q]];
        ASSERT_EQ(rows.nnz(), static_cast<std::size_t>(g.pt.row_ptr[first[q + 1]] - b));
        for (index_t i = 0; i <= rows.rows; ++i) EXPECT_EQ(rows.row_ptr[i], g.pt.row_ptr[first[q] + i] - b);
        for (std::size_t k = 0; k < rows.nnz(); ++k) {
          ASSERT_EQ(rows.col_idx[k], g.pt.col_idx[b + k]) << k;
          ASSERT_EQ(rows.values[k], g.pt.values[b + k]) << k;
        }
      }
    }
  }
  // R-MAT's in-links gather on low ids: counting rows moves the first cut up.
  EXPECT_GT(dist::balanced_ranges(g.pt.row_ptr, 2, 2)[1], dist::balanced_ranges(g.pt.row_ptr, 2, 0)[1]);
}

// --gpus' chunks: a GPU's rows [lo, hi) cut as the whole graph is cut, on
// block boundaries of the graph's ids; and the automatic chunk count.
TEST(DistGraph, ChunksOfAGpusRowsAndTheirCount) {
  const pagerank_graph<double> g =
      make_pagerank_graph<double>(io::generate_synthetic("rmat:15:200000"), false);
  const index_t n = g.vertices();
  const auto gpu = dist::balanced_ranges(g.pt.row_ptr, 3, 2);
  for (int q = 0; q < 3; ++q)
    for (int chunks : {1, 2, 5}) {
      const auto c = dist::balanced_ranges(g.pt.row_ptr, gpu[q], gpu[q + 1], chunks, 2);
      ASSERT_EQ(c.size(), static_cast<std::size_t>(chunks) + 1);
      EXPECT_EQ(c.front(), gpu[q]);
      EXPECT_EQ(c.back(), gpu[q + 1]);
      for (int k = 1; k < chunks; ++k) {
        EXPECT_LE(c[k - 1], c[k]);
        EXPECT_TRUE(c[k] % pagerank_sum_block == 0 || c[k] == n) << c[k];
      }
    }
  // Whole graph = one GPU's rows [0, n).
  EXPECT_EQ(dist::balanced_ranges(g.pt.row_ptr, 0, n, 4, 2), dist::balanced_ranges(g.pt.row_ptr, 4, 2));
  EXPECT_EQ(dist::exchange_chunks(1 << 26, 1, 4), 1);  // one GPU: nothing to exchange
  EXPECT_EQ(dist::exchange_chunks(1 << 20, 4, 4), 1);  // 3 MB received: one chunk
  EXPECT_EQ(dist::exchange_chunks(1 << 26, 2, 4), 4);  // 134 MB received: 4 chunks of 32 MB
  EXPECT_EQ(dist::exchange_chunks(1 << 26, 4, 4), 6);  // 201 MB
  EXPECT_EQ(dist::exchange_chunks(1 << 27, 4, 8), dist::max_exchange_chunks);
}

// --gpus' memory model per GPU: session 22's fullest H100 on rmat:26 over 4
// GPUs (2.27 M rows, 294 M links, chunks of ~49 M) peaked at 4.44 GB with its
// ~0.5 GB context; the model must not be below what was measured less the
// context, and each term counts.
TEST(DistGraph, GpuShareBytes) {
  const index_t n = 67108864;
  const double rmat26 = dist::nccl_gpu_bytes(n, 2270000, 294000000, 49000000, 4, 4, 60);
  EXPECT_GT(rmat26, 3.9e9);
  EXPECT_LT(rmat26, 4.5e9);
  EXPECT_GT(dist::nccl_gpu_bytes(n, 2270000, 294000000, 49000000, 4, 8, 60), rmat26);  // double
  EXPECT_GT(dist::nccl_gpu_bytes(n, 3270000, 294000000, 49000000, 4, 4, 60), rmat26);  // more rows
  EXPECT_GT(dist::nccl_gpu_bytes(n, 2270000, 294000000, 98000000, 4, 4, 60), rmat26);  // larger chunk
  // A huge --max-iter costs its residual history (8 bytes an iteration).
  EXPECT_GT(dist::nccl_gpu_bytes(n, 2270000, 294000000, 49000000, 4, 4, 1000000000), 8e9);
}

// The chunks of a graph built in pieces: enough to keep each under 2^31 links,
// then enough for the share to fit. Session 23 on 2 H200s (143 GB, 149.6 GB
// free by cudaMemGetInfo): R-MAT 29 (8.59 G draws) peaked at 48.5 GB a GPU
// with 8 chunks (the model: 48.3 GB, context not included); on one GPU it was
// refused with one chunk (151.6 GB: a converted copy of the whole share) and
// fits in five.
TEST(DistGraph, PieceChunksKeepChunksIndexableAndTheShareInMemory) {
  const auto always = [](int) { return true; };
  const auto never = [](int) { return false; };
  EXPECT_EQ(dist::piece_chunks(1, 1000000, always), 1);
  EXPECT_EQ(dist::piece_chunks(0, 1000000, always), 1);
  EXPECT_EQ(dist::piece_chunks(4, 1000000, always), 4);                         // the exchange's count kept
  EXPECT_EQ(dist::piece_chunks(1, 4294967296ull, always), 3);                   // 1.72 G links a chunk
  EXPECT_EQ(dist::piece_chunks(8, 8589934592ull, always), 8);                   // R-MAT 30 on 2 GPUs
  EXPECT_EQ(dist::piece_chunks(1, 17179869184ull, always), 0);                  // R-MAT 30 on one: no count
  EXPECT_EQ(dist::piece_chunks(1, 1000000, never), dist::max_exchange_chunks);  // the check then refuses
  const index_t n = index_t(1) << 29;
  const std::uint64_t draws = 8589934592ull;
  const auto need = [&](int gpus, int k) {
    return dist::nccl_gpu_bytes(n, n / gpus, draws / gpus, dist::largest_chunk(draws / gpus, k), gpus, 4, 20);
  };
  EXPECT_GT(need(2, 8), 48.5e9 - 0.6e9);  // measured less the context
  EXPECT_LT(need(2, 8), 50e9);
  EXPECT_GT(need(1, 1), 149.6e9);  // the refusal
  EXPECT_EQ(dist::piece_chunks(1, draws, [&](int k) { return need(1, k) <= 149.6e9; }), 5);
  EXPECT_LT(need(1, 5), 149.6e9);
}

// --gpus' cut before any row is built (from links per 4096-row block) is the
// cut of the whole graph: its GPU ranges, then each range's chunks.
TEST(DistGraph, NcclCutIsTheWholeGraphsCut) {
  const pagerank_graph<double> g =
      make_pagerank_graph<double>(io::generate_synthetic("rmat:15:200000"), false);
  const index_t n = g.vertices();
  const std::vector<index_t>& rp = g.pt.row_ptr;
  const std::vector<std::uint64_t> block_links = dist::block_links_of(rp);
  ASSERT_EQ(block_links.size(), (static_cast<std::size_t>(n) + 4095) / 4096);
  for (std::size_t b = 0; b < block_links.size(); ++b)
    ASSERT_EQ(block_links[b],
              static_cast<std::uint64_t>(rp[std::min<std::size_t>(n, (b + 1) * 4096)] - rp[b * 4096]));
  for (int gpus : {1, 2, 3, 4})
    for (int chunks : {1, 2, 5})
      for (double cost : {0.0, 1.0, 2.5}) {
        const std::vector<index_t> cut = dist::nccl_cut(block_links, n, gpus, chunks, cost);
        ASSERT_EQ(cut.size(), static_cast<std::size_t>(gpus * chunks) + 1);
        EXPECT_EQ(cut.back(), n);
        const auto first = dist::balanced_ranges(rp, gpus, cost);
        for (int d = 0; d < gpus; ++d) {
          EXPECT_EQ(cut[static_cast<std::size_t>(d * chunks)], first[d]) << gpus << " GPUs, GPU " << d;
          for (int k = 1; k < chunks; ++k)
            EXPECT_LE(cut[static_cast<std::size_t>(d * chunks + k - 1)],
                      cut[static_cast<std::size_t>(d * chunks + k)]);
        }
      }
}

// Each GPU's chunks at equal cost but the last, at last_chunk_weight of the
// others' (its exchange is the one a step waits for): on evenly filled
// blocks the boundaries fall where the weights put them.
TEST(DistGraph, NcclCutsTheLastChunkSmaller) {
  const index_t blocks = 1000, n = blocks * 4096;
  const std::vector<std::uint64_t> block_links(static_cast<std::size_t>(blocks), 100);
  const std::vector<index_t> cut = dist::nccl_cut(block_links, n, 2, 3, 0.0);
  ASSERT_EQ(cut.size(), 7u);
  // GPU 0 holds blocks [0, 500); weights 1, 1, w of 500 blocks.
  const double w = dist::last_chunk_weight, unit = 500 / (2 + w);
  EXPECT_EQ(cut[0], 0);
  EXPECT_EQ(cut[1], static_cast<index_t>(std::ceil(unit)) * 4096);
  EXPECT_EQ(cut[2], static_cast<index_t>(std::ceil(2 * unit)) * 4096);
  EXPECT_EQ(cut[3], 500 * 4096);
  EXPECT_EQ(cut[6], n);
  EXPECT_EQ(dist::largest_chunk(1000, 1), 1000u);
  EXPECT_EQ(dist::largest_chunk(1000, 3), static_cast<std::uint64_t>(std::ceil(1000 / (2 + w))));
}

// A generated graph in pieces, each piece's rows of P^T (pt_rows) bitwise
// the rows make_pagerank_graph builds from the whole graph.
TEST(DistGraph, PiecesGiveTheGraphsRowsOfPt) {
  const std::string spec = "rmat:13:60000";
  const pagerank_graph<float> g = make_pagerank_graph<float>(io::generate_synthetic(spec), false);
  const index_t n = g.vertices();
  io::transpose_pieces p = io::generate_transpose_pieces(
      spec, [&](const std::vector<std::uint64_t>& b) { return dist::nccl_cut(b, n, 2, 3, 1.0); });
  ASSERT_EQ(p.at.pieces(), 6u);
  EXPECT_EQ(p.links, g.links());
  for (index_t i = 0; i < n; ++i) EXPECT_EQ(p.out_degree[i] == 0, g.dangling[i] != 0) << i;
  const std::vector<index_t> cut = p.at.first;
  for (std::size_t k = 0; k < 6; ++k) {
    const csr_matrix<float> mine = dist::pt_rows<float>(p.at, k, p.out_degree);
    const csr_matrix<float> whole = dist::row_range(g.pt, cut[k], cut[k + 1]);
    EXPECT_EQ(mine.rows, whole.rows);
    EXPECT_EQ(mine.cols, n);
    EXPECT_EQ(mine.row_ptr, whole.row_ptr) << k;
    EXPECT_EQ(mine.col_idx, whole.col_idx) << k;
    EXPECT_EQ(mine.values, whole.values) << k;
  }
}

const dist::session* the_session = nullptr;  // main's

// A rank's threads: its CPUs over the ranks of its host whose CPUs meet its
// own (at least one), and its regions take them; unless OMP_NUM_THREADS is
// set. Under ctest's mpirun --oversubscribe the ranks of this host either
// all see every CPU (unbound: they share them) or one core each.
TEST(DistSession, ARanksThreadsAreItsShareOfItsCpus) {
  ASSERT_NE(the_session, nullptr);
  EXPECT_EQ(omp_get_max_threads(), the_session->threads());
  const char* chosen = std::getenv("OMP_NUM_THREADS");
  const char* local = std::getenv("OMPI_COMM_WORLD_LOCAL_SIZE");
  if ((chosen && *chosen) || !local) GTEST_SKIP() << "OMP_NUM_THREADS set, or not under Open MPI's mpirun";
  cpu_set_t mine;
  CPU_ZERO(&mine);
  ASSERT_EQ(::sched_getaffinity(0, sizeof(mine), &mine), 0);
  const int cpus = CPU_COUNT(&mine), ranks = std::max(1, std::atoi(local));
  EXPECT_EQ(the_session->threads(), cpus == 1 ? 1 : std::max(1, cpus / ranks));
}

TEST(DistFaults, ABadWeightOnTheLastRankStopsEveryRank) {
  coo_matrix<double> a = with_positive_weights(io::generate_synthetic("rmat:10:5000"), 1);
  a.values.back() = -2.0;  // in the last rank's slice
  const int last = world_size() - 1;
  try {
    dist::distribute_graph<double>(slice_of(a, world_rank(), world_size()), a.rows, true, dist::mirror::none);
    FAIL() << "no error";
  } catch (const invalid_argument& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.rfind("rank " + std::to_string(last) + ": arc ", 0), 0u) << what;
    EXPECT_NE(what.find("has weight -2"), std::string::npos) << what;
  }
  // Every rank is still in step: a collective after the failure completes.
  EXPECT_EQ(dist::total_sum(1), static_cast<std::uint64_t>(world_size()));
}

// Ranks that read different graphs under one name (copies that differ
// between hosts): one error naming the input and both ranks' sizes, where the
// block counts' all-reduce mixed lengths and to_csr found arcs outside the
// matrix, naming nothing.
TEST(DistFaults, RanksThatReadDifferentGraphsStopEveryRankNamingTheInput) {
  const int size = world_size(), last = size - 1;
  if (size == 1) GTEST_SKIP() << "one rank reads one graph";
  const coo_matrix<double> a = io::generate_synthetic("rmat:10:5000");
  const index_t n = world_rank() == last ? a.rows + 1 : a.rows;
  try {
    dist::exchange_arcs(slice_of(a, world_rank(), size), n, false, dist::mirror::none, {}, "g.mtx");
    FAIL() << "no error";
  } catch (const invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()),
              "rank 0: g.mtx: the ranks read different graphs (rank 0: " + std::to_string(a.rows) +
                  " vertices; rank " + std::to_string(last) + ": " + std::to_string(a.rows + 1) +
                  " vertices): every rank must read the same input, unchanged while "
                  "the run reads it");
  }
  EXPECT_EQ(dist::total_sum(1), static_cast<std::uint64_t>(size));
  EXPECT_EQ(dist::first_difference("same"), "");
}

TEST(DistFaults, AgreeNamesTheLowestFailingRankAndKeepsTheType) {
  const int size = world_size();
  std::exception_ptr mine;
  if (world_rank() == size - 1) mine = std::make_exception_ptr(io_error("graph.mtx", "no such file"));
  if (size > 2 && world_rank() == size - 2)
    mine = std::make_exception_ptr(parse_error("graph.mtx", 12, "row index 'x' is not a positive integer"));
  try {
    dist::agree(mine);
    FAIL() << "no error";
  } catch (const parse_error& e) {
    EXPECT_GT(size, 2);
    EXPECT_EQ(std::string(e.what()),
              "rank " + std::to_string(size - 2) + ": graph.mtx:12: row index 'x' is not a positive integer");
  } catch (const io_error& e) {
    EXPECT_LE(size, 2);
    EXPECT_EQ(std::string(e.what()), "rank " + std::to_string(size - 1) + ": graph.mtx: no such file");
  }
  EXPECT_NO_THROW(dist::agree(nullptr));
}

}  // namespace
}  // namespace perron

// One MPI session around all tests; rank 0 prints, and the exit status is
// the worst over the ranks (a failure on any rank fails the test).
int main(int argc, char** argv) {
  perron::dist::session world;
  perron::the_session = &world;
  ::testing::InitGoogleTest(&argc, argv);
  if (world.rank() != 0) {
    auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
  }
  int mine = RUN_ALL_TESTS();
  int worst = 0;
  MPI_Allreduce(&mine, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (mine != 0) std::fprintf(stderr, "mpi_dist_test: rank %d failed\n", world.rank());
  return worst;
}
