#include "kernels/gemm/cublaslt_plan.hpp"

namespace gpuopt {

std::size_t LtKeyHash::operator()(const LtKey& k) const noexcept {
  std::uint64_t h = 1469598103934665603ull;  // FNV-1a over the fields
  for (std::int64_t v : k.f) {
    h ^= static_cast<std::uint64_t>(v);
    h *= 1099511628211ull;
  }
  return static_cast<std::size_t>(h ^ (h >> 32));
}

std::uint32_t lt_alignment(const void* ptr, std::int64_t stride, std::size_t elem_bytes,
                           std::int64_t batch) {
  std::uint64_t bits = static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(ptr));
  if (batch > 1) bits |= static_cast<std::uint64_t>(stride) * elem_bytes;
  bits |= 256;
  return static_cast<std::uint32_t>(bits & (~bits + 1));
}

LtKey lt_key(const GemmProblem& p, const DeviceDesc& dev, std::size_t workspace_bytes, int algo) {
  const std::size_t ea = dtype_size(p.a_type), ec = dtype_size(p.c_type);
  const bool batched = p.batch > 1;
  LtKey k;
  k.f = {dev.cc,
         dev.sm_count,
         static_cast<std::int64_t>(dev.l2_bytes),
         static_cast<std::int64_t>(workspace_bytes),
         p.a_type,
         p.c_type,
         p.compute,
         p.trans_a,
         p.trans_b,
         p.m,
         p.n,
         p.k,
         p.lda,
         p.ldb,
         p.ldc,
         p.batch,
         batched ? p.stride_a : 0,
         batched ? p.stride_b : 0,
         batched ? p.stride_c : 0,
         static_cast<std::int64_t>(lt_alignment(p.A, p.stride_a, ea, p.batch)) |
             static_cast<std::int64_t>(lt_alignment(p.B, p.stride_b, ea, p.batch)) << 16,
         lt_alignment(p.C, p.stride_c, ec, p.batch),
         algo};
  return k;
}

LtPlan::~LtPlan() {
  if (op) cublasLtMatmulDescDestroy(op);
  if (a) cublasLtMatrixLayoutDestroy(a);
  if (b) cublasLtMatrixLayoutDestroy(b);
  if (c) cublasLtMatrixLayoutDestroy(c);
}

std::shared_ptr<const LtPlan> LtPlanCache::find(const LtKey& key) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = map_.find(key);
  return it == map_.end() ? nullptr : it->second;
}

std::shared_ptr<const LtPlan> LtPlanCache::insert(const LtKey& key,
                                                  std::shared_ptr<const LtPlan> plan) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = map_.find(key);
  if (it != map_.end()) return it->second;  // another thread planned it first
  if (map_.size() >= capacity_) map_.clear();
  map_.emplace(key, plan);
  return plan;
}

std::size_t LtPlanCache::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return map_.size();
}

LtPlanCache& lt_plan_cache() {
  static LtPlanCache* cache = new LtPlanCache(256);  // leaked: no destruction order at exit
  return *cache;
}

}  // namespace gpuopt
