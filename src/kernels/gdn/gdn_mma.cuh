// The tensor-core GEMM core of the fused GDN kernels (sm_80+, mma.sync.m16n8k8 TF32):
//   C(m, n) = sum_k A(m, k) * B(k, n) for one 128 x 128 tile per block, then an epilogue functor
// per element. Operands come straight from the NCHW tensors: each is an R x K matrix stored with
// k contiguous (KContig) or r contiguous, optionally squared (the GDN x^2) when its fragment is
// read, so no x^2 tensor is ever written.
// - 3-stage cp.async pipeline (4-byte copies with zero fill: any shape, any C, any H x W), 32-deep
//   k tiles; smem pitches chosen so fragment reads are bank-conflict free (k-contiguous tiles:
//   pitch 36 = 4 mod 32; r-contiguous tiles: pitch 136 = 8 mod 32).
// - 8 warps, 2 x 4, each 64 x 32 (4 x 4 mma tiles); 2 blocks per SM.
// - Split3 = true: error-compensated 3xTF32 (a = a_hi + a_lo with both parts TF32; a*b ~=
//   a_lo*b_hi + a_hi*b_lo + a_hi*b_hi, f32 accumulation): f32-level accuracy on tensor cores.
//   Split3 = false: 1xTF32 (round-to-nearest TF32 operands).
// - Batching: block z = image * chunks + chunk; a chunk is a k range (split-K of the dgamma GEMM),
//   chunks = 1 for the per-image GEMMs.
#pragma once
#include <cstdint>

namespace gpuopt {
namespace gdn {

constexpr int kThreads = 256;
constexpr int kBM = 128;  // rows of A per block (and columns of B: kBN = kBM)
constexpr int kBK = 32;
constexpr int kStages = 3;
constexpr int kKPitch = kBK + 4;  // k-contiguous tile [128][36]
constexpr int kRPitch = kBM + 8;  // r-contiguous tile [32][136]
constexpr int kTileFloats = kBM * kKPitch > kBK* kRPitch ? kBM* kKPitch : kBK* kRPitch;
constexpr int kStageFloats = 2 * kTileFloats;
constexpr int kSmemBytes = kStages * kStageFloats * static_cast<int>(sizeof(float));

// One GEMM, described for the kernel. A element (m, k) of batch entry (img, chunk) is
// a[img * a_img + m * lda + k] (A k-contiguous) or a[img * a_img + k * lda + m]; B likewise with
// n in place of m, k counted from chunk * chunk_k.
struct MmaArgs {
  const float* a = nullptr;
  long long lda = 0, a_img = 0;
  const float* b = nullptr;
  long long ldb = 0, b_img = 0;
  int m = 0, n = 0;       // rows of A, columns of B
  long long k = 0;        // k extent per image
  long long chunk_k = 0;  // k per chunk (== k when no split)
  int chunks = 1;         // chunks per image
  int mtiles = 0, ntiles = 0;
};

__device__ __forceinline__ void cp_async4(float* dst, const float* src, bool valid) {
  const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(dst));
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(s), "l"(src),
               "r"(valid ? 4 : 0));
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n"); }
template <int N>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N));
}

__device__ __forceinline__ unsigned to_tf32(float v) {
  unsigned r;
  asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(r) : "f"(v));
  return r;
}

