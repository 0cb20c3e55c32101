// The collectives on every GPU of this machine, one process: each against a host reference
// (exact: the data are small integers, exact in every dtype), in place and out of place, odd
// counts; enqueued from one thread in a group and from one thread per rank; captured in graphs;
// the checked mode (a bad or mismatched call fails on every rank, none hangs) and its cost; a
// rank that gives up, abort, and a rebuilt communicator; split; destroy in any order.
#include <cuda_runtime_api.h>

#include <chrono>
#include <cstdio>
#include <vector>

#include "world.hpp"

namespace {

using multi::World;

class Collectives : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string why = multi::why_not();
    if (!why.empty()) GTEST_SKIP() << why;
    int n = 0;
    gpuopt_device_count(&n);
    world_.create(n);
  }
  void TearDown() override {
    if (world_.size()) world_.destroy();
  }

  // Device memory of rank r holding `count` elements of dtype t from fill(i).
  void* upload(int r, gpuopt_dtype_t t, int64_t count, const std::function<double(int64_t)>& fill) {
    const size_t e = multi::dtype_bytes(t);
    std::vector<unsigned char> h(static_cast<size_t>(count) * e + 1);
    for (int64_t i = 0; i < count; ++i) multi::encode(t, fill(i), &h[static_cast<size_t>(i) * e]);
    cudaSetDevice(r);
    void* d = nullptr;
    EXPECT_EQ(cudaMalloc(&d, h.size()), cudaSuccess);
    cudaMemcpy(d, h.data(), h.size(), cudaMemcpyHostToDevice);
    allocs_.push_back({r, d});
    return d;
  }
  std::vector<double> download(int r, gpuopt_dtype_t t, const void* d, int64_t count) {
    const size_t e = multi::dtype_bytes(t);
    std::vector<unsigned char> h(static_cast<size_t>(count) * e + 1);
    cudaSetDevice(r);
    EXPECT_EQ(gpuopt_stream_synchronize(world_.ranks[r].stream), GPUOPT_SUCCESS)
        << multi::message();
    cudaMemcpy(h.data(), d, static_cast<size_t>(count) * e, cudaMemcpyDeviceToHost);
    std::vector<double> out(static_cast<size_t>(count));
    for (int64_t i = 0; i < count; ++i) out[i] = multi::decode(t, &h[static_cast<size_t>(i) * e]);
    return out;
  }
  void free_all() {
    for (auto& a : allocs_) {
      cudaSetDevice(a.first);
      cudaFree(a.second);
    }
    allocs_.clear();
  }
  ~Collectives() override { free_all(); }

  double reduce_ref(gpuopt_reduce_op_t op, int64_t i, int64_t offset = 0) const {
    double acc = multi::value(0, i + offset);
    for (int r = 1; r < world_.size(); ++r) {
      const double v = multi::value(r, i + offset);
      acc = op == GPUOPT_REDUCE_SUM   ? acc + v
            : op == GPUOPT_REDUCE_MIN ? std::min(acc, v)
                                      : std::max(acc, v);
    }
    return acc;
  }

  World world_;
  std::vector<std::pair<int, void*>> allocs_;
};

const gpuopt_dtype_t kTypes[] = {GPUOPT_DTYPE_F32, GPUOPT_DTYPE_F64, GPUOPT_DTYPE_BF16,
                                 GPUOPT_DTYPE_F16, GPUOPT_DTYPE_I32, GPUOPT_DTYPE_I64};
const gpuopt_reduce_op_t kOps[] = {GPUOPT_REDUCE_SUM, GPUOPT_REDUCE_MIN, GPUOPT_REDUCE_MAX};

TEST_F(Collectives, AllReduceEveryTypeAndOperatorInAGroup) {
  const int P = world_.size();
  for (gpuopt_dtype_t t : kTypes)
    for (gpuopt_reduce_op_t op : kOps)
      for (int64_t count : {int64_t{1}, int64_t{1001}, int64_t{65537}})
        for (bool in_place : {true, false}) {
          std::vector<void*> send(P), recv(P);
          for (int r = 0; r < P; ++r) {
            send[r] = upload(r, t, count, [&](int64_t i) { return multi::value(r, i); });
            recv[r] = in_place ? send[r] : upload(r, t, count, [](int64_t) { return 99.0; });
          }
          MG_OK(gpuopt_group_begin());
          for (int r = 0; r < P; ++r)
            MG_OK(gpuopt_allreduce(world_.ranks[r].comm, world_.ranks[r].stream, t, op, send[r],
                                   recv[r], count));
          MG_OK(gpuopt_group_end());
          for (int r = 0; r < P; ++r) {
            const std::vector<double> got = download(r, t, recv[r], count);
            int64_t bad = 0;
            for (int64_t i = 0; i < count; ++i) bad += got[i] != reduce_ref(op, i);
            EXPECT_EQ(bad, 0) << gpuopt_dtype_name(t) << " " << gpuopt_reduce_op_name(op)
                              << " count " << count << (in_place ? " in place" : "") << " rank "
                              << r;
          }
          free_all();
        }
}

