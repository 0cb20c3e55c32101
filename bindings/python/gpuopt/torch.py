"""gpuopt's operations as PyTorch operators (torch.library), for tensors on CUDA devices.

    import torch
    import gpuopt.torch as got

    c = got.gemm(a, b)                        # a new tensor: a @ b
    got.gemm(a, b, out=c, beta=1.0)           # c = a @ b + c, into c
    y = got.gdn(x, beta, gamma)               # autograd: backward runs gpuopt_gdn_backward
    f = torch.compile(lambda a, b: got.gemm(a, b).relu(), fullgraph=True)

Each operation is a custom operator in the namespace ``gpuopt`` (torch.ops.gpuopt.gemm, ...)
with a fake (meta) implementation, so torch.compile graphs hold it as one opaque node, and
torch.library.opcheck passes. The functions of this module take ``out=None`` (a new tensor is
returned) or ``out=tensor`` (written and returned; the ``*_out`` operators, which mutate it).

Streams: every operation runs on torch.cuda.current_stream() of its tensors' device, wrapped
once per (thread, device, stream) into a gpuopt Stream (gpuopt_stream_wrap) and kept; so the
usual PyTorch ordering holds with nothing to synchronize. Each device gets one gpuopt Context
(context()); stream() gives the wrapped current stream, for the descriptor-level functions of
the ``gpuopt`` package. Workspaces are torch.uint8 tensors from PyTorch's caching allocator.

Operators (torch.ops.gpuopt.*): gemm, gemm_out, reduce, reduce_out, axpy (mutates y),
transpose, transpose_out, segmented_sort, stencil, stencil_out, gdn_forward (with autograd),
gdn_forward_out, gdn_backward.
"""
import atexit
import threading
from typing import List, Optional, Tuple

import torch
from torch import Tensor

from . import _constants as k
from ._arrays import BYTES, DeviceArrayInfo
from ._core import Context
from ._ops import (axpy as _axpy, gdn_backward as _gdn_backward, gdn_forward as _gdn_forward,
                   gdn_workspace_size, matmul as _matmul, reduce_array as _reduce_array,
                   reduce_result_dtype, segmented_sort as _segmented_sort,
                   segmented_sort_workspace_size, stencil as _stencil,
                   transpose_array as _transpose_array)
from ._types import GdnDesc, SegmentedSortDesc, StencilDesc

__all__ = ["gemm", "reduce", "sum", "axpy", "transpose", "segmented_sort", "stencil", "gdn",
           "gdn_backward", "context", "stream", "close_streams"]

_DTYPES = {torch.float32: k.GPUOPT_DTYPE_F32, torch.float64: k.GPUOPT_DTYPE_F64,
           torch.float16: k.GPUOPT_DTYPE_F16, torch.bfloat16: k.GPUOPT_DTYPE_BF16,
           torch.int32: k.GPUOPT_DTYPE_I32, torch.int64: k.GPUOPT_DTYPE_I64,
           torch.uint8: BYTES, torch.int8: BYTES}
for _name, _code in (("uint32", k.GPUOPT_DTYPE_U32), ("uint64", k.GPUOPT_DTYPE_U64)):
    if hasattr(torch, _name):  # torch >= 2.3
        _DTYPES[getattr(torch, _name)] = _code
_TORCH_DTYPES = {code: dt for dt, code in _DTYPES.items() if code != BYTES}

_COMPUTE = {"default": k.GPUOPT_COMPUTE_DEFAULT, "f32": k.GPUOPT_COMPUTE_F32,
            "tf32": k.GPUOPT_COMPUTE_TF32, "f64": k.GPUOPT_COMPUTE_F64}
_BOUNDARY = {"zero": k.GPUOPT_BOUNDARY_ZERO, "clamp": k.GPUOPT_BOUNDARY_CLAMP}

# --- contexts and streams ------------------------------------------------------------------
_lock = threading.Lock()
_contexts = {}       # device index -> Context
_thread_caches = []  # every thread's {(device, cudaStream_t): Stream}, for close_streams()
_local = threading.local()
_MAX_STREAMS_PER_THREAD = 32


