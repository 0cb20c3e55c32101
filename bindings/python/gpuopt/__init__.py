"""gpuopt: CUDA kernels with a stable C ABI, from Python through ctypes alone.

    import gpuopt, torch
    with gpuopt.Context(0) as ctx, ctx.wrap_stream(torch.cuda.current_stream().cuda_stream) as s:
        gpuopt.matmul(s, a, b, out=c)          # PyTorch / CuPy arrays go straight in

See docs/integration-python.md. The library is found through GPUOPT_LIBRARY, inside this
package (the copy a pip-installed wheel carries), next to it, or the loader's search path
(_lib.py). ``gpuopt.torch`` (imported on first use; needs PyTorch) registers the operations as
PyTorch operators. ``python -m gpuopt`` prints the versions, build, devices and variants.
"""
from ._constants import *  # noqa: F401,F403  every GPUOPT_* value of gpuopt.h
from ._arrays import DeviceArray, DeviceArrayInfo, as_device_array, dtype_code
from ._core import Buffer, Context, Graph, Stream, device_count, device_info
from ._errors import GpuoptError, NoDeviceError, last_error_message, status_name
from ._lib import lib, path as library_path
from ._log import get_log_level, set_log_callback, set_log_level
from ._ops import (axpy, gdn_backward, gdn_forward, gdn_workspace_size, gemm, matmul,
                   plan_matmul, plan_reduce, plan_transpose, reduce, reduce_array,
                   reduce_result_dtype, segmented_sort, segmented_sort_workspace_size, stencil,
                   sum, transpose, transpose_array)
from ._types import (Allocator, DeviceInfo, DistDesc, GdnDesc, GemmDesc, GemmDistDesc,
                     ReduceDesc, SegmentedSortDesc, StencilDesc, TransposeDesc, TuneResult,
                     VariantInfo)
from ._comm import (Comm, CommId, Grid, allgather, allreduce, broadcast, gather, gemm_dist,
                    gemm_dist_workspace_size, group, local_shape, locate, nccl_version,
                    reduce_dist, reduce_scatter, scatter)

__version__ = "0.1.0"


def build_info():
    """How the library this package carries was built (a dict: library_source, found_by,
    build_type, cuda_architectures, cuda_compiler_version, git_revision, packaged, as far as
    known), recorded when the wheel was built; None for a package pip did not install."""
    import json
    import os
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_build_info.json")
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except FileNotFoundError:
        return None


def __getattr__(name):
    if name == "torch":  # gpuopt.torch is imported on first use: it imports PyTorch
        import importlib
        return importlib.import_module(".torch", __name__)
    raise AttributeError(f"module 'gpuopt' has no attribute {name!r}")


def version():
    """The loaded library's version as major * 10000 + minor * 100 + patch."""
    return lib.gpuopt_version()


def version_string():
    return lib.gpuopt_version_string().decode()


def op_name(op):
    n = lib.gpuopt_op_name(op)
    return None if n is None else n.decode()


def dtype_name(dtype):
    n = lib.gpuopt_dtype_name(dtype)
    return None if n is None else n.decode()


def reduce_op_name(op):
    n = lib.gpuopt_reduce_op_name(op)
    return None if n is None else n.decode()
