// The fused pattern pull: one kernel per PageRank step for unweighted graphs.
//
// For an unweighted graph every entry of column j of P^T is 1/d_j, so
//     (P^T r)(i) = sum_{j -> i} r(j) / d_j = sum_{j -> i} x(j),   x(j) = r(j) / d_j,
// a pull over the pattern alone: 4 bytes per link instead of 4 + sizeof(T).
// The solver keeps x instead of r (x(j) = r(j) for a dangling j, which no row
// reads), and each step writes x_{k+1} from x_k:
//     r_{k+1}(i) = alpha (P^T r_k)(i) + c_k v(i),   x_{k+1}(i) = r_{k+1}(i) / d_i,
// with the residual and the dangling mass summed on the stored values
// (r~(i) = x(i) d_i in double), in the same launch as the pull.
//
// Vertices are relabelled once, on the GPU: the sources (vertices with
// out-links, whose x rows gather) and the long rows first, then the other
// dangling vertices (whose x no row reads), each part by decreasing in-degree
// (the length of their row of P^T; stable, so equal lengths keep their
// order): fused_order_places in solvers/pagerank.hpp. Rows then come sorted
// by length in each part, every gathered entry of x sits in the front part,
// and on graphs whose in- and out-degrees go together (R-MAT, social graphs)
// the most-gathered entries of x sit at the very front: on an R-MAT graph of
// 2^20 vertices the first 50K ids draw 77% of the gathers.
// The first `hub` of them are copied into shared memory by every block at
// the start of a step, and the gathers that hit them never leave the SM.
//
// Windowed order (order_window W, a power of two; PERRON_FUSED_WINDOW for
// experiments): by decreasing in-degree within each run of W consecutive ids,
// the runs in the graph's own order. A graph numbered locally (web crawls:
// sites of consecutive pages) keeps its locality at the scale of W, and the
// 16-bit index's differences stay small (web:16777216:268435456: 2.48 bytes
// per link against 3.34 in the global order); the step is 1.8x faster than
// the global order's where x overflows L2 but not faster than the SpMV pull
// in float on any graph measured, so auto does not ask for it
// (docs/PERFORMANCE.md, "The fused pull's windowed order").
//
// Layout: sliced ELL over "virtual rows". A row longer than W (64) links is
// split into ceil(len / W) virtual rows of nearly equal length, the others are
// one each; 32 consecutive virtual rows make a slice (a row that would cross
// a slice's end with at most 4 lanes of it left there, or 16 where the slices
// still fit one a warp of a full grid, starts the next slice, the lanes left
// empty: row n, no links; build_slices), stored column-major
// (entry j of lane l at 32 j + l) and 32 x its longest virtual row wide. Rows
// sorted by length make the slices nearly rectangular (about 1% padding on
// R-MAT and cnr-2000). A lane sums its virtual row with all its loads
// coalesced and `unroll` of them in flight; a segmented scan over the lanes
// joins a row's virtual rows, and the lane holding a row's sum updates it
// (one lane per row on short-row slices: coalesced). A row whose virtual rows
// span several slices gets one partial per slice, written to that slice's
// slot; the last of them to arrive (a per-row counter) sums the slots in
// slice order, so the result does not depend on which block ran first, and
// finishes the row. Block b takes slices b, b + grid, b + 2 grid, ... (the
// same mix of lengths in every block), its warps in turn from a shared
// counter, longest first.
//
// 16-bit index (issue 18 item 3): past L2 a step streams its column indices
// beside the gathers, so each row's columns are sorted and a lane stores the
// differences between its consecutive columns in 16-bit words at the same
// positions (15 bits, and a flag for a difference of 2^15 or more whose high
// bits go to a per-slice array, found by a scan of per-lane counts kept in
// the spare byte of each virtual row's length). In-degree order puts the
// most-linked sources at small ids, so most differences are small: 2.1-2.5
// bytes per link against 4 on R-MAT 16-26 (scripts/compressed_index_model.cpp);
// a virtual row's first difference is from 0 or from near its own row,
// whichever the first column is near (fused_args, index16_first): in a local
// order (the web graphs' own) links join near ids. Off by default (fused_index_choice() says
// why); when asked for, both widths are built from the sorted rows, so they
// sum a row's links in the same order and give the same bits, and one is
// kept (choose_layout), the other freed.
#pragma once

#include <cuda_runtime.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/device.hpp"
#include "core/formats.hpp"
#include "solvers/cuda/pagerank_device.cuh"
#include "solvers/pagerank.hpp"
#include "solvers/pagerank_compact_ranks.hpp"
#include "solvers/pagerank_trial.hpp"

namespace perron::pagerank_gpu {

template <class T>
struct fused_args;

// Writes the wall time of its scope into `out` when the scope ends, however
// it ends (a trial's cost for the set-up's phases).
class scoped_seconds {
 public:
  explicit scoped_seconds(double& out) : out_(out), t0_(std::chrono::steady_clock::now()) {}
  scoped_seconds(const scoped_seconds&) = delete;
  scoped_seconds& operator=(const scoped_seconds&) = delete;
  ~scoped_seconds() { out_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count(); }

