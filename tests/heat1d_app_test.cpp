// The heat1d app as a user runs it: the built binary in a subprocess, its exit
// codes, its one-line errors, the TSV, JSON and SVG outputs.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "core/device.hpp"
#include "tests/support/app_runner.hpp"
#include "tests/support/support.hpp"

namespace perron::test {
namespace {

namespace fs = std::filesystem;

// The number after "key": in a flat JSON text (enough for these tests).
double json_number(const std::string& js, const std::string& key) {
  const auto k = js.find("\"" + key + "\":");
  if (k == std::string::npos) return std::nan("");
  return std::strtod(js.c_str() + k + key.size() + 3, nullptr);
}

class heat1d_app : public app_test {
 protected:
  heat1d_app() : app_test("heat1d") {}
  outcome run(const std::string& args) { return run_command(quote(app_path("heat1d")) + " " + args, dir_); }
};

TEST_F(heat1d_app, DefaultRunReportsTheErrorAgainstTheExactSolution) {
  const outcome o = run("--device cpu");
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_EQ(o.err, "");  // no progress bar when stderr is not a terminal
  const auto k = o.out.find("max error vs exact solution at t = 0.1: ");
  ASSERT_NE(k, std::string::npos) << o.out;
  const double err = std::strtod(o.out.c_str() + k + 40, nullptr);
  // N = 101, CN, dt = 1e-3: space error T lambda (pi dx)^2 / 12 e^{-lambda T} ~ 3e-5.
  EXPECT_GT(err, 1e-6);
  EXPECT_LT(err, 1e-4);
}

TEST_F(heat1d_app, HelpDocumentsEveryOption) {
  const outcome o = run("--help");
  EXPECT_EQ(o.code, 0);
  for (const char* opt : {"--N",          "--L",      "--kappa",    "--T",        "--dt",
                          "--steps",      "--method", "--solver",   "--kernel",   "--operator",
                          "--precision",  "--device", "--bc",       "--left",     "--right",
                          "--ic",         "--rtol",   "--max-iter", "--omega",    "--steady",
                          "--steady-tol", "--force",  "--output",   "--snapshot", "--snapshot-every",
                          "--json",       "--plot",   "--bench",    "Exit codes", "csr-vector",
                          "gauss:X0:W"})
    EXPECT_NE(o.out.find(opt), std::string::npos) << opt;
}

TEST_F(heat1d_app, OutputsSnapshotsJsonAndPlot) {
  const outcome o =
      run("--device cpu --N 51 --T 0.02 --steps 20 --method implicit --solver cg --ic gauss:0.4:0.1 "
          "--bc insulated -o " +
          quote(path("u.tsv")) + " --snapshot " + quote(path("s.tsv")) + " --snapshot-every 5 --json " +
          quote(path("r.json")) + " --plot " + quote(path("p.svg")));
  ASSERT_EQ(o.code, 0) << o.err;
  // Final profile: 51 lines "x<TAB>u", x from 0 to 1.
  std::ifstream u(path("u.tsv"));
  std::vector<double> xs, us;
  double x, v;
  while (u >> x >> v) xs.push_back(x), us.push_back(v);
  ASSERT_EQ(xs.size(), 51u);
  EXPECT_EQ(xs.front(), 0.0);
  EXPECT_EQ(xs.back(), 1.0);
  EXPECT_EQ(slurp(path("u.tsv")).find('\t') != std::string::npos, true);
  // Snapshots at steps 0, 5, 10, 15, 20: 5 blocks of 51 rows "t x u".
  const std::string snap = slurp(path("s.tsv"));
  EXPECT_EQ(std::count(snap.begin(), snap.end(), '\n'), 5 * 52);
  EXPECT_EQ(snap.rfind("0.02\t1\t", std::string::npos) != std::string::npos, true);
  // JSON summary.
  const std::string js = slurp(path("r.json"));
  EXPECT_EQ(json_number(js, "N"), 51);
  EXPECT_EQ(json_number(js, "steps"), 20);
  EXPECT_NE(js.find("\"method\": \"implicit\""), std::string::npos);
  EXPECT_NE(js.find("\"solver\": \"cg\""), std::string::npos);
  EXPECT_GT(json_number(js, "mean"), 0);
  EXPECT_NE(js.find("\"max_error\": null"), std::string::npos);  // no closed form for a Gaussian
  EXPECT_NEAR(json_number(js, "final"), json_number(js, "initial"), 1e-8);
  EXPECT_NE(js.find("\"timings\""), std::string::npos);
  // SVG: a document with axes, six curves and a legend.
  const std::string svg = slurp(path("p.svg"));
  EXPECT_EQ(svg.rfind("<?xml", 0), 0u);
  EXPECT_NE(svg.find("</svg>"), std::string::npos);
  EXPECT_EQ(std::count(svg.begin(), svg.end(), 'M') >= 6, true);
  EXPECT_NE(svg.find("t = 0.02"), std::string::npos);
}

TEST_F(heat1d_app, JsonOnStdoutWithTheErrorForSineModes) {
  const outcome o = run("--device cpu --method explicit --N 41 --ic sin:2 --json -");
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_EQ(o.out.front(), '{');
  EXPECT_GT(json_number(o.out, "max_error"), 0);
  EXPECT_LT(json_number(o.out, "max_error"), 1e-3);
  EXPECT_LE(json_number(o.out, "r"), 0.5);
  EXPECT_NE(o.out.find("\"solver\": \"none\""), std::string::npos);
}

TEST_F(heat1d_app, SteadyStateReachesTheLinearProfile) {
  const outcome o =
      run("--device cpu --steady --method implicit --dt 0.05 --left dirichlet:1 --right neumann:2 "
          "--steady-tol 1e-10 --rtol 1e-13 --json -");
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_NE(o.out.find("\"reached\": true"), std::string::npos);
  EXPECT_LT(json_number(o.out, "max_error"), 1e-10);
  // --steady-tol 1e-12 is below what steps solved to 1e-13 can reach (they
  // stopped 3.2e-11 off it, and said so was within 1e-12).
  const outcome below =
      run("--device cpu --steady --method implicit --dt 0.05 --left dirichlet:1 --right neumann:2 "
          "--steady-tol 1e-12 --rtol 1e-13");
  EXPECT_EQ(below.code, 64);
  EXPECT_NE(below.err.find("a smaller --rtol"), std::string::npos) << below.err;
}

// N = 1001 at the default dt (Crank-Nicolson, r = 1000): the planner asked
// CG for 3.2e-14, below the 3.9e-14 it stalls at, and step 2 failed with exit
// 2. Now the tolerance stays reachable, and the run it cannot carry to 1e-8
// is refused before it starts, naming a --steady-tol that works.
TEST_F(heat1d_app, SteadyPlanKeepsTheStepSolvesReachable) {
  const outcome refused = run("--device cpu --steady --bc dirichlet:1 -n 1001");
  EXPECT_EQ(refused.code, 64) << refused.err;
  const std::string::size_type at = refused.err.rfind("--steady-tol ");
  ASSERT_NE(at, std::string::npos) << refused.err;
  const std::string tol = refused.err.substr(at + 13, refused.err.find_first_of(" )", at + 13) - at - 13);
  const outcome taken = run("--device cpu --steady --bc dirichlet:1 -n 1001 --json - --steady-tol " + tol);
  ASSERT_EQ(taken.code, 0) << taken.err;
  EXPECT_NE(taken.out.find("\"reached\": true"), std::string::npos);
  EXPECT_LT(json_number(taken.out, "max_error"), std::stod(tol));
}

// --steady stops on the distance the change implies, not the change: the
// default run is within --steady-tol of the steady state (it was 1e-6 off a
// 1e-8 tolerance), kappa = 1e-6 is not reached (it was, 1.0 off), and steps
// whose own errors stall them above the tolerance are refused up front
// (float was "reached" 5e-3 off).
TEST_F(heat1d_app, SteadyStateIsJudgedByItsDistance) {
  const outcome near = run("--device cpu --steady --json -");
  ASSERT_EQ(near.code, 0) << near.err;
  EXPECT_NE(near.out.find("\"reached\": true"), std::string::npos);
  EXPECT_LT(json_number(near.out, "max_error"), 1.5e-8);
  EXPECT_LT(json_number(near.out, "estimated_distance"), 1e-8);
  EXPECT_NEAR(json_number(near.out, "contraction"), 0.99018, 1e-5);

  // Runs that end short of it (exit 2) and steps refused before the run (64):
  // the message says why and what to change, as a list that reads ("use or
  // --steady-tol ..." did not).
  struct short_of {
    const char* args;
    int code;
    std::vector<const char*> says;
  };
  for (const short_of& e : std::vector<short_of>{
           {"--kappa 1e-6 --max-steps 1000",
            2,
            {"steady state not reached in 1000 steps", "more steps at this --dt"}},
           {"--precision float --bc dirichlet:1", 64, {"stall about", "--precision double"}},
           {"--method explicit --dt 1e-4 --force",
            64,
            {"do not approach the steady state", "use a smaller --dt"}},
           // Steps too small to move: each step's solve iterates at least once,
           // so they are not mistaken for a steady state (they took no
           // iteration, changed nothing and "reached" it 1 off); where the
           // change rounds away, refused.
           {"--kappa 1e-10 --max-steps 1000", 2, {"steady state not reached"}},
           {"--kappa 1e-8 --precision float",
            64,
            {"rounds away in float", "use --precision double, or a larger --dt"}},
           {"--kappa 1e-14", 64, {"use a larger --dt"}},
           // so small that twice the step rounds away too: the list was empty ("; use  (see --help)")
           {"--kappa 1e-18", 64, {"; use a much larger --dt or --kappa (r = kappa dt / dx^2 is 1e-17)"}},
           {"--left dirichlet:1 --right dirichlet:3 --steady-tol 1e-300",
            64,
            {"use a larger --dt, or --steady-tol"}},
       }) {
    const outcome o = run(std::string("--device cpu --steady ") + e.args);
    EXPECT_EQ(o.code, e.code) << e.args << ": " << o.out << o.err;
    for (const char* said : e.says) EXPECT_NE(o.err.find(said), std::string::npos) << e.args << ": " << o.err;
    EXPECT_EQ(o.err.find("use or"), std::string::npos) << o.err;
  }

  // Double: the default solve tolerance is tightened to reach a steady state off zero.
  const outcome tight = run("--device cpu --steady --bc dirichlet:1 --ic gauss:0.3:0.1 --json -");
  ASSERT_EQ(tight.code, 0) << tight.err;
  EXPECT_LT(json_number(tight.out, "rtol"), 1e-10);
  EXPECT_LT(json_number(tight.out, "max_error"), 1.5e-8);
}

// Large steps (rho -> 0) whose solves leave errors the change does not see:
// "reached, distance ~ 4.26e-14" with the profile 1.3e-7 off the steady
// state, exit 0. The profile is now checked against the steady state's closed
// form: the run ends stalled (exit 2), naming what lowers a step's error, and
// the remedy it names reaches it.
TEST_F(heat1d_app, SteadyStateStalledOffItIsNotReached) {
  const std::string big =
      "--device cpu -n 1001 -m implicit --left dirichlet:1 --right dirichlet:-1 "
      "--ic step:0.2 --steady --dt 100 ";
  const outcome stalled = run(big + "--json -");
  EXPECT_EQ(stalled.code, 2) << stalled.err;
  EXPECT_NE(stalled.out.find("\"reached\": false"), std::string::npos) << stalled.out;
  EXPECT_GT(json_number(stalled.out, "stalled_off"), 1e-8);
  EXPECT_NEAR(json_number(stalled.out, "stalled_off"), json_number(stalled.out, "max_error"), 1e-20);
  for (const char* said : {"steady state not reached: the steps stalled", "a smaller --rtol (it is 1e-10)",
                           "--solver direct", "--steady-tol "})
    EXPECT_NE(stalled.err.find(said), std::string::npos) << stalled.err;
  const outcome text = run(big);
  EXPECT_NE(text.out.find("steady state: NOT reached, stalled"), std::string::npos) << text.out;
  for (const char* fix : {"--rtol 1e-12", "--solver direct"}) {
    const outcome fixed = run(std::string("--device cpu -n 1001 -m implicit --left dirichlet:1 --right "
                                          "dirichlet:-1 --ic step:0.2 --steady --dt 100 --json - ") +
                              fix);
    ASSERT_EQ(fixed.code, 0) << fix << ": " << fixed.err;
    EXPECT_LT(json_number(fixed.out, "max_error"), 1e-8) << fix;
    EXPECT_NE(fixed.out.find("\"stalled_off\": null"), std::string::npos) << fixed.out;
  }
}

TEST_F(heat1d_app, BadInputGivesOneClearErrorAndExitCode) {
  struct bad {
    std::string args;
    int code;
    std::string says;
  };
  const std::vector<bad> cases = {
      {"--N 2", 64, "at least 3"},
      {"--kappa -1", 64, "kappa"},
      {"--kappa nan", 64, "kappa"},
      {"--L 0", 64, "length"},
      {"--T -1", 64, "final time"},
      {"--dt -0.1", 64, "dt"},
      {"--dt nan", 64, "dt"},
      {"--dt 0.01 --steps 5", 64, "not both"},
      {"--bc robin", 64, "boundary condition"},
      {"--rtol 0 --atol 0", 64, "exactly 0"},
      {"--rtol 2 --solver jacobi", 64, "--rtol must be below 1"},  // grew a decaying profile to 1e30
      {"--left dirichlet:x", 64, "boundary condition"},
      {"--ic cos:1", 64, "initial condition"},
      {"--method rk4", 64, "method"},
      {"--solver gmres", 64, "solver"},
      {"--kernel nosuch", 64, "csr-vector"},
      {"--precision half", 64, "precision"},
      {"--omega 3 --solver jacobi", 64, "omega"},
      {"--method explicit --dt 0.001", 64, "largest stable dt is 5e-05"},
      {"--steady --bc neumann:1", 64, "no steady state"},
      {"--steady-tol 1e-6", 64, "--steady-tol applies to --steady runs"},
      {"--max-steps 10", 64, "--max-steps applies to --steady runs"},
      // options another one reads were dropped without it
      {"--plot-curves 5", 64,
       "--plot-curves applies to --plot FILE.svg; choose --plot FILE.svg too, or leave --plot-curves out"},
      {"--bench-steps 20", 64, "--bench-steps applies to --bench"},
      {"--bench-warmup 2", 64, "--bench-warmup applies to --bench"},
      {"--omega 1.5", 64, "--omega applies to --solver jacobi"},
      {"--omega 1.5 --solver jacobi --method explicit", 64, "--omega applies to --solver jacobi"},
      {"--method explicit --solver jacobi", 64,
       "--solver applies to --method implicit or cn, not to --method explicit"},
      {"--plot u.png", 64, "--plot writes SVG, and 'u.png' names another format (.png)"},
      // a step solve's stop rule where no step iterates: explicit and direct steps ignored it
      {"--method explicit --rtol 1e-3", 64,
       "--rtol applies to --solver cg or jacobi (with --method implicit or cn), not to --method explicit, "
       "whose steps solve no system; choose --solver cg or jacobi (with --method implicit or cn) too, or "
       "leave "
       "--rtol out"},
      {"--method explicit --max-iter 5", 64, "--max-iter applies to --solver cg or jacobi"},
      {"--method explicit --atol 1e-9", 64, "--atol applies to --solver cg or jacobi"},
      {"--solver direct --max-iter 5", 64,
       "--max-iter applies to --solver cg or jacobi (with --method implicit or cn), not to --solver direct, "
       "which solves each step exactly, without iterating; choose --solver cg or jacobi (with --method "
       "implicit "
       "or cn) too, or leave --max-iter out"},
      {"--solver direct --atol 1e-9", 64, "--atol applies to --solver cg or jacobi"},
      {"--solver direct --method implicit --rtol 1e-3", 64, "not to --solver direct"},
      {"--method explicit --check-interval 4", 64, "--check-interval applies to --solver cg or jacobi"},
      {"--solver direct --check-interval 4", 64, "not to --solver direct"},
      {"--check-interval 4", 64,  // (every case runs with --device cpu)
       "--check-interval applies to GPU runs (--device cuda or auto), not to --device cpu or --kernel cpu"},
      {"--snapshot-every 3", 64, "--snapshot"},
      {"--nosuchoption", 64, "nosuchoption"},
      {"--L 1e308", 64, "dx^2 is out of double precision's range"},
      {"--kappa 1e308", 64, "past 1e100"},
      {"--method explicit --kappa 1e300", 64, "steps is too many"},
      {"--output ''", 64, "--output needs a value"},
      {"--json ''", 64, "--json needs a value"},
      {"--bc ''", 64, "--bc needs a value"},
      {"--ic file:/nonexistent/u0.txt", 66, "/nonexistent/u0.txt"},
      {"--ic file:/dev/zero", 65, "/dev/zero:1: binary data"},  // was read until memory ran out
      // A stray word was dropped: '--n 500' read '--n' as --no-progress and ran N = 101.
      {"--n 500", 64, "unexpected argument '500': '--n' was read as --no-progress, which takes no value"},
      {"u.tsv", 64, "unexpected argument 'u.tsv'"},
  };
  for (const auto& c : cases) {
    const outcome o = run("--device cpu " + c.args);
    EXPECT_EQ(o.code, c.code) << c.args << ": " << o.err;
    EXPECT_EQ(o.err_lines(), 1) << c.args << ": " << o.err;
    EXPECT_EQ(o.err.rfind("heat1d: error: ", 0), 0u) << o.err;
    EXPECT_NE(o.err.find(c.says), std::string::npos) << c.args << ": " << o.err;
    EXPECT_EQ(o.out, "") << c.args;
  }
  // Under --device auto with no usable GPU (none visible) --check-interval is
  // accepted, the steps run on the CPU, and a note says it went unread.
  {
    const outcome o =
        run_command("CUDA_VISIBLE_DEVICES= " + quote(app_path("heat1d")) +
                        " --N 51 --T 0.02 --steps 20 --method implicit --solver cg --check-interval 8",
                    dir_);
    EXPECT_EQ(o.code, 0) << o.err;
    EXPECT_NE(o.err.find("heat1d: note: --check-interval is read by GPU runs"), std::string::npos) << o.err;
  }
  // Under --device auto with no usable GPU, a GPU kernel or --bench is the
  // CUDA failure, exit 70 as pagerank's (it was 64, a bad command line).
  for (const char* args : {" --kernel csr-vector", " --bench"}) {
    const outcome o = run_command("CUDA_VISIBLE_DEVICES= " + quote(app_path("heat1d")) + args, dir_);
    EXPECT_EQ(o.code, 70) << args << ": " << o.err;
    EXPECT_EQ(o.err_lines(), 1) << o.err;
    EXPECT_NE(o.err.find(cuda::built() ? "no usable CUDA device" : "built without CUDA"), std::string::npos)
        << o.err;
  }
  // --force runs the unstable explicit step anyway.
  EXPECT_EQ(run("--device cpu --method explicit --dt 0.001 --force").code, 0);
}

// The largest stable dt, as the refusal prints it, runs when passed back
// (printed to 10 digits, 1/72 came out as 0.01388888889, above the limit,
// and was refused as "r = 0.5 > 1/2").
TEST_F(heat1d_app, TheLargestStableDtPrintedRuns) {
  for (const char* n : {"7", "101", "1000"}) {
    const outcome refused = run(std::string("--device cpu --method explicit --N ") + n + " --dt 1");
    ASSERT_EQ(refused.code, 64) << refused.err;
    const std::string key = "largest stable dt is ";
    const auto at = refused.err.find(key);
    ASSERT_NE(at, std::string::npos) << refused.err;
    const std::string dt =
        refused.err.substr(at + key.size(), refused.err.find(' ', at + key.size()) - at - key.size());
    const outcome ran =
        run(std::string("--device cpu --method explicit --N ") + n + " --dt " + dt + " --T " + dt);
    EXPECT_EQ(ran.code, 0) << n << " --dt " << dt << ": " << ran.err;
  }
}

TEST_F(heat1d_app, InitialConditionFiles) {
  {
    std::ofstream f(path("u0.txt"));
    for (int i = 0; i < 11; ++i) f << (i < 5 ? 1.0 : 0.0) << '\n';
    std::ofstream(path("short.txt")) << "1 2 3\n";
    std::ofstream(path("bad.txt")) << "1\n2\nx3\n";
  }
  outcome o = run("--device cpu --N 11 --bc insulated --ic file:" + quote(path("u0.txt")) + " -o " +
                  quote(path("u.tsv")));
  EXPECT_EQ(o.code, 0) << o.err;
  o = run("--device cpu --N 11 --ic file:" + quote(path("short.txt")));
  EXPECT_EQ(o.code, 65) << o.err;
  EXPECT_NE(o.err.find("3 values"), std::string::npos) << o.err;
  o = run("--device cpu --N 11 --ic file:" + quote(path("bad.txt")));
  EXPECT_EQ(o.code, 65) << o.err;
  EXPECT_NE(o.err.find(":3:"), std::string::npos) << o.err;  // file:line
  o = run("--device cpu --N 11 --ic file:" + quote(dir_.string()));
  EXPECT_EQ(o.code, 66) << o.err;
}

// An output that is the initial-condition file (or another output) is refused
// before anything runs; the file is left as it was, and no temporary remains.
TEST_F(heat1d_app, OutputThatIsAnInputIsRefused) {
  std::string u0;
  for (int i = 0; i < 11; ++i) u0 += i < 5 ? "1\n" : "0\n";
  std::ofstream(path("u0.txt")) << u0;
  const std::string ic = " --device cpu --N 11 --ic file:" + quote(path("u0.txt"));
  for (const std::string& opts :
       {" -o " + quote(path("u0.txt")), " --json " + quote(path("u0.txt")),
        " --plot " + quote(path("u0.txt")), " -o " + quote(path("a.tsv")) + " --json " + quote(path("a.tsv")),
        // one new file by two spellings: the JSON was written over the profile
        " -o " + quote(path("b.tsv")) + " --json " + quote((dir_ / "." / "b.tsv").string())}) {
    const outcome o = run(ic + opts);
    EXPECT_EQ(o.code, 64) << opts << ": " << o.err;
    EXPECT_EQ(o.err_lines(), 1) << o.err;
    EXPECT_EQ(slurp(path("u0.txt")), u0);
  }
  const outcome o = run(ic + " -o " + quote(path("u.tsv")) + " --json " + quote(path("s.json")));
  EXPECT_EQ(o.code, 0) << o.err;
  for (const auto& e : std::filesystem::directory_iterator(dir_))
    EXPECT_EQ(e.path().filename().string().find(".tmp-"), std::string::npos) << e.path();
}

// '-o -' is the profile alone on stdout (the summary goes to stderr; its
// lines followed the profile's), and at most one output may be '-'.
TEST_F(heat1d_app, StandardOutputHoldsOneOutputAlone) {
  outcome o = run("--device cpu --N 3 --steps 10 --method explicit -o -");
  ASSERT_EQ(o.code, 0) << o.err;
  // One interior point, r = 0.04: u(1/2) = (1 - 2 r)^10 sin(pi / 2) = 0.92^10.
  EXPECT_EQ(o.out, "0\t0\n0.5\t" + std::string("0.43438845422363231") + "\n1\t0\n");
  EXPECT_NE(o.err.find("heat1d: N = 3"), std::string::npos) << o.err;
  for (const std::string opts :
       {"-o - --json -", "--plot - -o -", "--snapshot - --snapshot-every 5 --json -"}) {
    o = run("--device cpu --N 11 " + opts);
    EXPECT_EQ(o.code, 64) << opts << ": " << o.err;
    EXPECT_EQ(o.err_lines(), 1) << o.err;
    EXPECT_NE(o.err.find("both name standard output"), std::string::npos) << o.err;
    EXPECT_EQ(o.out, "") << opts;
  }
}

// /dev/stdout, /dev/fd/1 and /proc/self/fd/1 are standard output as '-' is:
// 'heat1d -o /dev/stdout > u.tsv' gave a TSV with the text summary after the
// profile, '--json /dev/stdout' the JSON and then the summary, and
// '-o /dev/stdout --json -' both outputs in one stream, exit 0.
TEST_F(heat1d_app, StandardOutputByAnyNameHoldsOneOutputAlone) {
  outcome o = run("--device cpu --N 3 --steps 10 --method explicit -o /dev/stdout");
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_EQ(o.out, "0\t0\n0.5\t" + std::string("0.43438845422363231") + "\n1\t0\n");
  EXPECT_NE(o.err.find("heat1d: N = 3"), std::string::npos) << o.err;
  o = run("--device cpu --N 11 --json /dev/fd/1");
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_EQ(o.out.rfind("{\n", 0), 0u) << o.out;
  EXPECT_EQ(o.out.substr(o.out.size() - 2), "}\n") << o.out;
  EXPECT_EQ(o.out.find("heat1d: N ="), std::string::npos) << o.out;
  for (const std::string opts : {"-o /dev/stdout --json -", "--plot /proc/self/fd/1 -o /dev/fd/1"}) {
    o = run("--device cpu --N 11 " + opts);
    EXPECT_EQ(o.code, 64) << opts << ": " << o.err;
    EXPECT_EQ(o.err_lines(), 1) << o.err;
    EXPECT_NE(o.err.find("both name standard output"), std::string::npos) << o.err;
    EXPECT_EQ(o.out, "") << opts;
  }
}

// A summary or '--json -' that cannot reach stdout (a full disk) is an error:
// the exit's flush failed silently and the run exited 0 with nothing written.
TEST_F(heat1d_app, AStdoutThatCannotBeWrittenIsAnError) {
  if (!fs::exists("/dev/full")) GTEST_SKIP() << "no /dev/full";
  for (const std::string opts : {"", " --json -"}) {
    const outcome o =
        run_command("(" + quote(app_path("heat1d")) + " --device cpu --N 11" + opts + " >/dev/full)", dir_);
    EXPECT_EQ(o.code, 66) << opts << ": " << o.err;
    EXPECT_EQ(o.err_lines(), 1) << o.err;
    EXPECT_NE(o.err.find("heat1d: error: standard output: cannot write: No space left on device"),
              std::string::npos)
        << o.err;
  }
}

// --bc beside both --left and --right went unread without a word; -N past
// int's range below was named -2147483648.
TEST_F(heat1d_app, AnUnreadBcAndAHugeNegativeNAreNamed) {
  const outcome bc = run("--bc neumann:1 --left dirichlet:0 --right dirichlet:0");
  EXPECT_EQ(bc.code, 64) << bc.err;
  EXPECT_NE(bc.err.find("--bc sets both ends"), std::string::npos) << bc.err;
  EXPECT_EQ(run("--device cpu --bc neumann:0 --left dirichlet:0").code, 0);
  // --operator on the CPU went unread too, and --json said "operator": "csr".
  const outcome op = run("-n 5 -d cpu --operator csr");
  EXPECT_EQ(op.code, 64) << op.err;
  EXPECT_NE(op.err.find("--operator applies to GPU runs"), std::string::npos) << op.err;
  const outcome n = run("-n -3000000000");
  EXPECT_EQ(n.code, 64) << n.err;
  EXPECT_NE(n.err.find("(got -3000000000)"), std::string::npos) << n.err;
}

// The profile, snapshot, plot and JSON files replace their targets together:
// a --plot or --json that could not be written had left the others replaced.
TEST_F(heat1d_app, AFailedOutputLeavesEveryEarlierFile) {
  if (!fs::exists("/dev/full")) GTEST_SKIP() << "no /dev/full";
  for (const char* f : {"u.tsv", "s.tsv"}) std::ofstream(path(f)) << "old\n";
  for (const std::string failing : {" --plot /dev/full", " --json /dev/full"}) {
    const outcome o = run("--device cpu --N 11 -o " + quote(path("u.tsv")) + " --snapshot " +
                          quote(path("s.tsv")) + " --snapshot-every 10" + failing);
    EXPECT_EQ(o.code, 66) << failing << ": " << o.err;
    EXPECT_EQ(o.err_lines(), 1) << o.err;
    for (const char* f : {"u.tsv", "s.tsv"}) EXPECT_EQ(slurp(path(f)), "old\n") << f << failing;
  }
  for (const auto& e : fs::directory_iterator(dir_))
    EXPECT_EQ(e.path().filename().string().find(".tmp-"), std::string::npos) << e.path();
}

TEST_F(heat1d_app, NonConvergenceNamesTheStepAndStillWritesTheProfile) {
  const outcome o = run("--device cpu --method implicit --solver jacobi --max-iter 5 --steps 10 -o " +
                        quote(path("u.tsv")) + " --json " + quote(path("r.json")));
  EXPECT_EQ(o.code, 2) << o.err;
  EXPECT_EQ(o.err_lines(), 1) << o.err;
  EXPECT_NE(o.err.find("step 1 "), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("relative residual"), std::string::npos) << o.err;
  // The profile at the last good step (here the initial one) is written.
  std::ifstream u(path("u.tsv"));
  int lines = 0;
  double x, v;
  while (u >> x >> v) ++lines;
  EXPECT_EQ(lines, 101);
  const std::string js = slurp(path("r.json"));
  EXPECT_NE(js.find("\"converged\": false"), std::string::npos);
  EXPECT_EQ(json_number(js, "failed_step"), 1);
}

// A run that blows up (NaN or inf in u) is an error, not a result: one
// line naming the time and the cause, exit 2, "finite": false in the JSON,
// the profile still written. It stops at the first check after (steps 256,
// 512, 1024, ...), not at T: the last 500 of 1000 steps went on over NaN.
TEST_F(heat1d_app, ABlownUpSolutionIsAnError) {
  for (const char* prec : {"double", "float"}) {
    const outcome o = run(std::string("--device cpu --precision ") + prec +
                          " --method explicit --force --N 101 --dt 1e-3 --T 1 -o " + quote(path("u.tsv")) +
                          " --json " + quote(path("r.json")));
    EXPECT_EQ(o.code, 2) << o.err;
    EXPECT_EQ(o.err_lines(), 1) << o.err;
    EXPECT_NE(o.err.find("not finite at t = 0.256 (step 256)"), std::string::npos) << o.err;
    EXPECT_NE(o.err.find("the run stopped there"), std::string::npos) << o.err;
    EXPECT_NE(o.err.find("r > 1/2"), std::string::npos) << o.err;
    EXPECT_NE(slurp(path("r.json")).find("\"finite\": false"), std::string::npos);
    EXPECT_NE(slurp(path("r.json")).find("\"converged\": false"), std::string::npos);
    EXPECT_TRUE(fs::exists(path("u.tsv")));
  }
  // Slower to blow up (r just past 1/2): the step it was last finite named.
  const outcome slow = run("--device cpu --method explicit --force --N 101 --dt 5.2e-5 --T 1");
  EXPECT_EQ(slow.code, 2) << slow.err;
  EXPECT_NE(slow.err.find("; finite at step "), std::string::npos) << slow.err;
  // Snapshots stop at the last good one: those between two checks held NaN.
  const outcome snaps = run("--device cpu --method explicit --force --steps 1024 --snapshot " +
                            quote(path("s.tsv")) + " --snapshot-every 100");
  EXPECT_EQ(snaps.code, 2) << snaps.err;
  EXPECT_NE(snaps.err.find("(step 800; finite at step 700)"), std::string::npos) << snaps.err;
  EXPECT_EQ(slurp(path("s.tsv")).find("nan"), std::string::npos);
  // Forced unstable steps that stay finite (200 steps at r = 5): a warning, exit 0 as documented.
  const outcome short_run = run("--device cpu --method explicit --force --steps 200");
  EXPECT_EQ(short_run.code, 0) << short_run.err;
  EXPECT_NE(short_run.err.find("warning: explicit steps with r = kappa dt / dx^2 = 5 > 1/2 are unstable"),
            std::string::npos)
      << short_run.err;
  const outcome ok = run("--device cpu --N 101 --json -");
  EXPECT_EQ(ok.code, 0) << ok.err;
  EXPECT_EQ(ok.err, "");
  EXPECT_NE(ok.out.find("\"finite\": true"), std::string::npos);
  // Every way of asking for steps has one bound: --steps and --max-steps as --dt.
  for (const char* args :
       {"--steps 9223372036854775807", "--steady --max-steps 9223372036854775807", "--dt 1e-17"}) {
    const outcome many = run(std::string("--device cpu ") + args);
    EXPECT_EQ(many.code, 64) << args;
    EXPECT_NE(many.err.find("too many"), std::string::npos) << many.err;
  }
}

TEST_F(heat1d_app, GpuRunMatchesTheCpuRun) {
  if (!cuda::available()) {
    if (gpu_required()) FAIL() << "PERRON_REQUIRE_GPU=1 but no usable CUDA device";
    GTEST_SKIP() << "no CUDA device";
  }
  const outcome g = run("--device cuda --N 2001 --steps 50 --json -");
  const outcome c = run("--device cpu --N 2001 --steps 50 --json -");
  ASSERT_EQ(g.code, 0) << g.err;
  ASSERT_EQ(c.code, 0) << c.err;
  EXPECT_NEAR(json_number(g.out, "max_error"), json_number(c.out, "max_error"), 1e-9);
  EXPECT_GE(json_number(g.out, "per_step"), 1);  // host syncs per step on the GPU
  EXPECT_LE(json_number(g.out, "per_step"), 3);
  const outcome b = run("--device cuda --N 100000 --method explicit --bench --bench-steps 20 --json -");
  ASSERT_EQ(b.code, 0) << b.err;
  EXPECT_GT(json_number(b.out, "copy_bandwidth_gbs"), 0);
  EXPECT_GT(json_number(b.out, "step_ms_median"), 0);
}

// A run of 10^11 point updates or more says so before its first step: an
// explicit run on a fine grid (2 * 10^8 steps under the stability limit) ran
// for hours with no word where stderr was no terminal. Stopped by timeout.
TEST_F(heat1d_app, ALongRunSaysSoFirst) {
  const outcome o =
      run_command("timeout 3 " + quote(app_path("heat1d")) + " -m explicit -n 30001 --device cpu", dir_);
  EXPECT_EQ(o.code, 124) << o.err;
  EXPECT_NE(o.err.find("heat1d: 200000000 steps of dt = 5e-10 on 30001 points planned"), std::string::npos)
      << o.err;
  EXPECT_NE(o.err.find("stability limit"), std::string::npos) << o.err;
  // Many steps of few points: each step's fixed cost counts (10^9 steps of 3 points said nothing).
  const outcome tiny = run_command(
      "timeout 3 " + quote(app_path("heat1d")) + " -n 3 -m explicit --T 1 --dt 1e-9 --device cpu", dir_);
  EXPECT_EQ(tiny.code, 124) << tiny.err;
  EXPECT_NE(tiny.err.find("heat1d: 1000000000 steps of dt = 1e-09 on 3 points planned"), std::string::npos)
      << tiny.err;
  const outcome quick = run("--device cpu");
  EXPECT_EQ(quick.code, 0) << quick.err;
  EXPECT_EQ(quick.err.find("point updates"), std::string::npos) << quick.err;
  // A run refused is not announced: the note came above the refusal, two lines.
  std::ofstream(path("short.txt")) << "1 2 3\n";
  for (const std::string& refused :
       {std::string("-n 2147483647"), "-n 1000000000 --ic file:" + quote(path("short.txt"))}) {
    const outcome o = run("--device cpu " + refused);
    EXPECT_EQ(o.code, 65) << o.err;
    EXPECT_EQ(o.err_lines(), 1) << o.err;
    EXPECT_EQ(o.err.find("point updates"), std::string::npos) << o.err;
  }
  // 10^5 steps of a small grid (a fraction of a second) stay quiet.
  const outcome short_run = run("--device cpu -n 11 --T 0.1 --dt 1e-6");
  EXPECT_EQ(short_run.code, 0) << short_run.err;
  EXPECT_EQ(short_run.err.find("point updates"), std::string::npos) << short_run.err;
}

// An output that cannot be written (a missing folder, a folder named as the
// file) is refused before the first step: it was found only when written,
// after the last one, so a long run ended in the error and lost its profile
// and summary. The run here would take hours; it is killed by timeout if it starts.
TEST_F(heat1d_app, AnOutputThatCannotBeWrittenIsRefusedBeforeTheRun) {
  fs::create_directory(dir_ / "folder");
  const std::string long_run =
      "timeout 20 " + quote(app_path("heat1d")) + " -m explicit -n 30001 --device cpu ";
  for (const std::string option : {"--output", "--json", "--plot"})
    for (const std::string& file : {path("missing/u.out"), path("folder")}) {
      // Beside one output that can be written, which is not left behind either.
      const std::string other =
          option == "--output" ? "--json " + quote(path("j.json")) : "-o " + quote(path("u.tsv"));
      const outcome o = run_command(long_run + other + " " + option + " " + quote(file), dir_);
      EXPECT_EQ(o.code, 66) << option << " " << file << ": " << o.err;
      EXPECT_EQ(o.err_lines(), 1) << o.err;
      EXPECT_NE(o.err.find(file + ": "), std::string::npos) << o.err;
      EXPECT_EQ(o.out, "");
    }
  std::vector<std::string> left;
  for (const auto& e : fs::directory_iterator(dir_))
    if (e.path().filename() != "stdout" && e.path().filename() != "stderr")
      left.push_back(e.path().filename().string());
  EXPECT_EQ(left, std::vector<std::string>{"folder"});
}

}  // namespace
}  // namespace perron::test
