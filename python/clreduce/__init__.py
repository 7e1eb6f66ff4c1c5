"""Parallel reductions and prefix scans on OpenCL devices.

Python bindings of the clreduce C library (libclreduce), through ctypes.

NumPy arrays in host memory, blocking::

    import numpy as np, clreduce
    ctx = clreduce.Context()               # CLREDUCE_DEVICE picks the device
    ctx.reduce(np.arange(10, dtype=np.int32))              # np.int32(45)
    ctx.reduce(np.array([3., 7., 7., 1.]), "argmax")       # ArgResult(value=7.0, index=1)
    ctx.dot(np.arange(3.0), np.ones(3))                    # 3.0
    ctx.reduce_multi(np.arange(4.0), ["sum", "max"])       # (6.0, 3.0)
    ctx.scan(np.arange(5.0), op="sum", kind="exclusive")   # [0. 0. 1. 3. 6.]
    ctx.reduce_rows(np.ones((3, 4)), op="sum")             # [4. 4. 4.]
    ctx.scan_rows(np.ones((2, 3)))                         # [[1. 2. 3.] [1. 2. 3.]]
    ctx.reduce_segments(np.arange(6), [0, 2, 2, 6])        # [1 0 14]

pyopencl arrays in device memory, enqueued like any OpenCL command::

    ctx = clreduce.Context(cl_context, device)             # pyopencl objects
    event = ctx.enqueue_reduce(x, out, op="max")           # out[0] = max(x)
    event = ctx.enqueue_scan(x, x)                         # in place

Element types: float32, float64 (devices with fp64), int32, uint32, int64,
uint64; float16 host arrays for "sum", "min" and "max" alone, read as 2 bytes
an element and reduced in float32 (the results' dtype, and a scan's). Integer
sums wrap around; min and max propagate NaN and order -0.0 below +0.0.
Variants: "auto" (the library's choice) or a name from reduce_variants() /
scan_variants(); the operators past "max" run on "auto", "grid_stride" and
"single_pass"; "reproducible" sums float32 and float64 in an order fixed by
the count, the same bits on every device. clreduce.h documents every promise.

Operators (ops()) and what reduce() returns for each; reduce_rows() and
reduce_segments() return the same with a 1-D array, one element per row or
segment, in place of each NumPy scalar. scan() takes the first three.

  "sum", "min", "max"   a scalar of the array's dtype.
  "sum_squares"         sum of x*x, a scalar of the array's dtype.
  "sum_abs"             sum of |x|, a scalar of the array's dtype, or for
                        int32 (int64) of uint32 (uint64): |INT32_MIN| is 2^31
                        and the sum wraps modulo 2^32 (2^64).
  "norm2"               sqrt(sum of x*x), never overflowed by its squares;
                        float32 and float64 only.
  "argmin", "argmax"    ArgResult(value, index): the extreme value (the
                        array's dtype) and its index (int64, counted from
                        the row's or segment's start). Among equal values
                        the smallest index; a NaN wins, with the index of
                        the first NaN; -0.0 below +0.0. No element: min's
                        (max's) identity and index -1.
  "minmax"              MinMax(min, max), each as "min" and "max" give it.
  "mean_var"            MeanVar(mean, m2, count): the mean, m2 = sum of
                        (x - mean)^2 (what the library stores: results
                        merge exactly from it) and the count (int64), with
                        properties var = m2 / count (numpy.var), std, and
                        sample_var = m2 / (count - 1); NaN where count is too
                        small. No element: mean 0, m2 0, count 0. float32 and
                        float64 only.

Operator(name, dtype, acc_type, map, combine, identity) compiles an
operator of your own, written in OpenCL C, with reduce() and scan() over
host arrays: see its documentation. dot(x, y) is the dot product of two
arrays of one dtype and size (integers wrap around); dot_rows(x, y) and
dot_segments(x, y, offsets) one per row or segment, dot_scan(x, y) the
running dot product. Identities of no element: 0 for the sums and dot;
for min +inf or the largest value, for max -inf or the smallest.
result_dtype(op, dtype) gives the layout of a result in device memory, the
dtype of the out array of enqueue_reduce() (structured for argmin, argmax,
minmax, mean_var). The library is found through $CLREDUCE_LIBRARY (a
path), else the dynamic loader's search (ldconfig, LD_LIBRARY_PATH).
"""

import ctypes
import threading
import weakref
from ctypes import byref, c_void_p

import numpy as np

from . import _lib, _results
from ._lib import LibraryNotFoundError
from ._results import ArgResult, MeanVar, MinMax

__version__ = "0.1.0"

