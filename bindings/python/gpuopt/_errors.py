"""GpuoptError: a failed gpuopt call, with its status and the thread's message."""
import ctypes

from ._constants import GPUOPT_ERROR_NO_DEVICE, GPUOPT_SUCCESS
from ._lib import lib


def status_name(status):
    """The constant's name of a status, e.g. "GPUOPT_ERROR_INVALID_ARGUMENT"."""
    return lib.gpuopt_status_name(int(status)).decode()


def last_error_message():
    """The calling thread's message for its last failed gpuopt call ("" when none)."""
    length = ctypes.c_size_t(0)
    lib.gpuopt_last_error_message(None, 0, ctypes.byref(length))
    buf = ctypes.create_string_buffer(length.value + 1)
    lib.gpuopt_last_error_message(buf, len(buf), None)
    return buf.value.decode(errors="replace")


class GpuoptError(RuntimeError):
    """A gpuopt call failed. ``status`` is the gpuopt_status_t value, ``status_name`` its name and
    ``message`` the library's message (function, argument, what was expected)."""

    def __init__(self, status, message):
        self.status = int(status)
        self.status_name = status_name(self.status)
        self.message = message
        super().__init__(f"{self.status_name}: {message}")


class NoDeviceError(GpuoptError):
    """GPUOPT_ERROR_NO_DEVICE: no CUDA device or no usable driver."""


def check(status):
    """Raises GpuoptError (NoDeviceError for GPUOPT_ERROR_NO_DEVICE) unless status is success."""
    if status == GPUOPT_SUCCESS:
        return
    cls = NoDeviceError if status == GPUOPT_ERROR_NO_DEVICE else GpuoptError
    raise cls(status, last_error_message())
