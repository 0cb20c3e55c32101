// Graphs: capture, replay, illegal calls during capture, in-place and rebuilt updates, and
// begin/end misuse. Data is dyadic so that repeated axpy is exact in f32.
#include <gtest/gtest.h>

#include <memory>

#include "axpy_harness.hpp"
#include "gpu_fixture.hpp"

namespace {

using gput::AxpyHarness;
using gput::AxpyLayout;
using gput::Fill;

class Graphs : public gput::GpuTest {
 protected:
  std::unique_ptr<AxpyHarness<float>> harness(std::int64_t n = 100003) {
    AxpyLayout l;
    l.n = n;
    return std::unique_ptr<AxpyHarness<float>>(
        new AxpyHarness<float>(l, rng_.dyadic_alpha(), rng_, Fill::dyadic));
  }

  // Captures `count` axpy calls of h on stream_ and returns the graph (empty on failure).
  gput::Graph capture(const AxpyHarness<float>& h, int count) {
    EXPECT_GPUOPT_OK(gpuopt_graph_begin(ctx_, stream_));
    for (int i = 0; i < count; ++i) {
      EXPECT_GPUOPT_OK(h.run(ctx_, stream_));
    }
    gpuopt_graph_t g = nullptr;
    EXPECT_GPUOPT_OK(gpuopt_graph_end(stream_, &g));
    return gput::Graph(g);
  }

