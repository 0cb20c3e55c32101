#include "suite_torch.hpp"

#include <dlfcn.h>
#include <gpuopt.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "torch_peer.hpp"

namespace bench {
namespace {

std::string env_or(const char* name, const std::string& fallback) {
  const char* v = secure_getenv(name);
  return v && *v ? std::string(v) : fallback;
}

// torch_matmul.py in the directory of this executable (the build puts it there).
std::string default_helper() {
  char buf[4096];
  const ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return "torch_matmul.py";
  std::string exe(buf, static_cast<std::size_t>(n));
  const std::size_t slash = exe.rfind('/');
  return (slash == std::string::npos ? std::string(".") : exe.substr(0, slash)) +
         "/torch_matmul.py";
}

bool has_binding(const std::string& dir) {
  return access((dir + "/gpuopt/__init__.py").c_str(), R_OK) == 0;
}

// The gpuopt Python binding's directory: $GPUOPT_BENCH_BINDING, else the source tree's
// bindings/python (pure Python: nothing to build) as CMake recorded it, else the first
// bindings/python above this executable (a build tree moved with its sources); "" if none.
std::string default_binding() {
  const std::string chosen = env_or("GPUOPT_BENCH_BINDING", "");
  if (!chosen.empty()) return chosen;
#ifdef GPUOPT_BENCH_BINDING_DIR
  if (has_binding(GPUOPT_BENCH_BINDING_DIR)) return GPUOPT_BENCH_BINDING_DIR;
#endif
  std::string dir = default_helper();  // <exe dir>/torch_matmul.py
  for (int up = 0; up < 5; ++up) {
    const std::size_t slash = dir.rfind('/');
    if (slash == std::string::npos || slash == 0) break;
    dir.resize(slash);
    if (has_binding(dir + "/bindings/python")) return dir + "/bindings/python";
  }
  return "";
}

// The path of the shared libgpuopt this process runs ("" when the loader does not say, or the
// library is linked in statically).
std::string loaded_library() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&gpuopt_version), &info) == 0 || !info.dli_fname) return "";
  const std::string path = info.dli_fname;
  const std::size_t slash = path.rfind('/');
  const std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  return name.rfind("libgpuopt", 0) == 0 ? path : "";
}

// s quoted for /bin/sh.
std::string sh_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// The helper's stdout, or a report error when it could not be run.
TorchReport run_helper(const std::string& command) {
  std::FILE* p = popen(command.c_str(), "r");
  if (!p) {
    TorchReport failed;
    failed.error = "cannot start the torch helper (popen failed)";
    return failed;
  }
  std::string out;
  char buf[4096];
  std::size_t got;
  while ((got = std::fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, got);
  const int status = pclose(p);
  TorchReport report = parse_torch_report(out);
  if (status != 0 && !report.error.empty()) {
    const int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    report.error = "the torch helper failed (" + command + ": exit " + std::to_string(code) +
                   (code == 127 ? ", not found" : "") + ")";
  }
  return report;
}

bool wanted(const Options& opt, const std::vector<GemmGroup>& groups) {
  if (opt.torch == Options::Torch::off || !opt.wants_variant("auto")) return false;
  return !groups.empty();
}

}  // namespace

int torch_step_count(const Options& opt, const std::vector<GemmGroup>& groups) {
  return wanted(opt, groups) ? 1 : 0;
}

void run_torch_peer(BenchEnv& env, const std::vector<GemmGroup>& groups, const TuningInfo& tuning,
                    std::vector<Row>* rows) {
  if (!wanted(env.opt, groups)) return;
  const std::string python = env_or("GPUOPT_BENCH_PYTHON", "python3");
  const std::string helper = env_or("GPUOPT_BENCH_TORCH_HELPER", default_helper());
  std::string command = "PYTHONDONTWRITEBYTECODE=1 " + sh_quote(python) + " " + sh_quote(helper) +
                        " --device " + std::to_string(env.opt.device) + " --warmup " +
                        std::to_string(env.timer.warmup) + " --repeats " +
                        std::to_string(env.timer.repeats);
  const std::string binding = default_binding(), library = loaded_library();
  if (!binding.empty()) command += " --gpuopt-python " + sh_quote(binding);
  if (!library.empty()) command += " --gpuopt-library " + sh_quote(library);
  if (tuning.mode == "used" && !tuning.file.empty())
    command += " --tune-cache " + sh_quote(tuning.file);
  for (const GemmGroup& g : groups) command += " " + sh_quote(torch_case_id(gemm_row_base(g)));
  env.progress.start("gemm torch.matmul peer rows (" + std::to_string(groups.size()) + " tables, " +
                     helper + ")");
  TorchReport report;
  if (env.broken()) {
    report.error = "not run: " + env.broken_reason();
  } else {
    report = run_helper(command);
  }
  if (!report.error.empty() && env.opt.torch == Options::Torch::automatic) {
    env.progress.finish("none: " + report.error + " (--torch requires them)");
    return;
  }
  int timed = 0, paired = 0;
  for (const GemmGroup& g : groups) {
    const Row base = gemm_row_base(g);
    Row row = torch_row(base, report);
    if (row.error.empty()) ++timed;
    if (row.error.empty() && row.peer_method == "interleaved") ++paired;
    // Without --torch a case torch could not time (out of memory, say) is not gpuopt's failure.
    if (!row.error.empty() && env.opt.torch == Options::Torch::automatic) {
      row.skipped = true;
      row.error = "skipped: " + row.error;
    }
    std::size_t at = rows->size();
    for (std::size_t i = 0; i < rows->size(); ++i) {
      if ((*rows)[i].group_key() == base.group_key()) at = i + 1;
    }
    rows->insert(rows->begin() + static_cast<std::ptrdiff_t>(at), row);
  }
  env.progress.finish(
      report.error.empty()
          ? "torch " + report.torch + ": " + std::to_string(timed) + " of " +
                std::to_string(groups.size()) + " timed, " + std::to_string(paired) +
                " interleaved with gpuopt auto" +
                (report.gpuopt_error.empty() ? "" : " (" + report.gpuopt_error + ")")
          : "ERROR " + report.error);
}

}  // namespace bench
