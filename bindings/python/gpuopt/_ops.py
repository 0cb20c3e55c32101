"""Operations. Operands are device arrays (``__cuda_array_interface__``, ``__dlpack__``,
gpuopt.DeviceArray), gpuopt Buffers, or raw device addresses as integers; every call enqueues on
``stream`` (a gpuopt Stream, which knows its Context) and returns without synchronizing. With
stream None and PyTorch tensors among the operands, the call runs on torch.cuda.current_stream()
of the first tensor's device (gpuopt.torch.stream()).

Layouts: gpuopt's matrices are column-major with a leading dimension. A row-major (PyTorch,
NumPy, CuPy default) matrix of shape (r, c) and row stride ld is, in the same memory, the
column-major matrix of its transpose, c x r with leading dimension ld. matmul() uses this:
C = A @ B with row-major C is computed as C^T = B^T A^T in column-major terms, with no copy.
"""
import ctypes

from . import _constants as k
from ._arrays import as_device_array, device_pointer, dtype_code, element_dtype
from ._core import Buffer
from ._errors import check
from ._lib import lib
from ._types import GemmDesc, ReduceDesc, TransposeDesc

_vp = ctypes.c_void_p


def _stream_for(stream, fn, *operands):
    """``stream``; for None, the gpuopt Stream on torch.cuda.current_stream() of the first
    PyTorch tensor among ``operands`` (gpuopt.torch.stream(), cached per thread and stream)."""
    if stream is not None:
        return stream
    for o in operands:
        if type(o).__module__.split(".")[0] == "torch" and hasattr(o, "device"):
            from . import torch as gpuopt_torch
            return gpuopt_torch.stream(o.device)
    raise ValueError(f"gpuopt.{fn}: stream is None and no operand is a PyTorch tensor (whose "
                     "current stream would be used): pass a gpuopt Stream")


def _addr(obj, stream):
    return _vp(device_pointer(obj, stream) or None)


def _is_raw(obj):
    """True for a raw address (int, None) or a gpuopt Buffer: no shape or dtype to read."""
    return obj is None or isinstance(obj, (int, Buffer))


def _nbytes(obj):
    if obj is None:
        return 0
    n = getattr(obj, "nbytes", None)
    if isinstance(n, int):
        return n
    info = as_device_array(obj)
    return info.size * info.itemsize


# --- axpy ----------------------------------------------------------------------------------
def axpy(stream, alpha, x, y, n=None, incx=None, incy=None, dtype=None):
    """y = alpha * x + y. With arrays, n, strides and dtype come from them (1-D, or any
    contiguous shape); with raw addresses pass n, dtype (and incx, incy: default 1)."""
    stream = _stream_for(stream, "axpy", x, y)
    xs = None if _is_raw(x) else as_device_array(x, stream)
    ys = None if _is_raw(y) else as_device_array(y, stream)
    for name, info in (("x", xs), ("y", ys)):
        if info is not None and len(info.shape) != 1 and not info.is_contiguous():
            raise ValueError(f"gpuopt.axpy: {name} must be 1-D or contiguous")
        if info is not None:
            element_dtype(info, f"gpuopt.axpy: {name}")
    if dtype is None:
        dtype = (xs or ys).dtype if (xs or ys) else None
        if dtype is None:
            raise ValueError("gpuopt.axpy: pass dtype with raw addresses")
    dtype = dtype_code(dtype)
    for name, info in (("x", xs), ("y", ys)):
        if info is not None and info.dtype != dtype:
            raise TypeError(f"gpuopt.axpy: {name} has dtype {info.dtype}, expected {dtype}")

    def inc(info, given):
        if given is not None:
            return given
        if info is None:
            return 1
        return info.strides[0] if len(info.shape) == 1 else 1

    incx, incy = inc(xs, incx), inc(ys, incy)
    if n is None:
        if xs is None and ys is None:
            raise ValueError("gpuopt.axpy: pass n with raw addresses")
        sizes = {i.size for i in (xs, ys) if i is not None}
        if len(sizes) != 1:
            raise ValueError(f"gpuopt.axpy: x and y differ in size ({sorted(sizes)})")
        n = sizes.pop()
    xp = xs.ptr if xs else device_pointer(x)
    yp = ys.ptr if ys else device_pointer(y)
    check(lib.gpuopt_axpy(stream.ctx._h, stream._h, dtype, n, alpha, _vp(xp or None), incx,
                          _vp(yp or None), incy))


