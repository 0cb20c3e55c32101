// The cublaslt gemm rung's plans: what cublasLtMatmul needs besides the operands (the matmul and
// matrix layout descriptors and the algorithm cuBLASLt's heuristic ranked first, or the one of
// rank i for the run-time configuration algo<i>), made once per problem class and algorithm rank
// and kept in a process-wide cache, so a call of a known class runs no heuristic query and
// creates no descriptor.
//
// A problem class is everything the heuristic sees: the device model (cc, SM count, L2 size),
// types and compute type, transposes, sizes, leading dimensions, batch count and strides, the
// alignment of A, B and C (of every matrix of a batch) and the workspace the algorithm may use;
// the key adds the algorithm's rank.
// Pointers themselves are not part of it, so a class covers every call on new buffers with the
// same alignment.
#pragma once
#include <cublasLt.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <unordered_map>

#include "kernels/gemm/gemm.hpp"

namespace gpuopt {

// Algorithms of the heuristic's ranking a configuration can name (algo0 .. algo7: gemm.hpp's
// kCublasLtConfigs).
constexpr int kCublasLtAlgos = 8;

struct LtKey {
  static constexpr std::size_t kFields = 22;
  std::array<std::int64_t, kFields> f{};
  bool operator==(const LtKey& o) const { return f == o.f; }
};

struct LtKeyHash {
  std::size_t operator()(const LtKey& k) const noexcept;
};

// The largest power of two (at most 256) that divides the address of every matrix of a batch:
// ptr, ptr + stride, ... (cuBLASLt's CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_*_BYTES).
std::uint32_t lt_alignment(const void* ptr, std::int64_t stride, std::size_t elem_bytes,
                           std::int64_t batch);

// The class of p on dev with workspace_bytes of workspace, for the heuristic's algorithm of rank
// algo (0: its first choice), or with algo = -tile for the rung's rule that takes the first
// algorithm of that cuBLASLt tile (gemm_cublaslt_rule_tile).
LtKey lt_key(const GemmProblem& p, const DeviceDesc& dev, std::size_t workspace_bytes,
             int algo = 0);

// A plan: descriptors (destroyed with it) and the algorithm, or none (has_algo false: the
// heuristic found no algorithm; cached too, so the refusal costs no query either).
struct LtPlan {
  cublasLtMatmulDesc_t op = nullptr;
  cublasLtMatrixLayout_t a = nullptr, b = nullptr, c = nullptr;
  cublasLtMatmulAlgo_t algo{};
  std::size_t algo_workspace = 0;  // bytes the algorithm needs (at most the key's workspace)
  bool has_algo = false;
  // The heuristic ranked fewer algorithms than the key's rank + 1: algo is its first (the rung's
  // own rule), and returned says how many it had.
  bool rank_missing = false;
  int returned = 0;
  std::uint32_t align_a = 0, align_b = 0, align_c = 0;  // for messages

  LtPlan() = default;
  LtPlan(const LtPlan&) = delete;
  LtPlan& operator=(const LtPlan&) = delete;
  ~LtPlan();
};

// Plans by class, thread-safe. At capacity the next insert starts over from an empty map; plans
// in use stay alive through their shared_ptr.
class LtPlanCache {
 public:
  explicit LtPlanCache(std::size_t capacity) : capacity_(capacity) {}
  std::shared_ptr<const LtPlan> find(const LtKey& key) const;
  // Inserts plan unless the class has one already; returns the cached plan.
  std::shared_ptr<const LtPlan> insert(const LtKey& key, std::shared_ptr<const LtPlan> plan);
  std::size_t size() const;

 private:
  mutable std::mutex mu_;
  std::unordered_map<LtKey, std::shared_ptr<const LtPlan>, LtKeyHash> map_;
  std::size_t capacity_;
};

// The process-wide cache of the cublaslt rung (256 classes; never destroyed).
LtPlanCache& lt_plan_cache();

}  // namespace gpuopt
