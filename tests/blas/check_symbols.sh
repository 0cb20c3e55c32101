#!/usr/bin/env bash
# The two forms export what they must: libblas.so.3 every symbol of the reference BLAS/CBLAS
# (src/blas/reference_symbols.txt) and the level-3 ILP64 names under SONAME libblas.so.3;
# libgpuopt_blas.so exactly the level-3 routines, their CBLAS twins and their ILP64 names; neither needs CUDA, cuBLAS or libgpuopt (the GPU half,
# libgpuopt_blas_gpu.so, is loaded at the first GPU call and exports its entry point only). The
# generated stubs are up to date.
# check_symbols.sh SOURCE_DIR LIBGPUOPT_BLAS LIBBLAS_SO_3 LIBGPUOPT_BLAS_GPU
set -euo pipefail
src=$1 preload=$2 libblas=$3 gpu_half=$4
if command -v python3 >/dev/null; then python3 "$src/src/blas/gen_forwarders.py" --check; fi
exported() { nm -D --defined-only "$1" | awk '$2 != "U" {print $3}' | sort -u; }
missing=$(comm -23 <(grep -v '^#' "$src/src/blas/reference_symbols.txt" | awk '{print $2}' | sort -u) \
  <(exported "$libblas"))
if [[ -n $missing ]]; then
  echo "libblas.so.3 lacks reference symbols:"; echo "$missing"; exit 1
fi
soname=$(readelf -d "$libblas" | sed -n 's/.*Library soname: \[\(.*\)\]/\1/p')
[[ $soname == libblas.so.3 ]] || { echo "SONAME is '$soname', not libblas.so.3"; exit 1; }
want=$(for p in d s; do for r in gemm symm syrk syr2k trmm trsm; do
  echo "${p}${r}_"; echo "${p}${r}"; echo "cblas_${p}${r}"; echo "${p}${r}_64_"; done; done | sort)
got=$(exported "$preload")
if [[ "$want" != "$got" ]]; then
  echo "libgpuopt_blas.so exports differ from the level-3 list:"; diff <(echo "$want") <(echo "$got"); exit 1
fi
ilp64=$(for p in d s; do for r in gemm symm syrk syr2k trmm trsm; do echo "${p}${r}_64_"; done; done | sort)
missing=$(comm -23 <(echo "$ilp64") <(exported "$libblas"))
if [[ -n $missing ]]; then
  echo "libblas.so.3 lacks the ILP64 names:"; echo "$missing"; exit 1
fi
echo "symbols: libblas.so.3 has all $(grep -vc '^#' "$src/src/blas/reference_symbols.txt") reference symbols and the 12 ILP64 names; libgpuopt_blas.so exports the 48 level-3 names"
needed() { readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'; }
for lib in "$preload" "$libblas"; do
  if needed "$lib" | grep -E '^lib(cuda|cudart|cublas|cublasLt|gpuopt)\.so'; then
    echo "$(basename "$lib") needs the libraries above at load time: they belong to the GPU half"
    exit 1
  fi
done
got=$(exported "$gpu_half")
if [[ $got != gpuopt_blas_gpu_table ]]; then
  echo "libgpuopt_blas_gpu.so exports more than its entry point:"; echo "$got" | head; exit 1
fi
echo "load time: neither form needs CUDA, cuBLAS or libgpuopt; the GPU half exports its entry point only"
