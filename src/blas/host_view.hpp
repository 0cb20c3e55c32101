// Host access to an operand for the CPU fallback: the operand itself when it is in host (or
// managed) memory, else a host copy of it (cudaMemcpy2D); write_back returns a result to device
// memory.
#pragma once

#include <cuda_runtime.h>

#include <vector>

#include "gpu_engine.hpp"

namespace gpuopt_blas {
namespace gpu {

template <class T>
struct HostView {
  T* ptr = nullptr;
  long ld = 1;
  std::vector<T> copy;
};

/** rows x cols of @p p (leading dimension ld) readable (and writable) from the host. */
template <class T>
bool host_view(const T* p, long ld, long rows, long cols, HostView<T>* v) {
  if (classify(p).mem != Mem::kDevice || rows == 0 || cols == 0) {
    v->ptr = const_cast<T*>(p);
    v->ld = ld;
    return true;
  }
  v->copy.resize(static_cast<size_t>(rows) * static_cast<size_t>(cols));
  v->ptr = v->copy.data();
  v->ld = rows;
  return cudaMemcpy2D(v->ptr, rows * sizeof(T), p, ld * sizeof(T), rows * sizeof(T),
                      static_cast<size_t>(cols), cudaMemcpyDefault) == cudaSuccess;
}

/** Copies the view's data back to @p p when the view is a copy. */
template <class T>
bool write_back(T* p, long ld, long rows, long cols, const HostView<T>& v) {
  if (v.copy.empty()) return true;
  return cudaMemcpy2D(p, ld * sizeof(T), v.ptr, v.ld * sizeof(T), rows * sizeof(T),
                      static_cast<size_t>(cols), cudaMemcpyDefault) == cudaSuccess;
}

}  // namespace gpu
}  // namespace gpuopt_blas
