// transpose smem_swizzled: tiles of C sixteen-byte chunks (V = 16 / element size elements each)
// by 32 V input lines (f32 64 x 128, f64 32 x 64, bf16 64 x 256; C = 16, 16, 8) staged in shared
// memory without padding. Loads are 16-byte vectors of input lines. On the way out each thread
// reads V chunks of V consecutive tile rows (16-byte shared loads), transposes the V x V block in
// registers and stores V chunks, one per output line: a warp stores 32 consecutive chunks (512
// bytes) of one output line per instruction. The chunk index of tile row j is XORed with
// (j / V) % 8, so the eight lanes of each shared-memory phase (load and store side) hit eight
// different 16-byte bank groups with no padding (rows stay 16-byte aligned).
// What it improves on smem_padded: 16-byte accesses throughout and whole 512-byte runs per
// output line and store instruction (the first H200 run showed store efficiency tracks the bytes
// per line per instruction: 128-byte runs 73-75% of the copy roof, 256-byte runs 84-90%).
// Tiles at the border, and operands whose pointers or pitches are not multiples of 16 bytes, go
// through the same swizzled tile element by element.
// Figure (H200, d90ef43, 2 GiB moved): f32 16384^2 2858 GB/s (66.9% of the copy roof), f64
// 3943 (92.4%, 1.04x cuBLAS geam), bf16 3367 (78.9%) (docs/notes/history/transpose-rounds.md).
#include "kernels/transpose/transpose_kernel.cuh"

namespace gpuopt {
namespace {

constexpr int kThreads = 256;
constexpr int kWarps = kThreads / 32;

template <class W>
struct Swz {
  static constexpr int kV = 16 / static_cast<int>(sizeof(W));  // elements per chunk
  static constexpr int kC = sizeof(W) == 2 ? 8 : 16;           // chunks per tile row
  static constexpr int kTi = kC * kV;                          // tile extent along i
  static constexpr int kTj = 32 * kV;                          // tile rows (along j)
  // Offset (elements) of element e of chunk c of tile row j.
  __device__ static int at(int j, int c, int e) {
    return j * kTi + ((c ^ ((j / kV) & 7)) * kV) + e;
  }
};

template <class W>
__device__ __forceinline__ void tile_vector(const TransposeArgs<W>& t, W* tile, long long i0,
                                            long long j0) {
  using S = Swz<W>;
  constexpr int V = S::kV, C = S::kC;
  constexpr int kLoads = S::kTj * C / kThreads;
  const int tid = static_cast<int>(threadIdx.x);
  uint4 in[kLoads];
#pragma unroll
  for (int r = 0; r < kLoads; ++r) {
    const int q = r * kThreads + tid, j = q / C, c = q % C;
    in[r] = *reinterpret_cast<const uint4*>(t.a + (i0 + c * V) + (j0 + j) * t.lda);
  }
#pragma unroll
  for (int r = 0; r < kLoads; ++r) {
    const int q = r * kThreads + tid, j = q / C, c = q % C;
    *reinterpret_cast<uint4*>(tile + S::at(j, c, 0)) = in[r];
  }
  __syncthreads();
  // Lane jc owns the chunk of output columns j0 + jc V ..; warp w the input chunks ci = w, w + 8.
  const int jc = tid % 32, warp = tid / 32;
#pragma unroll
  for (int cc = 0; cc < C / kWarps; ++cc) {
    const int ci = cc * kWarps + warp;
    Pack16<W> blk[V], out[V];
#pragma unroll
    for (int k = 0; k < V; ++k)
      blk[k].v = *reinterpret_cast<const uint4*>(tile + S::at(jc * V + k, ci, 0));
#pragma unroll
    for (int e = 0; e < V; ++e) {
#pragma unroll
      for (int k = 0; k < V; ++k) out[e].w[k] = blk[k].w[e];
    }
#pragma unroll
    for (int e = 0; e < V; ++e)
      *reinterpret_cast<uint4*>(t.b + (j0 + jc * V) + (i0 + ci * V + e) * t.ldb) = out[e].v;
  }
}

template <class W>
__device__ __forceinline__ void tile_elements(const TransposeArgs<W>& t, W* tile, long long i0,
                                              long long j0) {
  using S = Swz<W>;
  constexpr int V = S::kV, TI = S::kTi, TJ = S::kTj;
  const long long ni = t.rows - i0 < TI ? t.rows - i0 : TI;
  const long long nj = t.cols - j0 < TJ ? t.cols - j0 : TJ;
  for (int q = static_cast<int>(threadIdx.x); q < TI * TJ; q += kThreads) {
    const int i = q % TI, j = q / TI;
    if (i < ni && j < nj) tile[S::at(j, i / V, i % V)] = t.a[(i0 + i) + (j0 + j) * t.lda];
  }
  __syncthreads();
  for (int q = static_cast<int>(threadIdx.x); q < TI * TJ; q += kThreads) {
    const int j = q % TJ, i = q / TJ;
    if (i < ni && j < nj) t.b[(j0 + j) + (i0 + i) * t.ldb] = tile[S::at(j, i / V, i % V)];
  }
}

template <class W>
__global__ void __launch_bounds__(kThreads)
    transpose_smem_swizzled_kernel(TransposeArgs<W> t, long long tiles_i, long long tiles,
                                   int vector_ok) {
  using S = Swz<W>;
  __shared__ alignas(16) W tile[S::kTi * S::kTj];
  for (long long u = blockIdx.x; u < tiles; u += gridDim.x) {
    const long long i0 = (u % tiles_i) * S::kTi, j0 = (u / tiles_i) * S::kTj;
    if (vector_ok && i0 + S::kTi <= t.rows && j0 + S::kTj <= t.cols) {
      tile_vector(t, tile, i0, j0);
    } else {
      tile_elements(t, tile, i0, j0);
    }
    __syncthreads();  // the tile is reused by the next iteration
  }
}

struct SmemSwizzled {
  template <class W>
  static gpuopt_status_t run(const TransposeProblem& p, const ExecEnv& env) {
    using S = Swz<W>;
    const long long tiles_i = ceil_div(p.rows, S::kTi);
    const long long tiles = tiles_i * ceil_div(p.cols, S::kTj);
    const long long grid = tiles < kMaxGridX ? tiles : kMaxGridX;
    transpose_smem_swizzled_kernel<W><<<static_cast<unsigned>(grid), kThreads, 0, env.stream>>>(
        transpose_args<W>(p), tiles_i, tiles, transpose_aligned16(p) ? 1 : 0);
    return check_launch(env.fn, "transpose smem_swizzled kernel launch");
  }
};

}  // namespace

gpuopt_status_t transpose_launch_smem_swizzled(const TransposeProblem& p, const ExecEnv& env) {
  return transpose_by_size<SmemSwizzled>(p, env);
}

}  // namespace gpuopt
