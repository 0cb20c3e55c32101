"""The library's log, process-wide: its level (set_log_level, else GPUOPT_LOG) and where its
lines go (stderr, or a Python callable given to set_log_callback)."""
import ctypes
import threading

from ._constants import GPUOPT_LOG_DEBUG, GPUOPT_LOG_INFO, GPUOPT_LOG_OFF
from ._errors import check
from ._lib import LOG_FN, lib

_lock = threading.Lock()
_installed = None  # the ctypes thunk the library holds: kept alive while installed


def set_log_level(level):
    """Sets how much the library logs: GPUOPT_LOG_OFF, GPUOPT_LOG_INFO or GPUOPT_LOG_DEBUG."""
    check(lib.gpuopt_set_log_level(int(level)))


def get_log_level():
    """The current log level (GPUOPT_LOG_OFF, _INFO or _DEBUG)."""
    level = ctypes.c_int(GPUOPT_LOG_OFF)
    check(lib.gpuopt_get_log_level(ctypes.byref(level)))
    return level.value


def set_log_callback(fn):
    """Sends the library's log lines to ``fn(level, message)`` (message a str without newline)
    instead of stderr; ``None`` restores stderr. Process-wide; ``fn`` may be called from any
    thread that calls gpuopt, and must not call set_log_callback. An exception it raises is
    printed by ctypes and otherwise ignored. The level is unchanged (see set_log_level)."""
    global _installed
    thunk = None
    if fn is not None:
        def trampoline(level, message, _user):
            fn(level, message.decode("utf-8", "replace") if message else "")
        thunk = LOG_FN(trampoline)
    with _lock:
        address = None if thunk is None else ctypes.cast(thunk, ctypes.c_void_p)
        check(lib.gpuopt_set_log_callback(address, None))
        # The library no longer calls the previous thunk once the call returned: release it.
        _installed = thunk if fn is not None else None


__all__ = ["set_log_level", "get_log_level", "set_log_callback", "GPUOPT_LOG_OFF",
           "GPUOPT_LOG_INFO", "GPUOPT_LOG_DEBUG"]
