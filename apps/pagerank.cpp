// pagerank: PageRank of a graph file (Matrix Market, edge list, GraphML, GML, Pajek) on the
// GPU or the CPU, with a summary, the top-ranked vertices, optional TSV/JSON
// output, and a benchmark mode (--bench) against a naive cuSPARSE baseline.
#include "solvers/pagerank.hpp"

#include <omp.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <boost/program_options.hpp>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>
#include <memory>
#include <numeric>
#include <optional>
#include <sstream>
#include <streambuf>
#include <string>
#include <type_traits>
#include <vector>

#include "apps/common/app.hpp"
#include "apps/common/batched_pagerank.hpp"
#include "apps/common/command_line.hpp"
#include "apps/common/detached_exit.hpp"
#include "apps/common/dist_load.hpp"
#include "apps/common/input_options.hpp"
#include "apps/common/progress.hpp"
#include "apps/common/remembered_count.hpp"
#include "apps/common/svg_plot.hpp"
#include "apps/common/timer.hpp"
#include "apps/common/usage.hpp"
#include "bench/pagerank_suite.hpp"
#include "core/context_start.hpp"
#include "core/device.hpp"
#include "core/error.hpp"
#include "core/hash.hpp"
#include "core/memory.hpp"
#include "core/text.hpp"
#include "io/cache.hpp"
#include "io/load.hpp"
#include "io/output_file.hpp"
#include "io/snap.hpp"
#include "io/synthetic.hpp"
#include "io/vector_file.hpp"
#include "kernels/reorder.hpp"
#include "solvers/device_choice.hpp"
#include "solvers/dist/pagerank_dist.hpp"
#include "solvers/dist/pagerank_nccl.hpp"
#include "solvers/pagerank_trial.hpp"

namespace po = boost::program_options;