# --- gemm ----------------------------------------------------------------------------------
def gemm(stream, desc, A, B, C):
    """gpuopt_gemm with a GemmDesc (column-major, see its fields) and device operands."""
    stream = _stream_for(stream, "gemm", A, B, C)
    check(lib.gpuopt_gemm(stream.ctx._h, stream._h, ctypes.byref(desc), _addr(A, stream),
                          _addr(B, stream), _addr(C, stream)))


def _colmajor(info, name, fn="gpuopt.matmul"):
    """(transposed, ld) of a 2-D operand: the matrix is the column-major matrix of its storage
    (transposed False, ld = column stride) or of its transpose (row-major storage: transposed
    True, ld = row stride). Size-1 axes take any stride."""
    if len(info.shape) != 2:
        raise ValueError(f"{fn}: {name} must be 2-D, has shape {info.shape}")
    (r, c), (s0, s1) = info.shape, info.strides
    if s1 == 1 or c == 1:  # row-major (the usual PyTorch layout)
        ld = s0 if r > 1 else max(c, 1)
        if ld >= max(c, 1):
            return True, ld
    if s0 == 1 or r == 1:  # column-major (e.g. a transposed view, .T)
        ld = s1 if c > 1 else max(r, 1)
        if ld >= max(r, 1):
            return False, ld
    raise ValueError(f"{fn}: {name} (shape {info.shape}, strides {info.strides} "
                     "elements) has no unit stride: make it contiguous first")


def plan_matmul(a, b, c, alpha=1.0, beta=0.0, compute=k.GPUOPT_COMPUTE_DEFAULT):
    """(GemmDesc, first, second): the gpuopt_gemm call computing c = alpha a @ b + beta c for
    DeviceArrayInfo a (m, k), b (k, n), c (m, n) in any mix of row- and column-major layouts."""
    for name, x in (("a", a), ("b", b), ("out", c)):
        if len(x.shape) != 2:
            raise ValueError(f"gpuopt.matmul: {name} must be 2-D, has shape {x.shape}")
        element_dtype(x, f"gpuopt.matmul: {name}")
    (m, ka), (kb, n), (mc, nc) = a.shape, b.shape, c.shape
    if ka != kb or (mc, nc) != (m, n):
        raise ValueError(f"gpuopt.matmul: shapes {a.shape} @ {b.shape} -> {c.shape} do not match")
    if a.dtype != b.dtype:
        raise TypeError("gpuopt.matmul: a and b differ in dtype")
    ta, lda = _colmajor(a, "a")
    tb, ldb = _colmajor(b, "b")
    tc, ldc = _colmajor(c, "out")
    T, N = k.GPUOPT_TRANS_T, k.GPUOPT_TRANS_N
    d = GemmDesc(alpha=alpha, beta=beta, a_type=a.dtype, c_type=c.dtype, compute=compute,
                 batch_count=1, k=ka)
    if not tc:  # C column-major: C = op(A) op(B)
        d.trans_a, d.trans_b = (T if ta else N), (T if tb else N)
        d.m, d.n, d.lda, d.ldb, d.ldc = m, n, lda, ldb, ldc
        return d, a, b
    # C row-major: its storage is C^T (n x m) = B^T A^T
    d.trans_a, d.trans_b = (N if tb else T), (N if ta else T)
    d.m, d.n, d.lda, d.ldb, d.ldc = n, m, ldb, lda, ldc
    return d, b, a


def matmul(stream, a, b, out, alpha=1.0, beta=0.0, compute=k.GPUOPT_COMPUTE_DEFAULT):
    """out = alpha * a @ b + beta * out for 2-D device arrays (row- or column-major, e.g.
    PyTorch tensors and their .T views); returns out."""
    stream = _stream_for(stream, "matmul", a, b, out)
    ai, bi, ci = (as_device_array(x, stream) for x in (a, b, out))
    d, first, second = plan_matmul(ai, bi, ci, alpha, beta, compute)
    check(lib.gpuopt_gemm(stream.ctx._h, stream._h, ctypes.byref(d), _vp(first.ptr or None),
                          _vp(second.ptr or None), _vp(ci.ptr or None)))
    return out


# --- reduce --------------------------------------------------------------------------------
def reduce(stream, desc, inp, out):
    """gpuopt_reduce with a ReduceDesc and device operands."""
    stream = _stream_for(stream, "reduce", inp, out)
    check(lib.gpuopt_reduce(stream.ctx._h, stream._h, ctypes.byref(desc), _addr(inp, stream),
                            _addr(out, stream)))


