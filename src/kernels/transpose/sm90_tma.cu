// transpose sm90_tma (sm_90a): persistent CTAs stream tiles of A into shared memory with TMA
// tensor-map loads through a ring of mbarrier-tracked stages (64 KiB per CTA in flight), while
// their threads transpose and store the oldest stage. A tile is 128 bytes of 32 V input lines
// (V = 16 / element size: 32 x 128 f32, 16 x 64 f64, 64 x 256 bf16). The tensor map views A as
// rank 3, {i, line / V, line % V}, with the box's last two dimensions swapped, so shared-memory
// row r = (line % V) * 32 + line / V: under the TMA 128-byte swizzle (16-byte chunk XOR r % 8)
// the eight lanes of a phase, which read lines V jc + k for jc = 0..7, hit eight different bank
// groups. Each lane reads V 16-byte chunks, transposes the V x V block in registers, and a warp
// stores 512 contiguous bytes of one output line per instruction. Borders need no branches on
// the load side (TMA fills out-of-range elements); the stores are predicated.
// Needs 16-byte-aligned A and B and pitches (TMA, vector stores) and cols a multiple of V (the
// rank-3 view). Improves on smem_swizzled by taking load issue off the threads (one thread
// issues a 4-32 KiB box) and overlapping loads with the stores of earlier tiles.
// Figure (H200, d90ef43, 2 GiB moved): f32 16384^2 3592 GB/s (84.1% of the copy roof, 0.91x
// cuBLAS geam), f64 3750 (87.8%), bf16 2827 (66.2%) (docs/notes/transpose.md).
#include <cuda.h>
#include <cuda_runtime_api.h>

#include <climits>

#include "kernels/gemm/sm90_ptx.cuh"
#include "kernels/transpose/transpose_kernel.cuh"
#include "runtime/driver.hpp"

