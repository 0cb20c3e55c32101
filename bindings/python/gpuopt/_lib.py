"""Loads libgpuopt and declares the prototype of every function of gpuopt.h.

Where the library comes from, first match wins:
  1. the path in the environment variable GPUOPT_LIBRARY;
  2. libgpuopt.so.0 / libgpuopt.so inside this package (where ``pip install`` puts the copy the
     wheel carries: pyproject.toml), or in <prefix>/lib (or lib64) when the package is the one
     ``cmake --install`` put in <prefix>/share/gpuopt/python/gpuopt;
  3. ctypes.util.find_library("gpuopt") and then "libgpuopt.so.0" through the loader's search path
     (LD_LIBRARY_PATH, the ldconfig cache).

Kept in step with include/gpuopt.h by the ctest ``python_binding_coverage``: every function the
header declares must be named here (as a string) in _PROTOTYPES.
"""
import ctypes
import ctypes.util
import os

from . import _types as t

_p = ctypes.c_void_p
_int = ctypes.c_int
_i64 = ctypes.c_int64
_size = ctypes.c_size_t
_dbl = ctypes.c_double
_str = ctypes.c_char_p
_pint = ctypes.POINTER(ctypes.c_int)
_psize = ctypes.POINTER(ctypes.c_size_t)
_pp = ctypes.POINTER(ctypes.c_void_p)
_pstr = ctypes.POINTER(ctypes.c_char_p)
_S = ctypes.c_int  # gpuopt_status_t
#: gpuopt_log_fn: void (*)(gpuopt_log_level_t level, const char* message, void* user)
LOG_FN = ctypes.CFUNCTYPE(None, ctypes.c_int, ctypes.c_char_p, ctypes.c_void_p)


def _ptr(struct):
    return ctypes.POINTER(struct)


