#include "fuzz_calls.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "runtime/deviceless.hpp"
#include "runtime/registry.hpp"
#include "runtime/tune_cache.hpp"

namespace fuzz {
namespace {

template <class T>
T* maybe(FuzzInput& in, T* p) {  // the out-pointer, or NULL one time in 16
  return in.pick(16) == 0 ? nullptr : p;
}

// A descriptor's struct_size: exact most of the time, else too small, larger or raw.
std::size_t struct_size(FuzzInput& in, std::size_t exact) {
  switch (in.pick(8)) {
    case 0:
      return in.pick(exact + 1);
    case 1:
      return exact + 8 * in.pick(4);
    case 2:
      return in.raw<std::size_t>();
    default:
      return exact;
  }
}

// Descriptors live in a larger, zeroed block: a struct_size larger than the struct (a newer
// caller's) is then backed by memory the caller owns, as the ABI rules promise.
template <class Desc>
struct DescBlock {
  Desc d{};
  unsigned char tail[64] = {};
};

gpuopt_status_t context_create(World&, FuzzInput& in) {
  gpuopt_context_t c = nullptr;
  gpuopt_status_t st = gpuopt_context_create(in.small_int(), maybe(in, &c));
  if (st == GPUOPT_SUCCESS && gpuopt_context_destroy(c) != GPUOPT_SUCCESS) __builtin_trap();
  return st;
}
gpuopt_status_t context_destroy(World& w, FuzzInput& in) {
  return gpuopt_context_destroy(w.any_ctx(in));
}
gpuopt_status_t context_device_info(World& w, FuzzInput& in) {
  DescBlock<gpuopt_device_info_t> b;
  b.d.struct_size = struct_size(in, sizeof b.d);
  if (b.d.struct_size > sizeof b) b.d.struct_size = sizeof b;  // the caller's storage
  return gpuopt_context_device_info(w.any_ctx(in), in.pick(16) ? &b.d : nullptr);
}
void* fuzz_allocate(size_t, void*, void*) { return nullptr; }
void fuzz_deallocate(void*, size_t, void*, void*) {}
gpuopt_status_t context_set_allocator(World& w, FuzzInput& in) {
  DescBlock<gpuopt_allocator_t> b;
  b.d.struct_size = struct_size(in, sizeof b.d);
  if (b.d.struct_size > sizeof b) b.d.struct_size = sizeof b;
  if (in.flip()) b.d.allocate = fuzz_allocate;
  if (in.flip()) b.d.deallocate = fuzz_deallocate;
  return gpuopt_context_set_allocator(w.any_ctx(in), in.pick(16) ? &b.d : nullptr);
}
gpuopt_status_t context_set_pointer_checks(World& w, FuzzInput& in) {
  return gpuopt_context_set_pointer_checks(w.any_ctx(in),
                                           static_cast<gpuopt_pointer_checks_t>(in.small_int()));
}
gpuopt_status_t context_pointer_checks(World& w, FuzzInput& in) {
  gpuopt_pointer_checks_t m;
  return gpuopt_context_pointer_checks(w.any_ctx(in), maybe(in, &m));
}
gpuopt_status_t context_forget_pointers(World& w, FuzzInput& in) {
  return gpuopt_context_forget_pointers(w.any_ctx(in));
}
gpuopt_status_t device_info(World&, FuzzInput& in) {
  DescBlock<gpuopt_device_info_t> b;
  b.d.struct_size = struct_size(in, sizeof b.d);
  if (b.d.struct_size > sizeof b) b.d.struct_size = sizeof b;
  return gpuopt_device_info(in.small_int(), in.pick(16) ? &b.d : nullptr);
}
gpuopt_status_t stream_create(World& w, FuzzInput& in) {
  gpuopt_stream_t s = nullptr;
  gpuopt_status_t st = gpuopt_stream_create(w.any_ctx(in), maybe(in, &s));
  if (st == GPUOPT_SUCCESS && gpuopt_stream_destroy(s) != GPUOPT_SUCCESS) __builtin_trap();
  return st;
}
gpuopt_status_t stream_wrap(World& w, FuzzInput& in) {
  gpuopt_stream_t s = nullptr;
  void* native = in.flip() ? nullptr : w.host;
  gpuopt_status_t st = gpuopt_stream_wrap(w.any_ctx(in), native, maybe(in, &s));
  if (st == GPUOPT_SUCCESS && gpuopt_stream_destroy(s) != GPUOPT_SUCCESS) __builtin_trap();
  return st;
}
gpuopt_status_t stream_native(World& w, FuzzInput& in) {
  void* native = nullptr;
  return gpuopt_stream_native(w.any_stream(in), maybe(in, &native));
}
gpuopt_status_t stream_synchronize(World& w, FuzzInput& in) {
  return gpuopt_stream_synchronize(w.any_stream(in));
}
gpuopt_status_t stream_destroy(World& w, FuzzInput& in) {
  return gpuopt_stream_destroy(w.any_stream(in));
}
gpuopt_status_t buffer_create(World& w, FuzzInput& in) {
  gpuopt_buffer_t b = nullptr;
  const std::size_t bytes = in.size();
  const auto kind = static_cast<gpuopt_memory_kind_t>(in.small_int());
  gpuopt_status_t st = gpuopt_buffer_create(w.any_ctx(in), bytes, kind, maybe(in, &b));
  if (st == GPUOPT_SUCCESS) w.buffers.push_back(b);
  return st;
}
gpuopt_status_t buffer_wrap(World& w, FuzzInput& in) {
  gpuopt_buffer_t b = nullptr;
  void* p = w.any_pointer(in);
  gpuopt_status_t st = gpuopt_buffer_wrap(w.any_ctx(in), p, in.size(), maybe(in, &b));
  if (st == GPUOPT_SUCCESS) w.buffers.push_back(b);
  return st;
}
gpuopt_status_t buffer_getters(World& w, FuzzInput& in) {
  gpuopt_buffer_t b = w.any_buffer(in);
  void* p = nullptr;
  std::size_t n = 0;
  gpuopt_memory_kind_t k{};
  int c = 0;
  switch (in.pick(5)) {
    case 0:
      return gpuopt_buffer_device_pointer(b, maybe(in, &p));
    case 1:
      return gpuopt_buffer_host_pointer(b, maybe(in, &p));
    case 2:
      return gpuopt_buffer_size(b, maybe(in, &n));
    case 3:
      return gpuopt_buffer_kind(b, maybe(in, &k));
    default:
      return gpuopt_buffer_is_compressed(b, maybe(in, &c));
  }
}
gpuopt_status_t buffer_copy(World& w, FuzzInput& in) {
  gpuopt_buffer_t b = w.any_buffer(in);
  gpuopt_stream_t s = w.any_stream(in);
  const std::size_t offset = in.size();
  const std::size_t bytes = in.size();
  void* host = in.pick(16) ? w.host : nullptr;
  return in.flip() ? gpuopt_buffer_copy_from_host(b, s, offset, host, bytes)
                   : gpuopt_buffer_copy_to_host(b, s, offset, host, bytes);
}
gpuopt_status_t buffer_destroy(World& w, FuzzInput& in) {
  return gpuopt_buffer_destroy(w.any_buffer(in));
}
gpuopt_status_t graph_begin(World& w, FuzzInput& in) {
  return gpuopt_graph_begin(w.any_ctx(in), w.any_stream(in));
}
gpuopt_status_t graph_end(World& w, FuzzInput& in) {
  gpuopt_graph_t g = nullptr;
  gpuopt_status_t st = gpuopt_graph_end(w.any_stream(in), maybe(in, &g));
  if (st == GPUOPT_SUCCESS) __builtin_trap();  // no capture can begin device-less
  return st;
}
gpuopt_status_t graph_end_update(World& w, FuzzInput& in) {
  int in_place = 0;
  return gpuopt_graph_end_update(w.any_stream(in), w.any_graph(in), maybe(in, &in_place));
}
gpuopt_status_t graph_launch(World& w, FuzzInput& in) {
  return gpuopt_graph_launch(w.any_graph(in), w.any_stream(in));
}
gpuopt_status_t graph_destroy(World& w, FuzzInput& in) {
  return gpuopt_graph_destroy(w.any_graph(in));
}
gpuopt_status_t variants(World& w, FuzzInput& in) {
  gpuopt_context_t c = w.any_ctx(in);
  const auto op = static_cast<gpuopt_op_t>(in.small_int());
  const int index = in.small_int();
  int count = 0;
  const char* name = nullptr;
  DescBlock<gpuopt_variant_info_t> b;
  b.d.struct_size = struct_size(in, sizeof b.d);
  if (b.d.struct_size > sizeof b) b.d.struct_size = sizeof b;
  switch (in.pick(6)) {
    case 0:
      return gpuopt_variant_count(c, op, maybe(in, &count));
    case 1:
      return gpuopt_variant_name(c, op, index, maybe(in, &name));
    case 2:
      return gpuopt_variant_info(c, op, index, in.pick(16) ? &b.d : nullptr);
    case 3:
      return gpuopt_context_get_variant(c, op, maybe(in, &name));
    case 4:
      return gpuopt_last_variant(c, op, maybe(in, &name));
    default: {
      // A real variant's name (taken from the table), one with a configuration (known or not),
      // "auto", NULL or arbitrary bytes.
      char text[24] = {};
      const char* pick = nullptr;
      std::string with_config;
      switch (in.pick(5)) {
        case 0:
          pick = "auto";
          break;
        case 1:
          for (std::size_t i = 0; i + 1 < sizeof text; ++i) text[i] = static_cast<char>(in.byte());
          pick = text;
          break;
        case 2:
          if (gpuopt_variant_name(c, op, index, &name) == GPUOPT_SUCCESS) pick = name;
          break;
        case 3:  // "variant:config", a configuration of that variant or not
          if (gpuopt_variant_name(c, op, index, &name) == GPUOPT_SUCCESS) {
            const char* const configs[] = {"coop_c2", "pingpong_c1", "algo0", "algo7", "algo8", ""};
            with_config = std::string(name) + ":" + configs[in.pick(6)];
            pick = with_config.c_str();
          }
          break;
        default:
          break;
      }
      return gpuopt_context_set_variant(c, op, pick);
    }
  }
}
gpuopt_status_t names(World&, FuzzInput& in) {
  const int v = in.small_int();
  (void)gpuopt_status_name(static_cast<gpuopt_status_t>(v));
  (void)gpuopt_dtype_name(static_cast<gpuopt_dtype_t>(v));
  (void)gpuopt_op_name(static_cast<gpuopt_op_t>(v));
  (void)gpuopt_reduce_op_name(static_cast<gpuopt_reduce_op_t>(v));
  (void)gpuopt_version_string();
  return gpuopt_version() > 0 ? GPUOPT_SUCCESS : GPUOPT_ERROR_INTERNAL;
}
gpuopt_status_t last_error_message(World&, FuzzInput& in) {
  char buf[64];
  std::size_t len = 0;
  const std::size_t size = in.pick(sizeof buf + 1);
  gpuopt_status_t st = gpuopt_last_error_message(in.pick(8) ? buf : nullptr, size, maybe(in, &len));
  // Not an entry point failure of its own: its message must stay the previous one.
  return st == GPUOPT_ERROR_INVALID_ARGUMENT ? GPUOPT_SUCCESS : st;
}

// The tuning cache: attach (NULL, "", a missing file, a directory), count, and gpuopt_tune with
// fuzzed arguments (device-less: it stops at its first CUDA call, after validation).
gpuopt_status_t tune_call(void* user) {
  World& w = *static_cast<World*>(user);
  return gpuopt_axpy(w.ctx[0], w.stream[0], GPUOPT_DTYPE_F32, 4, 1.0, nullptr, 1, nullptr, 1);
}
gpuopt_status_t tune(World& w, FuzzInput& in) {
  gpuopt_context_t c = w.any_ctx(in);
  switch (in.pick(3)) {
    case 0: {
      const char* const paths[] = {nullptr, "", "/nonexistent/gpuopt-fuzz.cache", "/"};
      return gpuopt_context_set_tune_cache(c, paths[in.pick(4)]);
    }
    case 1: {
      int n = 0;
      return gpuopt_context_tune_cache_entries(c, maybe(in, &n));
    }
    default: {
      DescBlock<gpuopt_tune_result_t> b;
      b.d.struct_size = struct_size(in, sizeof b.d);
      if (b.d.struct_size > sizeof b) b.d.struct_size = sizeof b;
      const auto op = static_cast<gpuopt_op_t>(in.small_int());
      return gpuopt_tune(c, w.any_stream(in), op, in.pick(8) ? tune_call : nullptr, &w, in.real(),
                         in.pick(16) ? &b.d : nullptr);
    }
  }
}

// The tuning cache's parser on text built from its own vocabulary and raw bytes, behind a valid
// header or not: it never crashes, a refused file leaves no entry and gives a reason, and an
// accepted one survives a write and a second parse unchanged, every entry found in its table.
gpuopt_status_t tune_cache_text(World&, FuzzInput& in) {
  static const char* const kWords[] = {"gemm ",
                                       "reduce ",
                                       "axpy ",
                                       "a=f32 ",
                                       "c=bf16 ",
                                       "compute=2 ",
                                       "ta=0 ",
                                       "tb=1 ",
                                       "m=2^12 ",
                                       "n=0 ",
                                       "k=2^62 ",
                                       "batch=2^0 ",
                                       "align16=1 ",
                                       "-> ",
                                       "naive ",
                                       "cublas ",
                                       "0.5",
                                       "1e308",
                                       "-1",
                                       "2^",
                                       "=",
                                       "#",
                                       "\n",
                                       "\r\n",
                                       " ",
                                       "dtype=f64 ",
                                       "op=0 ",
                                       "in=i32 ",
                                       ":",
                                       "cublaslt:algo3 ",
                                       "sm90_tma_wgmma:coop_c2 ",
                                       "naive:fast ",
                                       "gpuopt-tune-cache 1\n"};
  const gpuopt::TuneStamp stamp = gpuopt::tune_stamp_of(gpuopt::deviceless_h200());
  std::string text;
  if (in.pick(4)) text = gpuopt::format_tune_cache(stamp, {});
  for (unsigned i = 0, n = in.pick(48); i < n; ++i) {
    if (in.pick(4))
      text += kWords[in.pick(sizeof kWords / sizeof kWords[0])];
    else
      text += static_cast<char>(in.byte());
  }
  std::vector<gpuopt::TuneEntry> got, again;
  std::string why;
  const bool ok = gpuopt::parse_tune_cache(text, stamp, &got, &why);
  bool sound = ok || (got.empty() && !why.empty());
  if (ok) {
    const gpuopt::TuneTable table(got);
    for (const gpuopt::TuneEntry& e : got)
      sound = sound && table.find(e.op, e.key) == gpuopt::pack_choice(e.variant, e.config);
    sound = sound &&
            gpuopt::parse_tune_cache(gpuopt::format_tune_cache(stamp, got), stamp, &again, &why) &&
            again.size() == got.size();
  }
  if (!sound) {
    std::fprintf(stderr, "gpuopt_fuzz: tuning cache parser broke an invariant on:\n%s\n(%s)\n",
                 text.c_str(), why.c_str());
    std::abort();
  }
  return GPUOPT_SUCCESS;
}

gpuopt_status_t axpy(World& w, FuzzInput& in) {
  gpuopt_context_t c = w.any_ctx(in);
  gpuopt_stream_t s = w.any_stream(in);
  const auto dtype = static_cast<gpuopt_dtype_t>(in.small_int());
  const std::int64_t n = in.i64(), incx = in.i64(), incy = in.i64();
  void* x = w.any_pointer(in);
  void* y = w.any_pointer(in);
  return gpuopt_axpy(c, s, dtype, n, in.real(), x, incx, y, incy);
}
gpuopt_status_t gemm(World& w, FuzzInput& in) {
  DescBlock<gpuopt_gemm_desc_t> b;
  gpuopt_gemm_desc_t& d = b.d;
  d.struct_size = struct_size(in, sizeof d);
  d.trans_a = static_cast<gpuopt_transpose_t>(in.small_int());
  d.trans_b = static_cast<gpuopt_transpose_t>(in.small_int());
  d.m = in.i64();
  d.n = in.i64();
  d.k = in.i64();
  d.alpha = in.real();
  d.beta = in.real();
  d.a_type = static_cast<gpuopt_dtype_t>(in.small_int());
  d.c_type = in.flip() ? d.a_type : static_cast<gpuopt_dtype_t>(in.small_int());
  d.compute = static_cast<gpuopt_compute_t>(in.small_int() & 7);
  d.lda = in.i64();
  d.ldb = in.i64();
  d.ldc = in.i64();
  d.batch_count = in.i64();
  d.stride_a = in.i64();
  d.stride_b = in.i64();
  d.stride_c = in.i64();
  void* A = w.any_pointer(in);
  void* B = w.any_pointer(in);
  void* C = w.any_pointer(in);
  return gpuopt_gemm(w.any_ctx(in), w.any_stream(in), in.pick(16) ? &d : nullptr, A, B, C);
}
gpuopt_status_t reduce(World& w, FuzzInput& in) {
  DescBlock<gpuopt_reduce_desc_t> b;
  gpuopt_reduce_desc_t& d = b.d;
  d.struct_size = struct_size(in, sizeof d);
  d.op = static_cast<gpuopt_reduce_op_t>(in.small_int());
  d.in_type = static_cast<gpuopt_dtype_t>(in.small_int());
  d.n = in.i64();
  d.num_segments = in.i64();
  d.segment_stride = in.i64();
  d.offsets = in.flip() ? nullptr : static_cast<const int64_t*>(w.any_pointer(in));
  d.mode = static_cast<gpuopt_reduce_mode_t>(in.small_int());
  void* x = w.any_pointer(in);
  void* out = w.any_pointer(in);
  return gpuopt_reduce(w.any_ctx(in), w.any_stream(in), in.pick(16) ? &d : nullptr, x, out);
}
void fill(gpuopt_segmented_sort_desc_t& d, World& w, FuzzInput& in) {
  d.struct_size = struct_size(in, sizeof d);
  d.key_type = static_cast<gpuopt_dtype_t>(in.small_int());
  d.value_bytes = in.small_int();
  d.order = static_cast<gpuopt_sort_order_t>(in.small_int());
  d.num_items = in.i64();
  d.num_segments = in.i64();
  d.segment_size = in.i64();
  d.offsets = in.flip() ? nullptr : static_cast<const int64_t*>(w.any_pointer(in));
}
gpuopt_status_t segmented_sort_workspace_size(World& w, FuzzInput& in) {
  DescBlock<gpuopt_segmented_sort_desc_t> b;
  fill(b.d, w, in);
  std::size_t bytes = 0;
  return gpuopt_segmented_sort_workspace_size(w.any_ctx(in), in.pick(16) ? &b.d : nullptr,
                                              maybe(in, &bytes));
}
gpuopt_status_t segmented_sort(World& w, FuzzInput& in) {
  DescBlock<gpuopt_segmented_sort_desc_t> b;
  fill(b.d, w, in);
  void* p[5];
  for (auto& q : p) q = w.any_pointer(in);
  return gpuopt_segmented_sort(w.any_ctx(in), w.any_stream(in), in.pick(16) ? &b.d : nullptr, p[0],
                               p[1], p[2], p[3], p[4], in.size());
}
gpuopt_status_t stencil(World& w, FuzzInput& in) {
  DescBlock<gpuopt_stencil_desc_t> b;
  gpuopt_stencil_desc_t& d = b.d;
  d.struct_size = struct_size(in, sizeof d);
  d.dtype = static_cast<gpuopt_dtype_t>(in.small_int());
  d.dims = in.small_int();
  d.radius = in.small_int();
  d.boundary = static_cast<gpuopt_boundary_t>(in.small_int());
  d.nx = in.i64();
  d.ny = in.i64();
  d.nz = in.i64();
  d.in_pitch = in.i64();
  d.in_slice_pitch = in.i64();
  d.out_pitch = in.i64();
  d.out_slice_pitch = in.i64();
  d.coeffs = in.pick(16) ? w.coeffs : nullptr;  // 64 >= 1 + 3 * 2 * GPUOPT_STENCIL_MAX_RADIUS
  void* x = w.any_pointer(in);
  void* y = w.any_pointer(in);
  return gpuopt_stencil(w.any_ctx(in), w.any_stream(in), in.pick(16) ? &d : nullptr, x, y);
}
gpuopt_status_t transpose(World& w, FuzzInput& in) {
  DescBlock<gpuopt_transpose_desc_t> b;
  gpuopt_transpose_desc_t& d = b.d;
  d.struct_size = struct_size(in, sizeof d);
  d.dtype = static_cast<gpuopt_dtype_t>(in.small_int());
  d.rows = in.i64();
  d.cols = in.i64();
  d.lda = in.i64();
  d.ldb = in.i64();
  void* x = w.any_pointer(in);
  void* y = w.any_pointer(in);
  return gpuopt_transpose(w.any_ctx(in), w.any_stream(in), in.pick(16) ? &d : nullptr, x, y);
}
void fill(gpuopt_gdn_desc_t& d, FuzzInput& in) {
  d.struct_size = struct_size(in, sizeof d);
  d.batch = in.i64();
  d.channels = in.i64();
  d.height = in.i64();
  d.width = in.i64();
  d.inverse = in.small_int();
  d.compute = static_cast<gpuopt_compute_t>(in.small_int() & 7);
}
gpuopt_status_t gdn_workspace_size(World& w, FuzzInput& in) {
  DescBlock<gpuopt_gdn_desc_t> b;
  fill(b.d, in);
  std::size_t bytes = 0;
  const auto pass = static_cast<gpuopt_gdn_pass_t>(in.small_int());
  return gpuopt_gdn_workspace_size(w.any_ctx(in), in.pick(16) ? &b.d : nullptr, pass,
                                   maybe(in, &bytes));
}
gpuopt_status_t gdn_pass(World& w, FuzzInput& in) {
  DescBlock<gpuopt_gdn_desc_t> b;
  fill(b.d, in);
  float* p[7];
  for (auto& q : p) q = static_cast<float*>(w.any_pointer(in));
  void* ws = w.any_pointer(in);
  const std::size_t ws_bytes = in.size();
  gpuopt_context_t c = w.any_ctx(in);
  gpuopt_stream_t s = w.any_stream(in);
  const gpuopt_gdn_desc_t* d = in.pick(16) ? &b.d : nullptr;
  if (in.flip()) return gpuopt_gdn_forward(c, s, d, p[0], p[1], p[2], p[3], ws, ws_bytes);
  return gpuopt_gdn_backward(c, s, d, p[0], p[1], p[2], p[3], p[4], p[5], p[6], ws, ws_bytes);
}

}  // namespace

const std::vector<Call>& calls() {
  static const std::vector<Call> kCalls = {
      {"gpuopt_context_create", context_create},
      {"gpuopt_context_destroy", context_destroy},
      {"gpuopt_context_device_info", context_device_info},
      {"gpuopt_context_set_allocator", context_set_allocator},
      {"gpuopt_context_set_pointer_checks", context_set_pointer_checks},
      {"gpuopt_context_pointer_checks", context_pointer_checks},
      {"gpuopt_context_forget_pointers", context_forget_pointers},
      {"gpuopt_device_info", device_info},
      {"gpuopt_stream_create", stream_create},
      {"gpuopt_stream_wrap", stream_wrap},
      {"gpuopt_stream_native", stream_native},
      {"gpuopt_stream_synchronize", stream_synchronize},
      {"gpuopt_stream_destroy", stream_destroy},
      {"gpuopt_buffer_create", buffer_create},
      {"gpuopt_buffer_wrap", buffer_wrap},
      {"gpuopt_buffer_", buffer_getters},
      {"gpuopt_buffer_copy_", buffer_copy},
      {"gpuopt_buffer_destroy", buffer_destroy},
      {"gpuopt_graph_begin", graph_begin},
      {"gpuopt_graph_end", graph_end},
      {"gpuopt_graph_end_update", graph_end_update},
      {"gpuopt_graph_launch", graph_launch},
      {"gpuopt_graph_destroy", graph_destroy},
      {"gpuopt_", variants},
      {"gpuopt_", names},
      {"gpuopt_", last_error_message},
      {"gpuopt_", tune},
      {"gpuopt_", tune_cache_text},
      {"gpuopt_axpy", axpy},
      {"gpuopt_gemm", gemm},
      {"gpuopt_reduce", reduce},
      {"gpuopt_segmented_sort_workspace_size", segmented_sort_workspace_size},
      {"gpuopt_segmented_sort", segmented_sort},
      {"gpuopt_stencil", stencil},
      {"gpuopt_transpose", transpose},
      {"gpuopt_gdn_workspace_size", gdn_workspace_size},
      {"gpuopt_gdn_", gdn_pass},
  };
  return kCalls;
}

}  // namespace fuzz
