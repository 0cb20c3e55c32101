// The tensor-core GEMM core of the fused GDN kernels (sm_80+, mma.sync.m16n8k8 TF32):
//   C(m, n) = sum_k A(m, k) * B(k, n) for one 128 x 128 tile per block, then an epilogue functor
// per element. Operands come straight from the NCHW tensors: each is an R x K matrix stored with
// k contiguous (KContig) or r contiguous, optionally squared (the GDN x^2) when its fragment is
// read, so no x^2 tensor is ever written.
// - 3-stage cp.async pipeline, 32-deep k tiles: 16-byte copies where the operand's leading
//   dimension is a multiple of 4 and its base 16-byte aligned, else 4-byte copies (any shape);
//   zero fill outside the matrix. smem pitches chosen so fragment reads are bank-conflict free
//   (k-contiguous tiles: pitch 36 = 4 mod 32, fragments through ldmatrix; r-contiguous tiles:
//   pitch 136 = 8 mod 32, scalar loads).
// - TF32 rounding by an integer add of half an ulp (the mma ignores the low 13 bits).
//   (16-byte copies, ldmatrix, integer rounding and float2 epilogues together, H200, N = 32,
//   C = 256, 64 x 64: fused backward 1.616 -> 1.303 ms f32, 1.177 -> 0.804 ms tf32; run 2 ->
//   run 3 of docs/notes/history/gdn-rounds.md.)
// - Whole tiles (every row and column exists, 16-byte operands): copies from one pointer at fixed
//   strides and an epilogue without per-element bounds (H100, round 12: the backward z/t GEMM
//   381 -> 349 us f32, 307 -> 257 us tf32, with its form as a template parameter and ds/dz
//   without a division).
// - 8 warps, 2 x 4, each 64 x 32 (4 x 4 mma tiles); 2 blocks per SM.
// - Split3 = true: error-compensated 3xTF32 (a = a_hi + a_lo with both parts TF32; a*b ~=
//   a_lo*b_hi + a_hi*b_lo + a_hi*b_hi, f32 accumulation): f32-level accuracy on tensor cores.
//   Split3 = false: 1xTF32 (round-to-nearest TF32 operands).
// - Batching: block z = image * chunks + chunk; a chunk is a k range (split-K of the dgamma GEMM),
//   chunks = 1 for the per-image GEMMs.
#pragma once
#include <cstdint>
#include <type_traits>

#include "arch/sm80/cp_async.cuh"
#include "arch/sm80/ldmatrix.cuh"
#include "arch/sm80/mma_sync.cuh"

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
  bool vec_a = false, vec_b = false;  // 16-byte copies allowed (ld % 4 == 0, 16-byte aligned)
};

// Copies 128 x 32 (r, k) tiles of one operand into smem, zero outside rvalid x kvalid. Each
// thread owns 16 elements at a fixed stride (k-contiguous: rows r0 + 8i; r-contiguous: k rows
// k0 + 2i), so the loader keeps one pointer and no per-element 64-bit address. When the operand
// allows it (vec: ld % 4 == 0 and a 16-byte aligned base, set by the host) each thread instead
// issues 4 16-byte copies (4 consecutive elements along the contiguous dimension, the tail
// zero-filled through the copy's source size): a quarter of the copy instructions.
template <bool KContig>
struct TileLoader {
  static constexpr int kCopies = kBM * kBK / kThreads;
  static constexpr int kVecCopies = kCopies / 4;
  const float* base;  // element (0, 0) of k tile 0
  long long ld;
  bool vec;
  int r0, k0;    // 4-byte path
  int vr0, vk0;  // 16-byte path

  // e: this thread's index among the kThreads threads that load the tile.
  __device__ __forceinline__ TileLoader(const float* b, long long l, bool v, int e)
      : base(b), ld(l), vec(v) {
    r0 = KContig ? e / kBK : e % kBM;
    k0 = KContig ? e % kBK : e / kBM;
    vr0 = KContig ? e / (kBK / 4) : (e % (kBM / 4)) * 4;
    vk0 = KContig ? (e % (kBK / 4)) * 4 : e / (kBM / 4);
  }

