"""Device arrays from other libraries: ``__cuda_array_interface__`` (v3) and ``__dlpack__``.

as_device_array(obj, stream) turns an operand into a DeviceArrayInfo (address, shape, strides in
elements, gpuopt dtype), ordered after its producer on ``stream``:
- ``__cuda_array_interface__`` version 3: its ``stream`` entry (when present and not None) names
  the stream that produces the data; the gpuopt stream is made to wait for it (an event recorded
  there and waited on, through the CUDA driver) unless it is that very stream.
- ``__dlpack__`` (preferred over an array interface older than version 3, which has no stream
  entry): called with ``stream=<the gpuopt stream>``, so the producer orders its work before
  that stream itself, as the DLPack protocol says. The capsule is read, not consumed: its
  destructor releases the tensor when it goes away.
- gpuopt objects (Buffer, DeviceArray) and plain integers (raw device addresses) pass through.

Byte arrays (uint8 / int8: DLPack code 1 or 0 with 8 bits, typestr ``|u1`` / ``|i1``) are taken
as untyped memory, dtype BYTES: fine for workspaces and byte buffers, refused (element_dtype())
wherever the operation needs an element type of gpuopt_dtype_t.
"""
import contextlib
import ctypes
import sys

from . import _constants as k

#: Not a gpuopt_dtype_t: untyped bytes (a uint8 or int8 array), for workspaces and byte buffers.
BYTES = -1
_ITEMSIZE = {**k.DTYPE_BYTES, BYTES: 1}

_TYPESTR = {"f4": k.GPUOPT_DTYPE_F32, "f8": k.GPUOPT_DTYPE_F64, "f2": k.GPUOPT_DTYPE_F16,
            "i4": k.GPUOPT_DTYPE_I32, "i8": k.GPUOPT_DTYPE_I64, "u4": k.GPUOPT_DTYPE_U32,
            "u8": k.GPUOPT_DTYPE_U64}
_DTYPE_TYPESTR = {v: "<" + s for s, v in _TYPESTR.items()}
_DTYPE_TYPESTR[k.GPUOPT_DTYPE_BF16] = "<V2"
_TYPESTR["u1"] = _TYPESTR["i1"] = BYTES
_DTYPE_TYPESTR[BYTES] = "|u1"

# DLPack: (type code, bits) -> gpuopt dtype; device types the GPU can address.
_DL = {(2, 32): k.GPUOPT_DTYPE_F32, (2, 64): k.GPUOPT_DTYPE_F64, (2, 16): k.GPUOPT_DTYPE_F16,
       (4, 16): k.GPUOPT_DTYPE_BF16, (0, 32): k.GPUOPT_DTYPE_I32, (0, 64): k.GPUOPT_DTYPE_I64,
       (1, 32): k.GPUOPT_DTYPE_U32, (1, 64): k.GPUOPT_DTYPE_U64, (1, 8): BYTES, (0, 8): BYTES}
_DL_CUDA, _DL_CUDA_HOST, _DL_CUDA_MANAGED = 2, 3, 13

_NAMES = {"f32": k.GPUOPT_DTYPE_F32, "float32": k.GPUOPT_DTYPE_F32, "f64": k.GPUOPT_DTYPE_F64,
          "float64": k.GPUOPT_DTYPE_F64, "f16": k.GPUOPT_DTYPE_F16, "float16": k.GPUOPT_DTYPE_F16,
          "bf16": k.GPUOPT_DTYPE_BF16, "bfloat16": k.GPUOPT_DTYPE_BF16,
          "i32": k.GPUOPT_DTYPE_I32, "int32": k.GPUOPT_DTYPE_I32, "i64": k.GPUOPT_DTYPE_I64,
          "int64": k.GPUOPT_DTYPE_I64, "u32": k.GPUOPT_DTYPE_U32, "uint32": k.GPUOPT_DTYPE_U32,
          "u64": k.GPUOPT_DTYPE_U64, "uint64": k.GPUOPT_DTYPE_U64}


def dtype_code(dtype):
    """A gpuopt dtype from an int, a name ("f32", "float64"), or a framework dtype whose str()
    ends in such a name (torch.float32, numpy.dtype('float64'), cupy.float32)."""
    if isinstance(dtype, int):
        if dtype not in k.DTYPE_BYTES:
            raise ValueError(f"gpuopt: unknown dtype value {dtype}")
        return dtype
    name = str(getattr(dtype, "name", dtype)).split(".")[-1].split("'")[0]
    if name in _NAMES:
        return _NAMES[name]
    raise TypeError(f"gpuopt: unsupported dtype {dtype!r}")


