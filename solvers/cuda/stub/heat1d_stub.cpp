// CPU-only builds: the GPU heat backend exists but throws.
#include "core/error.hpp"
#include "solvers/heat1d.hpp"

namespace perron::heat::detail {

template <class T>
std::unique_ptr<backend<T>> make_cuda_backend(setup<T>) {
  throw cuda_error("perron was built without CUDA (PERRON_CUDA=OFF or no nvcc): use --device cpu");
}

template std::unique_ptr<backend<float>> make_cuda_backend<float>(setup<float>);
template std::unique_ptr<backend<double>> make_cuda_backend<double>(setup<double>);

}  // namespace perron::heat::detail
