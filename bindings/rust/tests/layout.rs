//! Sizes and field offsets of every `#[repr(C)]` struct of `gpuopt::sys` against the C
//! compiler's layout of include/gpuopt.h. A C program prints it ("T sizeof n", "T.f offsetof n"):
//! `GPUOPT_LAYOUT_EXE` (ctest builds it), else this test compiles bindings/layout_dump.c (shared
//! by the bindings) with `$CC` (default `cc`).
use std::collections::BTreeMap;
use std::mem::{offset_of, size_of};
use std::path::PathBuf;
use std::process::Command;

use gpuopt::sys;

/// The C layout: "T sizeof" and "T.f offsetof" keys to bytes.
fn c_layout() -> BTreeMap<String, usize> {
    let exe = match std::env::var_os("GPUOPT_LAYOUT_EXE") {
        Some(exe) => PathBuf::from(exe),
        None => compile_layout_program(),
    };
    let out = Command::new(&exe)
        .output()
        .unwrap_or_else(|e| panic!("running {exe:?}: {e}"));
    assert!(out.status.success(), "{exe:?} failed");
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|line| {
            let (key, value) = line.rsplit_once(' ').unwrap();
            (key.to_string(), value.parse().unwrap())
        })
        .collect()
}

fn compile_layout_program() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let source = dir.join("../layout_dump.c");
    let exe = std::env::temp_dir().join(format!("gpuopt_rust_layout_{}", std::process::id()));
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".to_string());
    let status = Command::new(&cc)
        .arg("-std=c99")
        .arg("-I")
        .arg(dir.join("../../include"))
        .arg(&source)
        .arg("-o")
        .arg(&exe)
        .status()
        .unwrap_or_else(|e| panic!("no C compiler `{cc}` ({e}); set GPUOPT_LAYOUT_EXE or CC"));
    assert!(status.success(), "compiling {source:?} failed");
    exe
}

/// Records `struct`'s size and field offsets as Rust lays them out.
macro_rules! rust_layout {
    ($map:ident, $t:ident { $($f:ident),+ $(,)? }) => {
        $map.insert(format!("{} sizeof", stringify!($t)), size_of::<sys::$t>());
        $( $map.insert(format!("{}.{} offsetof", stringify!($t), stringify!($f)),
                       offset_of!(sys::$t, $f)); )+
    };
}

#[test]
fn structs_match_the_c_layout() {
    let mut rust = BTreeMap::new();
    rust_layout!(
        rust,
        gpuopt_device_info_t {
            struct_size,
            device,
            name,
            cc_major,
            cc_minor,
            sm_count,
            max_threads_per_sm,
            total_memory,
            l2_cache_bytes,
            shared_memory_per_block_optin,
            shared_memory_per_sm,
            supports_clusters,
            supports_tma,
            supports_compression,
            supports_mapped_memory,
            memory_clock_khz,
            memory_bus_width_bits,
            theoretical_bandwidth_gbs,
            driver_version,
            runtime_version,
        }
    );
    rust_layout!(
        rust,
        gpuopt_allocator_t {
            struct_size,
            allocate,
            deallocate,
            user,
        }
    );
    rust_layout!(
        rust,
        gpuopt_variant_info_t {
            struct_size,
            name,
            technique,
            min_cc,
            exact_cc,
            is_vendor,
            available,
            dtype_mask,
        }
    );
    rust_layout!(
        rust,
        gpuopt_tune_result_t {
            struct_size,
            variant,
            ms,
            timed,
            refused,
            config,
        }
    );
    rust_layout!(
        rust,
        gpuopt_gemm_desc_t {
            struct_size,
            trans_a,
            trans_b,
            m,
            n,
            k,
            alpha,
            beta,
            a_type,
            c_type,
            compute,
            lda,
            ldb,
            ldc,
            batch_count,
            stride_a,
            stride_b,
            stride_c,
        }
    );
    rust_layout!(
        rust,
        gpuopt_reduce_desc_t {
            struct_size,
            op,
            in_type,
            n,
            num_segments,
            segment_stride,
            offsets,
            mode,
        }
    );
    rust_layout!(
        rust,
        gpuopt_segmented_sort_desc_t {
            struct_size,
            key_type,
            value_bytes,
            order,
            num_items,
            num_segments,
            segment_size,
            offsets,
        }
    );
    rust_layout!(
        rust,
        gpuopt_stencil_desc_t {
            struct_size,
            dtype,
            dims,
            radius,
            boundary,
            nx,
            ny,
            nz,
            in_pitch,
            in_slice_pitch,
            out_pitch,
            out_slice_pitch,
            coeffs,
        }
    );
    rust_layout!(
        rust,
        gpuopt_transpose_desc_t {
            struct_size,
            dtype,
            rows,
            cols,
            lda,
            ldb
        }
    );
    rust_layout!(
        rust,
        gpuopt_gdn_desc_t {
            struct_size,
            batch,
            channels,
            height,
            width,
            inverse,
            compute,
        }
    );
    rust_layout!(rust, gpuopt_comm_id_t { bytes });
    rust_layout!(
        rust,
        gpuopt_dist_desc_t {
            struct_size,
            dtype,
            rows,
            cols,
            row_block,
            col_block,
            grid_rows,
            grid_cols,
            ld,
        }
    );
    rust_layout!(
        rust,
        gpuopt_gemm_dist_desc_t {
            struct_size,
            m,
            n,
            k,
            alpha,
            beta,
            a_type,
            c_type,
            compute,
            mb,
            nb,
            kb,
            lda,
            ldb,
            ldc,
        }
    );
    let c = c_layout();
    // Enums are int-sized in C as sys.rs declares them (checked where the C program prints it).
    if c.contains_key("gpuopt_status_t sizeof") {
        rust.insert(
            "gpuopt_status_t sizeof".to_string(),
            size_of::<sys::gpuopt_status_t>(),
        );
    }
    let mut mismatches = Vec::new();
    for key in c.keys().chain(rust.keys().filter(|k| !c.contains_key(*k))) {
        if c.get(key) != rust.get(key) {
            mismatches.push(format!(
                "{key}: C {:?}, Rust {:?}",
                c.get(key),
                rust.get(key)
            ));
        }
    }
    assert!(
        mismatches.is_empty(),
        "sys.rs layout differs from gpuopt.h:\n  {}",
        mismatches.join("\n  ")
    );
    assert!(
        c.len() > 90,
        "the C layout program printed only {} lines",
        c.len()
    );
}
