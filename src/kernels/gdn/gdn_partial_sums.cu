// gdn backward, the last stage of the fused rungs: dgamma and dbeta from their partials in the
// workspace (gdn_fused_layout: dgamma partials per (image, kGdnDgammaChunk-pixel chunk), dbeta
// partials per 128-pixel tile), each element summed in f64 in one fixed order (deterministic).
// H100, N = 32, C = 256, 64 x 64 (17 MiB of partials): one load per add 117 us, 8 loads in flight
// 9.8 us (ncu, caches flushed; history round 11); in the pass, where the GEMM has just written
// the partials into L2, the stage costs 5.4-7.7 us, and alone on warm partials 16 loads in flight
// took 5.78 -> 5.60 us (round 22, docs/notes/history/gdn-rounds.md).
#include "common/launch.hpp"
#include "kernels/gdn/gdn.hpp"
#include "kernels/gdn/gdn_backward_stages.hpp"

namespace gpuopt {
namespace {

// Blocks [0, dg_blocks): one dgamma element per thread, its partials loaded kSumBatch at a time
// before they are added in index order. Blocks after those: kSumChannels dbeta channels per
// block, kSumSlices threads per channel each summing every kSumSlices-th partial, then the
// slices in order (1024 partials per channel at the bar shape: one thread per channel took the
// whole 117 us).
constexpr int kSumThreads = 256;
constexpr int kSumBatch = 16;
constexpr int kSumChannels = 8;
constexpr int kSumSlices = kSumThreads / kSumChannels;

// sum_{q < count} v[q * stride] in index order, kSumBatch independent loads in flight.
__device__ double sum_strided(const float* v, long long count, long long stride) {
  double s = 0.0;
  long long q = 0;
  for (; q + kSumBatch <= count; q += kSumBatch) {
    float b[kSumBatch];
#pragma unroll
    for (int u = 0; u < kSumBatch; ++u) b[u] = v[(q + u) * stride];
#pragma unroll
    for (int u = 0; u < kSumBatch; ++u) s += b[u];
  }
  for (; q < count; ++q) s += v[q * stride];
  return s;
}

__global__ void __launch_bounds__(kSumThreads)
    gdn_sum_partials(const float* dgpart, long long splits, long long cc, long long dg_blocks,
                     float* dgamma, const float* bpart, long long bparts, long long c,
                     float* dbeta) {
  if (blockIdx.x < dg_blocks) {
    const long long e = blockIdx.x * static_cast<long long>(kSumThreads) + threadIdx.x;
    if (e < cc) dgamma[e] = static_cast<float>(sum_strided(dgpart + e, splits, cc));
    return;
  }
  __shared__ double part[kSumSlices][kSumChannels];
  const int ch = static_cast<int>(threadIdx.x) % kSumChannels;
  const int slice = static_cast<int>(threadIdx.x) / kSumChannels;
  const long long i = (blockIdx.x - dg_blocks) * kSumChannels + ch;
  double s = 0.0;
  if (i < c && slice < bparts)
    s = sum_strided(bpart + slice * c + i, (bparts - slice + kSumSlices - 1) / kSumSlices,
                    kSumSlices * c);
  part[slice][ch] = s;
  __syncthreads();
  if (slice == 0 && i < c) {
    double total = 0.0;
    for (int k = 0; k < kSumSlices; ++k) total += part[k][ch];
    dbeta[i] = static_cast<float>(total);
  }
}

}  // namespace

gpuopt_status_t gdn_fused_backward_sums(const GdnProblem& p, const ExecEnv& env) {
  const GdnWorkspaceLayout l = gdn_fused_layout(GPUOPT_GDN_BACKWARD, p.n, p.c, p.p);
  const long long cc = p.c * p.c;
  const long long dg_blocks = ceil_div(cc, kSumThreads);
  const long long blocks = dg_blocks + ceil_div(p.c, kSumChannels);
  gdn_sum_partials<<<static_cast<unsigned>(blocks), kSumThreads, 0, env.stream>>>(
      gdn_ws_floats(p, l.dgpart), p.n * ceil_div(p.p, kGdnDgammaChunk), cc, dg_blocks, p.dgamma,
      gdn_ws_floats(p, l.bpart), p.n * ceil_div(p.p, kGdnTile), p.c, p.dbeta);
  return check_launch(env.fn, "gdn fused partial sums kernel");
}

}  // namespace gpuopt