TEST_F(Collectives, ReduceScatterAllGatherBroadcastFromThreadsPerRank) {
  const int P = world_.size();
  for (gpuopt_dtype_t t : {GPUOPT_DTYPE_F32, GPUOPT_DTYPE_I64, GPUOPT_DTYPE_BF16})
    for (int64_t count : {int64_t{1}, int64_t{333}})
      for (bool in_place : {true, false}) {
        const size_t e = multi::dtype_bytes(t);
        std::vector<void*> rs_send(P), rs_recv(P), ag_send(P), ag_recv(P), bc(P);
        for (int r = 0; r < P; ++r) {
          rs_send[r] = upload(r, t, count * P, [&](int64_t i) { return multi::value(r, i); });
          rs_recv[r] = in_place ? static_cast<char*>(rs_send[r]) + r * count * e
                                : upload(r, t, count, [](int64_t) { return 99.0; });
          ag_recv[r] = upload(r, t, count * P, [](int64_t) { return 99.0; });
          void* own = static_cast<char*>(ag_recv[r]) + r * count * e;
          if (in_place) {
            std::vector<unsigned char> h(static_cast<size_t>(count) * e);
            for (int64_t i = 0; i < count; ++i) multi::encode(t, multi::value(r, i), &h[i * e]);
            cudaSetDevice(r);
            cudaMemcpy(own, h.data(), h.size(), cudaMemcpyHostToDevice);
          }
          ag_send[r] =
              in_place ? own : upload(r, t, count, [&](int64_t i) { return multi::value(r, i); });
          bc[r] = upload(r, t, count, [&](int64_t i) { return multi::value(r, i); });
        }
        const int root = P - 1;
        ASSERT_TRUE(world_.each([&](int r) {
          const multi::Rank& k = world_.ranks[r];
          EXPECT_EQ(gpuopt_reduce_scatter(k.comm, k.stream, t, GPUOPT_REDUCE_SUM, rs_send[r],
                                          rs_recv[r], count),
                    GPUOPT_SUCCESS)
              << multi::message();
          EXPECT_EQ(gpuopt_allgather(k.comm, k.stream, t, ag_send[r], ag_recv[r], count),
                    GPUOPT_SUCCESS)
              << multi::message();
          EXPECT_EQ(gpuopt_broadcast(k.comm, k.stream, t,
                                     in_place ? bc[r] : (r == root ? bc[r] : nullptr), bc[r], count,
                                     root),
                    GPUOPT_SUCCESS)
              << multi::message();
          EXPECT_EQ(gpuopt_stream_synchronize(k.stream), GPUOPT_SUCCESS) << multi::message();
        }));
        for (int r = 0; r < P; ++r) {
          const std::vector<double> rs = download(r, t, rs_recv[r], count);
          const std::vector<double> ag = download(r, t, ag_recv[r], count * P);
          const std::vector<double> b = download(r, t, bc[r], count);
          int64_t bad = 0;
          for (int64_t i = 0; i < count; ++i) {
            bad += rs[i] != reduce_ref(GPUOPT_REDUCE_SUM, i, r * count);
            bad += b[i] != multi::value(root, i);
          }
          for (int q = 0; q < P; ++q)
            for (int64_t i = 0; i < count; ++i) bad += ag[q * count + i] != multi::value(q, i);
          EXPECT_EQ(bad, 0) << gpuopt_dtype_name(t) << " count " << count
                            << (in_place ? " in place" : "") << " rank " << r;
        }
        free_all();
      }
}

