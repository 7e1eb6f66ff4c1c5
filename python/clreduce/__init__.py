"""Parallel reductions and prefix scans on OpenCL devices.

Python bindings of the clreduce C library (libclreduce), through ctypes.

NumPy arrays in host memory, blocking::

    import numpy as np, clreduce
    ctx = clreduce.Context()               # CLREDUCE_DEVICE picks the device
    ctx.reduce(np.arange(10, dtype=np.int32))              # np.int32(45)
    ctx.scan(np.arange(5.0), op="sum", kind="exclusive")   # [0. 0. 1. 3. 6.]
    ctx.reduce_rows(np.ones((3, 4)), op="sum")             # [4. 4. 4.]
    ctx.reduce_segments(np.arange(6), [0, 2, 2, 6])        # [1 0 14]

pyopencl arrays in device memory, enqueued like any OpenCL command::

    ctx = clreduce.Context(cl_context, device)             # pyopencl objects
    event = ctx.enqueue_reduce(x, out, op="max")           # out[0] = max(x)
    event = ctx.enqueue_scan(x, x)                         # in place

Element types: float32, float64 (devices with fp64), int32, uint32, int64,
uint64. Operators: "sum", "min", "max". Integer sums wrap around; min and
max propagate NaN. Variants: "auto" (the library's choice) or a name from
reduce_variants() / scan_variants(). The C header, clreduce/clreduce.h,
documents every guarantee.

The library is found through $CLREDUCE_LIBRARY (a path), else the dynamic
loader's search (ldconfig, LD_LIBRARY_PATH).
"""

import threading
from ctypes import byref, c_void_p

import numpy as np

from . import _lib
from ._lib import LibraryNotFoundError

__version__ = "0.1.0"

__all__ = [
    "Context", "Error", "InvalidArgumentError", "UnsupportedError", "BuildError",
    "OpenCLError", "OutOfMemoryError", "NoDeviceError", "LibraryNotFoundError",
    "reduce", "scan", "reduce_rows", "reduce_segments", "default_context", "library_version", "ops", "dtypes",
    "reduce_variants", "scan_variants", "scan_kinds",
]


class Error(Exception):
    """A clreduce failure. `status` is the library's status code (negative),
    `str(error)` says what failed and why."""

    def __init__(self, status, message):
        super().__init__(message)
        self.status = status


class InvalidArgumentError(Error, ValueError):
    """CLREDUCE_ERROR_INVALID_ARGUMENT: an argument the library cannot take."""


class UnsupportedError(Error):
    """CLREDUCE_ERROR_UNSUPPORTED: not possible on this device."""


class BuildError(Error):
    """CLREDUCE_ERROR_BUILD: a kernel did not compile (the log is in the message)."""


class OpenCLError(Error):
    """CLREDUCE_ERROR_OPENCL: an OpenCL call failed."""


class OutOfMemoryError(Error, MemoryError):
    """CLREDUCE_ERROR_OUT_OF_MEMORY."""


class NoDeviceError(Error):
    """CLREDUCE_ERROR_NO_DEVICE: no OpenCL device, or none matching CLREDUCE_DEVICE."""


_ERRORS = {
    _lib.ERROR_INVALID_ARGUMENT: InvalidArgumentError,
    _lib.ERROR_UNSUPPORTED: UnsupportedError,
    _lib.ERROR_BUILD: BuildError,
    _lib.ERROR_OPENCL: OpenCLError,
    _lib.ERROR_OUT_OF_MEMORY: OutOfMemoryError,
    _lib.ERROR_NO_DEVICE: NoDeviceError,
}

# NumPy element types and clreduce_type values (fixed in clreduce.h).
_TYPES = {
    np.dtype(np.float32): 0,
    np.dtype(np.float64): 1,
    np.dtype(np.int32): 2,
    np.dtype(np.uint32): 3,
    np.dtype(np.int64): 4,
    np.dtype(np.uint64): 5,
}


def dtypes():
    """The NumPy element types clreduce takes."""
    return list(_TYPES)


def _invalid(message):
    return InvalidArgumentError(_lib.ERROR_INVALID_ARGUMENT, message)


def _check(status, where, handle):
    if status == _lib.SUCCESS:
        return
    lib = _lib.library()
    # The detail first: it lives until this thread's next clreduce call.
    detail = _lib.text(lib.clreduce_last_error(handle))
    message = f"{where}: {_lib.text(lib.clreduce_status_string(status))}"
    if detail:
        message += f": {detail}"
    raise _ERRORS.get(status, Error)(status, message)


