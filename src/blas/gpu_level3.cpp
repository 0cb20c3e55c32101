// symm, syrk, syr2k, trmm and trsm on the GPU: cuBLAS on one device, on the operands in place
// when they are in device memory, else on device copies made through the pinned ring. Host
// arrays whose copies do not fit the device (its free memory less a margin, or their cudaMalloc
// failing) take the blocked out-of-core path instead (gpu_blocked.hpp: gemm on the host-tiled
// pipeline, all devices, with small diagonal steps). In core, a cuBLAS or CUDA failure leaves the
// host outputs untouched (results are copied back only after success), so the caller redoes the
// call on the CPU; the blocked path finishes on the CPU itself (gpu_blocked.hpp).
#include <cuda_runtime.h>

#include <string>
#include <vector>

#include "cpu_calls.hpp"
#include "gpu.hpp"
#include "gpu_blocked.hpp"
#include "gpu_cublas.hpp"
#include "gpu_engine.hpp"
#include "host_view.hpp"
#include "level3.hpp"

namespace gpuopt_blas {
namespace gpu {
namespace {

struct Mat {
  const void* p;
  long ld, rows, cols;
  bool out;
};

// Runs @p gpu_run (cuBLAS on device pointers and leading dimensions) on the call's matrices, or
// @p cpu_run on host views of them when no GPU can be had and some are in device memory, or
// @p blocked_run (the blocked routine on a Blocked<T>) when they are all host arrays whose device
// copies do not fit. Returns false (outputs untouched) when the caller should redo the call on the
// CPU.
template <class T, class GpuRun, class CpuRun, class BlockedRun>
bool run(const char* routine, std::vector<Mat> mats, GpuRun gpu_run, CpuRun cpu_run,
         BlockedRun blocked_run, std::string* why) {
  Engine& e = Engine::get();
  std::lock_guard<std::mutex> lock(e.mutex());
  DeviceScope keep_device;
  gpuopt_host_tiled::Pipeline* p = e.pipeline(why);
  bool all_device = true, any_device = false;
  int device = -1;
  for (const Mat& m : mats) {
    Where w = classify(m.p);
    if (w.mem == Mem::kHost) all_device = false;
    if (w.mem == Mem::kDevice) {
      any_device = true;
      device = w.device;
    }
  }
  auto on_host = [&]() -> bool {  // the CPU on host views (copies of device memory)
    std::vector<HostView<T>> v(mats.size());
    std::vector<void*> ptr;
    std::vector<long> ld;
    for (size_t i = 0; i < mats.size(); ++i) {
      if (!host_view(static_cast<const T*>(mats[i].p), mats[i].ld, mats[i].rows, mats[i].cols,
                     &v[i]))
        return false;
      ptr.push_back(v[i].ptr);
      ld.push_back(v[i].ld);
    }
    cpu_run(ptr, ld);
    for (size_t i = 0; i < mats.size(); ++i)
      if (mats[i].out && !write_back(static_cast<T*>(const_cast<void*>(mats[i].p)), mats[i].ld,
                                     mats[i].rows, mats[i].cols, v[i]))
        return false;
    return true;
  };
  if (!p) return any_device && on_host();
  int di = e.device_index(device >= 0 ? device : p->devices()[0]);
  if (di < 0) di = 0;
  cudaSetDevice(p->devices()[static_cast<size_t>(di)]);
  auto blocked = [&](long nb, const std::string& reason) {
    Blocked<T> b(e, p, routine, nb);
    blocked_run(b);
    *why = "out of core (" + reason + "), " + b.summary();
    return true;
  };
  if (!all_device && !any_device) {
    double bytes = 0;
    for (const Mat& m : mats)
      bytes += static_cast<double>(m.rows) * static_cast<double>(m.cols) * sizeof(T);
    std::string reason;
    const long nb = blocked_block_size(p, static_cast<size_t>(di), bytes, &reason);
    if (nb > 0) return blocked(nb, reason);
  }
  cublasHandle_t h = e.cublas(static_cast<size_t>(di), why);
  if (!h) return any_device && on_host();
  cudaStream_t s = static_cast<cudaStream_t>(p->native_stream(static_cast<size_t>(di)));
  std::vector<void*> dptr(mats.size(), nullptr);
  std::vector<long> dld(mats.size());
  std::vector<void*> owned;
  std::string err;
  bool ok = true;
  for (size_t i = 0; ok && i < mats.size(); ++i) {
    const Mat& m = mats[i];
    if (all_device) {
      dptr[i] = const_cast<void*>(m.p);
      dld[i] = m.ld;
      continue;
    }
    void* d = nullptr;
    size_t bytes = static_cast<size_t>(m.rows) * static_cast<size_t>(m.cols) * sizeof(T);
    cudaError_t ce = cudaMalloc(&d, bytes ? bytes : sizeof(T));
    if (ce != cudaSuccess) {
      cudaGetLastError();
      err = std::string("device copies do not fit (") + cudaGetErrorString(ce) + ")";
      ok = false;
      break;
    }
    owned.push_back(d);
    dptr[i] = d;
    dld[i] = m.rows > 0 ? m.rows : 1;
    ok = p->copy_matrix(d, dld[i], m.p, m.ld, m.rows, m.cols, sizeof(T), true,
                        static_cast<size_t>(di), &err);
  }
  if (ok) {
    cublasStatus_t st = gpu_run(h, dptr, dld);
    if (st != CUBLAS_STATUS_SUCCESS) {
      err = std::string("cuBLAS ") + cublasGetStatusName(st);
      ok = false;
    } else {
      cudaError_t ce = cudaStreamSynchronize(s);
      if (ce != cudaSuccess) {
        err = cudaGetErrorString(ce);
        ok = false;
      }
    }
  }
  for (size_t i = 0; ok && !all_device && i < mats.size(); ++i)
    if (mats[i].out)
      ok = p->copy_matrix(const_cast<void*>(mats[i].p), mats[i].ld, dptr[i], dld[i], mats[i].rows,
                          mats[i].cols, sizeof(T), false, static_cast<size_t>(di), &err);
  for (void* d : owned) cudaFree(d);
  if (ok) return true;
  const bool no_fit = err.rfind("device copies do not fit", 0) == 0;
  if (no_fit && !any_device) return blocked(blocked_default_block(p), err);
  *why = err;
  if (!no_fit) e.failed(routine, err);
  return any_device && on_host();
}

using Ptrs = std::vector<void*>;
using Lds = std::vector<long>;
template <class T>
T* at(const Ptrs& p, size_t i) {
  return static_cast<T*>(p[i]);
}
int ld_at(const Lds& l, size_t i) { return static_cast<int>(l[i]); }

template <class T>
bool triangular(bool solve, char side, char uplo, char ta, char diag, int m, int n, T alpha,
                const T* A, int lda, T* B, int ldb, std::string* why) {
  const char name[] = {blas_prefix<T>(), 't', 'r', solve ? 's' : 'm', 'm', 0};
  long na = side == 'L' ? m : n;
  return run<T>(
      name, {{A, lda, na, na, false}, {B, ldb, m, n, true}},
      [&](cublasHandle_t h, const Ptrs& d, const Lds& l) {
        return xtr(solve, h, side_of(side), fill(uplo), op(ta), diag_of(diag), m, n, &alpha,
                   at<T>(d, 0), ld_at(l, 0), at<T>(d, 1), ld_at(l, 1));
      },
      [&](const Ptrs& d, const Lds& l) {
        if (solve)
          Cpu<T>::trsm(side, uplo, ta, diag, m, n, alpha, at<T>(d, 0), ld_at(l, 0), at<T>(d, 1),
                       ld_at(l, 1));
        else
          Cpu<T>::trmm(side, uplo, ta, diag, m, n, alpha, at<T>(d, 0), ld_at(l, 0), at<T>(d, 1),
                       ld_at(l, 1));
      },
      [&](Blocked<T>& b) {
        blocked_triangular(b, solve, side, uplo, ta, diag, m, n, alpha, A, lda, B, ldb);
      },
      why);
}

}  // namespace

template <class T>
bool symm(char side, char uplo, int m, int n, T alpha, const T* A, int lda, const T* B, int ldb,
          T beta, T* C, int ldc, std::string* why) {
  const char name[] = {blas_prefix<T>(), 's', 'y', 'm', 'm', 0};
  long na = side == 'L' ? m : n;
  return run<T>(
      name, {{A, lda, na, na, false}, {B, ldb, m, n, false}, {C, ldc, m, n, true}},
      [&](cublasHandle_t h, const Ptrs& d, const Lds& l) {
        return xsymm(h, side_of(side), fill(uplo), m, n, &alpha, at<T>(d, 0), ld_at(l, 0),
                     at<T>(d, 1), ld_at(l, 1), &beta, at<T>(d, 2), ld_at(l, 2));
      },
      [&](const Ptrs& d, const Lds& l) {
        Cpu<T>::symm(side, uplo, m, n, alpha, at<T>(d, 0), ld_at(l, 0), at<T>(d, 1), ld_at(l, 1),
                     beta, at<T>(d, 2), ld_at(l, 2));
      },
      [&](Blocked<T>& b) {
        blocked_symm(b, side, uplo, m, n, alpha, A, lda, B, ldb, beta, C, ldc);
      },
      why);
}

template <class T>
bool syrk(char uplo, char trans, int n, int k, T alpha, const T* A, int lda, T beta, T* C, int ldc,
          std::string* why) {
  const char name[] = {blas_prefix<T>(), 's', 'y', 'r', 'k', 0};
  bool nt = trans == 'N';
  return run<T>(
      name, {{A, lda, nt ? n : k, nt ? k : n, false}, {C, ldc, n, n, true}},
      [&](cublasHandle_t h, const Ptrs& d, const Lds& l) {
        return xsyrk(h, fill(uplo), op(trans), n, k, &alpha, at<T>(d, 0), ld_at(l, 0), &beta,
                     at<T>(d, 1), ld_at(l, 1));
      },
      [&](const Ptrs& d, const Lds& l) {
        Cpu<T>::syrk(uplo, trans, n, k, alpha, at<T>(d, 0), ld_at(l, 0), beta, at<T>(d, 1),
                     ld_at(l, 1));
      },
      [&](Blocked<T>& b) {
        blocked_syr2k<T>(b, uplo, trans, n, k, alpha, A, lda, nullptr, 0, beta, C, ldc);
      },
      why);
}

template <class T>
bool syr2k(char uplo, char trans, int n, int k, T alpha, const T* A, int lda, const T* B, int ldb,
           T beta, T* C, int ldc, std::string* why) {
  const char name[] = {blas_prefix<T>(), 's', 'y', 'r', '2', 'k', 0};
  bool nt = trans == 'N';
  long r = nt ? n : k, c = nt ? k : n;
  return run<T>(
      name, {{A, lda, r, c, false}, {B, ldb, r, c, false}, {C, ldc, n, n, true}},
      [&](cublasHandle_t h, const Ptrs& d, const Lds& l) {
        return xsyr2k(h, fill(uplo), op(trans), n, k, &alpha, at<T>(d, 0), ld_at(l, 0), at<T>(d, 1),
                      ld_at(l, 1), &beta, at<T>(d, 2), ld_at(l, 2));
      },
      [&](const Ptrs& d, const Lds& l) {
        Cpu<T>::syr2k(uplo, trans, n, k, alpha, at<T>(d, 0), ld_at(l, 0), at<T>(d, 1), ld_at(l, 1),
                      beta, at<T>(d, 2), ld_at(l, 2));
      },
      [&](Blocked<T>& b) {
        blocked_syr2k(b, uplo, trans, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
      },
      why);
}

template <class T>
bool trmm(char side, char uplo, char ta, char diag, int m, int n, T alpha, const T* A, int lda,
          T* B, int ldb, std::string* why) {
  return triangular<T>(false, side, uplo, ta, diag, m, n, alpha, A, lda, B, ldb, why);
}

template <class T>
bool trsm(char side, char uplo, char ta, char diag, int m, int n, T alpha, const T* A, int lda,
          T* B, int ldb, std::string* why) {
  return triangular<T>(true, side, uplo, ta, diag, m, n, alpha, A, lda, B, ldb, why);
}

#define GPUOPT_BLAS_INSTANTIATE(T)                                                          \
  template bool symm<T>(char, char, int, int, T, const T*, int, const T*, int, T, T*, int,  \
                        std::string*);                                                      \
  template bool syrk<T>(char, char, int, int, T, const T*, int, T, T*, int, std::string*);  \
  template bool syr2k<T>(char, char, int, int, T, const T*, int, const T*, int, T, T*, int, \
                         std::string*);                                                     \
  template bool trmm<T>(char, char, char, char, int, int, T, const T*, int, T*, int,        \
                        std::string*);                                                      \
  template bool trsm<T>(char, char, char, char, int, int, T, const T*, int, T*, int, std::string*);
GPUOPT_BLAS_INSTANTIATE(double)
GPUOPT_BLAS_INSTANTIATE(float)
#undef GPUOPT_BLAS_INSTANTIATE

}  // namespace gpu
}  // namespace gpuopt_blas