namespace gpuopt {
namespace {

constexpr int kThreads = 256;          // 8 warps: one per 16-byte chunk of a 128-byte row
constexpr int kRowBytes = 128;         // inner box: one 128-byte swizzle span of an input line
constexpr int kRingBytes = 64 * 1024;  // stages per CTA
constexpr int kSmemBytes = kRingBytes + 1024;  // + slack to align to 1024

template <class W>
struct Tma {
  static constexpr int kV = 16 / static_cast<int>(sizeof(W));
  static constexpr int kI = kRowBytes / static_cast<int>(sizeof(W));  // tile extent along i
  static constexpr int kJ = 32 * kV;                                  // input lines per tile
  static constexpr int kStage = kRowBytes * kJ;
  static constexpr int kStages = kRingBytes / kStage;
};

// Output lines of one stage: warp w takes the 16-byte chunk ci = w of every row (V output lines),
// lane jc the output columns j0 + jc V ...
template <class W>
__device__ __forceinline__ void store_stage(const TransposeArgs<W>& t, const unsigned char* stage,
                                            long long i0, long long j0) {
  constexpr int V = Tma<W>::kV;
  const int jc = static_cast<int>(threadIdx.x) % 32, ci = static_cast<int>(threadIdx.x) / 32;
  const long long j = j0 + jc * V;
  if (j >= t.cols) return;
  Pack16<W> blk[V], out[V];
#pragma unroll
  for (int k = 0; k < V; ++k)
    blk[k].v =
        *reinterpret_cast<const uint4*>(stage + (k * 32 + jc) * kRowBytes + ((ci ^ (jc & 7)) * 16));
#pragma unroll
  for (int e = 0; e < V; ++e) {
#pragma unroll
    for (int k = 0; k < V; ++k) out[e].w[k] = blk[k].w[e];
  }
#pragma unroll
  for (int e = 0; e < V; ++e) {
    const long long i = i0 + ci * V + e;
    if (i < t.rows) *reinterpret_cast<uint4*>(t.b + j + i * t.ldb) = out[e].v;
  }
}

template <class W>
__global__ void __launch_bounds__(kThreads)
    transpose_sm90_tma_kernel(const __grid_constant__ CUtensorMap map, TransposeArgs<W> t,
                              int tiles_i, int tiles) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  using namespace sm90;
  using T = Tma<W>;
  extern __shared__ unsigned char smem_raw[];
  __shared__ std::uint64_t full[T::kStages];
  unsigned char* base = reinterpret_cast<unsigned char*>(
      (reinterpret_cast<std::uintptr_t>(smem_raw) + 1023) & ~static_cast<std::uintptr_t>(1023));
  const bool leader = threadIdx.x == 0;
  if (leader) {
    tma_prefetch_desc(&map);
    for (int s = 0; s < T::kStages; ++s) mbar_init(smem_addr(&full[s]), 1);
    mbar_init_fence();
  }
  __syncthreads();
  // Tile n of this CTA (n-th in its persistent sequence) into stage s.
  auto issue = [&](int n, int s) {
    const int u = static_cast<int>(blockIdx.x) + n * static_cast<int>(gridDim.x);
    if (u >= tiles) return;
    mbar_arrive_expect_tx(smem_addr(&full[s]), T::kStage);
    tma_load_3d(smem_addr(base + s * T::kStage), &map, smem_addr(&full[s]), (u % tiles_i) * T::kI,
                (u / tiles_i) * 32, 0);
  };
  if (leader)
    for (int s = 0; s < T::kStages; ++s) issue(s, s);
  for (int n = 0;; ++n) {
    const int u = static_cast<int>(blockIdx.x) + n * static_cast<int>(gridDim.x);
    if (u >= tiles) break;
    const int s = n % T::kStages;
    mbar_wait(smem_addr(&full[s]), static_cast<std::uint32_t>((n / T::kStages) & 1));
    store_stage(t, base + s * T::kStage, static_cast<long long>(u % tiles_i) * T::kI,
                static_cast<long long>(u / tiles_i) * T::kJ);
    __syncthreads();  // every thread is done with stage s before TMA refills it
    if (leader) issue(n + T::kStages, s);
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

// The rank-3 tensor map of A: {i < rows, line / V < cols / V, line % V < V} with strides V lda and
// lda elements; boxes of {128 bytes, 32, V}, 128-byte swizzle, out-of-range elements read as zero.
bool encode_a(CUtensorMap* map, const TransposeProblem& p) {
  const DriverApi& drv = driver_api();
  if (!drv.cuTensorMapEncodeTiled) return false;
  const std::size_t e = transpose_elem_size(p.dtype);
  const cuuint64_t v = 16 / e;
  const cuuint64_t dims[3] = {static_cast<cuuint64_t>(p.rows), static_cast<cuuint64_t>(p.cols) / v,
                              v};
  const cuuint64_t strides[2] = {static_cast<cuuint64_t>(p.lda) * e * v,
                                 static_cast<cuuint64_t>(p.lda) * e};
  const cuuint32_t box[3] = {static_cast<cuuint32_t>(kRowBytes / e), 32,
                             static_cast<cuuint32_t>(v)};
  const cuuint32_t elem_strides[3] = {1, 1, 1};
  return drv.cuTensorMapEncodeTiled(map, word_type(e), 3, const_cast<void*>(p.A), dims, strides,
                                    box, elem_strides, CU_TENSOR_MAP_INTERLEAVE_NONE,
                                    CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                                    CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS;
}

long long tiles_i_of(const TransposeProblem& p) {
  return ceil_div(p.rows, kRowBytes / static_cast<long long>(transpose_elem_size(p.dtype)));
}
long long tiles_of(const TransposeProblem& p) {
  const long long v = 16 / static_cast<long long>(transpose_elem_size(p.dtype));
  return tiles_i_of(p) * ceil_div(p.cols, 32 * v);
}

struct Sm90Tma {
  template <class W>
  static gpuopt_status_t run(const TransposeProblem& p, const ExecEnv& env) {
    CUtensorMap map;
    if (!encode_a(&map, p))
      return fail(GPUOPT_ERROR_UNSUPPORTED, env.fn,
                  "transpose sm90_tma: cuTensorMapEncodeTiled rejected A's extents or pitch");
    const long long tiles = tiles_of(p);
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
        map, transpose_args<W>(p), static_cast<int>(tiles_i_of(p)), static_cast<int>(tiles));
    return check_launch(env.fn, "transpose sm90_tma kernel launch");
  }
};

}  // namespace

const char* transpose_can_sm90_tma(const TransposeProblem& p, const DeviceDesc& dev) {
  if (!transpose_aligned16(p))
    return "TMA needs A, B, lda and ldb times the element size to be multiples of 16 bytes";
  const std::uint64_t e = transpose_elem_size(p.dtype);
  if ((static_cast<std::uint64_t>(p.cols) * e) % 16)
    return "needs cols times the element size to be a multiple of 16 bytes (rank-3 TMA view)";
  if (p.rows > INT_MAX || p.cols > INT_MAX) return "rows and cols must fit in int32 (TMA)";
  if (static_cast<std::uint64_t>(p.lda) * e * (16 / e) >= (1ull << 40))
    return "TMA needs 16 bytes times lda below 2^40 bytes";
  if (tiles_of(p) > INT_MAX / 2) return "too many tiles for the int32 scheduler";
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
