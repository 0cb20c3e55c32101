// Error reports of the level-3 entry points, as the reference BLAS and CBLAS make them: the
// program's own xerbla_ / cblas_xerbla wins (looked up with dlsym(RTLD_DEFAULT)).
#pragma once

#include <stdarg.h>

namespace gpuopt_blas {

/** XERBLA(SRNAME, INFO) of the Fortran routine @p srname (6 characters, blank padded, "DGEMM "). */
void report_f77(const char* srname, int info);

/** XERBLA of the ILP64 names (dgemm_64_ ...): the program's xerbla_64_ (64-bit INFO, reference BLAS
 *  3.9+'s naming), else the CPU library's, else report_f77. */
void report_f77_64(const char* srname, int info);

/** cblas_xerbla(info, rout, form, value) as the reference CBLAS calls it; @p row_major sets
 *  RowMajorStrg for the handler (the reference testers remap positions by it). */
void report_cblas(int info, const char* rout, bool row_major, const char* form, int value);

/** The CBLAS globals of the reference library (RowMajorStrg, CBLAS_CallFromC): the program's
 *  (or the loaded BLAS's) copies where they exist, else private ones. */
int* row_major_flag();
int* call_from_c_flag();

/** cblas_xerbla of the reference CBLAS: remaps row-major positions, prints, exits. */
void cblas_xerbla_reference(int info, const char* rout, const char* form, va_list args);

}  // namespace gpuopt_blas