  __device__ __forceinline__ void load(float* s, long long kb, int rvalid, int kvalid) const {
    const float* tile = base + (KContig ? kb : kb * ld);
    if (vec) {
      // k-contiguous: rows vr0 + 32i, k vk0..vk0+3; r-contiguous: k rows vk0 + 8i, r vr0..+3
      constexpr int kRStep = KContig ? kThreads / (kBK / 4) : 0;
      constexpr int kKStep = KContig ? 0 : kThreads / (kBM / 4);
      if (rvalid >= kBM && kvalid >= kBK) {  // whole tile: one pointer, fixed strides, no bounds
        const float* src = tile + (KContig ? vr0 * ld + vk0 : vk0 * ld + vr0);
        const long long step = KContig ? kRStep * ld : kKStep * ld;
        float* d = s + (KContig ? vr0 * kKPitch + vk0 : vk0 * kRPitch + vr0);
#pragma unroll
        for (int i = 0; i < kVecCopies; ++i)
          sm80::cp_async_cg16_zfill(d + i * (KContig ? kRStep * kKPitch : kKStep * kRPitch),
                                    src + i * step, 16);
        return;
      }
#pragma unroll
      for (int i = 0; i < kVecCopies; ++i) {
        const int r = vr0 + i * kRStep, k = vk0 + i * kKStep;
        const int left = KContig ? kvalid - k : rvalid - r;
        const bool row_ok = KContig ? r < rvalid : k < kvalid;
        const int bytes = row_ok && left > 0 ? (left < 4 ? left : 4) * 4 : 0;
        const float* src = tile + (KContig ? r * ld + k : k * ld + r);
        sm80::cp_async_cg16_zfill(s + (KContig ? r * kKPitch + k : k * kRPitch + r),
                                  bytes > 0 ? src : tile, bytes);
      }
      return;
    }
    const float* p = tile + (KContig ? r0 * ld + k0 : k0 * ld + r0);
    const long long step = KContig ? 8 * ld : 2 * ld;
    float* d = s + (KContig ? r0 * kKPitch + k0 : k0 * kRPitch + r0);
#pragma unroll
    for (int i = 0; i < kCopies; ++i) {
      const bool ok =
          KContig ? (r0 + 8 * i < rvalid && k0 < kvalid) : (r0 < rvalid && k0 + 2 * i < kvalid);
      sm80::cp_async_ca_zfill<4>(d + i * (KContig ? 8 * kKPitch : 2 * kRPitch), ok ? p : tile, ok);
      p += step;
    }
  }
};

// hi (and, for 3xTF32, lo) TF32 parts of v. The mma reads only the 19 TF32 bits of each
// register (the low 13 mantissa bits are ignored), so adding half a TF32 ulp (0x1000) to the bits
// rounds to nearest (ties away) in one integer add instead of a cvt.rna. For 3xTF32 hi must be
// exactly the rounded value (lo = v - hi), so its low bits are also masked. Round = false (1xTF32
// only): the bits go to the mma as they are, i.e. truncated to TF32 by the tensor cores.
template <bool Split3, bool Round = true>
__device__ __forceinline__ void split(float v, unsigned& hi, unsigned& lo) {
  static_assert(Round || !Split3, "3xTF32 needs the rounded hi part");
  if (Split3) {
    hi = sm80::tf32_rna_bits(v);
    lo = __float_as_uint(v - __uint_as_float(hi)) + 0x1000u;
  } else {
    hi = __float_as_uint(v) + (Round ? 0x1000u : 0u);
    lo = 0u;
  }
}

// The operand registers of one element v: split's hi and lo, or with BfCorr (3xTF32's corrections
// as one bf16 mma, mma_ktile) hi = v rounded to TF32 and lo = a bf16 pair of the fragment's two
// virtual k: the m16n8k16 fragments hold k (2t, 2t + 1) and (2t + 8, 2t + 9) where the m16n8k8
// TF32 ones hold k t and t + 4, so each thread's TF32 element k becomes the pair (A: r, hi; B: v,
// r) with the exact rest r = v - hi (|r| <= 2^-11 |v|): A lo * B v + A hi * B r.
template <bool Split3, bool Round, bool BfCorr, bool IsA>
__device__ __forceinline__ void split_parts(float v, unsigned& hi, unsigned& lo) {
  if constexpr (BfCorr) {
    hi = sm80::tf32_rna_bits(v);
    lo = sm80::bf16_correction_pair<IsA>(v, __uint_as_float(hi));
  } else {
    split<Split3, Round>(v, hi, lo);
  }
}