class DeviceArrayInfo:
    """What an operation needs to know of an operand (strides in elements)."""

    def __init__(self, ptr, shape, strides, dtype, keepalive=None):
        self.ptr = int(ptr or 0)
        self.shape = tuple(int(s) for s in shape)
        self.dtype = dtype
        self.itemsize = _ITEMSIZE[dtype]
        if strides is None:  # C-contiguous (row-major)
            strides, acc = [], 1
            for s in reversed(self.shape):
                strides.insert(0, acc)
                acc *= max(s, 1)
        self.strides = tuple(int(s) for s in strides)
        self.keepalive = keepalive

    @property
    def size(self):
        n = 1
        for s in self.shape:
            n *= s
        return n

    def is_contiguous(self):
        """True when the elements are dense in row-major order (size-1 axes ignored)."""
        expect = 1
        for s, st in zip(reversed(self.shape), reversed(self.strides)):
            if s != 1 and st != expect:
                return False
            expect *= s
        return True


class DeviceArray:
    """A typed view of device memory that exposes ``__cuda_array_interface__`` (v3), so other
    libraries (CuPy, PyTorch via torch.as_tensor, Numba) can read gpuopt buffers. Keeps its
    owner (a Buffer) alive."""

    def __init__(self, ptr, shape, dtype, strides=None, owner=None):
        self.info = DeviceArrayInfo(ptr, shape, strides, dtype_code(dtype))
        self.owner = owner

    @property
    def shape(self):
        return self.info.shape

    @property
    def __cuda_array_interface__(self):
        i = self.info
        return {"shape": i.shape, "typestr": _DTYPE_TYPESTR[i.dtype], "data": (i.ptr, False),
                "strides": tuple(s * i.itemsize for s in i.strides), "version": 3,
                "stream": None}


