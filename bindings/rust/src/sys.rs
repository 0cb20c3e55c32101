//! Raw declarations of include/gpuopt.h, one for one: every function, every struct (`#[repr(C)]`)
//! and every enum value (as a constant of the enum's integer type, so that values a newer library
//! returns are never undefined behaviour in Rust).
//!
//! Kept in step with the header by tests: ctest `rust_binding_coverage` (every declared function
//! is declared here), `tests/header_sync.rs` (every enum value and version macro has the same
//! value here) and `tests/layout.rs` (sizes and field offsets of every struct match the C
//! compiler's). Everything here is `unsafe` to call; the safe layer is the crate root.
#![allow(non_camel_case_types, missing_docs)]

use std::os::raw::{c_char, c_double, c_int, c_uint, c_void};

// ---- Version, status and errors ----

/// `GPUOPT_VERSION_MAJOR` of the header this crate was written against.
pub const GPUOPT_VERSION_MAJOR: c_int = 0;
/// `GPUOPT_VERSION_MINOR` of the header this crate was written against.
pub const GPUOPT_VERSION_MINOR: c_int = 1;
/// `GPUOPT_VERSION_PATCH` of the header this crate was written against.
pub const GPUOPT_VERSION_PATCH: c_int = 0;
/// `GPUOPT_VERSION`: major * 10000 + minor * 100 + patch.
pub const GPUOPT_VERSION: c_int =
    GPUOPT_VERSION_MAJOR * 10000 + GPUOPT_VERSION_MINOR * 100 + GPUOPT_VERSION_PATCH;

/// `gpuopt_status_t`.
pub type gpuopt_status_t = c_int;
pub const GPUOPT_SUCCESS: gpuopt_status_t = 0;
pub const GPUOPT_ERROR_INVALID_ARGUMENT: gpuopt_status_t = 1;
pub const GPUOPT_ERROR_INVALID_HANDLE: gpuopt_status_t = 2;
pub const GPUOPT_ERROR_NO_DEVICE: gpuopt_status_t = 3;
pub const GPUOPT_ERROR_UNSUPPORTED: gpuopt_status_t = 4;
pub const GPUOPT_ERROR_OUT_OF_MEMORY: gpuopt_status_t = 5;
pub const GPUOPT_ERROR_MISALIGNED: gpuopt_status_t = 6;
pub const GPUOPT_ERROR_CAPTURE_ILLEGAL: gpuopt_status_t = 7;
pub const GPUOPT_ERROR_NOT_FOUND: gpuopt_status_t = 8;
pub const GPUOPT_ERROR_CUDA: gpuopt_status_t = 9;
pub const GPUOPT_ERROR_CUBLAS: gpuopt_status_t = 10;
pub const GPUOPT_ERROR_INTERNAL: gpuopt_status_t = 11;
pub const GPUOPT_ERROR_WRONG_DEVICE: gpuopt_status_t = 12;
pub const GPUOPT_ERROR_COMM: gpuopt_status_t = 13;

// ---- Logging ----

/// `gpuopt_log_level_t`.
pub type gpuopt_log_level_t = c_int;
pub const GPUOPT_LOG_OFF: gpuopt_log_level_t = 0;
pub const GPUOPT_LOG_INFO: gpuopt_log_level_t = 1;
pub const GPUOPT_LOG_DEBUG: gpuopt_log_level_t = 2;

/// `gpuopt_log_fn`: `None` is the C NULL (back to stderr).
pub type gpuopt_log_fn = Option<
    unsafe extern "C" fn(level: gpuopt_log_level_t, message: *const c_char, user: *mut c_void),
>;

// ---- Devices ----

/// `gpuopt_device_info_t`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct gpuopt_device_info_t {
    pub struct_size: usize,
    pub device: c_int,
    pub name: [c_char; 256],
    pub cc_major: c_int,
    pub cc_minor: c_int,
    pub sm_count: c_int,
    pub max_threads_per_sm: c_int,
    pub total_memory: usize,
    pub l2_cache_bytes: usize,
    pub shared_memory_per_block_optin: usize,
    pub shared_memory_per_sm: usize,
    pub supports_clusters: c_int,
    pub supports_tma: c_int,
    pub supports_compression: c_int,
    pub supports_mapped_memory: c_int,
    pub memory_clock_khz: c_int,
    pub memory_bus_width_bits: c_int,
    pub theoretical_bandwidth_gbs: c_double,
    pub driver_version: c_int,
    pub runtime_version: c_int,
}

