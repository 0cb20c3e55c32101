"""gpuopt: CUDA kernels with a stable C ABI, from Python through ctypes alone.

    import gpuopt, torch
    with gpuopt.Context(0) as ctx, ctx.wrap_stream(torch.cuda.current_stream().cuda_stream) as s:
        gpuopt.matmul(s, a, b, out=c)          # PyTorch / CuPy arrays go straight in

See docs/integration-python.md. The library is found through GPUOPT_LIBRARY, next to this
package, or the loader's search path (_lib.py).
"""
from ._constants import *  # noqa: F401,F403  every GPUOPT_* value of gpuopt.h
from ._arrays import DeviceArray, DeviceArrayInfo, as_device_array, dtype_code
from ._core import Buffer, Context, Graph, Stream, device_count, device_info
from ._errors import GpuoptError, NoDeviceError, last_error_message, status_name
from ._lib import lib, path as library_path
from ._ops import (axpy, gdn_backward, gdn_forward, gdn_workspace_size, gemm, matmul,
                   plan_matmul, plan_reduce, reduce, reduce_array, reduce_result_dtype,
                   segmented_sort, segmented_sort_workspace_size, stencil, sum, transpose)
from ._types import (DeviceInfo, DistDesc, GdnDesc, GemmDesc, GemmDistDesc, ReduceDesc,
                     SegmentedSortDesc, StencilDesc, TransposeDesc, VariantInfo)
from ._comm import (Comm, CommId, Grid, allgather, allreduce, broadcast, gather, gemm_dist,
                    gemm_dist_workspace_size, group, local_shape, locate, nccl_version,
                    reduce_dist, reduce_scatter, scatter)

__version__ = "0.1.0"


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
