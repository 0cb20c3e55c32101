#include "cli.hpp"

#include <cerrno>
#include <cstdlib>
#include <vector>

#include "suites.hpp"

namespace bench {
namespace {

constexpr std::int64_t kMaxGemmN = 65536;  // n of a square gemm row (A alone is 16 GiB in f32)

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  size_t start = 0;
  while (true) {
    size_t p = s.find(sep, start);
    out.push_back(s.substr(start, p == std::string::npos ? std::string::npos : p - start));
    if (p == std::string::npos) break;
    start = p + 1;
  }
  return out;
}

long long to_int(const std::string& s, const std::string& opt, long long lo, long long hi) {
  if (s.empty()) throw UsageError(opt + ": empty value");
  errno = 0;
  char* end = nullptr;
  long long v = std::strtoll(s.c_str(), &end, 10);
  if (errno != 0 || *end != '\0' || v < lo || v > hi) {
    throw UsageError(opt + ": '" + s + "' is not an integer in [" + std::to_string(lo) + ", " +
                     std::to_string(hi) + "]");
  }
  return v;
}

// "268435456", "2^28" or "1<<28".
std::int64_t to_size(const std::string& s) {
  constexpr long long kMax = 1LL << 40;
  for (const char* sep : {"^", "<<"}) {
    size_t p = s.find(sep);
    if (p == std::string::npos) continue;
    const bool power = std::string(sep) == "^";
    long long base = to_int(s.substr(0, p), "--sizes", 1, kMax);
    long long exp = to_int(s.substr(p + std::string(sep).size()), "--sizes", 0, 40);
    if (power && base != 2) throw UsageError("--sizes: '" + s + "': only powers of 2 (2^k)");
    if (!power && base > (kMax >> exp)) throw UsageError("--sizes: '" + s + "' is above 2^40");
    return power ? (1LL << exp) : (base << exp);
  }
  return to_int(s, "--sizes", 1, kMax);
}

// One --dtype name: f32 and f64 select axpy's dtype and the gemm config of that name; tf32 is a
// gemm config only; bf16 selects both bf16 gemm configs (f32 and bf16 out), bf16_bf16 the second.
void add_dtype(const std::string& s, Options* o) {
  if (s != "f32" && s != "f64" && s != "tf32" && s != "bf16" && s != "bf16_bf16") {
    throw UsageError("--dtype: '" + s + "' is not one of f32, f64, tf32, bf16, bf16_bf16, all");
  }
  if (s == "f32" || s == "f64") {
    const gpuopt_dtype_t t = s == "f32" ? GPUOPT_DTYPE_F32 : GPUOPT_DTYPE_F64;
    if (!o->wants_dtype(t)) o->dtypes.push_back(t);
  }
  if (!o->wants_gemm_type(s)) o->gemm_types.push_back(s);
  if (s == "bf16" && !o->wants_gemm_type("bf16_bf16")) o->gemm_types.push_back("bf16_bf16");
}

}  // namespace

std::string usage() {
  return std::string(
             "usage: gpuopt-bench [options]\n"
             "\n"
             "Times every kernel variant of gpuopt against the vendor library and the\n"
             "copy-bandwidth roof measured in the same run, checks each against a reference,\n"
             "prints the ladder tables and the bars, and optionally writes the JSON\n"
             "(bench/README.md, \"JSON\").\n"
             "Without options: the default suite on GPU 0, every --op below in this order\n"
             "(--list-suites describes each).\n"
             "\n"
             "  --device N           CUDA device ordinal (default 0)\n") +
         suites_help() +
         "  --gpus N             multi-GPU suites: use devices 0 .. N-1 (default: all)\n" +
         "  --dtype T            f32 | f64 | tf32 | bf16 | bf16_bf16 | all (default), or a\n"
         "                       comma list; tf32 is gemm only; bf16 is gemm (f32 and bf16\n"
         "                       out) and transpose; bf16_bf16 is gemm bf16 in and out\n"
         "  --sizes n1,n2,...    axpy: element counts (default 2^28); 268435456, 2^28 and 1<<28\n"
         "                       work. With --op gemm: n of the square gemm rows (default\n"
         "                       4096,8192; --op all keeps those)\n"
         "  --variants V         all (default) | auto | NAME[,NAME...]; the vendor variant is\n"
         "                       always measured too, for ratio_to_vendor\n"
         "  --repeats R          timed samples per row, median reported (default 20; gemm:\n"
         "                       at most R, fewer where a row would take over 1 s)\n"
         "  --warmup W           untimed calls before timing (default 3)\n"
         "  --json FILE          write the results as JSON to FILE\n"
         "  --quick              smoke run: n = 2^24 unless --sizes, 5 repeats unless --repeats;\n"
         "                       gemm n = 1024,2048, 2048x2048x256, 64 x 128^3\n"
         "  --tune[=FILE]        after each group's rows (gemm, reduce, stencil, transpose,\n"
         "                       segmented_sort), gpuopt_tune its problem; write the tuning\n"
         "                       cache FILE (default tune-<device>.cache; rewritten)\n"
         "  --tune-cache FILE    run with the tuning cache FILE attached (auto dispatch follows\n"
         "                       it; the JSON records it and the auto bars ask >= 0.98)\n"
         "  --require-bars       exit 3 when a bar is missed (rows all correct)\n"
         "  --torch, --no-torch  gemm torch.matmul peer rows (bench/torch_matmul.py, run with\n"
         "                       $GPUOPT_BENCH_PYTHON, default python3): --torch requires them,\n"
         "                       --no-torch skips them; default: when torch imports. Timed\n"
         "                       interleaved with gpuopt auto in the helper's process (the\n"
         "                       gpuopt Python binding) where it imports\n"
         "  --list-suites        print the default suite as a Markdown table (bench/README.md)\n"
         "  -h, --help           this text\n"
         "\n"
         "Exit status: 0 all rows correct; 1 a row failed, was wrong, or the roof could not be\n"
         "measured; 2 bad command line; 3 a bar missed (with --require-bars); 77 no CUDA device.\n"
         "Progress goes to stderr, the tables to stdout.\n";
}

