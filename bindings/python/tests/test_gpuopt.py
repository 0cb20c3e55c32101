"""Tests of the gpuopt Python binding (standard library only).

Host-side checks run everywhere (CI has no GPU): the no-device path, struct layouts against the
C compiler's (GPUOPT_LAYOUT_DUMP names the layout_dump program), argument checks, the row-major
to column-major GEMM mapping (executed on a model of the memory), CAI and DLPack parsing. The
device checks at the end run only where a GPU is present.

    GPUOPT_LIBRARY=build/src/libgpuopt.so PYTHONPATH=bindings/python \
        python3 -m unittest discover -s bindings/python/tests -v
"""
import array
import ctypes
import itertools
import os
import subprocess
import sys
import unittest

import gpuopt
from gpuopt import _arrays

HAVE_DEVICE = gpuopt.device_count() > 0


class Names(unittest.TestCase):
    def test_version(self):
        self.assertEqual(gpuopt.version(), gpuopt.GPUOPT_VERSION)
        self.assertEqual(gpuopt.version_string(), "%d.%d.%d" % (
            gpuopt.GPUOPT_VERSION_MAJOR, gpuopt.GPUOPT_VERSION_MINOR, gpuopt.GPUOPT_VERSION_PATCH))

    def test_names(self):
        self.assertEqual(gpuopt.status_name(gpuopt.GPUOPT_ERROR_NO_DEVICE), "GPUOPT_ERROR_NO_DEVICE")
        self.assertEqual(gpuopt.status_name(9999), "GPUOPT_STATUS_UNKNOWN")
        self.assertEqual(gpuopt.op_name(gpuopt.GPUOPT_OP_GDN), "gdn")
        self.assertIsNone(gpuopt.op_name(9999))
        self.assertEqual(gpuopt.dtype_name(gpuopt.GPUOPT_DTYPE_BF16), "bf16")
        self.assertEqual(gpuopt.reduce_op_name(gpuopt.GPUOPT_REDUCE_ARGMAX), "argmax")
        self.assertIsNone(gpuopt.reduce_op_name(9999))

    def test_dtype_code(self):
        self.assertEqual(gpuopt.dtype_code("float64"), gpuopt.GPUOPT_DTYPE_F64)
        self.assertEqual(gpuopt.dtype_code("torch.float32"), gpuopt.GPUOPT_DTYPE_F32)
        self.assertEqual(gpuopt.dtype_code(gpuopt.GPUOPT_DTYPE_I64), gpuopt.GPUOPT_DTYPE_I64)
        with self.assertRaises(TypeError):
            gpuopt.dtype_code("complex64")
        with self.assertRaises(ValueError):
            gpuopt.dtype_code(99)


class NoDevice(unittest.TestCase):
    def test_no_device_error(self):
        # CUDA_VISIBLE_DEVICES=-1 hides every GPU, so this path is checked on GPU machines too.
        code = ("import gpuopt\n"
                "try:\n    gpuopt.Context(0)\nexcept gpuopt.NoDeviceError as e:\n"
                "    print(e.status, e.status_name, e.message)\nelse:\n    print('no error')\n")
        env = dict(os.environ, CUDA_VISIBLE_DEVICES="-1")
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                             text=True, timeout=120)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn("3 GPUOPT_ERROR_NO_DEVICE gpuopt_context_create", out.stdout)

    def test_device_count(self):
        self.assertGreaterEqual(gpuopt.device_count(), 0)


class Logging(unittest.TestCase):
    def tearDown(self):
        gpuopt.set_log_callback(None)
        gpuopt.set_log_level(gpuopt.GPUOPT_LOG_OFF)

    def test_level_round_trips_and_bad_level_fails(self):
        gpuopt.set_log_level(gpuopt.GPUOPT_LOG_DEBUG)
        self.assertEqual(gpuopt.get_log_level(), gpuopt.GPUOPT_LOG_DEBUG)
        with self.assertRaises(gpuopt.GpuoptError) as cm:
            gpuopt.set_log_level(7)
        self.assertEqual(cm.exception.status, gpuopt.GPUOPT_ERROR_INVALID_ARGUMENT)
        self.assertIn("gpuopt_set_log_level", cm.exception.message)
        self.assertEqual(gpuopt.get_log_level(), gpuopt.GPUOPT_LOG_DEBUG)

    def test_callback_receives_the_context_line(self):
        """A context created (device) or refused (no device, with the reason) logs one line at
        GPUOPT_LOG_INFO; the callback gets it instead of stderr, and nothing after None."""
        lines = []
        gpuopt.set_log_level(gpuopt.GPUOPT_LOG_INFO)
        gpuopt.set_log_callback(lambda level, message: lines.append((level, message)))
        try:
            gpuopt.Context(0).close()
        except gpuopt.NoDeviceError:
            pass
        self.assertTrue(any(level == gpuopt.GPUOPT_LOG_INFO and "context" in message
                            for level, message in lines), lines)
        gpuopt.set_log_callback(None)
        seen = len(lines)
        try:
            gpuopt.Context(0).close()
        except gpuopt.NoDeviceError:
            pass
        self.assertEqual(len(lines), seen)


