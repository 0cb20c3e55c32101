"""ctypes mirrors of the structs of gpuopt.h.

Each struct that starts with ``struct_size`` sets it to its own ``sizeof`` when constructed, so
``GemmDesc(m=4, ...)`` is ready to pass. Field order and types follow the header exactly; the
ctest ``python_binding_tests`` compares every size and offset with the C compiler's.
"""
import ctypes

c_size_t = ctypes.c_size_t
c_int = ctypes.c_int
c_int64 = ctypes.c_int64
c_double = ctypes.c_double
c_void_p = ctypes.c_void_p


class _Sized(ctypes.Structure):
    """A struct whose first field is struct_size, set to sizeof(struct) on construction."""

    def __init__(self, **fields):
        super().__init__()
        self.struct_size = ctypes.sizeof(self)
        for name, value in fields.items():
            if not hasattr(type(self), name):
                raise TypeError(f"{type(self).__name__} has no field {name!r}")
            setattr(self, name, value)

    def __repr__(self):
        parts = ", ".join(f"{n}={getattr(self, n)!r}" for n, _ in self._fields_[1:])
        return f"{type(self).__name__}({parts})"


class DeviceInfo(_Sized):
    """gpuopt_device_info_t."""
    _fields_ = [
        ("struct_size", c_size_t),
        ("device", c_int),
        ("name", ctypes.c_char * 256),
        ("cc_major", c_int),
        ("cc_minor", c_int),
        ("sm_count", c_int),
        ("max_threads_per_sm", c_int),
        ("total_memory", c_size_t),
        ("l2_cache_bytes", c_size_t),
        ("shared_memory_per_block_optin", c_size_t),
        ("shared_memory_per_sm", c_size_t),
        ("supports_clusters", c_int),
        ("supports_tma", c_int),
        ("supports_compression", c_int),
        ("supports_mapped_memory", c_int),
        ("memory_clock_khz", c_int),
        ("memory_bus_width_bits", c_int),
        ("theoretical_bandwidth_gbs", c_double),
        ("driver_version", c_int),
        ("runtime_version", c_int),
    ]


#: void* allocate(size_t bytes, void* cuda_stream, void* user)
ALLOCATE_FN = ctypes.CFUNCTYPE(c_void_p, c_size_t, c_void_p, c_void_p)
#: void deallocate(void* ptr, size_t bytes, void* cuda_stream, void* user)
DEALLOCATE_FN = ctypes.CFUNCTYPE(None, c_void_p, c_size_t, c_void_p, c_void_p)


class Allocator(_Sized):
    """gpuopt_allocator_t: device-memory callbacks for Context.set_allocator."""
    _fields_ = [
        ("struct_size", c_size_t),
        ("allocate", ALLOCATE_FN),
        ("deallocate", DEALLOCATE_FN),
        ("user", c_void_p),
    ]


class VariantInfo(_Sized):
    """gpuopt_variant_info_t (name and technique are static C strings)."""
    _fields_ = [
        ("struct_size", c_size_t),
        ("name", ctypes.c_char_p),
        ("technique", ctypes.c_char_p),
        ("min_cc", c_int),
        ("exact_cc", c_int),
        ("is_vendor", c_int),
        ("available", c_int),
        ("dtype_mask", ctypes.c_uint),
    ]


#: gpuopt_tune_call_fn: gpuopt_status_t (*)(void* user)
TUNE_CALL_FN = ctypes.CFUNCTYPE(c_int, c_void_p)


class TuneResult(_Sized):
    """gpuopt_tune_result_t: what Context.tune measured (variant and config are static C
    strings; config is None for the rung's own rule, else e.g. b"coop_c2", b"algo3")."""
    _fields_ = [
        ("struct_size", c_size_t),
        ("variant", ctypes.c_char_p),
        ("ms", c_double),
        ("timed", c_int),
        ("refused", c_int),
        ("config", ctypes.c_char_p),
    ]


class GemmDesc(_Sized):
    """gpuopt_gemm_desc_t: C = alpha op(A) op(B) + beta C, column-major."""
    _fields_ = [
        ("struct_size", c_size_t),
        ("trans_a", c_int),
        ("trans_b", c_int),
        ("m", c_int64),
        ("n", c_int64),
        ("k", c_int64),
        ("alpha", c_double),
        ("beta", c_double),
        ("a_type", c_int),
        ("c_type", c_int),
        ("compute", c_int),
        ("lda", c_int64),
        ("ldb", c_int64),
        ("ldc", c_int64),
        ("batch_count", c_int64),
        ("stride_a", c_int64),
        ("stride_b", c_int64),
        ("stride_c", c_int64),
    ]


