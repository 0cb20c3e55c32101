//! Finds libgpuopt for the linker and records where it lies for the dynamic loader.
//!
//! Search order (the first that gives a directory wins):
//! 1. `GPUOPT_LIB_DIR`: the directory holding libgpuopt.so / libgpuopt_static.a (the CMake build
//!    passes its build tree's `src/`, so ctest runs against the library it just built);
//! 2. inside the gpuopt repository (this crate at `bindings/rust`): the newest
//!    `<repo>/build/*/src` that holds the library (sanitizer builds skipped), so
//!    `cargo test --offline` works after a CMake build (`cmake --workflow --preset test`:
//!    `build/ci/src`);
//! 3. `pkg-config gpuopt` (or `gpuopt_static` with the `static` feature): an installed gpuopt,
//!    with `PKG_CONFIG_PATH` pointing at `<prefix>/lib/pkgconfig` for a private prefix;
//! 4. none: `-lgpuopt` from the linker's default path (with a warning).
//!
//! Default (dynamic): links libgpuopt.so and gives this crate's binaries (tests, examples) the
//! RUNPATH entries `<found dir>` and `$ORIGIN`, so they run without `LD_LIBRARY_PATH`. Cargo does
//! not pass a dependency's link arguments on to the crates that use it: their binaries get the
//! RUNPATH from their own build.rs, which reads this crate's `DEP_GPUOPT_RPATH` (the directories,
//! ':'-separated; see docs/integration-rust.md).
//!
//! Feature `static`: links libgpuopt_static.a and what it needs: the static CUDA runtime, cuBLAS
//! (shared), the C++ runtime, libdl, librt, libpthread. The CUDA libraries are found in
//! `GPUOPT_CUDA_LIB_DIR`, else `$CUDA_PATH`/`$CUDA_HOME`/`/usr/local/cuda` + `lib64` (or `lib`);
//! with pkg-config, gpuopt_static.pc lists them. `DEP_GPUOPT_RPATH` then names cuBLAS' directory.
use std::env;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::SystemTime;

fn static_link() -> bool {
    env::var_os("CARGO_FEATURE_STATIC").is_some()
}

fn lib_file() -> &'static str {
    if static_link() {
        "libgpuopt_static.a"
    } else {
        "libgpuopt.so"
    }
}

/// `<repo>/build/*/src` directories holding the library, newest library first; empty outside
/// the repository.
fn repo_build_dirs(manifest_dir: &Path) -> Vec<PathBuf> {
    let repo = manifest_dir.join("../..");
    if !repo.join("include/gpuopt.h").is_file() {
        return Vec::new();
    }
    let build = repo.join("build");
    println!("cargo:rerun-if-changed={}", build.display());
    let mut found: Vec<(SystemTime, PathBuf)> = fs::read_dir(&build)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|entry| {
            // A sanitizer build's library needs its runtime loaded first: not for cargo.
            let cache = fs::read_to_string(entry.path().join("CMakeCache.txt")).unwrap_or_default();
            if cache.contains("GPUOPT_SANITIZE:BOOL=ON") {
                return None;
            }
            let src = entry.path().join("src");
            let lib = src.join(lib_file());
            let modified = fs::metadata(&lib).and_then(|m| m.modified()).ok()?;
            println!("cargo:rerun-if-changed={}", lib.display());
            Some((modified, src))
        })
        .collect();
    found.sort_by_key(|entry| std::cmp::Reverse(entry.0));
    found.into_iter().map(|(_, dir)| dir).collect()
}

/// The flags of `pkg-config <args> <package>` (empty when pkg-config or the package is missing).
fn pkg_config(args: &[&str], package: &str) -> Vec<String> {
    match Command::new("pkg-config").args(args).arg(package).output() {
        Ok(out) if out.status.success() => String::from_utf8_lossy(&out.stdout)
            .split_whitespace()
            .map(str::to_owned)
            .collect(),
        _ => Vec::new(),
    }
}

