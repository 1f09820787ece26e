// Probe (docs/PERFORMANCE.md "One team a solve", session 45): what a
// parallel region costs when consecutive regions ask for teams of different
// sizes. libgomp ends the threads a smaller team leaves idle and creates them
// again when a larger team starts, so regions alternating between A and B
// threads (A < B) create B - A threads every second region; the count of
// distinct thread ids shows it.
//   g++ -O2 -fopenmp -o omp_team_probe scripts/omp_team_probe.cpp
//   ./omp_team_probe 16 16; ./omp_team_probe 8 16; ./omp_team_probe 3 12
#include <omp.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <set>

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: omp_team_probe A B (teams of the even and odd regions)\n");
    return 2;
  }
  const int a = std::atoi(argv[1]), b = std::atoi(argv[2]);
  if (a < 1 || b < 1) {
    std::fprintf(stderr, "omp_team_probe: teams must be at least 1\n");
    return 2;
  }
  constexpr int regions = 200;
  for (int round = 0; round < 3; ++round) {
    std::set<long> ids;
    const auto t0 = std::chrono::steady_clock::now();
    for (int it = 0; it < regions; ++it) {
#pragma omp parallel num_threads((it & 1) ? b : a)
      {
        const long id = static_cast<long>(gettid());
#pragma omp critical
        ids.insert(id);
      }
    }
    const double us =
        std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
    std::printf("teams %d / %d: %.1f us a region, %zu distinct threads\n", a, b, us / regions, ids.size());
  }
  return 0;
}