  void launch(gpuopt_graph_t g, int times) {
    for (int i = 0; i < times; ++i) {
      ASSERT_GPUOPT_OK(gpuopt_graph_launch(g, stream_));
    }
    sync();
  }
};

TEST_F(Graphs, ReplayThreeCallsFiveTimes) {
  auto h = harness();
  gput::Graph g = capture(*h, 3);
  ASSERT_TRUE(g);
  sync();
  EXPECT_TRUE(h->check_unchanged()) << "capturing ran the calls";
  launch(g.get(), 5);
  EXPECT_TRUE(h->check_result(15));
}

TEST_F(Graphs, GraphOnAnotherStreamOfTheContext) {
  auto h = harness(4099);
  gput::Graph g = capture(*h, 2);
  ASSERT_TRUE(g);
  gput::Stream other = gput::make_stream(ctx_);
  ASSERT_TRUE(other);
  ASSERT_GPUOPT_OK(gpuopt_graph_launch(g.get(), other.get()));
  ASSERT_GPUOPT_OK(gpuopt_stream_synchronize(other.get()));
  EXPECT_TRUE(h->check_result(2));
}

TEST_F(Graphs, IllegalCallsDuringCaptureKeepTheCapture) {
  auto h = harness();
  gput::Buffer existing = gput::make_buffer(ctx_, 4096, GPUOPT_MEMORY_DEVICE);
  ASSERT_TRUE(existing);

  ASSERT_GPUOPT_OK(gpuopt_graph_begin(ctx_, stream_));
  EXPECT_GPUOPT_OK(h->run(ctx_, stream_));
  gpuopt_buffer_t b = nullptr;
  EXPECT_STATUS(GPUOPT_ERROR_CAPTURE_ILLEGAL,
                gpuopt_buffer_create(ctx_, 4096, GPUOPT_MEMORY_DEVICE, &b));
  EXPECT_TRUE(gput::MessageNames("gpuopt_buffer_create"));
  EXPECT_EQ(b, nullptr);
  EXPECT_STATUS(GPUOPT_ERROR_CAPTURE_ILLEGAL, gpuopt_stream_synchronize(stream_));
  EXPECT_TRUE(gput::MessageNames("gpuopt_stream_synchronize"));
  EXPECT_STATUS(GPUOPT_ERROR_CAPTURE_ILLEGAL, gpuopt_buffer_destroy(existing.get()))
      << "freeing synchronizes the device";
  EXPECT_GPUOPT_OK(h->run(ctx_, stream_));
  gpuopt_graph_t raw = nullptr;
  ASSERT_GPUOPT_OK(gpuopt_graph_end(stream_, &raw)) << "the capture survived the refused calls";
  gput::Graph g(raw);

  launch(g.get(), 1);
  EXPECT_TRUE(h->check_result(2));
  // Legal again after the capture.
  gput::Buffer after = gput::make_buffer(ctx_, 4096, GPUOPT_MEMORY_DEVICE);
  EXPECT_TRUE(after);
}

TEST_F(Graphs, UpdateInPlaceWithNewAlpha) {
  auto h = harness();
  gput::Graph g = capture(*h, 1);
  ASSERT_TRUE(g);
  launch(g.get(), 1);
  ASSERT_TRUE(h->check_result(1));

  h->set_alpha(h->alpha() == 0.5 ? -1.25 : 0.5);
  h->upload();  // back to y0
  ASSERT_GPUOPT_OK(gpuopt_graph_begin(ctx_, stream_));
  EXPECT_GPUOPT_OK(h->run(ctx_, stream_));
  int in_place = -1;
  ASSERT_GPUOPT_OK(gpuopt_graph_end_update(stream_, g.get(), &in_place));
  EXPECT_EQ(in_place, 1) << "same topology, new alpha: an in-place update";
  launch(g.get(), 2);
  EXPECT_TRUE(h->check_result(2)) << "the update's alpha is used";
}

TEST_F(Graphs, UpdateInPlaceWithNewPointers) {
  auto first = harness();
  auto second = harness();
  gput::Graph g = capture(*first, 1);
  ASSERT_TRUE(g);
  launch(g.get(), 1);
  ASSERT_TRUE(first->check_result(1));

  ASSERT_GPUOPT_OK(gpuopt_graph_begin(ctx_, stream_));
  EXPECT_GPUOPT_OK(second->run(ctx_, stream_));
  int in_place = -1;
  ASSERT_GPUOPT_OK(gpuopt_graph_end_update(stream_, g.get(), &in_place));
  EXPECT_EQ(in_place, 1) << "same topology, new pointers: an in-place update";
  launch(g.get(), 3);
  EXPECT_TRUE(second->check_result(3)) << "the update's pointers are used";
  EXPECT_TRUE(first->check_result(1)) << "the old pointers are no longer written";
}

TEST_F(Graphs, UpdateWithNewTopologyRebuilds) {
  auto h = harness();
  gput::Graph g = capture(*h, 3);
  ASSERT_TRUE(g);

  ASSERT_GPUOPT_OK(gpuopt_graph_begin(ctx_, stream_));
  EXPECT_GPUOPT_OK(h->run(ctx_, stream_));
  int in_place = -1;
  ASSERT_GPUOPT_OK(gpuopt_graph_end_update(stream_, g.get(), &in_place));
  EXPECT_EQ(in_place, 0) << "one node instead of three cannot be updated in place";
  launch(g.get(), 4);
  EXPECT_TRUE(h->check_result(4));

  // A NULL in_place is allowed.
  ASSERT_GPUOPT_OK(gpuopt_graph_begin(ctx_, stream_));
  EXPECT_GPUOPT_OK(h->run(ctx_, stream_));
  EXPECT_GPUOPT_OK(h->run(ctx_, stream_));
  ASSERT_GPUOPT_OK(gpuopt_graph_end_update(stream_, g.get(), nullptr));
  launch(g.get(), 1);
  EXPECT_TRUE(h->check_result(6));
}

TEST_F(Graphs, BeginTwiceOnOneStreamIsRefused) {
  auto h = harness(4099);
  ASSERT_GPUOPT_OK(gpuopt_graph_begin(ctx_, stream_));
  EXPECT_GPUOPT_OK(h->run(ctx_, stream_));
  const gpuopt_status_t st = gpuopt_graph_begin(ctx_, stream_);
  EXPECT_NE(st, GPUOPT_SUCCESS);
  EXPECT_TRUE(gput::MessageNames("gpuopt_graph_begin", "stream"));
  gpuopt_graph_t raw = nullptr;
  ASSERT_GPUOPT_OK(gpuopt_graph_end(stream_, &raw)) << "the first capture is still open";
  gput::Graph g(raw);
  launch(g.get(), 1);
  EXPECT_TRUE(h->check_result(1));
}

TEST_F(Graphs, EndWithoutBeginIsInvalid) {
  gpuopt_graph_t g = nullptr;
  EXPECT_STATUS(GPUOPT_ERROR_INVALID_ARGUMENT, gpuopt_graph_end(stream_, &g));
  EXPECT_TRUE(gput::MessageNames("gpuopt_graph_end", "stream"));
  EXPECT_EQ(g, nullptr);

  auto h = harness(4099);
  gput::Graph graph = capture(*h, 1);
  ASSERT_TRUE(graph);
  int in_place = -1;
  EXPECT_STATUS(GPUOPT_ERROR_INVALID_ARGUMENT,
                gpuopt_graph_end_update(stream_, graph.get(), &in_place));
  EXPECT_TRUE(gput::MessageNames("gpuopt_graph_end_update", "stream"));
  gput::expect_axpy_still_works(ctx_, stream_, rng_);
}

TEST_F(Graphs, DestroyedGraphIsInvalid) {
  auto h = harness(4099);
  gput::Graph g = capture(*h, 1);
  ASSERT_TRUE(g);
  gpuopt_graph_t raw = g.release();
  ASSERT_GPUOPT_OK(gpuopt_graph_destroy(raw));
  EXPECT_STATUS(GPUOPT_ERROR_INVALID_HANDLE, gpuopt_graph_launch(raw, stream_));
  EXPECT_STATUS(GPUOPT_ERROR_INVALID_HANDLE, gpuopt_graph_destroy(raw)) << "double destroy";
}

}  // namespace