def _device_index(device):
    device = torch.device(device) if device is not None else torch.device("cuda")
    if device.type != "cuda":
        raise ValueError(f"gpuopt.torch: device {device} is not a CUDA device")
    return device.index if device.index is not None else torch.cuda.current_device()


def context(device=None):
    """The gpuopt Context of a CUDA device (torch.device, index or None for the current one),
    made on first use and kept for the process."""
    index = _device_index(device)
    with _lock:
        ctx = _contexts.get(index)
        if ctx is None:
            ctx = _contexts[index] = Context(index)
        return ctx


def stream(device=None):
    """The gpuopt Stream that wraps torch.cuda.current_stream(device) (cached per thread, device
    and stream; the least recently used of more than 32 per thread is closed)."""
    index = _device_index(device)
    native = torch.cuda.current_stream(index).cuda_stream
    cache = getattr(_local, "streams", None)
    if cache is None:
        cache = _local.streams = {}
        with _lock:
            _thread_caches.append(cache)
    key = (index, native)
    s = cache.pop(key, None)  # re-inserted last: dicts keep insertion order, oldest first
    if s is None:
        s = context(index).wrap_stream(native)
        # closing synchronizes the evicted stream (this thread's alone), illegal while capturing
        while len(cache) >= _MAX_STREAMS_PER_THREAD and \
                not torch.cuda.is_current_stream_capturing():
            cache.pop(next(iter(cache))).close()
    cache[key] = s
    return s


def close_streams():
    """Closes every cached stream wrapper and context: registered with atexit; call it earlier
    only while no thread runs gpuopt.torch operations (they are made anew on next use)."""
    with _lock:
        caches, contexts = list(_thread_caches), list(_contexts.values())
        _contexts.clear()
    for cache in caches:
        while cache:
            _, s = cache.popitem()
            try:
                s.close()
            except Exception:  # e.g. a stream being captured: the process ends anyway
                pass
    for ctx in contexts:
        try:
            ctx.close()
        except Exception:
            pass


atexit.register(close_streams)


# --- tensors as gpuopt operands ------------------------------------------------------------
def _device_of(what, t, *others):
    """The CUDA device of tensor t; every tensor of ``others`` (name, tensor) must be there."""
    if t.device.type != "cuda":
        raise ValueError(f"{what}: a tensor on {t.device}; gpuopt runs on CUDA devices")
    for name, o in others:
        if o is not None and o.device != t.device:
            raise ValueError(f"{what}: {name} is on {o.device}, the other operands on {t.device}")
    return t.device


def _info(t, what):
    code = _DTYPES.get(t.dtype)
    if code is None:
        raise TypeError(f"{what} has dtype {t.dtype}, which gpuopt does not take")
    return DeviceArrayInfo(t.data_ptr(), t.shape, t.stride(), code, keepalive=t)


def _dtype_code(t, what):
    code = _DTYPES.get(t.dtype)
    if code is None or code == BYTES:
        raise TypeError(f"{what} has dtype {t.dtype}, which gpuopt does not take")
    return code


def _compute(compute):
    try:
        return _COMPUTE[compute]
    except KeyError:
        raise ValueError(f"gpuopt.torch: compute is {compute!r}, not one of "
                         f"{', '.join(_COMPUTE)}") from None


def _workspace(nbytes, device):
    """A byte tensor of nbytes (256-byte aligned: the caching allocator aligns to 512), or None."""
    if not nbytes:
        return None
    return _info(torch.empty(nbytes, dtype=torch.uint8, device=device), "workspace")


# --- gemm ----------------------------------------------------------------------------------
def _gemm_shape(a, b):
    if a.dim() != 2 or b.dim() != 2:
        raise ValueError(f"gpuopt.torch.gemm: a and b must be 2-D, have shapes {tuple(a.shape)} "
                         f"and {tuple(b.shape)}")
    if a.shape[1] != b.shape[0]:
        raise ValueError(f"gpuopt.torch.gemm: shapes {tuple(a.shape)} @ {tuple(b.shape)} do not "
                         "match")
    return (a.shape[0], b.shape[1])