__all__ = [
    "Context", "Error", "InvalidArgumentError", "UnsupportedError", "BuildError",
    "OpenCLError", "OutOfMemoryError", "NoDeviceError", "LibraryNotFoundError",
    "reduce", "reduce_multi", "dot", "scan", "reduce_rows", "reduce_rows_multi", "scan_rows",
    "reduce_segments", "reduce_segments_multi", "dot_rows", "dot_segments", "dot_scan",
    "default_context",
    "library_version", "ops", "dtypes", "result_dtype", "reduce_variants", "scan_variants",
    "scan_kinds", "ArgResult", "MinMax", "MeanVar", "Operator", "reduce_parts", "partials",
    "combine_partials", "tile_elements"]


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
# A storage type: sum, min and max only, with float32 results.
_STORAGE_TYPES = {np.dtype(np.float16): 6}


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


# Operators by what takes them: scans only sum, min and max; dot() has its
# own function, as it takes two arrays.
_SCAN_OPS = ("sum", "min", "max")
_REDUCE_OPS = ("sum", "min", "max", "argmin", "argmax", "minmax", "sum_squares", "sum_abs",
               "norm2", "mean_var")


def _enum_names(kind):
    with _names_lock:
        if kind not in _names_cache:
            _names_cache[kind] = _lib.names(getattr(_lib.library(), f"clreduce_{kind}_name"))
        return _names_cache[kind]


def ops():
    """The operators of reduce(), reduce_rows() and reduce_segments(); scan()
    takes the first three, "sum", "min" and "max"."""
    return list(_REDUCE_OPS)


def reduce_variants():
    """The reduction variants, "auto" first."""
    return list(_enum_names("variant"))


def scan_variants():
    """The scan variants, "auto" first."""
    return list(_enum_names("scan_variant"))


def scan_kinds():
    """["inclusive", "exclusive"]."""
    return list(_enum_names("scan_kind"))


def _lookup(kind, what, name, allowed=None):
    """The value of a name of enumeration `kind`, among `allowed` (default:
    all the library's names)."""
    table = _enum_names(kind)
    allowed = allowed or tuple(table)
    if not isinstance(name, str) or name not in allowed:
        hint = ": dot takes two arrays (dot(), dot_rows(), dot_scan()...)" if name == "dot" else ""
        raise _invalid(f"unknown {what} {name!r}: one of {', '.join(allowed)}{hint}")
    return table[name]


def _reduce_op(op):
    return _lookup("op", "op", op, _REDUCE_OPS)


def _scan_op(op):
    return _lookup("op", "op", op, _SCAN_OPS)


def _type_code(dtype, what="array", storage=False):
    """The clreduce_type of dtype: one of _TYPES, or with `storage` also of
    _STORAGE_TYPES (the calls of one operator on host arrays)."""
    try:
        dtype = np.dtype(dtype)
    except TypeError:
        raise _invalid(f"{what}: {dtype!r} is not a NumPy dtype") from None
    code = _TYPES.get(dtype, _STORAGE_TYPES.get(dtype) if storage else None)
    if code is None:
        raise _invalid(f"{what} has dtype {dtype.str} ({dtype.name}): clreduce takes "
                       "native-endian float32, float64, int32, uint32, int64 or uint64"
                       + (", and float16 for sum, min and max" if storage else ""))
    return code


def result_dtype(op, dtype):
    """The NumPy dtype of one result of op (a name of ops(), or "dot") on
    elements of dtype, laid out as the library writes it to the `out` of
    enqueue_reduce(): dtype itself for sum, min, max, sum_squares, norm2 and
    dot; for sum_abs the unsigned dtype of a signed integer; structured
    dtypes for argmin and argmax (value, index: uint64, UINT64_MAX for no
    element), minmax (min, max) and mean_var (mean, m2, count: uint64).
    UnsupportedError for norm2 and mean_var of integers. float16: float32
    for sum, min and max, InvalidArgumentError for the others."""
    _lookup("op", "op", op)
    _type_code(dtype, "dtype", storage=True)
    dtype = np.dtype(dtype)
    layout = _results.result_dtype(op, dtype)
    if layout is None and dtype in _STORAGE_TYPES:
        raise _invalid(f"{op} does not take {dtype.name}: sum, min and max do")
    if layout is None:
        raise UnsupportedError(_lib.ERROR_UNSUPPORTED,
                               f"{op} takes float32 and float64, not {dtype.name}")
    return layout


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