class ReduceDesc(_Sized):
    """gpuopt_reduce_desc_t (offsets: a device pointer as an integer, or None)."""
    _fields_ = [
        ("struct_size", c_size_t),
        ("op", c_int),
        ("in_type", c_int),
        ("n", c_int64),
        ("num_segments", c_int64),
        ("segment_stride", c_int64),
        ("offsets", c_void_p),
        ("mode", c_int),
    ]


class SegmentedSortDesc(_Sized):
    """gpuopt_segmented_sort_desc_t (offsets: a device pointer as an integer, or None)."""
    _fields_ = [
        ("struct_size", c_size_t),
        ("key_type", c_int),
        ("value_bytes", c_int),
        ("order", c_int),
        ("num_items", c_int64),
        ("num_segments", c_int64),
        ("segment_size", c_int64),
        ("offsets", c_void_p),
    ]


class StencilDesc(_Sized):
    """gpuopt_stencil_desc_t (coeffs: a host array of doubles, see set_coeffs())."""
    _fields_ = [
        ("struct_size", c_size_t),
        ("dtype", c_int),
        ("dims", c_int),
        ("radius", c_int),
        ("boundary", c_int),
        ("nx", c_int64),
        ("ny", c_int64),
        ("nz", c_int64),
        ("in_pitch", c_int64),
        ("in_slice_pitch", c_int64),
        ("out_pitch", c_int64),
        ("out_slice_pitch", c_int64),
        ("coeffs", ctypes.POINTER(c_double)),
    ]

    def set_coeffs(self, values):
        """Copies a sequence of floats into a host array this descriptor keeps alive."""
        arr = (c_double * len(values))(*values)
        self._coeffs_keepalive = arr
        self.coeffs = ctypes.cast(arr, ctypes.POINTER(c_double))


class TransposeDesc(_Sized):
    """gpuopt_transpose_desc_t: B = A^T, column-major."""
    _fields_ = [
        ("struct_size", c_size_t),
        ("dtype", c_int),
        ("rows", c_int64),
        ("cols", c_int64),
        ("lda", c_int64),
        ("ldb", c_int64),
    ]


class GdnDesc(_Sized):
    """gpuopt_gdn_desc_t: GDN over a contiguous NCHW f32 tensor."""
    _fields_ = [
        ("struct_size", c_size_t),
        ("batch", c_int64),
        ("channels", c_int64),
        ("height", c_int64),
        ("width", c_int64),
        ("inverse", c_int),
        ("compute", c_int),
    ]


class CommId(ctypes.Structure):
    """gpuopt_comm_id_t: a communicator's rendezvous id (128 opaque bytes)."""
    _fields_ = [("bytes", ctypes.c_ubyte * 128)]


class DistDesc(_Sized):
    """gpuopt_dist_desc_t: a matrix distributed block-cyclically over a process grid."""
    _fields_ = [
        ("struct_size", c_size_t),
        ("dtype", c_int),
        ("rows", c_int64),
        ("cols", c_int64),
        ("row_block", c_int64),
        ("col_block", c_int64),
        ("grid_rows", c_int),
        ("grid_cols", c_int),
        ("ld", c_int64),
    ]


class GemmDistDesc(_Sized):
    """gpuopt_gemm_dist_desc_t: C = alpha A B + beta C over a process grid (SUMMA)."""
    _fields_ = [
        ("struct_size", c_size_t),
        ("m", c_int64),
        ("n", c_int64),
        ("k", c_int64),
        ("alpha", c_double),
        ("beta", c_double),
        ("a_type", c_int),
        ("c_type", c_int),
        ("compute", c_int),
        ("mb", c_int64),
        ("nb", c_int64),
        ("kb", c_int64),
        ("lda", c_int64),
        ("ldb", c_int64),
        ("ldc", c_int64),
    ]


#: Every struct of gpuopt.h by its C name (the layout test walks this).
STRUCTS = {
    "gpuopt_device_info_t": DeviceInfo,
    "gpuopt_variant_info_t": VariantInfo,
    "gpuopt_allocator_t": Allocator,
    "gpuopt_tune_result_t": TuneResult,
    "gpuopt_gemm_desc_t": GemmDesc,
    "gpuopt_reduce_desc_t": ReduceDesc,
    "gpuopt_segmented_sort_desc_t": SegmentedSortDesc,
    "gpuopt_stencil_desc_t": StencilDesc,
    "gpuopt_transpose_desc_t": TransposeDesc,
    "gpuopt_gdn_desc_t": GdnDesc,
    "gpuopt_comm_id_t": CommId,
    "gpuopt_dist_desc_t": DistDesc,
    "gpuopt_gemm_dist_desc_t": GemmDistDesc,
}
