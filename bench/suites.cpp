#include "suites.hpp"

namespace bench {

const std::vector<Suite>& suites() {
  static const std::vector<Suite> kSuites = {
      {"axpy", "ladders and compressible memory",
       "axpy f32 and f64, n = 2^28 (the largest `--sizes`), device memory, random data: every "
       "variant of the table, then `auto`. axpy f32 on patterned data on device memory, on "
       "compressible memory, and random data on compressible memory: `vec4_gridstride`, "
       "`vec4_blocktile`, the vendor, `auto`"},
      {"axpy_x1000", "1000 small calls: stream vs graph",
       "axpy f32, n = 4096: 1000 calls issued one by one (`stream`) vs captured once and replayed "
       "(`graph`)"},
      {"latency",
       "2000 back-to-back small calls per batch: axpy,\ngemm 64^3 and 256^3, sum, against "
       "cuBLAS / CUB; stream wrap",
       "f32 axpy n = 4096, gemm 64^3 and 256^3, sum n = 4096: batches of 2000 back-to-back "
       "calls on one stream, timed on the host from an idle stream to the last call's end, "
       "gpuopt with the context's default pointer checks (`gpuopt`) and with "
       "GPUOPT_POINTER_CHECKS_CACHED (`gpuopt cached checks`: a validated allocation trusted "
       "without a driver query, docs/memory.md), and for axpy with x and y carved from one "
       "allocation as a framework's pool hands them out (`gpuopt operands in one allocation`, "
       "default checks: one buffer-ID read per call), alternating with the call a user would make "
       "instead (`cublas`: "
       "cublasSaxpy, cublasSgemm; `cub`: cub::DeviceReduce::Sum), operands in `cudaMalloc` "
       "memory (ms per batch, us per call in the note). Stream wrap: 2000 gpuopt_stream_wrap + "
       "gpuopt_stream_destroy pairs of one cudaStream_t. Host queries (`driver`): 2000 calls "
       "each of the driver and runtime queries a call's checks are made of "
       "(cuPointerGetAttribute(BUFFER_ID), cuPointerGetAttributes, cudaPointerGetAttributes, "
       "cuMemGetAddressRange, cudaGetDevice) and of an empty kernel launched with the triple "
       "chevron and "
       "with cuLaunchKernel (ns per call in the note)"},
      {"gemm", "ladders against cuBLAS / cuBLASLt: f64, f32, tf32, bf16 -> f32 / bf16",
       "gemm square n = 4096, f64, f32 (exact), tf32, bf16 -> f32, bf16 -> bf16: every variant "
       "of the table with the input dtype (the ladder), then `auto`. Square n = 8192, the same "
       "types; 8192 x 8192 x 1024 and the strided batch 512 x (256 x 256 x 256), f32, bf16 -> "
       "f32 and bf16 -> bf16: "
       "the non-textbook variants (the textbook rungs `naive`, `smem_tiled`, "
       "`smem_coalesced_padded`, `register_blocked` run only up to n = 4096 unless `--variants` "
       "names them), the vendors (`cublas`, `cublaslt`), `auto`; where PyTorch imports, one "
       "`torch.matmul` row per table"},
      {"reduce",
       "the reduction ladder, sum/min/max/argmax, rows;\nn = the largest --sizes, 2^28 by default",
       "reduce sum i32, n = 2^28 (largest `--sizes`; 2^24 with `--quick`): every variant (the "
       "reduction ladder), `auto`, and `cub(i32->i32)`, cub::DeviceReduce::Sum into an int32 "
       "(gpuopt returns i64). Sum f32, sum f64, min, max and argmax f32 at the same n, and the "
       "row sums of 8192 x 8192 f32 (4096 with `--quick`) and of 512 x 131072 f32: the "
       "non-textbook variants, the vendor (`cub`), `auto`"},
      {"stencil",
       "2D r=8 16384^2 and 3D r=4 512^3 f32 ladders,\ncompressible 3D on a smooth field; "
       "--quick: 4096^2, 256^3",
       "stencil f32, zero boundary: 2D star r = 8 on 16384 x 16384 and 3D star r = 4 on 512^3 "
       "(4096^2 and 256^3 with `--quick`), random data: every variant of the table, `auto`. The "
       "3D problem on a smooth field, on device memory and on compressible memory: every "
       "variant but `naive`, `auto`"},
      {"gdn",
       "forward/backward, composed vs fused, f32 and tf32,\nN=32 C=256 64x64; N=4 with --quick",
       "gdn forward and backward, f32 and tf32, N = 32, C = 256, 64 x 64 pixels (N = 4 with "
       "`--quick`): every variant (`composed`, the cuBLAS-based baseline, is the group's "
       "vendor; a rung that refuses a problem is a skipped row), `auto`"},
      {"transpose", "f32 16384^2, f64 and bf16 of the same bytes",
       "transpose f32 16384 x 16384 (8192^2 with `--quick`), f64 16384 x 8192 and bf16 32768 x "
       "16384 (1 GiB per operand), random bits: every variant that takes the dtype, the vendor "
       "(`cublas` geam; f32 and f64), `auto`"},
      {"segmented_sort", "4M x 128 fixed and 1M random-size\nsegments of i32 keys, against cub",
       "segmented_sort i32 keys, 4M fixed segments of 128 (256K with `--quick`) and 1M offset "
       "segments of random sizes 1..1024 (64K with `--quick`): every variant (refusals are "
       "skipped rows), the vendor (`cub`, 1 warm-up + 3 timed calls), `auto`"},
      {"allreduce",
       "every GPU of the machine through NCCL: 8 B to 1 GiB\nagainst NCCL called directly; not "
       "part of all",
       "", false},
      {"gemm_dist",
       "SUMMA f64 on every GPU against the best one-GPU rate,\nand one process per GPU; not part "
       "of all (docs/multi-gpu.md)",
       "", false},
      {"multi_gpu", "allreduce and gemm_dist", "", false},
  };
  return kSuites;
}

bool is_suite_op(const std::string& op) {
  if (op == "all") return true;
  for (const Suite& s : suites()) {
    if (op == s.op) return true;
  }
  return false;
}

std::string suite_op_list() {
  std::string out = "all";
  for (const Suite& s : suites()) out += std::string(", ") + s.op;
  return out;
}

std::string suites_help() {
  const std::string indent(23, ' ');
  std::string out = "  --op OP              all (default), or one suite:\n";
  for (const Suite& s : suites()) {
    out += indent + s.op + " (";
    for (const char* c = s.help; *c; ++c) {
      out += *c;
      if (*c == '\n') out += indent + "  ";
    }
    out += ")\n";
  }
  return out;
}

std::string suites_markdown() {
  std::string out =
      "| `--op` | rows of the default run |\n"
      "| --- | --- |\n"
      "| (every run) | copy roof: `cudaMemcpyAsync` device to device between two 2 GiB buffers "
      "(halved while memory is short), bytes read + written, median |\n";
  for (const Suite& s : suites()) {
    if (s.in_all) out += std::string("| `") + s.op + "` | " + s.rows + " |\n";
  }
  return out;
}

}  // namespace bench