def _offsets(offsets):
    """CSR offsets as a contiguous uint32 array (uint64 where they need it),
    checked to be a non-empty 1-D array of non-negative integers."""
    offsets = np.asarray(offsets)
    if offsets.ndim != 1 or offsets.size == 0:
        raise _invalid("offsets must be a 1-D array of at least one element")
    if offsets.dtype.kind not in "iu":
        raise _invalid(f"offsets must be integers, not {offsets.dtype.name}")
    if offsets.dtype.kind == "i" and (offsets < 0).any():
        i = int(np.argmax(offsets < 0))
        raise _invalid(f"offsets[{i}] is {int(offsets[i])}, below 0")
    wide = offsets.dtype.itemsize > 4 or int(offsets.max()) > 0xFFFFFFFF
    return np.ascontiguousarray(offsets, np.uint64 if wide else np.uint32)


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


def _host_array(array, what, storage=False):
    array = np.asarray(array)
    _type_code(array.dtype, what, storage)
    return np.ascontiguousarray(array)


def _pair(x, y, what):
    """x and y as contiguous 1-D arrays of one dtype and size, for `what`."""
    x, y = _host_array(x, "x").reshape(-1), _host_array(y, "y").reshape(-1)
    if x.dtype != y.dtype or x.size != y.size:
        raise _invalid(f"x has {x.size} elements of {x.dtype.name}, y {y.size} of "
                       f"{y.dtype.name}: {what} takes arrays of one dtype and size")
    return x, y


def _check_out(out, array, same_size, out_dtype=None):
    """Raises unless out has dtype out_dtype (default: the array's) and, with
    same_size, the array's number of elements."""
    want = array.dtype if out_dtype is None else out_dtype
    if out.dtype != want and want == array.dtype:
        raise _invalid(f"out has dtype {out.dtype.name}, the array {array.dtype.name}")
    if out.dtype != want:
        raise _invalid(f"out has dtype {out.dtype}, the results {want} (see result_dtype())")
    if same_size and out.size != array.size:
        raise _invalid(f"out has {out.size} elements, the array {array.size}")


def _device_operands(array, out, same_size, result_dtype_of=None):
    """(cl_mem, offset) of the pyopencl arrays array and out, and the type
    code of the array's elements; out as _check_out() wants it, of dtype
    result_dtype_of(array.dtype) where that is given."""
    in_range = _device_range(array, "array")
    type_code = _type_code(array.dtype, "array")
    out_range = _device_range(out, "out")
    _check_out(out, array, same_size, result_dtype_of and result_dtype_of(array.dtype))
    return in_range, out_range, type_code


class _Handle:
    """An object of the library's, released by close() (harmless twice), at
    the end of a `with` block, or when collected. Subclasses name it (_what)
    and release it (_release)."""

    _handle = None  # until created

    def close(self):
        handle, self._handle = self._handle, None
        if handle:
            self._release(handle)

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
            raise _invalid(f"the {self._what} is closed")
        return self._handle


