// transpose sm80_vec_tile: one 64 x 64-element tile per CTA (a plain, non-persistent grid of
// tiles, i fastest), 256 threads, each moving pairs of elements (f32 8 bytes, f64 16, bf16 4).
// The f32 form copies the DRAM access stream of the f64 smem_padded rung, the one own rung at or
// above cuBLAS geam on both the H200 and the H100 (H100: 2927 GB/s, 0.969 of the copy roof,
// 1.02x geam): a warp reads 256 contiguous bytes of one input line per instruction and writes 256
// contiguous bytes of one output line per instruction, with a tile (16 KiB for f32) big enough
// that 8 CTAs per SM hold 128 KiB of loads in flight. Each thread issues its 8 pair loads
// (ld.global.nc.L1::no_allocate, streaming past L1) before any shared-memory traffic; after one
// barrier it reads two pairs of neighbouring tile rows (input lines 2x, 2x + 1), transposes the
// 2 x 2 block in registers and stores two pairs (st.global.cs, evict-first in L2) to output lines
// 2p and 2p + 1. Shared-memory layout: pair p of tile row j sits at slot p ^ ((j / 2) % 32), so
// the 16-byte, 8-byte and 4-byte phases of both the row writes and the column reads hit distinct
// banks (no padding). Border tiles and operands whose pointers or pitches do not hold whole pairs
// go through the same tile element by element.
// Figures (H100 80GB HBM3, 044bf0f, gpuopt-bench, copy roof 3022 GB/s;
// docs/notes/history/transpose-rounds.md pass 4): f32 16384^2 0.7408 ms, 2899 GB/s (0.959 of
// copy, 1.003x cublasSgeam's 0.7433 ms; ncu 86.4% of DRAM peak vs 84.1% for the persistent
// sm90_tma); bf16 32768 x 16384 2769 GB/s (0.916, smem_swizzled 2710); f64 16384 x 8192 2885 GB/s
// (0.955, 1.01x cublasDgeam; smem_padded 2927). As the f32 auto rung (1d003c1, run 2): 0.7397 ms,
// 0.961 of copy, 1.005x geam (0.7436 ms); geam's kernel (ncu) has the same grid, 86.0% of DRAM peak
// and the same L2 hit rate.
#include "kernels/transpose/transpose_kernel.cuh"