// ---- Handles ----

/// Opaque target of `gpuopt_context_t`.
#[repr(C)]
pub struct gpuopt_context_s {
    _private: [u8; 0],
}
/// `gpuopt_context_t`.
pub type gpuopt_context_t = *mut gpuopt_context_s;
/// Opaque target of `gpuopt_stream_t`.
#[repr(C)]
pub struct gpuopt_stream_s {
    _private: [u8; 0],
}
/// `gpuopt_stream_t`.
pub type gpuopt_stream_t = *mut gpuopt_stream_s;
/// Opaque target of `gpuopt_buffer_t`.
#[repr(C)]
pub struct gpuopt_buffer_s {
    _private: [u8; 0],
}
/// `gpuopt_buffer_t`.
pub type gpuopt_buffer_t = *mut gpuopt_buffer_s;
/// Opaque target of `gpuopt_graph_t`.
#[repr(C)]
pub struct gpuopt_graph_s {
    _private: [u8; 0],
}
/// `gpuopt_graph_t`.
pub type gpuopt_graph_t = *mut gpuopt_graph_s;

/// `gpuopt_pointer_checks_t`.
pub type gpuopt_pointer_checks_t = c_int;
pub const GPUOPT_POINTER_CHECKS_FULL: gpuopt_pointer_checks_t = 0;
pub const GPUOPT_POINTER_CHECKS_CACHED: gpuopt_pointer_checks_t = 1;

/// `gpuopt_memory_kind_t`.
pub type gpuopt_memory_kind_t = c_int;
pub const GPUOPT_MEMORY_DEVICE: gpuopt_memory_kind_t = 0;
pub const GPUOPT_MEMORY_PINNED_HOST: gpuopt_memory_kind_t = 1;
pub const GPUOPT_MEMORY_MAPPED: gpuopt_memory_kind_t = 2;
pub const GPUOPT_MEMORY_COMPRESSIBLE: gpuopt_memory_kind_t = 3;
pub const GPUOPT_MEMORY_EXTERNAL: gpuopt_memory_kind_t = 4;

// ---- Variants and dispatch ----

/// `gpuopt_op_t`.
pub type gpuopt_op_t = c_int;
pub const GPUOPT_OP_AXPY: gpuopt_op_t = 0;
pub const GPUOPT_OP_GEMM: gpuopt_op_t = 1;
pub const GPUOPT_OP_REDUCE: gpuopt_op_t = 2;
pub const GPUOPT_OP_SEGMENTED_SORT: gpuopt_op_t = 3;
pub const GPUOPT_OP_STENCIL: gpuopt_op_t = 4;
pub const GPUOPT_OP_TRANSPOSE: gpuopt_op_t = 5;
pub const GPUOPT_OP_GDN: gpuopt_op_t = 6;

/// `gpuopt_dtype_t`.
pub type gpuopt_dtype_t = c_int;
pub const GPUOPT_DTYPE_F32: gpuopt_dtype_t = 0;
pub const GPUOPT_DTYPE_F64: gpuopt_dtype_t = 1;
pub const GPUOPT_DTYPE_F16: gpuopt_dtype_t = 2;
pub const GPUOPT_DTYPE_BF16: gpuopt_dtype_t = 3;
pub const GPUOPT_DTYPE_I32: gpuopt_dtype_t = 4;
pub const GPUOPT_DTYPE_I64: gpuopt_dtype_t = 5;
pub const GPUOPT_DTYPE_U32: gpuopt_dtype_t = 6;
pub const GPUOPT_DTYPE_U64: gpuopt_dtype_t = 7;

/// `gpuopt_allocator_t`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct gpuopt_allocator_t {
    pub struct_size: usize,
    pub allocate: Option<
        unsafe extern "C" fn(
            bytes: usize,
            cuda_stream: *mut c_void,
            user: *mut c_void,
        ) -> *mut c_void,
    >,
    pub deallocate: Option<
        unsafe extern "C" fn(
            ptr: *mut c_void,
            bytes: usize,
            cuda_stream: *mut c_void,
            user: *mut c_void,
        ),
    >,
    pub user: *mut c_void,
}

