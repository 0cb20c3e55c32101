//! Finds libgpuopt for the linker and records where it lies for the dynamic loader.
//!
//! Search order:
//! 1. `GPUOPT_LIB_DIR`: the directory holding libgpuopt.so (the CMake build passes its build
//!    tree's `src/`, so ctest runs against the library it just built);
//! 2. `pkg-config --libs-only-L gpuopt` (an installed gpuopt, with `PKG_CONFIG_PATH` pointing at
//!    `<prefix>/lib/pkgconfig` for a private prefix);
//! 3. neither: only `-lgpuopt`, for a library in the linker's default path.
//!
//! Binaries get the RUNPATH entries `<found dir>` and `$ORIGIN`, so a test or example runs from
//! the build tree without `LD_LIBRARY_PATH`, and a binary copied next to libgpuopt.so.0 runs
//! anywhere. `LD_LIBRARY_PATH` still takes precedence (RUNPATH semantics).
use std::env;
use std::path::PathBuf;
use std::process::Command;

fn pkg_config_lib_dirs() -> Vec<PathBuf> {
    let out = match Command::new("pkg-config")
        .args(["--libs-only-L", "gpuopt"])
        .output()
    {
        Ok(out) if out.status.success() => out,
        _ => return Vec::new(),
    };
    String::from_utf8_lossy(&out.stdout)
        .split_whitespace()
        .filter_map(|flag| flag.strip_prefix("-L"))
        .map(PathBuf::from)
        .collect()
}

fn main() {
    println!("cargo:rerun-if-env-changed=GPUOPT_LIB_DIR");
    println!("cargo:rerun-if-env-changed=PKG_CONFIG_PATH");
    println!("cargo:rerun-if-changed=build.rs");

    let dirs: Vec<PathBuf> = match env::var_os("GPUOPT_LIB_DIR") {
        Some(dir) if !dir.is_empty() => vec![PathBuf::from(dir)],
        _ => pkg_config_lib_dirs(),
    };
    if dirs.is_empty() {
        println!(
            "cargo:warning=gpuopt: neither GPUOPT_LIB_DIR nor `pkg-config gpuopt` gave a \
             library directory; linking with -lgpuopt from the default search path"
        );
    }
    for dir in &dirs {
        println!("cargo:rustc-link-search=native={}", dir.display());
        println!("cargo:rustc-link-arg=-Wl,-rpath,{}", dir.display());
    }
    println!("cargo:rustc-link-arg=-Wl,-rpath,$ORIGIN");
    println!("cargo:rustc-link-lib=dylib=gpuopt");
}
