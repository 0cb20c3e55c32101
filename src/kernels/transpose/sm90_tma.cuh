// The TMA transpose kernel shared by the rungs sm90_tma (sm90_tma.cu), sm90_tma_onetile
// (sm90_tma_onetile.cu) and sm90_tma_store (sm90_tma_store.cu), sm_90a. Persistent CTAs (or one
// CTA per tile) stream tiles of A into shared memory with TMA tensor-map loads through a ring of
// mbarrier-tracked stages (64 KiB per CTA in flight), while their threads transpose and store the
// oldest stage. A box is 128 bytes of 32 V input lines (V = 16 / element size: 32 x 128 f32,
// 16 x 64 f64, 64 x 256 bf16); an f32 tile is one or two boxes side by side (two: 256-byte runs
// of each input line). The tensor map views A as rank 3, {i, line / V, line % V}, with the box's
// last two dimensions swapped, so shared-memory row r = (line % V) * 32 + line / V: under the TMA
// 128-byte swizzle (16-byte chunk XOR r % 8) the eight lanes of a phase, which read lines V jc + k
// for jc = 0..7, hit eight different bank groups. Each lane reads V 16-byte chunks, transposes the
// V x V block in registers, and a warp stores 512 contiguous bytes of one output line per
// instruction (optionally st.global.cs, streaming), or writes a shared output tile that one thread
// stores with a TMA tensor store. Borders need no branches on the load side (TMA fills
// out-of-range elements); the stores are predicated. Every rung needs 16-byte-aligned A and B and
// pitches (TMA, vector stores) and cols a multiple of V (the rank-3 view):
// transpose_can_sm90_tma (sm90_tma.cu) checks them for all three.
#pragma once
#include <cuda.h>
#include <cuda_runtime_api.h>

#include <climits>

#include "arch/sm90/fence.cuh"
#include "arch/sm90/mbarrier.cuh"
#include "arch/sm90/smem.cuh"
#include "arch/sm90/tma.cuh"
#include "kernels/transpose/transpose_kernel.cuh"
#include "runtime/driver.hpp"
#include "runtime/smem_limit.hpp"

