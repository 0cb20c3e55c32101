// The deferred finish of the host-tiled pipeline (src/host_tiled/deferred_finish.hpp), host only:
// the finish runs on a thread of its own, one at a time per owner, in the order handed; the
// buffer a finish reads is not written again before the owner's next wait(); destruction waits
// for the last finish; and the pipeline's failure rule (pieces written whole or not at all, the
// unmarked ones redone after the join) holds when a finish fails while its owner has gone on.
#include "deferred_finish.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <thread>
#include <vector>

namespace {

using gpuopt_host_tiled::DeferredFinish;

TEST(DeferredFinish, RunsOnAnotherThreadAndWaitReturnsAfterIt) {
  DeferredFinish f;
  std::thread::id ran_on;
  std::atomic<bool> done{false};
  f.hand([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    ran_on = std::this_thread::get_id();
    done = true;
  });
  f.wait();
  EXPECT_TRUE(done);
  EXPECT_FALSE(f.in_flight());
  EXPECT_NE(ran_on, std::this_thread::get_id());
}

TEST(DeferredFinish, OneInFlightHandWaitsForThePrevious) {
  DeferredFinish f;
  std::promise<void> release;
  std::shared_future<void> gate = release.get_future().share();
  std::atomic<int> order{0}, first{-1}, second{-1};
  f.hand([&] {
    gate.wait();
    first = order++;
  });
  EXPECT_TRUE(f.in_flight());
  std::atomic<bool> handed{false};
  std::thread t([&] {
    f.hand([&] { second = order++; });
    handed = true;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  EXPECT_FALSE(handed);  // the first finish still owns the buffers
  EXPECT_EQ(second, -1);
  release.set_value();
  t.join();
  f.wait();
  EXPECT_EQ(first, 0);
  EXPECT_EQ(second, 1);
}

TEST(DeferredFinish, DestructionWaitsForTheLastFinish) {
  std::atomic<bool> done{false};
  {
    DeferredFinish f;
    f.hand([&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(30));
      done = true;
    });
  }
  EXPECT_TRUE(done);
  DeferredFinish unused;  // never handed anything: no thread, nothing to join
}

// The pipeline's pattern, several owners at once (gangs): each tile is "copied out" into the
// owner's one staging buffer after wait(), then its finish reads the buffer while the owner
// already prepares the next tile. A finish must always see its own tile's data, and each piece of
// C is written exactly once.
TEST(DeferredFinish, StagingBufferIsNotReusedBeforeItsFinishIsDone) {
  constexpr int kOwners = 3, kTiles = 300, kWidth = 64;
  std::vector<std::atomic<int>> writes(kTiles);
  std::atomic<int> next{0}, torn{0};
  std::vector<int> C(static_cast<size_t>(kTiles) * kWidth, -1);
  auto owner = [&] {
    std::vector<int> staging(kWidth);  // declared before the finish: it must outlive its reader
    DeferredFinish finish;
    for (;;) {
      const int t = next.fetch_add(1);
      if (t >= kTiles) break;
      std::this_thread::yield();  // the next tile's "products"
      finish.wait();
      EXPECT_FALSE(finish.in_flight());
      for (int& x : staging) x = t;  // the copy out into the staging buffer
      finish.hand([&, t] {
        if ((t % 7) == 0) std::this_thread::sleep_for(std::chrono::microseconds(200));
        for (int i = 0; i < kWidth; ++i) {
          if (staging[static_cast<size_t>(i)] != t) ++torn;
          C[static_cast<size_t>(t) * kWidth + static_cast<size_t>(i)] =
              staging[static_cast<size_t>(i)];
        }
        ++writes[static_cast<size_t>(t)];
      });
    }
  };
  std::vector<std::thread> threads;
  for (int o = 0; o < kOwners; ++o) threads.emplace_back(owner);
  for (auto& t : threads) t.join();
  EXPECT_EQ(torn, 0);
  for (int t = 0; t < kTiles; ++t) {
    EXPECT_EQ(writes[static_cast<size_t>(t)], 1) << t;
    EXPECT_EQ(C[static_cast<size_t>(t) * kWidth], t);
  }
}

// A finish fails (its copy out did not arrive) while its owner has gone on to the next tile: the
// owner stops at its next look at the flag, the finishes in flight complete or fail whole, and
// after the join the pieces not marked are redone: every piece ends written exactly once.
TEST(DeferredFinish, FailedFinishLeavesItsPiecesToTheRedo) {
  constexpr int kTiles = 40, kFailAt = 9;
  std::vector<std::atomic<int>> writes(kTiles);
  std::vector<char> done(kTiles, 0);
  std::atomic<bool> failed{false};
  std::atomic<int> next{0};
  auto owner = [&] {
    DeferredFinish finish;
    while (!failed) {
      const int t = next.fetch_add(1);
      if (t >= kTiles) break;
      finish.hand([&, t] {
        if (t == kFailAt) {  // nothing written, nothing marked
          failed = true;
          return;
        }
        ++writes[static_cast<size_t>(t)];
        done[static_cast<size_t>(t)] = 1;
      });
    }
  };  // ~DeferredFinish: the last finish is done before the owner returns
  std::vector<std::thread> threads;
  for (int o = 0; o < 2; ++o) threads.emplace_back(owner);
  for (auto& t : threads) t.join();
  EXPECT_TRUE(failed);
  EXPECT_FALSE(done[kFailAt]);
  for (int t = 0; t < kTiles; ++t)  // the CPU redo after the join
    if (!done[static_cast<size_t>(t)]) ++writes[static_cast<size_t>(t)];
  for (int t = 0; t < kTiles; ++t) EXPECT_EQ(writes[static_cast<size_t>(t)], 1) << t;
}

}  // namespace
