// 2D block-cyclic index math and the distributed-matrix descriptor's checks, host-only: NUMROC
// against counting, locate against a brute-force walk of the blocks, for uneven last blocks,
// more processes than blocks, and 1 x P / P x 1 grids.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "dist/block_cyclic.hpp"
#include "gpuopt.h"
#include "test_support.hpp"

namespace {

gpuopt_dist_desc_t desc(int64_t rows, int64_t cols, int64_t mb, int64_t nb, int pr, int pc) {
  gpuopt_dist_desc_t d{};
  d.struct_size = sizeof d;
  d.dtype = GPUOPT_DTYPE_F64;
  d.rows = rows;
  d.cols = cols;
  d.row_block = mb;
  d.col_block = nb;
  d.grid_rows = pr;
  d.grid_cols = pc;
  d.ld = 1;
  return d;
}

TEST(BlockCyclic, LocalSizesCountTheBlocksEachProcessOwns) {
  for (int64_t n : {0, 1, 7, 64, 100, 1000, 1023}) {
    for (int64_t nb : {1, 3, 64, 128, 2000}) {
      for (int procs : {1, 2, 3, 4, 7}) {
        std::vector<int64_t> count(static_cast<size_t>(procs), 0);
        for (int64_t i = 0; i < n; ++i) ++count[static_cast<size_t>(i / nb % procs)];
        int64_t total = 0;
        for (int p = 0; p < procs; ++p) {
          EXPECT_EQ(gpuopt::block_cyclic_local(n, nb, p, procs), count[static_cast<size_t>(p)])
              << "n=" << n << " nb=" << nb << " p=" << p << "/" << procs;
          total += gpuopt::block_cyclic_local(n, nb, p, procs);
        }
        EXPECT_EQ(total, n);
      }
    }
  }
}

TEST(BlockCyclic, LocateMatchesTheOrderOfEachOwnersBlocks) {
  for (int64_t n : {1, 10, 129, 1000}) {
    for (int64_t nb : {1, 4, 64}) {
      for (int procs : {1, 2, 3, 4}) {
        std::vector<int64_t> next(static_cast<size_t>(procs), 0);
        for (int64_t i = 0; i < n; ++i) {
          const int owner = static_cast<int>(i / nb % procs);
          const gpuopt::BlockCyclicIndex at = gpuopt::block_cyclic_locate(i, nb, procs);
          EXPECT_EQ(at.owner, owner);
          EXPECT_EQ(at.local, next[static_cast<size_t>(owner)]++);
        }
      }
    }
  }
}

TEST(DistDesc, PublicQueriesAgreeWithTheMath) {
  const gpuopt_dist_desc_t d = desc(1000, 777, 64, 100, 2, 3);
  int64_t lr = -1, lc = -1;
  ASSERT_EQ(gpuopt_dist_local_shape(&d, 1, 2, &lr, &lc), GPUOPT_SUCCESS) << unit::last_message();
  EXPECT_EQ(lr, gpuopt::block_cyclic_local(1000, 64, 1, 2));
  EXPECT_EQ(lc, gpuopt::block_cyclic_local(777, 100, 2, 3));
  int r = -1, c = -1;
  int64_t li = -1, lj = -1;
  ASSERT_EQ(gpuopt_dist_locate(&d, 999, 776, &r, &c, &li, &lj), GPUOPT_SUCCESS);
  EXPECT_EQ(r, static_cast<int>(999 / 64 % 2));
  EXPECT_EQ(c, static_cast<int>(776 / 100 % 3));
  EXPECT_EQ(li, 999 / 64 / 2 * 64 + 999 % 64);
  EXPECT_EQ(lj, 776 / 100 / 3 * 100 + 776 % 100);
  EXPECT_EQ(gpuopt_dist_locate(&d, 0, 0, nullptr, nullptr, nullptr, nullptr), GPUOPT_SUCCESS);
}

TEST(DistDesc, OneDimensionalGridsAreSpecialCases) {
  // 1 x 4 grid with column blocks of ceil(n / 4): each rank holds one contiguous column block.
  const gpuopt_dist_desc_t cols = desc(10, 10, 10, 3, 1, 4);
  int64_t lr = 0, lc = 0;
  ASSERT_EQ(gpuopt_dist_local_shape(&cols, 0, 3, &lr, &lc), GPUOPT_SUCCESS);
  EXPECT_EQ(lr, 10);
  EXPECT_EQ(lc, 1);
  const gpuopt_dist_desc_t rows = desc(10, 10, 3, 10, 4, 1);
  ASSERT_EQ(gpuopt_dist_local_shape(&rows, 2, 0, &lr, &lc), GPUOPT_SUCCESS);
  EXPECT_EQ(lr, 3);
  EXPECT_EQ(lc, 10);
}

TEST(DistDesc, BadDescriptorsNameTheirField) {
  int64_t lr = 0, lc = 0;
  EXPECT_EQ(gpuopt_dist_local_shape(nullptr, 0, 0, &lr, &lc), GPUOPT_ERROR_INVALID_ARGUMENT);
  EXPECT_TRUE(unit::has_word(unit::last_message(), "desc")) << unit::last_message();
  gpuopt_dist_desc_t d = desc(10, 10, 2, 2, 2, 2);
  d.struct_size = 8;
  EXPECT_EQ(gpuopt_dist_local_shape(&d, 0, 0, &lr, &lc), GPUOPT_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(unit::last_message().find("struct_size"), std::string::npos);
  d = desc(10, 10, 0, 2, 2, 2);
  EXPECT_EQ(gpuopt_dist_local_shape(&d, 0, 0, &lr, &lc), GPUOPT_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(unit::last_message().find("row_block"), std::string::npos);
  d = desc(10, -1, 2, 2, 2, 2);
  EXPECT_EQ(gpuopt_dist_local_shape(&d, 0, 0, &lr, &lc), GPUOPT_ERROR_INVALID_ARGUMENT);
  d = desc(10, 10, 2, 2, 0, 2);
  EXPECT_EQ(gpuopt_dist_local_shape(&d, 0, 0, &lr, &lc), GPUOPT_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(unit::last_message().find("grid_rows"), std::string::npos);
  d = desc(10, 10, 2, 2, 2, 2);
  d.dtype = static_cast<gpuopt_dtype_t>(77);
  EXPECT_EQ(gpuopt_dist_local_shape(&d, 0, 0, &lr, &lc), GPUOPT_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(unit::last_message().find("dtype"), std::string::npos);
  d = desc(10, 10, 2, 2, 2, 2);
  EXPECT_EQ(gpuopt_dist_local_shape(&d, 2, 0, &lr, &lc), GPUOPT_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(gpuopt_dist_local_shape(&d, 0, 0, nullptr, &lc), GPUOPT_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(gpuopt_dist_locate(&d, 10, 0, nullptr, nullptr, nullptr, nullptr),
            GPUOPT_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(gpuopt_dist_locate(&d, 0, -1, nullptr, nullptr, nullptr, nullptr),
            GPUOPT_ERROR_INVALID_ARGUMENT);
  d.ld = 4;
  EXPECT_EQ(gpuopt::check_dist_ld("f", "desc", d, 0, 0), GPUOPT_ERROR_INVALID_ARGUMENT);
  d.ld = 6;
  EXPECT_EQ(gpuopt::check_dist_ld("f", "desc", d, 0, 0), GPUOPT_SUCCESS);
}

}  // namespace
