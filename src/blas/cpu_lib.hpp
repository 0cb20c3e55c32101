// The CPU BLAS that gpuopt_blas forwards to: GPUOPT_BLAS_CPU_LIB (an absolute path), else the
// first of the distribution's alternatives found. Loaded once, by path, RTLD_NOW | RTLD_LOCAL;
// never gpuopt_blas itself (compared by device and inode).
#pragma once

namespace gpuopt_blas {

/** The CPU library's function @p name, or nullptr when it has none (or no library was found). */
void* cpu_symbol(const char* name);

/** Path of the loaded CPU library, or nullptr when none could be loaded (then reason() says why).
 */
const char* cpu_library_path();
/** Why no CPU library could be loaded; "" when one was. */
const char* cpu_library_error();

/** Calls the CPU BLAS's @p name or, when the library lacks it, prints one line to stderr and
 *  aborts: a program calling a BLAS routine cannot go on without it. */
void* cpu_symbol_or_die(const char* name);

}  // namespace gpuopt_blas
