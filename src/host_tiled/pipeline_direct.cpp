// The pipeline's direct calls on the first worker of a device, outside the tiled walk:
// gemm_in_place (operands already on the device), copy_matrix (host <-> device through the pinned
// ring) and measure (the link and GEMM rates).
#include <string.h>

#include <algorithm>

#include "copy_pool.hpp"
#include "pipeline_internal.hpp"

namespace gpuopt_host_tiled {

bool Pipeline::gemm_in_place(const Call& c, size_t device_index, std::string* error) {
  Worker& w = *workers_[device_index * static_cast<size_t>(options_.streams_per_device)];
  HT_CUDA(cudaSetDevice(w.device));
  gpuopt_gemm_desc_t d;
  memset(&d, 0, sizeof d);
  d.struct_size = sizeof d;
  d.trans_a = c.transa == 'N' ? GPUOPT_TRANS_N : GPUOPT_TRANS_T;
  d.trans_b = c.transb == 'N' ? GPUOPT_TRANS_N : GPUOPT_TRANS_T;
  d.m = c.m;
  d.n = c.n;
  d.k = c.k;
  d.alpha = c.alpha;
  d.beta = c.beta;
  d.a_type = d.c_type = c.dtype;
  d.lda = c.lda;
  d.ldb = c.ldb;
  d.ldc = c.ldc;
  HT_GPUOPT(gpuopt_gemm(w.ctx, w.gs, &d, c.A, c.B, c.C));
  HT_CUDA(cudaStreamSynchronize(w.s));
  return true;
}

bool Pipeline::copy_matrix(void* dst, int64_t ldd, const void* src, int64_t lds, int64_t rows,
                           int64_t cols, size_t elem, bool to_device, size_t device_index,
                           std::string* error) {
  Worker& w = *workers_[device_index * static_cast<size_t>(options_.streams_per_device)];
  HT_CUDA(cudaSetDevice(w.device));
  const size_t ring = static_cast<size_t>(options_.tile_mn * options_.tile_mn) * kMaxElem;
  const size_t colb = static_cast<size_t>(rows) * elem;
  const size_t piece = static_cast<size_t>(options_.copy_piece_bytes);
  if (colb == 0 || cols == 0) return true;
  int64_t step = static_cast<int64_t>(ring / colb);
  if (step < 1) {  // a column larger than the ring: pageable copy
    HT_CUDA(cudaMemcpy2DAsync(dst, static_cast<size_t>(ldd) * elem, src,
                              static_cast<size_t>(lds) * elem, colb, static_cast<size_t>(cols),
                              to_device ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost, w.s));
    HT_CUDA(cudaStreamSynchronize(w.s));
    return true;
  }
  for (int64_t j = 0; j < cols; j += step) {
    const int64_t nc = std::min(step, cols - j);
    const char* s = static_cast<const char*>(src) + j * lds * static_cast<int64_t>(elem);
    char* d = static_cast<char*>(dst) + j * ldd * static_cast<int64_t>(elem);
    if (to_device) {
      copy_2d(pool_.get(), piece, w.hC, rows, s, lds, rows, nc, elem);
      HT_CUDA(cudaMemcpy2DAsync(d, static_cast<size_t>(ldd) * elem, w.hC, colb, colb,
                                static_cast<size_t>(nc), cudaMemcpyHostToDevice, w.s));
      HT_CUDA(cudaStreamSynchronize(w.s));
    } else {
      HT_CUDA(cudaMemcpy2DAsync(w.hC, colb, s, static_cast<size_t>(lds) * elem, colb,
                                static_cast<size_t>(nc), cudaMemcpyDeviceToHost, w.s));
      HT_CUDA(cudaStreamSynchronize(w.s));
      copy_2d(pool_.get(), piece, d, ldd, w.hC, rows, rows, nc, elem);
    }
  }
  return true;
}

bool Pipeline::measure(gpuopt_dtype_t dtype, double* link_bytes_per_s, double* flops_per_s,
                       std::string* error) {
  Worker& w = *workers_[0];
  HT_CUDA(cudaSetDevice(w.device));
  const int64_t t = options_.tile_mn, k = options_.tile_k;
  const size_t cb = static_cast<size_t>(t * t) * kMaxElem;
  const size_t ab = static_cast<size_t>(t * k) * kMaxElem;
  HT_CUDA(cudaMemsetAsync(w.dA[0], 0, ab, w.s));
  HT_CUDA(cudaMemsetAsync(w.dB[0], 0, ab, w.s));
  memset(w.hC, 0, cb);
  cudaEvent_t e0 = nullptr, e1 = nullptr;
  HT_CUDA(cudaEventCreate(&e0));
  cudaError_t ce = cudaEventCreate(&e1);
  if (ce != cudaSuccess) {
    cudaEventDestroy(e0);
    *error = cuda_text(ce, "cudaEventCreate");
    return false;
  }
  gpuopt_gemm_desc_t d;
  memset(&d, 0, sizeof d);
  d.struct_size = sizeof d;
  d.m = d.n = t;
  d.k = k;
  d.alpha = 1;
  d.beta = 0;
  d.a_type = d.c_type = dtype;
  d.lda = t;
  d.ldb = k;
  d.ldc = t;
  float copy_ms = 0, gemm_ms = 0;
  bool ok = false;
  do {
    // Warm up (first launch, module loading), then time one copy in and one product.
    if (cudaMemcpyAsync(w.dC, w.hC, cb / 8, cudaMemcpyHostToDevice, w.s) != cudaSuccess) break;
    if (gpuopt_gemm(w.ctx, w.gs, &d, w.dA[0], w.dB[0], w.dC) != GPUOPT_SUCCESS) break;
    if (cudaEventRecord(e0, w.s) != cudaSuccess) break;
    if (cudaMemcpyAsync(w.dC, w.hC, cb, cudaMemcpyHostToDevice, w.s) != cudaSuccess) break;
    if (cudaEventRecord(e1, w.s) != cudaSuccess) break;
    if (cudaEventSynchronize(e1) != cudaSuccess) break;
    cudaEventElapsedTime(&copy_ms, e0, e1);
    if (cudaEventRecord(e0, w.s) != cudaSuccess) break;
    if (gpuopt_gemm(w.ctx, w.gs, &d, w.dA[0], w.dB[0], w.dC) != GPUOPT_SUCCESS) break;
    if (cudaEventRecord(e1, w.s) != cudaSuccess) break;
    if (cudaEventSynchronize(e1) != cudaSuccess) break;
    cudaEventElapsedTime(&gemm_ms, e0, e1);
    ok = copy_ms > 0 && gemm_ms > 0;
  } while (false);
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
  if (!ok) {
    *error = "measuring the link and GEMM rates failed";
    return false;
  }
  *link_bytes_per_s = static_cast<double>(cb) / (copy_ms * 1e-3);
  *flops_per_s = 2.0 * static_cast<double>(t) * static_cast<double>(t) * static_cast<double>(k) /
                 (gemm_ms * 1e-3);
  return true;
}

}  // namespace gpuopt_host_tiled
