#include "tests/support/support.hpp"

#include <cstdlib>
#include <filesystem>

namespace perron::test {

std::string data_dir() {
  // PERRON_DATA_DIR lets binaries built here run from another checkout (the GPU machine).
  if (const char* env = std::getenv("PERRON_DATA_DIR"); env && *env) return env;
  return std::string(PERRON_SOURCE_DIR) + "/data";
}

std::string shared_data_dir() {
  if (const char* env = std::getenv("PERRON_SHARED_DATA"); env && *env)
    return std::filesystem::is_directory(env) ? std::string(env) : std::string();
  const std::string d = std::string(PERRON_SOURCE_DIR) + "/../shared/data";
  return std::filesystem::is_directory(d) ? d : std::string();
}

std::optional<std::string> shared_file(const std::string& relative) {
  const std::string dir = shared_data_dir();
  if (dir.empty()) return std::nullopt;
  const std::string p = dir + "/" + relative;
  if (!std::filesystem::exists(p)) return std::nullopt;
  return p;
}

bool gpu_required() {
  const char* env = std::getenv("PERRON_REQUIRE_GPU");
  return env && std::string(env) == "1";
}

coo_matrix<double> random_coo(index_t rows, index_t cols, double density, std::uint64_t seed,
                              bool allow_duplicates) {
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<double> val(-1.0, 1.0);
  coo_matrix<double> a;
  a.rows = rows;
  a.cols = cols;
  if (rows == 0 || cols == 0) return a;
  const double total = static_cast<double>(rows) * cols;
  const auto target = static_cast<std::size_t>(total * density);
  std::uniform_int_distribution<index_t> r(0, rows - 1), c(0, cols - 1);
  std::vector<char> used(allow_duplicates ? 0 : static_cast<std::size_t>(total), 0);
  for (std::size_t k = 0; k < target; ++k) {
    index_t i = r(gen), j = c(gen);
    if (!allow_duplicates) {
      auto& u = used[static_cast<std::size_t>(i) * cols + j];
      if (u) continue;
      u = 1;
    }
    double v = val(gen);
    if (v == 0.0) v = 0.5;
    a.row_idx.push_back(i);
    a.col_idx.push_back(j);
    a.values.push_back(v);
  }
  return a;
}

std::vector<double> dense_from_coo(const coo_matrix<double>& a) {
  std::vector<double> d(static_cast<std::size_t>(a.rows) * a.cols, 0.0);
  for (std::size_t k = 0; k < a.nnz(); ++k)
    d[static_cast<std::size_t>(a.row_idx[k]) * a.cols + a.col_idx[k]] += a.values[k];
  return d;
}

std::vector<double> dense_spmv(const std::vector<double>& d, index_t rows, index_t cols, double alpha,
                               const std::vector<double>& x, double beta, const std::vector<double>& y) {
  std::vector<double> out(rows);
  for (index_t i = 0; i < rows; ++i) {
    long double s = 0;
    for (index_t j = 0; j < cols; ++j)
      s += static_cast<long double>(d[static_cast<std::size_t>(i) * cols + j]) * x[j];
    out[i] = static_cast<double>(alpha * s) + (beta == 0.0 ? 0.0 : beta * y[i]);
  }
  return out;
}

std::vector<double> random_vector(std::size_t n, std::uint64_t seed, double lo, double hi) {
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<double> dist(lo, hi);
  std::vector<double> v(n);
  for (auto& e : v) e = dist(gen);
  return v;
}

scoped_env::scoped_env(const char* name, const char* value) : name_(name) {
  if (const char* old = std::getenv(name)) old_ = old;
  if (value)
    ::setenv(name, value, 1);
  else
    ::unsetenv(name);
}

scoped_env::~scoped_env() {
  if (old_)
    ::setenv(name_, old_->c_str(), 1);
  else
    ::unsetenv(name_);
}

}  // namespace perron::test