fn cuda_lib_dir() -> Option<PathBuf> {
    if let Some(dir) = env::var_os("GPUOPT_CUDA_LIB_DIR").filter(|d| !d.is_empty()) {
        return Some(PathBuf::from(dir));
    }
    let roots = ["CUDA_PATH", "CUDA_HOME"]
        .iter()
        .filter_map(|v| env::var_os(v).filter(|d| !d.is_empty()).map(PathBuf::from))
        .chain(std::iter::once(PathBuf::from("/usr/local/cuda")));
    for root in roots {
        for lib in ["lib64", "lib"] {
            let dir = root.join(lib);
            if dir.join("libcudart_static.a").is_file() {
                return Some(dir);
            }
        }
    }
    None
}

fn main() {
    for var in [
        "GPUOPT_LIB_DIR",
        "GPUOPT_CUDA_LIB_DIR",
        "CUDA_PATH",
        "CUDA_HOME",
        "PKG_CONFIG_PATH",
    ] {
        println!("cargo:rerun-if-env-changed={var}");
    }
    println!("cargo:rerun-if-changed=build.rs");
    let manifest_dir = PathBuf::from(env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets it"));
    let package = if static_link() {
        "gpuopt_static"
    } else {
        "gpuopt"
    };

    // Where the library is, and (pkg-config) the flags of what it needs.
    let mut pc_flags = Vec::new();
    let dirs: Vec<PathBuf> = match env::var_os("GPUOPT_LIB_DIR") {
        Some(dir) if !dir.is_empty() => vec![PathBuf::from(dir)],
        _ => {
            let in_repo = repo_build_dirs(&manifest_dir);
            if let Some(newest) = in_repo.into_iter().next() {
                vec![newest]
            } else {
                pc_flags = pkg_config(&["--static", "--libs"], package);
                pc_flags
                    .iter()
                    .filter_map(|f| f.strip_prefix("-L"))
                    .take(1)
                    .map(PathBuf::from)
                    .collect()
            }
        }
    };
    if dirs.is_empty() {
        println!(
            "cargo:warning=gpuopt: no library directory from GPUOPT_LIB_DIR, a build tree of the \
             repository or `pkg-config {package}`; linking {} from the default search path",
            lib_file()
        );
    }
    let mut rpath: Vec<PathBuf> = Vec::new();
    for dir in &dirs {
        println!("cargo:rustc-link-search=native={}", dir.display());
    }

    if static_link() {
        println!("cargo:rustc-link-lib=static=gpuopt_static");
        // The CUDA directory: from gpuopt_static.pc's second -L (its cudalibdir), else found.
        let cuda = pc_flags
            .iter()
            .filter_map(|f| f.strip_prefix("-L"))
            .nth(1)
            .map(PathBuf::from)
            .or_else(cuda_lib_dir);
        match &cuda {
            Some(dir) => {
                println!("cargo:rustc-link-search=native={}", dir.display());
                rpath.push(dir.clone());
            }
            None => println!(
                "cargo:warning=gpuopt: no CUDA library directory (set GPUOPT_CUDA_LIB_DIR or \
                 CUDA_PATH); linking cudart_static, cublas and cublasLt from the default search path"
            ),
        }
        println!("cargo:rustc-link-lib=static=cudart_static");
        for lib in ["cublas", "cublasLt", "stdc++", "m", "dl", "rt", "pthread"] {
            println!("cargo:rustc-link-lib=dylib={lib}");
        }
    } else {
        println!("cargo:rustc-link-lib=dylib=gpuopt");
        rpath.extend(dirs.iter().cloned());
    }

    // This crate's own binaries; dependents read DEP_GPUOPT_RPATH in their build.rs.
    for dir in &rpath {
        println!("cargo:rustc-link-arg=-Wl,-rpath,{}", dir.display());
    }
    println!("cargo:rustc-link-arg=-Wl,-rpath,$ORIGIN");
    let joined: Vec<String> = rpath.iter().map(|d| d.display().to_string()).collect();
    println!("cargo:rpath={}", joined.join(":"));
    println!(
        "cargo:lib_dir={}",
        dirs.first()
            .map(|d| d.display().to_string())
            .unwrap_or_default()
    );
}
