// Command line of gpuopt-bench.
#pragma once
#include <stdexcept>
#include <string>

#include "results.hpp"

namespace bench {

class UsageError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// Parses argv (throws UsageError with a one-line reason).
Options parse_args(int argc, char** argv);

// The --help text.
std::string usage();

}  // namespace bench
