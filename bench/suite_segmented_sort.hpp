// The segmented-sort rows (gpuopt_segmented_sort), i32 keys only, ascending, random keys:
// - fixed: 4M segments of 128 keys (2 GiB; 256K segments with --quick): every variant, cub, auto;
// - offsets: 1M segments of random sizes 1..1024 (about 2 GiB; 64K with --quick): the same.
// GB/s counts the keys read and written (2 x 4 bytes a key). The vendor is cub
// (cub::DeviceSegmentedSort::StableSortKeys; 1 warm-up and 3 timed calls, it is slow). A row
// forces its variant, checks 64 segments spread over the array against the host, then times it.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "env.hpp"
#include "results.hpp"
#include "suite_axpy.hpp"  // VariantSpec, list_variants

namespace bench {

struct SortGroup {
  std::string shape;  // "fixed 4194304 x 128", "offsets 1048576 x rand(1..1024)"
  std::int64_t segments = 0;
  std::int64_t segment_size = 0;  // fixed layout; 0: random sizes 1..max_size by offsets
  std::int64_t max_size = 0;
  std::vector<VariantSpec> variants;  // table order (the vendor included), "auto" last
};

std::vector<SortGroup> plan_segmented_sort(const Options& opt,
                                           const std::vector<VariantSpec>& table);
int segmented_sort_row_count(const std::vector<SortGroup>& groups);
void run_segmented_sort_group(BenchEnv& env, const SortGroup& g, std::vector<Row>* rows);

// The bars: fixed 4M x 128 >= 4000 GB/s (read + write; issue 19 asks it on the H200, and the
// bench has one target for every device); offsets >= 5 x cub.
void compute_segmented_sort_bars(Results& r, const std::vector<SortGroup>& groups);

}  // namespace bench
