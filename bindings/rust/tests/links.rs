//! Takes the address of every function of gpuopt.h, so the linker must resolve each one in
//! the library this crate links (a function the header declares but the library does not
//! export fails here). tests/header_sync.rs checks that this list is complete.
use gpuopt::sys;

#[test]
fn every_function_resolves() {
    let addresses: &[*const ()] = &[
        sys::gpuopt_version as *const (),
        sys::gpuopt_version_string as *const (),
        sys::gpuopt_status_name as *const (),
        sys::gpuopt_last_error_message as *const (),
        sys::gpuopt_device_count as *const (),
        sys::gpuopt_device_info as *const (),
        sys::gpuopt_context_create as *const (),
        sys::gpuopt_context_destroy as *const (),
        sys::gpuopt_context_device_info as *const (),
        sys::gpuopt_stream_create as *const (),
        sys::gpuopt_stream_wrap as *const (),
        sys::gpuopt_stream_native as *const (),
        sys::gpuopt_stream_synchronize as *const (),
        sys::gpuopt_stream_destroy as *const (),
        sys::gpuopt_buffer_create as *const (),
        sys::gpuopt_buffer_wrap as *const (),
        sys::gpuopt_buffer_device_pointer as *const (),
        sys::gpuopt_buffer_host_pointer as *const (),
        sys::gpuopt_buffer_size as *const (),
        sys::gpuopt_buffer_kind as *const (),
        sys::gpuopt_buffer_is_compressed as *const (),
        sys::gpuopt_buffer_copy_from_host as *const (),
        sys::gpuopt_buffer_copy_to_host as *const (),
        sys::gpuopt_buffer_destroy as *const (),
        sys::gpuopt_graph_begin as *const (),
        sys::gpuopt_graph_end as *const (),
        sys::gpuopt_graph_end_update as *const (),
        sys::gpuopt_graph_launch as *const (),
        sys::gpuopt_graph_destroy as *const (),
        sys::gpuopt_op_name as *const (),
        sys::gpuopt_dtype_name as *const (),
        sys::gpuopt_variant_count as *const (),
        sys::gpuopt_variant_name as *const (),
        sys::gpuopt_variant_info as *const (),
        sys::gpuopt_context_set_variant as *const (),
        sys::gpuopt_context_get_variant as *const (),
        sys::gpuopt_last_variant as *const (),
        sys::gpuopt_axpy as *const (),
        sys::gpuopt_gemm as *const (),
        sys::gpuopt_reduce as *const (),
        sys::gpuopt_reduce_op_name as *const (),
        sys::gpuopt_segmented_sort_workspace_size as *const (),
        sys::gpuopt_segmented_sort as *const (),
        sys::gpuopt_stencil as *const (),
        sys::gpuopt_transpose as *const (),
        sys::gpuopt_gdn_workspace_size as *const (),
        sys::gpuopt_gdn_forward as *const (),
        sys::gpuopt_gdn_backward as *const (),
    ];
    assert!(addresses.iter().all(|p| !p.is_null()));
}
