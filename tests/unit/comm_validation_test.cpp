// The collectives' argument checks, host-only: a device-less context and stream and a
// communicator over a fake NCCL (fake_nccl.hpp). Every bad argument answers its status and a
// message naming it with nothing enqueued; good calls enqueue exactly one NCCL call. Also the
// rendezvous id's hex form, and the communicator calls' handle checks.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "deviceless_fixture.hpp"
#include "fake_nccl.hpp"
#include "gpuopt.h"
#include "runtime/deviceless.hpp"
#include "test_support.hpp"

namespace {

class CommValidation : public unit::DevicelessContext {
 protected:
  void SetUp() override {
    DevicelessContext::SetUp();
    if (HasFatalFailure()) return;
    unit::FakeNccl::rank() = 1;
    unit::FakeNccl::size() = 4;
    unit::FakeNccl::calls().clear();
    api_ = unit::FakeNccl::api();
    ASSERT_EQ(gpuopt::comm_open("test", *ctx_, api_, nullptr, &comm_), GPUOPT_SUCCESS);
    ASSERT_EQ(gpuopt_buffer_create(ctx_, 1 << 20, GPUOPT_MEMORY_DEVICE, &buf_), GPUOPT_SUCCESS);
    ASSERT_EQ(gpuopt_buffer_device_pointer(buf_, &p_), GPUOPT_SUCCESS);
  }
  void TearDown() override {
    EXPECT_EQ(gpuopt_buffer_destroy(buf_), GPUOPT_SUCCESS);
    EXPECT_EQ(gpuopt_comm_destroy(comm_), GPUOPT_SUCCESS) << unit::last_message();
    DevicelessContext::TearDown();
  }
  char* at(std::size_t bytes) { return static_cast<char*>(p_) + bytes; }
  // The call answered `want`, its message names `word`, and nothing was enqueued.
  void expect_refused(gpuopt_status_t got, gpuopt_status_t want, const char* word) {
    EXPECT_EQ(got, want) << unit::last_message();
    EXPECT_TRUE(unit::has_word(unit::last_message(), word)) << unit::last_message();
    EXPECT_TRUE(unit::FakeNccl::calls().empty());
    unit::FakeNccl::calls().clear();
  }
  void expect_enqueued(gpuopt_status_t got, const char* call) {
    EXPECT_EQ(got, GPUOPT_SUCCESS) << unit::last_message();
    ASSERT_EQ(unit::FakeNccl::calls().size(), 1u);
    EXPECT_EQ(unit::FakeNccl::calls()[0], call);
    unit::FakeNccl::calls().clear();
  }