/// `gpuopt_variant_info_t`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct gpuopt_variant_info_t {
    pub struct_size: usize,
    pub name: *const c_char,
    pub technique: *const c_char,
    pub min_cc: c_int,
    pub exact_cc: c_int,
    pub is_vendor: c_int,
    pub available: c_int,
    pub dtype_mask: c_uint,
}

/// `gpuopt_tune_call_fn`: one call of the tuned op; `None` is the C NULL.
pub type gpuopt_tune_call_fn = Option<unsafe extern "C" fn(user: *mut c_void) -> gpuopt_status_t>;

/// `gpuopt_tune_result_t`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct gpuopt_tune_result_t {
    pub struct_size: usize,
    pub variant: *const c_char,
    pub ms: f64,
    pub timed: c_int,
    pub refused: c_int,
    pub config: *const c_char,
}

// ---- Operations ----

/// `gpuopt_transpose_t` (the GEMM operand's op, not the transpose operation).
pub type gpuopt_transpose_t = c_int;
pub const GPUOPT_TRANS_N: gpuopt_transpose_t = 0;
pub const GPUOPT_TRANS_T: gpuopt_transpose_t = 1;

/// `gpuopt_compute_t`.
pub type gpuopt_compute_t = c_int;
pub const GPUOPT_COMPUTE_DEFAULT: gpuopt_compute_t = 0;
pub const GPUOPT_COMPUTE_F32: gpuopt_compute_t = 1;
pub const GPUOPT_COMPUTE_TF32: gpuopt_compute_t = 2;
pub const GPUOPT_COMPUTE_F64: gpuopt_compute_t = 3;

/// `gpuopt_gemm_desc_t`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct gpuopt_gemm_desc_t {
    pub struct_size: usize,
    pub trans_a: gpuopt_transpose_t,
    pub trans_b: gpuopt_transpose_t,
    pub m: i64,
    pub n: i64,
    pub k: i64,
    pub alpha: c_double,
    pub beta: c_double,
    pub a_type: gpuopt_dtype_t,
    pub c_type: gpuopt_dtype_t,
    pub compute: gpuopt_compute_t,
    pub lda: i64,
    pub ldb: i64,
    pub ldc: i64,
    pub batch_count: i64,
    pub stride_a: i64,
    pub stride_b: i64,
    pub stride_c: i64,
}

/// `gpuopt_reduce_op_t`.
pub type gpuopt_reduce_op_t = c_int;
pub const GPUOPT_REDUCE_SUM: gpuopt_reduce_op_t = 0;
pub const GPUOPT_REDUCE_MIN: gpuopt_reduce_op_t = 1;
pub const GPUOPT_REDUCE_MAX: gpuopt_reduce_op_t = 2;
pub const GPUOPT_REDUCE_ARGMIN: gpuopt_reduce_op_t = 3;
pub const GPUOPT_REDUCE_ARGMAX: gpuopt_reduce_op_t = 4;

/// `gpuopt_reduce_mode_t`.
pub type gpuopt_reduce_mode_t = c_int;
pub const GPUOPT_REDUCE_DETERMINISTIC: gpuopt_reduce_mode_t = 0;
pub const GPUOPT_REDUCE_FAST: gpuopt_reduce_mode_t = 1;

/// `gpuopt_reduce_desc_t`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct gpuopt_reduce_desc_t {
    pub struct_size: usize,
    pub op: gpuopt_reduce_op_t,
    pub in_type: gpuopt_dtype_t,
    pub n: i64,
    pub num_segments: i64,
    pub segment_stride: i64,
    pub offsets: *const i64,
    pub mode: gpuopt_reduce_mode_t,
}

/// `gpuopt_sort_order_t`.
pub type gpuopt_sort_order_t = c_int;
pub const GPUOPT_SORT_ASCENDING: gpuopt_sort_order_t = 0;
pub const GPUOPT_SORT_DESCENDING: gpuopt_sort_order_t = 1;

/// `gpuopt_segmented_sort_desc_t`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct gpuopt_segmented_sort_desc_t {
    pub struct_size: usize,
    pub key_type: gpuopt_dtype_t,
    pub value_bytes: c_int,
    pub order: gpuopt_sort_order_t,
    pub num_items: i64,
    pub num_segments: i64,
    pub segment_size: i64,
    pub offsets: *const i64,
}