// Fragments of k-contiguous tiles come through ldmatrix of 32-bit elements: each 8 x 8 b16 matrix
// is 8 rows of 4 f32, thread l receives row l / 4, element l % 4 -- the mma.m16n8k8 TF32 fragment
// layout of a k-contiguous tile, so one instruction replaces 4 (A) or 2 (B) scalar shared loads.
// Row addresses are 16-byte aligned (pitch 36 floats) and the 8 rows of a matrix hit 8 distinct
// 4-bank groups.
//
// A fragment (16 rows from m, k from kk) of a tile: a0 (m + g, kk + t), a1 (m + g + 8, kk + t),
// a2 (m + g, kk + t + 4), a3 (m + g + 8, kk + t + 4); squared when Square.
template <bool KContig, bool Square>
__device__ __forceinline__ void frag_a(const float* s, int m, int kk, int lane, float (&v)[4]) {
  const int g = lane >> 2, t = lane & 3;
  if (KContig) {
    unsigned r[4];
    sm80::ldmatrix_x4(
        r, s + (m + (lane & 7) + ((lane >> 3) & 1) * 8) * kKPitch + kk + (lane >> 4) * 4);
#pragma unroll
    for (int q = 0; q < 4; ++q) v[q] = __uint_as_float(r[q]);
  } else {
    v[0] = s[(kk + t) * kRPitch + m + g];
    v[1] = s[(kk + t) * kRPitch + m + g + 8];
    v[2] = s[(kk + t + 4) * kRPitch + m + g];
    v[3] = s[(kk + t + 4) * kRPitch + m + g + 8];
  }
  if (Square) {
#pragma unroll
    for (int q = 0; q < 4; ++q) v[q] *= v[q];
  }
}

// The same A fragment of a k-contiguous tile without padding (pitch kBK) whose 16-byte chunks are
// XOR-swizzled by row: k chunk c of row r sits at chunk c ^ (r & 7) (the persistent resident
// kernel's gamma ring). m is a multiple of 16, so row m + (lane & 7) (+ 8) has r & 7 = lane & 7:
// the 8 rows of each 8 x 8 matrix read 8 distinct 4-bank groups, as with pitch 36, while each
// row's 128 bytes stay one aligned line for the copies that fill it (pitch 36 split every row of a
// warp's copies over two lines: 2.6x the ideal shared-memory wavefronts).
__host__ __device__ constexpr int swz_chunk(int r, int c) { return c ^ (r & 7); }
__device__ __forceinline__ void frag_a_swz(const float* s, int m, int kk, int lane, float (&v)[4]) {
  unsigned r[4];
  const int row = m + (lane & 7) + ((lane >> 3) & 1) * 8;
  sm80::ldmatrix_x4(r, s + row * kBK + swz_chunk(lane, kk / 4 + (lane >> 4)) * 4);
#pragma unroll
  for (int q = 0; q < 4; ++q) v[q] = __uint_as_float(r[q]);
}

// B fragment (8 columns from n, k from kk): b0 (kk + t, n + g), b1 (kk + t + 4, n + g).
template <bool KContig, bool Square>
__device__ __forceinline__ void frag_b(const float* s, int n, int kk, int lane, float (&v)[2]) {
  const int g = lane >> 2, t = lane & 3;
  if (KContig) {
    unsigned r[2];
    sm80::ldmatrix_x2(r, s + (n + (lane & 7)) * kKPitch + kk + ((lane >> 3) & 1) * 4);
    v[0] = __uint_as_float(r[0]);
    v[1] = __uint_as_float(r[1]);
  } else {
    v[0] = s[(kk + t) * kRPitch + n + g];
    v[1] = s[(kk + t + 4) * kRPitch + n + g];
  }
  if (Square) {
    v[0] *= v[0];
    v[1] *= v[1];
  }
}

// The warp's 64 x 32 share of one 32-deep k tile: As holds rows (A) wm * 64.., Bs columns (B)
// wn * 32.. of the block's tiles, laid out as the loaders above write them. Round = false (1xTF32
// only): operands truncated to TF32 by the mma instead of rounded (round 9b: 6% faster, tf32
// forward; docs/notes/history/gdn-rounds.md).
// KK0, KK1: the 8-deep k steps kk in [KK0, KK1) only (the resident kernel issues its next
// chunk's copies after the first step).
// BPairs (r-contiguous B only; the resident forward kernel): the warp's 32 columns permuted so
// that column q of n tile j is column pair_col(j, q): each thread's B values of n tiles (0, 1)
// and (2, 3) are adjacent, 4 8-byte loads per 8-deep k step instead of 8 scalar ones; the
// caller's epilogue maps the columns back (each thread then holds runs of 4 adjacent columns;
// figures: gdn_fwd_resident.cuh). One 16-byte load per k row (columns 4q + j) lost 13% in tf32:
// its y runs of 4 sit 32 bytes apart, each 16-byte store half a sector.
__host__ __device__ constexpr int pair_col(int j, int q) { return (j >> 1) * 16 + 2 * q + (j & 1); }

