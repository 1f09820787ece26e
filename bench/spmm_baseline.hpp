// cuSPARSE SpMM (CSR x dense row-major block), every CSR algorithm it offers,
// as the baseline that spmm-bench times perron's spmm_plan against.
#pragma once

#include <memory>
#include <string_view>
#include <vector>

#include "core/names.hpp"
#include "kernels/spmm.hpp"

namespace perron {

enum class cusparse_spmm_alg { default_alg, csr_alg1, csr_alg2, csr_alg3 };

inline constexpr name_table<cusparse_spmm_alg, 4> cusparse_spmm_alg_names{{
    {cusparse_spmm_alg::default_alg, "cusparse-default"},
    {cusparse_spmm_alg::csr_alg1, "cusparse-csr-alg1"},
    {cusparse_spmm_alg::csr_alg2, "cusparse-csr-alg2"},
    {cusparse_spmm_alg::csr_alg3, "cusparse-csr-alg3"},
}};

constexpr std::string_view name(cusparse_spmm_alg a) { return name_in(cusparse_spmm_alg_names, a); }

// Y = alpha A X + beta Y through cusparseSpMM on the matrix a plan holds, for
// one k; the descriptors, workspace and (ALG3) preprocessing are built once.
// The constructor throws cuda_error when cuSPARSE does not support the
// algorithm for this layout or type.
template <class T>
class cusparse_spmm {
 public:
  cusparse_spmm(const spmm_plan<T>& a, index_t k, cusparse_spmm_alg alg, const T* d_x, T* d_y);
  ~cusparse_spmm();
  cusparse_spmm(const cusparse_spmm&) = delete;
  cusparse_spmm& operator=(const cusparse_spmm&) = delete;

  // On the X and Y given to the constructor.
  void operator()(T alpha, T beta) const;

  struct impl;

 private:
  std::unique_ptr<impl> impl_;
};

}  // namespace perron