def _gemm_into(a, b, out, alpha, beta, compute):
    dev = _device_of("gpuopt.torch.gemm", a, ("b", b), ("out", out))
    _matmul(stream(dev), _info(a, "gpuopt.torch.gemm: a"), _info(b, "gpuopt.torch.gemm: b"),
            _info(out, "gpuopt.torch.gemm: out"), alpha, beta, _compute(compute))


@torch.library.custom_op("gpuopt::gemm", mutates_args=())
def _gemm_op(a: Tensor, b: Tensor, alpha: float = 1.0, compute: str = "default") -> Tensor:
    out = a.new_empty(_gemm_shape(a, b))
    _gemm_into(a, b, out, alpha, 0.0, compute)
    return out


@_gemm_op.register_fake
def _(a, b, alpha=1.0, compute="default"):
    return a.new_empty(_gemm_shape(a, b))


@torch.library.custom_op("gpuopt::gemm_out", mutates_args=("out",))
def _gemm_out_op(a: Tensor, b: Tensor, out: Tensor, alpha: float = 1.0, beta: float = 0.0,
                 compute: str = "default") -> None:
    _gemm_into(a, b, out, alpha, beta, compute)


@_gemm_out_op.register_fake
def _(a, b, out, alpha=1.0, beta=0.0, compute="default"):
    return None


def gemm(a, b, out=None, alpha=1.0, beta=0.0, compute="default"):
    """alpha * a @ b (+ beta * out) for 2-D CUDA tensors (row-major, or transposed views);
    dtypes f64, f32 (compute "f32" or "tf32"), bf16 and f16 (out may be f32 for those).
    out=None: a new tensor of a's dtype (beta must be 0)."""
    if out is None:
        if beta != 0.0:
            raise ValueError("gpuopt.torch.gemm: beta != 0 needs out (the C it scales)")
        return torch.ops.gpuopt.gemm(a, b, alpha, compute)
    torch.ops.gpuopt.gemm_out(a, b, out, alpha, beta, compute)
    return out


# --- reduce --------------------------------------------------------------------------------
def _reduce_result(x, op, rows):
    opcode = k.REDUCE_OPS.get(op)
    if opcode is None:
        raise ValueError(f"gpuopt.torch.reduce: op is {op!r}, not one of "
                         f"{', '.join(k.REDUCE_OPS)}")
    code = _dtype_code(x, "gpuopt.torch.reduce: x")
    if rows and x.dim() != 2:
        raise ValueError(f"gpuopt.torch.reduce: rows=True needs a 2-D x, has shape "
                         f"{tuple(x.shape)}")
    return (x.shape[0],) if rows else (), _TORCH_DTYPES[reduce_result_dtype(opcode, code)]


def _reduce_into(x, out, op, rows):
    dev = _device_of("gpuopt.torch.reduce", x, ("out", out))
    _reduce_array(stream(dev), _info(x, "gpuopt.torch.reduce: x"),
                  _info(out, "gpuopt.torch.reduce: out"), op, rows)


@torch.library.custom_op("gpuopt::reduce", mutates_args=())
def _reduce_op(x: Tensor, op: str = "sum", rows: bool = False) -> Tensor:
    shape, dtype = _reduce_result(x, op, rows)
    out = x.new_empty(shape, dtype=dtype)
    _reduce_into(x, out, op, rows)
    return out


@_reduce_op.register_fake
def _(x, op="sum", rows=False):
    shape, dtype = _reduce_result(x, op, rows)
    return x.new_empty(shape, dtype=dtype)


@torch.library.custom_op("gpuopt::reduce_out", mutates_args=("out",))
def _reduce_out_op(x: Tensor, out: Tensor, op: str = "sum", rows: bool = False) -> None:
    _reduce_into(x, out, op, rows)


@_reduce_out_op.register_fake
def _(x, out, op="sum", rows=False):
    return None


