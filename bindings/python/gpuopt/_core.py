"""Contexts, streams, buffers and graphs: thin owners of the C handles.

Each class has close() (also called by ``with`` and, as a last resort, by the garbage collector)
and raises GpuoptError when a call fails. Thread rules are the C library's (docs/threading.md):
a Context may be shared by threads that enqueue on different streams; a Stream is used by one
thread at a time.
"""
import ctypes
import os

from . import _constants as k
from ._errors import GpuoptError, check
from ._lib import lib
from ._types import (ALLOCATE_FN, DEALLOCATE_FN, TUNE_CALL_FN, Allocator, DeviceInfo, TuneResult,
                     VariantInfo)

_vp = ctypes.c_void_p


def _s(b):
    return None if b is None else b.decode()


def device_count():
    """Number of CUDA devices (0 without a driver or device; no exception)."""
    n = ctypes.c_int(0)
    lib.gpuopt_device_count(ctypes.byref(n))
    return n.value


def device_info(device=0):
    """DeviceInfo of device ``device`` (no context is created)."""
    info = DeviceInfo()
    check(lib.gpuopt_device_info(device, ctypes.byref(info)))
    return info


class _Handle:
    _destroy = None

    def __init__(self):
        self._h = _vp()

    @property
    def handle(self):
        """The C handle as an integer (0 once closed)."""
        return self._h.value or 0

    def close(self):
        """Destroys the C object (a no-op when already closed)."""
        if self._h.value:
            h, self._h = self._h, _vp()
            check(type(self)._destroy(h))

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:  # never raise from the garbage collector
            pass


