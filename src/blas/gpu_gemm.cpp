// gemm on the GPU: operands all in device/managed memory run in place (gpuopt_gemm on one
// device); otherwise through the host-tiled pipeline on every device of GPUOPT_BLAS_DEVICES.
#include "gpu_gemm.hpp"

#include <string>

#include "cpu_calls.hpp"
#include "gpu.hpp"
#include "gpu_engine.hpp"
#include "host_view.hpp"

namespace gpuopt_blas {
namespace gpu {
namespace {

// C[i0.., j0..] (rows x cols) = alpha op(A)[i0.., :] op(B)[:, j0..] + beta C on the CPU, with
// host copies of operands that are in device memory.
template <class T>
bool cpu_part(const gpuopt_host_tiled::Call& c, long i0, long j0, long rows, long cols) {
  const T* A = static_cast<const T*>(c.A);
  const T* B = static_cast<const T*>(c.B);
  T* C = static_cast<T*>(c.C);
  const bool na = c.transa == 'N', nb = c.transb == 'N';
  const T* a = na ? A + i0 : A + i0 * c.lda;
  const T* b = nb ? B + j0 * c.ldb : B + j0;
  T* cc = C + i0 + j0 * c.ldc;
  HostView<T> va, vb, vc;
  if (!host_view(a, c.lda, na ? rows : c.k, na ? c.k : rows, &va) ||
      !host_view(b, c.ldb, nb ? c.k : cols, nb ? cols : c.k, &vb) ||
      !host_view(static_cast<const T*>(cc), c.ldc, rows, cols, &vc))
    return false;
  Cpu<T>::gemm(c.transa, c.transb, static_cast<int>(rows), static_cast<int>(cols),
               static_cast<int>(c.k), static_cast<T>(c.alpha), va.ptr, static_cast<int>(va.ld),
               vb.ptr, static_cast<int>(vb.ld), static_cast<T>(c.beta), vc.ptr,
               static_cast<int>(vc.ld));
  return write_back(cc, c.ldc, rows, cols, vc);
}

gpuopt_host_tiled::Memory memory_of(const void* p) {
  const Where w = classify(p);
  if (w.mem != Mem::kHost) return gpuopt_host_tiled::Memory::kDevice;
  return w.pinned ? gpuopt_host_tiled::Memory::kPinned : gpuopt_host_tiled::Memory::kHost;
}

template <class T>
gpuopt_host_tiled::Call make_call(char ta, char tb, long m, long n, long k, T alpha, const T* A,
                                  long lda, const T* B, long ldb, T beta, T* C, long ldc) {
  gpuopt_host_tiled::Call c;
  c.dtype = sizeof(T) == 8 ? GPUOPT_DTYPE_F64 : GPUOPT_DTYPE_F32;
  c.transa = ta;
  c.transb = tb;
  c.m = m;
  c.n = n;
  c.k = k;
  c.alpha = alpha;
  c.beta = beta;
  c.A = A;
  c.lda = lda;
  c.B = B;
  c.ldb = ldb;
  c.C = C;
  c.ldc = ldc;
  c.a_mem = memory_of(A);
  c.b_mem = memory_of(B);
  c.c_mem = memory_of(C);
  return c;
}

constexpr const char* gemm_name(size_t elem) { return elem == 8 ? "dgemm" : "sgemm"; }

}  // namespace

template <class T>
bool pipeline_gemm(Engine& e, gpuopt_host_tiled::Pipeline* p, const char* routine, char ta, char tb,
                   long m, long n, long k, T alpha, const T* A, long lda, const T* B, long ldb,
                   T beta, T* C, long ldc, std::string* why) {
  const gpuopt_host_tiled::Call c = make_call(ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
  bool cpu_ok = true;
  gpuopt_host_tiled::Result r =
      p->gemm(c, [&](const gpuopt_host_tiled::Call& call, int64_t i0, int64_t j0, int64_t rows,
                     int64_t cols) { cpu_ok = cpu_part<T>(call, i0, j0, rows, cols) && cpu_ok; });
  if (r.ok) {
    *why = r.plan;  // the order and the model's figures, for GPUOPT_BLAS_LOG
    return true;
  }
  e.failed(routine, r.error);
  *why = std::to_string(r.cpu_tiles) + " of " + std::to_string(r.tiles) +
         " tiles finished on the CPU after: " + r.error;
  if (!cpu_ok) *why += "; the CPU redo could not reach device memory";
  return false;
}

template <class T>
bool gemm(char ta, char tb, int m, int n, int k, T alpha, const T* A, int lda, const T* B, int ldb,
          T beta, T* C, int ldc, std::string* why) {
  Engine& e = Engine::get();
  std::lock_guard<std::mutex> lock(e.mutex());
  DeviceScope keep_device;
  gpuopt_host_tiled::Pipeline* p = e.pipeline(why);
  const gpuopt_host_tiled::Call c = make_call(ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
  const bool any_device = c.a_mem == gpuopt_host_tiled::Memory::kDevice ||
                          c.b_mem == gpuopt_host_tiled::Memory::kDevice ||
                          c.c_mem == gpuopt_host_tiled::Memory::kDevice;
  if (!p) {
    // No GPU: operands in device memory still get a right answer, through host copies.
    if (any_device && cpu_part<T>(c, 0, 0, m, n)) return true;
    return false;
  }
  const bool all_device = c.a_mem == gpuopt_host_tiled::Memory::kDevice &&
                          c.b_mem == gpuopt_host_tiled::Memory::kDevice &&
                          c.c_mem == gpuopt_host_tiled::Memory::kDevice;
  if (all_device) {
    Where wc = classify(C);
    int di = e.device_index(wc.mem == Mem::kDevice ? wc.device : p->devices()[0]);
    if (di >= 0) {
      std::string err;
      if (p->gemm_in_place(c, static_cast<size_t>(di), &err)) return true;
      e.failed(gemm_name(sizeof(T)), err);
      *why = "in place: " + err;
      if (!cpu_part<T>(c, 0, 0, m, n)) *why += "; the CPU redo could not reach device memory";
      return true;
    }
  }
  pipeline_gemm<T>(e, p, gemm_name(sizeof(T)), ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc,
                   why);
  return true;
}

template bool gemm<double>(char, char, int, int, int, double, const double*, int, const double*,
                           int, double, double*, int, std::string*);
template bool gemm<float>(char, char, int, int, int, float, const float*, int, const float*, int,
                          float, float*, int, std::string*);
template bool pipeline_gemm<double>(Engine&, gpuopt_host_tiled::Pipeline*, const char*, char, char,
                                    long, long, long, double, const double*, long, const double*,
                                    long, double, double*, long, std::string*);
template bool pipeline_gemm<float>(Engine&, gpuopt_host_tiled::Pipeline*, const char*, char, char,
                                   long, long, long, float, const float*, long, const float*, long,
                                   float, float*, long, std::string*);

}  // namespace gpu
}  // namespace gpuopt_blas