class Context(_Handle):
    """A clreduce context: one OpenCL device, its compiled programs and
    scratch memory. Safe to use from several threads at once.

    Context() picks the device as clreduce_create_default() does: the one
    CLREDUCE_DEVICE names ("pocl", "NVIDIA", "P:D"), else the first GPU, else
    the first device. Context(cl_context, device) works on a pyopencl
    Context and Device (device may be left out when the context has one);
    the pyopencl arrays given to enqueue_reduce and enqueue_scan must belong
    to that context. reproducible=True makes a reproducible context
    (clreduce_settings.reproducible): float sums (flat, of rows and
    segments, scans) in orders fixed by the count alone, the same bits on
    every device; what it cannot make reproducible raises UnsupportedError."""

    def __init__(self, cl_context=None, device=None, *, reproducible=False):
        lib = _lib.library()
        context_ptr = None if cl_context is None else _int_ptr(cl_context, "cl_context")
        if cl_context is None and device is not None:
            raise _invalid("a device needs the cl_context it belongs to")
        if cl_context is not None and device is None:
            devices = getattr(cl_context, "devices", None)
            if not devices or len(devices) != 1:
                raise _invalid("pass the device: the context does not have exactly one")
            device = devices[0]
        device_ptr = None if device is None else _int_ptr(device, "device")
        status, where, handle = _lib.create_context(lib, context_ptr, device_ptr, reproducible)
        _check(status, where, None)
        self._lib = lib
        self._handle = handle
        self._cl_objects = None
        self._operators = weakref.WeakSet()  # released before the context

    # -- lifetime ---------------------------------------------------------
    _what = "clreduce context"

    def close(self):
        """Releases the context (its programs, scratch memory, OpenCL context
        reference) and the Operators made for it. Commands already enqueued
        complete normally."""
        for operator in list(getattr(self, "_operators", ())):
            operator.close()
        super().close()

    def _release(self, handle):
        self._lib.clreduce_destroy(handle)

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
        """Raises what reduce() (dot() for op "dot") would for this element
        type, operator and variant on this device (UnsupportedError, with the
        reason), else returns None. Builds nothing."""
        _check(self._lib.clreduce_check_support(
            self._h, _lookup("op", "op", op), _type_code(dtype, "dtype"),
            _lookup("variant", "variant", variant)), "clreduce_check_support", self._h)

    def check_scan_support(self, dtype, op="sum", variant="auto"):
        """As check_support(), for scan()."""
        _check(self._lib.clreduce_check_scan_support(
            self._h, _scan_op(op), _type_code(dtype, "dtype"),
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
    def _layout(self, where, op, dtype, variant="auto"):
        """The dtype of a result of op on dtype; where the operator does not
        take dtype, raises the library's UnsupportedError, in the name of the
        library's function `where`."""
        layout = _results.result_dtype(op, dtype)
        if layout is None:
            _check(self._lib.clreduce_check_support(
                self._h, _lookup("op", "op", op), _type_code(dtype, storage=True),
                _lookup("variant", "variant", variant)), where, self._h)
            raise UnsupportedError(_lib.ERROR_UNSUPPORTED, f"{where}: {op} of {dtype.name}")
        return layout

    def _results(self, where, op, dtype, count, variant="auto"):
        """An uninitialised array of `count` results of op on dtype."""
        return np.empty(count, self._layout(where, op, dtype, variant))

    def reduce(self, array, op="sum", variant="auto"):
        """Reduces every element of a NumPy array (any shape; copied first if
        not contiguous), as the module's introduction says: a NumPy scalar of
        the array's dtype, or for sum_abs of signed integers of the unsigned
        dtype; ArgResult(value, index), MinMax(min, max) or MeanVar(mean, m2,
        count) of NumPy scalars. Empty: the operator's result of no element.
        Blocking."""
        array = _host_array(array, "array", storage=True)
        op_code = _reduce_op(op)
        variant_code = _lookup("variant", "variant", variant)
        result = self._results("clreduce_reduce_host", op, array.dtype, 1, variant)
        _check(self._lib.clreduce_reduce_host(
            self._h, op_code, _type_code(array.dtype, storage=True), variant_code,
            array.ctypes.data, array.size, result.ctypes.data), "clreduce_reduce_host", self._h)
        return _results.unpack_one(op, result)

    def reduce_multi(self, array, ops, variant="auto"):
        """Reduces every element of a NumPy array by each operator of `ops`
        (names, as reduce() takes them; dot aside) in one pass over the
        array: a tuple of reduce()'s results, in the order of ops. Each
        result has the bits of reduce() with that operator alone, but for
        the cases clreduce/multi.h lists. Blocking."""
        array = _host_array(array, "array")
        ops = list(ops)
        if not ops:
            raise _invalid("ops must name at least one operator")
        codes = (ctypes.c_int * len(ops))(*[_reduce_op(op) for op in ops])
        variant_code = _lookup("variant", "variant", variant)
        results = [self._results("clreduce_reduce_multi_host", op, array.dtype, 1, variant)
                   for op in ops]
        pointers = (ctypes.c_void_p * len(ops))(*[r.ctypes.data for r in results])
        _check(self._lib.clreduce_reduce_multi_host(
            self._h, codes, len(ops), _TYPES[array.dtype], variant_code, array.ctypes.data,
            array.size, pointers), "clreduce_reduce_multi_host", self._h)
        return tuple(_results.unpack_one(op, r) for op, r in zip(ops, results))

    def dot(self, x, y, variant="auto"):
        """The dot product sum(x[i] * y[i]) of two NumPy arrays of one dtype
        and size, their elements taken in C order (numpy.vdot of real
        arrays), as a NumPy scalar of that dtype (integers wrap around).
        Empty: 0. Blocking."""
        x, y = _pair(x, y, "dot()")
        variant_code = _lookup("variant", "variant", variant)
        result = np.empty(1, x.dtype)
        _check(self._lib.clreduce_dot_host(
            self._h, _TYPES[x.dtype], variant_code, x.ctypes.data, y.ctypes.data, x.size,
            result.ctypes.data), "clreduce_dot_host", self._h)
        return result[0]

    def dot_rows(self, x, y):
        """The dot product of each row of two 2-D NumPy arrays of one dtype
        and shape, as a 1-D array of x.shape[0] elements of that dtype, like
        numpy.einsum("ij,ij->i", x, y) (integers wrap around; rows of length
        0 give 0): the cosine similarity of pairs, a batch of small dot
        products. Views whose rows lie at one pitch are read in place, other
        layouts copied first. Blocking."""
        x, y = np.asarray(x), np.asarray(y)
        if x.ndim != 2 or x.shape != y.shape or x.dtype != y.dtype:
            raise _invalid(f"x is {x.shape} of {x.dtype.name}, y {y.shape} of {y.dtype.name}: "
                           f"dot_rows() takes 2-D arrays of one shape and dtype")
        type_code = _type_code(x.dtype, "x")
        rows, length = x.shape
        pitch = self._rows_layout(x)  # padded rows are read in place
        if pitch is None or self._rows_layout(y) != pitch:
            x, y, pitch = np.ascontiguousarray(x), np.ascontiguousarray(y), length
        results = np.empty(rows, x.dtype)
        if rows:
            _check(self._lib.clreduce_dot_rows_host(
                self._h, type_code, x.ctypes.data, y.ctypes.data, rows, length, pitch,
                results.ctypes.data), "clreduce_dot_rows_host", self._h)
        return results

    def dot_segments(self, x, y, offsets):
        """The dot product of x[offsets[i]:offsets[i+1]] and the same segment
        of y, two 1-D NumPy arrays of one dtype and size (other shapes: their
        elements in C order), as a 1-D array of len(offsets) - 1 elements of
        that dtype; offsets as reduce_segments() takes them; empty segments
        give 0. Blocking."""
        x, y = _pair(x, y, "dot_segments()")
        offsets = _offsets(offsets)
        segments = offsets.size - 1
        results = np.empty(segments, x.dtype)
        if segments:
            x, y = (a if a.size else np.empty(1, a.dtype) for a in (x, y))
            _check(self._lib.clreduce_dot_segments_host(
                self._h, _TYPES[x.dtype], x.ctypes.data, y.ctypes.data, x.size,
                offsets.ctypes.data, _TYPES[offsets.dtype], segments, results.ctypes.data),
                "clreduce_dot_segments_host", self._h)
        return results

    def dot_scan(self, x, y, kind="inclusive"):
        """The running dot product of two arrays of one dtype and size in C
        order: out[i] = sum of x[k] * y[k] for k <= i (inclusive) or k < i
        (exclusive), as numpy.cumsum(x * y) (integers wrap). Blocking."""
        x, y = _pair(x, y, "dot_scan()")
        out = np.empty(x.size, x.dtype)
        _check(self._lib.clreduce_dot_scan_host(
            self._h, _TYPES[x.dtype], _lookup("scan_kind", "scan kind", kind), 0, x.ctypes.data,
            y.ctypes.data, x.size, out.ctypes.data), "clreduce_dot_scan_host", self._h)
        return out

    @staticmethod
    def _rows_layout(matrix):
        """The row pitch (in elements) at which a 2-D array's rows can be
        read in place, or None where the array must be copied first."""
        rows, length = matrix.shape
        itemsize = matrix.dtype.itemsize
        if rows <= 1 or length <= 1:
            return length if matrix.flags.c_contiguous else None
        if (matrix.strides[1] == itemsize and matrix.strides[0] >= length * itemsize
                and matrix.strides[0] % itemsize == 0):
            return matrix.strides[0] // itemsize
        return None

    def reduce_rows(self, matrix, op="sum"):
        """Reduces every row of a 2-D NumPy array: reduce()'s result for each
        row, as 1-D arrays of matrix.shape[0] elements (a 1-D array, or a
        named tuple of them: ArgResult, MinMax, MeanVar), like
        matrix.sum(axis=1) or numpy.argmax(matrix, axis=1) with clreduce's
        NaN and signed-zero rules; argmin and argmax count indices from the
        row's start. Rows of a view with padding between them (a slice of
        wider rows) are read where they lie; other layouts are copied first.
        Rows of length 0 give the result of no element. Blocking."""
        matrix = np.asarray(matrix)
        if matrix.ndim != 2:
            raise _invalid(f"matrix must have 2 dimensions, not {matrix.ndim}")
        type_code = _type_code(matrix.dtype, "matrix", storage=True)
        op_code = _reduce_op(op)
        rows, length = matrix.shape
        pitch = self._rows_layout(matrix)  # padded rows are read in place
        if pitch is None:
            matrix = np.ascontiguousarray(matrix)
            pitch = length
        results = self._results("clreduce_reduce_rows_host", op, matrix.dtype, rows)
        if rows:
            _check(self._lib.clreduce_reduce_rows_host(
                self._h, op_code, type_code, matrix.ctypes.data, rows, length, pitch,
                results.ctypes.data), "clreduce_reduce_rows_host", self._h)
        return _results.unpack(op, results)

    def _records(self, name, rest, ops, dtype, what, count):
        """The operator codes of ops and an empty array of `count` records
        of their results (clreduce_multi_record()'s layout) for the
        _multi_host call `name`, which reports a bad set when called with
        the arguments `rest` after the type."""
        type_code = _type_code(dtype, what)
        ops = list(ops)
        if not ops:
            raise _invalid("ops must name at least one operator")
        codes = (ctypes.c_int * len(ops))(*[_reduce_op(op) for op in ops])
        offsets = (ctypes.c_size_t * len(ops))()
        record = self._lib.clreduce_multi_record(codes, len(ops), type_code, offsets)
        if record == 0:
            _check(getattr(self._lib, name)(self._h, codes, len(ops), type_code, *rest), name,
                   self._h)
        fields = [self._layout(name, op, dtype) for op in ops]
        layout = np.dtype({"names": [f"r{i}" for i in range(len(ops))], "formats": fields,
                           "offsets": list(offsets), "itemsize": record})
        return codes, np.empty(count, layout)

    @staticmethod
    def _unpack_records(ops, records):
        return tuple(_results.unpack(op, np.ascontiguousarray(records[f"r{i}"]))
                     for i, op in enumerate(ops))

    def reduce_rows_multi(self, matrix, ops):
        """Reduces every row of a 2-D NumPy array by each operator of `ops`
        (names, as reduce_multi() takes them) in one pass over the rows: a
        tuple of reduce_rows()'s results, in the order of ops, each within
        the numerical contract of reduce_rows() with that operator alone
        (clreduce/multi.h says where the bits may differ). Blocking."""
        matrix = np.asarray(matrix)
        if matrix.ndim != 2:
            raise _invalid(f"matrix must have 2 dimensions, not {matrix.ndim}")
        ops = list(ops)
        rows, length = matrix.shape
        codes, records = self._records("clreduce_reduce_rows_multi_host",
                                       (None, 0, 0, 0, None), ops, matrix.dtype, "matrix", rows)
        pitch = self._rows_layout(matrix)  # padded rows are read in place
        if pitch is None:
            matrix = np.ascontiguousarray(matrix)
            pitch = length
        if rows:
            _check(self._lib.clreduce_reduce_rows_multi_host(
                self._h, codes, len(ops), _TYPES[matrix.dtype], matrix.ctypes.data, rows, length,
                pitch, records.ctypes.data), "clreduce_reduce_rows_multi_host", self._h)
        return self._unpack_records(ops, records)

    def reduce_segments_multi(self, array, offsets, ops):
        """Reduces every segment array[offsets[i]:offsets[i+1]] (as
        reduce_segments() takes them) by each operator of `ops` in one pass:
        a tuple of reduce_segments()'s results, in the order of ops, each
        within the numerical contract of reduce_segments() with that
        operator alone (clreduce/multi.h says where the bits may differ).
        Blocking."""
        array = _host_array(array, "array").reshape(-1)
        ops = list(ops)
        offsets = _offsets(offsets)
        segments = offsets.size - 1
        codes, records = self._records("clreduce_reduce_segments_multi_host",
                                       (None, 0, None, _TYPES[offsets.dtype], 0, None), ops,
                                       array.dtype, "array", segments)
        if segments:
            data = array if array.size else np.empty(1, array.dtype)
            _check(self._lib.clreduce_reduce_segments_multi_host(
                self._h, codes, len(ops), _TYPES[array.dtype], data.ctypes.data, array.size,
                offsets.ctypes.data, _TYPES[offsets.dtype], segments, records.ctypes.data),
                "clreduce_reduce_segments_multi_host", self._h)
        return self._unpack_records(ops, records)

    def reduce_segments(self, array, offsets, op="sum"):
        """Reduces the segments array[offsets[i]:offsets[i+1]] of a 1-D NumPy
        array (other shapes: their elements in C order): reduce()'s result
        for each segment, as 1-D arrays of len(offsets) - 1 elements, as
        reduce_rows() gives them (argmin and argmax count indices from the
        segment's start). offsets: non-decreasing integers from 0 to
        array.size (uint32 or uint64, or other integers, converted). Empty
        segments give the result of no element. Blocking."""
        array = _host_array(array, "array", storage=True).reshape(-1)
        op_code = _reduce_op(op)
        offsets = _offsets(offsets)
        segments = offsets.size - 1
        results = self._results("clreduce_reduce_segments_host", op, array.dtype, segments)
        if segments:
            data = array if array.size else np.empty(1, array.dtype)
            _check(self._lib.clreduce_reduce_segments_host(
                self._h, op_code, _type_code(array.dtype, storage=True), data.ctypes.data,
                array.size, offsets.ctypes.data, _TYPES[offsets.dtype], segments,
                results.ctypes.data),
                "clreduce_reduce_segments_host", self._h)
        return _results.unpack(op, results)

    def scan_rows(self, matrix, op="sum", kind="inclusive"):
        """Prefix scan of every row of a 2-D NumPy array, as a new C-ordered
        array of its shape and dtype (like numpy.cumsum(matrix, axis=1) for
        "sum", "inclusive"); scan()'s operators, kinds and rules, each row
        alone. The operators past max but dot give an array of its shape of
        result_dtype(op, dtype) records, as scan() does, argmin and argmax
        counting indices from the row's start. Rows of a view with padding
        between them are read where they lie; other layouts are copied
        first. Blocking."""
        matrix = np.asarray(matrix)
        if matrix.ndim != 2:
            raise _invalid(f"matrix must have 2 dimensions, not {matrix.ndim}")
        type_code = _type_code(matrix.dtype, "matrix", storage=True)
        operators = op not in _SCAN_OPS
        op_code = _reduce_op(op) if operators else _scan_op(op)
        kind_code = _lookup("scan_kind", "scan kind", kind)
        layout = (self._layout("clreduce_scan_rows_host", op, matrix.dtype) if operators
                  else _results.scan_dtype(matrix.dtype))
        rows, length = matrix.shape
        if self._rows_layout(matrix) != length:
            matrix = np.ascontiguousarray(matrix)  # the output has no padding
        out = np.empty((rows, length), layout)
        if rows and length:
            _check(self._lib.clreduce_scan_rows_host(
                self._h, op_code, type_code, kind_code, matrix.ctypes.data, rows, length,
                length, out.ctypes.data), "clreduce_scan_rows_host", self._h)
        return out

    def scan(self, array, op="sum", kind="inclusive", variant="auto", out=None):
        """Prefix scan of a NumPy array's elements in C order, as a 1-D array
        of its dtype (like numpy.cumsum). kind "inclusive": out[i] = x[0] op
        ... op x[i]; "exclusive": out[0] = identity, out[i] = x[0] op ... op
        x[i-1]. out: a contiguous, writable array of the same dtype and size
        to write into (the input array itself scans in place). The operators
        past max but dot scan too, into an array of result_dtype(op, dtype):
        out[i] is reduce()'s result of the prefix, as a record (fields
        value and index, min and max, or mean, m2 and count), on variants
        auto and reduce_then_scan, never in place. Blocking."""
        array = _host_array(array, "array", storage=True)
        operators = op not in _SCAN_OPS
        op_code = _reduce_op(op) if operators else _scan_op(op)
        kind_code = _lookup("scan_kind", "scan kind", kind)
        variant_code = _lookup("scan_variant", "scan variant", variant)
        layout = (self._layout("clreduce_scan_host", op, array.dtype) if operators
                  else _results.scan_dtype(array.dtype))
        if out is None:
            out = np.empty(array.size, layout)
        else:
            if not isinstance(out, np.ndarray):
                raise _invalid(f"out must be a numpy.ndarray, not {type(out).__name__}")
            _check_out(out, array, same_size=True, out_dtype=layout)
            if not out.flags.c_contiguous or not out.flags.writeable:
                raise _invalid("out must be C-contiguous and writable")
            if ((operators or out.ctypes.data != array.ctypes.data) and out.size
                    and np.shares_memory(out, array)):
                raise _invalid("out overlaps the array without being the same elements"
                               if not operators else "out overlaps the array")
        _check(self._lib.clreduce_scan_host(
            self._h, op_code, _type_code(array.dtype, storage=True), kind_code, variant_code,
            array.ctypes.data, array.size, out.ctypes.data), "clreduce_scan_host", self._h)
        return out

    # -- device memory ----------------------------------------------------
    @staticmethod
    def _queue(queue, array):
        queue = queue if queue is not None else getattr(array, "queue", None)
        if queue is None:
            raise _invalid("no command queue: the array has none, pass queue=")
        return _int_ptr(queue, "queue")

    def _launch(self, name, call, queue, wait_for, arrays, out):
        """Runs call(queue, num_wait, wait, done), one of the library's
        enqueueing functions, on `queue` (default: the first array's) after
        the events of wait_for and those pending on the arrays; returns the
        pyopencl.Event `done`, also added to out's events."""
        import pyopencl as cl
        queue_handle = self._queue(queue, arrays[0])
        num_wait, wait = _wait_list(wait_for, *arrays)
        done = c_void_p()
        _check(call(queue_handle, num_wait, wait, byref(done)), name, self._h)
        event = cl.Event.from_int_ptr(done.value, retain=False)
        if hasattr(out, "add_event"):
            out.add_event(event)
        return event

    @staticmethod
    def _out_position(out, out_offset, out_index):
        if not 0 <= out_index < out.size:
            raise _invalid(f"out_index {out_index} is outside out ({out.size} elements)")
        return out_offset + out_index

    def enqueue_reduce(self, array, out, op="sum", variant="auto", out_index=0, queue=None,
                       wait_for=None):
        """Enqueues the reduction of a pyopencl array (contiguous, any shape)
        into element out_index of the pyopencl array out (other memory) of
        dtype result_dtype(op, array.dtype): the array's dtype for sum, min,
        max, sum_squares and norm2, the C layout of the result otherwise (a
        structured dtype where it has several fields). It runs on `queue`
        (default: array.queue), after the events of wait_for and those
        pending on both arrays. Returns the pyopencl.Event that completes
        when the result is written (also added to out's events, so out.get()
        waits for it)."""
        op_code = _reduce_op(op)
        variant_code = _lookup("variant", "variant", variant)
        (in_mem, in_offset), (out_mem, out_offset), type_code = _device_operands(
            array, out, False, lambda dtype: self._layout("clreduce_reduce", op, dtype, variant))
        position = self._out_position(out, out_offset, out_index)
        if in_mem is None:  # an empty array has no buffer: the result is the identity
            in_mem, in_offset = out_mem, 0
        return self._launch("clreduce_reduce", lambda q, num_wait, wait, done:
                            self._lib.clreduce_reduce(
                                self._h, q, op_code, type_code, variant_code, in_mem,
                                in_offset, array.size, out_mem, position, num_wait, wait,
                                done), queue, wait_for, (array, out), out)

    def enqueue_dot(self, x, y, out, variant="auto", out_index=0, queue=None, wait_for=None):
        """Enqueues the dot product of two pyopencl arrays of one dtype and
        size (contiguous, any shape; they may be the same array) into
        element out_index of the pyopencl array out (that dtype, other
        memory), as enqueue_reduce() does (queue default: x.queue)."""
        variant_code = _lookup("variant", "variant", variant)
        (x_mem, x_offset), (out_mem, out_offset), type_code = _device_operands(
            x, out, same_size=False)
        y_mem, y_offset = _device_range(y, "y")
        if y.dtype != x.dtype or y.size != x.size:
            raise _invalid(f"x has {x.size} elements of {x.dtype.name}, y {y.size} of "
                           f"{y.dtype.name}: dot takes arrays of one dtype and size")
        position = self._out_position(out, out_offset, out_index)
        if x_mem is None:  # empty arrays have no buffer: the result is 0
            (x_mem, x_offset), (y_mem, y_offset) = (out_mem, 0), (out_mem, 0)
        return self._launch("clreduce_dot", lambda q, num_wait, wait, done:
                            self._lib.clreduce_dot(
                                self._h, q, type_code, variant_code, x_mem, x_offset, y_mem,
                                y_offset, x.size, out_mem, position, num_wait, wait, done),
                            queue, wait_for, (x, y, out), out)

    def enqueue_scan(self, array, out, op="sum", kind="inclusive", variant="auto", queue=None,
                     wait_for=None):
        """Enqueues the scan of a pyopencl array (contiguous, any shape, C
        order) into the pyopencl array out (same dtype and size; the same
        array scans in place, other overlaps are refused), on `queue`
        (default: array.queue), after the events of wait_for and those
        pending on both arrays. For the operators past max but dot, out
        holds one record of result_dtype(op, array.dtype) per element, as
        scan() writes them, in other memory. Returns the pyopencl.Event that
        completes when out is written (also added to out's events)."""
        operators = op not in _SCAN_OPS
        op_code = _reduce_op(op) if operators else _scan_op(op)
        kind_code = _lookup("scan_kind", "scan kind", kind)
        variant_code = _lookup("scan_variant", "scan variant", variant)
        layout_of = (lambda dtype: self._layout("clreduce_scan", op, dtype)) if operators else None
        (in_mem, in_offset), (out_mem, out_offset), type_code = _device_operands(
            array, out, same_size=True, result_dtype_of=layout_of)
        if in_mem is None or out_mem is None:  # empty: nothing to write
            import pyopencl as cl
            self._queue(queue, array)  # raises where there is none
            queue = queue if queue is not None else array.queue
            return cl.enqueue_marker(queue, wait_for=list(wait_for or []) +
                                     list(array.events) + list(out.events))
        return self._launch("clreduce_scan", lambda q, num_wait, wait, done:
                            self._lib.clreduce_scan(
                                self._h, q, op_code, type_code, kind_code, variant_code,
                                in_mem, in_offset, array.size, out_mem, out_offset, num_wait,
                                wait, done), queue, wait_for, (array, out), out)


# Last: these modules read the functions above.
from ._default import (default_context, dot, dot_rows, dot_scan, dot_segments,  # noqa: E402
                       reduce, reduce_multi, reduce_rows, reduce_rows_multi, reduce_segments,
                       reduce_segments_multi, scan, scan_rows)
from ._operator import Operator  # noqa: E402
from ._parts import combine_partials, partials, reduce_parts, tile_elements  # noqa: E402