TEST_F(Collectives, AllReduceCapturedInAGraphReplays) {
  const int P = world_.size();
  const int64_t count = 4097;
  std::vector<void*> buf(P);
  for (int r = 0; r < P; ++r)
    buf[r] = upload(r, GPUOPT_DTYPE_F64, count, [&](int64_t i) { return multi::value(r, i); });
  // NCCL connects peers at a collective's first use, which a capture forbids: once outside it
  // (on a scratch buffer, so the data stay as they are).
  std::vector<void*> scratch(P);
  for (int r = 0; r < P; ++r)
    scratch[r] = upload(r, GPUOPT_DTYPE_F64, count, [](int64_t) { return 0.0; });
  ASSERT_TRUE(world_.each([&](int r) {
    const multi::Rank& k = world_.ranks[r];
    ASSERT_EQ(gpuopt_allreduce(k.comm, k.stream, GPUOPT_DTYPE_F64, GPUOPT_REDUCE_SUM, scratch[r],
                               scratch[r], count),
              GPUOPT_SUCCESS)
        << multi::message();
    ASSERT_EQ(gpuopt_stream_synchronize(k.stream), GPUOPT_SUCCESS) << multi::message();
  }));
  ASSERT_TRUE(world_.each([&](int r) {
    const multi::Rank& k = world_.ranks[r];
    gpuopt_graph_t g = nullptr;
    ASSERT_EQ(gpuopt_graph_begin(k.ctx, k.stream), GPUOPT_SUCCESS) << multi::message();
    ASSERT_EQ(gpuopt_allreduce(k.comm, k.stream, GPUOPT_DTYPE_F64, GPUOPT_REDUCE_SUM, buf[r],
                               buf[r], count),
              GPUOPT_SUCCESS)
        << multi::message();
    ASSERT_EQ(gpuopt_graph_end(k.stream, &g), GPUOPT_SUCCESS) << multi::message();
    for (int rep = 0; rep < 2; ++rep)
      EXPECT_EQ(gpuopt_graph_launch(g, k.stream), GPUOPT_SUCCESS) << multi::message();
    EXPECT_EQ(gpuopt_stream_synchronize(k.stream), GPUOPT_SUCCESS) << multi::message();
    EXPECT_EQ(gpuopt_graph_destroy(g), GPUOPT_SUCCESS);
  }));
  for (int r = 0; r < P; ++r) {
    const std::vector<double> got = download(r, GPUOPT_DTYPE_F64, buf[r], count);
    int64_t bad = 0;
    for (int64_t i = 0; i < count; ++i)  // two in-place sums: P * (sum over ranks)
      bad += got[i] != P * reduce_ref(GPUOPT_REDUCE_SUM, i);
    EXPECT_EQ(bad, 0) << "rank " << r;
  }
}

TEST_F(Collectives, CheckedModeFailsEveryRankInsteadOfHanging) {
  const int P = world_.size();
  const int64_t count = 100;
  std::vector<void*> buf(P);
  for (int r = 0; r < P; ++r)
    buf[r] = upload(r, GPUOPT_DTYPE_F32, count + 1, [&](int64_t i) { return multi::value(r, i); });
  for (int r = 0; r < P; ++r) MG_OK(gpuopt_comm_set_checked(world_.ranks[r].comm, 1));
  std::vector<gpuopt_status_t> st(P);
  std::vector<std::string> msg(P);
  // The last rank passes a bad count: every rank answers INVALID_ARGUMENT.
  ASSERT_TRUE(world_.each(
      [&](int r) {
        const multi::Rank& k = world_.ranks[r];
        st[r] = gpuopt_allreduce(k.comm, k.stream, GPUOPT_DTYPE_F32, GPUOPT_REDUCE_SUM, buf[r],
                                 buf[r], r == P - 1 ? -1 : count);
        msg[r] = multi::message();
      },
      std::chrono::seconds(60)))
      << "a rank hung: the checked mode did not tell it";
  for (int r = 0; r < P; ++r) {
    EXPECT_EQ(st[r], GPUOPT_ERROR_INVALID_ARGUMENT) << "rank " << r << ": " << msg[r];
    if (r == P - 1) {
      EXPECT_NE(msg[r].find("count"), std::string::npos) << msg[r];
    } else {
      EXPECT_NE(msg[r].find("another rank"), std::string::npos) << msg[r];
    }
  }
  // Valid but different counts: the fingerprints differ.
  ASSERT_TRUE(world_.each(
      [&](int r) {
        const multi::Rank& k = world_.ranks[r];
        st[r] = gpuopt_allreduce(k.comm, k.stream, GPUOPT_DTYPE_F32, GPUOPT_REDUCE_SUM, buf[r],
                                 buf[r], count + (r == 0));
        msg[r] = multi::message();
      },
      std::chrono::seconds(60)));
  for (int r = 0; r < P; ++r) {
    EXPECT_EQ(st[r], GPUOPT_ERROR_INVALID_ARGUMENT) << "rank " << r << ": " << msg[r];
    EXPECT_NE(msg[r].find("different arguments"), std::string::npos) << msg[r];
  }
  // The communicator is still usable.
  ASSERT_TRUE(world_.each([&](int r) {
    const multi::Rank& k = world_.ranks[r];
    EXPECT_EQ(gpuopt_allreduce(k.comm, k.stream, GPUOPT_DTYPE_F32, GPUOPT_REDUCE_SUM, buf[r],
                               buf[r], count),
              GPUOPT_SUCCESS)
        << multi::message();
    EXPECT_EQ(gpuopt_stream_synchronize(k.stream), GPUOPT_SUCCESS);
  }));
  for (int r = 0; r < P; ++r) {
    const std::vector<double> got = download(r, GPUOPT_DTYPE_F32, buf[r], count);
    EXPECT_EQ(got[7], reduce_ref(GPUOPT_REDUCE_SUM, 7));
  }
}