namespace perron::app {
namespace {

// The command line: the solver's options (defaults and checks in
// pagerank_options) and what only the app has.
struct settings {
  std::string graph;
  pagerank_options opt;
  std::string precision = "float";
  bool weighted = false;
  std::string personalize, initial, output, plot;
  std::shared_ptr<dist::session> dist;  // set under mpirun with more than one rank
  std::string dist_note;                // the summary's "distributed" line
  int top = 10;
  bool json = false;
  bool bench = false;
  int bench_runs = 100;
  bool bench_dist = false;        // --bench-dist: the distributed solve's timings per rank
  int gpus = 0;                   // --gpus N: N GPUs of this process through NCCL (0: not asked)
  dist::nccl_options gpus_cut;    // --exchange-chunks, --row-cost (with --gpus)
  std::string exchange = "auto";  // --exchange, under mpirun: auto | all | halo
  // --pull-trial: auto (time the pulls where the model is unsure when the
  // outcome can be kept beside the graph's cache entry), on, off.
  std::string pull_trial = "auto";
  // --reorder: the vertex order the solve runs in (kernels/reorder.hpp); results in the input's ids.
  vertex_order reorder = vertex_order::none;
  app::input_settings input;
  app::batched_request batched;  // --sources, --output-matrix, --bench-sources (the batched mode)
};

const char* usage_text =
    "Usage: pagerank [options] GRAPH\n"
    "\n"
    "PageRank of the directed graph in GRAPH (or undirected: --undirected) by power\n"
    "iteration, on the GPU or the CPU (OpenMP), whichever is predicted to finish\n"
    "first. Prints a summary and the top-ranked vertices.\n"
    "\n"
    "GRAPH is a Matrix Market file (.mtx; entry (i, j) is the arc i -> j; symmetric\n"
    "files are undirected graphs) or an edge list (SNAP .txt, .csv, .tsv; a line\n"
    "'from to', 'from to weight', KONECT's 'from to weight time' (the time\n"
    "dropped) or networkx's 'from to {'weight': w}'; blanks or a comma between,\n"
    "an optional header line of names, whose source, target and weight columns\n"
    "are taken by name (Gephi's edge table; pandas' unnamed index dropped);\n"
    "integer ids need not be contiguous; where the first edge names its vertices,\n"
    "'alice bob', every vertex is a name, numbered in order of first appearance),\n"
    "or a graph tool's file: GraphML (.graphml), GML (.gml) or Pajek (.net, .paj),\n"
    "read as networkx reads them (vertices in the file's order, named by GraphML's\n"
    "ids, GML's and Pajek's labels where each vertex has its own, else their ids;\n"
    "an undirected graph's edges both ways; weights: GraphML's 'weight' key, GML's\n"
    "weight or value, Pajek's third field), plain, compressed (.gz,\n"
    ".bz2, .xz, .zst) or the main one in an archive (SuiteSparse .tar.gz, KONECT\n"
    ".tar.bz2, .zip: a .mtx, else a graph tool's file, else an edge list; of\n"
    "several, the one named like the archive), '-' for any of them on standard\n"
    "input,\n"
    "or a generated graph (N vertices, M arc draws with duplicates merged;\n"
    "io/synthetic.hpp):\n"
    "  rmat:S:M[:A,B,C]    R-MAT, 2^S vertices, quadrant probabilities A,B,C\n"
    "                      (default .57,.19,.19; larger A, more skew)\n"
    "  er:N:M              Erdos-Renyi, both ends uniform\n"
    "  powerlaw:N:M:GAMMA  configuration model, degrees ~ d^-GAMMA, 2 < GAMMA <= 100\n"
    "  grid:R:C            R x C lattice, 4 neighbours both ways (road-like)\n"
    "  hub:N:M             every vertex links to vertex 1, plus M uniform arcs\n"
    "  dangling:N:M:F      M uniform arcs from (1 - F) N vertices; F of them dangling\n"
    "  chain:N:L           chains of L vertices, v -> v + 1\n"
    "  web:N:M[:LOCAL[,GAMMA]]  web-like: sites of consecutive pages (Zipf sizes),\n"
    "                      a fraction LOCAL (0.9) of links inside their site to its\n"
    "                      popular pages (power law GAMMA, 2.5), the rest to popular\n"
    "                      pages of popular sites\n"
    "  cite:N:M[:COPY]     citation-like: vertices cite older ones (acyclic), a\n"
    "                      fraction COPY (0.5) copied from an older vertex's citations\n"
    "                      (in-degrees ~ d^-(1 + 1/COPY); low ids popular)\n"
    "  ws:N:K:P            small world: a ring, links to the K nearest (K < N), each\n"
    "                      rewired to a uniform target with probability P\n"
    "  sbm:N:M:K[:MU]      communities: K blocks of consecutive ids, a fraction MU\n"
    "                      (0.1) of the links to a uniform vertex, the rest inside\n"
    "                      their source's block\n"
    "  bip:U:I:M[:GAMMA]   bipartite: U users and I items, M interactions each both\n"
    "                      ways, both sides' degrees ~ power law GAMMA (2.5)\n"
    "(also the matrices synthetic:seedS:N and tridiag:N). Arcs are unweighted unless\n"
    "--weighted (weights: Matrix Market values, an edge list's third field; arcs\n"
    "listed twice, a multigraph's parallel edges, then add up); every\n"
    "entry the file lists is an arc, one stored as 0 too (the matrix's pattern, as\n"
    "SuiteSparse keeps such entries), which --weighted weighs 0; self\n"
    "loops count. Vertices are named as in the file: 1-based for Matrix Market, the\n"
    "ids of an edge list, 1-based for generated graphs.\n"
    "\n"
    "The iteration is r <- alpha P^T r + (alpha * dangling mass + 1 - alpha) v, with\n"
    "P = D^-1 A and v uniform or --personalize; it stops when ||r_new - r||_1 < tol\n"
    "or after --max-iter steps.\n"
    "\n"
    "Options";

const char* exit_text =
    "\n"
    "Files for --personalize / --initial: a Matrix Market array with one value per\n"
    "vertex, or text lines 'vertex weight' (vertices named as in GRAPH; unlisted\n"
    "vertices get 0). Weights must be non-negative and not all zero; they are\n"
    "normalized to sum 1. '-' reads standard input (for one of GRAPH, --personalize,\n"
    "--initial and --sources; under mpirun every rank reads the vector files, which\n"
    "must then be files).\n"
    "\n"
    "Distributed: started by mpirun -np P (P > 1), P processes solve on the CPU,\n"
    "each owning a range of vertices (balanced by links, cut on blocks of 4096: a\n"
    "graph of a few blocks leaves processes idle) and their in-links; the ranks are\n"
    "bitwise those of the single-process CPU solve with --accelerate none (the\n"
    "distributed solve does not extrapolate). A plain coordinate Matrix Market\n"
    "file is read in parts (each process parses 1/P of its bytes); .gz, .tar.gz and\n"
    "edge lists are streamed by process 0, which sends process p the p-th 1/P of the\n"
    "text to parse; a generated graph (rmat:, er:, web:, cite:, ws:, sbm:, bip:, ...)\n"
    "is drawn by every process, each its 1/P of the draws; so no process holds the\n"
    "whole graph. grid:, chain:, the matrices synthetic: and tridiag:, and --weighted\n"
    "specs are generated whole by process 0, which sends each process its 1/P of\n"
    "the arcs. Each process caches its part\n"
    "(--cache-dir; not for generated graphs), so the next run on the same file with\n"
    "the same P skips the parse and the exchange. Rank 0 prints and writes; a\n"
    "failure on any process stops all of them with one message 'rank R: ...' and\n"
    "the exit code below, and no output file. --bench-dist times the distributed\n"
    "solve (also alone, as one process). OpenMPI's mpirun (4.1) relays standard\n"
    "output without reporting a full disk or a closed pipe ('| head': mpirun itself\n"
    "may crash): under mpirun, --output FILE is the way to keep the ranks.\n"
    "\n"
    "A run that may use the GPU (an NVIDIA device node exists) forks before the\n"
    "CUDA context starts: the process started waits for the run's exit code and\n"
    "ends with it (passing on SIGINT, SIGTERM, SIGHUP, SIGQUIT), while the run,\n"
    "once its output is complete, ends after it, tearing the context down (~0.1 s)\n"
    "past the user's wait. PERRON_TEARDOWN=wait keeps one process.\n"
    "\n"
    "Exit codes: 0 converged; 2 not converged within --max-iter (results still\n"
    "printed and written); 64 bad command line; 65 bad input data; 66 missing or\n"
    "unreadable file; 69 unsupported format; 70 CUDA failure or no GPU for\n"
    "--device cuda; 71 internal error.\n";

// ---- command line ------------------------------------------------------------

// The enum options' text, parsed after po::notify.
struct enum_texts {
  std::string device, kernel, pull, loop, accelerate, reorder;
};

void add_solver_options(po::options_description& o, pagerank_options& opt, enum_texts& e) {
  // clang-format off
  o.add_options()
    ("alpha,a", po::value(&opt.alpha)->default_value(opt.alpha, format_g(opt.alpha)), "damping factor, in [0, 1)")
    ("tol,t", po::value(&opt.tol)->default_value(opt.tol, format_g(opt.tol)),
     "stop when the L1 norm of the change of r is below this (not scaled by the vertex count); below 2, "
     "the most that change can be")
    ("max-iter,m", po::value(&opt.max_iter)->default_value(opt.max_iter), "at most this many iterations (>= 1)")
    ("device,d", po::value(&e.device)->default_value(std::string(name(opt.device))),
     "auto | cpu | cuda; auto: the one predicted to finish first (CUDA context, transfer and solve "
     "against the CPU's conversion and solve, from the graph's size, the thread count and the "
     "iterations of the last solve of this graph and setting, kept beside its cache entry); a GPU "
     "--kernel or --pull named takes the GPU, and fails without one")
    ("kernel,k", po::value(&e.kernel)->default_value("auto"),
     ("SpMV kernel: " + spmv_kernel_names() + "; cpu forces the CPU path").c_str())
    ("pull", po::value(&e.pull)->default_value(std::string(name(opt.pull))),
     ("GPU step: spmv (the --kernel SpMV, then an update kernel) | fused (one kernel per iteration "
      "pulling over the pattern of an unweighted graph with the update fused, vertices relabelled by "
      "in-degree; faster per iteration on power-law graphs, cheaper to set up) | persistent (the "
      "fused pull's iterations in one kernel per solve: no relaunch per iteration) | auto (for an "
      "unweighted graph with no --kernel named: a model of the graph's size, skew and locality and of "
      "x's size against the GPU's L2 picks (the persistent pull under " + std::to_string(persistent_min_links) +
      " links; README), and where it is unsure a trial (--pull-trial); --json's pull_choice says which and "
      "why; spmv for weighted graphs)")
         .c_str())
    ("loop", po::value(&e.loop)->default_value(std::string(name(opt.loop))),
     "GPU convergence loop: graph-while (CUDA graph with a conditional WHILE node, one host sync "
     "per solve) | check-every (one host sync every --check-every iterations) | auto (graph-while "
     "when the SpMV captures into it)")
    ("check-every", po::value(&opt.check_interval)->default_value(opt.check_interval),
     "iterations per host check for --loop check-every, and for --gpus")
    ("graph-unroll", po::value(&opt.graph_unroll)->default_value(opt.graph_unroll),
     "iterations per trip of the WHILE loop for --loop graph-while (results stay exact); 0: chosen "
     "from the measured SpMV time (1 to 8); at most 1024")
    ("accelerate", po::value(&e.accelerate)->default_value(std::string(name(opt.accelerate))),
     "fewer iterations: auto | none | quadratic (quadratic extrapolation of Kamvar et al. 2003 from "
     "the last four iterates) | aitken (Aitken delta^2 per vertex) | rre (reduced rank extrapolation "
     "from the last nine iterates, behind auto's rules: 10-40% fewer iterations than auto on slowly "
     "mixing graphs), applied after every "
     "--accelerate-every plain iterations; auto: quadratic, none "
     "at the end of a run whose next two plain iterations would reach --tol, none after two that left "
     "the residual on its plain course and none after one that left it over four times above the most "
     "plain iterations from the first extrapolation's start could leave (rre too); only plain "
     "iterations decide convergence, so the result meets --tol as without it (CPU and every GPU "
     "pull; the persistent pull extrapolates inside its kernel, and runs its fused steps for aitken)")
    ("accelerate-every", po::value(&opt.accelerate_every)->default_value(opt.accelerate_every),
     "plain iterations per extrapolation for --accelerate (>= 4)");
  // clang-format on
}

po::options_description make_options(settings& s, enum_texts& e) {
  po::options_description o(usage_text);
  o.add_options()("help,h", "print this help and exit");
  add_solver_options(o, s.opt, e);
  // clang-format off
  o.add_options()
    ("precision,p", po::value(&s.precision)->default_value(s.precision),
     "float | double: storage and SpMV arithmetic; reductions are double either way")
    ("weighted,w", po::bool_switch(&s.weighted),
     "use the matrix values as arc weights (duplicates summed); negative or NaN weights are errors")
    ("undirected,u", po::bool_switch(&s.input.undirected),
     "the graph is undirected: every arc is taken both ways (SNAP's com-*, roadNet-* and ca-* edge "
     "lists store each edge once; a generated graph becomes symmetric); an edge listed both ways is one "
     "edge, but with --weighted it weighs twice (A + A^T, a self-loop once); a symmetric Matrix Market "
     "file is undirected already")
    ("names", po::bool_switch(&s.input.names),
     "an edge list's every vertex is a name, where its first edge gives integer ids too ('1 2' then "
     "'2 alice'; '007' and '7' differ), numbered in order of first appearance; without it a list is "
     "read by name only where its first edge names its vertices (cached apart from the file's reading by ids)")
    ("bipartite", po::bool_switch(&s.input.bipartite),
     "the two columns of the edge list (a matrix's rows and columns) number two sets of vertices, as "
     "KONECT's bipartite sets ('% bip': users and items, each from 1) do: an arc from the first set to the "
     "second; an edge list's second-column id x becomes x + K, K = largest first-column id - smallest "
     "second-column id + 1 where they overlap (KONECT: the items after the users), a matrix's column j "
     "vertex rows + j; with --undirected, both ways")
    ("personalize", po::value(&s.personalize)->value_name("FILE"),
     "teleport (and dangling) distribution v from FILE instead of uniform ('vertex weight' lines; a "
     "name with blanks in double quotes: '\"Newman, M\" 1')")
    ("initial", po::value(&s.initial)->value_name("FILE"), "start vector from FILE instead of uniform")
    ("top,n", po::value(&s.top)->default_value(s.top), "print the K highest-ranked vertices (0: none)")
    ("output,o", po::value(&s.output)->value_name("FILE"),
     "write every rank to FILE as TSV 'vertex<TAB>rank', one line per vertex in id order "
     "(gzip-compressed where FILE ends in .gz); '-': standard output, the summary (or --json) then goes to "
     "standard error")
    ("plot", po::value(&s.plot)->value_name("FILE.svg"),
     "draw the residual of every iteration (log scale) as an SVG line plot; on the GPU this runs "
     "--loop check-every with --check-every 1 to see each iteration; with --bench, a bar chart of "
     "each solver's microseconds per iteration beside the best SpMV")
    ("pull-trial", po::value(&s.pull_trial)->default_value(s.pull_trial),
     ("auto | on | off: with --pull auto, where the model is unsure (" + std::to_string(persistent_min_links) +
      " to " + std::to_string(band_max_links) + " links, or fewer on as many vertices; to " +
      std::to_string(short_rows_band_max_links) + " in float where every row is short, to " +
      std::to_string(local_band_max_links) +
      " where the graph's own order is local; or where the persistent pull's layout may fit the SMs' "
      "shared memory), time a few steps of the fused, SpMV and persistent pulls on the GPU (the persistent "
      "pull to " + std::to_string(persistent_max_links) + " links or where that layout may fit) and keep the "
      "fastest; "
     "the outcome is kept beside the graph's binary cache entry and reused by the next run. auto: "
     "trial only where it can be kept (a file, the cache on); on: also without; off: the model alone")
         .c_str())
    ("reorder", po::value(&e.reorder)->default_value(std::string(name(s.reorder))),
     "vertex order the solve runs in, computed in parallel on the host: none | rcm (reverse "
     "Cuthill-McKee on the graph made undirected: linked vertices get nearby ids, so the gathers of x "
     "hit cache) | dbg (degree-based grouping: the vertices whose rank the most others pull (most "
     "out-links) first, in 8 groups by out-degree, each group in the input's order; cheap). Its time "
     "and the locality of the links before and after are reported; results are in the graph's own ids "
     "either way (single-process solves only)")
    ("json", po::bool_switch(&s.json),
     "print the summary and the top vertices as JSON on stdout (not with --sources, --bench-sources or "
     "--bench-dist)")
    ("bench", po::bool_switch(&s.bench),
     "benchmark on the GPU: every SpMV kernel on P^T, perron's solver and a naive cuSPARSE "
     "baseline on the same graph (uses --alpha, --tol, --max-iter, --precision); with --json one "
     "line of JSON for the corpus benchmark (scripts/pagerank-corpus.sh): graph statistics, each "
     "kernel and pull, auto's choice and the baseline, in float and double")
    ("bench-runs", po::value(&s.bench_runs)->default_value(s.bench_runs),
     "timed repetitions per measurement in --bench")
    ("gpus", po::value(&s.gpus)->value_name("N"),
     "solve on N GPUs of this machine from one process, each owning a vertex range of equal cost (links "
     "+ --row-cost x vertices), exchanging ranks by NCCL broadcasts; each GPU pulls its rows with an SpMV plan "
     "(--kernel, or auto's trial on those rows); a generated graph past 2^31 links is built as one piece per "
     "GPU chunk, never whole (libnccl.so.2 loaded at run time: put its folder on LD_LIBRARY_PATH)")
    ("row-cost", po::value(&s.gpus_cut.row_cost)->value_name("L")->default_value(s.gpus_cut.row_cost),
     "with --gpus: what a vertex's row weighs, in links, when the rows are cut over the GPUs at equal cost "
     "(links + L x rows)")
    ("exchange-chunks", po::value(&s.gpus_cut.chunks)->value_name("K"),
     "with --gpus: cut each GPU's rows into K chunks (1-8) of equal cost, the last at half (its exchange is "
     "the one a step waits for), the exchange of each beside the next one's pull; default: one chunk per 32 MB "
     "of ranks "
     "a GPU receives per iteration")
    ("exchange", po::value(&s.exchange)->value_name("MODE")->default_value(s.exchange),
     "under mpirun or with --gpus: how the ranks (GPUs) share the rank vector each iteration: all (every "
     "rank's piece to every rank: an all-gather, or with --gpus chunked broadcasts) | halo (each receives "
     "only the entries its rows read, from lists made before the loop; with --gpus after the whole pull, "
     "one chunk) | auto (halo when it moves at most a quarter of the values all does on one host, half "
     "across hosts: graphs whose links stay near their vertices, such as meshes, roads and web sites); the "
     "ranks are the same either way")
    ("bench-dist", po::bool_switch(&s.bench_dist),
     "benchmark the distributed solve: the CPU one (under mpirun, or alone as one rank), or with --gpus "
     "the GPUs' (CUDA events, the host checking every --check-every iterations): per rank or GPU, the "
     "median compute and communication time per iteration, bytes sent and received per iteration, "
     "GTEPS, as a text table, not with --json (uses --alpha, --tol, --max-iter, --precision; writes "
     "--output if given)")
    ("sources", po::value(&s.batched.sources)->value_name("FILE"),
     "personalized PageRank of every source set in FILE at once (one set per line: vertices as in "
     "GRAPH, each optionally ':weight', e.g. '7 19:0.5', a name with blanks in double quotes: "
     "'\"Newman, M\":2'); prints TSV 'source_line<TAB>vertex<TAB>rank' "
     "of the --top vertices per set (to --output FILE if given)")
    ("output-matrix", po::value(&s.batched.output_matrix)->value_name("FILE"),
     "with --sources: every rank as a Matrix Market array, vertices x sets (gzip-compressed where FILE ends "
     "in .gz; '-': on stdout, the top of each set then on stderr)")
    ("bench-sources", po::value(&s.batched.bench_sources)->value_name("S"),
     "time S personalized solves as one batched solve against S single solves (sources: the first "
     "S sets of --sources, else S random vertices)");
  // clang-format on
  app::add_input_options(o, s.input);
  return o;
}

// The enums from their text, then the solver's own checks (pagerank_options::validate),
// both reported as command-line errors.
void parse_solver_options(pagerank_options& opt, const enum_texts& e) {
  try {
    opt.device = parse_pagerank_device(e.device);
    // "auto" names no kernel: the automatic pull may then choose the fused pull.
    opt.kernel = e.kernel == "auto" ? std::nullopt : std::optional(parse_spmv_kernel(e.kernel));
    opt.pull = parse_pagerank_pull(e.pull);
    opt.loop = parse_pagerank_loop(e.loop);
    opt.accelerate = parse_pagerank_accel(e.accelerate);
    opt.validate();
  } catch (const invalid_argument& x) {
    throw usage_error(x.what());
  }
}

// Every file written must differ from every file read (the data would be
// lost), and from each other; "-" (standard output) at most once.
void check_outputs(const settings& s) {
  // --sources and --output-matrix too: 'pagerank g.mtx --sources s.txt --output-matrix s.txt' (or
  // g.mtx) replaced the file read, and '--output r.tsv --plot ./r.tsv' kept only the plot.
  const std::vector<std::string> inputs = {s.graph, s.personalize, s.initial, s.batched.sources};
  const std::vector<std::pair<std::string_view, std::string>> outputs = {
      {"--plot", s.plot}, {"--output", s.output}, {"--output-matrix", s.batched.output_matrix}};
  try {
    for (const auto& [option, file] : outputs)
      if (!file.empty()) io::check_not_an_input(file, inputs, option);
    io::check_distinct_outputs(outputs);
    // '--output - --output-matrix -' wrote the top of each set and the matrix into one stream.
    io::check_one_standard_output(outputs);
  } catch (const invalid_argument& x) {
    throw usage_error(x.what());
  }
  if (!s.plot.empty() && s.plot == s.output) throw usage_error("--plot and --output name the same file");
  if (!s.plot.empty()) check_plot_name(s.plot);
}

// Each file to be written, checked before the graph is read (a folder that
// is missing or not writable, a folder named as the file): they were found
// when written, after the load and the solve (4.4 s of rmat:19 lost), where
// heat1d and spmv-bench check theirs first.
void check_output_paths(const settings& s) {
  for (const std::string* f : {&s.output, &s.plot, &s.batched.output_matrix})
    if (!f->empty()) io::check_output_path(*f);
}

// The app's own options and their combinations with the solver's.
void check_app_options(const settings& s) {
  if (s.top < 0) throw usage_error("--top must be at least 0");
  if (s.bench_runs < 1) throw usage_error("--bench-runs must be at least 1");
  if (s.precision != "float" && s.precision != "double")
    throw usage_error("--precision must be float or double");
  if (pattern_pull(s.opt.pull) && s.weighted)
    throw usage_error("--pull " + std::string(name(s.opt.pull)) +
                      " needs an unweighted graph (values 1/outdeg); --weighted needs --pull spmv");
  if (s.bench && (s.opt.device == pagerank_device::cpu || s.opt.kernel == spmv_kernel::cpu))
    throw usage_error("--bench measures the GPU; it cannot run with --device cpu or --kernel cpu");
  if (s.bench && !s.output.empty()) throw usage_error("--bench writes no --output (only --plot)");
  if (s.pull_trial != "auto" && s.pull_trial != "on" && s.pull_trial != "off")
    throw usage_error("--pull-trial must be auto, on or off, got '" + s.pull_trial + "'");
  if (extrapolation_named(s.opt.accelerate) && app::batched_mode(s.batched))
    throw usage_error("--accelerate runs in the single solve; it cannot be combined with --sources");
  if (s.bench && s.json && !s.plot.empty()) throw usage_error("--bench --json writes no --plot");
  if (s.reorder != vertex_order::none && (s.bench || app::batched_mode(s.batched)))
    throw usage_error("--reorder runs in the single solve; it cannot be combined with --bench or --sources");
  if (s.input.bipartite && s.input.names)
    throw usage_error(
        "--bipartite reads two sets of vertices numbered by integer ids; --names reads one set "
        "of names");
  if (s.input.bipartite && io::is_synthetic_spec(s.graph))
    throw usage_error(
        "--bipartite reads the two columns of a file as two sets; a generated graph's vertices "
        "are one set (bip:U:I:M generates users and items apart)");
  check_outputs(s);
}

// --gpus and --bench-dist against the other options (the distributed modes).
void check_dist_options(const settings& s) {
  if (s.gpus < 0) throw usage_error("--gpus must be at least 1");
  // The timings are a text table on stdout; --json's summary would follow it
  // there, and stdout would parse as no JSON.
  if (s.bench_dist && s.json)
    throw usage_error("--json does not apply to --bench-dist, whose timings are a text table");
  if (s.gpus > 0 && (s.bench || app::batched_mode(s.batched) || s.opt.device == pagerank_device::cpu ||
                     (s.opt.kernel && !on_gpu(*s.opt.kernel)) || s.opt.pull == pagerank_pull::fused ||
                     s.opt.pull == pagerank_pull::persistent || extrapolation_named(s.opt.accelerate)))
    throw usage_error(
        "--gpus runs its own GPU step (an SpMV pull, --kernel naming its kernel): it cannot be combined "
        "with --bench, --sources, --device cpu, --kernel cpu, --pull fused or persistent, or --accelerate");
}

// Returns false when --help was asked for (help already printed).
bool parse_command_line(int argc, char** argv, settings& s) {
  enum_texts e;
  po::options_description visible = make_options(s, e);
  po::options_description all;
  all.add(visible);
  all.add_options()("graph", po::value<std::string>(&s.graph));
  po::variables_map vm;
  store_command_line(argc, argv, all, vm, "graph", 1, "pagerank reads one GRAPH");
  if (vm.count("help")) {
    std::cout << visible << exit_text;
    return false;
  }
  po::notify(vm);
  if (s.graph.empty())
    throw usage_error(
        "missing GRAPH (a .mtx, .mtx.gz, .tar.gz, .txt, .csv or .txt.gz file, or a spec such as "
        "rmat:20:10000000)");
  // '-' is standard input, as Unix tools read it ('cat g.mtx | pagerank -'
  // said "-: no such file"); the load reads a pipe to its end, and under
  // mpirun rank 0 reads it whole (apps/common/dist_load).
  if (s.graph == "-") s.graph = "/dev/stdin";
  // So for --personalize, --initial and --sources ("-: no such file" before);
  // one of them at most, as the pipe holds one text.
  int from_stdin = s.graph == "/dev/stdin";
  for (std::string* f : {&s.personalize, &s.initial, &s.batched.sources}) {
    if (*f == "-") *f = "/dev/stdin";
    from_stdin += *f == "/dev/stdin";
  }
  if (from_stdin > 1)
    throw usage_error("standard input ('-' or /dev/stdin) can feed one input, but " +
                      std::to_string(from_stdin) +
                      " of GRAPH, --personalize, --initial and --sources name it");
  // A file as standard input is read from its start (/dev/stdin opens it
  // anew): where the shell had read into it ('{ read l; pagerank -; } < g')
  // its whole text was taken for the rest of it.
  struct stat in {};
  if (const off_t at = from_stdin ? ::lseek(0, 0, SEEK_CUR) : 0;
      at > 0 && ::fstat(0, &in) == 0 && S_ISREG(in.st_mode))
    throw usage_error("standard input is a file already read up to byte " + std::to_string(at) +
                      ", and perron reads a file from its start: pass the rest through a pipe ('tail -c +" +
                      std::to_string(at + 1) + " FILE | pagerank -') or the file by name");
  // A file option given an empty name ("--output $UNSET") is refused, not taken as left out.
  for (const char* o : {"personalize", "initial", "output", "plot", "sources", "output-matrix"})
    if (vm.count(o) && vm[o].as<std::string>().empty())
      throw usage_error(std::string("--") + o + " needs a file name, got an empty one");
  if (!s.batched.output_matrix.empty() && s.batched.sources.empty())
    throw usage_error("--output-matrix writes the ranks of every set of --sources; it needs --sources FILE");
  if (vm.count("bench-sources") && s.batched.bench_sources < 1)
    throw usage_error("--bench-sources must be at least 1, got " + std::to_string(s.batched.bench_sources));
  // '--output /dev/stdout' is '--output -' (as heat1d's and spmv-bench's): the
  // summary (or --json's) went after the ranks in the same stream, and
  // '--output - --plot /dev/stdout' wrote the ranks and the SVG into it.
  for (std::string* f : {&s.output, &s.plot, &s.batched.output_matrix})
    if (!f->empty() && io::names_standard_output(*f)) *f = "-";
  parse_solver_options(s.opt, e);
  try {
    s.reorder = parse_vertex_order(e.reorder);
  } catch (const invalid_argument& x) {
    throw usage_error(std::string("--reorder: ") + x.what());
  }
  check_app_options(s);
  // Settings that something else named makes moot: refused, as --pull fused
  // beside --device cpu is (each was dropped without a word: --json said
  // "loop": "host" for --device cpu --loop check-every).
  if (s.opt.device == pagerank_device::cpu || s.opt.kernel == spmv_kernel::cpu)
    for (const char* o : {"loop", "check-every", "graph-unroll", "pull-trial"})
      if (!vm[o].defaulted() && !(std::string(o) == "check-every" && vm.count("gpus")))
        throw usage_error(std::string("--") + o + " sets the GPU's solve; it cannot run with " +
                          (s.opt.device == pagerank_device::cpu ? "--device cpu" : "--kernel cpu"));
  if (!vm["bench-runs"].defaulted() && !s.bench) throw usage_error("--bench-runs needs --bench");
  if (s.bench_dist && !vm["top"].defaulted())
    throw usage_error(
        "--bench-dist prints its table in place of the summary and its top list; --top has "
        "nowhere to go (--output writes the ranks)");
  s.input.weighted = s.weighted;
  // --gpus 0 is not "no --gpus": 0 is the unset value, so refuse it here.
  if (vm.count("gpus") && s.gpus < 1) throw usage_error("--gpus must be at least 1");
  for (const char* o : {"exchange-chunks", "row-cost"})
    if (!vm[o].defaulted() && vm.count(o) && s.gpus == 0)
      throw usage_error(std::string("--") + o + " needs --gpus");
  if (s.gpus_cut.chunks < 0 || s.gpus_cut.chunks > dist::max_exchange_chunks)
    throw usage_error("--exchange-chunks must be 0 (automatic) to " +
                      std::to_string(dist::max_exchange_chunks) + ", got " +
                      std::to_string(s.gpus_cut.chunks));
  if (!(s.gpus_cut.row_cost >= 0 && s.gpus_cut.row_cost <= 1e6))
    throw usage_error("--row-cost must be a number of links from 0 to 1e6, got " +
                      format_g(s.gpus_cut.row_cost));
  if (s.exchange != "auto" && s.exchange != "all" && s.exchange != "halo")
    throw usage_error("--exchange must be auto, all or halo, got '" + s.exchange + "'");
  if (!vm["exchange"].defaulted() && s.gpus == 0 && !s.bench_dist && !dist::launched())
    throw usage_error("--exchange needs mpirun, --bench-dist or --gpus: one process exchanges nothing");
  if (s.exchange == "halo" && s.gpus_cut.chunks > 1)
    throw usage_error(
        "--exchange halo sends r after each GPU's whole pull, in one chunk: not with "
        "--exchange-chunks " +
        std::to_string(s.gpus_cut.chunks));
  s.gpus_cut.exchange = s.exchange == "halo"  ? dist::exchange_kind::halo
                        : s.exchange == "all" ? dist::exchange_kind::all
                                              : dist::exchange_kind::automatic;
  check_dist_options(s);
  return true;
}

// ---- output helpers ----------------------------------------------------------------

template <class T>
constexpr int rank_digits() {
  return std::numeric_limits<T>::max_digits10;  // every stored bit of the rank
}

// Through io::output_file: a failed or interrupted run leaves any earlier
// file as it was; write errors are caught at commit().
template <class T>
void write_ranks(const std::string& path, const io::loaded_matrix& graph, const rank_vector& rank) {
  io::output_file out(path);
  // "vertex\trank\n" a line, formatted on every core (io::write_lines).
  const vertex_naming naming = graph.naming();
  io::write_lines(out, rank.size(), [&](std::size_t first, std::size_t last, std::string& text) {
    text.reserve((last - first) * 32);
    for (std::size_t i = first; i < last; ++i) {
      naming.append_field(text, static_cast<index_t>(i));  // quoted where --initial needs it to read it back
      text += '\t';
      io::append_g(text, rank[i], rank_digits<T>());
      text += '\n';
    }
  });
  out.commit();
}

// The summary's stream flushed here, where a failed write's reason (a full
// disk) is known: standard output through flush_standard_output (its error),
// standard error as it goes.
void flush_summary(std::ostream& o) {
  if (&o == &std::cout)
    flush_standard_output();
  else
    o.flush();
}

// A graph's name in a plot's title: the file name without its folders.
std::string plot_name(const std::string& graph) { return std::filesystem::path(graph).filename().string(); }

// The residual after each iteration, log scale.
void write_residual_plot(const std::string& path, const std::string& graph,
                         const std::vector<std::pair<int, double>>& history) {
  plot_series r;
  r.label = "||r_k - r_(k-1)||_1";
  for (const auto& [k, res] : history) {
    r.x.push_back(k);
    r.y.push_back(res);
  }
  plot_options po;
  po.title = "PageRank residual: " + graph;
  po.x_label = "iteration";
  po.y_label = "residual (L1)";
  po.log_y = true;
  write_svg_line_plot(path, {r}, po);
}

// --bench --plot: one bar per solver (microseconds per iteration), the best
// SpMV first as the yardstick, the baseline last.
void write_bench_plot(const std::string& path, const std::string& what,
                      const bench::pagerank_suite_result& r) {
  std::vector<plot_bar> bars;
  bars.push_back({"best SpMV alone (" + r.best_kernel + ")", r.best_spmv_us, "#999999"});
  for (const auto& row : r.rows)
    bars.push_back({row.solver, row.us_per_iteration, row.baseline ? "#D55E00" : ""});
  plot_options po;
  po.title = "PageRank, microseconds per iteration: " + what;
  po.x_label = "us per iteration (perron: marginal device time; baseline: wall / iterations)";
  write_svg_bar_chart(path, bars, po);
}

struct timings {
  double load = 0, convert = 0, reorder = 0, transfer = 0, solve = 0, output = 0, total = 0;
  bool convert_on_gpu = false;  // COO -> CSR of P^T sorted on the GPU
  // The CUDA context's creation (cuda::context_start, begun before the load):
  // its own duration and the driver's share (when it finished while this run
  // looked), and how long the solve waited for it after the load.
  bool context_started = false, context_ready = false;
  double context = 0, driver = 0, context_wait = 0;
  std::vector<setup_phase> setup;         // where the GPU's "transfer" went (pagerank_cuda::setup_phases)
  std::vector<setup_phase> solve_phases;  // where the GPU's "solve" went (pagerank_result::solve_phases)
};

// Where the solve runs and why: the summary's device line, "device_choice" in --json.
struct device_plan {
  bool gpu = false;
  bool convert_on_gpu = false;  // for a GPU run: convert there, else on the host during the wait
  std::string reason;           // "--device cpu", "auto: predicted cpu 0.12 s, cuda 0.31 s ..."
  int expected_iterations = 0;
  bool iterations_known = false;            // expected_iterations is the last solve's count, not the bound
  double local_links = 0;                   // device_facts::local_links, as the model read it
  std::optional<device_estimate> estimate;  // absent for the distributed solve (mpirun)
};

// --reorder: the permutation the solve ran in, its cost and the gathers' locality
// before and after (kernels/reorder.hpp locality_of, on P^T).
struct reorder_report {
  vertex_order order = vertex_order::none;
  permutation perm;
  locality_stats before, after;
  double locality_seconds = 0;  // measuring before and after (not part of the reorder's time)
};

// Where the input was read as two sets (--bipartite): where the second starts.
std::string bipartite_text(const io::loaded_matrix& g) {
  if (g.first_set <= 0) return "";
  return ", bipartite: the first " + std::to_string(g.first_set) + " vertices, then the second set from id " +
         g.naming()(g.first_set);
}

std::string format_name(const io::loaded_matrix& g) {
  const std::string undirected = (g.undirected && !g.symmetric ? ", undirected" : "") + bipartite_text(g);
  if (g.format == io::input_format::snap)
    return std::string(g.pattern ? "edge list" : "edge list with weights") +
           (g.name.empty() ? "" : ", vertex names") + undirected;
  if (g.format == io::input_format::synthetic)
    return (g.pattern ? "generated graph" : "generated matrix") + undirected;
  if (g.format == io::input_format::graphml || g.format == io::input_format::gml ||
      g.format == io::input_format::pajek) {
    const char* kind = g.format == io::input_format::graphml ? "GraphML"
                       : g.format == io::input_format::gml   ? "GML"
                                                             : "Pajek";
    return std::string(kind) + (g.pattern ? "" : " with weights") + (g.name.empty() ? "" : ", vertex names") +
           (g.symmetric || g.undirected ? ", undirected" : "");
  }
  return std::string("Matrix Market") + (g.pattern ? ", pattern" : "") +
         (g.skew        ? ", skew-symmetric"
          : g.symmetric ? ", symmetric"
                        : "") +
         undirected;
}

std::string device_text(const pagerank_result& r) {
  if (r.on_gpu) return "cuda: " + cuda::device_description(0);
  return "cpu (" + std::to_string(omp_get_max_threads()) + " OpenMP threads)";
}

// " (layout 0.012 s, layout trials 0.009 s, buffers 0.002 s)", or "" for none.
std::string setup_text(const std::vector<setup_phase>& phases) {
  std::string text;
  for (const setup_phase& p : phases)
    text += (text.empty() ? " (" : ", ") + p.name + " " + format_g(p.seconds, 3) + " s";
  return text.empty() ? text : text + ")";
}

// "load 0.005 s, context 0.23 s (driver 0.11 s, waited 0.2 s), convert 0.04 s, ...":
// the phases in the order they ran; the context overlaps the load.
std::string time_text(const settings& s, const timings& t) {
  const auto sec = [](double x) { return format_g(x, 3) + " s"; };
  std::string c;
  if (t.context_started)
    c = ", context " + (t.context_ready ? sec(t.context) + " (driver " + sec(t.driver) + ", waited " +
                                              sec(t.context_wait) + ")"
                                        : std::string("not waited for"));
  return "load " + sec(t.load) + c + ", convert " + sec(t.convert) + (t.convert_on_gpu ? " (GPU)" : "") +
         (s.reorder == vertex_order::none ? "" : ", reorder " + sec(t.reorder)) + ", transfer " +
         sec(t.transfer) + setup_text(t.setup) + ", solve " + sec(t.solve) + setup_text(t.solve_phases) +
         (s.output.empty() ? "" : ", output " + sec(t.output)) + ", total " + sec(t.total);
}

// What the summary needs of a graph held apart (distributed, or in pieces).
struct graph_counts {
  index_t n = 0, dangling_count = 0;
  std::uint64_t l = 0;
  index_t vertices() const { return n; }
  std::uint64_t links() const { return l; }
};

template <class T, class Graph>  // pagerank_graph<T>, or graph_counts (distributed)
void print_summary(std::ostream& o, const settings& s, const io::loaded_matrix& graph, const Graph& g,
                   const pagerank_result& r, const timings& t, const device_plan& plan,
                   const reorder_report* reorder = nullptr) {
  const auto line = [&](const char* key, const std::string& value) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%-12s", key);
    o << buf << value << '\n';
  };
  line("graph", one_line(s.graph) + " (" + format_name(graph) + (s.weighted ? ", weighted" : "") + ")");
  line("vertices", std::to_string(g.vertices()));
  line("links", std::to_string(g.links()));
  line("dangling", std::to_string(g.dangling_count));
  line("device", device_text(r) + (plan.reason.empty() ? "" : "; " + plan.reason));
  if (!s.dist_note.empty()) line("distributed", s.dist_note);
  const bool auto_kernel = !s.opt.kernel || *s.opt.kernel == spmv_kernel::automatic;
  line("kernel", pattern_pull(r.pull)
                     ? kernel_text(r.pull, r.kernel) + " (" + std::to_string(r.hub_entries) +
                           " entries of x in shared memory, " + (r.index16 ? "16" : "32") +
                           "-bit index: " + format_g(r.index_bytes_per_link, 3) + " bytes per link)"
                     : kernel_text(r.pull, r.kernel) + (r.on_gpu && auto_kernel ? " (auto)" : ""));
  if (r.on_gpu && !r.pull_decision.empty())
    line("pull", std::string(name(r.pull)) + " (" + r.pull_decision +
                     (r.trial_seconds > 0 ? ", trial " + format_g(r.trial_seconds * 1e3, 3) + " ms" : "") +
                     ")");
  if (reorder) {
    const locality_stats &b = reorder->before, &a = reorder->after;
    line("reorder", std::string(name(reorder->order)) + ", " + format_g(t.reorder, 3) + " s; mean |i - j| " +
                        format_g(b.mean_gap, 4) + " -> " + format_g(a.mean_gap, 4) + ", |i - j| < " +
                        std::to_string(a.window) + ": " + format_g(100 * b.within_window, 3) + "% -> " +
                        format_g(100 * a.within_window, 3) + "% of links, gathers hitting a " +
                        std::to_string(locality_cache_bytes >> 20) + " MiB cache: " +
                        format_g(100 * b.cache_hits, 3) + "% -> " + format_g(100 * a.cache_hits, 3) +
                        "% (measured in " + format_g(reorder->locality_seconds, 3) + " s)");
  }
  line("precision", s.precision);
  line("alpha", format_g(s.opt.alpha, 15));  // 0.99999999999 is not 1 (which is refused)
  line("tol", format_g(s.opt.tol));
  line("iterations", std::to_string(r.iterations));
  line("residual", format_g(r.residual, 4));
  line("converged", r.converged ? "yes" : "no (reached --max-iter " + std::to_string(s.opt.max_iter) + ")");
  if (r.accelerate != pagerank_accel::none)
    line("accelerate", std::string(name(r.accelerate)) + " every " + std::to_string(s.opt.accelerate_every) +
                           " iterations, " + std::to_string(r.extrapolations) + " extrapolations" +
                           (r.extrapolations_rejected ? ", 1 rejected (no more after it)" : "") +
                           (r.converged ? " (iterations counts plain steps; a plain step met --tol)"
                                        : " (iterations counts plain steps; a plain step ended the solve)"));
  if (r.on_gpu) {
    line("loop", std::string(name(r.loop)) +
                     (r.graph_unroll > 0 ? " (" + std::to_string(r.graph_unroll) + " steps per trip)" : "") +
                     ", " + std::to_string(r.host_syncs) + " host sync" + (r.host_syncs == 1 ? "" : "s") +
                     (r.loop_note.empty() ? "" : " (" + r.loop_note + ")"));
  }
  line("load", app::describe_load(graph.timings));
  line("time", time_text(s, t));
  if (!s.output.empty()) line("output", s.output);
  const auto top = top_of(r.rank.data(), static_cast<index_t>(r.rank.size()), s.top);
  if (top.empty()) return;
  o << "\ntop " << top.size() << " vertices\n";
  char buf[128];
  std::snprintf(buf, sizeof buf, "%6s  %12s  %s\n", "#", "vertex", "pagerank");
  o << buf;
  const vertex_naming naming = graph.naming();
  for (std::size_t k = 0; k < top.size(); ++k) {
    // A name may be longer than the column (or than buf): it pushes the rank right.
    std::snprintf(buf, sizeof buf, "%6zu  ", k + 1);
    const std::string who = one_line(naming(top[k]));  // a line break in a label as \x0a: one row a vertex
    o << buf << std::string(who.size() < 12 ? 12 - who.size() : 0, ' ') << who;
    std::snprintf(buf, sizeof buf, "  %.*g\n", rank_digits<T>(), r.rank[top[k]]);
    o << buf;
  }
}

// {"asked": "auto", "chosen": "cpu", "reason": ..., "expected_iterations": K,
//  "iterations_from": "last solve" | "bound",
//  "threads": p, "predicted": {seconds per phase and device}}
std::string device_choice_json(const settings& s, const device_plan& plan) {
  std::string j = "{\"asked\": \"" + std::string(name(s.opt.device)) + "\", \"chosen\": \"" +
                  (plan.gpu || s.gpus > 0 ? "cuda" : "cpu") + "\", \"reason\": \"" +
                  json_escape(plan.reason) + "\", \"threads\": " + std::to_string(omp_get_max_threads());
  if (const auto& e = plan.estimate) {
    const auto f = [](double x) { return format_g(x, 4); };
    j += ", \"expected_iterations\": " + std::to_string(plan.expected_iterations) +
         ", \"iterations_from\": \"" + (plan.iterations_known ? "last solve" : "bound") + "\"" +
         ", \"local_links\": " + f(plan.local_links) + ", \"cuda_convert_on\": \"" +
         (e->convert_on_gpu ? "cuda" : "cpu") + "\", \"predicted\": {\"cpu\": " + f(e->cpu) +
         ", \"cpu_convert\": " + f(e->cpu_convert) + ", \"cpu_solve\": " + f(e->cpu_solve) +
         ", \"cuda\": " + f(e->gpu) + ", \"context_left\": " + f(e->context_left) +
         ", \"cuda_convert\": " + f(e->gpu_convert) + ", \"cuda_setup\": " + f(e->gpu_setup) +
         ", \"cuda_solve\": " + f(e->gpu_solve) + "}";
  }
  return j + "}";
}

// The process's peak resident memory so far (getrusage; Linux counts KiB).
long long peak_rss_bytes() {
  rusage u{};
  ::getrusage(RUSAGE_SELF, &u);
  return static_cast<long long>(u.ru_maxrss) * 1024;
}

// {"order": "rcm", "seconds": s, "mean_gap": [before, after], "within_window": [before, after],
//  "window": w, "cache_hits": [before, after], "cache_bytes": c} (kernels/reorder.hpp locality_of);
// the order alone for none.
std::string reorder_json(const settings& s, const timings& t, const reorder_report* r) {
  std::string j =
      "{\"order\": \"" + std::string(name(s.reorder)) + "\", \"seconds\": " + format_g(t.reorder, 6);
  if (r)
    j += ", \"mean_gap\": [" + format_g(r->before.mean_gap, 6) + ", " + format_g(r->after.mean_gap, 6) +
         "], \"within_window\": [" + format_g(r->before.within_window, 6) + ", " +
         format_g(r->after.within_window, 6) + "], \"window\": " + std::to_string(r->after.window) +
         ", \"cache_hits\": [" + format_g(r->before.cache_hits, 6) + ", " + format_g(r->after.cache_hits, 6) +
         "], \"cache_bytes\": " + std::to_string(locality_cache_bytes) +
         ", \"locality_seconds\": " + format_g(r->locality_seconds, 6);
  return j + "}";
}

template <class T, class Graph>  // pagerank_graph<T>, or graph_counts (distributed)
void print_json(std::ostream& o, const settings& s, const io::loaded_matrix& graph, const Graph& g,
                const pagerank_result& r, const timings& t, const device_plan& plan,
                const reorder_report* reorder = nullptr) {
  const auto str = [](const std::string& x) { return "\"" + json_escape(x) + "\""; };
  o << "{\n";
  o << "  \"graph\": " << str(s.graph) << ",\n";
  o << "  \"format\": " << str(format_name(graph)) << ",\n";
  o << "  \"weighted\": " << (s.weighted ? "true" : "false") << ",\n";
  o << "  \"undirected\": " << (graph.undirected || graph.symmetric ? "true" : "false") << ",\n";
  if (graph.first_set > 0)
    o << "  \"bipartite\": {\"first_set\": " << graph.first_set
      << ", \"second_from\": " << graph.naming().json(graph.first_set) << "},\n";
  else
    o << "  \"bipartite\": false,\n";
  o << "  \"vertices\": " << g.vertices() << ",\n";
  o << "  \"links\": " << g.links() << ",\n";
  o << "  \"dangling\": " << g.dangling_count << ",\n";
  o << "  \"device\": " << str(r.on_gpu ? "cuda" : "cpu") << ",\n";
  o << "  \"device_name\": " << str(device_text(r)) << ",\n";
  o << "  \"device_choice\": " << device_choice_json(s, plan) << ",\n";
  if (!s.dist_note.empty()) o << "  \"distributed\": " << str(s.dist_note) << ",\n";
  o << "  \"kernel\": " << str(kernel_text(r.pull, r.kernel)) << ",\n";
  o << "  \"hub_entries\": " << r.hub_entries << ",\n";
  o << "  \"index_bits\": " << (pattern_pull(r.pull) ? (r.index16 ? "16" : "32") : "null") << ",\n";
  o << "  \"index_bytes_per_link\": " << r.index_bytes_per_link << ",\n";
  o << "  \"ranks_sent\": " << r.ranks_sent << ",\n";
  o << "  \"kernel_reason\": " << str(r.kernel_reason) << ",\n";
  // How the pull and kernel were decided: "named", "model", "trial: ..." or "cached trial: ...".
  o << "  \"pull_choice\": {\"pull\": " << str(std::string(name(r.pull)))
    << ", \"kernel\": " << str(kernel_text(r.pull, r.kernel))
    << ", \"reason\": " << (r.on_gpu ? str(r.pull_decision) : "null")
    << ", \"trial_ms\": " << format_g(r.trial_seconds * 1e3, 4) << "},\n";
  o << "  \"reorder\": " << reorder_json(s, t, reorder) << ",\n";
  o << "  \"precision\": " << str(s.precision) << ",\n";
  o << "  \"alpha\": " << format_g(s.opt.alpha, 15) << ",\n";
  o << "  \"tol\": " << format_g(s.opt.tol, 15) << ",\n";
  o << "  \"max_iter\": " << s.opt.max_iter << ",\n";
  o << "  \"personalized\": " << (s.personalize.empty() ? "false" : "true") << ",\n";
  o << "  \"iterations\": " << r.iterations << ",\n";
  o << "  \"residual\": " << json_number(r.residual) << ",\n";
  o << "  \"converged\": " << (r.converged ? "true" : "false") << ",\n";
  o << "  \"accelerate\": " << str(std::string(name(r.accelerate))) << ",\n";
  o << "  \"accelerate_every\": " << s.opt.accelerate_every << ",\n";
  o << "  \"extrapolations\": " << r.extrapolations << ",\n";
  o << "  \"extrapolations_rejected\": " << r.extrapolations_rejected << ",\n";
  o << "  \"loop\": " << str(std::string(name(r.loop))) << ",\n";
  o << "  \"loop_note\": " << str(r.loop_note) << ",\n";
  o << "  \"graph_unroll\": " << r.graph_unroll << ",\n";
  o << "  \"host_syncs\": " << r.host_syncs << ",\n";
  o << "  \"host_syncs_per_iteration\": "
    << format_g(r.iterations ? static_cast<double>(r.host_syncs) / r.iterations : 0.0, 6) << ",\n";
  o << "  \"load\": " << app::load_json(graph.timings) << ",\n";
  o << "  \"convert_on\": " << str(t.convert_on_gpu ? "cuda" : "cpu") << ",\n";
  o << "  \"seconds\": {\"load\": " << format_g(t.load, 6)
    << ", \"context\": " << (t.context_ready ? format_g(t.context, 6) : "null")
    << ", \"driver\": " << (t.context_ready ? format_g(t.driver, 6) : "null")
    << ", \"context_wait\": " << format_g(t.context_wait, 6) << ", \"convert\": " << format_g(t.convert, 6)
    << ", \"reorder\": " << format_g(t.reorder, 6) << ", \"transfer\": " << format_g(t.transfer, 6)
    << ", \"transfer_phases\": {";
  for (std::size_t k = 0; k < t.setup.size(); ++k) {
    std::string key = t.setup[k].name;
    std::replace(key.begin(), key.end(), ' ', '_');
    o << (k ? ", " : "") << str(key) << ": " << format_g(t.setup[k].seconds, 6);
  }
  o << "}"
    << ", \"solve\": " << format_g(t.solve, 6) << ", \"solve_phases\": {";
  for (std::size_t k = 0; k < t.solve_phases.size(); ++k)
    o << (k ? ", " : "") << str(t.solve_phases[k].name) << ": " << format_g(t.solve_phases[k].seconds, 6);
  o << "}"
    << ", \"device\": " << format_g(r.device_seconds, 6) << ", \"output\": " << format_g(t.output, 6)
    << ", \"total\": " << format_g(t.total, 6) << "},\n";
  o << "  \"peak_rss_bytes\": " << peak_rss_bytes() << ",\n";
  o << "  \"rank_sum\": " << json_number(std::accumulate(r.rank.begin(), r.rank.end(), 0.0)) << ",\n";
  o << "  \"output\": " << (s.output.empty() ? "null" : str(s.output)) << ",\n";
  o << "  \"top\": [";
  const auto top = top_of(r.rank.data(), static_cast<index_t>(r.rank.size()), s.top);
  for (std::size_t k = 0; k < top.size(); ++k)
    o << (k ? ",\n    " : "\n    ") << "{\"vertex\": " << graph.naming().json(top[k]) << ", \"rank\": "
      << (std::isfinite(r.rank[top[k]]) ? format_g(r.rank[top[k]], rank_digits<T>()) : "null") << "}";
  o << (top.empty() ? "]\n" : "\n  ]\n") << "}\n";
}

// ---- the solve ---------------------------------------------------------------------

// The weights of --personalize or --initial FILE (`option`); a file whose
// weights are all zero (one that lists no vertex, too) is refused naming it
// (the solver's own check named only the option).
std::vector<double> vertex_file(const std::string& path, const io::loaded_matrix& graph, const char* option) {
  if (path.empty()) return {};
  std::vector<double> w = io::read_vertex_weights(path, graph.matrix.rows, graph.naming());
  if (std::none_of(w.begin(), w.end(), [](double x) { return x > 0.0; }))
    throw invalid_argument(path + ": all weights are zero (" + option +
                           " needs a vertex of positive weight; an unlisted vertex weighs 0)");
  return w;
}

// Whether the solve may run on the GPU: then driver start-up and the CUDA
// context (a good part of a second) come up on a thread of their own while
// the graph loads (cuda::context_start).
bool may_use_gpu(const settings& s) {
  return s.opt.device != pagerank_device::cpu && s.opt.kernel != spmv_kernel::cpu && !s.dist;
}

// ---- the iterations of the last solve, kept for --device auto ----------------------
// The one fact the device model cannot see in the graph's size is how many
// iterations the solve takes: the bound (expected_iterations) is 1.5-5x the
// count on real graphs, and on the R-MAT graphs near the CPU/GPU crossover it
// decided wrongly (docs/PERFORMANCE.md, "Device choice"). So each solve of a
// file or a generated graph keeps its count beside the graph's cache entry
// (io::side_store; a line per alpha, tol and --accelerate), and the next run
// of the same setting predicts with it. Not for personalized or warm-started
// solves (their counts depend on the vectors).

// The side file's tag and the line's key for s, or "" where no count is kept.
std::pair<std::string, std::string> iterations_note_key(const settings& s) {
  if (!s.personalize.empty() || !s.initial.empty() || s.dist || s.gpus > 0) return {};
  if (app::batched_mode(s.batched)) return {};
  return {"iterations-" + s.precision + (s.weighted ? "-weighted" : "") +
              (s.input.undirected ? "-undirected" : ""),
          "alpha " + format_g(s.opt.alpha, 17) + " tol " + format_g(s.opt.tol, 17) + " accelerate " +
              std::string(name(s.opt.accelerate)) + " iterations "};
}

// The count kept by the last solve of this setting, if any (and sane).
std::optional<int> remembered_iterations(const settings& s) {
  const auto [tag, key] = iterations_note_key(s);
  if (tag.empty()) return std::nullopt;
  return app::remembered_count(s.graph, app::read_options_for(s.input).cache, tag, key, s.opt.max_iter);
}

// Keeps r's count for the next run (this setting's line replaced, others kept,
// at most 16). Only a converged solve's: one that --max-iter stopped says only
// that the graph takes more, and a run without that cap was then predicted
// with the cap's count (2 where the graph takes 51).
void remember_iterations(const settings& s, int iterations, bool converged) {
  const auto [tag, key] = iterations_note_key(s);
  if (tag.empty() || !converged) return;
  app::remember_count(s.graph, app::read_options_for(s.input).cache, tag, key, iterations);
}

bool generate_transposed(const settings& s);

// The key of a file's kept CSR of A^T: one rank of one, unweighted, directed or not.
io::rank_part_key transpose_key(const settings& s) {
  return io::rank_part_key{1, 0, false, s.input.undirected};
}

// Whether this run keeps a file's CSR of A^T in the cache and builds P^T
// from it (kept_transpose, keep_transpose): an unweighted file of one
// process, the cache on.
bool keeps_transpose(const settings& s) {
  return !s.weighted && s.gpus == 0 && !io::is_synthetic_spec(s.graph) &&
         app::read_options_for(s.input).cache.enabled;
}

// The bytes of a file's kept CSR of A^T (kept_transpose reads it, when it is
// still the file's), 0 where there is none.
std::uint64_t transpose_kept(const settings& s) {
  if (!keeps_transpose(s)) return 0;
  const io::read_options ro = app::read_options_for(s.input);
  const std::string dir = io::cache_dir(ro.cache);
  std::error_code ec;
  if (dir.empty() || !std::filesystem::is_regular_file(s.graph, ec)) return 0;
  const auto bytes =
      std::filesystem::file_size(io::rank_cache_file_for(s.graph, transpose_key(s), ro.cache), ec);
  return ec ? 0 : bytes;
}

// The pull trial's record beside the graph's cache entry, one per precision
// (solvers/pagerank_trial.hpp, io::side_load); a reordered graph is another
// graph to the trial.
std::string pull_record_tag(const settings& s) {
  return "pull-" + s.precision + (s.input.undirected ? "-undirected" : "") +
         (s.reorder == vertex_order::none ? "" : "-" + std::string(name(s.reorder)));
}

// Whether a GPU run keeps that record (the cache on, the graph a file or a spec).
bool keeps_pull_record(const settings& s) {
  const io::cache_options cache = app::read_options_for(s.input).cache;
  return cache.enabled && !io::cache_dir(cache).empty() && io::stamp_of(s.graph).has_value();
}

// Whether the GPU's set-up will time its layouts: no record kept by an earlier run.
bool layout_trials_ahead(const settings& s) {
  if (s.pull_trial == "off" || !keeps_pull_record(s)) return true;
  return !io::side_load(s.graph, app::read_options_for(s.input).cache, pull_record_tag(s)).has_value();
}

// The model's facts but for the graph's size (solvers/device_choice.hpp).
device_facts solve_facts(const settings& s) {
  device_facts f;
  f.value_bytes = s.precision == "double" ? 8 : 4;
  // A pattern pull may run (the graph's size decides: solvers/pagerank.hpp choose_pull).
  f.pattern = !s.weighted && !s.opt.kernel && s.opt.pull != pagerank_pull::spmv;
  f.threads = omp_get_max_threads();
  const std::optional<int> known = remembered_iterations(s);
  f.iterations = known ? *known : expected_iterations(s.opt.alpha, s.opt.tol, s.opt.max_iter);
  f.iterations_known = known.has_value();
  f.from_pattern = generate_transposed(s) || transpose_kept(s) > 0;
  f.layout_trials = layout_trials_ahead(s);
  return f;
}

// Before the load, for --device auto: the input's size and load time guessed
// from its cache entry, its file or its synthetic spec; nullopt when there is
// nothing to guess from (the load will say what is wrong).
std::optional<input_guess> guess_graph(const settings& s) {
  const int p = omp_get_max_threads();
  if (io::is_synthetic_spec(s.graph)) {
    if (!io::is_synthetic_graph_spec(s.graph)) return std::nullopt;
    try {
      const io::synthetic_size size = io::synthetic_graph_size(s.graph);
      const std::string family = s.graph.substr(0, s.graph.find(':'));
      return guess_input(input_kind::synthetic, 0, size.arcs, size.vertices, p, device_rates{}, family);
    } catch (const invalid_argument&) {
      return std::nullopt;  // the load says what is wrong
    }
  }
  namespace fs = std::filesystem;
  std::error_code ec;
  const io::read_options ro = app::read_options_for(s.input);
  if (const std::uint64_t kept = transpose_kept(s)) return guess_input(input_kind::transposed, kept, 0, 0, p);
  if (ro.cache.enabled) {
    const std::string dir = io::cache_dir(ro.cache);
    if (!dir.empty() && fs::is_regular_file(s.graph, ec)) {
      const auto bytes = fs::file_size(io::cache_file_for(s.graph, ro.cache), ec);
      if (!ec) return guess_input(input_kind::cache, bytes, 0, 0, p);
    }
  }
  const auto bytes = fs::file_size(s.graph, ec);
  if (ec) return std::nullopt;
  const auto ends = [&](const std::string& x) {
    return s.graph.size() >= x.size() && s.graph.compare(s.graph.size() - x.size(), x.size(), x) == 0;
  };
  const bool gz = ends(".gz") || ends(".tgz");
  return guess_input(gz ? input_kind::gz : input_kind::text, bytes, 0, 0, p);
}

// The links the solve will hold, from a guess: under --undirected each arc
// and its mirror (a kept CSR of A^T holds both already).
std::size_t guessed_links(const settings& s, const input_guess& guess) {
  return guess.links * (s.input.undirected && transpose_kept(s) == 0 ? 2 : 1);
}

// Whether to start the CUDA context at program start: for --device cuda, and
// for auto when the model, on the guessed size, expects the GPU to finish
// first. A context started and then not used costs about its whole creation
// and teardown (docs/PERFORMANCE.md, "Device choice"): auto does not gamble.
bool start_context_now(const settings& s) {
  if (!may_use_gpu(s)) return false;
  if (s.opt.device == pagerank_device::cuda || !gpu_option_named(s.opt).empty()) return true;
  const std::optional<input_guess> guess = guess_graph(s);
  if (!guess) return true;
  device_facts f = solve_facts(s);
  f.links = guessed_links(s, *guess);
  f.vertices = guess->vertices;
  f.load_left = guess->load_seconds;
  f.exit_detached = detached_exit::possible();  // the split comes with the context
  return estimate_devices(f).choose_gpu;
}

// Where the solve runs (solvers/device_choice.hpp has the model), decided
// after the load from the graph's size, the thread count and how far the
// context has come; the context is not waited for here.
// from_pattern: P^T is built in place from a CSR of A^T (a generated graph,
// or a file's kept by an earlier run), not sorted from the arcs. local_links:
// the links' locality in the order as loaded (device_facts::local_links).
device_plan plan_device(const settings& s, const io::loaded_matrix& graph, std::size_t links,
                        bool from_pattern, double local_links, const cuda::context_start& context) {
  device_plan p;
  const pagerank_options& o = s.opt;
  if (s.dist) {
    p.reason = "the distributed CPU solve (mpirun)";
    return p;
  }
  device_facts f = solve_facts(s);
  f.vertices = graph.matrix.rows;
  f.links = links;
  f.from_pattern = from_pattern;
  f.local_links = local_links;
  p.local_links = local_links;
  p.expected_iterations = f.iterations;
  p.iterations_known = f.iterations_known;
  f.context_started = context.started();
  f.context_ready = context.ready();
  f.context_elapsed = context.elapsed();
  f.exit_detached = detached_exit::active();
  p.estimate = estimate_devices(f);
  p.convert_on_gpu = p.estimate->convert_on_gpu;
  // A device named on the command line is used; the prediction is still
  // reported (what auto would have done).
  const std::string named =
      " (auto would take " + auto_would_take(*p.estimate, f.context_ready, context.devices()) + ")";
  if (!may_use_gpu(s)) {
    p.reason = (o.device == pagerank_device::cpu ? "--device cpu" : "--kernel cpu") + named;
  } else if (o.device == pagerank_device::cuda) {
    p.gpu = true;
    p.reason = "--device cuda" + named;
  } else if (const std::string option = gpu_option_named(o); !option.empty()) {
    // No usable GPU: convert_for() says so (pagerank_runs_on_gpu).
    p.gpu = true;
    p.reason = "auto: " + option + " runs on the GPU" + named;
  } else if (!cuda::built()) {
    p.reason = "auto: perron was built without CUDA";  // no prediction of a GPU it cannot use
  } else if (f.context_ready && context.devices() == 0) {
    p.reason = "auto: no usable CUDA device";
  } else {
    // A context not started at program start (the guessed size favoured the
    // CPU) is started now if the real size favours the GPU after all.
    p.gpu = p.estimate->choose_gpu;
    p.reason =
        "auto: " + p.estimate->reason + (f.context_started ? "" : ", context not started before the load");
  }
  return p;
}

template <class T>
pagerank_result run_solver(const settings& s, const pagerank_graph<T>& g, const pagerank_options& opt,
                           bool gpu, timings& t) {
  stopwatch step;
  if (!gpu) {
    pagerank_result r = pagerank_cpu(g, opt);
    t.solve = step.lap();
    return r;
  }
  // The pull trial's outcome lives beside the graph's cache entry, one per
  // precision (solvers/pagerank_trial.hpp, io::side_load).
  const io::cache_options cache = app::read_options_for(s.input).cache;
  const std::string tag = pull_record_tag(s);
  const bool keep = keeps_pull_record(s);
  pull_trial_memo memo;
  memo.may_trial = s.pull_trial == "on" || (s.pull_trial == "auto" && keep);
  memo.expected_iterations =
      remembered_iterations(s).value_or(expected_iterations(opt.alpha, opt.tol, opt.max_iter));
  if (s.pull_trial != "off" && keep) memo.remembered = io::side_load(s.graph, cache, tag).value_or("");
  require_pull_fits(opt.pull, g.vertices());  // before the upload
  pagerank_cuda<T> solver(g, opt.kernel, opt.pull, s.pull_trial == "off" ? nullptr : &memo);  // says why
  t.transfer = step.lap();
  t.setup = solver.setup_phases();
  pagerank_result r = solver.solve(opt);
  t.solve = step.lap();
  t.solve_phases = r.solve_phases;
  if (!memo.record.empty() && keep) io::side_store(s.graph, cache, tag, memo.record);
  return r;
}

// The device, the conversion and the wait for the context, in the order the
// plan gives: a GPU run converts on the host while the context comes up when
// that ends sooner, else on the device after it (the same bits either way).
// A graph generated as the CSR of A^T (at) becomes P^T in place on the host.
template <class T>
pagerank_graph<T> convert_for(const settings& s, const io::loaded_matrix& graph,
                              std::optional<csr_matrix<T>>& at, device_plan& plan,
                              cuda::context_start& context, timings& t) {
  stopwatch step;
  std::optional<pagerank_graph<T>> g;
  if (plan.gpu) context.start();  // late, when only the graph's real size favoured the GPU
  if (at) {
    // A generated graph's rows are sorted and distinct by construction
    // (io::generate_graph_transpose); a kept part was read from a file.
    const transpose_rows rows =
        generate_transposed(s) ? transpose_rows::sorted_unique : transpose_rows::check;
    g = naming_input(s.graph, [&] { return pagerank_graph_from_pattern<T>(std::move(*at), {}, rows); });
    at.reset();
    t.convert = step.lap();
  } else if (!plan.gpu || !plan.convert_on_gpu) {
    g = naming_input(s.graph,
                     [&] { return make_pagerank_graph<T>(graph.matrix, s.weighted, graph.naming(), false); });
    t.convert = step.lap();
  }
  if (plan.gpu) {
    t.context_started = true;
    t.context_wait += context.wait();
    step.restart();
    if (s.opt.device == pagerank_device::automatic && !cuda::available() && gpu_option_named(s.opt).empty()) {
      plan.gpu = false;
      plan.reason = "auto: no usable CUDA device";
    } else {
      pagerank_runs_on_gpu(s.opt);  // cuda_error for --device cuda or a GPU option without a usable GPU
    }
  }
  t.context_ready = context.ready();
  t.context = context.seconds();
  t.driver = context.driver_seconds();
  if (!g) {
    t.convert_on_gpu = plan.gpu;
    g = naming_input(
        s.graph, [&] { return make_pagerank_graph<T>(graph.matrix, s.weighted, graph.naming(), plan.gpu); });
    t.convert = step.lap();
  }
  return std::move(*g);
}

// --exchange-chunks, or the solver's automatic count for this graph.
// How r traveled between ranks or GPUs, for the summary and --bench-dist.
std::string exchange_note(bool halo, std::uint64_t halo_values, std::uint64_t all_values) {
  if (all_values == 0) return "r not exchanged (one part)";
  const std::string share =
      format_g(100.0 * double(halo_values) / double(all_values), 3) + "% of an all-gather's values";
  if (halo)
    return "r shared by halo exchange (" + std::to_string(halo_values) + " values a step, " + share + ")";
  if (halo_values == 0) return "r shared by all-gather";  // the halo not counted (--exchange all, pieces)
  return "r shared by all-gather (a halo exchange would move " + share + ")";
}

template <class T, class Graph>  // pagerank_graph<T>, or graph_counts
int exchange_chunks(const settings& s, const Graph& g) {
  return s.gpus_cut.chunks ? s.gpus_cut.chunks : dist::exchange_chunks(g.vertices(), s.gpus, sizeof(T));
}

// --gpus N (solvers/dist/pagerank_nccl.hpp): the graph's rows split over N GPUs of this process.
template <class T>
pagerank_result solve_on_gpus(const pagerank_graph<T>& g, settings& s, timings& t,
                              std::vector<dist::iteration_stats>* stats) {
  stopwatch step;
  dist::nccl_choice chosen;
  pagerank_result r = dist::pagerank_nccl(g, s.opt, s.gpus, stats, s.gpus_cut, &chosen);
  // The phases as for one GPU: "transfer" the set-up (the split of P^T, the
  // uploads, each GPU's SpMV plan and its trial, NCCL's start), "solve" the loop.
  const double whole = step.lap();
  t.solve = r.solve_seconds;
  t.transfer = std::max(0.0, whole - r.solve_seconds);
  s.dist_note = std::to_string(s.gpus) + " GPU" + (s.gpus == 1 ? "" : "s") + " of one process through NCCL" +
                (chosen.chunks > 1 ? ", rows and exchange in " + std::to_string(chosen.chunks) + " chunks"
                                   : std::string()) +
                "; " + exchange_note(chosen.halo, chosen.halo_values, chosen.all_values);
  return r;
}

double median_of(std::vector<double> x) {
  if (x.empty()) return 0;
  std::sort(x.begin(), x.end());
  return x.size() % 2 ? x[x.size() / 2] : 0.5 * (x[x.size() / 2 - 1] + x[x.size() / 2]);
}

// The iterations after the first (the warm-up: first touches, NCCL's first transfer).
std::vector<double> after_first(const std::vector<double>& x) {
  return std::vector<double>(x.begin() + (x.size() > 1 ? 1 : 0), x.end());
}

// --gpus N --bench-dist: per GPU, the medians of its CUDA-event times; the
// loop's rate from GPU 0's events around the whole loop (launch gaps and the
// host's checks included).
template <class T, class Graph>  // pagerank_graph<T>, or graph_counts (a graph in pieces)
void print_bench_gpus(std::ostream& o, const settings& s, const Graph& g,
                      const std::vector<dist::iteration_stats>& st, const pagerank_result& r) {
  char buf[256];
  o << "distributed PageRank: " << s.graph << ", " << s.gpus << " GPU" << (s.gpus == 1 ? "" : "s")
    << " through NCCL, " << exchange_chunks<T>(s, g) << " chunk(s) a GPU, row cost "
    << format_g(s.gpus_cut.row_cost) << " links, " << s.precision << ", " << g.vertices() << " vertices, "
    << g.links() << " links, " << r.iterations << " iterations, " << r.host_syncs << " host checks (every "
    << s.opt.check_interval << " iterations; medians over iterations 2..)\n";
  std::snprintf(buf, sizeof buf, "%4s %11s %9s %10s %13s %13s\n", "gpu", "compute_ms", "comm_ms", "step_ms",
                "sent_MB/iter", "recv_MB/iter");
  o << buf;
  double slowest = 0, most_compute = 0, most_comm = 0;
  for (std::size_t d = 0; d < st.size(); ++d) {
    std::vector<double> step(st[d].compute_seconds.size());
    for (std::size_t k = 0; k < step.size(); ++k) step[k] = st[d].compute_seconds[k] + st[d].comm_seconds[k];
    const double c = median_of(after_first(st[d].compute_seconds)),
                 m = median_of(after_first(st[d].comm_seconds)), it = median_of(after_first(step));
    slowest = std::max(slowest, it);
    most_compute = std::max(most_compute, c);
    most_comm = std::max(most_comm, m);
    std::snprintf(buf, sizeof buf, "%4zu %11.4f %9.4f %10.4f %13.3f %13.3f\n", d, c * 1e3, m * 1e3, it * 1e3,
                  double(st[d].bytes_sent) / 1e6, double(st[d].bytes_received) / 1e6);
    o << buf;
  }
  const double loop = r.iterations ? r.device_seconds / r.iterations : 0.0;
  std::snprintf(
      buf, sizeof buf,
      "per iteration: %.4f ms (events, slowest GPU: compute at most %.4f ms, communication at most "
      "%.4f ms), %.4f ms (the whole loop on GPU 0 / iterations); %.2f GTEPS (whole loop), %.2f GTEPS "
      "(events)\n",
      slowest * 1e3, most_compute * 1e3, most_comm * 1e3, loop * 1e3,
      loop > 0 ? double(g.links()) / loop / 1e9 : 0.0, slowest > 0 ? double(g.links()) / slowest / 1e9 : 0.0);
  o << buf;
  o << "kernels: " << r.kernel_reason << "\n";
  // Where the loop's time outside the medians goes: iteration 1 (left out of
  // them) and GPU 0's time between its steps (launch gaps, the host's checks).
  if (st.empty() || st[0].compute_seconds.empty()) return;
  double first = 0, steps = 0;
  for (const dist::iteration_stats& d : st)
    first = std::max(first, d.compute_seconds.front() + d.comm_seconds.front());
  for (std::size_t k = 0; k < st[0].compute_seconds.size(); ++k)
    steps += st[0].compute_seconds[k] + st[0].comm_seconds[k];
  const auto timed = static_cast<int>(st[0].compute_seconds.size());
  std::snprintf(buf, sizeof buf,
                "iteration 1: %.4f ms (events, slowest GPU); GPU 0's %d timed steps %.3f ms of the loop's "
                "%.3f ms%s\n",
                first * 1e3, timed, steps * 1e3, r.device_seconds * 1e3,
                timed == r.iterations ? " (the rest: between its steps)" : "");
  o << buf;
}

// ok, or not_converged with the one warning line a user sees (the results are
// still printed and written). A tol under the precision's epsilon is past
// what rounding lets the residual reach on most graphs (||r_new - r||_1 of
// ranks summing to 1, each rounded to eps of itself: wb-cs-stanford in float
// cycles at 1.6e-9 for 1000 steps with --tol 1e-300), so the line says so
// rather than leaving a user to raise --max-iter.
template <class T>
int exit_code(const pagerank_result& r, double tol) {
  if (r.converged) return ok;
  constexpr double eps = std::numeric_limits<T>::epsilon();
  std::cerr << "pagerank: warning: not converged: residual " << format_g(r.residual, 4) << " >= tol "
            << format_g(tol) << " after " << r.iterations << " iterations (--max-iter)";
  if (tol < eps)
    std::cerr << "; tol is below " << (std::is_same_v<T, float> ? "float" : "double") << "'s rounding ("
              << format_g(eps, 3) << "), which the residual may never reach: "
              << (std::is_same_v<T, float> ? "use --precision double or a larger --tol"
                                           : "use a larger --tol");
  std::cerr << '\n';
  return not_converged;
}

// Whether GRAPH is generated straight as the CSR of A^T the build takes
// (io::generate_graph_transpose): a generated graph solved unweighted in one
// process. No COO of A (16 bytes per link: 17 GB on rmat:26:1073741824) and
// no COO -> CSR conversion beside it (37 GB more by make_pagerank_graph's own
// check): the generation's 17 GB is the run's peak (docs/PERFORMANCE.md).
// --gpus takes it too: it splits the rows of that P^T over the GPUs.
// Not undirected: its mirrors come from the arcs (io::load_matrix).
bool generate_transposed(const settings& s) {
  return io::is_synthetic_graph_spec(s.graph) && !s.weighted && !s.input.undirected;
}

// --device cuda on a generated graph: the GPU's free memory is checked from
// the spec's size before the graph is generated (the host's is checked by
// the generator), so a graph the GPU cannot hold fails in a moment, not
// after the generation. This waits for the context (started at program
// start) before the generation instead of beside it, which cost rmat:22 (39 M
// links, 0.3 s of generation) 0.2 s of a 0.8 s run (H200 host, session 27):
// so only for a graph of room_check_first_bytes or more on the device. A
// smaller one is generated beside the context (seconds at most) and refused,
// where it does not fit, by the solver's own check before it allocates.
inline constexpr double room_check_first_bytes = 1ull << 30;
template <class T>
void check_gpu_room_first(const settings& s, cuda::context_start& context, timings& t) {
  if (s.opt.device != pagerank_device::cuda || !io::is_synthetic_graph_spec(s.graph) || s.gpus > 0) return;
  const io::synthetic_size size = io::synthetic_graph_size(s.graph);
  const pagerank_pull pull = s.weighted || s.opt.kernel ? pagerank_pull::spmv : s.opt.pull;
  const std::uint64_t links = spec_links(size, s.input.undirected);
  const double bytes = pagerank_device_bytes(size.vertices, links, sizeof(T), pull);
  if (bytes < room_check_first_bytes) return;
  t.context_wait += context.wait();
  // The context is waited for already: no GPU is reported now, not after the
  // generation (rmat:24:200000000 --device cuda generated for 24 s first).
  pagerank_runs_on_gpu(s.opt);
  check_device_memory(bytes, "PageRank on the GPU of '" + s.graph + "' (" + std::to_string(size.vertices) +
                                 " vertices, up to " + spec_links_text(size, s.input.undirected) + " links)");
}

// A graph without vertices (a file of comments only, grid:0:5, tridiag:0):
// one error naming the file or spec (the solver's own did not).
void require_vertices(const std::string& graph, index_t rows, index_t cols) {
  if (rows == 0 && cols == 0) throw invalid_argument(graph + ": the graph is empty (0 vertices)");
}

// A generated graph on the host: the whole run's memory (the graph as it is
// generated, then PageRank's 48 bytes a vertex beside it; make_pagerank_graph's
// and pagerank_graph_from_pattern's checks) from the spec, before generating:
// the generator checks only its own peak, so rmat:30:10 generated 4 GB over 4 s
// and chain:2147483647:1 8 GB before PageRank's check refused them (and the
// matrices tridiag:N, synthetic:seedS:N too: tridiag:20000000 filled 0.9 GB
// before a limit of 1 GB refused its PageRank).
template <class T>
void check_host_room_first(const settings& s) {
  if (!io::is_synthetic_spec(s.graph)) return;
  const io::synthetic_size size = io::synthetic_spec_size(s.graph);
  if (size.vertices == 0) require_vertices(s.graph, 0, 0);
  const double n = double(size.vertices), m = double(spec_links(size, s.input.undirected));
  const double bytes = generate_transposed(s) ? 52.0 * n + (4.0 + sizeof(T)) * m : 48.0 * (n + m);
  check_host_memory(bytes, "PageRank of '" + s.graph + "' (" + std::to_string(size.vertices) +
                               " vertices, up to " + spec_links_text(size, s.input.undirected) + " links" +
                               (s.input.undirected ? ", undirected" : "") + ")");
}

// --reorder: g relabelled in place in the asked locality order; nullopt for none.
template <class T>
std::optional<reorder_report> reorder_graph(const settings& s, pagerank_graph<T>& g, timings& t) {
  if (s.reorder == vertex_order::none) return std::nullopt;
  reorder_report r;
  r.order = s.reorder;
  stopwatch measure;
  r.before = locality_of(g.pt);
  r.locality_seconds = measure.seconds();
  stopwatch step;
  r.perm = locality_order(g.pt, s.reorder);
  g = permuted(g, r.perm);
  t.reorder = step.seconds();
  measure.restart();
  r.after = locality_of(g.pt);
  r.locality_seconds += measure.seconds();
  return r;
}

// --gpus on a generated graph past 2^31 links, which no one CSR holds: each
// GPU's chunks generated as pieces of A^T (io::generate_transpose_pieces, cut
// by dist::nccl_cut from the draws per 4096-row block), never the whole P^T.
// What needs the whole graph in one process is refused.
template <class T>
int solve_in_pieces(settings& s) {
  if (!s.personalize.empty() || !s.initial.empty() || s.reorder != vertex_order::none || s.weighted ||
      !s.plot.empty() || s.exchange == "halo")
    throw usage_error("'" + s.graph + "' has more than " + std::to_string(max_index) +
                      " links: --gpus generates it in pieces, without --personalize, --initial, --reorder, "
                      "--weighted, --plot or --exchange halo");
  stopwatch total, step;
  timings t;
  const io::synthetic_size size = io::synthetic_graph_size(s.graph);
  const index_t n = size.vertices;
  // Before minutes of generation: the GPUs exist, and each has room for about its share (the
  // arcs before duplicates merge, evenly; the solver checks each GPU's exact share again).
  if (s.gpus > cuda::device_count())
    throw cuda_error("--gpus " + std::to_string(s.gpus) + ": this machine has " +
                     std::to_string(cuda::device_count()) + " usable GPU(s)");
  const std::uint64_t share = size.arcs / static_cast<std::uint64_t>(s.gpus);
  const auto need = [&](int chunks) {
    return dist::nccl_gpu_bytes(n, n / s.gpus, share, dist::largest_chunk(share, chunks), s.gpus, sizeof(T),
                                s.opt.max_iter);
  };
  double room = 1e300;  // the least free memory of the GPUs
  for (int d = 0; d < s.gpus; ++d) {
    cuda::set_device(d);
    room = std::min(room, double(device_memory_limit()));
  }
  int chunks = exchange_chunks<T>(s, graph_counts{n, 0, 0});
  // Automatic: as many more chunks as keep each under 2^31 links and, where one GPU's converted
  // copy of a chunk is what does not fit, smaller chunks (R-MAT 29 on one H200: 5 chunks, not 1).
  if (s.gpus_cut.chunks == 0)
    chunks = dist::piece_chunks(chunks, share, [&](int k) { return need(k) <= room; });
  // The memory first (at the most chunks where no count keeps them indexable): the bytes are what
  // a user compares with other machines.
  const int checked = chunks ? chunks : dist::max_exchange_chunks;
  for (int d = 0; d < s.gpus; ++d) {
    cuda::set_device(d);
    check_device_memory(need(checked), "--gpus " + std::to_string(s.gpus) + ": GPU " + std::to_string(d) +
                                           "'s share of '" + s.graph + "' (about " + std::to_string(share) +
                                           " links in " + std::to_string(checked) + " chunk(s))");
  }
  if (chunks == 0)
    throw dimension_error("--gpus " + std::to_string(s.gpus) + ": '" + s.graph + "' puts about " +
                          std::to_string(share) + " links on each GPU, more than " +
                          std::to_string(dist::max_exchange_chunks) +
                          " chunks of under 2^31 links hold; use more GPUs");
  io::transpose_pieces p = io::generate_transpose_pieces(s.graph, [&](const std::vector<std::uint64_t>& b) {
    return dist::nccl_cut(b, n, s.gpus, chunks, s.gpus_cut.row_cost);
  });
  t.load = step.lap();
  io::loaded_matrix graph;  // what the output needs: no labels, n vertices
  graph.format = io::input_format::synthetic;
  graph.pattern = true;
  graph.matrix.rows = graph.matrix.cols = n;
  graph_counts counts{n, 0, p.links};
  for (std::uint32_t d : p.out_degree) counts.dangling_count += d == 0;
  progress_line progress;
  if (progress.enabled())
    s.opt.progress = [&](int k, double res) {
      progress.update("pagerank: iteration " + std::to_string(k) + ", residual " + format_g(res, 3));
    };
  std::vector<dist::iteration_stats> stats;
  pagerank_result r = dist::pagerank_nccl<T>(std::move(p.at), p.out_degree, s.opt, s.gpus, chunks,
                                             s.bench_dist ? &stats : nullptr);
  const double whole = step.lap();
  progress.clear();
  t.solve = r.solve_seconds;
  t.transfer = std::max(0.0, whole - r.solve_seconds);
  s.dist_note = std::to_string(s.gpus) + " GPUs of one process through NCCL, generated in " +
                std::to_string(s.gpus * chunks) + " pieces of A^T (past the 32-bit limit of one CSR)";
  remember_iterations(s, r.iterations, r.converged);
  if (!s.output.empty()) write_ranks<T>(s.output, graph, r.rank);
  t.output = step.lap();
  t.total = total.seconds();
  std::ostream& o = s.output == "-" ? std::cerr : std::cout;
  if (s.bench_dist) print_bench_gpus<T>(o, s, counts, stats, r);
  device_plan plan;
  plan.reason = "--gpus " + std::to_string(s.gpus);
  if (s.json)
    print_json<T>(o, s, graph, counts, r, t, plan);
  else if (!s.bench_dist)
    print_summary<T>(o, s, graph, counts, r, t, plan);
  flush_summary(o);
  return exit_code<T>(r, s.opt.tol);
}

// A file's CSR of A^T kept by an earlier run (io/cache.hpp's per-rank part,
// of one rank of one: the whole graph): P^T is then written over it in
// place (pagerank_graph_from_pattern, the same graph bit for bit), without
// the arcs' load and their sort into the CSR of P^T (cnr-2000 on the H200
// host: 6 + 21 ms of a 64 ms run; docs/PERFORMANCE.md, session 48). Unweighted
// graphs of one process; nullopt where there is none, with `stamp` set where
// the conversion should keep one (keep_transpose). A part there but refused
// (stale, corrupt, truncated) is a warning, and written again.
template <class T>
std::optional<csr_matrix<T>> kept_transpose(const settings& s, io::loaded_matrix& graph,
                                            std::optional<io::source_stamp>& stamp) {
  if (!keeps_transpose(s)) return std::nullopt;
  const io::read_options ro = app::read_options_for(s.input);
  stopwatch w;
  std::optional<io::rank_part> part;
  std::string why;  // a part there but refused (stale, corrupt): said as the arcs' cache says it
  try {
    stamp = io::stamp_of(s.graph);  // before the read: a file changed meanwhile is not kept
    part = io::rank_cache_load(s.graph, transpose_key(s), ro.cache, ro.threads, why);
  } catch (const std::exception& x) {  // out of memory, say: the cache is optional
    part.reset();
    why = std::string("cannot read the graph's kept CSR of A^T (") + x.what() + ")";
  }
  if (!why.empty()) std::cerr << ("perron: warning: " + one_line(why) + "; reading the graph's arcs\n");
  if (!part) return std::nullopt;
  stamp.reset();
  graph.format = part->format;
  graph.pattern = part->pattern;
  graph.symmetric = part->symmetric;
  graph.skew = part->skew;
  graph.first_set = part->first_set;
  graph.undirected = s.input.undirected;  // the kept CSR is of the mirrored arcs (its key)
  graph.label = std::move(part->label);
  graph.name = std::move(part->name);
  graph.matrix.rows = graph.matrix.cols = part->n;  // no arcs: they are in the CSR
  graph.timings.from_cache = graph.timings.cache_transposed = true;
  csr_matrix<T> at;
  at.rows = at.cols = part->n;
  at.row_ptr = std::move(part->rows.row_ptr);
  at.col_idx = std::move(part->rows.col_idx);
  // P^T's values, written in place: mapped on every thread first (a zero
  // fill of 40 MB on one took 16 ms of rmat:20's 27 ms load on 2 cores).
  at.values = fresh_vector<T>(at.col_idx.size(), T(0), host_threads());
  graph.read_seconds = graph.timings.cache_seconds = w.seconds();
  return at;
}

// After a file's conversion: P^T's pattern (the CSR of A^T, duplicates
// merged) kept for the next run (kept_transpose), timed in the conversion.
// The load's line says it was kept, or why not (an unwritable cache or a
// full disk after the arcs' entry was written: no warning came from that
// entry), and the run goes on: the cache is optional.
template <class T>
void keep_transpose(const settings& s, const io::source_stamp& stamp, io::loaded_matrix& graph,
                    const pagerank_graph<T>& g, timings& t) {
  stopwatch w;
  const io::read_options ro = app::read_options_for(s.input);
  io::rank_part p;
  p.format = graph.format;
  p.pattern = graph.pattern;
  p.symmetric = graph.symmetric;
  p.skew = graph.skew;
  p.first_set = graph.first_set;
  p.n = g.vertices();
  p.first = {0, p.n};
  p.rows.rows = p.rows.cols = p.n;
  p.rows.row_ptr = g.pt.row_ptr;
  p.rows.col_idx = g.pt.col_idx;
  p.label = graph.label;
  p.name = graph.name;
  std::string why;
  try {
    why = io::rank_cache_store(s.graph, stamp, transpose_key(s), p, ro.cache, ro.threads);
  } catch (const std::exception& x) {  // out of memory, say
    why = x.what();
  }
  const double seconds = w.seconds();
  t.convert += seconds;
  if (why.empty())
    graph.timings.transpose_kept_seconds = seconds;
  else
    graph.timings.transpose_not_kept = why;
}

template <class T>
int solve(settings& s) {
  if (s.gpus > 0 && generate_transposed(s) && io::synthetic_graph_size(s.graph).arcs > max_index)
    return solve_in_pieces<T>(s);
  stopwatch total, step;
  timings t;
  cuda::context_start context;
  if (s.gpus == 0 && start_context_now(s)) {  // --gpus sets up its own devices
    detached_exit::split();                   // the driver's teardown after the user's wait
    context.start();
  }
  t.context_started = context.started();
  check_gpu_room_first<T>(s, context, t);
  check_host_room_first<T>(s);
  step.restart();
  io::loaded_matrix graph;
  std::optional<csr_matrix<T>> at;        // a generated graph's CSR of A^T, or a file's kept one
  std::optional<io::source_stamp> stamp;  // a file's before its load, where its A^T is to be kept
  if (generate_transposed(s)) {
    at = io::generate_graph_transpose<T>(s.graph);
    graph.format = io::input_format::synthetic;
    graph.pattern = true;
    graph.matrix.rows = graph.matrix.cols = at->rows;  // no arcs: they are in at
    graph.read_seconds = graph.timings.parse_seconds = step.seconds();
  } else {
    at = kept_transpose<T>(s, graph, stamp);  // describes the graph where it finds one
    if (!at) graph = io::load_matrix(s.graph, app::read_options_for(s.input));
  }
  if (at)
    require_vertices(s.graph, at->rows, at->cols);
  else
    require_vertices(s.graph, graph.matrix.rows, graph.matrix.cols);
  t.load = step.lap();
  app::note_input(s.input, s.graph, graph.format);
  device_plan plan;
  if (s.gpus > 0)  // P^T built on the host, then split over the GPUs
    plan.reason = "--gpus " + std::to_string(s.gpus);
  else
    plan = plan_device(s, graph, at ? at->nnz() : graph.matrix.nnz(), at.has_value(),
                       at ? local_fraction(*at) : local_fraction(graph.matrix), context);
  pagerank_graph<T> g = convert_for<T>(s, graph, at, plan, context, t);
  if (stamp) keep_transpose(s, *stamp, graph, g, t);
  const std::optional<reorder_report> reorder = reorder_graph(s, g, t);
  const bool gpu = plan.gpu;
  step.restart();

  pagerank_options& opt = s.opt;
  opt.personalization = vertex_file(s.personalize, graph, "--personalize");
  opt.initial = vertex_file(s.initial, graph, "--initial");
  if (reorder) opt = permuted(std::move(opt), reorder->perm);
  graph.matrix = coo_matrix<double>{};  // the labels stay; the triplets are no longer needed
  progress_line progress;
  std::vector<std::pair<int, double>> history;  // for --plot
  if (!s.plot.empty() && gpu) {
    // The GPU reports each batch's last residual: batches of one step.
    opt.loop = pagerank_loop::check_every;
    opt.check_interval = 1;
  }
  if (progress.enabled() || !s.plot.empty())
    opt.progress = [&](int k, double res) {
      if (!s.plot.empty()) history.emplace_back(k, res);
      if (progress.enabled())
        progress.update("pagerank: iteration " + std::to_string(k) + ", residual " + format_g(res, 3));
    };
  std::vector<dist::iteration_stats> gpu_stats;
  pagerank_result r =
      s.gpus ? solve_on_gpus(g, s, t, s.bench_dist ? &gpu_stats : nullptr) : run_solver(s, g, opt, gpu, t);
  progress.clear();
  if (reorder) r.rank = to_old(r.rank, reorder->perm);  // the input's ids from here on
  remember_iterations(s, r.iterations, r.converged);

  step.restart();
  io::commit_together files;  // both replace their targets, or neither
  if (!s.output.empty()) write_ranks<T>(s.output, graph, r.rank);
  if (!s.plot.empty()) write_residual_plot(s.plot, plot_name(s.graph), history);
  files.commit();
  t.output = step.lap();
  t.total = total.seconds();
  // With --output - (or --plot -) standard output holds only that file.
  std::ostream& o = s.output == "-" || s.plot == "-" ? std::cerr : std::cout;
  if (s.bench_dist) print_bench_gpus<T>(o, s, g, gpu_stats, r);
  const reorder_report* ro = reorder ? &*reorder : nullptr;
  if (s.json)
    print_json<T>(o, s, graph, g, r, t, plan, ro);
  else if (!s.bench_dist)
    print_summary<T>(o, s, graph, g, r, t, plan, ro);
  flush_summary(o);
  return exit_code<T>(r, opt.tol);
}

// ---- distributed: mpirun -np P pagerank (solvers/dist, apps/common/dist_load) -------
// Each rank reads its share of the graph and owns the rows of P^T of a range of
// vertices; after the solve every rank holds all ranks, and rank 0 writes and
// prints. Each phase agrees on failures (dist::phase): one failing rank stops
// every rank with its message, which rank 0 alone prints (main_body).

// What the summary shows of a graph no rank holds whole.

// --bench-dist: per rank, the medians over the iterations after the first
// (collective: every rank calls it; rank 0 prints).
// Ranks that hold no rows, said: the ranges are cut on blocks of
// pagerank_sum_block vertices (so that the ranks are one process's to the
// bit), and a graph of a few blocks leaves ranks idle ("r shared by halo
// exchange (0 values a step)" said nothing of one rank doing all the work).
std::string holding_ranks_note(const std::vector<index_t>& first) {
  const std::size_t ranks = first.empty() ? 0 : first.size() - 1;
  std::size_t holding = 0;
  for (std::size_t p = 0; p < ranks; ++p) holding += first[p + 1] > first[p];
  if (holding == ranks) return {};
  return "; " + std::to_string(holding) + " of the " + std::to_string(ranks) + " ranks " +
         (holding == 1 ? "holds" : "hold") + " rows (ranges are cut on blocks of " +
         std::to_string(pagerank_sum_block) +
         " vertices, so that the ranks are a single process's to the bit)";
}

// How r traveled, for the summary and --bench-dist.
std::string exchange_note(const dist::exchange_plan& x) {
  return exchange_note(x.halo, x.halo_values, x.all_values);
}

template <class T>
void print_bench_dist(std::ostream& o, const settings& s, const dist::local_graph<T>& g,
                      const dist::iteration_stats& st, const pagerank_result& r, const dist::exchange_plan& x,
                      const dist::session& world) {
  const auto tail = after_first;
  std::vector<double> step(st.compute_seconds.size());
  for (std::size_t k = 0; k < step.size(); ++k)
    step[k] = st.compute_seconds[k] + st.wait_seconds[k] + st.comm_seconds[k];
  const auto compute = dist::all_values(median_of(tail(st.compute_seconds)));
  const auto wait = dist::all_values(median_of(tail(st.wait_seconds)));
  const auto comm = dist::all_values(median_of(tail(st.comm_seconds)));
  const auto iter = dist::all_values(median_of(tail(step)));
  const auto links = dist::all_values(double(g.rows.pt.nnz()));
  const auto sent = dist::all_values(double(st.bytes_sent));
  const auto received = dist::all_values(double(st.bytes_received));
  const auto exchanged = dist::all_values(double(g.bytes_exchanged));
  if (world.rank() != 0) return;
  char buf[256];
  o << "distributed PageRank: " << s.graph << ", " << world.size() << " ranks x " << omp_get_max_threads()
    << " OpenMP threads, " << s.precision << ", " << g.n << " vertices, " << g.links << " links, "
    << r.iterations << " iterations (medians over iterations 2..); " << exchange_note(x) << "\n";
  std::snprintf(buf, sizeof buf, "%4s %10s %12s %11s %9s %9s %13s %13s %12s\n", "rank", "vertices", "links",
                "compute_ms", "wait_ms", "comm_ms", "sent_MB/iter", "recv_MB/iter", "load_MB_sent");
  o << buf;
  for (int p = 0; p < world.size(); ++p) {
    const std::size_t q = static_cast<std::size_t>(p);
    std::snprintf(buf, sizeof buf, "%4d %10lld %12.0f %11.3f %9.3f %9.3f %13.3f %13.3f %12.3f\n", p,
                  static_cast<long long>(g.first[q + 1] - g.first[q]), links[q], compute[q] * 1e3,
                  wait[q] * 1e3, comm[q] * 1e3, sent[q] / 1e6, received[q] / 1e6, exchanged[q] / 1e6);
    o << buf;
  }
  const double slowest = *std::max_element(iter.begin(), iter.end());
  const double most_compute = *std::max_element(compute.begin(), compute.end());
  const double most_comm = *std::max_element(comm.begin(), comm.end());
  std::snprintf(buf, sizeof buf,
                "per iteration: %.3f ms (slowest rank), compute at most %.3f ms, transfer at most %.3f ms; "
                "%.3f GTEPS\n",
                slowest * 1e3, most_compute * 1e3, most_comm * 1e3,
                slowest > 0 ? double(g.links) / slowest / 1e9 : 0.0);
  o << buf;
}

// Collective. Every rank reads a vertex file itself: copies that differ
// between hosts would give the ranks different weights, each rank solving
// with its own v or r_0 and the result matching no file.
void require_same_vertex_file(const std::string& file, const std::vector<double>& w) {
  if (file.empty()) return;
  const std::uint64_t h = fnv1a(w.data(), w.size() * sizeof(double));
  std::error_code ec;
  const std::uintmax_t bytes = std::filesystem::file_size(file, ec);
  char sum[32];
  std::snprintf(sum, sizeof sum, "%016llx", static_cast<unsigned long long>(h));
  const std::string differ = dist::first_difference(
      (ec ? std::string() : std::to_string(bytes) + " bytes, ") + "weights hashing to " + sum);
  dist::phase([&] {
    if (!differ.empty())
      throw invalid_argument(file + ": the ranks read different files under this name (" + differ +
                             "): every rank must read the same file");
  });
}

template <class T>
int solve_distributed_as(settings& s) {
  const dist::session& world = *s.dist;
  if (s.bench) throw usage_error("--bench measures one GPU; under mpirun use --bench-dist");
  if (s.gpus > 0)
    throw usage_error("--gpus drives the GPUs of one process: run it without mpirun (or -np 1)");
  if (s.opt.device == pagerank_device::cuda ||
      (s.opt.kernel && *s.opt.kernel != spmv_kernel::cpu && *s.opt.kernel != spmv_kernel::automatic))
    throw usage_error(
        "the distributed solve (mpirun, --bench-dist) runs on the CPU: --device cuda and GPU "
        "kernels cannot be used with it");
  // Both pattern pulls: --pull persistent was taken and solved as the CPU
  // step without a word (fused alone was refused).
  if (pattern_pull(s.opt.pull))
    throw usage_error("--pull " + std::string(name(s.opt.pull)) + " is a GPU step; mpirun runs on the CPU");
  if (extrapolation_named(s.opt.accelerate))
    throw usage_error("--accelerate runs in the single-process solve, not under mpirun or --bench-dist");
  if (s.reorder != vertex_order::none)
    throw usage_error("--reorder runs in the single-process solve, not under mpirun or --bench-dist");
  dist::phase([&] {  // rank 0 writes them
    if (world.rank() == 0) check_output_paths(s);
  });
  stopwatch total, step;
  timings t;
  app::dist_input in;
  const dist::local_graph<T> g =
      app::load_distributed<T>(s.graph, s.weighted, app::read_options_for(s.input), world, in);
  t.load = in.load_seconds;
  t.convert = in.build_seconds;
  if (world.rank() == 0) app::note_input(s.input, s.graph, in.meta.format);
  pagerank_options& opt = s.opt;
  dist::phase([&] {
    // Every rank reads these files itself: a named pipe (mkfifo, <(...))
    // gave its text to one rank and an empty read to the others ('all
    // weights are zero'), or left a rank's open waiting for a writer gone.
    for (const auto& [option, f] :
         {std::pair<const char*, const std::string&>{"--personalize", s.personalize},
          std::pair<const char*, const std::string&>{"--initial", s.initial}}) {
      std::error_code ec;
      const std::filesystem::file_status st = std::filesystem::status(f, ec);
      if (!f.empty() && std::filesystem::exists(st) && !std::filesystem::is_regular_file(st) &&
          !std::filesystem::is_directory(st))
        throw io_error(f, std::string("not a regular file: under mpirun every rank reads it, so ") + option +
                              " must name a file" + (f == "/dev/stdin" ? " ('-' is standard input)" : ""));
    }
    opt.personalization = vertex_file(s.personalize, in.meta, "--personalize");
    opt.initial = vertex_file(s.initial, in.meta, "--initial");
  });
  require_same_vertex_file(s.personalize, opt.personalization);
  require_same_vertex_file(s.initial, opt.initial);
  progress_line progress;
  std::vector<std::pair<int, double>> history;  // for --plot (rank 0)
  if (world.rank() == 0 && (progress.enabled() || !s.plot.empty()))
    opt.progress = [&](int k, double res) {
      if (!s.plot.empty()) history.emplace_back(k, res);
      if (progress.enabled())
        progress.update("pagerank: iteration " + std::to_string(k) + ", residual " + format_g(res, 3));
    };
  dist::iteration_stats stats;
  step.restart();
  const dist::exchange_plan exchange = dist::plan_exchange(g, s.gpus_cut.exchange);
  const pagerank_result r = dist::pagerank_mpi(g, opt, exchange, s.bench_dist ? &stats : nullptr);
  t.solve = step.lap();
  progress.clear();
  dist::phase([&] {  // rank 0 writes; every rank learns whether it could
    if (world.rank() != 0) return;
    io::commit_together files;  // both replace their targets, or neither
    if (!s.output.empty()) write_ranks<T>(s.output, in.meta, r.rank);
    if (!s.plot.empty()) write_residual_plot(s.plot, plot_name(s.graph), history);
    files.commit();
  });
  t.output = step.lap();
  t.total = total.seconds();
  std::ostream& o = s.output == "-" || s.plot == "-" ? std::cerr : std::cout;
  if (s.bench_dist) print_bench_dist(o, s, g, stats, r, exchange, world);
  if (world.rank() != 0) return r.converged ? ok : not_converged;
  s.dist_note = std::to_string(world.size()) + " MPI ranks, the input " +
                (in.from_cache  ? "read from the per-rank cache"
                 : in.generated ? "generated by every rank, each drawing its share of the arcs"
                 : in.in_parts  ? "read in parts (byte ranges)"
                 : in.streamed  ? "read by rank 0 as a stream, windows of lines sent out in order"
                                : "read whole by rank 0, sent out in slices") +
                "; " + exchange_note(exchange) + holding_ranks_note(g.first);
  const graph_counts counts{g.n, static_cast<index_t>(g.dangling_count), g.links};
  device_plan plan;
  plan.reason = "the distributed CPU solve";
  if (s.json)
    print_json<T>(o, s, in.meta, counts, r, t, plan);
  else if (!s.bench_dist)
    print_summary<T>(o, s, in.meta, counts, r, t, plan);
  flush_summary(o);
  return exit_code<T>(r, opt.tol);
}

int solve_distributed(settings& s) {
  return s.precision == "double" ? solve_distributed_as<double>(s) : solve_distributed_as<float>(s);
}

// ---- the benchmark (bench/pagerank_suite.hpp) ------------------------------------

template <class T>
int bench(const settings& s) {
  bench::require_gpu("--bench");
  stopwatch step;
  io::loaded_matrix graph = io::load_matrix(s.graph, app::read_options_for(s.input));
  bench::pagerank_suite_input in;
  in.load_seconds = step.lap();
  in.graph_name =
      s.graph + (s.input.undirected ? " --undirected" : "");  // the corpus's records tell them apart
  in.matrix = std::move(graph.matrix);
  in.label = std::move(graph.label);
  in.name = std::move(graph.name);
  in.weighted = s.weighted;
  in.precision = s.precision;
  in.options = s.opt;
  in.runs = s.bench_runs;
  if (s.json) {
    bench::pagerank_corpus_record(std::move(in), std::cout);  // both precisions
    return ok;
  }
  const bench::pagerank_suite_result r = bench::pagerank_suite<T>(std::move(in), std::cout);
  if (!s.plot.empty()) write_bench_plot(s.plot, plot_name(s.graph) + ", " + s.precision, r);
  return ok;
}

// The batched mode's view of the command line (apps/common/batched_pagerank.hpp).
app::batched_request batched_request_of(const settings& s) {
  if (!s.personalize.empty() || !s.initial.empty() || s.bench)
    throw usage_error(
        "--sources and --bench-sources cannot be combined with --personalize, --initial or --bench");
  // Refused, not dropped: the batched mode drew no plot and exited 0.
  if (!s.plot.empty())
    throw usage_error(
        "--plot draws the residual of the single solve; --sources and --bench-sources draw none");
  app::batched_request r = s.batched;
  r.graph = s.graph;
  r.opt = s.opt;
  r.double_precision = s.precision == "double";
  r.weighted = s.weighted;
  r.output = s.output;
  r.top = s.top;
  r.json = s.json;
  r.input = s.input;
  r.facts = solve_facts(s);
  r.facts.from_pattern = false;  // the batched mode sorts P^T from the arcs (make_pagerank_graph)
  if (const std::optional<input_guess> guess = guess_graph(s)) {
    r.facts.links = guessed_links(s, *guess);
    r.facts.vertices = guess->vertices;
    r.facts.load_left = guess->load_seconds;
    r.guessed = true;
  }
  return r;
}

// An argument as a shell would take it back: quoted where it holds anything
// but plain word characters.
std::string shell_word(const std::string& a) {
  if (!a.empty() && a.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
                                        "_-+=.,:/@%") == std::string::npos)
    return a;
  std::string q = "'";
  for (char c : a) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// Under mpirun every rank must be given the same arguments: each rank takes
// its path through the load and the solve from them (the graph, the
// precision, the cache, the tolerance), and ranks given different ones
// (mpirun -np 1 pagerank x.mtx : -np 1 pagerank y.mtx --tol 1e-3) waited in
// collectives the others never entered, aborted, or exchanged floats for
// doubles. Compared before any rank parses them, so that a rank whose
// arguments are refused still takes part. argv[0] is left out: the
// program's path may differ between hosts.
void require_same_arguments(int argc, char** argv) {
  std::string mine;
  for (int k = 1; k < argc; ++k) mine += (k > 1 ? " " : "") + shell_word(argv[k]);
  // Quoted words: one line is one argument list; "(none)" is no quoted word.
  const std::string differ = dist::first_difference(mine.empty() ? "(none)" : mine);
  if (!differ.empty())
    throw usage_error("the ranks were started with different arguments (" + differ +
                      "): mpirun must start every rank with the same command line");
}

// parse_command_line on every rank. The same arguments can still be read
// differently where a check looks at the rank's host (whether an output is
// one of the inputs): a rank that refused them and one that went on to load
// the graph would leave each other waiting, so the ranks agree first, and a
// refusal on any rank stops every rank with that rank's message.
bool parse_on_every_rank(int argc, char** argv, settings& s) {
  std::exception_ptr refused;
  bool go = false;
  try {
    go = parse_command_line(argc, argv, s);
  } catch (...) {
    refused = std::current_exception();
  }
  const std::uint64_t failures = dist::total_sum(refused ? 1 : 0);
  if (failures == 0) return go;
  std::string why;
  if (refused) {
    try {
      std::rethrow_exception(refused);
    } catch (const std::exception& x) {
      why = x.what();
    }
  }
  const std::vector<std::string> all = dist::all_strings(refused ? why : std::string());
  int size = static_cast<int>(all.size());
  if (failures == static_cast<std::uint64_t>(size)) std::rethrow_exception(refused);  // the same everywhere
  int first = 0;
  while (all[static_cast<std::size_t>(first)].empty() && first + 1 < size) ++first;
  throw usage_error("rank " + std::to_string(first) + ": " + all[static_cast<std::size_t>(first)]);
}

// What the ranks > 0 print: nothing.
struct discard_buffer : std::streambuf {
  int overflow(int c) override { return traits_type::not_eof(c); }
  std::streamsize xsputn(const char*, std::streamsize n) override { return n; }
};

// `world` outlives main_body: the MPI session ends (MPI_Finalize, a barrier
// on every rank) only after app::run has printed rank 0's error line. Ended
// inside main_body, the unwinding let a rank > 0 exit with its code first, and
// mpirun aborted rank 0 before it spoke (mpi_pagerank_np3_stream, one run in
// a hundred).
int main_body(int argc, char** argv, std::shared_ptr<dist::session>& world) {
  settings s;
  if (dist::launched()) {
    // Under mpirun every rank reaches the same errors (dist::phase agrees on
    // them) and results: rank 0 alone speaks.
    if (dist::launch_rank() != 0) {
      // A buffer that drops what it is given, not none: a stream without one
      // is a failed stream, and app::run reports a stdout that failed as an
      // unwritable one (every rank > 0 exited 66 after a good solve). Never
      // destroyed: the streams flush into it at exit, after every static
      // made here is gone (a static buffer was destroyed first, and every
      // rank > 0 ended in a SEGV in ~ios_base::Init under AddressSanitizer).
      static discard_buffer* const nowhere = new discard_buffer;
      std::cout.rdbuf(nowhere);
      std::cerr.rdbuf(nowhere);
    }
    // The session opens before the command line is read, so that a refused
    // one also ends in MPI_Finalize's barrier (main): read first, every rank
    // exited with the usage code at once and mpirun, aborting the job at the
    // first, could kill rank 0 before its error line (mpi_pagerank_np4_faults,
    // 2 runs in 30 of `--exchange sideways`).
    world = std::make_shared<dist::session>();
    require_same_arguments(argc, argv);
  }
  if (!(world ? parse_on_every_rank(argc, argv, s) : parse_command_line(argc, argv, s))) return ok;
  if (world || (s.bench_dist && s.gpus == 0)) {  // the distributed solve ("distributed" above)
    if (app::batched_mode(s.batched))
      throw usage_error(world ? "--sources and --bench-sources run in one process, not under mpirun"
                              : "--bench-dist times the distributed solve of one vector; --sources and "
                                "--bench-sources solve many: choose one");
    if (!world) world = std::make_shared<dist::session>();
    s.dist = world;
    if (s.dist->size() > 1 || s.bench_dist) return solve_distributed(s);
    s.dist.reset();
    world.reset();
  }
  check_output_paths(s);
  if (app::batched_mode(s.batched)) return app::batched_pagerank(batched_request_of(s));
  if (s.bench) return s.precision == "double" ? bench<double>(s) : bench<float>(s);
  return s.precision == "double" ? solve<double>(s) : solve<float>(s);
}

}  // namespace
}  // namespace perron::app

int main(int argc, char** argv) {
  std::shared_ptr<perron::dist::session> world;
  const int code = perron::app::run("pagerank", [&] { return perron::app::main_body(argc, argv, world); });
  world.reset();                             // MPI_Finalize after the error line (main_body)
  perron::app::detached_exit::finish(code);  // a split run ends here (apps/common/detached_exit.hpp)
  // A process that started CUDA ends without its exit handlers: the start-up
  // thread may still be running (a solve that did not need the GPU does not
  // wait for it), and the runtime's handlers would tear its state down under
  // it. Every output file has been committed by now; the streams are flushed
  // here. (The context's teardown, ~0.1 s, happens in the driver when the
  // process ends either way: docs/PERFORMANCE.md, "Device choice".)
  if (perron::cuda::context_start::any_started()) {
    std::cout.flush();
    std::cerr.flush();
    std::fflush(nullptr);
    std::_Exit(code);
  }
  return code;
}