# name -> (restype, argtypes). Handles and device pointers are void*; enums are int.
_PROTOTYPES = {
    # base
    "gpuopt_version": (_int, []),
    "gpuopt_version_string": (_str, []),
    "gpuopt_status_name": (_str, [_int]),
    "gpuopt_last_error_message": (_S, [ctypes.c_char_p, _size, _psize]),
    # logging
    "gpuopt_set_log_callback": (_S, [_p, _p]),  # a LOG_FN thunk as void* (None: NULL)
    "gpuopt_set_log_level": (_S, [_int]),
    "gpuopt_get_log_level": (_S, [_pint]),
    # devices
    "gpuopt_device_count": (_S, [_pint]),
    "gpuopt_device_info": (_S, [_int, _ptr(t.DeviceInfo)]),
    # contexts
    "gpuopt_context_create": (_S, [_int, _pp]),
    "gpuopt_context_destroy": (_S, [_p]),
    "gpuopt_context_device_info": (_S, [_p, _ptr(t.DeviceInfo)]),
    "gpuopt_context_set_allocator": (_S, [_p, _ptr(t.Allocator)]),
    "gpuopt_context_set_pointer_checks": (_S, [_p, _int]),
    "gpuopt_context_pointer_checks": (_S, [_p, _pint]),
    "gpuopt_context_forget_pointers": (_S, [_p]),
    # streams
    "gpuopt_stream_create": (_S, [_p, _pp]),
    "gpuopt_stream_wrap": (_S, [_p, _p, _pp]),
    "gpuopt_stream_native": (_S, [_p, _pp]),
    "gpuopt_stream_synchronize": (_S, [_p]),
    "gpuopt_stream_destroy": (_S, [_p]),
    # buffers
    "gpuopt_buffer_create": (_S, [_p, _size, _int, _pp]),
    "gpuopt_buffer_wrap": (_S, [_p, _p, _size, _pp]),
    "gpuopt_buffer_device_pointer": (_S, [_p, _pp]),
    "gpuopt_buffer_host_pointer": (_S, [_p, _pp]),
    "gpuopt_buffer_size": (_S, [_p, _psize]),
    "gpuopt_buffer_kind": (_S, [_p, _pint]),
    "gpuopt_buffer_is_compressed": (_S, [_p, _pint]),
    "gpuopt_buffer_copy_from_host": (_S, [_p, _p, _size, _p, _size]),
    "gpuopt_buffer_copy_to_host": (_S, [_p, _p, _size, _p, _size]),
    "gpuopt_buffer_destroy": (_S, [_p]),
    "gpuopt_buffer_destroy_async": (_S, [_p, _p]),
    # graphs
    "gpuopt_graph_begin": (_S, [_p, _p]),
    "gpuopt_graph_end": (_S, [_p, _pp]),
    "gpuopt_graph_end_update": (_S, [_p, _p, _pint]),
    "gpuopt_graph_launch": (_S, [_p, _p]),
    "gpuopt_graph_destroy": (_S, [_p]),
    # variants and dispatch
    "gpuopt_op_name": (_str, [_int]),
    "gpuopt_dtype_name": (_str, [_int]),
    "gpuopt_variant_count": (_S, [_p, _int, _pint]),
    "gpuopt_variant_name": (_S, [_p, _int, _int, _pstr]),
    "gpuopt_variant_info": (_S, [_p, _int, _int, _ptr(t.VariantInfo)]),
    "gpuopt_context_set_variant": (_S, [_p, _int, _str]),
    "gpuopt_context_get_variant": (_S, [_p, _int, _pstr]),
    "gpuopt_last_variant": (_S, [_p, _int, _pstr]),
    # tuning cache
    "gpuopt_context_set_tune_cache": (_S, [_p, _str]),
    "gpuopt_context_tune_cache_entries": (_S, [_p, _pint]),
    # call: a TUNE_CALL_FN thunk as void* (None: NULL)
    "gpuopt_tune": (_S, [_p, _p, _int, _p, _p, _dbl, _ptr(t.TuneResult)]),
    # operations
    "gpuopt_axpy": (_S, [_p, _p, _int, _i64, _dbl, _p, _i64, _p, _i64]),
    "gpuopt_gemm": (_S, [_p, _p, _ptr(t.GemmDesc), _p, _p, _p]),
    "gpuopt_reduce": (_S, [_p, _p, _ptr(t.ReduceDesc), _p, _p]),
    "gpuopt_reduce_op_name": (_str, [_int]),
    "gpuopt_segmented_sort_workspace_size": (_S, [_p, _ptr(t.SegmentedSortDesc), _psize]),
    "gpuopt_segmented_sort": (_S, [_p, _p, _ptr(t.SegmentedSortDesc), _p, _p, _p, _p, _p,
                                   _size]),
    "gpuopt_stencil": (_S, [_p, _p, _ptr(t.StencilDesc), _p, _p]),
    "gpuopt_transpose": (_S, [_p, _p, _ptr(t.TransposeDesc), _p, _p]),
    "gpuopt_gdn_workspace_size": (_S, [_p, _ptr(t.GdnDesc), _int, _psize]),
    "gpuopt_gdn_forward": (_S, [_p, _p, _ptr(t.GdnDesc), _p, _p, _p, _p, _p, _size]),
    "gpuopt_gdn_backward": (_S, [_p, _p, _ptr(t.GdnDesc), _p, _p, _p, _p, _p, _p, _p, _p,
                                 _size]),
    # multi-GPU: communicators and collectives
    "gpuopt_comm_nccl_version": (_S, [_pint]),
    "gpuopt_comm_id_create": (_S, [_ptr(t.CommId)]),
    "gpuopt_comm_id_to_hex": (_S, [_ptr(t.CommId), ctypes.c_char_p, _size]),
    "gpuopt_comm_id_from_hex": (_S, [_str, _ptr(t.CommId)]),
    "gpuopt_comm_create": (_S, [_p, _ptr(t.CommId), _int, _int, _pp]),
    "gpuopt_comm_create_local": (_S, [_pp, _int, _pp]),
    "gpuopt_comm_split": (_S, [_p, _int, _int, _pp]),
    "gpuopt_comm_rank": (_S, [_p, _pint]),
    "gpuopt_comm_size": (_S, [_p, _pint]),
    "gpuopt_comm_device": (_S, [_p, _pint]),
    "gpuopt_comm_set_checked": (_S, [_p, _int]),
    "gpuopt_comm_status": (_S, [_p]),
    "gpuopt_comm_abort": (_S, [_p]),
    "gpuopt_comm_destroy": (_S, [_p]),
    "gpuopt_group_begin": (_S, []),
    "gpuopt_group_end": (_S, []),
    "gpuopt_allreduce": (_S, [_p, _p, _int, _int, _p, _p, _i64]),
    "gpuopt_reduce_scatter": (_S, [_p, _p, _int, _int, _p, _p, _i64]),
    "gpuopt_allgather": (_S, [_p, _p, _int, _p, _p, _i64]),
    "gpuopt_broadcast": (_S, [_p, _p, _int, _p, _p, _i64, _int]),
    "gpuopt_reduce_dist": (_S, [_p, _p, _ptr(t.ReduceDesc), _p, _p]),
    # multi-GPU: distributed matrices and GEMM
    "gpuopt_grid_create": (_S, [_p, _int, _int, _pp]),
    "gpuopt_grid_info": (_S, [_p, _pint, _pint, _pint, _pint]),
    "gpuopt_grid_destroy": (_S, [_p]),
    "gpuopt_dist_local_shape": (_S, [_ptr(t.DistDesc), _int, _int, ctypes.POINTER(_i64),
                                     ctypes.POINTER(_i64)]),
    "gpuopt_dist_locate": (_S, [_ptr(t.DistDesc), _i64, _i64, _pint, _pint,
                                ctypes.POINTER(_i64), ctypes.POINTER(_i64)]),
    "gpuopt_dist_scatter": (_S, [_p, _p, _ptr(t.DistDesc), _int, _p, _i64, _p]),
    "gpuopt_dist_gather": (_S, [_p, _p, _ptr(t.DistDesc), _int, _p, _p, _i64]),
    "gpuopt_gemm_dist_workspace_size": (_S, [_p, _ptr(t.GemmDistDesc), _psize]),
    "gpuopt_gemm_dist": (_S, [_p, _p, _ptr(t.GemmDistDesc), _p, _p, _p, _p, _size]),
}