template <bool BSq>
__device__ __forceinline__ void frag_b_pairs(const float* s, int n, int kk, int lane,
                                             float (&v)[4][2]) {
  const int g = lane >> 2, t = lane & 3;
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    const float* row = s + (kk + t + 4 * h) * kRPitch + n + 2 * g;
    const float2 lo = *reinterpret_cast<const float2*>(row);
    const float2 hi = *reinterpret_cast<const float2*>(row + 16);
    v[0][h] = lo.x, v[1][h] = lo.y, v[2][h] = hi.x, v[3][h] = hi.y;
  }
  if (BSq) {
#pragma unroll
    for (int j = 0; j < 4; ++j) v[j][0] *= v[j][0], v[j][1] *= v[j][1];
  }
}

// BfCorr (with Split3; the f32 forward pass): hi*hi stays one TF32 mma, the two corrections
// lo*b + hi*lo become ONE bf16 m16n8k16 mma whose 16 k are the 8 k of the step twice,
// (k, A lo, B whole) and (k, A hi, B lo) (split_parts): 2 mma instructions per tile and step
// instead of 3, at the same tensor-pipe time each. The corrections' operands carry 8 bits
// (bf16) instead of 11 (TF32), but a correction is <= 2^-11 of its product, so each rounding is
// <= 2^-20 of it, and a_lo * b keeps the lo*lo term 3xTF32 drops: measured errors against f64 are
// lower than 3xTF32's (figures: gdn_fwd_resident.cuh).
// ASwz: A is a swizzled k-contiguous tile (frag_a_swz; not squared). I0, I1: the warp's m tiles
// i in [I0, I1) only (the persistent kernel's last k tile, m tile by m tile, each m tile's
// epilogue after its mma); B fragments are read again for each such call.
template <bool AK, bool ASq, bool BK, bool BSq, bool Split3, bool Round = true, int KK0 = 0,
          int KK1 = kBK, bool BPairs = false, bool BfCorr = false, bool ASwz = false, int I0 = 0,
          int I1 = 4>
__device__ __forceinline__ void mma_ktile(const float* As, const float* Bs, int wm, int wn,
                                          int lane, float (&acc)[4][4][4]) {
  static_assert(!BPairs || !BK, "B pairs need an r-contiguous B tile");
  static_assert(!BfCorr || (Split3 && BPairs), "bf16 corrections: the resident f32 kernels");
  static_assert(!ASwz || (AK && !ASq), "swizzled A: a k-contiguous tile, not squared");
#pragma unroll
  for (int kk = KK0; kk < KK1; kk += 8) {
    unsigned bh[4][2], bl[4][2];
    if constexpr (BPairs) {
      float v[4][2];
      frag_b_pairs<BSq>(Bs, wn * 32, kk, lane, v);
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        split_parts<Split3, Round, BfCorr, false>(v[j][0], bh[j][0], bl[j][0]);
        split_parts<Split3, Round, BfCorr, false>(v[j][1], bh[j][1], bl[j][1]);
      }
    } else {
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        float v[2];
        frag_b<BK, BSq>(Bs, wn * 32 + j * 8, kk, lane, v);
        split<Split3, Round>(v[0], bh[j][0], bl[j][0]);
        split<Split3, Round>(v[1], bh[j][1], bl[j][1]);
      }
    }
#pragma unroll
    for (int i = I0; i < I1; ++i) {
      float v[4];
      if constexpr (ASwz)
        frag_a_swz(As, wm * 64 + i * 16, kk, lane, v);
      else
        frag_a<AK, ASq>(As, wm * 64 + i * 16, kk, lane, v);
      unsigned ah[4], al[4];
#pragma unroll
      for (int q = 0; q < 4; ++q) split_parts<Split3, Round, BfCorr, true>(v[q], ah[q], al[q]);
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        if (BfCorr) {
          sm80::mma_m16n8k16_bf16(acc[i][j], al, bl[j]);
        } else if (Split3) {
          sm80::mma_m16n8k8_tf32(acc[i][j], al, bh[j]);
          sm80::mma_m16n8k8_tf32(acc[i][j], ah, bl[j]);
        }
        sm80::mma_m16n8k8_tf32(acc[i][j], ah, bh[j]);
      }
    }
  }
}