TEST_F(Collectives, CheckedModeCostIsMeasured) {
  const int P = world_.size();
  std::vector<void*> buf(P);
  for (int r = 0; r < P; ++r) buf[r] = upload(r, GPUOPT_DTYPE_F32, 2, [](int64_t) { return 1.0; });
  double us[2] = {0, 0};
  // First use connects the peers: not part of either figure.
  ASSERT_TRUE(world_.each([&](int r) {
    const multi::Rank& k = world_.ranks[r];
    ASSERT_EQ(
        gpuopt_allreduce(k.comm, k.stream, GPUOPT_DTYPE_F32, GPUOPT_REDUCE_MAX, buf[r], buf[r], 2),
        GPUOPT_SUCCESS)
        << multi::message();
    ASSERT_EQ(gpuopt_stream_synchronize(k.stream), GPUOPT_SUCCESS);
  }));
  for (int checked : {0, 1}) {
    for (int r = 0; r < P; ++r) MG_OK(gpuopt_comm_set_checked(world_.ranks[r].comm, checked));
    const int reps = 200;
    auto t0 = std::chrono::steady_clock::now();
    ASSERT_TRUE(world_.each([&](int r) {
      const multi::Rank& k = world_.ranks[r];
      for (int i = 0; i < reps; ++i) {
        ASSERT_EQ(gpuopt_allreduce(k.comm, k.stream, GPUOPT_DTYPE_F32, GPUOPT_REDUCE_MAX, buf[r],
                                   buf[r], 2),
                  GPUOPT_SUCCESS)
            << multi::message();
        if (!checked) {
          ASSERT_EQ(gpuopt_stream_synchronize(k.stream), GPUOPT_SUCCESS);
        }
      }
      ASSERT_EQ(gpuopt_stream_synchronize(k.stream), GPUOPT_SUCCESS);
    }));
    us[checked] =
        std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count() /
        reps;
  }
  std::printf(
      "[ COST ] 8-byte allreduce + stream sync, %d GPUs: %.1f us unchecked, %.1f us checked\n", P,
      us[0], us[1]);
  RecordProperty("unchecked_us", std::to_string(us[0]));
  RecordProperty("checked_us", std::to_string(us[1]));
}

