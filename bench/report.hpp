// The human-readable output: one ladder table per group, the launch-overhead rows, the bars.
#pragma once
#include <cstdio>

#include "results.hpp"

namespace bench {

void print_report(std::FILE* out, const Results& r);

}  // namespace bench
