// GDN (generalized divisive normalization), forward and backward: the problem, the workspace
// each variant needs, and the variant table of GPUOPT_OP_GDN (one table for both passes; the
// problem says which pass).
//
// Data: image n is a row-major C x P matrix (P = H * W pixels), so the channel mix of image n is
// the GEMM Z_n = gamma * X_n^2 (+ beta), and the backward pass needs two more GEMMs:
// U_n = gamma^T * T_n (for dx) and dgamma = sum_n T_n * (X_n^2)^T (K = all N * P pixels, split
// into chunks whose partials are reduced in a fixed order: deterministic).
//
// Dispatch rule (measured, see docs/notes/gdn.md): `sm80_mma_fused` (named `fused` until issue 18;
// the old name still forces it) when it can run (cc >= 8.0 with 108 KiB of shared memory per
// block), else `composed`; except the tf32 backward pass: `composed` (faster on the H200),
// `sm80_mma_fused` only when forced; and the f32 forward pass on sm_90 with H * W a multiple
// of 4: `sm90_wgmma_fused`, except where the persistent resident kernel runs (C = 256, H * W a
// multiple of 128: `sm80_mma_fused`); and the backward pass (both modes) on sm_90 with H * W a
// multiple of 4: `sm90_wgmma_fused` (H100, run 10), except with C <= 256: `sm90_onepass_fused`
// (H100, tf32 round 13, f32 round 15).
#pragma once
#include <cstddef>
#include <cstdint>

#include "runtime/registry.hpp"

namespace gpuopt {

struct GdnProblem {
  gpuopt_gdn_pass_t pass = GPUOPT_GDN_FORWARD;
  std::int64_t n = 0;  // images
  std::int64_t c = 0;  // channels
  std::int64_t p = 0;  // pixels per image (H * W)
  bool inverse = false;
  bool tf32 = false;  // GPUOPT_COMPUTE_TF32 (else f32 accuracy)
  const float* x = nullptr;
  const float* beta = nullptr;
  const float* gamma = nullptr;
  float* y = nullptr;         // forward
  const float* dy = nullptr;  // backward
  float* dx = nullptr;        // backward
  float* dbeta = nullptr;     // backward
  float* dgamma = nullptr;    // backward
  void* workspace = nullptr;  // the caller's, >= gdn_workspace_bytes(pass, n, c, p)
  std::size_t workspace_bytes = 0;
};

// Where each variant keeps its temporaries in the caller's workspace: byte offsets (each piece
// 256-byte aligned) and the total. Sizes saturate at SIZE_MAX instead of wrapping.
// composed: X^2 (later U = gamma^T T) in both passes; backward adds T, a ones vector
//   (max(P, N)), per-image dbeta sums (N x C) and per-image dgamma (N x C x C, in dgpart).
// fused: forward the split gamma of sm90_wgmma_fused (C x 3 * ceil32(C): TF32 hi/lo parts per
//   32-deep k block); backward T, dbeta partials (N * ptiles x C) and dgamma split-K
//   partials (N * chunks x C x C), and the split gamma^T and gamma of sm90_onepass_fused
//   (2 x C x 3 * ceil32(C): f32's [hi | lo | hi] parts per k block).
struct GdnWorkspaceLayout {
  std::size_t x2 = 0, t = 0, ones = 0, rowsums = 0;  // composed pieces
  std::size_t bpart = 0, dgpart = 0;                 // fused (t, dgpart shared in name)
  std::size_t gsplit = 0;                            // split gamma (the sm90 variants)
  std::size_t total = 0;
};
GdnWorkspaceLayout gdn_composed_layout(gpuopt_gdn_pass_t pass, std::int64_t n, std::int64_t c,
                                       std::int64_t p);
GdnWorkspaceLayout gdn_fused_layout(gpuopt_gdn_pass_t pass, std::int64_t n, std::int64_t c,
                                    std::int64_t p);
// The piece of p's workspace at byte offset `offset` (from a layout above).
// Whether ptr is a multiple of `bytes` (vector loads, TMA bases).
inline bool gdn_aligned(const void* ptr, std::uintptr_t bytes) {
  return reinterpret_cast<std::uintptr_t>(ptr) % bytes == 0;
}

inline float* gdn_ws_floats(const GdnProblem& p, std::size_t offset) {
  return reinterpret_cast<float*>(static_cast<char*>(p.workspace) + offset);
}

inline std::size_t gdn_workspace_bytes(gpuopt_gdn_pass_t pass, std::int64_t n, std::int64_t c,
                                       std::int64_t p) {
  const std::size_t a = gdn_composed_layout(pass, n, c, p).total;
  const std::size_t b = gdn_fused_layout(pass, n, c, p).total;
  return a > b ? a : b;
}

// Tile edge of the fused GEMMs (rows of gamma / pixels per block).
constexpr std::int64_t kGdnTile = 128;
// Dynamic shared memory of a fused GEMM block (3 stages of two 128 x 32 f32 tiles, padded).
constexpr std::size_t kGdnFusedSmemBytes = 110592;

// Dynamic shared memory of sm80_mma_fused's persistent resident forward kernel
// (gdn_fwd_resident.cuh: 9 x chunk slots of 32 x 136 floats + the 2-stage ring of 256 x 32
// swizzled gamma rows).
constexpr std::size_t kGdnPersistSmemBytes = 222208;
// Whether sm80_mma_fused's forward pass runs that kernel: C = 256, H * W a multiple of 128,
// N * C < 2^31, x and gamma 16-byte aligned, kGdnPersistSmemBytes of opt-in shared memory (sm_90).
bool gdn_persist_fits(const GdnProblem& p, const DeviceDesc& dev);

// Pixels per split-K chunk of the fused dgamma GEMM (a multiple of its k tile).
constexpr std::int64_t kGdnDgammaChunk = 2048;

gpuopt_status_t gdn_launch_composed(const GdnProblem& p, const ExecEnv& env);
gpuopt_status_t gdn_launch_sm80_mma_fused(const GdnProblem& p, const ExecEnv& env);
// sm90_wgmma_fused (sm_90a): the forward pass on the sm90 TMA + wgmma GEMM kernel with hooks (the
// backward pass: gdn_backward_stages.hpp).
const char* gdn_can_sm90_wgmma_fused(const GdnProblem& p, const DeviceDesc& dev);
gpuopt_status_t gdn_launch_sm90_wgmma_fused(const GdnProblem& p, const ExecEnv& env);

// sm90_onepass_fused (sm_90a, backward pass in both modes, C <= 256): z, t, u and dx in one
// kernel per pixel tile, then sm90_wgmma_fused's dgamma stage (sm90_onepass_fused.cu).
const char* gdn_can_sm90_onepass_fused(const GdnProblem& p, const DeviceDesc& dev);
gpuopt_status_t gdn_launch_sm90_onepass_fused(const GdnProblem& p, const ExecEnv& env);

// The table, in ladder order (composed, sm80_mma_fused, sm90_wgmma_fused, sm90_onepass_fused).
const Variant<GdnProblem>* gdn_variants(int* count);

}  // namespace gpuopt