class Context(_Handle):
    """gpuopt_context_t on CUDA device ``device``. Raises NoDeviceError without a GPU."""
    _destroy = staticmethod(lib.gpuopt_context_destroy)

    def __init__(self, device=0):
        super().__init__()
        self._primary = None
        self._allocator = None
        check(lib.gpuopt_context_create(device, ctypes.byref(self._h)))
        self.device = device

    def close(self):
        if self._primary is not None:
            self._primary.close()
            self._primary = None
        super().close()

    def device_info(self):
        info = DeviceInfo()
        check(lib.gpuopt_context_device_info(self._h, ctypes.byref(info)))
        return info

    # memory
    def set_allocator(self, allocate=None, deallocate=None):
        """Allocates the context's device memory (stream workspaces, GPUOPT_MEMORY_DEVICE
        buffers) through ``allocate(nbytes, cuda_stream) -> int address`` (0 when it cannot)
        and ``deallocate(address, nbytes, cuda_stream)``; no arguments restore cudaMalloc.
        Call it before creating streams or buffers. An exception in a callback counts as
        out of memory (allocate) or is ignored (deallocate). See use_torch_allocator()."""
        if (allocate is None) != (deallocate is None):
            raise ValueError("give both allocate and deallocate, or neither")
        if allocate is None:
            check(lib.gpuopt_context_set_allocator(self._h, None))
            self._allocator = None
            return

        def _alloc(nbytes, stream, _user):
            try:
                return int(allocate(nbytes, stream or 0) or 0) or None
            except Exception:  # never unwind through C
                return None

        def _free(ptr, nbytes, stream, _user):
            try:
                deallocate(ptr or 0, nbytes, stream or 0)
            except Exception:
                pass

        a = Allocator(allocate=ALLOCATE_FN(_alloc), deallocate=DEALLOCATE_FN(_free))
        check(lib.gpuopt_context_set_allocator(self._h, ctypes.byref(a)))
        self._allocator = a  # the callbacks must outlive their use by the context

    def use_torch_allocator(self):
        """Serves the context's device memory from PyTorch's caching allocator
        (torch.cuda.caching_allocator_alloc / caching_allocator_delete) on this context's
        device, so that gpuopt's workspaces and buffers count in torch.cuda.memory_allocated()
        and reuse torch's cached blocks."""
        import torch  # only when asked for

        device = self.device

        def allocate(nbytes, stream):
            # gpuopt passes no stream (0): the block is then torch's current stream's; gpuopt
            # synchronizes the device before giving it back, so any stream may reuse it.
            return torch.cuda.caching_allocator_alloc(nbytes, device, stream or None)

        def deallocate(ptr, _nbytes, _stream):
            torch.cuda.caching_allocator_delete(ptr)

        self.set_allocator(allocate, deallocate)

    # streams and buffers
    def create_stream(self):
        """A new non-blocking stream owned by gpuopt."""
        return Stream(self)

    def wrap_stream(self, cuda_stream):
        """Borrows a cudaStream_t given as an integer (torch: ``s.cuda_stream``; CuPy:
        ``s.ptr``; 0 is the legacy default stream). Keep it alive while the Stream lives."""
        return Stream(self, wrap=int(cuda_stream or 0))

    def create_buffer(self, nbytes, kind=k.GPUOPT_MEMORY_DEVICE):
        return Buffer(self, nbytes, kind)

    def wrap_buffer(self, device_ptr, nbytes):
        """Borrows ``nbytes`` of device memory at integer address ``device_ptr``."""
        return Buffer(self, nbytes, wrap=int(device_ptr))

    # variants
    def variants(self, op):
        """[VariantInfo] of every variant of ``op`` (a GPUOPT_OP_* value)."""
        n = ctypes.c_int(0)
        check(lib.gpuopt_variant_count(self._h, op, ctypes.byref(n)))
        out = []
        for i in range(n.value):
            vi = VariantInfo()
            check(lib.gpuopt_variant_info(self._h, op, i, ctypes.byref(vi)))
            out.append(vi)
        return out

    def variant_name(self, op, index):
        name = ctypes.c_char_p()
        check(lib.gpuopt_variant_name(self._h, op, index, ctypes.byref(name)))
        return _s(name.value)

    def set_variant(self, op, name):
        """Forces variant ``name`` for ``op`` ("variant:config" also forces one of its run-time
        configurations, e.g. "cublaslt:algo2"); None or "auto" returns to automatic choice."""
        check(lib.gpuopt_context_set_variant(self._h, op, None if name is None else
                                             name.encode()))

    def get_variant(self, op):
        name = ctypes.c_char_p()
        check(lib.gpuopt_context_get_variant(self._h, op, ctypes.byref(name)))
        return _s(name.value)

    def last_variant(self, op):
        """The variant the last successful call of ``op`` ran, or None."""
        name = ctypes.c_char_p()
        check(lib.gpuopt_last_variant(self._h, op, ctypes.byref(name)))
        return _s(name.value)

    # pointer checks (docs/memory.md, "Pointer checks")
    @property
    def pointer_checks(self):
        """How raw pointer operands are checked: GPUOPT_POINTER_CHECKS_FULL (the default: every
        call asks the driver, freed memory is refused) or GPUOPT_POINTER_CHECKS_CACHED (an
        allocation validated once is trusted, as cuBLAS trusts every pointer; call
        forget_pointers() after memory given to an op is freed)."""
        mode = ctypes.c_int(0)
        check(lib.gpuopt_context_pointer_checks(self._h, ctypes.byref(mode)))
        return mode.value

    @pointer_checks.setter
    def pointer_checks(self, mode):
        check(lib.gpuopt_context_set_pointer_checks(self._h, int(mode)))

    def forget_pointers(self):
        """Drops the caller allocations the context validated and cached (gpuopt's own buffers
        stay known): the next use of each is checked by the driver again."""
        check(lib.gpuopt_context_forget_pointers(self._h))

    # tuning cache (docs/tuning.md)
    def set_tune_cache(self, path):
        """Attaches the tuning cache file ``path`` (read now; Context.tune writes it); None
        detaches it and dispatch follows the built-in rules again. A stale or malformed file is
        ignored (one log line): see tune_cache_entries()."""
        check(lib.gpuopt_context_set_tune_cache(self._h, None if path is None else
                                                os.fsencode(path)))

    def tune_cache_entries(self):
        """Number of problem classes in the tuning cache (0 when none is attached)."""
        n = ctypes.c_int(0)
        check(lib.gpuopt_context_tune_cache_entries(self._h, ctypes.byref(n)))
        return n.value

    def tune(self, op, stream, call, budget_seconds=1.0):
        """Times every variant of ``op`` on the problem that ``call()`` runs (one gpuopt call of
        ``op`` enqueued on ``stream``, e.g. ``lambda: gpuopt.gemm(stream, desc, A, B, C)``; it
        runs many times and overwrites its outputs), records the fastest for the problem's class
        (the preference rules' own choice stays unless another variant is more than 1% faster)
        and returns the TuneResult (variant, ms, timed, refused, config)."""
        err = []

        def trampoline(_user):
            try:
                call()
                return k.GPUOPT_SUCCESS
            except GpuoptError as e:  # the op's own status: gpuopt_tune judges it
                return e.status
            except BaseException as e:  # never unwind through C
                err.append(e)
                return k.GPUOPT_ERROR_INVALID_ARGUMENT

        thunk = TUNE_CALL_FN(trampoline)
        result = TuneResult()
        status = lib.gpuopt_tune(self._h, stream._h, op, ctypes.cast(thunk, _vp), None,
                                 float(budget_seconds), ctypes.byref(result))
        if err:
            raise err[0]
        check(status)
        return result

    def _primary_context(self):
        if self._primary is None:
            from ._cuda import PrimaryContext
            self._primary = PrimaryContext(self.device_info().device)
        return self._primary