def reduce(x, op="sum", rows=False, out=None):
    """"sum", "min", "max", "argmin" or "argmax" of contiguous x (a 0-d result), or with
    rows=True of each row of 2-D x (rows may be padded; one result per row). The result dtype
    is gpuopt_reduce()'s: a float32 sum is float32, an int32 sum int64, arg* int64."""
    if out is None:
        return torch.ops.gpuopt.reduce(x, op, rows)
    torch.ops.gpuopt.reduce_out(x, out, op, rows)
    return out


def sum(x, out=None):  # noqa: A001 (like torch.sum)
    """The sum of the elements of contiguous x (see reduce())."""
    return reduce(x, "sum", False, out)


# --- axpy ----------------------------------------------------------------------------------
@torch.library.custom_op("gpuopt::axpy", mutates_args=("y",))
def _axpy_op(alpha: float, x: Tensor, y: Tensor) -> None:
    dev = _device_of("gpuopt.torch.axpy", x, ("y", y))
    _axpy(stream(dev), alpha, _info(x, "gpuopt.torch.axpy: x"), _info(y, "gpuopt.torch.axpy: y"))


@_axpy_op.register_fake
def _(alpha, x, y):
    return None


def axpy(alpha, x, y):
    """y += alpha * x in place (BLAS axpy) for 1-D or contiguous x and y of one dtype; returns
    y."""
    torch.ops.gpuopt.axpy(alpha, x, y)
    return y


# --- transpose -----------------------------------------------------------------------------
def _transpose_shape(x):
    if x.dim() != 2:
        raise ValueError(f"gpuopt.torch.transpose: x must be 2-D, has shape {tuple(x.shape)}")
    return (x.shape[1], x.shape[0])


def _transpose_into(x, out):
    dev = _device_of("gpuopt.torch.transpose", x, ("out", out))
    _transpose_array(stream(dev), _info(x, "gpuopt.torch.transpose: x"),
                     _info(out, "gpuopt.torch.transpose: out"))


@torch.library.custom_op("gpuopt::transpose", mutates_args=())
def _transpose_op(x: Tensor) -> Tensor:
    out = x.new_empty(_transpose_shape(x))
    _transpose_into(x, out)
    return out


@_transpose_op.register_fake
def _(x):
    return x.new_empty(_transpose_shape(x))


@torch.library.custom_op("gpuopt::transpose_out", mutates_args=("out",))
def _transpose_out_op(x: Tensor, out: Tensor) -> None:
    _transpose_into(x, out)


@_transpose_out_op.register_fake
def _(x, out):
    return None


def transpose(x, out=None):
    """x.T materialized: out (c, r) for 2-D x (r, c) of f32, f64 or bf16; x and out both
    row-major (out=None: a new contiguous tensor, from row-major x) or both column-major."""
    if out is None:
        return torch.ops.gpuopt.transpose(x)
    torch.ops.gpuopt.transpose_out(x, out)
    return out


# --- segmented sort ------------------------------------------------------------------------
def _sort_desc(keys, values, offsets, descending):
    what = "gpuopt.torch.segmented_sort"
    if keys.dim() == 0 or not keys.is_contiguous():
        raise ValueError(f"{what}: keys must be contiguous with at least one dimension")
    d = SegmentedSortDesc(key_type=_dtype_code(keys, f"{what}: keys"), num_items=keys.numel(),
                          order=k.GPUOPT_SORT_DESCENDING if descending else
                          k.GPUOPT_SORT_ASCENDING)
    if values is not None:
        if values.shape != keys.shape or not values.is_contiguous():
            raise ValueError(f"{what}: values must be contiguous and shaped like keys "
                             f"{tuple(keys.shape)}, are {tuple(values.shape)}")
        d.value_bytes = values.element_size()
    if offsets is None:  # each row along the last dimension is a segment
        d.segment_size = keys.shape[-1]
        d.num_segments = keys.numel() // keys.shape[-1] if keys.shape[-1] else 0
    else:
        if offsets.dim() != 1 or offsets.dtype != torch.int64 or not offsets.is_contiguous():
            raise ValueError(f"{what}: offsets must be a contiguous 1-D int64 tensor")
        d.num_segments = max(offsets.numel() - 1, 0)
        d.offsets = offsets.data_ptr() or None
    return d


