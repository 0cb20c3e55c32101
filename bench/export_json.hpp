// The bench's JSON document (format: docs/architecture.md, "Bench results"; every key is
// documented in bench/README.md, "JSON").
#pragma once
#include <string>

#include "results.hpp"

namespace bench {

std::string results_json(const Results& r, const Options& opt);

// Writes text to path (whole file, then renamed into place); throws std::runtime_error.
void write_file(const std::string& path, const std::string& text);

}  // namespace bench