class Stream(_Handle):
    """gpuopt_stream_t: a CUDA stream with its own cuBLAS handle and workspace."""
    _destroy = staticmethod(lib.gpuopt_stream_destroy)

    def __init__(self, ctx, wrap=None):
        super().__init__()
        self.ctx = ctx
        self.capturing = False  # between begin_capture() and end_capture()
        if wrap is None:
            check(lib.gpuopt_stream_create(ctx._h, ctypes.byref(self._h)))
        else:
            check(lib.gpuopt_stream_wrap(ctx._h, _vp(wrap or None), ctypes.byref(self._h)))

    @property
    def native(self):
        """The cudaStream_t as an integer (0: the legacy default stream)."""
        p = _vp()
        check(lib.gpuopt_stream_native(self._h, ctypes.byref(p)))
        return p.value or 0

    def synchronize(self):
        check(lib.gpuopt_stream_synchronize(self._h))

    def wait_for_native(self, producer):
        """Makes this stream wait for the work enqueued so far on cudaStream_t ``producer``
        (array-interface numbering: 1 legacy default, 2 per-thread default)."""
        mine = self.native or 1
        if producer in (0, None) or producer == mine:
            return
        self.ctx._primary_context().stream_wait(mine, producer)

    # graphs
    def begin_capture(self):
        """Starts capturing this stream (gpuopt_graph_begin)."""
        check(lib.gpuopt_graph_begin(self.ctx._h, self._h))
        self.capturing = True

    def end_capture(self, update=None):
        """Ends the capture: a new Graph, or with ``update=graph`` updates that graph and returns
        True when it was updated in place."""
        self.capturing = False
        if update is None:
            g = Graph(self.ctx)
            check(lib.gpuopt_graph_end(self._h, ctypes.byref(g._h)))
            return g
        in_place = ctypes.c_int(0)
        check(lib.gpuopt_graph_end_update(self._h, update._h, ctypes.byref(in_place)))
        return bool(in_place.value)

    def capture(self):
        """``with stream.capture() as cap: ...`` then ``cap.graph`` is the Graph."""
        return _Capture(self)


class _Capture:
    def __init__(self, stream):
        self.stream = stream
        self.graph = None

    def __enter__(self):
        self.stream.begin_capture()
        return self

    def __exit__(self, exc_type, *rest):
        if exc_type is None:
            self.graph = self.stream.end_capture()
        else:  # end the capture, keep the original exception
            try:
                self.stream.end_capture().close()
            except Exception:
                pass


class Graph(_Handle):
    """gpuopt_graph_t: an executable graph made by Stream.end_capture()."""
    _destroy = staticmethod(lib.gpuopt_graph_destroy)

    def __init__(self, ctx):
        super().__init__()
        self.ctx = ctx

    def launch(self, stream):
        check(lib.gpuopt_graph_launch(self._h, stream._h))