def _from_cai(cai, keepalive):
    if cai.get("mask") is not None:
        raise ValueError("gpuopt: masked arrays are not supported")
    ts = cai["typestr"]
    if ts[0] == ">" or ts[1:] not in _TYPESTR:
        raise TypeError(f"gpuopt: unsupported typestr {ts!r} in __cuda_array_interface__")
    dtype = _TYPESTR[ts[1:]]
    itemsize = _ITEMSIZE[dtype]
    strides = cai.get("strides")
    if strides is not None:
        if any(s % itemsize for s in strides):
            raise ValueError(f"gpuopt: strides {strides} are not multiples of the element size")
        strides = [s // itemsize for s in strides]
    return DeviceArrayInfo(cai["data"][0], cai["shape"], strides, dtype, keepalive)


class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", _DLDevice), ("ndim", ctypes.c_int32),
                ("dtype", _DLDataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


class _DLManagedTensor(ctypes.Structure):  # DLPack < 1.0, capsule "dltensor"
    _fields_ = [("dl_tensor", _DLTensor), ("manager_ctx", ctypes.c_void_p),
                ("deleter", ctypes.c_void_p)]


class _DLManagedTensorVersioned(ctypes.Structure):  # DLPack >= 1.0, "dltensor_versioned"
    _fields_ = [("version", ctypes.c_uint32 * 2), ("manager_ctx", ctypes.c_void_p),
                ("deleter", ctypes.c_void_p), ("flags", ctypes.c_uint64),
                ("dl_tensor", _DLTensor)]


_capsule_get_name = ctypes.pythonapi.PyCapsule_GetName
_capsule_get_name.restype = ctypes.c_char_p
_capsule_get_name.argtypes = [ctypes.py_object]
_capsule_get_pointer = ctypes.pythonapi.PyCapsule_GetPointer
_capsule_get_pointer.restype = ctypes.c_void_p
_capsule_get_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]


def parse_dlpack_capsule(capsule):
    """A DeviceArrayInfo from a DLPack capsule (not consumed: it keeps the tensor alive)."""
    name = _capsule_get_name(capsule)
    if name not in (b"dltensor", b"dltensor_versioned"):
        raise TypeError(f"gpuopt: not a DLPack capsule (name {name!r})")
    addr = _capsule_get_pointer(capsule, name)
    cls = _DLManagedTensor if name == b"dltensor" else _DLManagedTensorVersioned
    t = cls.from_address(addr).dl_tensor
    if t.device.device_type not in (_DL_CUDA, _DL_CUDA_HOST, _DL_CUDA_MANAGED):
        raise ValueError(f"gpuopt: DLPack tensor on device type {t.device.device_type}, "
                         "not CUDA memory")
    key = (t.dtype.code, t.dtype.bits)
    if t.dtype.lanes != 1 or key not in _DL:
        raise TypeError(f"gpuopt: unsupported DLPack dtype (code {key[0]}, bits {key[1]}, "
                        f"lanes {t.dtype.lanes})")
    shape = [t.shape[i] for i in range(t.ndim)]
    strides = [t.strides[i] for i in range(t.ndim)] if t.strides else None
    ptr = (t.data or 0) + t.byte_offset
    return DeviceArrayInfo(ptr, shape, strides, _DL[key], keepalive=capsule)


def as_device_array(obj, stream=None):
    """DeviceArrayInfo of a device operand, ordered after its producer on ``stream``.

    Preference: ``__cuda_array_interface__`` of version 3 (its ``stream`` entry is honoured),
    then ``__dlpack__`` (the producer orders its work before ``stream``), then an older array
    interface, which says nothing of streams (PyTorch exports version 2: with it, run gpuopt on
    the producer's stream, as Context.wrap_stream(torch.cuda.current_stream().cuda_stream), or
    synchronize). While ``stream`` is being captured no wait is enqueued: order the captured
    graph's launches after the producer yourself.
    """
    if isinstance(obj, DeviceArrayInfo):
        return obj
    if isinstance(obj, DeviceArray):
        return obj.info
    capturing = stream is not None and getattr(stream, "capturing", False)
    cai = None
    try:
        cai = obj.__cuda_array_interface__
    except AttributeError:
        pass
    except (TypeError, RuntimeError, ValueError):
        if not hasattr(obj, "__dlpack__"):
            raise
        cai = None  # e.g. torch.bfloat16 has no typestr: DLPack describes it
    if cai is not None and (int(cai.get("version", 0)) >= 3 or not hasattr(obj, "__dlpack__")):
        info = _from_cai(cai, obj)
        producer = cai.get("stream")
        if producer is not None and stream is not None and not capturing:
            stream.wait_for_native(int(producer))
        return info
    if hasattr(obj, "__dlpack__"):
        dev_type, dev_id = _dlpack_device(obj)
        if dev_type == _DLPACK_CPU:
            raise TypeError(f"gpuopt: this {type(obj).__name__} is in host memory (DLPack device "
                            "CPU); gpuopt operations take device memory")
        with _producer_device(obj, dev_type, dev_id):
            if stream is None:
                capsule = obj.__dlpack__()
            else:
                native = stream.native
                capsule = obj.__dlpack__(stream=-1 if capturing else (native or 1))
        info = parse_dlpack_capsule(capsule)
        info.keepalive = (capsule, obj)
        return info
    raise TypeError(f"gpuopt: {type(obj).__name__} is not a device array (it has neither "
                    "__cuda_array_interface__ nor __dlpack__)")


_DLPACK_CPU, _DLPACK_CUDA = 1, 2


def _dlpack_device(obj):
    """(device type, device id) from __dlpack_device__, or (None, None) without it."""
    try:
        dev_type, dev_id = obj.__dlpack_device__()
        return int(dev_type), int(dev_id)
    except (AttributeError, TypeError, ValueError):
        return None, None


def _producer_device(obj, dev_type, dev_id):
    """A context in which the producer exports a tensor of another GPU than the current one:
    PyTorch's __dlpack__(stream=...) refuses a tensor of device d unless d is torch's current
    device, so a communicator's ranks on several GPUs each set theirs. Other producers: none."""
    torch = sys.modules.get("torch")
    if dev_type == _DLPACK_CUDA and torch is not None and isinstance(obj, torch.Tensor):
        return torch.cuda.device(dev_id)
    return contextlib.nullcontext()


def element_dtype(info, what):
    """info.dtype, a gpuopt_dtype_t; TypeError naming ``what`` (e.g. "gpuopt.matmul: a") for a
    byte array, whose elements have no gpuopt type."""
    if info.dtype == BYTES:
        raise TypeError(f"{what} is a byte array (uint8/int8): this operand needs an element "
                        "type of gpuopt_dtype_t (f32, f64, f16, bf16, i32, i64, u32, u64)")
    return info.dtype


def device_pointer(obj, stream=None):
    """A device address (int, 0 for None) of a pointer-like operand: None, an int, a Buffer, or
    any array as_device_array() takes."""
    if obj is None:
        return 0
    if isinstance(obj, int):
        return obj
    from ._core import Buffer
    if isinstance(obj, Buffer):
        return obj.device_pointer
    return as_device_array(obj, stream).ptr
