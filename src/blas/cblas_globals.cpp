// What the libblas.so.3 form exports besides functions: the reference CBLAS's globals and its
// error handler (the reference behaviour; a program's own cblas_xerbla still wins).
#include <stdarg.h>

#include "xerbla.hpp"

extern "C" {
__attribute__((visibility("default"))) int CBLAS_CallFromC = 0;
__attribute__((visibility("default"))) int RowMajorStrg = 0;

__attribute__((visibility("default"))) void cblas_xerbla(int info, const char* rout,
                                                         const char* form, ...) {
  va_list args;
  va_start(args, form);
  gpuopt_blas::cblas_xerbla_reference(info, rout, form, args);
  va_end(args);
}
}