// Two adjacent elements of a row, and 8-byte loads/stores of them when `pair` (the even element
// index is 8-byte aligned); `two` false: only the first exists.
struct Two {
  float a, b;
};
__device__ __forceinline__ Two ld_pair(const float* __restrict__ p, bool two, bool pair) {
  if (two && pair) {
    const float2 v = __ldg(reinterpret_cast<const float2*>(p));
    return {v.x, v.y};
  }
  return {__ldg(p), two ? __ldg(p + 1) : 0.f};
}
// An 8-byte store of two adjacent elements (p 8-byte aligned) as PTX, for the resident kernel
// (st_pair<true>): its float2 assignment in st_pair came out as two 4-byte stores there (the
// compiler merged it with the scalar path; round 11: each store instruction half-wrote 8
// sectors). The generic GEMM kernels keep the float2 store (st_pair<false>): the asm store there
// made the backward pass 16-20% slower (round 11). No "memory" clobber: no caller reads back what
// it stores in the same kernel.
__device__ __forceinline__ void st_two(float* __restrict__ p, float a, float b) {
  asm volatile("st.global.v2.f32 [%0], {%1, %2};\n" ::"l"(p), "f"(a), "f"(b));
}
// A 16-byte store of four adjacent elements (p 16-byte aligned), for the resident kernel.
__device__ __forceinline__ void st_four(float* __restrict__ p, float a, float b, float c, float d) {
  asm volatile("st.global.v4.f32 [%0], {%1, %2, %3, %4};\n" ::"l"(p), "f"(a), "f"(b), "f"(c),
               "f"(d));
}
template <bool Asm = false>
__device__ __forceinline__ void st_pair(float* __restrict__ p, bool two, bool pair, float a,
                                        float b) {
  if (two && pair && Asm) {
    st_two(p, a, b);
  } else if (two && pair) {
    *reinterpret_cast<float2*>(p) = make_float2(a, b);
  } else {
    p[0] = a;
    if (two) p[1] = b;
  }
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
  const int e = static_cast<int>(threadIdx.x);
  const TileLoader<AK> la(a, args.lda, args.vec_a, e);
  const TileLoader<BK> lb(b, args.ldb, args.vec_b, e);
  auto load = [&](int kt, int slot) {
    float* st = smem + slot * kStageFloats;
    const long long kb = static_cast<long long>(kt) * kBK;
    const int kvalid = klen - kb < kBK ? static_cast<int>(klen - kb) : kBK;
    la.load(st, kb, mvalid, kvalid);
    lb.load(st + kTileFloats, kb, nvalid, kvalid);
  };

  float acc[4][4][4];
  sm80::zero_fragments(acc);

#pragma unroll
  for (int s = 0; s < kStages - 1; ++s) {
    if (s < ktiles) load(s, s);
    sm80::cp_async_commit_group();
  }
  for (int kt = 0; kt < ktiles; ++kt) {
    sm80::cp_async_wait_group<kStages - 2>();
    __syncthreads();
    const int pre = kt + kStages - 1;
    if (pre < ktiles) load(pre, pre % kStages);
    sm80::cp_async_commit_group();
    const float* As = smem + (kt % kStages) * kStageFloats;
    const float* Bs = As + kTileFloats;
    mma_ktile<AK, ASq, BK, BSq, Split3>(As, Bs, wm, wn, lane, acc);
  }
  sm80::cp_async_wait_group<0>();

  // Epilogue: c0..c3 of tile (i, j) sit at rows g, g + 8 and columns 2t, 2t + 1: the epilogue
  // functor handles the two adjacent columns of a row together (8-byte accesses where it can).
  // For each row of the fragment, the 4 pairs' inputs are loaded first (epi.load), then combined
  // and stored (epi.apply): loads in flight per thread instead of one load-use-store chain.
  // Whole tiles (every row and column of the tile exists) skip the per-element bounds.
  float rows[4][2] = {};
  auto epilogue = [&](auto whole_tag) {
    constexpr bool kWhole = decltype(whole_tag)::value;
#pragma unroll
    for (int i = 0; i < 4; ++i)
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int m = m0 + wm * 64 + i * 16 + g + h * 8;
        if (!kWhole && m >= args.m) continue;
        typename Epi::Pre pre[4] = {};
#pragma unroll
        for (int j = 0; j < 4; ++j) {
          const int n = n0 + wn * 32 + j * 8 + 2 * t;
          if (kWhole || n < args.n) pre[j] = epi.load(z, m, n, kWhole || n + 1 < args.n);
        }
#pragma unroll
        for (int j = 0; j < 4; ++j) {
          const int n = n0 + wn * 32 + j * 8 + 2 * t;
          if (kWhole || n < args.n)
            rows[i][h] += epi.apply(z, m, n, kWhole || n + 1 < args.n, acc[i][j][h * 2],
                                    acc[i][j][h * 2 + 1], pre[j]);
        }
      }
  };
  if (mvalid >= kBM && nvalid >= kBM)
    epilogue(std::true_type{});
  else
    epilogue(std::false_type{});
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
