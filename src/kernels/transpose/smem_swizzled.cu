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
// 3943 (92.4%, 1.04x cuBLAS geam), bf16 3367 (78.9%) (docs/notes/transpose.md).
#include "kernels/transpose/transpose_kernel.cuh"

namespace gpuopt {
namespace {

constexpr int kThreads = 256;

// A tile of C sixteen-byte chunks (along i) by TJ input lines, V = 16 / element size elements a
// chunk. The store side gives an output line's TJ / V chunks to as many consecutive lanes.
template <class W, int C, int TJ>
struct Swz {
  using Word = W;
  static constexpr int kV = 16 / static_cast<int>(sizeof(W));  // elements per chunk
  static constexpr int kC = C;                                 // chunks per tile row
  static constexpr int kTi = C * kV;                           // tile extent along i
  static constexpr int kTj = TJ;                               // tile rows (along j)
  static constexpr int kLJ = TJ / kV;                          // lanes per output line (its chunks)
  static constexpr int kCI = kThreads / kLJ;                   // input chunks per store pass
  static constexpr int kLoads = TJ * C / kThreads;             // 16-byte loads per thread
  static_assert(C % 8 == 0, "the swizzle XORs the chunk index with 0..7");
  static_assert(kLJ <= 32 && 32 % kLJ == 0, "an output line's chunks within one warp");
  static_assert(C % kCI == 0 && (TJ * C) % kThreads == 0, "whole passes");
  // Offset (elements) of element e of chunk c of tile row j.
  __device__ static int at(int j, int c, int e) {
    return j * kTi + ((c ^ ((j / kV) & 7)) * kV) + e;
  }
};

// The tile's 16-byte chunks of A into registers (consecutive threads along an input line).
template <class S>
__device__ __forceinline__ void load_chunks(const TransposeArgs<typename S::Word>& t,
                                            uint4 (&in)[S::kLoads], long long i0, long long j0) {
  const int tid = static_cast<int>(threadIdx.x);
  // Load r of thread tid: chunk tid % C of tile row r kThreads / C + tid / C.
  const auto* src = t.a + (i0 + (tid % S::kC) * S::kV) + (j0 + tid / S::kC) * t.lda;
  const long long step = (kThreads / S::kC) * t.lda;
#pragma unroll
  for (int r = 0; r < S::kLoads; ++r) in[r] = *reinterpret_cast<const uint4*>(src + r * step);
}

template <class S>
__device__ __forceinline__ void stage_chunks(typename S::Word* tile, const uint4 (&in)[S::kLoads]) {
  const int tid = static_cast<int>(threadIdx.x);
#pragma unroll
  for (int r = 0; r < S::kLoads; ++r) {
    const int q = r * kThreads + tid, j = q / S::kC, c = q % S::kC;
    *reinterpret_cast<uint4*>(tile + S::at(j, c, 0)) = in[r];
  }
}

// Lane jc of a group of kLJ owns the chunk of output columns j0 + jc V ..; the group reads input
// chunk ci of V consecutive tile rows per lane, transposes the V x V block in registers and
// stores V output chunks: kLJ consecutive chunks of one output line per instruction.
template <class S>
__device__ __forceinline__ void store_chunks(const TransposeArgs<typename S::Word>& t,
                                             const typename S::Word* tile, long long i0,
                                             long long j0) {
  using W = typename S::Word;
  constexpr int V = S::kV;
  const int tid = static_cast<int>(threadIdx.x), jc = tid % S::kLJ, cb = tid / S::kLJ;
  W* dst = t.b + (j0 + jc * V) + (i0 + cb * V) * t.ldb;
#pragma unroll
  for (int cc = 0; cc < S::kC / S::kCI; ++cc) {
    const int ci = cc * S::kCI + cb;
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
      *reinterpret_cast<uint4*>(dst + (cc * S::kCI * V + e) * t.ldb) = out[e].v;
  }
}

template <class S>
__device__ __forceinline__ void tile_elements(const TransposeArgs<typename S::Word>& t,
                                              typename S::Word* tile, long long i0, long long j0) {
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

// Tile order: consecutive tiles along i (input lines read in long runs by neighbouring blocks)
// or, with j_first, along j (output lines written in long runs).
struct TileOrder {
  long long tiles_i, tiles_j;
  int j_first;
  __device__ long long i_of(long long u) const { return j_first ? u / tiles_j : u % tiles_i; }
  __device__ long long j_of(long long u) const { return j_first ? u % tiles_j : u / tiles_i; }
};

// kPipelined: persistent blocks load the next vector tile's chunks into registers right after
// staging the current one, so that load latency overlaps the current tile's stores. kMinBlocks
// caps the registers so that many blocks fit an SM (more bytes in flight).
template <class S, bool kPipelined, int kMinBlocks>
__global__ void __launch_bounds__(kThreads, kMinBlocks)
    transpose_smem_swizzled_kernel(TransposeArgs<typename S::Word> t, TileOrder o, int vector_ok) {
  __shared__ alignas(16) typename S::Word tile[S::kTi * S::kTj];
  uint4 in[S::kLoads];
  auto whole = [&](long long u) {
    return vector_ok && o.i_of(u) * S::kTi + S::kTi <= t.rows &&
           o.j_of(u) * S::kTj + S::kTj <= t.cols;
  };
  const long long tiles = o.tiles_i * o.tiles_j;
  bool loaded = false;
  for (long long u = blockIdx.x; u < tiles; u += gridDim.x) {
    const long long i0 = o.i_of(u) * S::kTi, j0 = o.j_of(u) * S::kTj;
    if (whole(u)) {
      if (!loaded) load_chunks<S>(t, in, i0, j0);
      stage_chunks<S>(tile, in);
      __syncthreads();
      loaded = false;
      const long long next = u + gridDim.x;
      if (kPipelined && next < tiles && whole(next)) {
        load_chunks<S>(t, in, o.i_of(next) * S::kTi, o.j_of(next) * S::kTj);
        loaded = true;
      }
      store_chunks<S>(t, tile, i0, j0);
    } else {
      tile_elements<S>(t, tile, i0, j0);
    }
    __syncthreads();  // the tile is reused by the next iteration
  }
}

template <class W, int C, int TJ, bool kPipelined, int kMinBlocks = 1>
gpuopt_status_t launch_swizzled(const TransposeProblem& p, const ExecEnv& env, int j_first = 0) {
  using S = Swz<W, C, TJ>;
  auto* kernel = transpose_smem_swizzled_kernel<S, kPipelined, kMinBlocks>;
  const TileOrder o{ceil_div(p.rows, S::kTi), ceil_div(p.cols, S::kTj), j_first};
  const long long tiles = o.tiles_i * o.tiles_j;
  long long grid = tiles < kMaxGridX ? tiles : kMaxGridX;
  if (kPipelined) {  // persistent: the blocks that fit at once (host-side query, capture-safe)
    int per_sm = 0;
    GPUOPT_TRY_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, kThreads, 0),
                    env.fn, "transpose smem_swizzled: occupancy query");
    const long long fit =
        static_cast<long long>(env.device->sm_count > 0 ? env.device->sm_count : 1) *
        (per_sm > 0 ? per_sm : 1);
    if (grid > fit) grid = fit;
  }
  kernel<<<static_cast<unsigned>(grid), kThreads, 0, env.stream>>>(transpose_args<W>(p), o,
                                                                   transpose_aligned16(p) ? 1 : 0);
  return check_launch(env.fn, "transpose smem_swizzled kernel launch");
}

// The tile of each element size (C chunks by TJ lines): f32 64 x 128, f64 32 x 64, bf16 64 x 256,
// and the blocks per SM its register cap allows.
template <class W>
struct DefaultTile;
template <>
struct DefaultTile<std::uint16_t> {
  static constexpr int kC = 8, kTJ = 256, kMinBlocks = 2;
};
template <>
struct DefaultTile<std::uint32_t> {
  static constexpr int kC = 16, kTJ = 128, kMinBlocks = 3;
};
template <>
struct DefaultTile<std::uint64_t> {
  static constexpr int kC = 16, kTJ = 64, kMinBlocks = 4;
};

struct SmemSwizzled {
  template <class W>
  static gpuopt_status_t run(const TransposeProblem& p, const ExecEnv& env) {
    using D = DefaultTile<W>;
    return launch_swizzled<W, D::kC, D::kTJ, false, D::kMinBlocks>(p, env);
  }
};

}  // namespace