def reduce_result_dtype(op, in_type):
    """Element type of gpuopt_reduce's results (the table of gpuopt_reduce())."""
    if op in (k.GPUOPT_REDUCE_ARGMIN, k.GPUOPT_REDUCE_ARGMAX):
        return k.GPUOPT_DTYPE_I64
    if in_type in (k.GPUOPT_DTYPE_BF16, k.GPUOPT_DTYPE_F16):
        return k.GPUOPT_DTYPE_F32
    if op == k.GPUOPT_REDUCE_SUM and in_type == k.GPUOPT_DTYPE_I32:
        return k.GPUOPT_DTYPE_I64
    if op == k.GPUOPT_REDUCE_SUM and in_type == k.GPUOPT_DTYPE_U32:
        return k.GPUOPT_DTYPE_U64
    return in_type


def plan_reduce(x, out, op="sum", rows=False, mode=k.GPUOPT_REDUCE_DETERMINISTIC):
    """ReduceDesc for DeviceArrayInfo x: all elements (contiguous x) into out[0], or with
    rows=True each row of a 2-D row-major x into out[i]."""
    op = k.REDUCE_OPS[op] if isinstance(op, str) else int(op)
    element_dtype(x, "gpuopt.reduce_array: x")
    element_dtype(out, "gpuopt.reduce_array: out")
    if rows:
        if len(x.shape) != 2 or (x.strides[1] != 1 and x.shape[1] > 1):
            raise ValueError("gpuopt.reduce_array: rows=True needs a 2-D array with unit "
                             f"column stride (shape {x.shape}, strides {x.strides})")
        segs, n, stride = x.shape[0], x.shape[1], max(x.strides[0], x.shape[1])
    else:
        if not x.is_contiguous():
            raise ValueError("gpuopt.reduce_array: the input must be contiguous")
        segs, n, stride = 1, x.size, x.size
    want = reduce_result_dtype(op, x.dtype)
    if out.dtype != want:
        raise TypeError(f"gpuopt.reduce_array: out must have dtype "
                        f"{lib.gpuopt_dtype_name(want).decode()}, has "
                        f"{lib.gpuopt_dtype_name(out.dtype).decode()}")
    if out.size < segs:
        raise ValueError(f"gpuopt.reduce_array: out holds {out.size} results, {segs} needed")
    return ReduceDesc(op=op, in_type=x.dtype, n=n, num_segments=segs, segment_stride=stride,
                      offsets=None, mode=mode)


def reduce_array(stream, x, out, op="sum", rows=False, mode=k.GPUOPT_REDUCE_DETERMINISTIC):
    """Reduces device array x ("sum", "min", "max", "argmin", "argmax") into device array out:
    one result, or one per row with rows=True. Returns out."""
    stream = _stream_for(stream, "reduce_array", x, out)
    xi, oi = as_device_array(x, stream), as_device_array(out, stream)
    d = plan_reduce(xi, oi, op, rows, mode)
    check(lib.gpuopt_reduce(stream.ctx._h, stream._h, ctypes.byref(d), _vp(xi.ptr or None),
                            _vp(oi.ptr or None)))
    return out


def sum(stream, x, out):  # noqa: A001 (gpuopt.sum, like torch.sum)
    """out[0] = sum of the elements of contiguous device array x. Returns out."""
    return reduce_array(stream, x, out, "sum")


# --- segmented sort, stencil, transpose, GDN -------------------------------------------------
def segmented_sort_workspace_size(ctx, desc):
    n = ctypes.c_size_t(0)
    check(lib.gpuopt_segmented_sort_workspace_size(ctx._h, ctypes.byref(desc), ctypes.byref(n)))
    return n.value


def segmented_sort(stream, desc, keys_in, keys_out, values_in=None, values_out=None,
                   workspace=None, workspace_bytes=None):
    """gpuopt_segmented_sort with a SegmentedSortDesc; workspace of at least
    segmented_sort_workspace_size() bytes (a Buffer, a device array, or an address with
    workspace_bytes)."""
    stream = _stream_for(stream, "segmented_sort", keys_in, keys_out)
    wb = _nbytes(workspace) if workspace_bytes is None else workspace_bytes
    check(lib.gpuopt_segmented_sort(stream.ctx._h, stream._h, ctypes.byref(desc),
                                    _addr(keys_in, stream), _addr(keys_out, stream),
                                    _addr(values_in, stream), _addr(values_out, stream),
                                    _addr(workspace, stream), wb))


