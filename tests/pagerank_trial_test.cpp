// The pull trial (solvers/pagerank_trial.hpp) without a GPU: the model's
// confidence band (statistics -> sure or unsure), the candidates, the pick
// with a fake timer (fastest, ties to the model, failed candidates), the
// decision texts, and the record kept with the cache entry (round trip,
// every kind of invalid record refused).
#include "solvers/pagerank_trial.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "solvers/pagerank.hpp"

namespace perron {
namespace {

pull_facts facts(std::size_t links, index_t max_in, std::size_t bytes, bool pattern = true) {
  return pull_facts{pattern, links, max_in, bytes};
}

TEST(pagerank_trial, BandFromTheCorpus) {
  const index_t long_row = short_rows_in_degree, short_row = short_rows_in_degree - 1;
  const auto small = static_cast<index_t>(persistent_min_links);
  // Sure: below persistent_min_links links on fewer vertices (the persistent
  // pull) and from band_max_links links on, in both precisions and row
  // shapes; unsure between, and on few links over many vertices.
  for (const std::size_t b : {4, 8})
    for (const index_t m : {index_t(1), short_row, long_row, index_t(100000)}) {
      // (but for float with short rows, below: unsure to short_rows_band_max_links)
      EXPECT_EQ(model_band(facts(band_max_links, m, b)).unsure, b == 4 && m == short_row) << b << " " << m;
      EXPECT_FALSE(model_band(facts(short_rows_band_max_links, m, b)).unsure) << b << " " << m;
      EXPECT_FALSE(model_band(facts(99'000'000, m, b)).unsure);
      EXPECT_TRUE(model_band(facts(band_max_links - 1, m, b)).unsure) << b << " " << m;
      EXPECT_TRUE(model_band(facts(persistent_min_links, m, b)).unsure) << b << " " << m;
      pull_facts few = facts(persistent_min_links - 1, m, b);
      few.vertices = small - 1;
      EXPECT_FALSE(model_band(few).unsure) << b << " " << m;
      few.vertices = small;
      EXPECT_TRUE(model_band(few).unsure) << b << " " << m;
      EXPECT_FALSE(model_band(facts(10, m, b)).unsure) << b << " " << m;
    }
  EXPECT_TRUE(model_band(facts(2'984'997, 4310, 4)).unsure);    // rmat:18:3000000:0.5,0.2,0.2, a miss
  EXPECT_TRUE(model_band(facts(2'740'616, 10651, 4)).unsure);   // web:262144:3000000 float, a miss
  EXPECT_TRUE(model_band(facts(500'000, 1, 8)).unsure);         // chain:1000000:2: persistent, 0.83x
  EXPECT_FALSE(model_band(facts(25'571, 212, 4)).unsure);       // email-Eu-core: persistent, 0.67x
  EXPECT_FALSE(model_band(facts(9'711'274, 26819, 8)).unsure);  // rmat:20 double: fused
  // Short rows in float past band_max_links: the two pulls within 0.93-1.13x
  // of each other; a trial. Not chains (0.66x), nor double (fused, sure).
  EXPECT_TRUE(model_band(facts(5'995'000, 4, 4)).unsure);       // grid:1000:1500, held out: 1.056x
  EXPECT_TRUE(model_band(facts(5'999'999, 11, 4)).unsure);      // er:4000000:6000000: 0.99x
  EXPECT_TRUE(model_band(facts(6'999'999, 14, 4)).unsure);      // er:3000000:7000000: 1.13x
  EXPECT_FALSE(model_band(facts(5'995'000, 4, 8)).unsure);      // grid:1000:1500 double: fused
  EXPECT_FALSE(model_band(facts(2'999'999 * 2, 1, 4)).unsure);  // a chain: spmv
  EXPECT_FALSE(model_band(facts(10'233'600, 4, 4)).unsure);     // grid:1600:1600: spmv, 0.82x
  EXPECT_FALSE(model_band(facts(5'995'000, 15, 4)).unsure);     // a longer row: fused, sure
  // A local own order past band_max_links: in double the SpMV pull 0.89-1.115x
  // the fused pull's step, in float 0.50-0.97x on web graphs and grids but
  // 1.12-1.23x on small worlds; a trial to local_band_max_links. Not below
  // local_min_vertices or the clause's locality, nor on chains.
  pull_facts web = facts(9'300'000, 3196, 8);  // web:800000:10000000:0.95,3, held out: 1.115x
  web.vertices = 800'000;
  web.local_links = 0.95;
  EXPECT_TRUE(model_band(web).unsure);
  web.value_bytes = 4;
  EXPECT_TRUE(model_band(web).unsure);
  web.local_links = local_min_fraction_float - 0.01;
  EXPECT_FALSE(model_band(web).unsure);
  web.local_links = 0.4;  // float's clause, not double's
  EXPECT_TRUE(model_band(web).unsure);
  web.value_bytes = 8;
  EXPECT_FALSE(model_band(web).unsure);
  web.local_links = 0.95;
  pull_facts ws = facts(12'000'000, 10, 4);  // ws:2000000:6:0.01, held out: 1.23x by the model's SpMV pull
  ws.vertices = 2'000'000;
  ws.local_links = 0.99;
  EXPECT_TRUE(model_band(ws).unsure);
  ws.max_in_degree = chain_in_degree;  // chain:10000000:10000000: the chain rule, sure
  ws.links = ws.vertices = 10'000'000;
  EXPECT_FALSE(model_band(ws).unsure);
  ws.value_bytes = 8;
  EXPECT_FALSE(model_band(ws).unsure);
  web.links = local_band_max_links;
  EXPECT_FALSE(model_band(web).unsure);
  web.links = 9'300'000;
  web.local_links = local_min_fraction_double - 0.01;
  EXPECT_FALSE(model_band(web).unsure);
  web.local_links = 0.95;
  web.vertices = local_min_vertices - 1;
  EXPECT_FALSE(model_band(web).unsure);
  // Nor past pattern_pull_max_vertices vertices, where only the SpMV pull runs.
  pull_facts many = facts(1000, 20, 4);
  many.vertices = pattern_pull_max_vertices + 1;
  EXPECT_FALSE(model_band(many).unsure);
  many.links = 200'000;
  EXPECT_FALSE(model_band(many).unsure);
  // A weighted graph has one pull: never unsure.
  EXPECT_FALSE(model_band(facts(1000, 20, 8, false)).unsure);
  EXPECT_FALSE(model_band(facts(200'000, 20, 8, false)).unsure);
  EXPECT_FALSE(model_band(facts(1000, 20, 8)).why.empty());
  EXPECT_FALSE(model_band(facts(200'000, 20, 8)).why.empty());
}

// Past band_max_links, wherever the persistent pull's resident mode may hold
// the pattern in the SMs' shared memory: the trial (3D meshes of 26 links a
// vertex 0.55-0.68x the fused pull's step resident, the same graphs with
// shuffled ids 1.17x; session 78). Not where the device is unknown, past its
// shared memory, or on chains.
TEST(pagerank_trial, BandWhereTheResidentModeMayHoldThePattern) {
  const std::size_t h200 = 132 * std::size_t{232448};
  pull_facts mesh = facts(5'423'752, 26, 4);  // the 27-point mesh of 60^3 vertices: 1.67x by the model
  mesh.vertices = 216'000;
  EXPECT_FALSE(model_band(mesh).unsure) << model_band(mesh).why;  // no device known
  mesh.grid_shared_bytes = h200;
  EXPECT_TRUE(resident_may_fit(mesh));
  for (const std::size_t b : {4, 8}) {
    mesh.value_bytes = b;  // the resident mode holds the index alone
    EXPECT_TRUE(model_band(mesh).unsure) << model_band(mesh).why;
    EXPECT_NE(model_band(mesh).why.find("resident"), std::string::npos) << model_band(mesh).why;
  }
  // 66^3 vertices (7.2 M links): past it (the persistent pull streamed, 1.6x).
  pull_facts big = facts(7'242'040, 26, 4);
  big.vertices = 287'496;
  big.grid_shared_bytes = h200;
  EXPECT_FALSE(resident_may_fit(big));
  EXPECT_FALSE(model_band(big).unsure) << model_band(big).why;
  // The same links over 10^6 vertices (a 7-point mesh of 100^3): a row a vertex
  // at least, 228 bytes a slice of 32: past it.
  pull_facts wide = facts(5'940'000, 6, 8);
  wide.vertices = 1'000'000;
  wide.grid_shared_bytes = h200;
  EXPECT_FALSE(model_band(wide).unsure) << model_band(wide).why;
  pull_facts chain = facts(5'000'000, 1, 4);
  chain.vertices = 5'000'001;
  chain.grid_shared_bytes = std::size_t{1} << 40;
  EXPECT_FALSE(model_band(chain).unsure) << model_band(chain).why;
  EXPECT_DOUBLE_EQ(resident_bytes_estimate(mesh),
                   4.0 * 5'423'752 + 228.0 / 32 * (216'000 + 5'423'752 / 64.0));
}

TEST(pagerank_trial, CandidatesStartWithTheModelsChoice) {
  const auto F = pagerank_pull::fused, S = pagerank_pull::spmv, P = pagerank_pull::persistent;
  pull_facts f;
  f.pattern = true;
  f.links = persistent_max_links;
  f.vertices = 500'000;
  EXPECT_EQ(trial_candidates(S, f), (std::vector<pagerank_pull>{S, F, P}));
  EXPECT_EQ(trial_candidates(F, f), (std::vector<pagerank_pull>{F, S, P}));
  EXPECT_EQ(trial_candidates(P, f), (std::vector<pagerank_pull>{P, F, S}));
  // Past persistent_max_links the persistent pull only where its resident
  // mode may hold the pattern (or the model chose it).
  f.links = persistent_max_links + 1;
  EXPECT_FALSE(persistent_trial_pays(f));  // the SMs' shared memory unknown
  EXPECT_EQ(trial_candidates(S, f), (std::vector<pagerank_pull>{S, F}));
  EXPECT_EQ(trial_candidates(F, f), (std::vector<pagerank_pull>{F, S}));
  EXPECT_EQ(trial_candidates(P, f), (std::vector<pagerank_pull>{P, F, S}));
  f.grid_shared_bytes = 30'000'000;  // an H200's, about
  EXPECT_TRUE(persistent_trial_pays(f));
  EXPECT_EQ(trial_candidates(S, f), (std::vector<pagerank_pull>{S, F, P}));
  f.links = 30'000'000;  // a block model of the local band: streamed
  f.vertices = 12'000'000;
  EXPECT_FALSE(persistent_trial_pays(f));
  EXPECT_EQ(trial_candidates(F, f), (std::vector<pagerank_pull>{F, S}));
}

trial_time tt(pagerank_pull p, double us, std::string k = "") {
  if (k.empty()) k = p == pagerank_pull::spmv ? "csr-vector" : kernel_text(p, std::nullopt);
  return trial_time{p, k, us};
}

TEST(pagerank_trial, PickTakesTheFastestAndGivesTiesToTheModel) {
  const auto F = pagerank_pull::fused, S = pagerank_pull::spmv;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(pick_trial({tt(S, 19.0), tt(F, 18.2)}, S), 1);  // fused 4.4% faster
  EXPECT_EQ(pick_trial({tt(F, 18.2), tt(S, 19.0)}, F), 0);
  EXPECT_EQ(pick_trial({tt(S, 10.0), tt(F, 12.0)}, S), 0);
  // Within trial_tie_fraction: the model's pull, whichever is first.
  EXPECT_EQ(pick_trial({tt(S, 10.15), tt(F, 10.0)}, S), 0);
  EXPECT_EQ(pick_trial({tt(F, 10.0), tt(S, 10.15)}, S), 1);
  EXPECT_EQ(pick_trial({tt(S, 10.0), tt(F, 10.0)}, F), 1);
  EXPECT_EQ(pick_trial({tt(S, 10.0 * (1 + trial_tie_fraction) * 1.001), tt(F, 10.0)}, S), 1);
  // A candidate that failed (NaN, zero, negative, inf) never wins; none: -1.
  EXPECT_EQ(pick_trial({tt(S, nan), tt(F, 30.0)}, S), 1);
  EXPECT_EQ(pick_trial({tt(S, 0.0), tt(F, 30.0)}, S), 1);
  EXPECT_EQ(pick_trial({tt(S, -1.0), tt(F, 30.0)}, S), 1);
  EXPECT_EQ(pick_trial({tt(S, std::numeric_limits<double>::infinity()), tt(F, 30.0)}, S), 1);
  EXPECT_EQ(pick_trial({tt(S, nan), tt(F, nan)}, S), -1);
  EXPECT_EQ(pick_trial({}, S), -1);
  // The model's pull not among the times: the fastest.
  EXPECT_EQ(pick_trial({tt(S, 11.0), tt(F, 10.0)}, pagerank_pull::persistent), 1);
}

TEST(pagerank_trial, RunTrialTimesEveryCandidateOnceInOrder) {
  std::map<pagerank_pull, double> fake{
      {pagerank_pull::spmv, 19.0}, {pagerank_pull::fused, 18.2}, {pagerank_pull::persistent, 18.9}};
  std::vector<pagerank_pull> asked;
  const auto timer = [&](pagerank_pull p) {
    asked.push_back(p);
    return tt(p, fake.at(p));
  };
  const pull_facts cnr = facts(3'216'152, 18235, 4);
  const trial_outcome o = run_trial(trial_candidates(pagerank_pull::spmv, cnr), pagerank_pull::spmv, timer);
  EXPECT_EQ(asked, (std::vector<pagerank_pull>{pagerank_pull::spmv, pagerank_pull::fused,
                                               pagerank_pull::persistent}));
  ASSERT_EQ(o.times.size(), 3u);
  EXPECT_EQ(o.winner, 1);
  EXPECT_EQ(decision_trial(o.times),
            "trial: spmv (csr-vector) 19 us vs fused 18.2 us vs persistent 18.9 us per step");
  EXPECT_EQ(decision_cached(o.times).rfind("cached trial: spmv (csr-vector) 19 us", 0), 0u);
  EXPECT_EQ(decision_model(), "model");
  // A failing candidate is reported as such.
  fake[pagerank_pull::fused] = std::numeric_limits<double>::quiet_NaN();
  const trial_outcome f = run_trial(trial_candidates(pagerank_pull::spmv, cnr), pagerank_pull::spmv, timer);
  EXPECT_EQ(f.winner, 0);
  EXPECT_NE(trial_text(f.times).find("fused failed"), std::string::npos) << trial_text(f.times);
}

TEST(pagerank_trial, RecordRoundTripsForTheSameGraphPrecisionAndDevice) {
  const pull_facts f = facts(3'216'152, 18235, 4);
  const std::string dev = "NVIDIA H100 80GB HBM3 (sm_90, 132 SMs)";
  trial_record r;
  r.times = {tt(pagerank_pull::spmv, 18.54, "cusparse"), tt(pagerank_pull::fused, 19.91)};
  const std::string text = format_trial_record(r, f, 325557, dev);
  const auto back = parse_trial_record(text, f, 325557, dev);
  ASSERT_TRUE(back.has_value()) << text;
  ASSERT_EQ(back->times.size(), 2u);
  EXPECT_EQ(back->times[0].pull, pagerank_pull::spmv);
  EXPECT_EQ(back->times[0].kernel, "cusparse");
  EXPECT_DOUBLE_EQ(back->times[0].us_per_step, 18.54);
  EXPECT_EQ(back->times[1].pull, pagerank_pull::fused);
  EXPECT_EQ(back->times[1].kernel, "pull-fused");
  // Another precision, graph or device: refused.
  EXPECT_FALSE(parse_trial_record(text, facts(3'216'152, 18235, 8), 325557, dev));
  EXPECT_FALSE(parse_trial_record(text, facts(3'216'153, 18235, 4), 325557, dev));
  EXPECT_FALSE(parse_trial_record(text, f, 325558, dev));
  EXPECT_FALSE(parse_trial_record(text, f, 325557, "NVIDIA H200"));
  EXPECT_TRUE(back->layout.empty());  // none kept
}

// The untimed kind of record: a pull and its layout, no times; the parse
// returns it marked so (the pull trial refuses it, solvers/pagerank_trial.cpp).
TEST(pagerank_trial, UntimedRecordKeepsThePullAndLayout) {
  const pull_facts f = facts(36'854, 340, 4);
  const std::string dev = "NVIDIA H200 (sm_90, 132 SMs)";
  trial_record r;
  r.untimed = true;
  r.times = {tt(pagerank_pull::persistent, std::numeric_limits<double>::quiet_NaN())};
  r.layout = "hub 0 window 32 resident 132 0";
  const std::string text = format_trial_record(r, f, 9914, dev);
  EXPECT_NE(text.find("\nuntimed persistent pull-persistent\n"), std::string::npos) << text;
  const auto back = parse_trial_record(text, f, 9914, dev);
  ASSERT_TRUE(back.has_value()) << text;
  EXPECT_TRUE(back->untimed);
  ASSERT_EQ(back->times.size(), 1u);
  EXPECT_EQ(back->times[0].pull, pagerank_pull::persistent);
  EXPECT_EQ(back->layout, r.layout);
  EXPECT_FALSE(parse_trial_record(text, f, 9915, dev));
  // An untimed record needs its layout, and holds nothing else.
  const std::string head = text.substr(0, text.find("untimed "));
  EXPECT_FALSE(parse_trial_record(head + "untimed persistent pull-persistent\n", f, 9914, dev));
  EXPECT_FALSE(
      parse_trial_record(head + "untimed persistent pull-persistent 3.5\nlayout hub 0\n", f, 9914, dev));
  EXPECT_FALSE(parse_trial_record(
      head + "untimed persistent pull-persistent\ntime fused pull-fused 4\nlayout hub 0\n", f, 9914, dev));
  EXPECT_FALSE(parse_trial_record(
      head + "time fused pull-fused 4\nuntimed persistent pull-persistent\nlayout hub 0\n", f, 9914, dev));
  EXPECT_FALSE(parse_trial_record(head + "untimed persistent cusparse\nlayout hub 0\n", f, 9914, dev));
  // A trial's record is not of that kind.
  trial_record t;
  t.times = {tt(pagerank_pull::fused, 19.91)};
  t.layout = "hub 0";
  const auto tb = parse_trial_record(format_trial_record(t, f, 9914, dev), f, 9914, dev);
  ASSERT_TRUE(tb.has_value());
  EXPECT_FALSE(tb->untimed);
}

// Where no pull trial ran: which remembered layout the chosen pull builds
// from, and when the build's layout is kept as an untimed record.
TEST(pagerank_trial, UntimedRecordIsKeptWhereTheLayoutIsNew) {
  using P = pagerank_pull;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const std::string mine = "hub 0 window 32 resident 132 0", other = "hub 0 streamed 132 14464";
  trial_record untimed;
  untimed.untimed = true;
  untimed.times = {tt(P::persistent, nan)};
  untimed.layout = mine;
  trial_record timed;  // a pull trial's: fused won
  timed.times = {tt(P::fused, 19.9), tt(P::persistent, 20.5)};
  timed.layout = "hub 14464";
  // The layout comes from a record whose winner is the chosen pull, of either kind.
  EXPECT_EQ(remembered_layout(untimed, P::persistent), mine);
  EXPECT_EQ(remembered_layout(untimed, P::fused), "");
  EXPECT_EQ(remembered_layout(timed, P::fused), "hub 14464");
  EXPECT_EQ(remembered_layout(timed, P::persistent), "");
  EXPECT_EQ(remembered_layout(std::nullopt, P::persistent), "");
  // Nothing remembered: the built layout is kept, for the model's pull and a named one.
  for (bool named : {false, true}) {
    const auto r = untimed_record(std::nullopt, P::persistent, named, P::persistent, "pull-persistent", mine);
    ASSERT_TRUE(r.has_value()) << named;
    EXPECT_TRUE(r->untimed);
    ASSERT_EQ(r->times.size(), 1u);
    EXPECT_EQ(r->times[0].pull, P::persistent);
    EXPECT_EQ(r->times[0].kernel, "pull-persistent");
    EXPECT_TRUE(std::isnan(r->times[0].us_per_step));
    EXPECT_EQ(r->layout, mine);
  }
  // The remembered layout built again: nothing to write.
  EXPECT_FALSE(untimed_record(untimed, P::persistent, false, P::persistent, "pull-persistent", mine));
  EXPECT_FALSE(untimed_record(untimed, P::persistent, true, P::persistent, "pull-persistent", mine));
  // A layout the build could not take as it was (timed again): kept anew, by the model or the pull's own
  // name.
  EXPECT_TRUE(untimed_record(untimed, P::persistent, false, P::persistent, "pull-persistent", other));
  EXPECT_TRUE(untimed_record(untimed, P::persistent, true, P::persistent, "pull-persistent", other));
  // A named pull never writes over another pull's record or a trial's; the model's pull does.
  EXPECT_FALSE(untimed_record(untimed, P::fused, true, P::fused, "pull-fused", "hub 28960"));
  EXPECT_FALSE(untimed_record(timed, P::persistent, true, P::persistent, "pull-persistent", mine));
  EXPECT_FALSE(untimed_record(timed, P::fused, true, P::fused, "pull-fused", "hub 28960"));
  EXPECT_TRUE(untimed_record(untimed, P::fused, false, P::fused, "pull-fused", "hub 28960"));
  EXPECT_TRUE(untimed_record(timed, P::persistent, false, P::persistent, "pull-persistent", mine));
  // The build fell back to another pull, or has no layout (the spmv pull): nothing.
  EXPECT_FALSE(untimed_record(std::nullopt, P::persistent, false, P::fused, "pull-fused", "hub 0"));
  EXPECT_FALSE(untimed_record(std::nullopt, P::spmv, false, P::spmv, "cusparse", ""));
}

// The environment variables that pin a layout are named by layout_pin();
// none set (or set empty): "".
TEST(pagerank_trial, LayoutPinsAreNamed) {
  const char* names[] = {"PERRON_FUSED_HUB", "PERRON_FUSED_WINDOW", "PERRON_FUSED_INDEX", "PERRON_FUSED_LOOP",
                         "PERRON_PERSISTENT"};
  std::map<std::string, std::string> saved;
  for (const char* n : names)
    if (const char* v = std::getenv(n)) saved[n] = v;
  for (const char* n : names) unsetenv(n);
  EXPECT_EQ(layout_pin(), "");
  for (const char* n : names) {
    setenv(n, "", 1);
    EXPECT_EQ(layout_pin(), "") << n;
    setenv(n, "1", 1);
    EXPECT_EQ(layout_pin(), n);
    unsetenv(n);
  }
  for (const auto& [n, v] : saved) setenv(n.c_str(), v.c_str(), 1);
}

TEST(pagerank_trial, TheKernelTrialRunsWhereItPays) {
  // Unknown iterations, or a graph below the band's top: as before, the trial.
  EXPECT_TRUE(spmv_trial_pays(35'988'000, 0, 4));
  EXPECT_TRUE(spmv_trial_pays(band_max_links - 1, 15, 4));
  // grid:3000:3000 (36 M links) in 15 steps: 0.43 s of formats for at most
  // 30% of 15 steps of about 0.1 ms: no.
  EXPECT_FALSE(spmv_trial_pays(35'988'000, 15, 4));
  EXPECT_FALSE(spmv_trial_pays(35'988'000, 1000, 8));
  // Tens of thousands of steps (alpha near 1, a tight tol): yes.
  EXPECT_TRUE(spmv_trial_pays(35'988'000, 50'000, 4));
  // More bytes a step: pays sooner.
  int f = 1, d = 1;
  while (!spmv_trial_pays(10'000'000, f, 4)) f *= 2;
  while (!spmv_trial_pays(10'000'000, d, 8)) d *= 2;
  EXPECT_LE(d, f);
  // Without it: ELL on short rows of little padding (grid:3000:3000, chains),
  // a thread per row on other short rows (mostly dangling), cuSPARSE otherwise.
  EXPECT_EQ(untimed_spmv_kernel(9'000'000, 35'988'000, 4, 4), spmv_kernel::ell);
  EXPECT_EQ(untimed_spmv_kernel(10'000'000, 9'999'999, 1, 4), spmv_kernel::ell);
  EXPECT_EQ(untimed_spmv_kernel(1'000'000, 999'944, 9, 4), spmv_kernel::csr_adaptive);
  EXPECT_EQ(untimed_spmv_kernel(4'000'000, 5'999'997, 10, 4), spmv_kernel::csr_adaptive);
  // Nearly even rows past ELL's padding (ws:20000000:6:0.01, 1.67 x the links): a thread a row.
  EXPECT_EQ(untimed_spmv_kernel(20'000'000, 120'000'000, 10, 4), spmv_kernel::csr_scalar);
  EXPECT_EQ(untimed_spmv_kernel(20'000'000, 80'000'000, 12, 4), spmv_kernel::csr_scalar);
  EXPECT_EQ(untimed_spmv_kernel(20'000'000, 80'000'000, 13, 4), spmv_kernel::csr_adaptive);
  EXPECT_EQ(untimed_spmv_kernel(1'000'000, 1'000'000, short_rows_in_degree - 1, 4),
            spmv_kernel::csr_adaptive);
  // One row holding the graph: csr-adaptive splits it; a hub of 4% is cuSPARSE's.
  EXPECT_EQ(untimed_spmv_kernel(10'000'000, 11'999'998, 9'999'999, 4), spmv_kernel::csr_adaptive);
  EXPECT_EQ(untimed_spmv_kernel(10'000'000, 40'000'000, 10'000'000, 4), spmv_kernel::csr_adaptive);
  EXPECT_EQ(untimed_spmv_kernel(1'000'000, 8'399'318, 342'252, 4), spmv_kernel::cusparse);
  EXPECT_EQ(untimed_spmv_kernel(1'000'000, 14'000'000, short_rows_in_degree, 4), spmv_kernel::cusparse);
  EXPECT_EQ(untimed_spmv_kernel(1'048'576, 9'711'274, 26819, 4), spmv_kernel::cusparse);
  EXPECT_EQ(untimed_spmv_kernel(0, 0, 0, 4), spmv_kernel::ell);  // nothing to pad
  // Double, rows of a few links on average and even: csr-adaptive
  // (sbm:12000000:60000000:120000:0.1, er:3000000:9000000); cuSPARSE from
  // 6.5 links a row, where a hub's tail makes them uneven, and in float.
  EXPECT_EQ(untimed_spmv_kernel(12'000'000, 58'803'182, 20, 8), spmv_kernel::csr_adaptive);
  EXPECT_EQ(untimed_spmv_kernel(3'000'000, 8'999'000, 16, 8), spmv_kernel::csr_adaptive);
  EXPECT_EQ(untimed_spmv_kernel(12'000'000, 58'803'182, 20, 4), spmv_kernel::cusparse);
  EXPECT_EQ(untimed_spmv_kernel(6'000'000, 41'900'000, 24, 8), spmv_kernel::cusparse);
  EXPECT_EQ(untimed_spmv_kernel(2'000'000, 12'000'000, 42'838, 8), spmv_kernel::cusparse);
  EXPECT_EQ(untimed_spmv_kernel(4'000'000, 24'000'000, 48, 8), spmv_kernel::csr_adaptive);  // 8x the mean
  EXPECT_EQ(untimed_spmv_kernel(4'000'000, 24'000'000, 49, 8), spmv_kernel::cusparse);      // past it
}

// A timed record: the persistent pull won with `layout`, the fused pull second.
trial_record persistent_won(double persistent_us, double fused_us, const std::string& layout) {
  trial_record r;
  r.times = {tt(pagerank_pull::persistent, persistent_us), tt(pagerank_pull::fused, fused_us)};
  r.layout = layout;
  return r;
}
const std::string h200 = "NVIDIA H200 (sm_90, 132 SMs, 63 MB L2)";

TEST(pagerank_trial, RecordKeepsTheWinnersLayout) {
  const pull_facts f = facts(3'216'152, 18235, 4);
  const std::string& dev = h200;
  const trial_record r = persistent_won(14.78, 19.73, "hub 14464 resident 132 0");
  const std::string text = format_trial_record(r, f, 325557, dev);
  const auto back = parse_trial_record(text, f, 325557, dev);
  ASSERT_TRUE(back.has_value()) << text;
  EXPECT_EQ(back->layout, r.layout);
  ASSERT_EQ(back->times.size(), 2u);
  EXPECT_EQ(back->times[0].pull, pagerank_pull::persistent);
}

// The layout's plain steps travel with it bit for bit (auto's run ends are
// read off them where the next run builds the layout from the record, timed
// or untimed), and only with a layout.
TEST(pagerank_trial, RecordKeepsTheLayoutsPlainSteps) {
  const pull_facts f = facts(999'949, 27, 8);
  const std::string& dev = h200;
  trial_record r = persistent_won(9.04, 11.3, "hub 0 resident 132 0");
  r.trace.alpha = 0.85;
  r.trace.residuals = {0.85, 0.1234567890123456789, 1.0 / 3.0, 4.9406564584124654e-324, 0.0, 2.5e-7};
  for (const bool untimed : {false, true}) {
    trial_record u = r;
    if (untimed) {
      u.untimed = true;
      u.times.resize(1);
      u.times[0].us_per_step = std::numeric_limits<double>::quiet_NaN();
    }
    const std::string text = format_trial_record(u, f, 100'000, dev);
    const auto back = parse_trial_record(text, f, 100'000, dev);
    ASSERT_TRUE(back.has_value()) << text;
    EXPECT_EQ(back->untimed, untimed);
    EXPECT_EQ(back->layout, r.layout);
    EXPECT_EQ(back->trace.alpha, r.trace.alpha);
    EXPECT_EQ(back->trace.residuals, r.trace.residuals) << text;  // exact: %.17g round-trips a double
  }
  // No layout (an SpMV winner's record): no trace written.
  trial_record spmv;
  spmv.times = {tt(pagerank_pull::spmv, 12.0, "cusparse")};
  spmv.trace = r.trace;
  const std::string text = format_trial_record(spmv, f, 100'000, dev);
  EXPECT_EQ(text.find("trace"), std::string::npos) << text;
  const auto back = parse_trial_record(text, f, 100'000, dev);
  ASSERT_TRUE(back.has_value());
  EXPECT_TRUE(back->trace.residuals.empty());
  // A record without a trace reads as one with none.
  r.trace = {};
  const auto none = parse_trial_record(format_trial_record(r, f, 100'000, dev), f, 100'000, dev);
  ASSERT_TRUE(none.has_value());
  EXPECT_TRUE(none->trace.residuals.empty());
}

TEST(pagerank_trial, InvalidRecordsAreRefused) {
  const pull_facts f = facts(1000, 20, 8);
  const std::string head =
      "perron-pull-trial " + std::to_string(trial_record_version) + "\nfacts 8 100 1000\ndevice D\n";
  ASSERT_TRUE(parse_trial_record(head + "time fused pull-fused 5.5\n", f, 100, "D"));
  ASSERT_TRUE(parse_trial_record(head + "time spmv csr-vector 5.5\ntime fused pull-fused 6\n", f, 100, "D"));
  ASSERT_TRUE(parse_trial_record(head + "time fused pull-fused 5.5\nlayout hub 64\n", f, 100, "D"));
  for (const std::string& bad : std::vector<std::string>{
           std::string(""),
           std::string("garbage"),
           head,  // no time
           std::string(
               "perron-pull-trial 0\nfacts 8 100 1000\ndevice D\ntime fused pull-fused 5.5\n"),  // version
           std::string("perron-pull-trial 1\nfacts 8 100 1000\ndevice D\ntime fused pull-fused 5.5\n"
                       "layout hub 64\n"),  // version 1: no trace kept
           std::string(
               "perron-pull-trial 2\nfacts 8 100\ndevice D\ntime fused pull-fused 5.5\n"),  // short facts
           head + "time sideways pull-fused 5.5\n",                                         // unknown pull
           head + "time auto pull-fused 5.5\n",   // not a concrete pull
           head + "time fused csr-vector 5.5\n",  // kernel of another pull
           head + "time spmv pull-fused 5.5\n",
           head + "time spmv no-such-kernel 5.5\n",  // unknown kernel
           head + "time spmv cpu 5.5\n",             // not a GPU kernel
           head + "time spmv auto 5.5\n",
           head + "time fused pull-fused nan\n",  // bad times
           head + "time fused pull-fused -1\n",
           head + "time fused pull-fused 0\n",
           head + "time fused pull-fused inf\n",
           head + "time fused pull-fused\n",                                    // missing field
           head + "time fused pull-fused 5.5 extra\n",                          // extra field
           head + "stamp fused pull-fused 5.5\n",                               // wrong tag
           head + "time fused pull-fused 5.5\n\n",                              // blank line
           head + "layout hub 64\ntime fused pull-fused 5.5\n",                 // layout before the times
           head + "time fused pull-fused 5.5\nlayout \n",                       // empty layout
           head + "time fused pull-fused 5.5\nlayout hub 64\nlayout hub 32\n",  // two layouts
           head + "time fused pull-fused 5.5\nlayout hub 64\ntime spmv cusparse 6\n",  // a time after it
           head + "time fused pull-fused 5.5\ntrace 0.85 1 0.5\n",                 // a trace without a layout
           head + "time fused pull-fused 5.5\ntrace 0.85 1 0.5\nlayout hub 64\n",  // before the layout
           head + "time fused pull-fused 5.5\nlayout hub 64\ntrace 0.85\n",        // no residual
           head + "time fused pull-fused 5.5\nlayout hub 64\ntrace 0.85 1 -0.5\n",  // negative
           head + "time fused pull-fused 5.5\nlayout hub 64\ntrace 0.85 1 nan\n",
           head + "time fused pull-fused 5.5\nlayout hub 64\ntrace 0.85 1 inf\n",
           head + "time fused pull-fused 5.5\nlayout hub 64\ntrace 0.85 1 0.5x\n",  // not a number
           head + "time fused pull-fused 5.5\nlayout hub 64\ntrace 1 1 0.5\n",      // alpha out of (0, 1)
           head + "time fused pull-fused 5.5\nlayout hub 64\ntrace 0 1 0.5\n",
           head + "time fused pull-fused 5.5\nlayout hub 64\ntrace 0.85 1\ntrace 0.85 1\n",  // two traces
           head +
               "time fused pull-fused 5.5\nlayout hub 64\ntrace 0.85 1\nlayout hub 32\n",  // a line after it
           head + "time fused pull-fused 5.5\nlayout hub 64\ntrace 0.85" +
               [] {
                 std::string many;  // more residuals than a record keeps
                 for (std::size_t i = 0; i <= max_trace_steps; ++i) many += " 1";
                 return many;
               }() +
               "\n",
       })
    EXPECT_FALSE(parse_trial_record(bad, f, 100, "D")) << bad;
}

}  // namespace
}  // namespace perron