 private:
  double& out_;
  std::chrono::steady_clock::time_point t0_;
};

// The hub size fixed by the environment variable PERRON_FUSED_HUB (entries of
// x, rounded down to whole 32s and capped at max_hub), for tests and
// experiments that need one hub size instead of the timed trial's pick: when
// it is set, hub and trial (the text that reports the trial) say so and the
// result is true.
bool forced_hub(int max_hub, int& hub, std::string& trial);

// The scratch state of a hub trial: steps from the uniform start that never
// stop by tolerance, max_iter of them at most.
pagerank_state trial_state(int max_iter);

// A layout trial's plain steps' residuals (plain_trace, solvers/pagerank_trial.hpp;
// trial_state's alpha) are recorded by a trial state whose report_progress is
// the record's capacity C >= 2 (close_step: step k's record at progress[k] for k < C).
// The records of steps 1 .. size - 1 that a trial left, until the first missing.
plain_trace read_trace(const cuda::device_buffer<pagerank_progress>& records, cudaStream_t stream);

// How the fused step's lanes walk their links (pull_slices): `whole`, a
// lane's whole batches of eight with no test a link and then its one part
// batch tested; `tested`, every batch tested a link up to the slice's width
// (the loop before session 54). The same loads added in the same order: the
// same bits. Neither is faster on every graph (H200, us a step, whole /
// tested: hub:1000000:200000 15.5 / 21.0, er:20000:20000000 38.8 / 47.3,
// powerlaw:100000:1000000:2.2 14.2 / 17.0, but hub:10000000:2000000 168.5
// / 155.8, chain:10000000:10000000 175.9 / 166.8, rmat:20:10000000 in
// double 49.9 / 48.2; docs/PERFORMANCE.md, session 55), and no graph
// statistic tried separated them (chain:1000000:1000000, every slice one
// link wide, prefers whole; its 10^7-vertex twin, tested), so the layout
// trial times both at the hub it keeps.
enum class fused_loop { whole, tested };
std::string_view name(fused_loop l);
// "whole" or "tested" (a remembered layout's word); nullopt otherwise.
std::optional<fused_loop> parse_fused_loop(std::string_view word);

// The loop fixed by PERRON_FUSED_LOOP (whole or tested), for tests and
// experiments; invalid_argument for any other value, nullopt when unset.
std::optional<fused_loop> forced_loop();

// The order's window fixed by PERRON_FUSED_WINDOW (0 or a power of two), for
// experiments; true when it is set.
bool forced_window(index_t& window);

template <class T>
class fused_pull {
 public:
  // A row longer than vrow_links is split into ceil(len / vrow_links) virtual
  // rows of nearly equal length, so a slice's lanes have similar work. 64 is
  // within 5% of the best step time on both R-MAT and cnr-2000
  // (docs/PERFORMANCE.md); the persistent pull takes fewer on small graphs.
  static constexpr int default_vrow_links = 64;

  // The pattern of pt (the CSR of P^T of an unweighted graph) is uploaded,
  // relabelled and split on `stream`; returns when that is done.
  // index16: the 16-bit index (fused_args::word) may be built, as
  // fused_index_choice() says (the persistent pull passes false: its kernels read
  // the 32-bit index).
  // order_window: 0, vertices by decreasing in-degree; W (a power of two),
  // by decreasing in-degree within each run of W consecutive ids, which keeps
  // a graph's own local order between the runs.
  // hub: the hub size an earlier trial of this graph picked (its record kept
  // with the graph's cache entry; solvers/pagerank_trial.hpp), taken without
  // the trial when it still fits (-1: time the candidates).
  // long_rows_start_slices: a row longer than a slice's virtual rows starts a
  // slice (the persistent pull's layout: no two such rows chained across one).
  // loop: the step's loop (fused_loop) an earlier trial picked; nullopt:
  // time both. The persistent pull, whose solves do not run these steps,
  // names one.
  fused_pull(const csr_matrix<T>& pt, cudaStream_t stream, int vrow_links = default_vrow_links,
             bool index16 = false, index_t order_window = 0, int hub = -1,
             bool long_rows_start_slices = false, std::optional<fused_loop> loop = std::nullopt);

  // r_0 from d_r0 (n values in the graph's order; unused when uniform), and
  // the state: `start`'s, with the dangling mass of r_0.
  void launch_init(const T* d_r0, int uniform, pagerank_state* st, const solve_start& start);
  // Copies v (n values in the graph's order) into the solver's order; the
  // steps read it when the state says personalized.
  void launch_personalization(const T* d_v);
  // One step k -> k+1 (k = st->iteration), closed like update_kernel's: a
  // no-op once st->done.
  void launch_step(pagerank_state* st, pagerank_progress* progress, cudaGraphConditionalHandle handle,
                   int set_condition);
  // r_K (K = st->iteration) into r (device or mapped host memory), n values
  // in the graph's order; the state to o (publish_state). after_persistent:
  // straight after the persistent kernel in the stream, which lets this one
  // launch before it ends (programmatic dependent launch: its blocks wait
  // for the solve's end on the SMs, not for the launch). compact: the
  // values plan_compact_ranks() planned instead (its sent() of them), for a
  // solve with a uniform v.
  void launch_ranks(T* r, const pagerank_state* st, const solve_out& o, bool after_persistent = false,
                    bool compact = false);
  // Where compact_ranks_pay() says so, the compact form of the ranks
  // (solvers/pagerank_compact_ranks.hpp) from the codes the relabelling
  // left: its order of values built on the device, the codes on the host;
  // nullopt otherwise. Once; the codes are freed either way.
  std::optional<compact_ranks> plan_compact_ranks();