class Errors(unittest.TestCase):
    def test_null_handles(self):
        lib = gpuopt.lib
        for fn, args in (("gpuopt_stream_synchronize", [None]),
                         ("gpuopt_graph_launch", [None, None]),
                         ("gpuopt_gemm", [None, None, None, None, None, None]),
                         ("gpuopt_segmented_sort", [None] * 8 + [0]),
                         ("gpuopt_stencil", [None] * 5),
                         ("gpuopt_transpose", [None] * 5),
                         ("gpuopt_gdn_forward", [None] * 8 + [0]),
                         ("gpuopt_gdn_backward", [None] * 11 + [0])):
            st = getattr(lib, fn)(*args)
            self.assertIn(st, (gpuopt.GPUOPT_ERROR_INVALID_HANDLE,
                               gpuopt.GPUOPT_ERROR_INVALID_ARGUMENT), fn)
            self.assertIn(fn, gpuopt.last_error_message())

    def test_every_function_with_null_arguments(self):
        """Each prototype is callable with NULL handles and zeros; a failure leaves a message that
        names the function (the calling conventions hold for the whole header)."""
        from gpuopt._lib import _PROTOTYPES
        lib = gpuopt.lib
        for name, (restype, argtypes) in _PROTOTYPES.items():
            args = []
            for t in argtypes:
                if t in (ctypes.c_int, ctypes.c_int64, ctypes.c_size_t, ctypes.c_uint):
                    args.append(0)
                elif t is ctypes.c_double:
                    args.append(0.0)
                else:  # handles, pointers, strings, struct pointers: NULL
                    args.append(None)
            if name == "gpuopt_last_error_message":
                continue  # it reports on the other calls; checked in Names and below
            result = getattr(lib, name)(*args)
            if restype is ctypes.c_int and name != "gpuopt_version" and result != 0:
                self.assertIn(name, gpuopt.last_error_message(), name)

    def test_exception_carries_status_and_message(self):
        from gpuopt._errors import check
        lib = gpuopt.lib
        with self.assertRaises(gpuopt.GpuoptError) as cm:
            check(lib.gpuopt_stream_synchronize(None))
        e = cm.exception
        self.assertEqual(e.status, gpuopt.GPUOPT_ERROR_INVALID_HANDLE)
        self.assertEqual(e.status_name, "GPUOPT_ERROR_INVALID_HANDLE")
        self.assertIn("gpuopt_stream_synchronize", e.message)
        self.assertNotIsInstance(e, gpuopt.NoDeviceError)

    def test_struct_size_is_set(self):
        for cls in gpuopt._types.STRUCTS.values():
            if hasattr(cls, "struct_size"):  # gpuopt_comm_id_t has none: it never grows
                self.assertEqual(cls().struct_size, ctypes.sizeof(cls))
        with self.assertRaises(TypeError):
            gpuopt.GemmDesc(not_a_field=1)