/// `gpuopt_boundary_t`.
pub type gpuopt_boundary_t = c_int;
pub const GPUOPT_BOUNDARY_ZERO: gpuopt_boundary_t = 0;
pub const GPUOPT_BOUNDARY_CLAMP: gpuopt_boundary_t = 1;

/// `GPUOPT_STENCIL_MAX_RADIUS`.
pub const GPUOPT_STENCIL_MAX_RADIUS: c_int = 8;

/// `gpuopt_stencil_desc_t`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct gpuopt_stencil_desc_t {
    pub struct_size: usize,
    pub dtype: gpuopt_dtype_t,
    pub dims: c_int,
    pub radius: c_int,
    pub boundary: gpuopt_boundary_t,
    pub nx: i64,
    pub ny: i64,
    pub nz: i64,
    pub in_pitch: i64,
    pub in_slice_pitch: i64,
    pub out_pitch: i64,
    pub out_slice_pitch: i64,
    pub coeffs: *const c_double,
}

/// `gpuopt_transpose_desc_t`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct gpuopt_transpose_desc_t {
    pub struct_size: usize,
    pub dtype: gpuopt_dtype_t,
    pub rows: i64,
    pub cols: i64,
    pub lda: i64,
    pub ldb: i64,
}

/// `gpuopt_gdn_pass_t`.
pub type gpuopt_gdn_pass_t = c_int;
pub const GPUOPT_GDN_FORWARD: gpuopt_gdn_pass_t = 0;
pub const GPUOPT_GDN_BACKWARD: gpuopt_gdn_pass_t = 1;

/// `gpuopt_gdn_desc_t`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct gpuopt_gdn_desc_t {
    pub struct_size: usize,
    pub batch: i64,
    pub channels: i64,
    pub height: i64,
    pub width: i64,
    pub inverse: c_int,
    pub compute: gpuopt_compute_t,
}

// ---- Multi-GPU: communicators, collectives, grids, distributed GEMM ----

/// Opaque `struct gpuopt_comm_s`.
#[repr(C)]
pub struct gpuopt_comm_s {
    _private: [u8; 0],
}
/// `gpuopt_comm_t`.
pub type gpuopt_comm_t = *mut gpuopt_comm_s;
/// Opaque `struct gpuopt_grid_s`.
#[repr(C)]
pub struct gpuopt_grid_s {
    _private: [u8; 0],
}
/// `gpuopt_grid_t`.
pub type gpuopt_grid_t = *mut gpuopt_grid_s;

pub const GPUOPT_COMM_ID_BYTES: c_int = 128;
pub const GPUOPT_COMM_ID_HEX_SIZE: c_int = 257;
pub const GPUOPT_COMM_SPLIT_NONE: c_int = -1;

/// `gpuopt_comm_id_t`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct gpuopt_comm_id_t {
    pub bytes: [u8; 128],
}

/// `gpuopt_dist_desc_t`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct gpuopt_dist_desc_t {
    pub struct_size: usize,
    pub dtype: gpuopt_dtype_t,
    pub rows: i64,
    pub cols: i64,
    pub row_block: i64,
    pub col_block: i64,
    pub grid_rows: c_int,
    pub grid_cols: c_int,
    pub ld: i64,
}

/// `gpuopt_gemm_dist_desc_t`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct gpuopt_gemm_dist_desc_t {
    pub struct_size: usize,
    pub m: i64,
    pub n: i64,
    pub k: i64,
    pub alpha: f64,
    pub beta: f64,
    pub a_type: gpuopt_dtype_t,
    pub c_type: gpuopt_dtype_t,
    pub compute: gpuopt_compute_t,
    pub mb: i64,
    pub nb: i64,
    pub kb: i64,
    pub lda: i64,
    pub ldb: i64,
    pub ldc: i64,
}