@torch.library.custom_op("gpuopt::segmented_sort", mutates_args=())
def _segmented_sort_op(keys: Tensor, values: Optional[Tensor] = None,
                       offsets: Optional[Tensor] = None,
                       descending: bool = False) -> Tuple[Tensor, Tensor]:
    what = "gpuopt.torch.segmented_sort"
    dev = _device_of(what, keys, ("values", values), ("offsets", offsets))
    d = _sort_desc(keys, values, offsets, descending)
    s = stream(dev)
    keys_out = torch.empty_like(keys)
    values_out = keys.new_empty((0,)) if values is None else torch.empty_like(values)
    ws = _workspace(segmented_sort_workspace_size(s.ctx, d), dev)
    _segmented_sort(s, d, _info(keys, f"{what}: keys"), _info(keys_out, "keys_out"),
                    None if values is None else _info(values, f"{what}: values"),
                    None if values is None else _info(values_out, "values_out"), workspace=ws)
    return keys_out, values_out


@_segmented_sort_op.register_fake
def _(keys, values=None, offsets=None, descending=False):
    return (torch.empty_like(keys),
            keys.new_empty((0,)) if values is None else torch.empty_like(values))


def segmented_sort(keys, values=None, offsets=None, descending=False):
    """Stable sort of each segment of contiguous keys (i32, i64, u32, u64, f32, f64; NaNs last
    ascending): without offsets each row along the last dimension (as torch.sort(dim=-1,
    stable=True)), with offsets (int64, num_segments + 1) the segments of the flattened keys.
    values (4- or 8-byte elements, shaped like keys) move with their keys. Returns the sorted
    keys, or (keys, values) when values are given."""
    keys_out, values_out = torch.ops.gpuopt.segmented_sort(keys, values, offsets, descending)
    return keys_out if values is None else (keys_out, values_out)


# --- stencil -------------------------------------------------------------------------------
def _stencil_desc(x, out, coeffs, radius, boundary):
    what = "gpuopt.torch.stencil"
    if x.dim() not in (2, 3) or out.shape != x.shape:
        raise ValueError(f"{what}: x must be 2-D (ny, nx) or 3-D (nz, ny, nx) and out shaped "
                         f"like it; shapes {tuple(x.shape)}, {tuple(out.shape)}")
    for name, t in (("x", x), ("out", out)):
        if t.shape[-1] > 1 and t.stride(-1) != 1:
            raise ValueError(f"{what}: {name} needs unit stride along its last (x) dimension")
    if boundary not in _BOUNDARY:
        raise ValueError(f"{what}: boundary is {boundary!r}, not 'zero' or 'clamp'")
    dims = x.dim()
    d = StencilDesc(dtype=_dtype_code(x, f"{what}: x"), dims=dims, radius=radius,
                    boundary=_BOUNDARY[boundary], nx=x.shape[-1], ny=x.shape[-2],
                    nz=x.shape[0] if dims == 3 else 1, in_pitch=x.stride(-2),
                    out_pitch=out.stride(-2), in_slice_pitch=x.stride(0) if dims == 3 else 0,
                    out_slice_pitch=out.stride(0) if dims == 3 else 0)
    if len(coeffs) != 1 + dims * 2 * radius:
        raise ValueError(f"{what}: {len(coeffs)} coefficients; a {dims}-D stencil of radius "
                         f"{radius} takes 1 + {dims} * 2 * {radius} = {1 + dims * 2 * radius}")
    d.set_coeffs([float(c) for c in coeffs])
    return d


def _stencil_into(x, out, coeffs, radius, boundary):
    dev = _device_of("gpuopt.torch.stencil", x, ("out", out))
    _stencil(stream(dev), _stencil_desc(x, out, coeffs, radius, boundary),
             _info(x, "gpuopt.torch.stencil: x"), _info(out, "gpuopt.torch.stencil: out"))


