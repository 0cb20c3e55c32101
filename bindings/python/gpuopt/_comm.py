"""Multi-GPU: communicators, collectives, process grids, distributed GEMM (NCCL underneath).

One process, several GPUs (one Context each)::

    comms = gpuopt.Comm.create_local([ctx0, ctx1])
    with gpuopt.group():                     # one thread enqueues on every GPU
        for c, s, t in zip(comms, streams, tensors):
            gpuopt.allreduce(c, s, t)        # torch tensors on each GPU go straight in

One process per GPU: rank 0 makes ``CommId.create()``, passes ``id.hex()`` to the others by any
means (environment, file, MPI), and every rank calls ``Comm(ctx, id, nranks, rank)``.
See docs/multi-gpu.md. Every call answers GpuoptError (GPUOPT_ERROR_UNSUPPORTED without NCCL).
"""
import contextlib
import ctypes

from . import _constants as k
from ._arrays import as_device_array, device_pointer, dtype_code
from ._core import _Handle
from ._errors import check
from ._lib import lib
from ._types import CommId as _CommId, DistDesc, GemmDistDesc, ReduceDesc

_vp = ctypes.c_void_p
_OPS = {"sum": k.GPUOPT_REDUCE_SUM, "min": k.GPUOPT_REDUCE_MIN, "max": k.GPUOPT_REDUCE_MAX}


def nccl_version():
    """NCCL_VERSION_CODE of the NCCL gpuopt loaded (loading it if needed)."""
    v = ctypes.c_int()
    check(lib.gpuopt_comm_nccl_version(ctypes.byref(v)))
    return v.value


class CommId(_CommId):
    """gpuopt_comm_id_t with its hex text form."""

    @classmethod
    def create(cls):
        """A new rendezvous id (call on one rank only)."""
        i = cls()
        check(lib.gpuopt_comm_id_create(ctypes.byref(i)))
        return i

    @classmethod
    def from_hex(cls, text):
        i = cls()
        check(lib.gpuopt_comm_id_from_hex(text.encode() if isinstance(text, str) else text,
                                          ctypes.byref(i)))
        return i

    def hex(self):
        buf = ctypes.create_string_buffer(k.GPUOPT_COMM_ID_HEX_SIZE)
        check(lib.gpuopt_comm_id_to_hex(ctypes.byref(self), buf, len(buf)))
        return buf.value.decode()


class Comm(_Handle):
    """gpuopt_comm_t: one rank of a communicator, bound to a Context."""
    _destroy = staticmethod(lib.gpuopt_comm_destroy)

    def __init__(self, ctx, comm_id=None, nranks=1, rank=0, _handle=None):
        super().__init__()
        self.ctx = ctx
        if _handle is not None:
            self._h = _vp(_handle)
        else:
            check(lib.gpuopt_comm_create(ctx._h, ctypes.byref(comm_id), nranks, rank,
                                         ctypes.byref(self._h)))

    @classmethod
    def create_local(cls, contexts):
        """One communicator over several contexts of this process: [rank 0, rank 1, ...]."""
        n = len(contexts)
        arr = (_vp * n)(*[c._h.value for c in contexts])
        out = (_vp * n)()
        check(lib.gpuopt_comm_create_local(arr, n, out))
        return [cls(c, _handle=h) for c, h in zip(contexts, out)]

    def split(self, color, key=0):
        """The communicator of the ranks passing the same color (None for
        GPUOPT_COMM_SPLIT_NONE); collective."""
        h = _vp()
        check(lib.gpuopt_comm_split(self._h, color, key, ctypes.byref(h)))
        return None if not h.value else Comm(self.ctx, _handle=h.value)

    def _int(self, fn):
        v = ctypes.c_int()
        check(fn(self._h, ctypes.byref(v)))
        return v.value

    @property
    def rank(self):
        return self._int(lib.gpuopt_comm_rank)

    @property
    def size(self):
        return self._int(lib.gpuopt_comm_size)

    @property
    def device(self):
        return self._int(lib.gpuopt_comm_device)

    def set_checked(self, checked=True):
        """The checked mode: every collective first agrees on its arguments with the others."""
        check(lib.gpuopt_comm_set_checked(self._h, 1 if checked else 0))

    def status(self):
        """Raises GpuoptError (GPUOPT_ERROR_COMM) after an asynchronous NCCL error."""
        check(lib.gpuopt_comm_status(self._h))

    def abort(self):
        """Gives up this rank (ncclCommAbort) and frees the handle."""
        if self._h.value:
            h, self._h = self._h, _vp()
            check(lib.gpuopt_comm_abort(h))


@contextlib.contextmanager
def group():
    """gpuopt_group_begin() ... gpuopt_group_end()."""
    check(lib.gpuopt_group_begin())
    try:
        yield
    finally:
        check(lib.gpuopt_group_end())


def _array(x, stream):
    info = as_device_array(x, stream)
    if not info.is_contiguous():
        raise ValueError("gpuopt: collectives need contiguous arrays")
    return info


def allreduce(comm, stream, send, recv=None, op="sum"):
    """recv = op over ranks of send (in place when recv is None or send)."""
    s = _array(send, stream)
    r = s if recv is None else _array(recv, stream)
    check(lib.gpuopt_allreduce(comm._h, stream._h, s.dtype, _OPS.get(op, op), _vp(s.ptr),
                               _vp(r.ptr), s.size))
    return recv if recv is not None else send


