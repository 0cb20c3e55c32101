// The suites of gpuopt-bench (the values of --op), in the order a run takes them. The one list
// behind the --op check, the --op lines of --help and the default-suite table of bench/README.md
// (`gpuopt-bench --list-suites` prints it; the ctest bench_readme_suites compares the two).
#pragma once
#include <string>
#include <vector>

namespace bench {

struct Suite {
  const char* op;      // --op value
  const char* help;    // --help text; '\n' starts an indented continuation line
  const char* rows;    // Markdown: what the default run measures (a cell of the README table)
  bool in_all = true;  // part of --op all (the multi-GPU suites are not: they take every GPU)
};

const std::vector<Suite>& suites();

// True when op names a suite (or is "all").
bool is_suite_op(const std::string& op);

// "all, axpy, axpy_x1000, ...": the --op values, for messages.
std::string suite_op_list();

// The --op lines of --help (each starting with the option column's indentation).
std::string suites_help();

// The default-suite table of bench/README.md, Markdown, ending in a newline.
std::string suites_markdown();

}  // namespace bench
