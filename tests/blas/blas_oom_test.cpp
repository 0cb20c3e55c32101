// A GPU out of memory in the middle of a program's BLAS calls: the calls finish on the CPU with
// the right result, and the GPU path comes back once memory is free; non-GEMM calls whose device
// copies do not fit run out of core (blocked on the pipeline) with the right result. Runs alone (it
// takes all of GPU 0's memory), with GPUOPT_BLAS_FORCE=gpu GPUOPT_BLAS_DEVICES=0. Prints "N passed,
// N failed"; exit 77 without a GPU.
#include <cuda_runtime.h>
#include <stdio.h>

#include <cmath>
#include <vector>

#include "blas_prototypes.h"

namespace {

int g_pass, g_fail;

void check(bool ok, const char* what) {
  ok ? ++g_pass : ++g_fail;
  printf("%s: %s\n", ok ? "ok" : "FAILED", what);
}

// Takes (almost) all free memory of the current device; returns the blocks.
std::vector<void*> hog() {
  std::vector<void*> blocks;
  for (size_t chunk = size_t(1) << 30; chunk >= (size_t(1) << 20);) {
    void* p = nullptr;
    if (cudaMalloc(&p, chunk) == cudaSuccess) {
      blocks.push_back(p);
    } else {
      cudaGetLastError();
      chunk /= 2;
    }
  }
  return blocks;
}

void release(std::vector<void*>& blocks) {
  for (void* p : blocks) cudaFree(p);
  blocks.clear();
}

// dgemm n x n x n against a direct sum on sampled entries.
bool gemm_right(int n) {
  std::vector<double> A(static_cast<size_t>(n) * n), B(A.size()), C(A.size(), 1.0);
  for (size_t i = 0; i < A.size(); ++i) {
    A[i] = std::sin(0.3 * static_cast<double>(i));
    B[i] = std::cos(0.7 * static_cast<double>(i));
  }
  double one = 1, half = 0.5;
  dgemm_("N", "N", &n, &n, &n, &one, A.data(), &n, B.data(), &n, &half, C.data(), &n, 1, 1);
  for (int s = 0; s < 500; ++s) {
    int i = (s * 7919) % n, j = (s * 104729) % n;
    long double sum = 0;
    for (int l = 0; l < n; ++l)
      sum += static_cast<long double>(A[i + static_cast<size_t>(l) * n]) *
             B[l + static_cast<size_t>(j) * n];
    double want = static_cast<double>(sum) + 0.5;
    if (std::fabs(C[i + static_cast<size_t>(j) * n] - want) > 1e-12 * (std::fabs(want) + n))
      return false;
  }
  return true;
}

bool syrk_right(int n, int k) {
  std::vector<double> A(static_cast<size_t>(n) * k), C(static_cast<size_t>(n) * n, 2.0);
  for (size_t i = 0; i < A.size(); ++i) A[i] = std::sin(0.1 * static_cast<double>(i));
  double one = 1;
  dsyrk_("L", "N", &n, &k, &one, A.data(), &n, &one, C.data(), &n, 1, 1);
  for (int s = 0; s < 300; ++s) {
    int i = (s * 7919) % n, j = (s * 31) % n;
    if (i < j) std::swap(i, j);
    long double sum = 0;
    for (int l = 0; l < k; ++l)
      sum += static_cast<long double>(A[i + static_cast<size_t>(l) * n]) *
             A[j + static_cast<size_t>(l) * n];
    double want = static_cast<double>(sum) + 2.0;
    if (std::fabs(C[i + static_cast<size_t>(j) * n] - want) > 1e-12 * (std::fabs(want) + k))
      return false;
  }
  return true;
}

// dtrsm L L N N (m x n, host arrays) against op(A) X = alpha B0 on sampled entries.
bool trsm_right(int m, int n) {
  std::vector<double> A(static_cast<size_t>(m) * m), B(static_cast<size_t>(m) * n);
  for (int j = 0; j < m; ++j)
    for (int i = j; i < m; ++i)
      A[i + static_cast<size_t>(j) * m] =
          i == j ? 2.0 : std::sin(0.3 * (i + 7.0 * j)) / static_cast<double>(m);
  for (size_t i = 0; i < B.size(); ++i) B[i] = std::cos(0.7 * static_cast<double>(i));
  const std::vector<double> B0 = B;
  double alpha = 1.5;
  dtrsm_("L", "L", "N", "N", &m, &n, &alpha, A.data(), &m, B.data(), &m, 1, 1, 1, 1);
  for (int s = 0; s < 300; ++s) {
    int i = (s * 7919) % m, j = (s * 31) % n;
    long double sum = 0;
    for (int l = 0; l <= i; ++l)
      sum += static_cast<long double>(A[i + static_cast<size_t>(l) * m]) *
             B[l + static_cast<size_t>(j) * m];
    double want = alpha * B0[i + static_cast<size_t>(j) * m];
    if (std::fabs(static_cast<double>(sum) - want) > 1e-11 * (std::fabs(want) + 1)) return false;
  }
  return true;
}

}  // namespace

int main() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    printf("skipped: no CUDA device\n");
    return 77;
  }
  cudaSetDevice(0);
  std::vector<void*> blocks = hog();
  check(!blocks.empty(), "GPU memory taken");
  check(gemm_right(1500), "dgemm while the GPU has no memory (setup fails): right, on the CPU");
  release(blocks);
  check(gemm_right(1500), "dgemm with memory free again: right (GPU)");
  // The pipeline exists now (its buffers were made with memory free): host arrays whose device
  // copies do not fit take the blocked out-of-core path on it (src/blas/gpu_blocked.hpp).
  blocks = hog();
  // 2 GiB free: a dtrsm with 2.3 GB of copies is blocked, its diagonal steps (1 GiB of
  // workspace) on the GPU.
  for (int i = 0; i < 2 && !blocks.empty(); ++i) {
    cudaFree(blocks.front());
    blocks.erase(blocks.begin());
  }
  check(trsm_right(12000, 12000), "dtrsm larger than the free device memory: right (blocked)");
  std::vector<void*> rest = hog();  // nothing free: the copies of any call cannot be made
  check(syrk_right(3000, 700), "dsyrk with no device memory for its copies: right (blocked)");
  check(trsm_right(3000, 2000),
        "dtrsm with no device memory for its copies: right (blocked; diagonal steps on the CPU)");
  check(gemm_right(1200), "dgemm after it: right");
  release(rest);
  release(blocks);
  printf("%d passed, %d failed\n", g_pass, g_fail);
  return g_fail ? 1 : 0;
}
