// sm90_tma_wgmma host side: what the variant can run, the TMA tensor maps and kernel parameters
// of a problem, and the launcher that hands them to the per-type instantiations.
#include "kernels/gemm/sm90_tma_wgmma.hpp"

#include <climits>
#include <cstdint>
#include <new>
#include <type_traits>

#include "kernels/reduce/reduce.hpp"
#include "runtime/driver.hpp"
#include "runtime/error.hpp"

namespace gpuopt {
namespace sm90 {

// The stream-K flags must stay zero between launches: no other op may leave data there.
static_assert(reduce_ws::kTotal <= kSkFlagsOffset,
              "the sm90 GEMM's stream-K flags overlap the reduce workspace layout");
namespace {

CUtensorMapDataType tma_type(gpuopt_dtype_t t) {
  switch (t) {
    case GPUOPT_DTYPE_BF16:
      return CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
    case GPUOPT_DTYPE_F16:
      return CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
    default:
      return CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
  }
}

const char* check_types(const GemmProblem& p) {
  switch (p.a_type) {
    case GPUOPT_DTYPE_BF16:
    case GPUOPT_DTYPE_F16:
      if (p.compute != GPUOPT_COMPUTE_F32) return "16-bit inputs need compute F32";
      if (p.c_type != GPUOPT_DTYPE_F32 && p.c_type != p.a_type)
        return "16-bit inputs need c_type f32 or the input type";
      return nullptr;
    case GPUOPT_DTYPE_F32:
      if (p.compute != GPUOPT_COMPUTE_TF32)
        return "f32 runs only as tf32 here (exact f32 has no wgmma path)";
      if (p.c_type != GPUOPT_DTYPE_F32) return "tf32 needs c_type f32";
      // wgmma reads tf32 shared operands only K-major; the A side may come from registers, so
      // one MN-major operand is fine (NN, TT), two are not.
      if (p.trans_a == GPUOPT_TRANS_N && p.trans_b == GPUOPT_TRANS_T)
        return "tf32 wgmma needs one operand K-major (trans_a = N with trans_b = T has none)";
      return nullptr;
    default:
      return "does not implement this dtype (bf16, f16, tf32 only)";
  }
}

const char* check_alignment(const GemmProblem& p) {
  const std::uint64_t e = dtype_size(p.a_type);
  const auto addr = reinterpret_cast<std::uintptr_t>(p.A) | reinterpret_cast<std::uintptr_t>(p.B);
  if (addr % 16) return "TMA needs A and B aligned to 16 bytes";
  if ((static_cast<std::uint64_t>(p.lda) * e) % 16 || (static_cast<std::uint64_t>(p.ldb) * e) % 16)
    return "TMA needs lda and ldb times the element size to be multiples of 16 bytes";
  if (p.batch > 1 && ((static_cast<std::uint64_t>(p.stride_a) * e) % 16 ||
                      (static_cast<std::uint64_t>(p.stride_b) * e) % 16))
    return "TMA needs batch strides of A and B times the element size to be multiples of 16 bytes";
  return nullptr;
}

}  // namespace

// (declared in sm90_tma_wgmma.hpp)
bool encode_tma_map(CUtensorMap* map, gpuopt_dtype_t type, const void* base, std::int64_t inner,
                    std::int64_t outer, std::int64_t ld, std::int64_t batch, std::int64_t stride,
                    int box_inner, int box_outer) {
  const std::uint64_t e = dtype_size(type);
  const cuuint64_t dims[3] = {static_cast<cuuint64_t>(inner), static_cast<cuuint64_t>(outer),
                              static_cast<cuuint64_t>(batch)};
  // A single matrix still gets a rank-3 map; its unused batch stride is the matrix's extent.
  const cuuint64_t strides[2] = {
      static_cast<cuuint64_t>(ld) * e,
      batch > 1 ? static_cast<cuuint64_t>(stride) * e
                : static_cast<cuuint64_t>(ld) * e * static_cast<cuuint64_t>(outer)};
  const cuuint32_t box[3] = {static_cast<cuuint32_t>(box_inner), static_cast<cuuint32_t>(box_outer),
                             1};
  return encode_tiled_map(map, tma_type(type), 3, base, dims, strides, box,
                          CU_TENSOR_MAP_SWIZZLE_128B);
}

static_assert(sizeof(kSm90TmaWgmmaConfigs) / sizeof(kSm90TmaWgmmaConfigs[0]) == 4 &&
                  config_pingpong(kPingPongC1) && !config_pingpong(kCoopC2) &&
                  config_cluster(kCoopC2) == 2 && config_cluster(kPingPongC1) == 1,
              "the configuration names follow sm90::Config");

const char* make_plan(const GemmProblem& p, const DeviceDesc& dev, Plan* plan, int config) {
  if (const char* why = check_types(p)) return why;
  if (p.k < 1) return "k == 0 (C = beta * C) is left to the other variants";
  if (p.m > INT_MAX || p.n > INT_MAX || p.k > INT_MAX) return "m, n, k must fit in int32 (TMA)";
  if (const char* why = check_alignment(p)) return why;
  if (dev.sm_count < 1) return "device multiprocessor count unknown";
  if (dev.smem_optin < static_cast<std::size_t>(kSmemStagedBytes))
    return "needs 209 KiB of shared memory per block";

  // tf32 with an MN-major operand reads it through registers as P. NN: P = op(A) (MN-major),
  // Q = op(B)^T (K-major), D = C; TT: P = op(B)^T (MN-major), Q = op(A) (K-major), D = C^T.
  const bool tf32 = p.a_type == GPUOPT_DTYPE_F32;
  plan->p_regs = tf32 && !(p.trans_a == GPUOPT_TRANS_T && p.trans_b == GPUOPT_TRANS_N);
  plan->swap = tf32 && p.trans_a == GPUOPT_TRANS_N;
  const std::int64_t ext_p = plan->swap ? p.m : p.n;  // rows of P (wgmma M side)
  const std::int64_t ext_q = plan->swap ? p.n : p.m;  // rows of Q (wgmma N side)
  // 16-bit schedule (H200, own harness): ping-pong hides the epilogue behind the other
  // consumer's main loop (+27% at 8192^2 x 1024, +5% at 512 x 256^3) but its m64n128 main loop
  // runs 4-9% slower than the cooperative m64n256 one at k = 4096-8192. H100, m = n = 4096 and
  // 8192: ping-pong +10-14% at k = 1024, +4-5% at 2048, mostly behind from 3072 (kPingPongMaxK).
  // A configuration (tuning cache, forced, harness) replaces the rule: tune_search times each.
  if (config >= 0 && config_pingpong(config) && (tf32 || GPUOPT_SM90_PINGPONG == 0))
    return tf32 ? "configuration pingpong_*: the ping-pong schedule runs 16-bit inputs only"
                : "configuration pingpong_*: built without the ping-pong schedule "
                  "(GPUOPT_SM90_PINGPONG=0)";
  plan->pingpong = config >= 0 ? config_pingpong(config)
                               : GPUOPT_SM90_PINGPONG != 0 && !tf32 && p.k <= kPingPongMaxK;
  const int block_n = plan->pingpong ? kPpBlockN : kBlockN;  // Q rows per tile
  const std::int64_t tiles_x = (ext_p + kBlockM - 1) / kBlockM;
  const std::int64_t tiles_y = (ext_q + block_n - 1) / block_n;
  // Clusters of 2 along the columns share (multicast) the Q tile; a single column tile has no
  // partner.
  if (config >= 0 && config_cluster(config) > 1 && (tiles_x < 2 || kMaxCluster < 2))
    return tiles_x < 2 ? "configuration *_c2: a single column tile has no cluster partner"
                       : "configuration *_c2: built with GPUOPT_SM90_MAX_CLUSTER=1";
  const int cluster = config >= 0 ? config_cluster(config) : tiles_x >= 2 ? kMaxCluster : 1;
  const std::int64_t units_x = (tiles_x + cluster - 1) / cluster;
  // The persistent loop steps u += clusters past total_units: keep that within int32.
  if (units_x * tiles_y > (INT_MAX / 2) / p.batch) return "too many tiles for the int32 scheduler";

  // Last: what depends on the problem alone refuses first (also where no driver is loaded).
  if (!driver_api().cuTensorMapEncodeTiled) return "the driver lacks cuTensorMapEncodeTiled";

  const std::int64_t e = static_cast<std::int64_t>(dtype_size(p.a_type));
  const int kk = static_cast<int>(kRowBytes / e);  // K elements per stage; also MN box width
  plan->cluster = cluster;
  // Default roles: P(j, kk) = op(B)(kk, j): B stored k x n (N: K-major) or n x k (T: MN-major);
  // Q(i, kk) = op(A)(i, kk): A stored k x m (T: K-major) or m x k (N: MN-major). Swapped: P is A
  // stored m x k (MN-major), Q is B stored k x n (K-major).
  const void* src_p = plan->swap ? p.A : p.B;
  const void* src_q = plan->swap ? p.B : p.A;
  const std::int64_t ld_p = plan->swap ? p.lda : p.ldb, ld_q = plan->swap ? p.ldb : p.lda;
  const std::int64_t st_p = plan->swap ? p.stride_a : p.stride_b;
  const std::int64_t st_q = plan->swap ? p.stride_b : p.stride_a;
  plan->p_kmajor = !plan->swap && p.trans_b == GPUOPT_TRANS_N;
  plan->q_kmajor = plan->swap || p.trans_a == GPUOPT_TRANS_T;
  const bool ok_p = plan->p_kmajor ? encode_tma_map(&plan->map_p, p.a_type, src_p, p.k, ext_p, ld_p,
                                                    p.batch, st_p, kk, kBlockM)
                                   : encode_tma_map(&plan->map_p, p.a_type, src_p, ext_p, p.k, ld_p,
                                                    p.batch, st_p, kk, kk);
  const bool ok_q = plan->q_kmajor ? encode_tma_map(&plan->map_q, p.a_type, src_q, p.k, ext_q, ld_q,
                                                    p.batch, st_q, kk, block_n / cluster)
                                   : encode_tma_map(&plan->map_q, p.a_type, src_q, ext_q, p.k, ld_q,
                                                    p.batch, st_q, kk, kk);
  if (!ok_p || !ok_q) return "cuTensorMapEncodeTiled rejected the operands' extents or strides";

  Params& q = plan->params;
  q.m = static_cast<int>(ext_q);
  q.n = static_cast<int>(ext_p);
  q.k_blocks = static_cast<int>((p.k + kk - 1) / kk);
  q.units_x = static_cast<int>(units_x);
  q.tiles_y = static_cast<int>(tiles_y);
  q.units_per_batch = static_cast<int>(units_x * tiles_y);
  q.total_units = static_cast<int>(units_x * tiles_y * p.batch);
  q.alpha = static_cast<float>(p.alpha);
  q.beta = static_cast<float>(p.beta);
  q.C = p.C;
  q.ldc = p.ldc;
  q.stride_c = p.batch > 1 ? p.stride_c : 0;
  const std::uint64_t ec = dtype_size(p.c_type);
  q.pair_store = reinterpret_cast<std::uintptr_t>(p.C) % (2 * ec) == 0 && p.ldc % 2 == 0 &&
                 (p.batch == 1 || p.stride_c % 2 == 0);
  // Persistent: one CTA per multiprocessor at most (one fits), whole clusters.
  const int max_clusters = dev.sm_count / cluster;
  if (max_clusters < 1) return "fewer multiprocessors than a cluster";
  plan->grid = (q.total_units < max_clusters ? q.total_units : max_clusters) * cluster;
  return nullptr;
}

}  // namespace sm90

static_assert(sizeof(sm90::Plan) <= sizeof(PlanStorage) &&
                  alignof(sm90::Plan) <= alignof(PlanStorage) &&
                  std::is_trivially_destructible<sm90::Plan>::value,
              "the sm90 GEMM plan must fit the dispatcher's per-call plan storage");

// The check is the plan: building it is what finds every limit (types, alignment, shared memory,
// the driver's tensor-map encoder accepting the operands). Dispatch keeps the plan for the launch
// of the same call (ExecEnv::plan), so both TMA descriptors are encoded once per GEMM.
const char* gemm_plan_sm90_tma_wgmma(const GemmProblem& p, const DeviceDesc& dev, int config,
                                     PlanStorage* storage) {
  return sm90::make_plan(p, dev, ::new (storage->bytes) sm90::Plan, config);
}

gpuopt_status_t gemm_launch_sm90_tma_wgmma(const GemmProblem& p, const ExecEnv& env) {
  // Planned by dispatch for this call; a launch without a plan (not dispatched) makes its own.
  sm90::Plan fresh;
  const sm90::Plan* planned =
      env.plan ? std::launder(reinterpret_cast<const sm90::Plan*>(env.plan->bytes)) : nullptr;
  if (!planned) {
    if (const char* why = sm90::make_plan(p, *env.device, &fresh, env.config))
      return fail(GPUOPT_ERROR_UNSUPPORTED, env.fn, "gemm sm90_tma_wgmma: %s", why);
    planned = &fresh;
  }
  const sm90::Plan& plan = *planned;
  switch (p.a_type) {
    case GPUOPT_DTYPE_BF16:
      return sm90::launch_bf16(plan, p, env);
    case GPUOPT_DTYPE_F16:
      return sm90::launch_f16(plan, p, env);
    case GPUOPT_DTYPE_F32:
      return sm90::launch_tf32(plan, p, env);
    default:
      return fail(GPUOPT_ERROR_INTERNAL, env.fn, "gemm sm90_tma_wgmma: unexpected dtype");
  }
}

}  // namespace gpuopt
