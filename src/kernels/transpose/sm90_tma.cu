// transpose sm90_tma (sm_90a): persistent CTAs stream tiles of A into shared memory with TMA
// tensor-map loads, through a ring of kStages mbarrier-tracked stages, so each CTA keeps up to
// kStages x 16 KiB of loads in flight while its threads transpose and store the oldest stage. A
// tile is 128 bytes of 128 input lines (32 x 128 f32, 16 x 128 f64, 64 x 128 bf16), delivered
// with the TMA 128-byte swizzle (16-byte chunk index XOR line % 8), which makes the column-wise
// shared reads of a warp (32 output lines, i fastest) conflict-free without padding; each thread
// stores 16-byte vectors of B. Borders need no branches on the load side (TMA fills out-of-range
// elements); the stores are predicated. Needs 16-byte-aligned A and B and pitches (TMA and the
// vector stores). Improves on smem_swizzled by taking address generation and load issue off the
// threads (one elected thread issues a 16 KiB box) and overlapping loads with stores.
// Figure (H200, f32 16384^2): see docs/notes/transpose.md.
#include <cuda.h>
#include <cuda_runtime_api.h>

#include <climits>

#include "kernels/gemm/sm90_ptx.cuh"
#include "kernels/transpose/transpose_kernel.cuh"
#include "runtime/driver.hpp"

namespace gpuopt {
namespace {

constexpr int kThreads = 256;
constexpr int kStages = 4;
constexpr int kRowBytes = 128;  // inner box: one 128-byte swizzle span of an input line
constexpr int kBoxLines = 128;  // input lines per tile
constexpr int kStageBytes = kRowBytes * kBoxLines;        // 16 KiB
constexpr int kSmemBytes = kStages * kStageBytes + 1024;  // + slack to align to 1024

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
// 2D tiled load of the box at {c0, c1} into shared memory at dst, completing on bar.
__device__ __forceinline__ void tma_load_2d(std::uint32_t dst, const CUtensorMap* map,
                                            std::uint32_t bar, int c0, int c1) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%2, %3}], [%4];" ::"r"(dst),
      "l"(reinterpret_cast<std::uint64_t>(map)), "r"(c0), "r"(c1), "r"(bar)
      : "memory");
}
#endif

// Output lines i0.. (tile columns) of one stage: chunk q of the tile is line q % I (consecutive
// lanes take consecutive lines, which the swizzle maps to distinct banks) and 16-byte run q / I.
template <class W>
__device__ __forceinline__ void store_stage(const TransposeArgs<W>& t, const unsigned char* stage,
                                            long long i0, long long j0) {
  constexpr int V = 16 / static_cast<int>(sizeof(W));
  constexpr int I = kRowBytes / static_cast<int>(sizeof(W));
  constexpr int kChunksPerThread = kStageBytes / 16 / kThreads;
#pragma unroll
  for (int r = 0; r < kChunksPerThread; ++r) {
    const int q = r * kThreads + static_cast<int>(threadIdx.x);
    const int il = q % I, jc = q / I;
    const long long i = i0 + il, jb = j0 + jc * V;
    if (i >= t.rows || jb >= t.cols) continue;
    Pack16<W> out;
#pragma unroll
    for (int k = 0; k < V; ++k) {
      const int j = jc * V + k;
      out.w[k] = *reinterpret_cast<const W*>(stage + j * kRowBytes + (((il / V) ^ (j & 7)) * 16) +
                                             (il % V) * static_cast<int>(sizeof(W)));
    }
    W* dst = t.b + jb + i * t.ldb;
    if (jb + V <= t.cols) {
      *reinterpret_cast<uint4*>(dst) = out.v;
    } else {
      for (int k = 0; k < V && jb + k < t.cols; ++k) dst[k] = out.w[k];
    }
  }
}

template <class W>
__global__ void __launch_bounds__(kThreads)
    transpose_sm90_tma_kernel(const __grid_constant__ CUtensorMap map, TransposeArgs<W> t,
                              int tiles_i, int tiles) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  using namespace sm90;
  constexpr int I = kRowBytes / static_cast<int>(sizeof(W));
  extern __shared__ unsigned char smem_raw[];
  __shared__ std::uint64_t full[kStages];
  unsigned char* base = reinterpret_cast<unsigned char*>(
      (reinterpret_cast<std::uintptr_t>(smem_raw) + 1023) & ~static_cast<std::uintptr_t>(1023));
  const bool leader = threadIdx.x == 0;
  if (leader) {
    tma_prefetch_desc(&map);
    for (int s = 0; s < kStages; ++s) mbar_init(smem_addr(&full[s]), 1);
    mbar_init_fence();
  }
  __syncthreads();
  // Tile n of this CTA (n-th in its persistent sequence) into stage s.
  auto issue = [&](int n, int s) {
    const int u = static_cast<int>(blockIdx.x) + n * static_cast<int>(gridDim.x);
    if (u >= tiles) return;
    mbar_arrive_expect_tx(smem_addr(&full[s]), kStageBytes);
    tma_load_2d(smem_addr(base + s * kStageBytes), &map, smem_addr(&full[s]), (u % tiles_i) * I,
                (u / tiles_i) * kBoxLines);
  };
  if (leader)
    for (int s = 0; s < kStages; ++s) issue(s, s);
  for (int n = 0;; ++n) {
    const int u = static_cast<int>(blockIdx.x) + n * static_cast<int>(gridDim.x);
    if (u >= tiles) break;
    const int s = n % kStages;
    mbar_wait(smem_addr(&full[s]), static_cast<std::uint32_t>((n / kStages) & 1));
    store_stage(t, base + s * kStageBytes, static_cast<long long>(u % tiles_i) * I,
                static_cast<long long>(u / tiles_i) * kBoxLines);
    __syncthreads();  // every thread is done with stage s before TMA refills it
    if (leader) issue(n + kStages, s);
  }
