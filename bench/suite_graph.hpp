// The graph rows: 1000 axpy calls of 4096 f32 elements issued one by one on a stream ("stream")
// against the same calls captured once into a gpuopt graph and replayed ("graph").
#pragma once
#include <vector>

#include "env.hpp"
#include "results.hpp"

namespace bench {

constexpr int kGraphCalls = 1000;
constexpr std::int64_t kGraphN = 4096;

// Number of rows run_graph_suite adds for these options (0 or 2).
int graph_row_count(const Options& opt);

// The variant the graph rows force ("" = auto): the one variant named by --variants, if exactly
// one non-auto name was given.
std::string graph_variant(const Options& opt);

void run_graph_suite(BenchEnv& env, std::vector<Row>* rows);

}  // namespace bench