Options parse_args(int argc, char** argv) {
  Options o;
  bool sizes_given = false, repeats_given = false, warmup_given = false;
  for (int i = 0; i < argc; ++i) {
    if (i > 0) o.command_line += ' ';
    o.command_line += argv[i];
  }
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    std::string value;
    bool has_inline = false;
    if (a.rfind("--", 0) == 0) {
      size_t eq = a.find('=');
      if (eq != std::string::npos) {
        value = a.substr(eq + 1);
        a = a.substr(0, eq);
        has_inline = true;
      }
    }
    auto need = [&]() -> std::string {
      if (has_inline) return value;
      if (i + 1 >= argc) throw UsageError(a + ": missing value");
      return argv[++i];
    };
    auto no_value = [&]() {
      if (has_inline) throw UsageError(a + ": takes no value");
    };
    if (a == "-h" || a == "--help") {
      no_value();
      o.help = true;
    } else if (a == "--tune") {
      o.tune = true;
      if (has_inline) {
        if (value.empty()) throw UsageError("--tune=: empty file name");
        o.tune_path = value;
      }
    } else if (a == "--tune-cache") {
      o.tune_cache = need();
      if (o.tune_cache.empty()) throw UsageError("--tune-cache: empty file name");
    } else if (a == "--list-suites") {
      no_value();
      o.list_suites = true;
    } else if (a == "--device") {
      o.device = static_cast<int>(to_int(need(), a, 0, 1023));
    } else if (a == "--op") {
      o.op = need();
      if (!is_suite_op(o.op)) {
        throw UsageError("--op: '" + o.op + "' is not one of " + suite_op_list());
      }
    } else if (a == "--gpus") {
      o.gpus = static_cast<int>(to_int(need(), a, 2, 1024));
    } else if (a == "--dtype") {
      std::string v = need();
      const Options defaults;
      o.dtypes.clear();
      o.gemm_types.clear();
      if (v == "all") {
        o.dtypes = defaults.dtypes;
        o.gemm_types = defaults.gemm_types;
      } else {
        for (const std::string& t : split(v, ',')) add_dtype(t, &o);
      }
    } else if (a == "--sizes") {
      o.sizes.clear();
      for (const std::string& s : split(need(), ',')) o.sizes.push_back(to_size(s));
      sizes_given = true;
    } else if (a == "--variants") {
      std::string v = need();
      o.variants.clear();
      if (v != "all") {
        for (const std::string& n : split(v, ',')) {
          if (n.empty()) throw UsageError("--variants: empty name");
          o.variants.push_back(n);
        }
      }
    } else if (a == "--repeats") {
      o.repeats = static_cast<int>(to_int(need(), a, 1, 100000));
      repeats_given = true;
    } else if (a == "--warmup") {
      o.warmup = static_cast<int>(to_int(need(), a, 0, 100000));
      warmup_given = true;
    } else if (a == "--json") {
      o.json_path = need();
      if (o.json_path.empty()) throw UsageError("--json: empty file name");
    } else if (a == "--quick") {
      no_value();
      o.quick = true;
    } else if (a == "--require-bars") {
      no_value();
      o.require_bars = true;
    } else if (a == "--torch" || a == "--no-torch") {
      no_value();
      o.torch = a == "--torch" ? Options::Torch::on : Options::Torch::off;
    } else {
      throw UsageError("unknown argument '" + std::string(argv[i]) + "'");
    }
  }
  if (o.quick) {
    if (!sizes_given) o.sizes = {std::int64_t{1} << 24};
    if (!sizes_given || o.op != "gemm") o.gemm_sizes = {1024, 2048};
    if (!repeats_given) o.repeats = 5;
    if (!warmup_given) o.warmup = 2;
  }
  if (sizes_given && o.op == "gemm") {
    for (std::int64_t n : o.sizes) {
      if (n > kMaxGemmN) {
        throw UsageError("--sizes: gemm n = " + std::to_string(n) + " is above " +
                         std::to_string(kMaxGemmN));
      }
    }
    o.gemm_sizes = o.sizes;
  }
  if (o.tune && !o.tune_cache.empty())
    throw UsageError("--tune and --tune-cache: tune in one run, measure with the cache in another");
  return o;
}

}  // namespace bench
