// transpose smem_swizzled: square tiles of 16 x 16 sixteen-byte chunks (64 x 64 f32, 32 x 32 f64,
// 128 x 128 bf16) staged in shared memory without padding. Global loads and stores are 16-byte
// vectors (V = 16 / element size elements): a thread reads V chunks of input lines, and builds
// each output chunk from V elements of V consecutive tile rows. The chunk index of tile row j is
// XORed with (j / V) % 8, which spreads both the row-wise vector stores and the column-wise
// element reads of a warp over all 32 banks (no padding, so rows stay 16-byte aligned). Warps
// write V output lines x 32 / V chunks per instruction (128-byte runs for f32, 256 for f64, 64
// for bf16). Tiles at the border, and operands whose pointers or pitches are not multiples of 16
// bytes, go through the same swizzled tile element by element. Improves on smem_padded with 4x
// fewer, wider memory instructions and more bytes in flight per thread.
// Figure (H200, f32 16384^2): see docs/notes/transpose.md.
#include "kernels/transpose/transpose_kernel.cuh"

namespace gpuopt {
namespace {

constexpr int kThreads = 256;
constexpr int kChunks = 16;  // 16-byte chunks per tile row

template <class W>
struct Swz {
  static constexpr int kV = 16 / static_cast<int>(sizeof(W));  // elements per chunk
  static constexpr int kTile = kChunks * kV;                   // tile side in elements
  // Element e of chunk c of tile row j (offsets in elements).
  __device__ static int at(int j, int c, int e) {
    return j * kTile + ((c ^ ((j / kV) & 7)) * kV) + e;
  }
};

template <class W>
__device__ __forceinline__ void tile_vector(const TransposeArgs<W>& t, W* tile, long long i0,
                                            long long j0) {
  using S = Swz<W>;
  constexpr int V = S::kV;
  const int tid = static_cast<int>(threadIdx.x);
  // Load: tile row j (input line j0 + j), chunk c; V chunks per thread, all in flight.
  uint4 in[V];
#pragma unroll
  for (int r = 0; r < V; ++r) {
    const int q = r * kThreads + tid, j = q / kChunks, c = q % kChunks;
    in[r] = *reinterpret_cast<const uint4*>(t.a + (i0 + c * V) + (j0 + j) * t.lda);
  }
#pragma unroll
  for (int r = 0; r < V; ++r) {
    const int q = r * kThreads + tid, j = q / kChunks, c = q % kChunks;
    *reinterpret_cast<uint4*>(tile + S::at(j, c, 0)) = in[r];
  }
  __syncthreads();
  // Store: a warp covers V output lines x (32 / V) chunks; lanes split as jc_lo (G of them),
  // the line within the group, then jc_hi.
  constexpr int kCpw = 32 / V;             // chunks per line per warp instruction
  constexpr int kG = kCpw < 8 ? kCpw : 8;  // chunk run of consecutive lanes
  const int lane = tid % 32, warp = tid / 32;
  const int jc_lo = lane % kG, iv = (lane / kG) % V, jc_hi = lane / (kG * V);
#pragma unroll
  for (int r = 0; r < V; ++r) {
    const int w = r * (kThreads / 32) + warp;  // warp pattern: line group, column group
    const int lg = w % kChunks, cg = w / kChunks;
    const int jc = cg * kCpw + jc_hi * kG + jc_lo;
    Pack16<W> out;
#pragma unroll
    for (int k = 0; k < V; ++k) out.w[k] = tile[S::at(jc * V + k, lg, iv)];
    *reinterpret_cast<uint4*>(t.b + (j0 + jc * V) + (i0 + lg * V + iv) * t.ldb) = out.v;
  }
}

template <class W>
__device__ __forceinline__ void tile_elements(const TransposeArgs<W>& t, W* tile, long long i0,
                                              long long j0) {
  using S = Swz<W>;
  constexpr int V = S::kV, T = S::kTile;
  const long long ni = t.rows - i0 < T ? t.rows - i0 : T;
  const long long nj = t.cols - j0 < T ? t.cols - j0 : T;
  for (int q = static_cast<int>(threadIdx.x); q < T * T; q += kThreads) {
    const int i = q % T, j = q / T;
    if (i < ni && j < nj) tile[S::at(j, i / V, i % V)] = t.a[(i0 + i) + (j0 + j) * t.lda];
  }
  __syncthreads();
  for (int q = static_cast<int>(threadIdx.x); q < T * T; q += kThreads) {
    const int j = q % T, i = q / T;
    if (i < ni && j < nj) t.b[(j0 + j) + (i0 + i) * t.ldb] = tile[S::at(j, i / V, i % V)];
  }
}

template <class W>
__global__ void __launch_bounds__(kThreads)
    transpose_smem_swizzled_kernel(TransposeArgs<W> t, long long tiles_i, long long tiles,
                                   int vector_ok) {
  constexpr int T = Swz<W>::kTile;
  __shared__ alignas(16) W tile[T * T];
  for (long long u = blockIdx.x; u < tiles; u += gridDim.x) {
    const long long i0 = (u % tiles_i) * T, j0 = (u / tiles_i) * T;
    if (vector_ok && i0 + T <= t.rows && j0 + T <= t.cols) {
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
    constexpr int T = Swz<W>::kTile;
    const long long tiles_i = ceil_div(p.rows, T);
    const long long tiles = tiles_i * ceil_div(p.cols, T);
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