  // x_k for k of the given parity, and the out-degrees (0 for dangling),
  // in the solver's order: what --accelerate extrapolates (pagerank_accel.cuh).
  T* iterate(int parity) { return x_[parity & 1].data(); }
  const index_t* out_degrees() const { return deg_.data(); }
  int hub() const { return hub_; }  // entries of x kept in shared memory
  fused_loop loop() const { return loop_; }
  index_t order_window() const { return window_; }
  // perm: entry k is the graph's id of vertex k (a copy from the device).
  std::vector<index_t> order() const { return perm_.download(); }
  bool index16() const { return packed_; }  // the steps read the 16-bit index
  // Bytes of column index stored per link in the width kept (padding,
  // escapes and their offsets included): what a step streams per link.
  double index_bytes_per_link() const { return index_bytes_; }
  int max_hub() const { return max_hub_; }  // as many as shared memory holds
  // The kernels' view of this pull (pagerank_fused_slices.cuh), for kernels
  // that run its steps themselves (the persistent pull).
  fused_args<T> args();
  // The hub trial: "entries: median step time" per candidate, then the
  // loops' and the index widths' times where they were timed.
  const std::string& trial() const { return trial_; }
  double trial_seconds() const { return trial_seconds_; }  // wall time of that trial
  // The kept layout's median step in that trial, us (0 where none was timed:
  // a remembered hub and loop).
  double step_us() const { return step_us_; }
  // The hub trial's steps (one solve from the uniform start, candidates
  // taking turns: the same bits); empty where none were timed.
  const plain_trace& trial_trace();
  std::size_t device_bytes() const;

 private:
  // Times steps with each candidate hub size and keeps the fastest.
  void relabel(const csr_matrix<T>& pt, cuda::device_buffer<index_t>& row_ptr,
               cuda::device_buffer<index_t>& csr_col);
  void build_slices(const cuda::device_buffer<index_t>& row_ptr, const cuda::device_buffer<index_t>& csr_col);
  void sort_rows(const cuda::device_buffer<index_t>& row_ptr, cuda::device_buffer<index_t>& csr_col);
  void build_index16(const cuda::device_buffer<index_t>& csr_col,
                     const cuda::device_buffer<index_t>& d_vbegin);
  void choose_layout(int hub);
  unsigned init_grid() const;

  cudaStream_t stream_ = nullptr;
  index_t n_ = 0;
  std::size_t nnz_ = 0;
  index_t slices_ = 0;
  int vrow_links_ = default_vrow_links;
  index_t window_ = 0;
  int hub_ = 0, max_hub_ = 0;
  fused_loop loop_ = fused_loop::whole;
  std::optional<fused_loop> remembered_loop_;
  fused_index index_ = fused_index::bits32;
  bool index16_ = false;                 // rows sorted and the 16-bit index built
  bool long_rows_start_slices_ = false;  // build_slices: the persistent pull's layout
  bool packed_ = false;                  // the steps read it
  double index_bytes_ = 0;
  int grid_ = 1;
  std::string trial_;
  double trial_seconds_ = 0;
  double step_us_ = 0;
  bool contiguous_ = false;                       // fused_args::contiguous for the steps (launch_step)
  static constexpr int trace_records = 64;        // the trials' steps: at most 4 hubs, 2 loops, 2 widths x 7
  cuda::device_buffer<pagerank_progress> trace_;  // their residuals (plain_trace)
  bool traced_ = false;
  plain_trace trace_host_;
  cuda::device_buffer<unsigned> slice_start_;  // stored links < 2^32
  cuda::device_buffer<index_t> col_, vrow_, deg_, perm_, order_, parts_, first_slice_;
  cuda::device_buffer<unsigned short> vlen_;
  cuda::device_buffer<unsigned short> word_, high_;  // the 16-bit index (fused_args gives the layout)
  cuda::device_buffer<unsigned> high_start_;
  cuda::device_buffer<unsigned short> vlen16_;  // vlen_ with the escapes and base (fused_args)
  cuda::device_buffer<unsigned> count_;
  cuda::device_buffer<T> x_[2], v_;
  cuda::device_buffer<double> tail_, head_;  // cut rows' slice partials, summed in double
  // The ranks' compact form: codes (graph's order) and one vertex of each
  // out-degree with a table entry, until planned; then the solver's vertex
  // of each value sent (the table's, then the vertices with in-links).
  cuda::device_buffer<std::uint16_t> rank_code_;
  cuda::device_buffer<unsigned> rank_rep_;
  cuda::device_buffer<index_t> sent_order_;
};

}  // namespace perron::pagerank_gpu