@torch.library.custom_op("gpuopt::stencil", mutates_args=())
def _stencil_op(x: Tensor, coeffs: List[float], radius: int, boundary: str = "zero") -> Tensor:
    out = torch.empty_like(x, memory_format=torch.contiguous_format)
    _stencil_into(x, out, coeffs, radius, boundary)
    return out


@_stencil_op.register_fake
def _(x, coeffs, radius, boundary="zero"):
    return torch.empty_like(x, memory_format=torch.contiguous_format)


@torch.library.custom_op("gpuopt::stencil_out", mutates_args=("out",))
def _stencil_out_op(x: Tensor, out: Tensor, coeffs: List[float], radius: int,
                    boundary: str = "zero") -> None:
    _stencil_into(x, out, coeffs, radius, boundary)


@_stencil_out_op.register_fake
def _(x, out, coeffs, radius, boundary="zero"):
    return None


def stencil(x, coeffs, radius, boundary="zero", out=None):
    """The star stencil of gpuopt_stencil() over 2-D (ny, nx) or 3-D (nz, ny, nx) f32/f64 x
    (x fastest, rows may be padded): coeffs holds 1 + dims * 2 * radius values, the centre's
    first, then per axis x, y, z the offsets -r..-1, +1..+r. boundary "zero" or "clamp"."""
    coeffs = [float(c) for c in coeffs]
    if out is None:
        return torch.ops.gpuopt.stencil(x, coeffs, radius, boundary)
    torch.ops.gpuopt.stencil_out(x, out, coeffs, radius, boundary)
    return out


# --- GDN -----------------------------------------------------------------------------------
def _gdn_check(x, beta, gamma):
    what = "gpuopt.torch.gdn"
    if x.dim() != 4:
        raise ValueError(f"{what}: x must be 4-D NCHW, has shape {tuple(x.shape)}")
    c = x.shape[1]
    for name, t, shape in (("x", x, None), ("beta", beta, (c,)), ("gamma", gamma, (c, c))):
        if t.dtype != torch.float32:
            raise TypeError(f"{what}: {name} must be float32, is {t.dtype}")
        if shape is not None and tuple(t.shape) != shape:
            raise ValueError(f"{what}: {name} must have shape {shape} for {c} channels, has "
                             f"{tuple(t.shape)}")
        if not t.is_contiguous():
            raise ValueError(f"{what}: {name} must be contiguous")


def _gdn_desc(x, inverse, compute):
    n, c, h, w = x.shape
    return GdnDesc(batch=n, channels=c, height=h, width=w, inverse=int(inverse),
                   compute=_compute(compute))


def _gdn_forward_into(x, beta, gamma, y, inverse, compute):
    _gdn_check(x, beta, gamma)
    dev = _device_of("gpuopt.torch.gdn", x, ("beta", beta), ("gamma", gamma), ("out", y))
    if y.shape != x.shape or y.dtype != torch.float32 or not y.is_contiguous():
        raise ValueError("gpuopt.torch.gdn: out must be a contiguous float32 tensor shaped like x")
    s, d = stream(dev), _gdn_desc(x, inverse, compute)
    ws = _workspace(gdn_workspace_size(s.ctx, d, k.GPUOPT_GDN_FORWARD), dev)
    _gdn_forward(s, d, _info(x, "x"), _info(beta, "beta"), _info(gamma, "gamma"), _info(y, "y"),
                 workspace=ws)


@torch.library.custom_op("gpuopt::gdn_forward", mutates_args=())
def _gdn_forward_op(x: Tensor, beta: Tensor, gamma: Tensor, inverse: bool = False,
                    compute: str = "default") -> Tensor:
    y = torch.empty_like(x, memory_format=torch.contiguous_format)
    _gdn_forward_into(x, beta, gamma, y, inverse, compute)
    return y


@_gdn_forward_op.register_fake
def _(x, beta, gamma, inverse=False, compute="default"):
    _gdn_check(x, beta, gamma)
    return torch.empty_like(x, memory_format=torch.contiguous_format)