__device__ __forceinline__ void mma_tf32(float (&c)[4], const unsigned (&a)[4],
                                         const unsigned (&b)[2]) {
  asm("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
      "{%8,%9}, {%0,%1,%2,%3};\n"
      : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

// Copies 128 x 32 (r, k) tiles of one operand into smem, zero outside rvalid x kvalid. Each
// thread owns 16 elements at a fixed stride (k-contiguous: rows r0 + 8i; r-contiguous: k rows
// k0 + 2i), so the loader keeps one pointer and no per-element 64-bit address.
template <bool KContig>
struct TileLoader {
  static constexpr int kCopies = kBM * kBK / kThreads;
  const float* base;  // element (0, 0) of k tile 0
  long long ld;
  int r0, k0;

  __device__ __forceinline__ TileLoader(const float* b, long long l) : base(b), ld(l) {
    const int e = static_cast<int>(threadIdx.x);
    r0 = KContig ? e / kBK : e % kBM;
    k0 = KContig ? e % kBK : e / kBM;
  }

  __device__ __forceinline__ void load(float* s, long long kb, int rvalid, int kvalid) const {
    const float* tile = base + (KContig ? kb : kb * ld);
    const float* p = tile + (KContig ? r0 * ld + k0 : k0 * ld + r0);
    const long long step = KContig ? 8 * ld : 2 * ld;
    float* d = s + (KContig ? r0 * kKPitch + k0 : k0 * kRPitch + r0);
#pragma unroll
    for (int i = 0; i < kCopies; ++i) {
      const bool ok =
          KContig ? (r0 + 8 * i < rvalid && k0 < kvalid) : (r0 < rvalid && k0 + 2 * i < kvalid);
      cp_async4(d + i * (KContig ? 8 * kKPitch : 2 * kRPitch), ok ? p : tile, ok);
      p += step;
    }
  }
};

// Element (r, k) of a smem tile, squared when Square.
template <bool KContig, bool Square>
__device__ __forceinline__ float tile_at(const float* s, int r, int k) {
  const float v = KContig ? s[r * kKPitch + k] : s[k * kRPitch + r];
  return Square ? v * v : v;
}

// hi (and, for 3xTF32, lo) TF32 parts of v.
template <bool Split3>
__device__ __forceinline__ void split(float v, unsigned& hi, unsigned& lo) {
  hi = to_tf32(v);
  lo = Split3 ? to_tf32(v - __uint_as_float(hi)) : 0u;
}

// One block's tile: rows mt, columns nt of batch entry z (see MmaArgs). smem: kSmemBytes.
template <bool AK, bool ASq, bool BK, bool BSq, bool Split3, class Epi>
__device__ __forceinline__ void gdn_mma_tile(const MmaArgs& args, const Epi& epi, int mt, int nt,
                                             int z, float* smem) {
  const int lane = static_cast<int>(threadIdx.x) & 31, warp = static_cast<int>(threadIdx.x) >> 5;
  const int g = lane >> 2, t = lane & 3;
  const int wm = warp >> 2, wn = warp & 3;  // warp tile rows wm * 64, columns wn * 32

  const int img = z / args.chunks;
  const long long k0 = static_cast<long long>(z % args.chunks) * args.chunk_k;
  const long long klen = args.k - k0 < args.chunk_k ? args.k - k0 : args.chunk_k;
  const int m0 = mt * kBM, n0 = nt * kBM;
  const int mvalid = args.m - m0, nvalid = args.n - n0;
  const float* a = args.a + img * args.a_img + (AK ? m0 * args.lda + k0 : k0 * args.lda + m0);
  const float* b = args.b + img * args.b_img + (BK ? n0 * args.ldb + k0 : k0 * args.ldb + n0);

  const int ktiles = static_cast<int>((klen + kBK - 1) / kBK);
  const TileLoader<AK> la(a, args.lda);
  const TileLoader<BK> lb(b, args.ldb);
  auto load = [&](int kt, int slot) {
    float* st = smem + slot * kStageFloats;
    const long long kb = static_cast<long long>(kt) * kBK;
    const int kvalid = klen - kb < kBK ? static_cast<int>(klen - kb) : kBK;
    la.load(st, kb, mvalid, kvalid);
    lb.load(st + kTileFloats, kb, nvalid, kvalid);
  };

  float acc[4][4][4];
#pragma unroll
  for (int i = 0; i < 4; ++i)
#pragma unroll
    for (int j = 0; j < 4; ++j)
#pragma unroll
      for (int r = 0; r < 4; ++r) acc[i][j][r] = 0.f;

#pragma unroll
  for (int s = 0; s < kStages - 1; ++s) {
    if (s < ktiles) load(s, s);
    cp_async_commit();
  }
  for (int kt = 0; kt < ktiles; ++kt) {
    cp_async_wait<kStages - 2>();
    __syncthreads();
    const int pre = kt + kStages - 1;
    if (pre < ktiles) load(pre, pre % kStages);
    cp_async_commit();
    const float* As = smem + (kt % kStages) * kStageFloats;
    const float* Bs = As + kTileFloats;
#pragma unroll
    for (int kk = 0; kk < kBK; kk += 8) {
      unsigned bh[4][2], bl[4][2];
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        const int n = wn * 32 + j * 8 + g;
        split<Split3>(tile_at<BK, BSq>(Bs, n, kk + t), bh[j][0], bl[j][0]);
        split<Split3>(tile_at<BK, BSq>(Bs, n, kk + t + 4), bh[j][1], bl[j][1]);
      }
#pragma unroll
      for (int i = 0; i < 4; ++i) {
        const int m = wm * 64 + i * 16 + g;
        unsigned ah[4], al[4];
        split<Split3>(tile_at<AK, ASq>(As, m, kk + t), ah[0], al[0]);
        split<Split3>(tile_at<AK, ASq>(As, m + 8, kk + t), ah[1], al[1]);
        split<Split3>(tile_at<AK, ASq>(As, m, kk + t + 4), ah[2], al[2]);
        split<Split3>(tile_at<AK, ASq>(As, m + 8, kk + t + 4), ah[3], al[3]);
#pragma unroll
        for (int j = 0; j < 4; ++j) {
          if (Split3) {
            mma_tf32(acc[i][j], al, bh[j]);
            mma_tf32(acc[i][j], ah, bl[j]);
          }
          mma_tf32(acc[i][j], ah, bh[j]);
        }
      }
    }
  }
  cp_async_wait<0>();

  // Epilogue: c0..c3 of tile (i, j) sit at rows g, g + 8 and columns 2t, 2t + 1. For each row
  // of the fragment, all 8 elements' inputs are loaded first (epi.load), then combined and
  // stored (epi.apply): 8+ loads in flight per thread instead of one load-use-store chain.
  float rows[4][2] = {};
#pragma unroll
  for (int i = 0; i < 4; ++i)
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int m = m0 + wm * 64 + i * 16 + g + h * 8;
      if (m >= args.m) continue;
      typename Epi::Pre pre[4][2] = {};
#pragma unroll
      for (int j = 0; j < 4; ++j)
#pragma unroll
        for (int q = 0; q < 2; ++q) {
          const int n = n0 + wn * 32 + j * 8 + 2 * t + q;
          if (n < args.n) pre[j][q] = epi.load(z, m, n);
        }
#pragma unroll
      for (int j = 0; j < 4; ++j)
#pragma unroll
        for (int q = 0; q < 2; ++q) {
          const int n = n0 + wn * 32 + j * 8 + 2 * t + q;
          if (n < args.n) rows[i][h] += epi.apply(z, m, n, acc[i][j][h * 2 + q], pre[j][q]);
        }
    }
  if (Epi::kRowSum) {    // per-block row sums over the tile's columns, in a fixed order
    __syncthreads();     // every warp is done with the pipeline's smem
    float* part = smem;  // [4][kBM]
#pragma unroll
    for (int i = 0; i < 4; ++i)
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        float v = rows[i][h];
        v += __shfl_xor_sync(0xffffffffu, v, 1);
        v += __shfl_xor_sync(0xffffffffu, v, 2);
        if (t == 0) part[wn * kBM + wm * 64 + i * 16 + g + h * 8] = v;
      }
    __syncthreads();
    const int r = static_cast<int>(threadIdx.x);
    if (r < kBM && m0 + r < args.m)
      epi.row_sum(z, nt, m0 + r, part[r] + part[kBM + r] + part[2 * kBM + r] + part[3 * kBM + r]);
  }
}

