"""The few CUDA driver calls the binding needs, through ctypes: making a gpuopt stream wait for
the producer stream named by a ``__cuda_array_interface__`` (an event recorded there, waited on
here). libcuda comes with the NVIDIA driver; without it nothing here is called (no device means
no context, so no array reaches an operation)."""
import ctypes

CU_EVENT_DISABLE_TIMING = 0x2
_lib = None


def _driver():
    global _lib
    if _lib is None:
        lib = ctypes.CDLL("libcuda.so.1")
        p, pp, i = ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p), ctypes.c_int
        for name, args in (("cuInit", [ctypes.c_uint]),
                           ("cuDeviceGet", [ctypes.POINTER(i), i]),
                           ("cuDevicePrimaryCtxRetain", [pp, i]),
                           ("cuDevicePrimaryCtxRelease_v2", [i]),
                           ("cuCtxPushCurrent_v2", [p]),
                           ("cuCtxPopCurrent_v2", [pp]),
                           ("cuEventCreate", [pp, ctypes.c_uint]),
                           ("cuEventRecord", [p, p]),
                           ("cuStreamWaitEvent", [p, p, ctypes.c_uint]),
                           ("cuEventDestroy_v2", [p])):
            fn = getattr(lib, name)
            fn.restype = ctypes.c_int
            fn.argtypes = args
        _ok(lib.cuInit(0), "cuInit")  # done already by the runtime inside libgpuopt; idempotent
        _lib = lib
    return _lib


def _ok(rc, what):
    if rc != 0:
        raise RuntimeError(f"gpuopt: CUDA driver call {what} failed with CUresult {rc}")


class PrimaryContext:
    """The device's primary context (the one the CUDA runtime, gpuopt, PyTorch and CuPy share),
    retained once and made current around driver calls."""

    def __init__(self, device):
        drv = _driver()
        self.device = device
        dev = ctypes.c_int(0)
        _ok(drv.cuDeviceGet(ctypes.byref(dev), device), "cuDeviceGet")
        self._ctx = ctypes.c_void_p()
        _ok(drv.cuDevicePrimaryCtxRetain(ctypes.byref(self._ctx), dev.value),
            "cuDevicePrimaryCtxRetain")
        self._dev = dev.value

    def stream_wait(self, consumer, producer):
        """Enqueues on stream ``consumer`` a wait for the work enqueued so far on ``producer``
        (both CUstream / cudaStream_t values; 1 and 2 are the legacy and per-thread default
        streams, as in the array interface)."""
        drv = _driver()
        _ok(drv.cuCtxPushCurrent_v2(self._ctx), "cuCtxPushCurrent")
        try:
            ev = ctypes.c_void_p()
            _ok(drv.cuEventCreate(ctypes.byref(ev), CU_EVENT_DISABLE_TIMING), "cuEventCreate")
            try:
                _ok(drv.cuEventRecord(ev, producer), "cuEventRecord")
                _ok(drv.cuStreamWaitEvent(consumer, ev, 0), "cuStreamWaitEvent")
            finally:
                drv.cuEventDestroy_v2(ev)  # the wait already enqueued stays valid
        finally:
            old = ctypes.c_void_p()
            drv.cuCtxPopCurrent_v2(ctypes.byref(old))

    def close(self):
        if self._ctx is not None:
            _driver().cuDevicePrimaryCtxRelease_v2(self._dev)
            self._ctx = None