_names_lock = threading.Lock()
_names_cache = {}


# The operators this package offers: those whose result is one element of
# the input's type. The library's later operators (argmin, argmax, minmax,
# sum_squares, sum_abs, norm2, mean_var, dot) write results of their own
# layout, which the functions here do not read.
_ELEMENT_OPS = ("sum", "min", "max")


def _enum_names(kind):
    with _names_lock:
        if kind not in _names_cache:
            table = _lib.names(getattr(_lib.library(), f"clreduce_{kind}_name"))
            if kind == "op":
                table = {name: table[name] for name in _ELEMENT_OPS}
            _names_cache[kind] = table
        return _names_cache[kind]


def ops():
    """The operators: ["sum", "min", "max"]."""
    return list(_enum_names("op"))


def reduce_variants():
    """The reduction variants, "auto" first."""
    return list(_enum_names("variant"))


def scan_variants():
    """The scan variants, "auto" first."""
    return list(_enum_names("scan_variant"))


def scan_kinds():
    """["inclusive", "exclusive"]."""
    return list(_enum_names("scan_kind"))


def _lookup(kind, what, name):
    table = _enum_names(kind)
    if not isinstance(name, str) or name not in table:
        raise _invalid(f"unknown {what} {name!r}: one of {', '.join(table)}")
    return table[name]


def _type_code(dtype, what="array"):
    try:
        code = _TYPES.get(np.dtype(dtype))
    except TypeError:
        raise _invalid(f"{what}: {dtype!r} is not a NumPy dtype") from None
    if code is None:
        raise _invalid(f"{what} has dtype {np.dtype(dtype).str} ({np.dtype(dtype).name}): clreduce "
                       "takes native-endian float32, float64, int32, uint32, int64 or uint64")
    return code


def library_version():
    """The loaded library's version, "MAJOR.MINOR.PATCH"."""
    return _lib.text(_lib.library().clreduce_version())


def _int_ptr(obj, what):
    if isinstance(obj, int):
        return obj
    ptr = getattr(obj, "int_ptr", None)
    if not isinstance(ptr, int):
        raise _invalid(f"{what} must be a pyopencl object (with .int_ptr) or an integer handle, "
                       f"not {type(obj).__name__}")
    return ptr


def _device_range(array, what):
    """(cl_mem, offset in elements) of a pyopencl array."""
    if not all(hasattr(array, a) for a in ("base_data", "offset", "dtype", "size", "flags")):
        raise _invalid(f"{what} must be a pyopencl.array.Array, not {type(array).__name__}")
    if not array.flags.c_contiguous:
        raise _invalid(f"{what} is not contiguous: clreduce takes contiguous ranges of a buffer")
    itemsize = array.dtype.itemsize
    if array.offset % itemsize:
        raise _invalid(f"{what} starts at byte {array.offset} of its buffer, not at a whole "
                       f"{array.dtype.name} element")
    if array.base_data is None:
        return None, 0
    return _int_ptr(array.base_data, f"{what}.base_data"), array.offset // itemsize


def _wait_list(wait_for, *arrays):
    events = list(wait_for or [])
    for array in arrays:
        events += list(getattr(array, "events", None) or [])
    handles = (c_void_p * max(len(events), 1))(*[_int_ptr(e, "wait_for event") for e in events])
    return len(events), (handles if events else None)


def _host_array(array, what):
    array = np.asarray(array)
    _type_code(array.dtype, what)
    return np.ascontiguousarray(array)


def _check_out(out, array, same_size):
    """Raises unless out has the array's dtype and, with same_size, its
    number of elements."""
    if out.dtype != array.dtype:
        raise _invalid(f"out has dtype {out.dtype.name}, the array {array.dtype.name}")
    if same_size and out.size != array.size:
        raise _invalid(f"out has {out.size} elements, the array {array.size}")


def _device_operands(array, out, same_size):
    """(cl_mem, offset) of the pyopencl arrays array and out, and the type
    code of their elements; out as _check_out() wants it."""
    in_range = _device_range(array, "array")
    out_range = _device_range(out, "out")
    type_code = _type_code(array.dtype, "array")
    _check_out(out, array, same_size)
    return in_range, out_range, type_code