  gpuopt::NcclApi api_;
  gpuopt_comm_t comm_ = nullptr;
  gpuopt_buffer_t buf_ = nullptr;
  void* p_ = nullptr;
};

TEST_F(CommValidation, QueriesAnswerRankSizeAndDevice) {
  int r = -1, s = -1, d = -1;
  EXPECT_EQ(gpuopt_comm_rank(comm_, &r), GPUOPT_SUCCESS);
  EXPECT_EQ(gpuopt_comm_size(comm_, &s), GPUOPT_SUCCESS);
  EXPECT_EQ(gpuopt_comm_device(comm_, &d), GPUOPT_SUCCESS);
  EXPECT_EQ(r, 1);
  EXPECT_EQ(s, 4);
  EXPECT_EQ(d, 0);
  expect_refused(gpuopt_comm_rank(comm_, nullptr), GPUOPT_ERROR_INVALID_ARGUMENT, "rank");
  expect_refused(gpuopt_comm_size(nullptr, &s), GPUOPT_ERROR_INVALID_HANDLE, "comm");
  expect_refused(gpuopt_comm_device(reinterpret_cast<gpuopt_comm_t>(stream_), &d),
                 GPUOPT_ERROR_INVALID_HANDLE, "comm");
  expect_refused(gpuopt_comm_set_checked(comm_, 2), GPUOPT_ERROR_INVALID_ARGUMENT, "checked");
}

TEST_F(CommValidation, ContextWithLiveCommunicatorIsNotDestroyed) {
  EXPECT_EQ(gpuopt_context_destroy(ctx_), GPUOPT_ERROR_INVALID_ARGUMENT);
}

TEST_F(CommValidation, AllReduceChecksEveryArgumentBeforeEnqueueing) {
  const int64_t n = 1000;
  expect_refused(gpuopt_allreduce(nullptr, stream_, GPUOPT_DTYPE_F32, GPUOPT_REDUCE_SUM, p_, p_, n),
                 GPUOPT_ERROR_INVALID_HANDLE, "comm");
  expect_refused(gpuopt_allreduce(comm_, nullptr, GPUOPT_DTYPE_F32, GPUOPT_REDUCE_SUM, p_, p_, n),
                 GPUOPT_ERROR_INVALID_HANDLE, "stream");
  expect_refused(gpuopt_allreduce(comm_, stream_, static_cast<gpuopt_dtype_t>(99),
                                  GPUOPT_REDUCE_SUM, p_, p_, n),
                 GPUOPT_ERROR_INVALID_ARGUMENT, "dtype");
  expect_refused(
      gpuopt_allreduce(comm_, stream_, GPUOPT_DTYPE_F32, GPUOPT_REDUCE_ARGMAX, p_, p_, n),
      GPUOPT_ERROR_UNSUPPORTED, "op");
  expect_refused(gpuopt_allreduce(comm_, stream_, GPUOPT_DTYPE_F32,
                                  static_cast<gpuopt_reduce_op_t>(42), p_, p_, n),
                 GPUOPT_ERROR_INVALID_ARGUMENT, "op");
  expect_refused(gpuopt_allreduce(comm_, stream_, GPUOPT_DTYPE_F32, GPUOPT_REDUCE_SUM, p_, p_, -1),
                 GPUOPT_ERROR_INVALID_ARGUMENT, "count");
  expect_refused(
      gpuopt_allreduce(comm_, stream_, GPUOPT_DTYPE_F32, GPUOPT_REDUCE_SUM, nullptr, p_, n),
      GPUOPT_ERROR_INVALID_ARGUMENT, "send");
  expect_refused(
      gpuopt_allreduce(comm_, stream_, GPUOPT_DTYPE_F64, GPUOPT_REDUCE_SUM, at(4), at(8192), n),
      GPUOPT_ERROR_MISALIGNED, "send");
  expect_refused(
      gpuopt_allreduce(comm_, stream_, GPUOPT_DTYPE_F32, GPUOPT_REDUCE_SUM, p_, at(1 << 20), n),
      GPUOPT_ERROR_INVALID_ARGUMENT, "recv");
  expect_refused(
      gpuopt_allreduce(comm_, stream_, GPUOPT_DTYPE_F32, GPUOPT_REDUCE_SUM, p_, at(400), n),
      GPUOPT_ERROR_INVALID_ARGUMENT, "recv");  // partial overlap
  int host[4];
  expect_refused(
      gpuopt_allreduce(comm_, stream_, GPUOPT_DTYPE_I32, GPUOPT_REDUCE_SUM, host, host, 4),
      GPUOPT_ERROR_INVALID_ARGUMENT, "send");
  expect_enqueued(gpuopt_allreduce(comm_, stream_, GPUOPT_DTYPE_F32, GPUOPT_REDUCE_SUM, p_, p_, n),
                  "allreduce");  // in place
  expect_enqueued(
      gpuopt_allreduce(comm_, stream_, GPUOPT_DTYPE_BF16, GPUOPT_REDUCE_MAX, p_, at(4096), n),
      "allreduce");
  EXPECT_EQ(
      gpuopt_allreduce(comm_, stream_, GPUOPT_DTYPE_F32, GPUOPT_REDUCE_SUM, nullptr, nullptr, 0),
      GPUOPT_SUCCESS);
  EXPECT_TRUE(unit::FakeNccl::calls().empty());  // count 0: nothing to move
}

TEST_F(CommValidation, ReduceScatterAndAllGatherSizeByRanks) {
  // 4 ranks, this is rank 1: send holds 4 blocks of 100 floats.
  expect_refused(gpuopt_reduce_scatter(comm_, stream_, GPUOPT_DTYPE_F32, GPUOPT_REDUCE_SUM,
                                       at((1 << 20) - 1000), p_, 100),
                 GPUOPT_ERROR_INVALID_ARGUMENT, "send");
  expect_refused(
      gpuopt_reduce_scatter(comm_, stream_, GPUOPT_DTYPE_F32, GPUOPT_REDUCE_SUM, p_, at(800), 100),
      GPUOPT_ERROR_INVALID_ARGUMENT, "recv");  // overlaps, not rank 1's block
  expect_enqueued(
      gpuopt_reduce_scatter(comm_, stream_, GPUOPT_DTYPE_F32, GPUOPT_REDUCE_SUM, p_, at(400), 100),
      "reduce_scatter");  // in place: recv is block 1 of send
  expect_enqueued(
      gpuopt_reduce_scatter(comm_, stream_, GPUOPT_DTYPE_I64, GPUOPT_REDUCE_MIN, p_, at(8192), 100),
      "reduce_scatter");
  expect_refused(gpuopt_allgather(comm_, stream_, GPUOPT_DTYPE_F64, p_, at(8), 100),
                 GPUOPT_ERROR_INVALID_ARGUMENT, "send");  // overlaps, not block 1
  expect_enqueued(gpuopt_allgather(comm_, stream_, GPUOPT_DTYPE_F64, at(800), p_, 100),
                  "allgather");  // in place
  expect_refused(gpuopt_allgather(comm_, stream_, GPUOPT_DTYPE_F64, p_, at(8192), -5),
                 GPUOPT_ERROR_INVALID_ARGUMENT, "send_count");
  expect_refused(gpuopt_reduce_scatter(comm_, stream_, GPUOPT_DTYPE_F64, GPUOPT_REDUCE_SUM, p_,
                                       at(8192), INT64_MAX / 8),
                 GPUOPT_ERROR_INVALID_ARGUMENT, "recv_count");
}

TEST_F(CommValidation, BroadcastChecksRootAndReadsSendOnTheRootOnly) {
  expect_refused(gpuopt_broadcast(comm_, stream_, GPUOPT_DTYPE_I32, p_, p_, 10, 4),
                 GPUOPT_ERROR_INVALID_ARGUMENT, "root");
  expect_refused(gpuopt_broadcast(comm_, stream_, GPUOPT_DTYPE_I32, p_, p_, 10, -1),
                 GPUOPT_ERROR_INVALID_ARGUMENT, "root");
  // This rank (1) is the root: send must be valid.
  expect_refused(gpuopt_broadcast(comm_, stream_, GPUOPT_DTYPE_I32, nullptr, p_, 10, 1),
                 GPUOPT_ERROR_INVALID_ARGUMENT, "send");
  // Not the root: send is ignored.
  expect_enqueued(gpuopt_broadcast(comm_, stream_, GPUOPT_DTYPE_I32, nullptr, p_, 10, 0),
                  "broadcast");
  expect_enqueued(gpuopt_broadcast(comm_, stream_, GPUOPT_DTYPE_I32, p_, p_, 10, 1), "broadcast");
}

TEST_F(CommValidation, StreamOfAnotherContextIsRefused) {
  gpuopt_context_t other = nullptr;
  gpuopt_stream_t s = nullptr;
  ASSERT_EQ(gpuopt_context_create(1, &other), GPUOPT_SUCCESS);
  ASSERT_EQ(gpuopt_stream_create(other, &s), GPUOPT_SUCCESS);
  expect_refused(gpuopt_allreduce(comm_, s, GPUOPT_DTYPE_F32, GPUOPT_REDUCE_SUM, p_, p_, 1),
                 GPUOPT_ERROR_INVALID_ARGUMENT, "stream");
  EXPECT_EQ(gpuopt_stream_destroy(s), GPUOPT_SUCCESS);
  EXPECT_EQ(gpuopt_context_destroy(other), GPUOPT_SUCCESS);
}

TEST_F(CommValidation, GroupEndWithoutBeginIsRefused) {
  EXPECT_EQ(gpuopt_group_end(), GPUOPT_ERROR_INVALID_ARGUMENT);
  EXPECT_TRUE(unit::has_word(unit::last_message(), "gpuopt_group_begin")) << unit::last_message();
}

TEST_F(CommValidation, ReduceDistRefusesArgOpsAndBadDescriptors) {
  gpuopt_reduce_desc_t d{};
  d.struct_size = sizeof d;
  d.op = GPUOPT_REDUCE_ARGMIN;
  d.in_type = GPUOPT_DTYPE_F32;
  d.n = 10;
  expect_refused(gpuopt_reduce_dist(comm_, stream_, &d, p_, at(4096)), GPUOPT_ERROR_UNSUPPORTED,
                 "op");
  expect_refused(gpuopt_reduce_dist(comm_, stream_, nullptr, p_, at(4096)),
                 GPUOPT_ERROR_INVALID_ARGUMENT, "desc");
  d.op = GPUOPT_REDUCE_SUM;
  expect_refused(gpuopt_reduce_dist(comm_, stream_, &d, nullptr, at(4096)),
                 GPUOPT_ERROR_INVALID_ARGUMENT, "in");
}

TEST(CommId, HexRoundTripsAndRejectsBadText) {
  gpuopt_comm_id_t id{}, back{};
  for (int i = 0; i < GPUOPT_COMM_ID_BYTES; ++i) id.bytes[i] = static_cast<unsigned char>(i * 37);
  char hex[GPUOPT_COMM_ID_HEX_SIZE];
  ASSERT_EQ(gpuopt_comm_id_to_hex(&id, hex, sizeof hex), GPUOPT_SUCCESS);
  EXPECT_EQ(std::string(hex).size(), 256u);
  ASSERT_EQ(gpuopt_comm_id_from_hex(hex, &back), GPUOPT_SUCCESS);
  EXPECT_EQ(std::string(reinterpret_cast<char*>(id.bytes), GPUOPT_COMM_ID_BYTES),
            std::string(reinterpret_cast<char*>(back.bytes), GPUOPT_COMM_ID_BYTES));
  EXPECT_EQ(gpuopt_comm_id_to_hex(&id, hex, 100), GPUOPT_ERROR_INVALID_ARGUMENT);
  EXPECT_TRUE(unit::has_word(unit::last_message(), "size")) << unit::last_message();
  EXPECT_EQ(gpuopt_comm_id_from_hex("abc", &back), GPUOPT_ERROR_INVALID_ARGUMENT);
  hex[17] = 'g';
  EXPECT_EQ(gpuopt_comm_id_from_hex(hex, &back), GPUOPT_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(gpuopt_comm_id_from_hex(nullptr, &back), GPUOPT_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(gpuopt_comm_id_create(nullptr), GPUOPT_ERROR_INVALID_ARGUMENT);
}

TEST(CommCreate, ArgumentsAreCheckedBeforeNcclIsNeeded) {
  gpuopt_comm_t c = nullptr;
  gpuopt_comm_id_t id{};
  EXPECT_EQ(gpuopt_comm_create(nullptr, &id, 2, 0, &c), GPUOPT_ERROR_INVALID_HANDLE);
  EXPECT_EQ(gpuopt_comm_create(nullptr, &id, 2, 0, nullptr), GPUOPT_ERROR_INVALID_ARGUMENT);
  gpuopt_context_t ctxs[2] = {nullptr, nullptr};
  gpuopt_comm_t comms[2];
  EXPECT_EQ(gpuopt_comm_create_local(ctxs, 0, comms), GPUOPT_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(gpuopt_comm_create_local(ctxs, 2, comms), GPUOPT_ERROR_INVALID_HANDLE);
  EXPECT_TRUE(unit::has_word(unit::last_message(), "ctxs")) << unit::last_message();
  EXPECT_EQ(gpuopt_comm_split(nullptr, 0, 0, &c), GPUOPT_ERROR_INVALID_HANDLE);
  EXPECT_EQ(gpuopt_comm_destroy(nullptr), GPUOPT_SUCCESS);
  EXPECT_EQ(gpuopt_comm_abort(nullptr), GPUOPT_SUCCESS);
  EXPECT_EQ(gpuopt_comm_status(nullptr), GPUOPT_ERROR_INVALID_HANDLE);
  EXPECT_EQ(gpuopt_grid_destroy(nullptr), GPUOPT_SUCCESS);
  EXPECT_EQ(gpuopt_grid_create(nullptr, 1, 1, nullptr), GPUOPT_ERROR_INVALID_ARGUMENT);
  gpuopt_grid_t g = nullptr;
  EXPECT_EQ(gpuopt_grid_create(nullptr, 1, 1, &g), GPUOPT_ERROR_INVALID_HANDLE);
  EXPECT_EQ(gpuopt_grid_info(nullptr, nullptr, nullptr, nullptr, nullptr),
            GPUOPT_ERROR_INVALID_HANDLE);
  size_t bytes = 0;
  EXPECT_EQ(gpuopt_gemm_dist_workspace_size(nullptr, nullptr, &bytes), GPUOPT_ERROR_INVALID_HANDLE);
  EXPECT_EQ(gpuopt_gemm_dist(nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, 0),
            GPUOPT_ERROR_INVALID_HANDLE);
  EXPECT_EQ(gpuopt_dist_scatter(nullptr, nullptr, nullptr, 0, nullptr, 0, nullptr),
            GPUOPT_ERROR_INVALID_HANDLE);
  EXPECT_EQ(gpuopt_dist_gather(nullptr, nullptr, nullptr, 0, nullptr, nullptr, 0),
            GPUOPT_ERROR_INVALID_HANDLE);
}

// Run by the ctest unit.nccl_missing with GPUOPT_NCCL_LIBRARY naming no file: every call that
// needs NCCL answers UNSUPPORTED and says how to get it.
TEST(NcclMissing, EveryCallThatNeedsNcclSaysHowToGetIt) {
  const char* lib = std::getenv("GPUOPT_NCCL_LIBRARY");
  if (!lib || std::string(lib).find("/nonexistent/") == std::string::npos)
    GTEST_SKIP() << "runs only as unit.nccl_missing (GPUOPT_NCCL_LIBRARY=/nonexistent/...)";
  int v = -1;
  EXPECT_EQ(gpuopt_comm_nccl_version(&v), GPUOPT_ERROR_UNSUPPORTED);
  EXPECT_EQ(v, 0);
  const std::string m = unit::last_message();
  EXPECT_NE(m.find("GPUOPT_NCCL_LIBRARY"), std::string::npos) << m;
  EXPECT_NE(m.find("docs/multi-gpu.md"), std::string::npos) << m;
  gpuopt_comm_id_t id{};
  EXPECT_EQ(gpuopt_comm_id_create(&id), GPUOPT_ERROR_UNSUPPORTED);
  EXPECT_EQ(gpuopt_group_begin(), GPUOPT_ERROR_UNSUPPORTED);
}

}  // namespace