#else
  (void)map;
  (void)t;
  (void)tiles_i;
  (void)tiles;
#endif
}

CUtensorMapDataType word_type(std::size_t bytes) {
  return bytes == 2
             ? CU_TENSOR_MAP_DATA_TYPE_UINT16
             : (bytes == 4 ? CU_TENSOR_MAP_DATA_TYPE_UINT32 : CU_TENSOR_MAP_DATA_TYPE_UINT64);
}

// The tensor map of A: rows (contiguous) x cols lines at lda, boxes of 128 bytes x kBoxLines,
// 128-byte swizzle, out-of-range elements read as zero.
bool encode_a(CUtensorMap* map, const TransposeProblem& p) {
  const DriverApi& drv = driver_api();
  if (!drv.cuTensorMapEncodeTiled) return false;
  const std::size_t e = transpose_elem_size(p.dtype);
  const cuuint64_t dims[2] = {static_cast<cuuint64_t>(p.rows), static_cast<cuuint64_t>(p.cols)};
  const cuuint64_t strides[1] = {static_cast<cuuint64_t>(p.lda) * e};
  const cuuint32_t box[2] = {static_cast<cuuint32_t>(kRowBytes / e), kBoxLines};
  const cuuint32_t elem_strides[2] = {1, 1};
  return drv.cuTensorMapEncodeTiled(map, word_type(e), 2, const_cast<void*>(p.A), dims, strides,
                                    box, elem_strides, CU_TENSOR_MAP_INTERLEAVE_NONE,
                                    CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                                    CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS;
}

long long tiles_i_of(const TransposeProblem& p) {
  return ceil_div(p.rows, kRowBytes / static_cast<long long>(transpose_elem_size(p.dtype)));
}

struct Sm90Tma {
  template <class W>
  static gpuopt_status_t run(const TransposeProblem& p, const ExecEnv& env) {
    CUtensorMap map;
    if (!encode_a(&map, p))
      return fail(GPUOPT_ERROR_UNSUPPORTED, env.fn,
                  "transpose sm90_tma: cuTensorMapEncodeTiled rejected A's extents or pitch");
    const long long tiles_i = tiles_i_of(p);
    const long long tiles = tiles_i * ceil_div(p.cols, kBoxLines);
    auto* kernel = transpose_sm90_tma_kernel<W>;
    // Host-side attribute and occupancy query, no stream work: fine during graph capture.
    GPUOPT_TRY_CUDA(
        cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmemBytes),
        env.fn, "transpose sm90_tma: raising the shared-memory limit");
    int per_sm = 0;
    GPUOPT_TRY_CUDA(
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, kThreads, kSmemBytes),
        env.fn, "transpose sm90_tma: occupancy query");
    long long grid = static_cast<long long>(env.device->sm_count) * (per_sm > 0 ? per_sm : 1);
    if (grid > tiles) grid = tiles;
    kernel<<<static_cast<unsigned>(grid), kThreads, kSmemBytes, env.stream>>>(
        map, transpose_args<W>(p), static_cast<int>(tiles_i), static_cast<int>(tiles));
    return check_launch(env.fn, "transpose sm90_tma kernel launch");
  }
};

}  // namespace

const char* transpose_can_sm90_tma(const TransposeProblem& p, const DeviceDesc& dev) {
  if (!transpose_aligned16(p))
    return "TMA needs A, B, lda and ldb times the element size to be multiples of 16 bytes";
  if (p.rows > INT_MAX || p.cols > INT_MAX) return "rows and cols must fit in int32 (TMA)";
  if (static_cast<std::uint64_t>(p.lda) * transpose_elem_size(p.dtype) >= (1ull << 40))
    return "TMA needs lda times the element size below 2^40 bytes";
  const long long tiles = tiles_i_of(p) * ceil_div(p.cols, kBoxLines);
  if (tiles > INT_MAX / 2) return "too many tiles for the int32 scheduler";
  if (dev.sm_count < 1) return "device multiprocessor count unknown";
  if (dev.smem_optin < static_cast<std::size_t>(kSmemBytes))
    return "needs 65 KiB of shared memory per block";
  if (!driver_api().cuTensorMapEncodeTiled) return "the driver lacks cuTensorMapEncodeTiled";
  return nullptr;
}

gpuopt_status_t transpose_launch_sm90_tma(const TransposeProblem& p, const ExecEnv& env) {
  if (const char* why = transpose_can_sm90_tma(p, *env.device))
    return fail(GPUOPT_ERROR_UNSUPPORTED, env.fn, "transpose sm90_tma: %s", why);
  return transpose_by_size<Sm90Tma>(p, env);
}

}  // namespace gpuopt
