// Argument validation of every public entry point that can be checked without a device:
// NULL and foreign handles, NULL out-pointers, invalid device ordinals. Each failure must carry
// the expected status and a message naming the function and the argument. Table driven: one
// ctest case per row.
#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "gpuopt.h"
#include "test_support.hpp"

namespace {

struct Case {
  std::string label;         // GoogleTest name suffix
  const char* fn;            // function the message must name
  const char* arg;           // argument the message must name
  gpuopt_status_t expected;  // status the call must answer
  // The call; `foreign` points at ordinary memory that is not a gpuopt handle.
  std::function<gpuopt_status_t(void* foreign)> call;
};

// gtest prints a parameter with this (the row's label instead of its bytes).
void PrintTo(const Case& c, std::ostream* os) { *os << c.label; }

// Any non-NULL address that is never dereferenced as data by the tests.
void* const kFakeDevicePtr = reinterpret_cast<void*>(0x100000);

// Adds the NULL-handle and foreign-handle rows for one handle argument.
template <class Handle>
void add_handle_rows(std::vector<Case>& rows, const std::string& label, const char* fn,
                     const char* arg, std::function<gpuopt_status_t(Handle)> call) {
  rows.push_back({label + "_NullHandle", fn, arg, GPUOPT_ERROR_INVALID_HANDLE,
                  [call](void*) { return call(nullptr); }});
  rows.push_back({label + "_ForeignHandle", fn, arg, GPUOPT_ERROR_INVALID_HANDLE,
                  [call](void* foreign) { return call(static_cast<Handle>(foreign)); }});
}

std::vector<Case> context_rows() {
  using H = gpuopt_context_t;
  std::vector<Case> r;
  r.push_back({"context_destroy_ForeignHandle", "gpuopt_context_destroy", "ctx",
               GPUOPT_ERROR_INVALID_HANDLE,
               [](void* f) { return gpuopt_context_destroy(static_cast<H>(f)); }});
  add_handle_rows<H>(r, "context_device_info", "gpuopt_context_device_info", "ctx", [](H h) {
    gpuopt_device_info_t info{};
    info.struct_size = sizeof info;
    return gpuopt_context_device_info(h, &info);
  });
  add_handle_rows<H>(r, "stream_create", "gpuopt_stream_create", "ctx", [](H h) {
    gpuopt_stream_t s = nullptr;
    return gpuopt_stream_create(h, &s);
  });
  add_handle_rows<H>(r, "stream_wrap", "gpuopt_stream_wrap", "ctx", [](H h) {
    gpuopt_stream_t s = nullptr;
    return gpuopt_stream_wrap(h, nullptr, &s);
  });
  add_handle_rows<H>(r, "buffer_create", "gpuopt_buffer_create", "ctx", [](H h) {
    gpuopt_buffer_t b = nullptr;
    return gpuopt_buffer_create(h, 64, GPUOPT_MEMORY_DEVICE, &b);
  });
  add_handle_rows<H>(r, "buffer_wrap", "gpuopt_buffer_wrap", "ctx", [](H h) {
    gpuopt_buffer_t b = nullptr;
    return gpuopt_buffer_wrap(h, kFakeDevicePtr, 64, &b);
  });
  add_handle_rows<H>(r, "graph_begin", "gpuopt_graph_begin", "ctx",
                     [](H h) { return gpuopt_graph_begin(h, nullptr); });
  add_handle_rows<H>(r, "variant_count", "gpuopt_variant_count", "ctx", [](H h) {
    int n = 0;
    return gpuopt_variant_count(h, GPUOPT_OP_AXPY, &n);
  });
  add_handle_rows<H>(r, "variant_name", "gpuopt_variant_name", "ctx", [](H h) {
    const char* name = nullptr;
    return gpuopt_variant_name(h, GPUOPT_OP_AXPY, 0, &name);
  });
  add_handle_rows<H>(r, "variant_info", "gpuopt_variant_info", "ctx", [](H h) {
    gpuopt_variant_info_t info{};
    info.struct_size = sizeof info;
    return gpuopt_variant_info(h, GPUOPT_OP_AXPY, 0, &info);
  });
  add_handle_rows<H>(r, "context_set_variant", "gpuopt_context_set_variant", "ctx",
                     [](H h) { return gpuopt_context_set_variant(h, GPUOPT_OP_AXPY, "naive"); });
  add_handle_rows<H>(r, "context_get_variant", "gpuopt_context_get_variant", "ctx", [](H h) {
    const char* name = nullptr;
    return gpuopt_context_get_variant(h, GPUOPT_OP_AXPY, &name);
  });
  add_handle_rows<H>(r, "last_variant", "gpuopt_last_variant", "ctx", [](H h) {
    const char* name = nullptr;
    return gpuopt_last_variant(h, GPUOPT_OP_AXPY, &name);
  });
  add_handle_rows<H>(r, "axpy", "gpuopt_axpy", "ctx", [](H h) {
    return gpuopt_axpy(h, nullptr, GPUOPT_DTYPE_F32, 16, 1.0, kFakeDevicePtr, 1, kFakeDevicePtr, 1);
  });
  return r;
}

std::vector<Case> stream_rows() {
  using H = gpuopt_stream_t;
  std::vector<Case> r;
  r.push_back({"stream_destroy_ForeignHandle", "gpuopt_stream_destroy", "stream",
               GPUOPT_ERROR_INVALID_HANDLE,
               [](void* f) { return gpuopt_stream_destroy(static_cast<H>(f)); }});
  add_handle_rows<H>(r, "stream_native", "gpuopt_stream_native", "stream", [](H h) {
    void* cs = nullptr;
    return gpuopt_stream_native(h, &cs);
  });
  add_handle_rows<H>(r, "stream_synchronize", "gpuopt_stream_synchronize", "stream",
                     [](H h) { return gpuopt_stream_synchronize(h); });
  add_handle_rows<H>(r, "graph_end", "gpuopt_graph_end", "stream", [](H h) {
    gpuopt_graph_t g = nullptr;
    return gpuopt_graph_end(h, &g);
  });
  add_handle_rows<H>(r, "graph_end_update", "gpuopt_graph_end_update", "stream", [](H h) {
    int in_place = -1;
    return gpuopt_graph_end_update(h, nullptr, &in_place);
  });
  return r;
}

std::vector<Case> buffer_rows() {
  using H = gpuopt_buffer_t;
  std::vector<Case> r;
  r.push_back({"buffer_destroy_ForeignHandle", "gpuopt_buffer_destroy", "buffer",
               GPUOPT_ERROR_INVALID_HANDLE,
               [](void* f) { return gpuopt_buffer_destroy(static_cast<H>(f)); }});
  add_handle_rows<H>(r, "buffer_device_pointer", "gpuopt_buffer_device_pointer", "buffer", [](H h) {
    void* p = nullptr;
    return gpuopt_buffer_device_pointer(h, &p);
  });
  add_handle_rows<H>(r, "buffer_host_pointer", "gpuopt_buffer_host_pointer", "buffer", [](H h) {
    void* p = nullptr;
    return gpuopt_buffer_host_pointer(h, &p);
  });
  add_handle_rows<H>(r, "buffer_size", "gpuopt_buffer_size", "buffer", [](H h) {
    size_t bytes = 0;
    return gpuopt_buffer_size(h, &bytes);
  });
  add_handle_rows<H>(r, "buffer_kind", "gpuopt_buffer_kind", "buffer", [](H h) {
    gpuopt_memory_kind_t kind = GPUOPT_MEMORY_DEVICE;
    return gpuopt_buffer_kind(h, &kind);
  });
  add_handle_rows<H>(r, "buffer_is_compressed", "gpuopt_buffer_is_compressed", "buffer", [](H h) {
    int c = 0;
    return gpuopt_buffer_is_compressed(h, &c);
  });
  add_handle_rows<H>(r, "buffer_copy_from_host", "gpuopt_buffer_copy_from_host", "buffer", [](H h) {
    const char src[4] = {1, 2, 3, 4};
    return gpuopt_buffer_copy_from_host(h, nullptr, 0, src, sizeof src);
  });
  add_handle_rows<H>(r, "buffer_copy_to_host", "gpuopt_buffer_copy_to_host", "buffer", [](H h) {
    char dst[4] = {};
    return gpuopt_buffer_copy_to_host(h, nullptr, 0, dst, sizeof dst);
  });
  return r;
}

std::vector<Case> graph_rows() {
  using H = gpuopt_graph_t;
  std::vector<Case> r;
  r.push_back({"graph_destroy_ForeignHandle", "gpuopt_graph_destroy", "graph",
               GPUOPT_ERROR_INVALID_HANDLE,
               [](void* f) { return gpuopt_graph_destroy(static_cast<H>(f)); }});
  add_handle_rows<H>(r, "graph_launch", "gpuopt_graph_launch", "graph",
                     [](H h) { return gpuopt_graph_launch(h, nullptr); });
  return r;
}

// Entry points without a handle: NULL out-pointers and invalid device ordinals.
std::vector<Case> global_rows() {
  std::vector<Case> r;
  r.push_back({"device_count_NullCount", "gpuopt_device_count", "count",
               GPUOPT_ERROR_INVALID_ARGUMENT, [](void*) { return gpuopt_device_count(nullptr); }});
  r.push_back({"device_info_NullInfo", "gpuopt_device_info", "info", GPUOPT_ERROR_INVALID_ARGUMENT,
               [](void*) { return gpuopt_device_info(0, nullptr); }});
  r.push_back({"device_info_NegativeDevice", "gpuopt_device_info", "device",
               GPUOPT_ERROR_INVALID_ARGUMENT, [](void*) {
                 gpuopt_device_info_t info{};
                 info.struct_size = sizeof info;
                 return gpuopt_device_info(-1, &info);
               }});
  r.push_back({"context_create_NullCtx", "gpuopt_context_create", "ctx",
               GPUOPT_ERROR_INVALID_ARGUMENT,
               [](void*) { return gpuopt_context_create(0, nullptr); }});
  r.push_back({"context_create_NegativeDevice", "gpuopt_context_create", "device",
               GPUOPT_ERROR_INVALID_ARGUMENT, [](void*) {
                 gpuopt_context_t ctx = nullptr;
                 const gpuopt_status_t s = gpuopt_context_create(-1, &ctx);
                 gpuopt_context_destroy(ctx);
                 return s;
               }});
  return r;
}

std::vector<Case> all_rows() {
  std::vector<Case> all;
  for (auto make : {global_rows, context_rows, stream_rows, buffer_rows, graph_rows}) {
    std::vector<Case> part = make();
    all.insert(all.end(), part.begin(), part.end());
  }
  return all;
}

class Validation : public ::testing::TestWithParam<Case> {};

TEST_P(Validation, StatusAndMessage) {
  const Case& c = GetParam();
  // Foreign memory a garbage handle points at: it must be neither crashed on nor written.
  alignas(64) unsigned char foreign[512];
  std::memset(foreign, 0x5A, sizeof foreign);

  const gpuopt_status_t got = c.call(foreign);
  const std::string msg = unit::last_message();
  EXPECT_EQ(got, c.expected) << "got " << gpuopt_status_name(got) << ", expected "
                             << gpuopt_status_name(c.expected) << "; message: " << msg;
  EXPECT_NE(msg.find(c.fn), std::string::npos) << "message does not name " << c.fn << ": " << msg;
  EXPECT_TRUE(unit::has_word(msg, c.arg))
      << "message does not name the argument '" << c.arg << "': " << msg;
  for (size_t i = 0; i < sizeof foreign; ++i) {
    ASSERT_EQ(foreign[i], 0x5A) << "the call wrote into foreign memory at byte " << i;
  }
}

INSTANTIATE_TEST_SUITE_P(EntryPoints, Validation, ::testing::ValuesIn(all_rows()),
                         [](const ::testing::TestParamInfo<Case>& info) {
                           return info.param.label;
                         });

TEST(DestroyNull, IsSuccessForEveryHandleKind) {
  EXPECT_EQ(gpuopt_context_destroy(nullptr), GPUOPT_SUCCESS);
  EXPECT_EQ(gpuopt_stream_destroy(nullptr), GPUOPT_SUCCESS);
  EXPECT_EQ(gpuopt_buffer_destroy(nullptr), GPUOPT_SUCCESS);
  EXPECT_EQ(gpuopt_graph_destroy(nullptr), GPUOPT_SUCCESS);
}

TEST(FailedCreate, HandsOutNoGarbage) {
  gpuopt_stream_t s = reinterpret_cast<gpuopt_stream_t>(0x1);
  EXPECT_EQ(gpuopt_stream_create(nullptr, &s), GPUOPT_ERROR_INVALID_HANDLE);
  EXPECT_TRUE(s == nullptr || s == reinterpret_cast<gpuopt_stream_t>(0x1))
      << "a failed create hands out neither garbage nor a handle";
}

}  // namespace