TEST_F(Collectives, ARankThatGivesUpIsAbortedAndTheCommunicatorRebuilt) {
  const int P = world_.size();
  const int64_t count = 1 << 20;
  std::vector<void*> buf(P);
  for (int r = 0; r < P; ++r)
    buf[r] = upload(r, GPUOPT_DTYPE_F32, count, [&](int64_t i) { return multi::value(r, i); });
  // Unchecked: the last rank's bad call fails locally; it gives up and aborts. The others have
  // enqueued a valid all-reduce that can never finish; their error handler aborts too, which
  // must release their streams. A first good all-reduce of the same shape connects the ranks,
  // so that enqueueing the next from one thread never waits for a peer.
  MG_OK(gpuopt_group_begin());
  for (int r = 0; r < P; ++r)
    MG_OK(gpuopt_allreduce(world_.ranks[r].comm, world_.ranks[r].stream, GPUOPT_DTYPE_F32,
                           GPUOPT_REDUCE_SUM, buf[r], buf[r], count));
  MG_OK(gpuopt_group_end());
  for (int r = 0; r < P; ++r) MG_OK(gpuopt_stream_synchronize(world_.ranks[r].stream));
  std::vector<gpuopt_status_t> st(P);
  for (int r = 0; r < P; ++r) {
    const multi::Rank& k = world_.ranks[r];
    st[r] = gpuopt_allreduce(k.comm, k.stream, GPUOPT_DTYPE_F32, GPUOPT_REDUCE_SUM, buf[r], buf[r],
                             r == P - 1 ? count + (int64_t{1} << 40) : count);
  }
  EXPECT_EQ(st[P - 1], GPUOPT_ERROR_INVALID_ARGUMENT) << multi::message();
  for (int r = 0; r + 1 < P; ++r) EXPECT_EQ(st[r], GPUOPT_SUCCESS);
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  for (int r = P - 1; r >= 0; --r) {
    EXPECT_EQ(gpuopt_comm_abort(world_.ranks[r].comm), GPUOPT_SUCCESS) << multi::message();
    world_.ranks[r].comm = nullptr;
  }
  auto synced = std::async(std::launch::async, [&] {
    for (int r = 0; r < P; ++r) gpuopt_stream_synchronize(world_.ranks[r].stream);
  });
  ASSERT_EQ(synced.wait_for(std::chrono::seconds(60)), std::future_status::ready)
      << "a stream stayed stuck after its communicator was aborted";
  // Rebuilt, the ranks work again.
  std::vector<gpuopt_context_t> ctxs;
  for (auto& k : world_.ranks) ctxs.push_back(k.ctx);
  std::vector<gpuopt_comm_t> comms(P);
  MG_OK(gpuopt_comm_create_local(ctxs.data(), P, comms.data()));
  for (int r = 0; r < P; ++r) world_.ranks[r].comm = comms[r];
  for (int r = 0; r < P; ++r)
    buf[r] = upload(r, GPUOPT_DTYPE_F32, 3, [&](int64_t i) { return multi::value(r, i); });
  MG_OK(gpuopt_group_begin());
  for (int r = 0; r < P; ++r)
    MG_OK(gpuopt_allreduce(world_.ranks[r].comm, world_.ranks[r].stream, GPUOPT_DTYPE_F32,
                           GPUOPT_REDUCE_SUM, buf[r], buf[r], 3));
  MG_OK(gpuopt_group_end());
  for (int r = 0; r < P; ++r)
    EXPECT_EQ(download(r, GPUOPT_DTYPE_F32, buf[r], 3)[2], reduce_ref(GPUOPT_REDUCE_SUM, 2));
}

TEST_F(Collectives, SplitMakesRowCommunicatorsAndDestroyOrderIsFree) {
  const int P = world_.size();
  std::vector<gpuopt_comm_t> sub(P, nullptr);
  ASSERT_TRUE(world_.each([&](int r) {
    // Even ranks pair up by parity; the last rank of an odd count joins none when P is odd.
    const int color = (P % 2 && r == P - 1) ? GPUOPT_COMM_SPLIT_NONE : r % 2;
    EXPECT_EQ(gpuopt_comm_split(world_.ranks[r].comm, color, -r, &sub[r]), GPUOPT_SUCCESS)
        << multi::message();
  }));
  for (int r = 0; r < P; ++r) {
    if (P % 2 && r == P - 1) {
      EXPECT_EQ(sub[r], nullptr);
      continue;
    }
    ASSERT_NE(sub[r], nullptr);
    int size = 0, rank = -1, dev = -1;
    MG_OK(gpuopt_comm_size(sub[r], &size));
    MG_OK(gpuopt_comm_rank(sub[r], &rank));
    MG_OK(gpuopt_comm_device(sub[r], &dev));
    EXPECT_EQ(dev, r);
    int same = 0, before = 0;  // ranked by key -r: higher r first
    for (int q = 0; q < P - (P % 2); ++q)
      if (q % 2 == r % 2) {
        ++same;
        before += q > r;
      }
    EXPECT_EQ(size, same);
    EXPECT_EQ(rank, before);
  }
  // Sub-communicators first in reverse, then the world in reverse.
  for (int r = P - 1; r >= 0; --r) EXPECT_EQ(gpuopt_comm_destroy(sub[r]), GPUOPT_SUCCESS);
  world_.destroy(true);
}

}  // namespace
