#include "xerbla.hpp"

#include <dlfcn.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_lib.hpp"

namespace gpuopt_blas {
namespace {

using F77Xerbla = void (*)(const char*, const int*, size_t);
using CblasXerbla = void (*)(int, const char*, const char*, ...);

int g_private_row_major = 0;
int g_private_call_from_c = 0;

int* global_int(const char* name, int* fallback) {
  void* p = dlsym(RTLD_DEFAULT, name);
  return p ? static_cast<int*>(p) : fallback;
}

void call_reference(int info, const char* rout, const char* form, ...) {
  va_list ap;
  va_start(ap, form);
  cblas_xerbla_reference(info, rout, form, ap);
  va_end(ap);
}

// The reference CBLAS testers' (and library's) remapping of argument positions of row-major
// calls, which the reference reports in the positions of the transposed Fortran call.
int remap_row_major(int info, const char* rout) {
  if (strstr(rout, "gemm")) {
    if (info == 5) return 4;
    if (info == 4) return 5;
    if (info == 11) return 9;
    if (info == 9) return 11;
  } else if (strstr(rout, "symm") || strstr(rout, "hemm")) {
    if (info == 5) return 4;
    if (info == 4) return 5;
  } else if (strstr(rout, "trmm") || strstr(rout, "trsm")) {
    if (info == 7) return 6;
    if (info == 6) return 7;
  }
  return info;
}

}  // namespace

void cblas_xerbla_reference(int info, const char* rout, const char* form, va_list args) {
  if (*row_major_flag()) info = remap_row_major(info, rout);
  if (info) fprintf(stderr, "Parameter %d to routine %s was incorrect\n", info, rout);
  vfprintf(stderr, form, args);
  exit(-1);
}

int* row_major_flag() {
  static int* p = global_int("RowMajorStrg", &g_private_row_major);
  return p;
}

int* call_from_c_flag() {
  static int* p = global_int("CBLAS_CallFromC", &g_private_call_from_c);
  return p;
}

void report_f77(const char* srname, int info) {
  auto f = reinterpret_cast<F77Xerbla>(dlsym(RTLD_DEFAULT, "xerbla_"));
  if (!f) f = reinterpret_cast<F77Xerbla>(cpu_symbol("xerbla_"));
  if (f) {
    f(srname, &info, strlen(srname));
    return;
  }
  fprintf(stderr, " ** On entry to %.6s parameter number %2d had an illegal value\n", srname, info);
}

void report_f77_64(const char* srname, int info) {
  using F77Xerbla64 = void (*)(const char*, const int64_t*, size_t);
  auto f = reinterpret_cast<F77Xerbla64>(dlsym(RTLD_DEFAULT, "xerbla_64_"));
  if (!f) f = reinterpret_cast<F77Xerbla64>(cpu_symbol("xerbla_64_"));
  if (!f) return report_f77(srname, info);
  const int64_t info64 = info;
  f(srname, &info64, strlen(srname));
}

void report_cblas(int info, const char* rout, bool row_major, const char* form, int value) {
  *row_major_flag() = row_major ? 1 : 0;
  auto f = reinterpret_cast<CblasXerbla>(dlsym(RTLD_DEFAULT, "cblas_xerbla"));
  if (!f) f = reinterpret_cast<CblasXerbla>(cpu_symbol("cblas_xerbla"));
  if (f) {
    f(info, rout, form, value);
  } else {
    call_reference(info, rout, form, value);  // no handler anywhere: print and exit
  }
  *row_major_flag() = 0;
  *call_from_c_flag() = 0;
}

}  // namespace gpuopt_blas