def _candidates():
    env = os.environ.get("GPUOPT_LIBRARY")
    if env:
        return [env]  # an explicit choice is never silently replaced
    here = os.path.dirname(os.path.abspath(__file__))
    prefix = os.path.normpath(os.path.join(here, "..", "..", "..", ".."))
    dirs = [here] + [os.path.join(prefix, d) for d in ("lib", "lib64")]
    found = [os.path.join(d, n) for d in dirs for n in ("libgpuopt.so.0", "libgpuopt.so")
             if os.path.exists(os.path.join(d, n))]
    name = ctypes.util.find_library("gpuopt")
    if name:
        found.append(name)
    found.append("libgpuopt.so.0")
    return found


def _load():
    errors = []
    for path in _candidates():
        try:
            lib = ctypes.CDLL(path)
        except OSError as e:
            errors.append(f"{path}: {e}")
            continue
        missing = []
        for name, (restype, argtypes) in _PROTOTYPES.items():
            fn = getattr(lib, name, None)
            if fn is None:
                missing.append(name)
                continue
            fn.restype = restype
            fn.argtypes = argtypes
        if missing:
            raise ImportError(f"gpuopt: {path} lacks {', '.join(missing)}: the library is older "
                              "than this binding")
        return lib, path
    raise ImportError("gpuopt: cannot load libgpuopt (set GPUOPT_LIBRARY to its path):\n  " +
                      "\n  ".join(errors))


lib, path = _load()
