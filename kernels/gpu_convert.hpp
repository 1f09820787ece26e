// COO -> CSR (optionally of A^T) on the GPU, so a large graph is converted
// where it will be used. Same contract as to_csr() in kernels/convert.hpp, and
// bit-identical results: the same row_ptr, the same column order, and
// duplicates combined in input order ((v1 + v2) + v3 in T; keep_one keeps v1).
//
// How: a stable LSD radix sort (CUB) of the entries on the key
// row * cols + col (only as many bits as rows * cols needs), run-length
// encoding of equal keys, one thread per distinct position summing its run
// sequentially, and row_ptr by a binary search of each row's first key.
// O(nnz) work; the host only checks sizes. A position repeated m times costs
// one thread m sequential adds, which is what keeps the sum order fixed.
//
// Built without CUDA, these throw cuda_error (kernels/cuda/stub/convert_stub.cpp).
#pragma once

#include "../core/device.hpp"
#include "../core/formats.hpp"
#include "convert.hpp"

namespace perron {
namespace cuda {

// A CSR matrix in device memory (the layout of csr_matrix<T>).
template <class T>
struct device_csr {
  index_t rows = 0;
  index_t cols = 0;
  device_buffer<index_t> row_ptr;  // rows + 1
  device_buffer<index_t> col_idx;  // nnz
  device_buffer<T> values;         // nnz

  std::size_t nnz() const { return col_idx.size(); }

  csr_matrix<T> download() const {
    csr_matrix<T> h;
    h.rows = rows;
    h.cols = cols;
    h.row_ptr = row_ptr.download();
    h.col_idx = col_idx.download();
    h.values = values.download();
    return h;
  }
};

}  // namespace cuda

// Host COO in, CSR left on the device (for a plan or solver to adopt).
// Throws dimension_error exactly where to_csr() does (sizes, negative
// dimensions, nnz beyond index_t, an entry outside the matrix: the message
// names the first such entry), cuda_error on any CUDA failure. Returns after
// the conversion has finished on `stream`.
template <class T>
cuda::device_csr<T> to_device_csr(const coo_matrix<T>& a, csr_options opt = {},
                                  cuda::stream_t stream = nullptr);

// COO already on the device (nnz entries at d_row, d_col, d_values; read only).
template <class T>
cuda::device_csr<T> to_device_csr(index_t rows, index_t cols, std::size_t nnz, const index_t* d_row,
                                  const index_t* d_col, const T* d_values, csr_options opt = {},
                                  cuda::stream_t stream = nullptr);

// Host COO in, host CSR out, converted on the GPU: to_csr(a, opt), bit for bit.
template <class T>
csr_matrix<T> to_csr_on_gpu(const coo_matrix<T>& a, csr_options opt = {}, cuda::stream_t stream = nullptr);

}  // namespace perron
