//! Gives this crate's binary the RUNPATH entries the gpuopt crate's build script found
//! (DEP_GPUOPT_RPATH: ':'-separated; libgpuopt.so's directory, or cuBLAS' with the `static`
//! feature), so it runs without LD_LIBRARY_PATH. Copy this into your crate's build.rs.
fn main() {
    println!("cargo:rerun-if-env-changed=DEP_GPUOPT_RPATH");
    if let Ok(rpath) = std::env::var("DEP_GPUOPT_RPATH") {
        for dir in rpath.split(':').filter(|d| !d.is_empty()) {
            println!("cargo:rustc-link-arg=-Wl,-rpath,{dir}");
        }
    }
}