def stencil(stream, desc, inp, out):
    """gpuopt_stencil with a StencilDesc (set its coefficients with desc.set_coeffs())."""
    stream = _stream_for(stream, "stencil", inp, out)
    check(lib.gpuopt_stencil(stream.ctx._h, stream._h, ctypes.byref(desc), _addr(inp, stream),
                             _addr(out, stream)))


def transpose(stream, desc, A, B):
    """gpuopt_transpose with a TransposeDesc: B = A^T, column-major."""
    stream = _stream_for(stream, "transpose", A, B)
    check(lib.gpuopt_transpose(stream.ctx._h, stream._h, ctypes.byref(desc), _addr(A, stream),
                               _addr(B, stream)))


def plan_transpose(x, out):
    """TransposeDesc of out = x^T for 2-D DeviceArrayInfo x (r, c) and out (c, r), both
    row-major or both column-major (between layouts a transpose is a copy: refused)."""
    fn = "gpuopt.transpose_array"
    for name, info in (("x", x), ("out", out)):
        if len(info.shape) != 2:
            raise ValueError(f"{fn}: {name} must be 2-D, has shape {info.shape}")
        element_dtype(info, f"{fn}: {name}")
    (r, c), (oc, orr) = x.shape, out.shape
    if (oc, orr) != (c, r):
        raise ValueError(f"{fn}: out has shape {out.shape}, the transpose of {x.shape} is {(c, r)}")
    if x.dtype != out.dtype:
        raise TypeError(f"{fn}: x and out differ in dtype")
    tx, ldx = _colmajor(x, "x", fn)
    to, ldo = _colmajor(out, "out", fn)
    if tx != to:
        raise ValueError(f"{fn}: x and out must have the same layout (both row-major or both "
                         "column-major); between layouts the transpose is a copy")
    # Row-major x is the column-major c x r matrix x^T, whose transpose, r x c column-major, is
    # row-major out; column-major x is x itself (r x c), its transpose column-major out.
    rows, cols = (c, r) if tx else (r, c)
    return TransposeDesc(dtype=x.dtype, rows=rows, cols=cols, lda=ldx, ldb=ldo)


def transpose_array(stream, x, out):
    """out = x.T for 2-D device arrays of the same layout (e.g. PyTorch tensors: x (r, c)
    contiguous, out (c, r) contiguous). Returns out."""
    stream = _stream_for(stream, "transpose_array", x, out)
    xi, oi = as_device_array(x, stream), as_device_array(out, stream)
    d = plan_transpose(xi, oi)
    check(lib.gpuopt_transpose(stream.ctx._h, stream._h, ctypes.byref(d), _vp(xi.ptr or None),
                               _vp(oi.ptr or None)))
    return out


def gdn_workspace_size(ctx, desc, pass_=k.GPUOPT_GDN_FORWARD):
    n = ctypes.c_size_t(0)
    check(lib.gpuopt_gdn_workspace_size(ctx._h, ctypes.byref(desc), pass_, ctypes.byref(n)))
    return n.value


def gdn_forward(stream, desc, x, beta, gamma, y, workspace=None, workspace_bytes=None):
    """gpuopt_gdn_forward with a GdnDesc: y = GDN(x), NCHW f32."""
    stream = _stream_for(stream, "gdn_forward", x, y)
    wb = _nbytes(workspace) if workspace_bytes is None else workspace_bytes
    check(lib.gpuopt_gdn_forward(stream.ctx._h, stream._h, ctypes.byref(desc), _addr(x, stream),
                                 _addr(beta, stream), _addr(gamma, stream), _addr(y, stream),
                                 _addr(workspace, stream), wb))


def gdn_backward(stream, desc, x, beta, gamma, dy, dx, dbeta, dgamma, workspace=None,
                 workspace_bytes=None):
    """gpuopt_gdn_backward with a GdnDesc: dx, dbeta, dgamma from dy."""
    stream = _stream_for(stream, "gdn_backward", x, dy)
    wb = _nbytes(workspace) if workspace_bytes is None else workspace_bytes
    check(lib.gpuopt_gdn_backward(stream.ctx._h, stream._h, ctypes.byref(desc),
                                  _addr(x, stream), _addr(beta, stream), _addr(gamma, stream),
                                  _addr(dy, stream), _addr(dx, stream), _addr(dbeta, stream),
                                  _addr(dgamma, stream), _addr(workspace, stream), wb))