def reduce_scatter(comm, stream, send, recv, op="sum"):
    """Block `rank` of the reduction of send (size * recv.size elements) into recv."""
    s, r = _array(send, stream), _array(recv, stream)
    check(lib.gpuopt_reduce_scatter(comm._h, stream._h, s.dtype, _OPS.get(op, op), _vp(s.ptr),
                                    _vp(r.ptr), r.size))
    return recv


def allgather(comm, stream, send, recv):
    """Every rank's send into recv (size * send.size elements)."""
    s, r = _array(send, stream), _array(recv, stream)
    check(lib.gpuopt_allgather(comm._h, stream._h, s.dtype, _vp(s.ptr), _vp(r.ptr), s.size))
    return recv


def broadcast(comm, stream, buf, root=0, send=None):
    """buf on every rank = send (default buf) of rank root."""
    b = _array(buf, stream)
    src = b if send is None else _array(send, stream)
    check(lib.gpuopt_broadcast(comm._h, stream._h, b.dtype, _vp(src.ptr), _vp(b.ptr), b.size,
                               root))
    return buf


def reduce_dist(comm, stream, desc, x, out):
    """gpuopt_reduce over this rank's part, combined over all ranks (desc: ReduceDesc)."""
    if not isinstance(desc, ReduceDesc):
        raise TypeError("gpuopt.reduce_dist: desc must be a gpuopt.ReduceDesc")
    check(lib.gpuopt_reduce_dist(comm._h, stream._h, ctypes.byref(desc),
                                 _vp(device_pointer(x, stream) or None),
                                 _vp(device_pointer(out, stream) or None)))
    return out


class Grid(_Handle):
    """gpuopt_grid_t: a communicator arranged as rows x cols (collective to create)."""
    _destroy = staticmethod(lib.gpuopt_grid_destroy)

    def __init__(self, comm, rows, cols):
        super().__init__()
        self.comm = comm
        check(lib.gpuopt_grid_create(comm._h, rows, cols, ctypes.byref(self._h)))

    def info(self):
        """(grid_rows, grid_cols, my_row, my_col)."""
        v = [ctypes.c_int() for _ in range(4)]
        check(lib.gpuopt_grid_info(self._h, *[ctypes.byref(x) for x in v]))
        return tuple(x.value for x in v)

    def dist_desc(self, dtype, rows, cols, row_block, col_block, ld=None):
        """A DistDesc of this grid; ld defaults to this rank's local rows."""
        gr, gc, mr, mc = self.info()
        d = DistDesc(dtype=dtype_code(dtype), rows=rows, cols=cols, row_block=row_block,
                     col_block=col_block, grid_rows=gr, grid_cols=gc, ld=1)
        lr, _ = local_shape(d, mr, mc)
        d.ld = ld if ld is not None else max(1, lr)
        return d


def local_shape(desc, grid_row, grid_col):
    """(local rows, local cols) of a grid position."""
    r, c = ctypes.c_int64(), ctypes.c_int64()
    check(lib.gpuopt_dist_local_shape(ctypes.byref(desc), grid_row, grid_col, ctypes.byref(r),
                                      ctypes.byref(c)))
    return r.value, c.value


def locate(desc, i, j):
    """(grid_row, grid_col, local_i, local_j) of global element (i, j)."""
    a, b = ctypes.c_int(), ctypes.c_int()
    li, lj = ctypes.c_int64(), ctypes.c_int64()
    check(lib.gpuopt_dist_locate(ctypes.byref(desc), i, j, ctypes.byref(a), ctypes.byref(b),
                                 ctypes.byref(li), ctypes.byref(lj)))
    return a.value, b.value, li.value, lj.value


def scatter(grid, stream, desc, root, src, ld_src, local):
    """Distributes root's column-major src (device or host address) into every rank's local."""
    check(lib.gpuopt_dist_scatter(grid._h, stream._h, ctypes.byref(desc), root,
                                  _vp(device_pointer(src, stream) or None), ld_src,
                                  _vp(device_pointer(local, stream) or None)))


def gather(grid, stream, desc, root, local, dst, ld_dst):
    """Collects every rank's local into root's column-major dst (device or host address)."""
    check(lib.gpuopt_dist_gather(grid._h, stream._h, ctypes.byref(desc), root,
                                 _vp(device_pointer(local, stream) or None),
                                 _vp(device_pointer(dst, stream) or None), ld_dst))


def gemm_dist_workspace_size(grid, desc):
    n = ctypes.c_size_t()
    check(lib.gpuopt_gemm_dist_workspace_size(grid._h, ctypes.byref(desc), ctypes.byref(n)))
    return n.value


def gemm_dist(grid, stream, desc, A, B, C, workspace, workspace_bytes=None):
    """SUMMA: C = alpha A B + beta C over the grid (desc: GemmDistDesc)."""
    if not isinstance(desc, GemmDistDesc):
        raise TypeError("gpuopt.gemm_dist: desc must be a gpuopt.GemmDistDesc")
    if workspace_bytes is None:
        workspace_bytes = gemm_dist_workspace_size(grid, desc)
    check(lib.gpuopt_gemm_dist(grid._h, stream._h, ctypes.byref(desc),
                               _vp(device_pointer(A, stream) or None),
                               _vp(device_pointer(B, stream) or None),
                               _vp(device_pointer(C, stream) or None),
                               _vp(device_pointer(workspace, stream) or None), workspace_bytes))