namespace gpuopt {
namespace {

constexpr int kThreads = 256;   // 8 warps
constexpr int kT = 64;          // tile extent along i and j (elements)
constexpr int kPairs = kT / 2;  // pairs per tile row: one per lane
// Pitches (elements) up to which the pair path's offsets within a tile fit an int (it takes
// 32 registers, 8 CTAs per SM, with 32-bit offsets); larger ones take the element path.
constexpr long long kMaxPitch = (1ll << 31) / kT;

// Two words of W moved as one access.
template <class W>
struct PairOf;
template <>
struct PairOf<std::uint16_t> {
  using type = unsigned int;
};
template <>
struct PairOf<std::uint32_t> {
  using type = uint2;
};
template <>
struct PairOf<std::uint64_t> {
  using type = uint4;
};

template <class W>
union Pair {
  typename PairOf<W>::type v;
  W w[2];
};

// Streaming loads: read-only path, no L1 allocation (the data is used once).
__device__ __forceinline__ unsigned int ld_stream(const unsigned int* p) {
  unsigned int v;
  asm volatile("ld.global.nc.L1::no_allocate.b32 %0, [%1];" : "=r"(v) : "l"(p));
  return v;
}
__device__ __forceinline__ uint2 ld_stream(const uint2* p) {
  uint2 v;
  asm volatile("ld.global.nc.L1::no_allocate.v2.b32 {%0, %1}, [%2];"
               : "=r"(v.x), "=r"(v.y)
               : "l"(p));
  return v;
}
__device__ __forceinline__ uint4 ld_stream(const uint4* p) {
  uint4 v;
  asm volatile("ld.global.nc.L1::no_allocate.v4.b32 {%0, %1, %2, %3}, [%4];"
               : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
               : "l"(p));
  return v;
}

// Slot (in pairs) of pair p of tile row j.
__device__ __forceinline__ int slot(int j, int p) { return j * kPairs + (p ^ ((j >> 1) & 31)); }

// A whole tile with pair-aligned operands: 8 pair loads per thread (warp w, lane x: input line
// j0 + w + 8k, pair x), then 4 2 x 2 blocks (output lines i0 + 2p, 2p + 1 with p = w + 8k,
// output pair x: columns j0 + 2x, 2x + 1).
template <class W>
__device__ __forceinline__ void tile_pairs(const TransposeArgs<W>& t, Pair<W>* tile, long long i0,
                                           long long j0) {
  using P = typename PairOf<W>::type;
  constexpr int kLoads = kT / 8;
  const int x = static_cast<int>(threadIdx.x) % 32, w = static_cast<int>(threadIdx.x) / 32;
  const P* src = reinterpret_cast<const P*>(t.a + i0 + (j0 + w) * t.lda) + x;
  const int step = 8 * static_cast<int>(t.lda / 2);  // 8 input lines, in pairs (fits: launch)
  P in[kLoads];
#pragma unroll
  for (int k = 0; k < kLoads; ++k) in[k] = ld_stream(src + k * step);
#pragma unroll
  for (int k = 0; k < kLoads; ++k) tile[slot(w + 8 * k, x)].v = in[k];
  __syncthreads();
  W* dst = t.b + (j0 + 2 * x) + (i0 + 2 * w) * t.ldb;
  const int ldb = static_cast<int>(t.ldb);
#pragma unroll
  for (int k = 0; k < kT / 16; ++k) {
    const int p = w + 8 * k;
    const Pair<W> a = tile[slot(2 * x, p)], b = tile[slot(2 * x + 1, p)];
    Pair<W> o0, o1;
    o0.w[0] = a.w[0];
    o0.w[1] = b.w[0];
    o1.w[0] = a.w[1];
    o1.w[1] = b.w[1];
    __stcs(reinterpret_cast<P*>(dst + (16 * k) * ldb), o0.v);
    __stcs(reinterpret_cast<P*>(dst + (16 * k + 1) * ldb), o1.v);
  }
}

// Any tile, element by element, through the same layout (word 2 slot + e of the W view).
template <class W>
__device__ __forceinline__ void tile_words(const TransposeArgs<W>& t, W* tile, long long i0,
                                           long long j0) {
  const long long ni = t.rows - i0 < kT ? t.rows - i0 : kT;
  const long long nj = t.cols - j0 < kT ? t.cols - j0 : kT;
#pragma unroll 1
  for (int q = static_cast<int>(threadIdx.x); q < kT * kT; q += kThreads) {
    const int i = q % kT, j = q / kT;
    if (i < ni && j < nj) tile[2 * slot(j, i / 2) + i % 2] = t.a[(i0 + i) + (j0 + j) * t.lda];
  }
  __syncthreads();
#pragma unroll 1
  for (int q = static_cast<int>(threadIdx.x); q < kT * kT; q += kThreads) {
    const int j = q % kT, i = q / kT;
    if (i < ni && j < nj) t.b[(j0 + j) + (i0 + i) * t.ldb] = tile[2 * slot(j, i / 2) + i % 2];
  }
}

// Register cap: f32 and bf16 8 CTAs per SM (the thread limit), f64 4 (its 32 KiB tile allows 6).
template <class W>
constexpr int min_blocks() {
  return sizeof(W) == 8 ? 4 : 8;
}

template <class W>
__global__ void __launch_bounds__(kThreads, min_blocks<W>())
    transpose_sm80_vec_tile_kernel(TransposeArgs<W> t, long long tiles_j, int pairs_ok) {
  __shared__ Pair<W> tile[kT * kPairs];
  const long long i0 = static_cast<long long>(blockIdx.x) * kT;
  for (long long tj = blockIdx.y; tj < tiles_j; tj += gridDim.y) {
    const long long j0 = tj * kT;
    if (pairs_ok && i0 + kT <= t.rows && j0 + kT <= t.cols) {
      tile_pairs(t, tile, i0, j0);
    } else {
      tile_words(t, reinterpret_cast<W*>(tile), i0, j0);
    }
    if (tj + gridDim.y < tiles_j) __syncthreads();  // the tile is reused by the next iteration
  }
}

struct VecTile {
  template <class W>
  static gpuopt_status_t run(const TransposeProblem& p, const ExecEnv& env) {
    dim3 grid;
    GPUOPT_TRY(transpose_tile_grid(p, env, kT, kT, "sm80_vec_tile", &grid));
    const long long tiles_j = ceil_div(p.cols, kT);
    const bool pairs_ok = transpose_vec_tile_pairs(p);
    transpose_sm80_vec_tile_kernel<W>
        <<<grid, kThreads, 0, env.stream>>>(transpose_args<W>(p), tiles_j, pairs_ok ? 1 : 0);
    return check_launch(env.fn, "transpose sm80_vec_tile kernel launch");
  }
};

}  // namespace

bool transpose_vec_tile_pairs(const TransposeProblem& p) {
  const std::uintptr_t pair = 2 * transpose_elem_size(p.dtype);
  const auto addr = reinterpret_cast<std::uintptr_t>(p.A) | reinterpret_cast<std::uintptr_t>(p.B);
  return addr % pair == 0 && p.lda % 2 == 0 && p.ldb % 2 == 0 && p.lda <= kMaxPitch &&
         p.ldb <= kMaxPitch;
}

gpuopt_status_t transpose_launch_sm80_vec_tile(const TransposeProblem& p, const ExecEnv& env) {
  return transpose_by_size<VecTile>(p, env);
}

}  // namespace gpuopt
