// The pull trial's band and bookkeeping (solvers/pagerank_trial.hpp).
#include "solvers/pagerank_trial.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <memory>
#include <sstream>

#include "core/device.hpp"
#include "core/error.hpp"
#include "core/stats.hpp"
#include "core/text.hpp"

namespace perron {

pull_band model_band(const pull_facts& f) {
  if (!f.pattern) return {false, "a weighted graph: the SpMV pull only"};
  if (f.vertices > pattern_pull_max_vertices)
    return {false, std::to_string(f.vertices) + " vertices: the SpMV pull only"};
  const std::string links = std::to_string(f.links) + " links";
  const auto small = static_cast<index_t>(persistent_min_links);
  if (f.links < persistent_min_links && f.vertices < small)
    return {false, links + " and " + std::to_string(f.vertices) + " vertices < " + std::to_string(small) +
                       ", the model's sure range"};
  if (f.links < band_max_links)
    return {true, links + " < " + std::to_string(band_max_links) + " (and " + std::to_string(f.vertices) +
                      " vertices): the model is unsure"};
  // Past band_max_links, two shapes where the model is unsure further out.
  if (f.value_bytes == 4 && f.max_in_degree > chain_in_degree && f.max_in_degree < short_rows_in_degree &&
      f.links < short_rows_band_max_links)
    return {true, links + " < " + std::to_string(short_rows_band_max_links) +
                      " in float, every row short (max in-degree " + std::to_string(f.max_in_degree) +
                      "): the model is unsure"};
  if (f.max_in_degree > chain_in_degree && own_order_local(f) && f.links < local_band_max_links)
    return {true, links + " < " + std::to_string(local_band_max_links) + ", " +
                      format_g(100 * f.local_links, 3) + "% of them within " +
                      std::to_string(locality_window) + " ids: the model is unsure"};
  if (f.max_in_degree > chain_in_degree && resident_may_fit(f))
    return {true,
            links + " in about " + format_g(resident_bytes_estimate(f) / 1e6, 3) + " MB, within the " +
                format_g(double(f.grid_shared_bytes) / 1e6, 3) +
                " MB of the SMs' shared memory (the persistent pull's resident mode): the model is unsure"};
  return {false, links + " >= " + std::to_string(band_max_links) + ", the model's sure range"};
}

double resident_bytes_estimate(const pull_facts& f) {
  const double n = double(f.vertices), links = double(f.links);
  // Virtual rows: a vertex's row at least, and one more a 64 links past
  // (rows longer than the layout's widest virtual row are split).
  return resident_link_bytes * links + resident_vertex_bytes * (n + links / 64);
}

bool resident_may_fit(const pull_facts& f) {
  return f.grid_shared_bytes > 0 && resident_bytes_estimate(f) <= double(f.grid_shared_bytes);
}

bool persistent_trial_pays(const pull_facts& f) {
  return f.links <= persistent_max_links || resident_may_fit(f);
}

std::vector<pagerank_pull> trial_candidates(pagerank_pull model, const pull_facts& f) {
  std::vector<pagerank_pull> c{model};
  for (const pagerank_pull p : {pagerank_pull::fused, pagerank_pull::spmv, pagerank_pull::persistent})
    if (p != model && (p != pagerank_pull::persistent || persistent_trial_pays(f))) c.push_back(p);
  return c;
}

int pick_trial(const std::vector<trial_time>& times, pagerank_pull model) {
  int best = -1, own = -1;
  for (std::size_t i = 0; i < times.size(); ++i) {
    if (!std::isfinite(times[i].us_per_step) || !(times[i].us_per_step > 0)) continue;
    if (best < 0 || times[i].us_per_step < times[static_cast<std::size_t>(best)].us_per_step)
      best = static_cast<int>(i);
    if (own < 0 && times[i].pull == model) own = static_cast<int>(i);
  }
  if (best >= 0 && own >= 0 &&
      times[static_cast<std::size_t>(own)].us_per_step <=
          times[static_cast<std::size_t>(best)].us_per_step * (1 + trial_tie_fraction))
    return own;
  return best;
}

std::string trial_text(const std::vector<trial_time>& times) {
  std::string s;
  for (const trial_time& t : times) {
    if (!s.empty()) s += " vs ";
    s += std::string(name(t.pull));
    if (t.pull == pagerank_pull::spmv && !t.kernel.empty()) s += " (" + t.kernel + ")";
    s += " " + (std::isfinite(t.us_per_step) ? format_g(t.us_per_step, 4) + " us" : std::string("failed"));
  }
  return s + " per step";
}

std::string layout_pin() {
  for (const char* name : {"PERRON_FUSED_HUB", "PERRON_FUSED_WINDOW", "PERRON_FUSED_INDEX",
                           "PERRON_FUSED_LOOP", "PERRON_PERSISTENT"}) {
    const char* v = std::getenv(name);
    if (v != nullptr && *v != '\0') return name;
  }
  return "";
}

std::string remembered_layout(const std::optional<trial_record>& kept, pagerank_pull chosen) {
  return kept && !kept->times.empty() && kept->times.front().pull == chosen ? kept->layout : std::string();
}

std::optional<trial_record> untimed_record(const std::optional<trial_record>& kept, pagerank_pull chosen,
                                           bool named, pagerank_pull built, const std::string& built_kernel,
                                           const std::string& built_layout) {
  const bool own = kept && kept->untimed && !kept->times.empty() && kept->times.front().pull == chosen;
  const bool may_keep = !named || !kept || own;
  if (!may_keep || built != chosen || built_layout.empty() || built_layout == remembered_layout(kept, chosen))
    return std::nullopt;
  trial_record rec;
  rec.untimed = true;
  rec.times.push_back(trial_time{built, built_kernel, std::numeric_limits<double>::quiet_NaN()});
  rec.layout = built_layout;
  return rec;
}

std::string decision_model() { return "model"; }
std::string decision_trial(const std::vector<trial_time>& times) { return "trial: " + trial_text(times); }
std::string decision_cached(const std::vector<trial_time>& times) {
  return "cached trial: " + trial_text(times);
}

std::string format_trial_record(const trial_record& r, const pull_facts& f, index_t vertices,
                                const std::string& device) {
  std::string s = "perron-pull-trial " + std::to_string(trial_record_version) + "\n";
  s += "facts " + std::to_string(f.value_bytes) + " " + std::to_string(vertices) + " " +
       std::to_string(f.links) + "\n";
  s += "device " + device + "\n";
  if (r.untimed && !r.times.empty())
    s += "untimed " + std::string(name(r.times.front().pull)) + " " + r.times.front().kernel + "\n";
  else
    for (const trial_time& t : r.times)
      s += "time " + std::string(name(t.pull)) + " " + t.kernel + " " + format_g(t.us_per_step, 17) + "\n";
  if (!r.layout.empty()) s += "layout " + r.layout + "\n";
  if (!r.layout.empty() && !r.trace.residuals.empty() && r.trace.residuals.size() <= max_trace_steps) {
    s += "trace " + format_g(r.trace.alpha, 17);
    for (const double x : r.trace.residuals) s += " " + format_g(x, 17);
    s += "\n";
  }
  return s;
}

namespace {

// A kernel name fits its pull: "pull-fused" / "pull-persistent", or a GPU SpMV kernel.
bool kernel_fits(pagerank_pull p, const std::string& k) {
  if (p != pagerank_pull::spmv) return k == kernel_text(p, std::nullopt);
  try {
    const spmv_kernel sk = parse_spmv_kernel(k);
    return sk != spmv_kernel::automatic && sk != spmv_kernel::cpu;
  } catch (const error&) {
    return false;
  }
}

// "<alpha> <r1> ... <rk>": alpha in (0, 1), 1 <= k <= max_trace_steps
// residuals, each finite and >= 0, written as format_g(x, 17) writes them.
bool parse_trace(const std::string& text, plain_trace& t) {
  std::istringstream w(text);
  std::string word;
  std::vector<double> v;
  while (w >> word) {
    char* end = nullptr;
    const double x = std::strtod(word.c_str(), &end);
    if (end != word.c_str() + word.size() || !std::isfinite(x) || x < 0) return false;
    v.push_back(x);
  }
  if (v.size() < 2 || v.size() > max_trace_steps + 1 || !(v[0] > 0 && v[0] < 1)) return false;
  t.alpha = v[0];
  t.residuals.assign(v.begin() + 1, v.end());
  return true;
}

}  // namespace

std::optional<trial_record> parse_trial_record(std::string_view text, const pull_facts& f, index_t vertices,
                                               const std::string& device) {
  std::istringstream in{std::string(text)};
  std::string line;
  if (!std::getline(in, line) || line != "perron-pull-trial " + std::to_string(trial_record_version))
    return std::nullopt;
  if (!std::getline(in, line) || line != "facts " + std::to_string(f.value_bytes) + " " +
                                             std::to_string(vertices) + " " + std::to_string(f.links))
    return std::nullopt;
  if (!std::getline(in, line) || line != "device " + device) return std::nullopt;
  trial_record r;
  while (std::getline(in, line)) {
    if (line.rfind("layout ", 0) == 0) {  // once, after the times
      if (!r.layout.empty() || r.times.empty() || line.size() == 7) return std::nullopt;
      r.layout = line.substr(7);
      continue;
    }
    if (line.rfind("trace ", 0) == 0) {  // the last line, once, after the layout
      if (r.layout.empty() || !r.trace.residuals.empty() || !parse_trace(line.substr(6), r.trace))
        return std::nullopt;
      continue;
    }
    if (!r.layout.empty() || r.untimed) return std::nullopt;
    std::istringstream w(line);
    std::string tag, pull, kernel, rest;
    double us = std::numeric_limits<double>::quiet_NaN();
    // "untimed <pull> <kernel>", alone; or "time <pull> <kernel> <us>" lines.
    if (!(w >> tag >> pull >> kernel)) return std::nullopt;
    if (tag == "untimed" && r.times.empty()) {
      r.untimed = true;
    } else if (tag != "time" || !(w >> us)) {
      return std::nullopt;
    }
    if (w >> rest) return std::nullopt;
    trial_time t;
    try {
      t.pull = parse_pagerank_pull(pull);
    } catch (const error&) {
      return std::nullopt;
    }
    if (t.pull == pagerank_pull::automatic || !kernel_fits(t.pull, kernel)) return std::nullopt;
    if (!r.untimed && (!std::isfinite(us) || !(us > 0))) return std::nullopt;
    t.kernel = kernel;
    t.us_per_step = us;
    r.times.push_back(std::move(t));
  }
  if (r.times.empty() || (r.untimed && r.layout.empty())) return std::nullopt;
  return r;
}

trial_outcome run_trial(const std::vector<pagerank_pull>& candidates, pagerank_pull model,
                        const std::function<trial_time(pagerank_pull)>& measure) {
  trial_outcome o;
  for (const pagerank_pull p : candidates) o.times.push_back(measure(p));
  o.winner = pick_trial(o.times, model);
  return o;
}

template <class T>
step_samples differenced_step_us(pagerank_cuda<T>& solver, pagerank_options opt, int lo, int hi, int pairs) {
  opt.tol = 1e-300;  // out of reach: every solve runs to max_iter (or an exact fixed point)
  opt.max_iter = hi;
  opt.accelerate = pagerank_accel::none;  // the step's time: no extrapolations between
  // The warm-up (it builds the loop's graph) also finds where the iterate of
  // a mostly dangling graph reaches an exact fixed point: hi ends there.
  const pagerank_result first = solver.solve(opt);
  step_samples s;
  s.warm_up_iterations = first.iterations;
  s.warm_up_seconds = first.device_seconds;
  hi = first.iterations;
  lo = std::min(lo, hi / 4);
  for (int i = 0; i < pairs && hi - lo >= 4; ++i) {
    opt.max_iter = lo;
    const pagerank_result a = solver.solve(opt);
    opt.max_iter = hi;
    const pagerank_result b = solver.solve(opt);
    if (a.iterations == lo && b.iterations == hi)
      s.us.push_back((b.device_seconds - a.device_seconds) / (hi - lo) * 1e6);
  }
  return s;
}

template <class T>
double trial_step_us(pagerank_cuda<T>& solver) {
  const step_samples s = differenced_step_us(solver, pagerank_options{}, trial_lo, trial_hi, trial_pairs);
  // Too few steps to difference: the whole solve per step.
  return s.us.empty() ? s.warm_up_seconds / std::max(1, s.warm_up_iterations) * 1e6 : median(s.us);
}

template step_samples differenced_step_us<float>(pagerank_cuda<float>&, pagerank_options, int, int, int);
template step_samples differenced_step_us<double>(pagerank_cuda<double>&, pagerank_options, int, int, int);
template double trial_step_us<float>(pagerank_cuda<float>&);
template double trial_step_us<double>(pagerank_cuda<double>&);

// pagerank_cuda's way through the band (its constructor, solvers/cuda/pagerank.cu,
// calls this where model_band is unsure). Plain C++ over the solver's public
// face: every candidate is an ordinary pagerank_cuda with its pull named, and
// the winner is moved into *this (the others are freed on return).
template <class T>
bool pagerank_cuda<T>::trial_pull(const pagerank_graph<T>& g, const pull_facts& f, const pull_choice& model,
                                  pull_trial_memo& memo) {
  const std::string device = cuda::device_description(0);
  const std::string band = model_band(f).why + ", the model's " + std::string(name(model.pull));
  if (!memo.remembered.empty()) {
    // An untimed record (the model's or a named pull's) times no candidates: trial again.
    if (const auto rec = parse_trial_record(memo.remembered, f, g.vertices(), device); rec && !rec->untimed) {
      const trial_time& w = rec->times.front();
      const std::optional<spmv_kernel> k =
          w.pull == pagerank_pull::spmv ? std::optional(parse_spmv_kernel(w.kernel)) : std::nullopt;
      pagerank_cuda<T> cached;
      cached.expected_iterations_ = expected_iterations_;
      cached.build_chosen(g, k, pull_choice{w.pull, ""}, rec->layout, &rec->trace);
      *this = std::move(cached);
      decision_ = decision_cached(rec->times);
      reason_ = "auto pull: " + decision_ + " (" + band + ")" + (reason_.empty() ? "" : "; " + reason_);
      // A layout the build could not take as remembered (an older record's,
      // without a choice made since, or a mode no longer a candidate) was
      // timed anew: kept with the same pull times, so the next run takes it.
      if (!layout_.empty() && layout_ != rec->layout) {
        trial_record renewed = *rec;
        renewed.layout = layout_;
        renewed.trace = layout_trace();
        memo.record = format_trial_record(renewed, f, g.vertices(), device);
      }
      return true;
    }
  }
  if (!memo.may_trial) return false;
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<std::unique_ptr<pagerank_cuda<T>>> built;
  const auto measure = [&](pagerank_pull p) {
    trial_time t;
    t.pull = p;
    t.us_per_step = std::numeric_limits<double>::quiet_NaN();
    built.emplace_back();
    try {
      auto s = std::make_unique<pagerank_cuda<T>>(g, std::nullopt, p);
      t.kernel = s->kernel_name();
      t.us_per_step = trial_step_us(*s);
      built.back() = std::move(s);
    } catch (const error&) {
      // this candidate cannot run here (e.g. no room for its shared memory): NaN
    }
    return t;
  };
  const trial_outcome o = run_trial(trial_candidates(model.pull, f), model.pull, measure);
  if (o.winner < 0) return false;
  const auto w = static_cast<std::size_t>(o.winner);
  *this = std::move(*built[w]);
  built.clear();
  trial_seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  decision_ = decision_trial(o.times);
  reason_ = "auto pull: " + decision_ + " (" + band + ")" + (reason_.empty() ? "" : "; " + reason_);
  trial_record rec;
  rec.layout = layout_;
  rec.trace = layout_trace();
  rec.times.push_back(o.times[w]);
  for (std::size_t i = 0; i < o.times.size(); ++i)
    if (i != w && std::isfinite(o.times[i].us_per_step)) rec.times.push_back(o.times[i]);
  memo.record = format_trial_record(rec, f, g.vertices(), device);
  return true;
}

template bool pagerank_cuda<float>::trial_pull(const pagerank_graph<float>&, const pull_facts&,
                                               const pull_choice&, pull_trial_memo&);
template bool pagerank_cuda<double>::trial_pull(const pagerank_graph<double>&, const pull_facts&,
                                                const pull_choice&, pull_trial_memo&);

}  // namespace perron
