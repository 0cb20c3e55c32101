// transpose sm90_tma (sm_90a): persistent CTAs stream tiles of A into shared memory with TMA
// tensor-map loads through a ring of mbarrier-tracked stages (64 KiB per CTA in flight), while
// their threads transpose and store the oldest stage. A box is 128 bytes of 32 V input lines
// (V = 16 / element size: 32 x 128 f32, 16 x 64 f64, 64 x 256 bf16); an f32 tile is two boxes
// side by side (64 x 128: 256-byte runs of each input line), f64 and bf16 tiles one. The tensor
// map views A as rank 3, {i, line / V, line % V}, with the box's last two dimensions swapped, so
// shared-memory row r = (line % V) * 32 + line / V: under the TMA 128-byte swizzle (16-byte
// chunk XOR r % 8) the eight lanes of a phase, which read lines V jc + k for jc = 0..7, hit
// eight different bank groups. Each lane reads V 16-byte chunks, transposes the V x V block in
// registers, and a warp stores 512 contiguous bytes of one output line per instruction (f32:
// st.global.cs, streaming). Borders need no branches on the load side (TMA fills out-of-range
// elements); the stores are predicated.
// sm90_tma_store (f32): one-box tiles whose transposed tile the threads write to a shared output
// tile (512-byte lines, conflict-free) and one thread stores with a TMA tensor store
// (cp.async.bulk.tensor shared -> global, bulk groups; two output tiles, a 32 KiB ring).
// Both need 16-byte-aligned A and B and pitches (TMA, vector stores) and cols a multiple of V
// (the rank-3 view). They improve on smem_swizzled by taking load issue off the threads (one
// thread issues a 4-32 KiB box) and overlapping loads with the stores of earlier tiles.
// Figures (H200, 2 GiB moved, docs/notes/history/transpose-rounds.md): f32 16384^2 sm90_tma with
// two boxes and .cs stores 3876 GB/s (90.8% of the copy roof, 0.976x cuBLAS geam; 501114a, measured
// as tma2box_cs), one box 3615 (303098c); sm90_tma_store 3727 (87.3%, 501114a); f64 one box 3694
// (501114a), bf16 2827 (66.2%, d90ef43). Runs 5-6 (e0bfb42, 0a256c3): f32 3859-3876 GB/s,
// 0.976-0.979x geam; a 96 KiB ring, releasing the stage before the stores, and 128 x 128 tiles
// (four boxes, one CTA per SM, 128 or 192 KiB ring) all measured within 0.3% of it: not kept.
// sm90_tma_onetile: the same tiles and stores on one CTA per tile (5 f32 CTAs per SM, 48
// registers). H100 (044bf0f, pass 4): f32 16384^2 0.7481 ms, 2871 GB/s (0.950 of copy, 0.994x
// geam; ncu 85.6% of DRAM peak) vs persistent sm90_tma 0.7636 ms (0.973x, 84.1%); f64 2851 GB/s
// (sm90_tma 2706), bf16 2509 (2325). Persistence cost ~2% here; sm80_vec_tile is faster still.
#include <cuda.h>
#include <cuda_runtime_api.h>

#include <climits>

#include "arch/sm90/fence.cuh"
#include "arch/sm90/mbarrier.cuh"
#include "arch/sm90/smem.cuh"
#include "arch/sm90/tma.cuh"
#include "kernels/transpose/transpose_kernel.cuh"
#include "runtime/driver.hpp"

namespace gpuopt {
namespace {

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

CUtensorMapDataType word_type(std::size_t bytes) {
  return bytes == 2
             ? CU_TENSOR_MAP_DATA_TYPE_UINT16
             : (bytes == 4 ? CU_TENSOR_MAP_DATA_TYPE_UINT32 : CU_TENSOR_MAP_DATA_TYPE_UINT64);
}

// The rank-3 tensor map of A: {i < rows, line / V < cols / V, line % V < V} with strides V lda and
// lda elements; boxes of {128 bytes, 32, V}, 128-byte swizzle, out-of-range elements read as zero.
bool encode_a(CUtensorMap* map, const TransposeProblem& p) {
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
bool encode_b(CUtensorMap* map, const TransposeProblem& p) {
  const std::size_t e = transpose_elem_size(p.dtype);
  const cuuint64_t dims[2] = {static_cast<cuuint64_t>(p.cols), static_cast<cuuint64_t>(p.rows)};
  const cuuint64_t strides[1] = {static_cast<cuuint64_t>(p.ldb) * e};
  const cuuint32_t box[2] = {static_cast<cuuint32_t>(512 / e),
                             static_cast<cuuint32_t>(kRowBytes / e)};
  return encode_tiled_map(map, word_type(e), 2, p.B, dims, strides, box,
                          CU_TENSOR_MAP_SWIZZLE_NONE);
}

long long tiles_i_of(const TransposeProblem& p, int boxes) {
  return ceil_div(p.rows, boxes * kRowBytes / static_cast<long long>(transpose_elem_size(p.dtype)));
}
long long tiles_of(const TransposeProblem& p, int boxes = 1) {
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
  GPUOPT_TRY_CUDA(
      cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, T::kSmem), env.fn,
      "transpose sm90_tma: raising the shared-memory limit");
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

// sm90_tma_store: f32 only (the one type measured and tested on the device).
struct Sm90TmaStore {
  template <class W>
  static gpuopt_status_t run(const TransposeProblem& p, const ExecEnv& env) {
    if constexpr (sizeof(W) != 4) {
      (void)p;
      return fail(GPUOPT_ERROR_UNSUPPORTED, env.fn, "transpose sm90_tma_store: f32 only");
    } else {
      return launch_tma<W, 1, true, false>(p, env);
    }
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

namespace {
// Launch::run<W> after transpose_can_sm90_tma, whose reason names the variant when it refuses.
template <class Launch>
gpuopt_status_t launch_if_can(const char* name, const TransposeProblem& p, const ExecEnv& env) {
  if (const char* why = transpose_can_sm90_tma(p, *env.device))
    return fail(GPUOPT_ERROR_UNSUPPORTED, env.fn, "transpose %s: %s", name, why);
  return transpose_by_size<Launch>(p, env);
}
}  // namespace

gpuopt_status_t transpose_launch_sm90_tma(const TransposeProblem& p, const ExecEnv& env) {
  return launch_if_can<Sm90Tma<false>>("sm90_tma", p, env);
}

gpuopt_status_t transpose_launch_sm90_tma_onetile(const TransposeProblem& p, const ExecEnv& env) {
  return launch_if_can<Sm90Tma<true>>("sm90_tma_onetile", p, env);
}

gpuopt_status_t transpose_launch_sm90_tma_store(const TransposeProblem& p, const ExecEnv& env) {
  return launch_if_can<Sm90TmaStore>("sm90_tma_store", p, env);
}

}  // namespace gpuopt