extern "C" {
    // Version, status and errors
    pub fn gpuopt_version() -> c_int;
    pub fn gpuopt_version_string() -> *const c_char;
    pub fn gpuopt_status_name(status: gpuopt_status_t) -> *const c_char;
    pub fn gpuopt_last_error_message(
        buf: *mut c_char,
        size: usize,
        length: *mut usize,
    ) -> gpuopt_status_t;

    // Logging
    pub fn gpuopt_set_log_callback(fn_: gpuopt_log_fn, user: *mut c_void) -> gpuopt_status_t;
    pub fn gpuopt_set_log_level(level: gpuopt_log_level_t) -> gpuopt_status_t;
    pub fn gpuopt_get_log_level(level: *mut gpuopt_log_level_t) -> gpuopt_status_t;

    // Devices
    pub fn gpuopt_device_count(count: *mut c_int) -> gpuopt_status_t;
    pub fn gpuopt_device_info(device: c_int, info: *mut gpuopt_device_info_t) -> gpuopt_status_t;

    // Contexts
    pub fn gpuopt_context_create(device: c_int, ctx: *mut gpuopt_context_t) -> gpuopt_status_t;
    pub fn gpuopt_context_destroy(ctx: gpuopt_context_t) -> gpuopt_status_t;
    pub fn gpuopt_context_device_info(
        ctx: gpuopt_context_t,
        info: *mut gpuopt_device_info_t,
    ) -> gpuopt_status_t;
    pub fn gpuopt_context_set_allocator(
        ctx: gpuopt_context_t,
        allocator: *const gpuopt_allocator_t,
    ) -> gpuopt_status_t;
    pub fn gpuopt_context_set_pointer_checks(
        ctx: gpuopt_context_t,
        mode: gpuopt_pointer_checks_t,
    ) -> gpuopt_status_t;
    pub fn gpuopt_context_pointer_checks(
        ctx: gpuopt_context_t,
        mode: *mut gpuopt_pointer_checks_t,
    ) -> gpuopt_status_t;
    pub fn gpuopt_context_forget_pointers(ctx: gpuopt_context_t) -> gpuopt_status_t;

    // Streams
    pub fn gpuopt_stream_create(
        ctx: gpuopt_context_t,
        stream: *mut gpuopt_stream_t,
    ) -> gpuopt_status_t;
    pub fn gpuopt_stream_wrap(
        ctx: gpuopt_context_t,
        cuda_stream: *mut c_void,
        stream: *mut gpuopt_stream_t,
    ) -> gpuopt_status_t;
    pub fn gpuopt_stream_native(
        stream: gpuopt_stream_t,
        cuda_stream: *mut *mut c_void,
    ) -> gpuopt_status_t;
    pub fn gpuopt_stream_synchronize(stream: gpuopt_stream_t) -> gpuopt_status_t;
    pub fn gpuopt_stream_destroy(stream: gpuopt_stream_t) -> gpuopt_status_t;

    // Buffers
    pub fn gpuopt_buffer_create(
        ctx: gpuopt_context_t,
        bytes: usize,
        kind: gpuopt_memory_kind_t,
        buffer: *mut gpuopt_buffer_t,
    ) -> gpuopt_status_t;
    pub fn gpuopt_buffer_wrap(
        ctx: gpuopt_context_t,
        device_ptr: *mut c_void,
        bytes: usize,
        buffer: *mut gpuopt_buffer_t,
    ) -> gpuopt_status_t;
    pub fn gpuopt_buffer_device_pointer(
        buffer: gpuopt_buffer_t,
        ptr: *mut *mut c_void,
    ) -> gpuopt_status_t;
    pub fn gpuopt_buffer_host_pointer(
        buffer: gpuopt_buffer_t,
        ptr: *mut *mut c_void,
    ) -> gpuopt_status_t;
    pub fn gpuopt_buffer_size(buffer: gpuopt_buffer_t, bytes: *mut usize) -> gpuopt_status_t;
    pub fn gpuopt_buffer_kind(
        buffer: gpuopt_buffer_t,
        kind: *mut gpuopt_memory_kind_t,
    ) -> gpuopt_status_t;
    pub fn gpuopt_buffer_is_compressed(
        buffer: gpuopt_buffer_t,
        compressed: *mut c_int,
    ) -> gpuopt_status_t;
    pub fn gpuopt_buffer_copy_from_host(
        buffer: gpuopt_buffer_t,
        stream: gpuopt_stream_t,
        offset: usize,
        src: *const c_void,
        bytes: usize,
    ) -> gpuopt_status_t;
    pub fn gpuopt_buffer_copy_to_host(
        buffer: gpuopt_buffer_t,
        stream: gpuopt_stream_t,
        offset: usize,
        dst: *mut c_void,
        bytes: usize,
    ) -> gpuopt_status_t;
    pub fn gpuopt_buffer_destroy(buffer: gpuopt_buffer_t) -> gpuopt_status_t;
    pub fn gpuopt_buffer_destroy_async(
        buffer: gpuopt_buffer_t,
        stream: gpuopt_stream_t,
    ) -> gpuopt_status_t;

    // Graphs
    pub fn gpuopt_graph_begin(ctx: gpuopt_context_t, stream: gpuopt_stream_t) -> gpuopt_status_t;
    pub fn gpuopt_graph_end(stream: gpuopt_stream_t, graph: *mut gpuopt_graph_t)
        -> gpuopt_status_t;
    pub fn gpuopt_graph_end_update(
        stream: gpuopt_stream_t,
        graph: gpuopt_graph_t,
        in_place: *mut c_int,
    ) -> gpuopt_status_t;
    pub fn gpuopt_graph_launch(graph: gpuopt_graph_t, stream: gpuopt_stream_t) -> gpuopt_status_t;
    pub fn gpuopt_graph_destroy(graph: gpuopt_graph_t) -> gpuopt_status_t;

    // Variants and dispatch
    pub fn gpuopt_op_name(op: gpuopt_op_t) -> *const c_char;
    pub fn gpuopt_dtype_name(dtype: gpuopt_dtype_t) -> *const c_char;
    pub fn gpuopt_variant_count(
        ctx: gpuopt_context_t,
        op: gpuopt_op_t,
        count: *mut c_int,
    ) -> gpuopt_status_t;
    pub fn gpuopt_variant_name(
        ctx: gpuopt_context_t,
        op: gpuopt_op_t,
        index: c_int,
        name: *mut *const c_char,
    ) -> gpuopt_status_t;
    pub fn gpuopt_variant_info(
        ctx: gpuopt_context_t,
        op: gpuopt_op_t,
        index: c_int,
        info: *mut gpuopt_variant_info_t,
    ) -> gpuopt_status_t;
    pub fn gpuopt_context_set_variant(
        ctx: gpuopt_context_t,
        op: gpuopt_op_t,
        name: *const c_char,
    ) -> gpuopt_status_t;
    pub fn gpuopt_context_get_variant(
        ctx: gpuopt_context_t,
        op: gpuopt_op_t,
        name: *mut *const c_char,
    ) -> gpuopt_status_t;
    pub fn gpuopt_last_variant(
        ctx: gpuopt_context_t,
        op: gpuopt_op_t,
        name: *mut *const c_char,
    ) -> gpuopt_status_t;

    // Tuning cache
    pub fn gpuopt_context_set_tune_cache(
        ctx: gpuopt_context_t,
        path: *const c_char,
    ) -> gpuopt_status_t;
    pub fn gpuopt_context_tune_cache_entries(
        ctx: gpuopt_context_t,
        entries: *mut c_int,
    ) -> gpuopt_status_t;
    pub fn gpuopt_tune(
        ctx: gpuopt_context_t,
        stream: gpuopt_stream_t,
        op: gpuopt_op_t,
        call: gpuopt_tune_call_fn,
        user: *mut c_void,
        budget_seconds: f64,
        result: *mut gpuopt_tune_result_t,
    ) -> gpuopt_status_t;

    // Operations
    pub fn gpuopt_axpy(
        ctx: gpuopt_context_t,
        stream: gpuopt_stream_t,
        dtype: gpuopt_dtype_t,
        n: i64,
        alpha: c_double,
        x: *const c_void,
        incx: i64,
        y: *mut c_void,
        incy: i64,
    ) -> gpuopt_status_t;
    pub fn gpuopt_gemm(
        ctx: gpuopt_context_t,
        stream: gpuopt_stream_t,
        desc: *const gpuopt_gemm_desc_t,
        a: *const c_void,
        b: *const c_void,
        c: *mut c_void,
    ) -> gpuopt_status_t;
    pub fn gpuopt_reduce(
        ctx: gpuopt_context_t,
        stream: gpuopt_stream_t,
        desc: *const gpuopt_reduce_desc_t,
        input: *const c_void,
        out: *mut c_void,
    ) -> gpuopt_status_t;
    pub fn gpuopt_reduce_op_name(op: gpuopt_reduce_op_t) -> *const c_char;
    pub fn gpuopt_segmented_sort_workspace_size(
        ctx: gpuopt_context_t,
        desc: *const gpuopt_segmented_sort_desc_t,
        bytes: *mut usize,
    ) -> gpuopt_status_t;
    pub fn gpuopt_segmented_sort(
        ctx: gpuopt_context_t,
        stream: gpuopt_stream_t,
        desc: *const gpuopt_segmented_sort_desc_t,
        keys_in: *const c_void,
        keys_out: *mut c_void,
        values_in: *const c_void,
        values_out: *mut c_void,
        workspace: *mut c_void,
        workspace_bytes: usize,
    ) -> gpuopt_status_t;
    pub fn gpuopt_stencil(
        ctx: gpuopt_context_t,
        stream: gpuopt_stream_t,
        desc: *const gpuopt_stencil_desc_t,
        input: *const c_void,
        out: *mut c_void,
    ) -> gpuopt_status_t;
    pub fn gpuopt_transpose(
        ctx: gpuopt_context_t,
        stream: gpuopt_stream_t,
        desc: *const gpuopt_transpose_desc_t,
        a: *const c_void,
        b: *mut c_void,
    ) -> gpuopt_status_t;
    pub fn gpuopt_gdn_workspace_size(
        ctx: gpuopt_context_t,
        desc: *const gpuopt_gdn_desc_t,
        pass: gpuopt_gdn_pass_t,
        bytes: *mut usize,
    ) -> gpuopt_status_t;
    pub fn gpuopt_gdn_forward(
        ctx: gpuopt_context_t,
        stream: gpuopt_stream_t,
        desc: *const gpuopt_gdn_desc_t,
        x: *const f32,
        beta: *const f32,
        gamma: *const f32,
        y: *mut f32,
        workspace: *mut c_void,
        workspace_bytes: usize,
    ) -> gpuopt_status_t;
    pub fn gpuopt_gdn_backward(
        ctx: gpuopt_context_t,
        stream: gpuopt_stream_t,
        desc: *const gpuopt_gdn_desc_t,
        x: *const f32,
        beta: *const f32,
        gamma: *const f32,
        dy: *const f32,
        dx: *mut f32,
        dbeta: *mut f32,
        dgamma: *mut f32,
        workspace: *mut c_void,
        workspace_bytes: usize,
    ) -> gpuopt_status_t;
    pub fn gpuopt_comm_nccl_version(version: *mut c_int) -> gpuopt_status_t;
    pub fn gpuopt_comm_id_create(id: *mut gpuopt_comm_id_t) -> gpuopt_status_t;
    pub fn gpuopt_comm_id_to_hex(
        id: *const gpuopt_comm_id_t,
        hex: *mut c_char,
        size: usize,
    ) -> gpuopt_status_t;
    pub fn gpuopt_comm_id_from_hex(
        hex: *const c_char,
        id: *mut gpuopt_comm_id_t,
    ) -> gpuopt_status_t;
    pub fn gpuopt_comm_create(
        ctx: gpuopt_context_t,
        id: *const gpuopt_comm_id_t,
        nranks: c_int,
        rank: c_int,
        comm: *mut gpuopt_comm_t,
    ) -> gpuopt_status_t;
    pub fn gpuopt_comm_create_local(
        ctxs: *const gpuopt_context_t,
        count: c_int,
        comms: *mut gpuopt_comm_t,
    ) -> gpuopt_status_t;
    pub fn gpuopt_comm_split(
        comm: gpuopt_comm_t,
        color: c_int,
        key: c_int,
        out: *mut gpuopt_comm_t,
    ) -> gpuopt_status_t;
    pub fn gpuopt_comm_rank(comm: gpuopt_comm_t, rank: *mut c_int) -> gpuopt_status_t;
    pub fn gpuopt_comm_size(comm: gpuopt_comm_t, size: *mut c_int) -> gpuopt_status_t;
    pub fn gpuopt_comm_device(comm: gpuopt_comm_t, device: *mut c_int) -> gpuopt_status_t;
    pub fn gpuopt_comm_set_checked(comm: gpuopt_comm_t, checked: c_int) -> gpuopt_status_t;
    pub fn gpuopt_comm_status(comm: gpuopt_comm_t) -> gpuopt_status_t;
    pub fn gpuopt_comm_abort(comm: gpuopt_comm_t) -> gpuopt_status_t;
    pub fn gpuopt_comm_destroy(comm: gpuopt_comm_t) -> gpuopt_status_t;
    pub fn gpuopt_group_begin() -> gpuopt_status_t;
    pub fn gpuopt_group_end() -> gpuopt_status_t;
    pub fn gpuopt_allreduce(
        comm: gpuopt_comm_t,
        stream: gpuopt_stream_t,
        dtype: gpuopt_dtype_t,
        op: gpuopt_reduce_op_t,
        send: *const c_void,
        recv: *mut c_void,
        count: i64,
    ) -> gpuopt_status_t;
    pub fn gpuopt_reduce_scatter(
        comm: gpuopt_comm_t,
        stream: gpuopt_stream_t,
        dtype: gpuopt_dtype_t,
        op: gpuopt_reduce_op_t,
        send: *const c_void,
        recv: *mut c_void,
        recv_count: i64,
    ) -> gpuopt_status_t;
    pub fn gpuopt_allgather(
        comm: gpuopt_comm_t,
        stream: gpuopt_stream_t,
        dtype: gpuopt_dtype_t,
        send: *const c_void,
        recv: *mut c_void,
        send_count: i64,
    ) -> gpuopt_status_t;
    pub fn gpuopt_broadcast(
        comm: gpuopt_comm_t,
        stream: gpuopt_stream_t,
        dtype: gpuopt_dtype_t,
        send: *const c_void,
        recv: *mut c_void,
        count: i64,
        root: c_int,
    ) -> gpuopt_status_t;
    pub fn gpuopt_reduce_dist(
        comm: gpuopt_comm_t,
        stream: gpuopt_stream_t,
        desc: *const gpuopt_reduce_desc_t,
        input: *const c_void,
        out: *mut c_void,
    ) -> gpuopt_status_t;
    pub fn gpuopt_grid_create(
        comm: gpuopt_comm_t,
        grid_rows: c_int,
        grid_cols: c_int,
        grid: *mut gpuopt_grid_t,
    ) -> gpuopt_status_t;
    pub fn gpuopt_grid_info(
        grid: gpuopt_grid_t,
        grid_rows: *mut c_int,
        grid_cols: *mut c_int,
        my_row: *mut c_int,
        my_col: *mut c_int,
    ) -> gpuopt_status_t;
    pub fn gpuopt_grid_destroy(grid: gpuopt_grid_t) -> gpuopt_status_t;
    pub fn gpuopt_dist_local_shape(
        desc: *const gpuopt_dist_desc_t,
        grid_row: c_int,
        grid_col: c_int,
        local_rows: *mut i64,
        local_cols: *mut i64,
    ) -> gpuopt_status_t;
    pub fn gpuopt_dist_locate(
        desc: *const gpuopt_dist_desc_t,
        i: i64,
        j: i64,
        grid_row: *mut c_int,
        grid_col: *mut c_int,
        local_i: *mut i64,
        local_j: *mut i64,
    ) -> gpuopt_status_t;
    pub fn gpuopt_dist_scatter(
        grid: gpuopt_grid_t,
        stream: gpuopt_stream_t,
        desc: *const gpuopt_dist_desc_t,
        root: c_int,
        src: *const c_void,
        ld_src: i64,
        local: *mut c_void,
    ) -> gpuopt_status_t;
    pub fn gpuopt_dist_gather(
        grid: gpuopt_grid_t,
        stream: gpuopt_stream_t,
        desc: *const gpuopt_dist_desc_t,
        root: c_int,
        local: *const c_void,
        dst: *mut c_void,
        ld_dst: i64,
    ) -> gpuopt_status_t;
    pub fn gpuopt_gemm_dist_workspace_size(
        grid: gpuopt_grid_t,
        desc: *const gpuopt_gemm_dist_desc_t,
        bytes: *mut usize,
    ) -> gpuopt_status_t;
    pub fn gpuopt_gemm_dist(
        grid: gpuopt_grid_t,
        stream: gpuopt_stream_t,
        desc: *const gpuopt_gemm_dist_desc_t,
        a: *const c_void,
        b: *const c_void,
        c: *mut c_void,
        workspace: *mut c_void,
        workspace_bytes: usize,
    ) -> gpuopt_status_t;
}