class Context:
    """A clreduce context: one OpenCL device, its compiled programs and
    scratch memory. Safe to use from several threads at once.

    Context() picks the device as clreduce_create_default() does: the one
    CLREDUCE_DEVICE names ("pocl", "NVIDIA", "P:D"), else the first GPU, else
    the first device. Context(cl_context, device) works on a pyopencl
    Context and Device (device may be left out when the context has one);
    the pyopencl arrays given to enqueue_reduce and enqueue_scan must belong
    to that context.
    """

    def __init__(self, cl_context=None, device=None):
        lib = _lib.library()
        handle = c_void_p()
        if cl_context is None:
            if device is not None:
                raise _invalid("a device needs the cl_context it belongs to")
            _check(lib.clreduce_create_default(byref(handle)), "clreduce_create_default", None)
        else:
            context_ptr = _int_ptr(cl_context, "cl_context")
            if device is None:
                devices = getattr(cl_context, "devices", None)
                if not devices or len(devices) != 1:
                    raise _invalid("pass the device: the context does not have exactly one")
                device = devices[0]
            _check(lib.clreduce_create(context_ptr, _int_ptr(device, "device"), byref(handle)),
                   "clreduce_create", None)
        self._lib = lib
        self._handle = handle
        self._cl_objects = None

    # -- lifetime ---------------------------------------------------------
    def close(self):
        """Releases the context (its programs, scratch memory, OpenCL context
        reference). Commands already enqueued complete normally."""
        handle, self._handle = getattr(self, "_handle", None), None
        if handle:
            self._lib.clreduce_destroy(handle)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass

    @property
    def _h(self):
        if not self._handle:
            raise Error(_lib.ERROR_INVALID_ARGUMENT, "the clreduce context is closed")
        return self._handle

    # -- the OpenCL objects ----------------------------------------------
    def _pyopencl(self):
        if self._cl_objects is None:
            import pyopencl as cl
            context = cl.Context.from_int_ptr(self._lib.clreduce_get_cl_context(self._h),
                                              retain=True)
            device = cl.Device.from_int_ptr(self._lib.clreduce_get_cl_device(self._h))
            self._cl_objects = (context, device)
        return self._cl_objects

    @property
    def cl_context(self):
        """The OpenCL context, as a pyopencl.Context (needs pyopencl)."""
        return self._pyopencl()[0]

    @property
    def cl_device(self):
        """The OpenCL device, as a pyopencl.Device (needs pyopencl)."""
        return self._pyopencl()[1]

    # -- capabilities -----------------------------------------------------
    def check_support(self, dtype, op="sum", variant="auto"):
        """Raises what reduce() would for this element type, operator and
        variant on this device (UnsupportedError, with the reason), else
        returns None. Builds nothing."""
        _check(self._lib.clreduce_check_support(
            self._h, _lookup("op", "op", op), _type_code(dtype, "dtype"),
            _lookup("variant", "variant", variant)), "clreduce_check_support", self._h)

    def check_scan_support(self, dtype, op="sum", variant="auto"):
        """As check_support(), for scan()."""
        _check(self._lib.clreduce_check_scan_support(
            self._h, _lookup("op", "op", op), _type_code(dtype, "dtype"),
            _lookup("scan_variant", "scan variant", variant)),
            "clreduce_check_scan_support", self._h)

    def auto_variant(self, dtype):
        """The reduction variant "auto" runs for dtype on this device."""
        value = self._lib.clreduce_auto_variant(self._h, _type_code(dtype, "dtype"))
        return _lib.text(self._lib.clreduce_variant_name(value))

    def auto_scan_variant(self, dtype):
        """The scan variant "auto" runs for dtype on this device."""
        value = self._lib.clreduce_auto_scan_variant(self._h, _type_code(dtype, "dtype"))
        return _lib.text(self._lib.clreduce_scan_variant_name(value))

    # -- host memory ------------------------------------------------------
    def reduce(self, array, op="sum", variant="auto"):
        """Reduces every element of a NumPy array (any shape; copied first if
        not contiguous) to a NumPy scalar of its dtype. Empty: the identity
        (0; +inf or the largest value for min; -inf or the smallest for max).
        Blocking."""
        array = _host_array(array, "array")
        op_code = _lookup("op", "op", op)
        variant_code = _lookup("variant", "variant", variant)
        result = np.empty(1, array.dtype)
        _check(self._lib.clreduce_reduce_host(
            self._h, op_code, _TYPES[array.dtype], variant_code, array.ctypes.data,
            array.size, result.ctypes.data), "clreduce_reduce_host", self._h)
        return result[0]

    def reduce_rows(self, matrix, op="sum"):
        """Reduces every row of a 2-D NumPy array to one value: a 1-D array
        of matrix.shape[0] elements of its dtype (like matrix.sum(axis=1),
        .min(axis=1), .max(axis=1), with clreduce's NaN and signed-zero
        rules). Rows of a view with padding between them (a slice of wider
        rows) are read where they lie; other layouts are copied first. Rows
        of length 0 give the identity. Blocking."""
        matrix = np.asarray(matrix)
        if matrix.ndim != 2:
            raise _invalid(f"matrix must have 2 dimensions, not {matrix.ndim}")
        type_code = _type_code(matrix.dtype, "matrix")
        op_code = _lookup("op", "op", op)
        rows, length = matrix.shape
        itemsize = matrix.dtype.itemsize
        pitch = length
        if (rows > 1 and length > 1 and matrix.strides[1] == itemsize
                and matrix.strides[0] >= length * itemsize
                and matrix.strides[0] % itemsize == 0):
            pitch = matrix.strides[0] // itemsize  # padded rows, read in place
        else:
            matrix = np.ascontiguousarray(matrix)
        results = np.empty(rows, matrix.dtype)
        if rows == 0:
            return results
        _check(self._lib.clreduce_reduce_rows_host(
            self._h, op_code, type_code, matrix.ctypes.data, rows, length, pitch,
            results.ctypes.data), "clreduce_reduce_rows_host", self._h)
        return results

    def reduce_segments(self, array, offsets, op="sum"):
        """Reduces the segments array[offsets[i]:offsets[i+1]] of a 1-D NumPy
        array (other shapes: their elements in C order) to a 1-D array of
        len(offsets) - 1 elements of its dtype. offsets: non-decreasing
        integers from 0 to array.size (uint32 or uint64, or other integers,
        converted). Empty segments give the identity. Blocking."""
        array = _host_array(array, "array").reshape(-1)
        op_code = _lookup("op", "op", op)
        offsets = np.asarray(offsets)
        if offsets.ndim != 1 or offsets.size == 0:
            raise _invalid("offsets must be a 1-D array of at least one element")
        if offsets.dtype.kind not in "iu":
            raise _invalid(f"offsets must be integers, not {offsets.dtype.name}")
        if offsets.dtype.kind == "i" and (offsets < 0).any():
            i = int(np.argmax(offsets < 0))
            raise _invalid(f"offsets[{i}] is {int(offsets[i])}, below 0")
        wide = offsets.dtype.itemsize > 4 or int(offsets.max()) > 0xFFFFFFFF
        offsets = np.ascontiguousarray(offsets, np.uint64 if wide else np.uint32)
        segments = offsets.size - 1
        results = np.empty(segments, array.dtype)
        if segments == 0:
            return results
        data = array if array.size else np.empty(1, array.dtype)
        _check(self._lib.clreduce_reduce_segments_host(
            self._h, op_code, _TYPES[array.dtype], data.ctypes.data, array.size,
            offsets.ctypes.data, _TYPES[offsets.dtype], segments, results.ctypes.data),
            "clreduce_reduce_segments_host", self._h)
        return results

    def scan(self, array, op="sum", kind="inclusive", variant="auto", out=None):
        """Prefix scan of a NumPy array's elements in C order, as a 1-D array
        of its dtype (like numpy.cumsum). kind "inclusive": out[i] = x[0] op
        ... op x[i]; "exclusive": out[0] = identity, out[i] = x[0] op ... op
        x[i-1]. out: a contiguous, writable array of the same dtype and size
        to write into (the input array itself scans in place). Blocking."""
        array = _host_array(array, "array")
        op_code = _lookup("op", "op", op)
        kind_code = _lookup("scan_kind", "scan kind", kind)
        variant_code = _lookup("scan_variant", "scan variant", variant)
        if out is None:
            out = np.empty(array.size, array.dtype)
        else:
            if not isinstance(out, np.ndarray):
                raise _invalid(f"out must be a numpy.ndarray, not {type(out).__name__}")
            _check_out(out, array, same_size=True)
            if not out.flags.c_contiguous or not out.flags.writeable:
                raise _invalid("out must be C-contiguous and writable")
            if (out.ctypes.data != array.ctypes.data and out.size
                    and np.shares_memory(out, array)):
                raise _invalid("out overlaps the array without being the same elements")
        _check(self._lib.clreduce_scan_host(
            self._h, op_code, _TYPES[array.dtype], kind_code, variant_code, array.ctypes.data,
            array.size, out.ctypes.data), "clreduce_scan_host", self._h)
        return out

    # -- device memory ----------------------------------------------------
    @staticmethod
    def _queue(queue, array):
        queue = queue if queue is not None else getattr(array, "queue", None)
        if queue is None:
            raise _invalid("no command queue: the array has none, pass queue=")
        return _int_ptr(queue, "queue")

    @staticmethod
    def _event(handle, out):
        import pyopencl as cl
        event = cl.Event.from_int_ptr(handle.value, retain=False)
        if hasattr(out, "add_event"):
            out.add_event(event)
        return event

    def enqueue_reduce(self, array, out, op="sum", variant="auto", out_index=0, queue=None,
                       wait_for=None):
        """Enqueues the reduction of a pyopencl array (contiguous, any shape)
        into element out_index of the pyopencl array out (same dtype, other
        memory), on `queue` (default: array.queue), after the events of
        wait_for and those pending on both arrays. Returns the pyopencl.Event
        that completes when the result is written (also added to out's
        events, so out.get() waits for it)."""
        op_code = _lookup("op", "op", op)
        variant_code = _lookup("variant", "variant", variant)
        (in_mem, in_offset), (out_mem, out_offset), type_code = _device_operands(
            array, out, same_size=False)
        if not 0 <= out_index < out.size:
            raise _invalid(f"out_index {out_index} is outside out ({out.size} elements)")
        if in_mem is None:  # an empty array has no buffer: the result is the identity
            in_mem, in_offset = out_mem, 0
        queue_handle = self._queue(queue, array)
        num_wait, wait = _wait_list(wait_for, array, out)
        done = c_void_p()
        _check(self._lib.clreduce_reduce(
            self._h, queue_handle, op_code, type_code, variant_code, in_mem, in_offset,
            array.size, out_mem, out_offset + out_index, num_wait, wait, byref(done)),
            "clreduce_reduce", self._h)
        return self._event(done, out)

    def enqueue_scan(self, array, out, op="sum", kind="inclusive", variant="auto", queue=None,
                     wait_for=None):
        """Enqueues the scan of a pyopencl array (contiguous, any shape, C
        order) into the pyopencl array out (same dtype and size; the same
        array scans in place, other overlaps are refused), on `queue`
        (default: array.queue), after the events of wait_for and those
        pending on both arrays. Returns the pyopencl.Event that completes
        when out is written (also added to out's events)."""
        op_code = _lookup("op", "op", op)
        kind_code = _lookup("scan_kind", "scan kind", kind)
        variant_code = _lookup("scan_variant", "scan variant", variant)
        (in_mem, in_offset), (out_mem, out_offset), type_code = _device_operands(
            array, out, same_size=True)
        queue_handle = self._queue(queue, array)
        if in_mem is None or out_mem is None:  # empty: nothing to write
            import pyopencl as cl
            queue = queue if queue is not None else array.queue
            return cl.enqueue_marker(queue, wait_for=list(wait_for or []) +
                                     list(array.events) + list(out.events))
        num_wait, wait = _wait_list(wait_for, array, out)
        done = c_void_p()
        _check(self._lib.clreduce_scan(
            self._h, queue_handle, op_code, type_code, kind_code, variant_code, in_mem,
            in_offset, array.size, out_mem, out_offset, num_wait, wait, byref(done)),
            "clreduce_scan", self._h)
        return self._event(done, out)


_default_lock = threading.Lock()
_default = None


def default_context():
    """One Context() shared by reduce() and scan(), created on first use."""
    global _default
    with _default_lock:
        if _default is None:
            _default = Context()
        return _default


def reduce(array, op="sum", variant="auto"):
    """Context.reduce() on default_context()."""
    return default_context().reduce(array, op, variant)


def scan(array, op="sum", kind="inclusive", variant="auto", out=None):
    """Context.scan() on default_context()."""
    return default_context().scan(array, op, kind, variant, out)


def reduce_rows(matrix, op="sum"):
    """Context.reduce_rows() on default_context()."""
    return default_context().reduce_rows(matrix, op)


def reduce_segments(array, offsets, op="sum"):
    """Context.reduce_segments() on default_context()."""
    return default_context().reduce_segments(array, offsets, op)
