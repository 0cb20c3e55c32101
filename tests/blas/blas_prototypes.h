/* Prototypes of the Fortran BLAS level-3 routines (LP64, hidden character lengths last), for the
 * tests that call them as a program linked with -lblas would. */
#ifndef GPUOPT_BLAS_TEST_PROTOTYPES_H
#define GPUOPT_BLAS_TEST_PROTOTYPES_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

void dgemm_(const char*, const char*, const int*, const int*, const int*, const double*,
            const double*, const int*, const double*, const int*, const double*, double*,
            const int*, size_t, size_t);
void sgemm_(const char*, const char*, const int*, const int*, const int*, const float*,
            const float*, const int*, const float*, const int*, const float*, float*, const int*,
            size_t, size_t);
void dsymm_(const char*, const char*, const int*, const int*, const double*, const double*,
            const int*, const double*, const int*, const double*, double*, const int*, size_t,
            size_t);
void dsyrk_(const char*, const char*, const int*, const int*, const double*, const double*,
            const int*, const double*, double*, const int*, size_t, size_t);
void dsyr2k_(const char*, const char*, const int*, const int*, const double*, const double*,
             const int*, const double*, const int*, const double*, double*, const int*, size_t,
             size_t);
void dtrmm_(const char*, const char*, const char*, const char*, const int*, const int*,
            const double*, const double*, const int*, double*, const int*, size_t, size_t, size_t,
            size_t);
void dtrsm_(const char*, const char*, const char*, const char*, const int*, const int*,
            const double*, const double*, const int*, double*, const int*, size_t, size_t, size_t,
            size_t);

#ifdef __cplusplus
}
#endif

#endif