@torch.library.custom_op("gpuopt::gdn_forward_out", mutates_args=("out",))
def _gdn_forward_out_op(x: Tensor, beta: Tensor, gamma: Tensor, out: Tensor,
                        inverse: bool = False, compute: str = "default") -> None:
    _gdn_forward_into(x, beta, gamma, out, inverse, compute)


@_gdn_forward_out_op.register_fake
def _(x, beta, gamma, out, inverse=False, compute="default"):
    return None


@torch.library.custom_op("gpuopt::gdn_backward", mutates_args=())
def _gdn_backward_op(x: Tensor, beta: Tensor, gamma: Tensor, dy: Tensor, inverse: bool = False,
                     compute: str = "default") -> Tuple[Tensor, Tensor, Tensor]:
    _gdn_check(x, beta, gamma)
    dev = _device_of("gpuopt.torch.gdn_backward", x, ("beta", beta), ("gamma", gamma),
                     ("dy", dy))
    if dy.shape != x.shape or dy.dtype != torch.float32 or not dy.is_contiguous():
        raise ValueError("gpuopt.torch.gdn_backward: dy must be a contiguous float32 tensor "
                         "shaped like x")
    dx, dbeta, dgamma = (torch.empty_like(t) for t in (x, beta, gamma))
    s, d = stream(dev), _gdn_desc(x, inverse, compute)
    ws = _workspace(gdn_workspace_size(s.ctx, d, k.GPUOPT_GDN_BACKWARD), dev)
    _gdn_backward(s, d, _info(x, "x"), _info(beta, "beta"), _info(gamma, "gamma"),
                  _info(dy, "dy"), _info(dx, "dx"), _info(dbeta, "dbeta"),
                  _info(dgamma, "dgamma"), workspace=ws)
    return dx, dbeta, dgamma


@_gdn_backward_op.register_fake
def _(x, beta, gamma, dy, inverse=False, compute="default"):
    _gdn_check(x, beta, gamma)
    return torch.empty_like(x), torch.empty_like(beta), torch.empty_like(gamma)


def _gdn_setup_context(ctx, inputs, output):
    x, beta, gamma, inverse, compute = inputs
    ctx.save_for_backward(x, beta, gamma)
    ctx.inverse, ctx.compute = inverse, compute


def _gdn_autograd_backward(ctx, dy):
    x, beta, gamma = ctx.saved_tensors
    dx, dbeta, dgamma = torch.ops.gpuopt.gdn_backward(x, beta, gamma, dy.contiguous(),
                                                      ctx.inverse, ctx.compute)
    return dx, dbeta, dgamma, None, None


_gdn_forward_op.register_autograd(_gdn_autograd_backward, setup_context=_gdn_setup_context)


def gdn(x, beta, gamma, inverse=False, compute="default", out=None):
    """GDN (inverse=True: inverse GDN) of contiguous float32 NCHW x with beta (C,) and gamma
    (C, C): y_i = x_i / sqrt(beta_i + sum_j gamma[i, j] x_j^2). Differentiable in x, beta and
    gamma (gpuopt_gdn_backward); compute "default"/"f32" (f32 accuracy) or "tf32". With out the
    result is written there (no autograd, as for PyTorch's out= functions)."""
    if out is None:
        return torch.ops.gpuopt.gdn_forward(x, beta, gamma, inverse, compute)
    if torch.is_grad_enabled() and any(t.requires_grad for t in (x, beta, gamma)):
        raise RuntimeError("gpuopt.torch.gdn: out= does not support automatic differentiation "
                           "(an input requires grad); call it without out")
    torch.ops.gpuopt.gdn_forward_out(x, beta, gamma, out, inverse, compute)
    return out


def gdn_backward(x, beta, gamma, dy, inverse=False, compute="default"):
    """(dx, dbeta, dgamma) of GDN for dy = dL/dy (gpuopt_gdn_backward): what gdn()'s autograd
    runs."""
    return torch.ops.gpuopt.gdn_backward(x, beta, gamma, dy, inverse, compute)