// Block index -> (m tile, n tile, batch entry), m tiles fastest (blocks sharing a B tile run
// together and share it through L2).
__device__ __forceinline__ void tile_of(const MmaArgs& args, long long bid, int* mt, int* nt,
                                        int* z) {
  *mt = static_cast<int>(bid % args.mtiles);
  bid /= args.mtiles;
  *nt = static_cast<int>(bid % args.ntiles);
  *z = static_cast<int>(bid / args.ntiles);
}

template <bool AK, bool ASq, bool BK, bool BSq, bool Split3, class Epi>
__global__ void __launch_bounds__(kThreads, 2) gdn_mma_kernel(MmaArgs args, Epi epi) {
  extern __shared__ float4 smem4[];
  int mt, nt, z;
  tile_of(args, blockIdx.x, &mt, &nt, &z);
  gdn_mma_tile<AK, ASq, BK, BSq, Split3>(args, epi, mt, nt, z, reinterpret_cast<float*>(smem4));
}

// Two GEMMs over the same images in one launch, interleaved per image: the blocks of image n of
// the first (per_img1 of them, batch entries n * args1.chunks ...) then those of the second
// (per_img2, chunks = 1). Both read the same tensors of image n at about the same time, so the
// second read of each tile hits L2 (the gdn backward's dgamma and dx GEMMs both read t and x).
template <bool AK1, bool ASq1, bool BK1, bool BSq1, class Epi1, bool AK2, bool ASq2, bool BK2,
          bool BSq2, class Epi2, bool Split3>
__global__ void __launch_bounds__(kThreads, 2)
    gdn_mma_pair_kernel(MmaArgs args1, Epi1 epi1, MmaArgs args2, Epi2 epi2) {
  extern __shared__ float4 smem4[];
  const long long per1 = static_cast<long long>(args1.mtiles) * args1.ntiles * args1.chunks;
  const long long per2 = static_cast<long long>(args2.mtiles) * args2.ntiles;
  const long long img = blockIdx.x / (per1 + per2), r = blockIdx.x % (per1 + per2);
  int mt, nt, z;
  if (r < per1) {
    tile_of(args1, img * per1 + r, &mt, &nt, &z);
    gdn_mma_tile<AK1, ASq1, BK1, BSq1, Split3>(args1, epi1, mt, nt, z,
                                               reinterpret_cast<float*>(smem4));
  } else {
    tile_of(args2, img * per2 + (r - per1), &mt, &nt, &z);
    gdn_mma_tile<AK2, ASq2, BK2, BSq2, Split3>(args2, epi2, mt, nt, z,
                                               reinterpret_cast<float*>(smem4));
  }
}

}  // namespace gdn
}  // namespace gpuopt