gpuopt_status_t transpose_launch_smem_swizzled(const TransposeProblem& p, const ExecEnv& env) {
  return transpose_by_size<SmemSwizzled>(p, env);
}

// f32 tile experiments (run 3): 32 x 128 and 64 x 64 tiles (16 KiB), register-pipelined loops.
gpuopt_status_t transpose_launch_swz32x128(const TransposeProblem& p, const ExecEnv& env) {
  return launch_swizzled<std::uint32_t, 8, 128, false, 4>(p, env);
}
gpuopt_status_t transpose_launch_swz64x64(const TransposeProblem& p, const ExecEnv& env) {
  return launch_swizzled<std::uint32_t, 16, 64, false, 5>(p, env);
}
gpuopt_status_t transpose_launch_swz32x128_pipe(const TransposeProblem& p, const ExecEnv& env) {
  return launch_swizzled<std::uint32_t, 8, 128, true, 4>(p, env);
}
gpuopt_status_t transpose_launch_swz64x64_pipe(const TransposeProblem& p, const ExecEnv& env) {
  return launch_swizzled<std::uint32_t, 16, 64, true, 4>(p, env);
}
gpuopt_status_t transpose_launch_swz64x64_jfirst(const TransposeProblem& p, const ExecEnv& env) {
  return launch_swizzled<std::uint32_t, 16, 64, false, 5>(p, env, 1);
}
gpuopt_status_t transpose_launch_swz64x128_pipe(const TransposeProblem& p, const ExecEnv& env) {
  return launch_swizzled<std::uint32_t, 16, 128, true, 2>(p, env);
}

}  // namespace gpuopt
