// Distributed PageRank over MPI (solvers/dist/pagerank_dist.hpp).
#include "solvers/dist/pagerank_dist.hpp"

#include <mpi.h>
#include <omp.h>
#include <sched.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <new>

#include "core/error.hpp"
#include "core/hash.hpp"
#include "core/memory.hpp"

namespace perron::dist {
namespace {

// Vertices per partial sum: the same blocks as pagerank_cpu() (solvers/pagerank.cpp).
constexpr index_t sum_block = pagerank_sum_block;  // solvers/pagerank.hpp

int env_int(const char* name) {
  const char* v = std::getenv(name);
  return v ? std::atoi(v) : 0;
}

// The failure's kind, sent with its message so every rank throws the same type.
enum failure_kind : int { none = 0, io, parse, unsupported, dimension, argument, cuda, other };

failure_kind kind_of(std::exception_ptr e, std::string& what) {
  try {
    std::rethrow_exception(e);
  } catch (const io_error& x) {
    what = x.what();
    return io;
  } catch (const parse_error& x) {
    what = x.what();
    return parse;
  } catch (const not_supported& x) {
    what = x.what();
    return unsupported;
  } catch (const dimension_error& x) {
    what = x.what();
    return dimension;
  } catch (const invalid_argument& x) {
    what = x.what();
    return argument;
  } catch (const cuda_error& x) {
    what = x.what();
    return cuda;
  } catch (const std::bad_alloc&) {
    what = "out of memory";
    return other;
  } catch (const std::exception& x) {
    what = x.what();
    return other;
  }
}

[[noreturn]] void throw_as(failure_kind k, const std::string& msg) {
  switch (k) {
    case io:
      throw io_error(msg.substr(0, msg.find(':')), msg.substr(msg.find(':') + 2));
    case parse:
      throw parse_error(msg.substr(0, msg.find(':')), 0, msg.substr(msg.find(':') + 2));
    case unsupported:
      throw not_supported(msg);
    case dimension:
      throw dimension_error(msg);
    case argument:
      throw invalid_argument(msg);
    case cuda:
      throw cuda_error(msg);
    default:
      throw error(msg);
  }
}

}  // namespace

bool launched() {
  return std::max({env_int("OMPI_COMM_WORLD_SIZE"), env_int("PMI_SIZE"), env_int("PMIX_SIZE")}) > 1;
}
int launch_rank() {
  return std::max({env_int("OMPI_COMM_WORLD_RANK"), env_int("PMI_RANK"), env_int("PMIX_RANK")});
}
bool built() { return true; }

namespace {

// This rank's share of its CPUs: their count over the ranks of its host
// (MPI_COMM_TYPE_SHARED) whose affinity meets its own, itself included.
// Unbound ranks (mpirun --oversubscribe, or --bind-to none) all see every
// CPU and share them; ranks bound to cores or sockets share only theirs.
int host_share() {
  MPI_Comm host = MPI_COMM_NULL;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &host);
  int ranks = 1;
  MPI_Comm_size(host, &ranks);
  cpu_set_t mine;
  CPU_ZERO(&mine);
  const bool known = ::sched_getaffinity(0, sizeof(mine), &mine) == 0 && CPU_COUNT(&mine) > 0;
  std::vector<cpu_set_t> all(static_cast<std::size_t>(ranks));
  MPI_Allgather(&mine, sizeof(mine), MPI_BYTE, all.data(), sizeof(mine), MPI_BYTE, host);
  MPI_Comm_free(&host);
  if (!known) return std::max(1, omp_get_num_procs() / ranks);
  int sharing = 0;
  for (cpu_set_t& other : all) {
    cpu_set_t both;
    CPU_AND(&both, &mine, &other);
    sharing += CPU_COUNT(&both) > 0;
  }
  return std::max(1, CPU_COUNT(&mine) / std::max(1, sharing));
}

}  // namespace

session::session() {
  int up = 0;
  MPI_Initialized(&up);
  if (!up) MPI_Init(nullptr, nullptr);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  const int share = host_share();  // collective: every rank, whatever the environment
  if (threads_chosen_by_user()) {
    threads_ = static_cast<int>(host_threads());
  } else {
    team_ = std::make_unique<team_scope>(share);
    threads_ = static_cast<int>(host_threads());
  }
}

session::~session() {
  int down = 0;
  MPI_Finalized(&down);
  if (down) return;
  // No rank leaves before every rank is here: mpirun aborts the job at the
  // first non-zero exit, and rank 0 may still be writing the agreed error.
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();
}

void agree(std::exception_ptr failure) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  // The lowest failing rank speaks (size = nobody failed).
  int mine = failure ? rank : size, first = size;
  MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (first == size) return;
  std::string msg;
  int kind = failure && rank == first ? kind_of(failure, msg) : none;
  int len = static_cast<int>(msg.size());
  MPI_Bcast(&kind, 1, MPI_INT, first, MPI_COMM_WORLD);
  MPI_Bcast(&len, 1, MPI_INT, first, MPI_COMM_WORLD);
  msg.resize(static_cast<std::size_t>(len));
  MPI_Bcast(msg.data(), len, MPI_CHAR, first, MPI_COMM_WORLD);
  throw_as(static_cast<failure_kind>(kind), "rank " + std::to_string(first) + ": " + msg);
}

std::uint64_t exclusive_sum(std::uint64_t mine) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  std::uint64_t before = 0;
  MPI_Exscan(&mine, &before, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
  return rank == 0 ? 0 : before;  // undefined on rank 0
}

std::uint64_t total_sum(std::uint64_t mine) {
  std::uint64_t all = 0;
  MPI_Allreduce(&mine, &all, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
  return all;
}

std::vector<double> all_values(double mine) {
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  std::vector<double> all(static_cast<std::size_t>(size));
  MPI_Allgather(&mine, 1, MPI_DOUBLE, all.data(), 1, MPI_DOUBLE, MPI_COMM_WORLD);
  return all;
}

std::vector<std::string> all_strings(const std::string& mine) {
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const auto P = static_cast<std::size_t>(size);
  int len = static_cast<int>(mine.size());
  std::vector<int> lens(P), offs(P, 0);
  MPI_Allgather(&len, 1, MPI_INT, lens.data(), 1, MPI_INT, MPI_COMM_WORLD);
  for (std::size_t p = 1; p < P; ++p) offs[p] = offs[p - 1] + lens[p - 1];
  std::string all(static_cast<std::size_t>(offs[P - 1] + lens[P - 1]), '\0');
  MPI_Allgatherv(mine.data(), len, MPI_CHAR, all.data(), lens.data(), offs.data(), MPI_CHAR, MPI_COMM_WORLD);
  std::vector<std::string> out(P);
  for (std::size_t p = 0; p < P; ++p)
    out[p] = all.substr(static_cast<std::size_t>(offs[p]), static_cast<std::size_t>(lens[p]));
  return out;
}

bool same_everywhere(std::uint64_t mine) {
  std::uint64_t lo = 0, hi = 0;
  MPI_Allreduce(&mine, &lo, 1, MPI_UINT64_T, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(&mine, &hi, 1, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
  return lo == hi;
}

std::string first_difference(const std::string& mine) {
  if (same_everywhere(fnv1a(mine))) return {};  // the texts travel only where they differ
  const std::vector<std::string> all = all_strings(mine);
  std::size_t r = 1;
  while (r + 1 < all.size() && all[r] == all[0]) ++r;
  return "rank 0: " + all[0] + "; rank " + std::to_string(r) + ": " + all[r];
}

}  // namespace perron::dist