class Main(unittest.TestCase):
    """python -m gpuopt: the report without a device here, and its printing of devices and
    variants from made-up ones (the device path is what a GPU machine prints)."""

    def test_report_and_printing(self):
        import io
        from gpuopt import __main__ as m
        r = m.collect()
        self.assertEqual(r["library_version"], gpuopt.version_string())
        self.assertEqual(r["device_count"], len(r["devices"]))
        if r["variants"] is None:
            self.assertIn("gpuopt_context_create", r["no_variants_reason"])

        class FakeContext:
            def variants(self, op):
                return [gpuopt.VariantInfo(name=b"naive", technique=b"one thread per element",
                                           min_cc=75, available=1, dtype_mask=0b11),
                        gpuopt.VariantInfo(name=b"sm90_tma", technique=b"TMA loads", min_cc=90,
                                           exact_cc=90, available=0, dtype_mask=1 << 3)]
        info = gpuopt.DeviceInfo(device=0, name=b"Made-up GPU", cc_major=9, cc_minor=0,
                                 sm_count=132, total_memory=80 << 30, l2_cache_bytes=50 << 20,
                                 supports_clusters=1, supports_tma=1, driver_version=13000,
                                 runtime_version=13000, theoretical_bandwidth_gbs=3352.0)
        r.update(device_count=1, devices=[m._device(info)], variants=m._variants(FakeContext()))
        out = io.StringIO()
        m._print(r, out)
        text = out.getvalue()
        self.assertIn("device 0: Made-up GPU, cc 9.0, 132 SMs, 80.0 GiB, L2 50 MiB, 3352.0 GB/s, "
                      "clusters TMA; driver 13.0, runtime 13.0", text)
        self.assertIn("  gemm:\n    + naive", text)
        self.assertIn("sm_75+", text)
        self.assertIn("- sm90_tma                 sm_90a only   bf16: TMA loads", text)
        self.assertIn("f32,f64: one thread per element", text)
        self.assertEqual(len(r["variants"]),  # every op of gpuopt_op_t
                         len([n for n in vars(gpuopt) if n.startswith("GPUOPT_OP_")]))


class Layout(unittest.TestCase):
    def test_structs_match_the_c_compiler(self):
        dump = os.environ.get("GPUOPT_LAYOUT_DUMP")
        if not dump:
            self.skipTest("GPUOPT_LAYOUT_DUMP (the layout_dump program) is not set")
        c = {}
        for line in subprocess.run([dump], capture_output=True, text=True,
                                   check=True).stdout.splitlines():
            key, _, value = line.split()
            c[key] = int(value)
        self.assertEqual(sorted(k for k in c if "." not in k), sorted(gpuopt._types.STRUCTS))
        for cname, cls in gpuopt._types.STRUCTS.items():
            self.assertEqual(ctypes.sizeof(cls), c[cname], cname)
            fields = [f for f, _ in cls._fields_]
            self.assertEqual(sorted(fields),
                             sorted(k.split(".")[1] for k in c if k.startswith(cname + ".")),
                             cname)
            for f in fields:
                self.assertEqual(getattr(cls, f).offset, c[f"{cname}.{f}"], f"{cname}.{f}")


def _info(shape, order, dtype=gpuopt.GPUOPT_DTYPE_F64, base=0, pad=0):
    """DeviceArrayInfo of a (padded) row-major ('C') or column-major ('F') matrix at base."""
    r, c = shape
    strides = (c + pad, 1) if order == "C" else (1, r + pad)
    return gpuopt.DeviceArrayInfo(base, shape, strides, dtype)


def _run_gemm_model(d, mem, pa, pb, pc):
    """Executes a GemmDesc on mem (a flat list, addresses are indices), column-major."""
    def at(base, ld, trans, i, j):  # element (i, j) of op(X)
        return base + (j + i * ld if trans else i + j * ld)
    ta, tb = d.trans_a == gpuopt.GPUOPT_TRANS_T, d.trans_b == gpuopt.GPUOPT_TRANS_T
    out = {}
    for i in range(d.m):
        for j in range(d.n):
            acc = sum(mem[at(pa, d.lda, ta, i, p)] * mem[at(pb, d.ldb, tb, p, j)]
                      for p in range(d.k))
            out[pc + i + j * d.ldc] = d.alpha * acc + (d.beta * mem[pc + i + j * d.ldc]
                                                       if d.beta else 0.0)
    for a, v in out.items():
        mem[a] = v