namespace gpuopt {
namespace transpose_tma {

constexpr int kThreads = 256;          // 8 warps: one per 16-byte chunk of a 128-byte row
constexpr int kRowBytes = 128;         // inner box: one 128-byte swizzle span of an input line
constexpr int kRingBytes = 64 * 1024;  // stages per CTA
constexpr int kSmemBytes = kRingBytes + 1024;  // + slack to align to 1024

// kBoxes boxes side by side along i make a tile; kTmaStore: TMA stores from a shared output
// tile; kStreamStores: st.global.cs thread stores (run 4: +3% for f32); kOneTile: a grid of one
// CTA per tile whose ring is that tile's one stage (sm90_tma_onetile) instead of persistent CTAs.
template <class W, int Boxes, bool TmaStore, bool StreamStores, bool OneTile = false>
struct Tma {
  using Word = W;
  static constexpr int kBoxes = Boxes;
  static constexpr bool kTmaStore = TmaStore;
  static constexpr bool kStreamStores = StreamStores;
  static constexpr int kV = 16 / static_cast<int>(sizeof(W));
  static constexpr int kBoxI = kRowBytes / static_cast<int>(sizeof(W));  // box extent along i
  static constexpr int kI = kBoxI * kBoxes;                              // tile extent along i
  static constexpr int kJ = 32 * kV;                                     // input lines per tile
  static constexpr int kBox = kRowBytes * kJ;
  static constexpr int kStage = kBox * kBoxes;
  // With TMA stores: a 32 KiB ring and two output tiles of a stage's size (65 KiB in all).
  static constexpr int kRing = OneTile ? kStage : (TmaStore ? kRingBytes / 2 : kRingBytes);
  static constexpr int kStages = kRing / kStage;
  static constexpr int kOut = TmaStore ? kStage : 0;
  static constexpr int kSmem = kRing + 2 * kOut + 1024;  // + slack to align to 1024
  // One-tile CTAs: a register cap without spills (ptxas -v, sm_90a) for f32 (55 -> 48 registers:
  // 5 CTAs per SM instead of 4) and f64 (8 CTAs, 32 registers); 0: no cap.
  static constexpr int kMinBlocks = !OneTile ? 0 : (sizeof(W) == 4 ? 5 : (sizeof(W) == 8 ? 8 : 0));
  static_assert(kStages >= 2 || OneTile, "a persistent ring of at least two stages");
  static_assert(!TmaStore || Boxes == 1, "TMA stores of one-box tiles");
  static_assert(!(TmaStore && OneTile), "one-tile CTAs store with threads");
};

// Thread tid's V x V block of a box: warp w reads the 16-byte chunk ci = w of V rows, lane jc the
// rows of input lines j0 + jc V ..; out[e] is output line i0 + ci V + e, columns j0 + jc V ...
template <class W>
__device__ __forceinline__ void transpose_block(const unsigned char* box,
                                                Pack16<W> (&out)[16 / sizeof(W)]) {
  constexpr int V = 16 / static_cast<int>(sizeof(W));
  const int jc = static_cast<int>(threadIdx.x) % 32, ci = static_cast<int>(threadIdx.x) / 32;
  Pack16<W> blk[V];
#pragma unroll
  for (int k = 0; k < V; ++k)
    blk[k].v =
        *reinterpret_cast<const uint4*>(box + (k * 32 + jc) * kRowBytes + ((ci ^ (jc & 7)) * 16));
#pragma unroll
  for (int e = 0; e < V; ++e) {
#pragma unroll
    for (int k = 0; k < V; ++k) out[e].w[k] = blk[k].w[e];
  }
}

// The transposed box into an output tile of 32 V columns (512 bytes a line) in shared memory: a
// warp writes one line's 512 contiguous bytes per instruction (no bank conflicts).
template <class W>
__device__ __forceinline__ void stage_box_out(const unsigned char* box, unsigned char* out_tile) {
  constexpr int V = 16 / static_cast<int>(sizeof(W));
  const int jc = static_cast<int>(threadIdx.x) % 32, ci = static_cast<int>(threadIdx.x) / 32;
  Pack16<W> out[V];
  transpose_block<W>(box, out);
#pragma unroll
  for (int e = 0; e < V; ++e)
    *reinterpret_cast<uint4*>(out_tile + (ci * V + e) * 512 + jc * 16) = out[e].v;
}

// Output lines of one stage: warp w takes the 16-byte chunk ci = w of every row (V output lines),
// lane jc the output columns j0 + jc V ...
template <class W, bool kCs>
__device__ __forceinline__ void store_box(const TransposeArgs<W>& t, const unsigned char* stage,
                                          long long i0, long long j0) {
  constexpr int V = 16 / static_cast<int>(sizeof(W));
  const int jc = static_cast<int>(threadIdx.x) % 32, ci = static_cast<int>(threadIdx.x) / 32;
  const long long j = j0 + jc * V;
  if (j >= t.cols) return;
  Pack16<W> out[V];
  transpose_block<W>(stage, out);
#pragma unroll
  for (int e = 0; e < V; ++e) {
    const long long i = i0 + ci * V + e;
    if (i >= t.rows) continue;
    if (kCs) {
      __stcs(reinterpret_cast<uint4*>(t.b + j + i * t.ldb), out[e].v);
    } else {
      *reinterpret_cast<uint4*>(t.b + j + i * t.ldb) = out[e].v;
    }
  }
}

template <class T>
__device__ __forceinline__ void store_stage(const TransposeArgs<typename T::Word>& t,
                                            const unsigned char* stage, long long i0,
                                            long long j0) {
#pragma unroll
  for (int b = 0; b < T::kBoxes; ++b)
    store_box<typename T::Word, T::kStreamStores>(t, stage + b * T::kBox, i0 + b * T::kBoxI, j0);
}

// Tile order: i fastest (the tiles in flight read whole input lines; raster groups of 16-128
// tile columns measured the same in run 4).
struct TileGrid {
  int tiles_i, tiles_j;
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  __device__ void coords(int u, int* ti, int* tj) const {
    *ti = u % tiles_i;
    *tj = u / tiles_i;
  }
#endif
};

template <class T>
__global__ void __launch_bounds__(kThreads, T::kMinBlocks)
    transpose_sm90_tma_kernel(const __grid_constant__ CUtensorMap map,
                              const __grid_constant__ CUtensorMap map_b,
                              TransposeArgs<typename T::Word> t, TileGrid grid) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  using namespace sm90;
  extern __shared__ unsigned char smem_raw[];
  __shared__ std::uint64_t full[T::kStages];
  unsigned char* base = reinterpret_cast<unsigned char*>(
      (reinterpret_cast<std::uintptr_t>(smem_raw) + 1023) & ~static_cast<std::uintptr_t>(1023));
  const bool leader = threadIdx.x == 0;
  if (leader) {
    tma_prefetch_desc(&map);
    if (T::kTmaStore) tma_prefetch_desc(&map_b);
    for (int s = 0; s < T::kStages; ++s) mbar_init(smem_addr(&full[s]), 1);
    mbar_init_fence();
  }
  __syncthreads();
  const int tiles = grid.tiles_i * grid.tiles_j;
  // Tile n of this CTA (n-th in its persistent sequence) into stage s.
  auto issue = [&](int n, int s) {
    const int u = static_cast<int>(blockIdx.x) + n * static_cast<int>(gridDim.x);
    if (u >= tiles) return;
    int ti, tj;
    grid.coords(u, &ti, &tj);
    mbar_arrive_expect_tx(smem_addr(&full[s]), T::kStage);
#pragma unroll
    for (int b = 0; b < T::kBoxes; ++b)
      tma_load_3d(smem_addr(base + s * T::kStage + b * T::kBox), &map, smem_addr(&full[s]),
                  ti * T::kI + b * T::kBoxI, tj * 32, 0);
  };
  if (leader)
    for (int s = 0; s < T::kStages; ++s) issue(s, s);
  for (int n = 0;; ++n) {
    const int u = static_cast<int>(blockIdx.x) + n * static_cast<int>(gridDim.x);
    if (u >= tiles) break;
    int ti, tj;
    grid.coords(u, &ti, &tj);
    const int s = n % T::kStages;
    mbar_wait(smem_addr(&full[s]), static_cast<std::uint32_t>((n / T::kStages) & 1));
    if constexpr (T::kTmaStore) {
      static_assert(!T::kStreamStores, "TMA stores take no thread-store flavour");
      unsigned char* out_tile = base + T::kRing + (n & 1) * T::kOut;
      if (leader) bulk_wait_read<1>();  // the store of tile n - 2 is done reading out_tile
      __syncthreads();
      stage_box_out<typename T::Word>(base + s * T::kStage, out_tile);
      fence_proxy_async_shared();
      __syncthreads();  // out_tile written, stage s read by every thread
      if (leader) {
        tma_store_2d(&map_b, smem_addr(out_tile), tj * T::kJ, ti * T::kI);
        bulk_commit();
        issue(n + T::kStages, s);
      }
    } else {
      store_stage<T>(t, base + s * T::kStage, static_cast<long long>(ti) * T::kI,
                     static_cast<long long>(tj) * T::kJ);
      __syncthreads();  // every thread is done with stage s before TMA refills it
      if (leader) issue(n + T::kStages, s);
    }
  }
  if (T::kTmaStore && leader) bulk_wait_read<0>();  // shared memory outlives the stores' reads
#else
  (void)T::kV, (void)T::kI, (void)T::kBoxI, (void)T::kJ;
  (void)T::kTmaStore, (void)T::kStreamStores;
  (void)map;
  (void)map_b;
  (void)t;
  (void)grid;
#endif
}

inline CUtensorMapDataType word_type(std::size_t bytes) {
  return bytes == 2
             ? CU_TENSOR_MAP_DATA_TYPE_UINT16
             : (bytes == 4 ? CU_TENSOR_MAP_DATA_TYPE_UINT32 : CU_TENSOR_MAP_DATA_TYPE_UINT64);
}

// The rank-3 tensor map of A: {i < rows, line / V < cols / V, line % V < V} with strides V lda
// and lda elements; boxes of {128 bytes, 32, V}, 128-byte swizzle, out-of-range elements read as
// zero.
inline bool encode_a(CUtensorMap* map, const TransposeProblem& p) {
  const std::size_t e = transpose_elem_size(p.dtype);
  const cuuint64_t v = 16 / e;
  const cuuint64_t dims[3] = {static_cast<cuuint64_t>(p.rows), static_cast<cuuint64_t>(p.cols) / v,
                              v};
  const cuuint64_t strides[2] = {static_cast<cuuint64_t>(p.lda) * e * v,
                                 static_cast<cuuint64_t>(p.lda) * e};
  const cuuint32_t box[3] = {static_cast<cuuint32_t>(kRowBytes / e), 32,
                             static_cast<cuuint32_t>(v)};
  return encode_tiled_map(map, word_type(e), 3, p.A, dims, strides, box,
                          CU_TENSOR_MAP_SWIZZLE_128B);
}

// The rank-2 tensor map of B for TMA stores: {j < cols, i < rows}, pitch ldb; boxes of 32 V
// columns (512-byte lines) by the 128 / element size lines of a one-box tile, no swizzle; the
// stores clip at the borders.
inline bool encode_b(CUtensorMap* map, const TransposeProblem& p) {
  const std::size_t e = transpose_elem_size(p.dtype);
  const cuuint64_t dims[2] = {static_cast<cuuint64_t>(p.cols), static_cast<cuuint64_t>(p.rows)};
  const cuuint64_t strides[1] = {static_cast<cuuint64_t>(p.ldb) * e};
  const cuuint32_t box[2] = {static_cast<cuuint32_t>(512 / e),
                             static_cast<cuuint32_t>(kRowBytes / e)};
  return encode_tiled_map(map, word_type(e), 2, p.B, dims, strides, box,
                          CU_TENSOR_MAP_SWIZZLE_NONE);
}

inline long long tiles_i_of(const TransposeProblem& p, int boxes) {
  return ceil_div(p.rows, boxes * kRowBytes / static_cast<long long>(transpose_elem_size(p.dtype)));
}
inline long long tiles_of(const TransposeProblem& p, int boxes = 1) {
  const long long v = 16 / static_cast<long long>(transpose_elem_size(p.dtype));
  return tiles_i_of(p, boxes) * ceil_div(p.cols, 32 * v);
}

// Launches the kernel of tiles of kBoxes boxes, with TMA stores or thread stores, on persistent
// CTAs (as many as fit) or on one CTA per tile.
template <class W, int kBoxes, bool kTmaStore, bool kStreamStores, bool kOneTile = false>
gpuopt_status_t launch_tma(const TransposeProblem& p, const ExecEnv& env) {
  using T = Tma<W, kBoxes, kTmaStore, kStreamStores, kOneTile>;
  if (env.device->smem_optin < static_cast<std::size_t>(T::kSmem))
    return fail(GPUOPT_ERROR_UNSUPPORTED, env.fn,
                "transpose sm90_tma: needs %d KiB of shared memory", T::kSmem / 1024);
  CUtensorMap map, map_b;
  if (!encode_a(&map, p))
    return fail(GPUOPT_ERROR_UNSUPPORTED, env.fn,
                "transpose sm90_tma: cuTensorMapEncodeTiled rejected A's extents or pitch");
  if (!kTmaStore) {
    map_b = map;  // unused
  } else if (!encode_b(&map_b, p)) {
    return fail(GPUOPT_ERROR_UNSUPPORTED, env.fn,
                "transpose sm90_tma: cuTensorMapEncodeTiled rejected B's extents or pitch");
  }
  const long long tiles = tiles_of(p, kBoxes);
  TileGrid g;
  g.tiles_i = static_cast<int>(tiles_i_of(p, kBoxes));
  g.tiles_j = static_cast<int>(tiles / g.tiles_i);
  auto* kernel = transpose_sm90_tma_kernel<T>;
  // Host-side attribute and occupancy query, no stream work: fine during graph capture.
  GPUOPT_TRY(raise_smem_limit(kernel, T::kSmem, env.fn, "transpose sm90_tma"));
  long long grid = tiles;  // one tile per CTA (tiles <= INT_MAX / 2: transpose_can_sm90_tma)
  if (!kOneTile) {
    int per_sm = 0;
    GPUOPT_TRY_CUDA(
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, kThreads, T::kSmem), env.fn,
        "transpose sm90_tma: occupancy query");
    const long long fit = static_cast<long long>(env.device->sm_count) * (per_sm > 0 ? per_sm : 1);
    if (grid > fit) grid = fit;
  }
  kernel<<<static_cast<unsigned>(grid), kThreads, T::kSmem, env.stream>>>(map, map_b,
                                                                          transpose_args<W>(p), g);
  return check_launch(env.fn, "transpose sm90_tma kernel launch");
}

// sm90_tma: f32 tiles of two boxes with st.global.cs stores (run 3: two boxes 3745 vs one 3615
// GB/s; run 4: + .cs 3876 vs 3762), f64 and bf16 one box, plain stores (as measured).
// kOneTile: sm90_tma_onetile, the same tiles and stores with one CTA per tile.
template <bool kOneTile>
struct Sm90Tma {
  template <class W>
  static gpuopt_status_t run(const TransposeProblem& p, const ExecEnv& env) {
    constexpr bool kF32 = sizeof(W) == 4;
    constexpr int kBoxes = kF32 ? 2 : 1;
    return launch_tma<W, kBoxes, false, kF32, kOneTile>(p, env);
  }
};

// Launch::run<W> after transpose_can_sm90_tma, whose reason names the variant when it refuses.
template <class Launch>
gpuopt_status_t launch_if_can(const char* name, const TransposeProblem& p, const ExecEnv& env) {
  if (const char* why = transpose_can_sm90_tma(p, *env.device))
    return fail(GPUOPT_ERROR_UNSUPPORTED, env.fn, "transpose %s: %s", name, why);
  return transpose_by_size<Launch>(p, env);
}

}  // namespace transpose_tma
}  // namespace gpuopt