class Buffer(_Handle):
    """gpuopt_buffer_t: memory of a gpuopt_memory_kind_t, or borrowed device memory."""
    _destroy = staticmethod(lib.gpuopt_buffer_destroy)

    def __init__(self, ctx, nbytes, kind=k.GPUOPT_MEMORY_DEVICE, wrap=None):
        super().__init__()
        self.ctx = ctx
        if wrap is None:
            check(lib.gpuopt_buffer_create(ctx._h, nbytes, kind, ctypes.byref(self._h)))
        else:
            check(lib.gpuopt_buffer_wrap(ctx._h, _vp(wrap), nbytes, ctypes.byref(self._h)))

    def _ptr(self, fn):
        p = _vp()
        check(fn(self._h, ctypes.byref(p)))
        return p.value or 0

    def close_async(self, stream):
        """Destroys the buffer with its memory freed in ``stream``'s order, as cudaFreeAsync
        (gpuopt_buffer_destroy_async): no synchronization; work on other streams that uses the
        buffer must be ordered before it by the caller. ``close()`` synchronizes the device
        instead. A no-op when already closed; on failure the buffer stays open."""
        if self._h.value:
            check(lib.gpuopt_buffer_destroy_async(self._h, stream._h))
            self._h = _vp()

    @property
    def device_pointer(self):
        return self._ptr(lib.gpuopt_buffer_device_pointer)

    @property
    def host_pointer(self):
        return self._ptr(lib.gpuopt_buffer_host_pointer)

    @property
    def nbytes(self):
        n = ctypes.c_size_t(0)
        check(lib.gpuopt_buffer_size(self._h, ctypes.byref(n)))
        return n.value

    @property
    def kind(self):
        v = ctypes.c_int(0)
        check(lib.gpuopt_buffer_kind(self._h, ctypes.byref(v)))
        return v.value

    @property
    def is_compressed(self):
        v = ctypes.c_int(0)
        check(lib.gpuopt_buffer_is_compressed(self._h, ctypes.byref(v)))
        return bool(v.value)

    def view(self, dtype, shape=None, strides=None):
        """A DeviceArray (``__cuda_array_interface__``) over this buffer's device memory."""
        from ._arrays import DeviceArray, dtype_code
        code = dtype_code(dtype)
        if shape is None:
            shape = (self.nbytes // k.DTYPE_BYTES[code],)
        return DeviceArray(self.device_pointer, shape, code, strides, owner=self)

    def copy_from_host(self, stream, src, offset=0):
        """Enqueues a copy of host object ``src`` (anything with the buffer protocol: bytes,
        array.array, numpy arrays) into the buffer at byte ``offset``. Pageable memory is copied
        synchronously by CUDA."""
        addr, nbytes, keep = _host_address(src, writable=False)
        check(lib.gpuopt_buffer_copy_from_host(self._h, stream._h, offset, _vp(addr), nbytes))
        del keep

    def copy_to_host(self, stream, dst=None, offset=0, nbytes=None):
        """Enqueues a copy of the buffer (from byte ``offset``) into writable host object ``dst``
        (default: a new bytearray of ``nbytes``, all the rest of the buffer); returns ``dst``.
        Read it after stream.synchronize()."""
        if dst is None:
            dst = bytearray(self.nbytes - offset if nbytes is None else nbytes)
        addr, size, keep = _host_address(dst, writable=True)
        check(lib.gpuopt_buffer_copy_to_host(self._h, stream._h, offset, _vp(addr),
                                             size if nbytes is None else nbytes))
        del keep
        return dst


def _host_address(obj, writable):
    """(address, nbytes, keepalive) of a contiguous host object."""
    ai = getattr(obj, "__array_interface__", None)  # numpy, without importing it
    if ai is not None and ai.get("strides") is None:
        if writable and ai["data"][1]:
            raise ValueError("gpuopt: destination array is read-only")
        n = 1
        for s in ai["shape"]:
            n *= s
        return ai["data"][0], n * int(ai["typestr"][2:]), obj
    mv = memoryview(obj)
    if not mv.contiguous:
        raise ValueError("gpuopt: host array must be contiguous")
    mv = mv.cast("B")
    if mv.readonly:
        if writable:
            raise ValueError("gpuopt: destination is read-only")
        mv = memoryview(bytearray(mv))  # a private copy we can take the address of
    buf = (ctypes.c_char * mv.nbytes).from_buffer(mv)
    return ctypes.addressof(buf), mv.nbytes, (mv, buf)