class MultiGpuHost(unittest.TestCase):
    def test_comm_id_hex_round_trip(self):
        i = gpuopt.CommId()
        for b in range(128):
            i.bytes[b] = (b * 37) & 0xff
        text = i.hex()
        self.assertEqual(len(text), 256)
        self.assertEqual(bytes(gpuopt.CommId.from_hex(text).bytes), bytes(i.bytes))
        with self.assertRaises(gpuopt.GpuoptError) as e:
            gpuopt.CommId.from_hex("xyz")
        self.assertEqual(e.exception.status, gpuopt.GPUOPT_ERROR_INVALID_ARGUMENT)

    def test_block_cyclic_queries(self):
        d = gpuopt.DistDesc(dtype=gpuopt.GPUOPT_DTYPE_F64, rows=1000, cols=777, row_block=64,
                            col_block=100, grid_rows=2, grid_cols=3, ld=1)
        rows, cols = gpuopt.local_shape(d, 1, 2)
        self.assertEqual(rows, sum(1 for i in range(1000) if i // 64 % 2 == 1))
        self.assertEqual(cols, sum(1 for j in range(777) if j // 100 % 3 == 2))
        self.assertEqual(gpuopt.locate(d, 999, 776),
                         (999 // 64 % 2, 776 // 100 % 3, 999 // 64 // 2 * 64 + 999 % 64,
                          776 // 100 // 3 * 100 + 776 % 100))
        with self.assertRaises(gpuopt.GpuoptError):
            gpuopt.local_shape(d, 2, 0)

    def test_nccl_version_or_how_to_get_it(self):
        try:
            self.assertGreaterEqual(gpuopt.nccl_version(), 21800)
        except gpuopt.GpuoptError as e:
            self.assertEqual(e.status, gpuopt.GPUOPT_ERROR_UNSUPPORTED)
            self.assertIn("NCCL", str(e))


class Matmul(unittest.TestCase):
    def test_every_layout_mix(self):
        m, n, kk = 3, 4, 5
        for oa, ob, oc, pad in itertools.product("CF", "CF", "CF", (0, 2)):
            a = _info((m, kk), oa, base=0, pad=pad)
            b = _info((kk, n), ob, base=100, pad=pad)
            c = _info((m, n), oc, base=200, pad=pad)
            mem = [float((7 * i) % 11 - 5) for i in range(300)]

            def get(x, i, j):
                return mem[x.ptr + i * x.strides[0] + j * x.strides[1]]
            want = [[2.0 * sum(get(a, i, p) * get(b, p, j) for p in range(kk))
                     for j in range(n)] for i in range(m)]
            d, first, second = gpuopt.plan_matmul(a, b, c, alpha=2.0)
            self.assertEqual(d.struct_size, ctypes.sizeof(gpuopt.GemmDesc))
            _run_gemm_model(d, mem, first.ptr, second.ptr, c.ptr)
            got = [[get(c, i, j) for j in range(n)] for i in range(m)]
            self.assertEqual(got, want, (oa, ob, oc, pad))

    def test_row_major_maps_to_swapped_operands(self):
        a, b, c = _info((3, 5), "C"), _info((5, 4), "C", base=100), _info((3, 4), "C", base=200)
        d, first, second = gpuopt.plan_matmul(a, b, c)
        self.assertIs(first, b)
        self.assertEqual((d.trans_a, d.trans_b, d.m, d.n, d.k, d.lda, d.ldb, d.ldc),
                         (gpuopt.GPUOPT_TRANS_N, gpuopt.GPUOPT_TRANS_N, 4, 3, 5, 4, 5, 4))

    def test_bad_shapes_and_strides(self):
        a, b = _info((3, 5), "C"), _info((4, 4), "C")
        with self.assertRaises(ValueError):
            gpuopt.plan_matmul(a, b, _info((3, 4), "C"))
        strided = gpuopt.DeviceArrayInfo(0, (3, 5), (10, 2), gpuopt.GPUOPT_DTYPE_F64)
        with self.assertRaises(ValueError):
            gpuopt.plan_matmul(strided, _info((5, 4), "C"), _info((3, 4), "C"))
        with self.assertRaises(TypeError):
            gpuopt.plan_matmul(_info((3, 5), "C", gpuopt.GPUOPT_DTYPE_F32), _info((5, 4), "C"),
                               _info((3, 4), "C"))
        with self.assertRaises(ValueError):
            gpuopt.plan_matmul(gpuopt.DeviceArrayInfo(0, (15,), None, 1), _info((5, 4), "C"),
                               _info((3, 4), "C"))


class Transpose(unittest.TestCase):
    def test_every_layout(self):
        """plan_transpose's descriptor, executed on a model of the memory, gives x.T for x and
        out both row-major or both column-major (padded too); mixed layouts are refused."""
        r, c = 3, 5
        for order, pad in itertools.product("CF", (0, 2)):
            x = _info((r, c), order, base=0, pad=pad)
            out = _info((c, r), order, base=100, pad=pad)
            mem = [float(i) for i in range(200)]
            d = gpuopt.plan_transpose(x, out)
            self.assertEqual(d.dtype, gpuopt.GPUOPT_DTYPE_F64)
            for i in range(d.rows):  # B(j, i) = A(i, j), column-major
                for j in range(d.cols):
                    mem[out.ptr + j + i * d.ldb] = mem[x.ptr + i + j * d.lda]

            def get(a, i, j):
                return mem[a.ptr + i * a.strides[0] + j * a.strides[1]]
            for i in range(r):
                for j in range(c):
                    self.assertEqual(get(out, j, i), get(x, i, j), (order, pad, i, j))
        with self.assertRaisesRegex(ValueError, "same layout"):
            gpuopt.plan_transpose(_info((r, c), "C"), _info((c, r), "F"))
        with self.assertRaisesRegex(ValueError, "shape"):
            gpuopt.plan_transpose(_info((r, c), "C"), _info((r, c), "C"))
        with self.assertRaises(TypeError):
            gpuopt.plan_transpose(_info((r, c), "C"), _info((c, r), "C", gpuopt.GPUOPT_DTYPE_F32))

    def test_no_stream_without_torch_tensors(self):
        x = _info((3, 5), "C")
        with self.assertRaisesRegex(ValueError, "gpuopt.transpose_array: stream is None"):
            gpuopt.transpose_array(None, x, _info((5, 3), "C"))
        with self.assertRaisesRegex(ValueError, "gpuopt.matmul: stream is None"):
            gpuopt.matmul(None, x, _info((5, 3), "C"), _info((3, 3), "C"))


class Reduce(unittest.TestCase):
    def test_result_types(self):
        k = gpuopt
        self.assertEqual(k.reduce_result_dtype(k.GPUOPT_REDUCE_SUM, k.GPUOPT_DTYPE_I32),
                         k.GPUOPT_DTYPE_I64)
        self.assertEqual(k.reduce_result_dtype(k.GPUOPT_REDUCE_MIN, k.GPUOPT_DTYPE_I32),
                         k.GPUOPT_DTYPE_I32)
        self.assertEqual(k.reduce_result_dtype(k.GPUOPT_REDUCE_SUM, k.GPUOPT_DTYPE_BF16),
                         k.GPUOPT_DTYPE_F32)
        self.assertEqual(k.reduce_result_dtype(k.GPUOPT_REDUCE_ARGMAX, k.GPUOPT_DTYPE_F64),
                         k.GPUOPT_DTYPE_I64)

    def test_plan(self):
        x = gpuopt.DeviceArrayInfo(0, (6, 7), (9, 1), gpuopt.GPUOPT_DTYPE_F32)
        out = gpuopt.DeviceArrayInfo(0, (6,), None, gpuopt.GPUOPT_DTYPE_F32)
        d = gpuopt.plan_reduce(x, out, "max", rows=True)
        self.assertEqual((d.op, d.n, d.num_segments, d.segment_stride),
                         (gpuopt.GPUOPT_REDUCE_MAX, 7, 6, 9))
        with self.assertRaises(ValueError):  # padded rows are not contiguous
            gpuopt.plan_reduce(x, out, "sum")
        with self.assertRaises(TypeError):  # argmax gives int64
            gpuopt.plan_reduce(x, out, "argmax", rows=True)
        dense = gpuopt.DeviceArrayInfo(0, (6, 7), None, gpuopt.GPUOPT_DTYPE_F32)
        d = gpuopt.plan_reduce(dense, out, "sum")
        self.assertEqual((d.n, d.num_segments), (42, 1))


class _FakeCAI:
    def __init__(self, **cai):
        self.__cuda_array_interface__ = dict({"version": 3, "data": (4096, False),
                                              "strides": None}, **cai)


class Interop(unittest.TestCase):
    def test_cuda_array_interface(self):
        info = gpuopt.as_device_array(_FakeCAI(shape=(2, 3), typestr="<f8"))
        self.assertEqual((info.ptr, info.shape, info.strides, info.dtype),
                         (4096, (2, 3), (3, 1), gpuopt.GPUOPT_DTYPE_F64))
        info = gpuopt.as_device_array(_FakeCAI(shape=(2, 3), typestr="<f4", strides=(4, 8)))
        self.assertEqual(info.strides, (1, 2))
        for bad in ("<c8", ">f8", "|b1"):
            with self.assertRaises(TypeError):
                gpuopt.as_device_array(_FakeCAI(shape=(2,), typestr=bad))
        with self.assertRaises(ValueError):
            gpuopt.as_device_array(_FakeCAI(shape=(2,), typestr="<f8", strides=(3,)))
        with self.assertRaises(TypeError):
            gpuopt.as_device_array(object())

    def test_device_array_exports_cai(self):
        arr = gpuopt.DeviceArray(8192, (4, 2), "f32")
        cai = arr.__cuda_array_interface__
        self.assertEqual((cai["shape"], cai["typestr"], cai["data"], cai["strides"]),
                         ((4, 2), "<f4", (8192, False), (8, 4)))
        back = gpuopt.as_device_array(arr)
        self.assertEqual((back.ptr, back.shape), (8192, (4, 2)))

    @staticmethod
    def _capsule(code, bits):
        """A DLPack capsule of a 3 x 4 column-major CUDA tensor at (1 << 20) + 16."""
        shape = (ctypes.c_int64 * 2)(3, 4)
        strides = (ctypes.c_int64 * 2)(1, 3)
        mt = _arrays._DLManagedTensor()
        t = mt.dl_tensor
        t.data, t.byte_offset, t.ndim = 1 << 20, 16, 2
        t.device.device_type, t.device.device_id = 2, 0
        t.dtype.code, t.dtype.bits, t.dtype.lanes = code, bits, 1
        t.shape = ctypes.cast(shape, ctypes.POINTER(ctypes.c_int64))
        t.strides = ctypes.cast(strides, ctypes.POINTER(ctypes.c_int64))
        new = ctypes.pythonapi.PyCapsule_New
        new.restype = ctypes.py_object
        new.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
        return mt, new(ctypes.addressof(mt), b"dltensor", None), (shape, strides)

    def test_dlpack_capsule(self):
        mt, capsule, _keep = self._capsule(code=4, bits=16)  # bfloat16
        t = mt.dl_tensor
        info = _arrays.parse_dlpack_capsule(capsule)
        self.assertEqual((info.ptr, info.shape, info.strides, info.dtype),
                         ((1 << 20) + 16, (3, 4), (1, 3), gpuopt.GPUOPT_DTYPE_BF16))
        t.device.device_type = 1  # CPU memory is refused
        with self.assertRaises(ValueError):
            _arrays.parse_dlpack_capsule(capsule)

    def test_stream_ordering(self):
        class FakeStream:  # records what as_device_array asks of a gpuopt Stream
            native, capturing, waited = 0, False, []

            def wait_for_native(self, producer):
                self.waited.append(producer)

        class TorchLike:  # array interface v2 (no stream entry) and DLPack, like PyTorch
            def __init__(self, capsule):
                self.capsule, self.streams = capsule, []
                self.__cuda_array_interface__ = {"version": 2, "shape": (3, 4), "data": (1, 0),
                                                 "typestr": "<f8", "strides": None}

            def __dlpack__(self, stream=None):
                self.streams.append(stream)
                return self.capsule

        s = FakeStream()
        mt, capsule, _keep = self._capsule(code=2, bits=64)
        t = TorchLike(capsule)
        info = gpuopt.as_device_array(t, s)
        self.assertEqual((info.ptr, info.dtype), ((1 << 20) + 16, gpuopt.GPUOPT_DTYPE_F64))
        self.assertEqual(t.streams, [1])  # the legacy default stream, as DLPack numbers it
        s.native = 0x1234
        gpuopt.as_device_array(t, s)
        s.capturing = True
        gpuopt.as_device_array(t, s)
        self.assertEqual(t.streams, [1, 0x1234, -1])  # -1: no synchronization while capturing
        s.capturing = False
        gpuopt.as_device_array(_FakeCAI(shape=(2,), typestr="<f4", stream=77), s)
        gpuopt.as_device_array(_FakeCAI(shape=(2,), typestr="<f4", stream=None), s)
        self.assertEqual(s.waited, [77])
        del mt

    def test_uint8_workspace(self):
        """A uint8 (or int8) array, PyTorch's natural byte buffer, is accepted as untyped memory
        where bytes are all that count (a workspace) and refused where an element type must
        match the op's."""
        mt, capsule, _keep = self._capsule(code=1, bits=8)  # uint8, as torch.uint8 exports it
        info = _arrays.parse_dlpack_capsule(capsule)
        self.assertEqual((info.dtype, info.itemsize, info.size), (_arrays.BYTES, 1, 12))
        mt.dl_tensor.dtype.code = 0  # int8
        self.assertEqual(_arrays.parse_dlpack_capsule(capsule).dtype, _arrays.BYTES)
        mt.dl_tensor.dtype.code = 6  # bool: still refused
        with self.assertRaisesRegex(TypeError, "unsupported DLPack dtype"):
            _arrays.parse_dlpack_capsule(capsule)
        mt.dl_tensor.dtype.code = 1
        for ts in ("|u1", "|i1"):
            cai = gpuopt.as_device_array(_FakeCAI(shape=(4096,), typestr=ts))
            self.assertEqual((cai.dtype, cai.itemsize, cai.ptr), (_arrays.BYTES, 1, 4096))

        class TorchUint8:  # torch.empty(n, dtype=torch.uint8, device="cuda") as the binding sees it
            nbytes = 12

            def __init__(self):
                self.__cuda_array_interface__ = {"version": 2, "shape": (12,), "data": (1, 0),
                                                 "typestr": "|u1", "strides": None}

            def __dlpack__(self, stream=None):
                return capsule

        class NullStream:  # a stream whose context is NULL: the library answers, not the binding
            native, capturing = 0, False
            ctx = type("NullContext", (), {"_h": ctypes.c_void_p()})()
            _h = ctypes.c_void_p()

        ws = TorchUint8()
        self.assertEqual(_arrays.device_pointer(ws, NullStream()), (1 << 20) + 16)
        desc = gpuopt.SegmentedSortDesc(key_type=gpuopt.GPUOPT_DTYPE_F32, num_items=12,
                                        num_segments=3, segment_size=4)
        with self.assertRaises(gpuopt.GpuoptError) as cm:  # past the binding's conversion
            gpuopt.segmented_sort(NullStream(), desc, 1 << 20, 2 << 20, workspace=ws)
        self.assertEqual(cm.exception.status, gpuopt.GPUOPT_ERROR_INVALID_HANDLE)
        self.assertIn("gpuopt_segmented_sort", cm.exception.message)
        # where the element type counts, bytes are refused with the operand's name
        byte_matrix = gpuopt.DeviceArrayInfo(0, (3, 4), None, _arrays.BYTES)
        with self.assertRaisesRegex(TypeError, "gpuopt.matmul: a is a byte array"):
            gpuopt.plan_matmul(byte_matrix, _info((4, 2), "C"), _info((3, 2), "C"))
        with self.assertRaisesRegex(TypeError, "gpuopt.reduce_array: x is a byte array"):
            gpuopt.plan_reduce(byte_matrix, _info((1, 1), "C"))
        with self.assertRaisesRegex(TypeError, "gpuopt.axpy: x is a byte array"):
            gpuopt.axpy(NullStream(), 1.0, byte_matrix, byte_matrix)
        del mt

    def test_host_addresses(self):
        from gpuopt._core import _host_address
        a = array.array("d", [1.0, 2.0, 3.0])
        addr, n, _ = _host_address(a, writable=True)
        self.assertEqual((addr, n), (a.buffer_info()[0], 24))
        _, n, _ = _host_address(b"abcd", writable=False)
        self.assertEqual(n, 4)
        with self.assertRaises(ValueError):
            _host_address(b"abcd", writable=True)


@unittest.skipUnless(HAVE_DEVICE, "no CUDA device")
class Device(unittest.TestCase):
    def test_buffers_ops_and_graph(self):
        n = 1000
        with gpuopt.Context(0) as ctx, ctx.create_stream() as s:
            self.assertTrue(ctx.device_info().name)
            self.assertIn("cublas", [v.name.decode() for v in ctx.variants(gpuopt.GPUOPT_OP_GEMM)])
            bx = ctx.create_buffer(8 * n)
            by = ctx.create_buffer(8 * n)
            bs = ctx.create_buffer(8)
            hx = array.array("d", [float(i % 13) for i in range(n)])
            hy = array.array("d", [1.0] * n)
            bx.copy_from_host(s, hx)
            by.copy_from_host(s, hy)
            x, y, total = bx.view("f64"), by.view("f64"), bs.view("f64")
            with s.capture() as cap:
                gpuopt.axpy(s, 0.5, x, y)
            for _ in range(4):
                cap.graph.launch(s)
            gpuopt.sum(s, y, total)
            out = array.array("d", [0.0])
            bs.copy_to_host(s, out)
            s.synchronize()
            self.assertEqual(out[0], n + 2.0 * sum(hx))
            # matmul of a 2x3 by 3x2 (row-major views of one buffer) against the hand product
            bm = ctx.create_buffer(8 * 16)
            bm.copy_from_host(s, array.array("d", [1, 2, 3, 4, 5, 6, 1, 0, 0, 1, 1, 1] + [0] * 4))
            a = gpuopt.DeviceArray(bm.device_pointer, (2, 3), "f64")
            b = gpuopt.DeviceArray(bm.device_pointer + 48, (3, 2), "f64")
            c = gpuopt.DeviceArray(bm.device_pointer + 96, (2, 2), "f64")
            gpuopt.matmul(s, a, b, c)
            res = bm.copy_to_host(s, array.array("d", [0.0] * 16))
            s.synchronize()
            self.assertEqual(list(res[12:16]), [4.0, 5.0, 10.0, 11.0])
            with self.assertRaises(gpuopt.GpuoptError) as cm:
                gpuopt.axpy(s, 1.0, 0, 0, n=-1, dtype="f32")
            self.assertEqual(cm.exception.status, gpuopt.GPUOPT_ERROR_INVALID_ARGUMENT)
            cap.graph.close()
            by.close_async(s)  # stream-ordered: after the matmul and copies queued on s
            self.assertEqual(by.handle, 0)
            by.close_async(s)  # already closed: a no-op
            for buf in (bx, bs, bm):
                buf.close()

    def test_cached_pointer_checks_run_axpy_and_forget(self):
        n = 4096
        with gpuopt.Context(0) as ctx, ctx.create_stream() as s:
            self.assertEqual(ctx.pointer_checks, gpuopt.GPUOPT_POINTER_CHECKS_FULL)
            ctx.pointer_checks = gpuopt.GPUOPT_POINTER_CHECKS_CACHED
            self.assertEqual(ctx.pointer_checks, gpuopt.GPUOPT_POINTER_CHECKS_CACHED)
            with self.assertRaises(gpuopt.GpuoptError):
                ctx.pointer_checks = 7
            bx, by = ctx.create_buffer(4 * n), ctx.create_buffer(4 * n)
            bx.copy_from_host(s, array.array("f", [1.0] * n))
            by.copy_from_host(s, array.array("f", [2.0] * n))
            for _ in range(3):
                gpuopt.axpy(s, 1.0, bx.device_pointer, by.device_pointer, n=n,
                            dtype=gpuopt.GPUOPT_DTYPE_F32)
            out = by.copy_to_host(s, array.array("f", [0.0] * n))
            s.synchronize()
            self.assertEqual(out[0], 5.0)
            self.assertEqual(out[n - 1], 5.0)
            ctx.forget_pointers()
            ctx.pointer_checks = gpuopt.GPUOPT_POINTER_CHECKS_FULL
            bx.close()
            by.close()

    def test_tune_gemm_and_dispatch_from_the_cache(self):
        import os
        import tempfile
        n = 256
        with tempfile.TemporaryDirectory() as d, gpuopt.Context(0) as ctx, \
                ctx.create_stream() as s:
            path = os.path.join(d, "gemm.cache")
            ctx.set_tune_cache(path)
            self.assertEqual(ctx.tune_cache_entries(), 0)
            buf = ctx.create_buffer(3 * 4 * n * n)
            p = buf.device_pointer
            desc = gpuopt.GemmDesc(m=n, n=n, k=n, alpha=1.0, beta=0.0,
                                   a_type=gpuopt.GPUOPT_DTYPE_F32, c_type=gpuopt.GPUOPT_DTYPE_F32,
                                   lda=n, ldb=n, ldc=n, batch_count=1)
            a, b, c = p, p + 4 * n * n, p + 8 * n * n
            r = ctx.tune(gpuopt.GPUOPT_OP_GEMM, s,
                         lambda: gpuopt.gemm(s, desc, a, b, c), budget_seconds=0.2)
            self.assertGreaterEqual(r.timed, 2)
            self.assertEqual(ctx.tune_cache_entries(), 1)
            self.assertTrue(os.path.exists(path))
            # The recorded variant and its run-time configuration (None: the rung's own rule),
            # as the file names them: "-> variant[:config] ms".
            recorded = r.variant.decode() + (":" + r.config.decode() if r.config else "")
            with open(path) as f:
                self.assertIn("-> " + recorded + " ", f.read())
            gpuopt.gemm(s, desc, a, b, c)
            s.synchronize()
            self.assertEqual(ctx.last_variant(gpuopt.GPUOPT_OP_GEMM), r.variant.decode())
            # An exception in the callable stops the tuning and comes back.
            def boom():
                raise KeyError("boom")
            with self.assertRaises(KeyError):
                ctx.tune(gpuopt.GPUOPT_OP_GEMM, s, boom)
            ctx.set_tune_cache(None)
            self.assertEqual(ctx.tune_cache_entries(), 0)
            buf.close()


if __name__ == "__main__":
    unittest.main()
