"""User-defined operators: clreduce_operator_create() and the reductions and
scans of host arrays with them (clreduce/operator.h, clreduce/scan.h)."""

import re
from ctypes import byref, c_void_p

import numpy as np

from . import _lib

# The package's shared functions; this module is imported at the end of __init__.py,
# once they are defined.
from . import (_TYPES, _Handle, _check, _host_array, _invalid, _lookup, _offsets,
               default_context)

# OpenCL C's scalar types and the NumPy dtypes of the same layout.
_SCALARS = {
    "char": np.int8, "uchar": np.uint8, "short": np.int16, "ushort": np.uint16,
    "int": np.int32, "uint": np.uint32, "long": np.int64, "ulong": np.uint64,
    "float": np.float32, "double": np.float64,
}
# The storage types (clreduce_type values), which map sees as floats: half
# from float16 arrays, bfloat16 from arrays of its bits (uint16) or of a
# dtype named "bfloat16" (ml_dtypes').
_HALF, _BFLOAT16 = 6, 7

_BUILT_IN = re.compile(r"^(char|uchar|short|ushort|int|uint|long|ulong|float|double)"
                       r"(2|4|8|16)?$")


def _accumulator_layout(acc_type, acc_dtype, acc_align):
    """(dtype, size, alignment) of the accumulator: from acc_dtype where it
    is given, else from acc_type when that is one of OpenCL C's scalar or
    vector types (a vector of n lanes: a result is an array of n)."""
    if acc_dtype is None:
        match = _BUILT_IN.match(acc_type) if isinstance(acc_type, str) else None
        if not match:
            raise _invalid(f"acc_type {acc_type!r} is not one of OpenCL C's scalar or vector "
                           "types: pass acc_dtype, the NumPy dtype of its layout")
        scalar = np.dtype(_SCALARS[match.group(1)])
        lanes = int(match.group(2) or 1)
        dtype = scalar if lanes == 1 else np.dtype((scalar, (lanes,)))
        # an OpenCL vector is aligned to its size
        return dtype, dtype.itemsize, acc_align or dtype.itemsize
    try:
        dtype = np.dtype(acc_dtype)
    except TypeError:
        raise _invalid(f"acc_dtype: {acc_dtype!r} is not a NumPy dtype") from None
    return dtype, dtype.itemsize, acc_align or dtype.alignment


def _input_type(dtype):
    """(clreduce_type, the dtype of the input arrays) of an operator's dtype:
    one of clreduce's six, float16, or "bfloat16"."""
    if isinstance(dtype, str) and dtype == "bfloat16":
        return _BFLOAT16, np.dtype(np.uint16)
    try:
        dtype = np.dtype(dtype)
    except TypeError:
        dtype = None
    if dtype is not None and dtype.name == "bfloat16" and dtype.itemsize == 2:
        return _BFLOAT16, np.dtype(np.uint16)
    if dtype is not None and dtype == np.dtype(np.float16):
        return _HALF, dtype
    code = _TYPES.get(dtype) if dtype is not None else None
    if code is None:
        raise _invalid(f"dtype {dtype!r}: clreduce takes float32, float64, int32, uint32, "
                       "int64 or uint64, and float16 or \"bfloat16\" for operators")
    return code, dtype


def _text(value, what, required=True):
    if value is None and not required:
        return None
    if not isinstance(value, str) or (required and not value):
        raise _invalid(f"{what} must be {'a non-empty' if required else 'a'} string of "
                       "OpenCL C")
    return value.encode("utf-8")


class Operator(_Handle):
    """An operator written in OpenCL C, compiled for one Context
    (clreduce_operator_create): the reduction of x (and y, with inputs=2) is

        combine(... combine(map(x[0], 0), map(x[1], 1)) ..., map(x[n-1], n-1))

    grouped as the kernels choose, so combine must be associative.

    name: an identifier, which build errors and kernels are named after.
    dtype: the NumPy dtype of the input(s): x (and y) in map. Also the
        storage types: np.float16, and "bfloat16" (arrays of its bits as
        uint16, or of a NumPy dtype named bfloat16, such as ml_dtypes'),
        whose elements map sees as floats.
    acc_type: the accumulator's OpenCL C type ("float", "long2", or a type
        acc_source defines). acc_dtype: the NumPy dtype of its layout on the
        device, e.g. np.dtype([("lo", "f4"), ("hi", "f4"), ("n", "u4")],
        align=True) for a struct; left out for OpenCL C's scalar and vector
        types. acc_align: the accumulator's alignment where NumPy's differs
        (a struct holding an OpenCL vector). The library checks size and
        alignment against the device's.
    map: an expression of acc_type from x (and y) and i, the element's
        index (ulong). combine: an expression of acc_type from accumulators
        a and b (a holding the earlier elements). identity: an expression
        that combines with anything to leave it unchanged (None: none, and
        then reductions of no element and exclusive scans are refused).
    acc_source: OpenCL C placed before the rest (typedefs, functions).
    commutative: whether combine also commutes (the kernels may then
        reorder freely, which is faster on GPUs).
    context: the Context to compile for (default: default_context()).

    reduce() returns one accumulator, scan() one per element, as values of
    acc_dtype. The operator holds a reference to its context; close() (or
    the end of a `with` block, or the context's close()) releases it.
    """

    def __init__(self, name, dtype, acc_type, map, combine, identity=None, *, acc_source=None,
                 acc_dtype=None, acc_align=None, inputs=1, commutative=False, context=None):
        context = context if context is not None else default_context()
        input_type, self.dtype = _input_type(dtype)
        self._storage = input_type in (_HALF, _BFLOAT16)
        if inputs not in (1, 2):
            raise _invalid(f"inputs must be 1 or 2, not {inputs!r}")
        self.inputs = inputs
        self.acc_dtype, size, align = _accumulator_layout(acc_type, acc_dtype, acc_align)
        self._desc = _lib.OperatorDesc(
            name=_text(name, "name"), input_type=input_type, inputs=inputs,
            acc_type=_text(acc_type, "acc_type"),
            acc_source=_text(acc_source, "acc_source", False), acc_size=size, acc_align=align,
            identity=_text(identity, "identity", False), map=_text(map, "map"),
            combine=_text(combine, "combine"), commutative=1 if commutative else 0)
        handle = c_void_p()
        lib = _lib.library()
        _check(lib.clreduce_operator_create(context._h, byref(self._desc), byref(handle)),
               "clreduce_operator_create", context._h)
        self._lib = lib
        self._context = context
        self._handle = handle
        context._operators.add(self)

    # -- lifetime ---------------------------------------------------------
    _what = "operator"

    def close(self):
        """Releases the operator (its compiled programs); harmless twice."""
        super().close()

    def _release(self, handle):
        self._lib.clreduce_operator_release(handle)

    # -- calls ------------------------------------------------------------
    def _host_operand(self, array, what):
        """array as a contiguous NumPy array; of bfloat16, as its bits."""
        if self._storage:
            array = np.asarray(array)
            if array.dtype.name == "bfloat16" and array.dtype.itemsize == 2:
                array = array.view(np.uint16)
            return np.ascontiguousarray(array)
        return _host_array(array, what)

    def _operands(self, x, y):
        """x and y as contiguous arrays of the operator's dtype and one size
        (y None for one input)."""
        x = self._host_operand(x, "x")
        if x.dtype != self.dtype:
            raise _invalid(f"x has dtype {x.dtype.name}, the operator takes {self.dtype.name}")
        if (y is None) != (self.inputs == 1):
            raise _invalid(f"the operator takes {self.inputs} input(s): "
                           + ("pass y" if y is None else "y must be left out"))
        if y is None:
            return x, None
        y = self._host_operand(y, "y")
        if y.dtype != self.dtype or y.size != x.size:
            raise _invalid(f"y has {y.size} elements of {y.dtype.name}, x {x.size} of "
                           f"{x.dtype.name}")
        return x, y

    def _row_operands(self, x, y):
        """x and y as _operands() gives them, for calls on rows: x must be
        2-D and y, where given, of its shape; with x's rows and length."""
        x2 = np.asarray(x)
        if x2.ndim != 2:
            raise _invalid(f"x must have 2 dimensions, not {x2.ndim}")
        if y is not None and np.shape(y) != x2.shape:
            raise _invalid(f"y has shape {np.shape(y)}, x {x2.shape}")
        rows, length = x2.shape
        x, y = self._operands(x2, y)
        return x, y, rows, length

    def reduce(self, x, y=None, variant="auto"):
        """The reduction of the elements of x (and y) in C order: one value
        of acc_dtype (a NumPy scalar, a record, or an array for a vector).
        Empty: the identity. Blocking."""
        x, y = self._operands(x, y)
        variant_code = _lookup("variant", "variant", variant)
        result = np.empty(1, self.acc_dtype)
        handle, context = self._h, self._context
        _check(self._lib.clreduce_reduce_custom_host(
            context._h, handle, variant_code, x.ctypes.data,
            None if y is None else y.ctypes.data, x.size, result.ctypes.data),
            "clreduce_reduce_custom_host", context._h)
        return result[0]

    def reduce_rows(self, x, y=None):
        """The reduction of every row of the 2-D array x (and of the same
        rows of y): an array of x.shape[0] values of acc_dtype; i in map
        counts from each row's start. Rows of length 0 give the identity.
        Blocking."""
        x, y, rows, length = self._row_operands(x, y)
        out = np.empty(rows, self.acc_dtype)
        if rows == 0:
            return out
        handle, context = self._h, self._context
        _check(self._lib.clreduce_reduce_rows_custom_host(
            context._h, handle, x.ctypes.data, None if y is None else y.ctypes.data, rows,
            length, length, out.ctypes.data), "clreduce_reduce_rows_custom_host", context._h)
        return out

    def reduce_segments(self, x, offsets, y=None):
        """The reduction of every segment x[offsets[k]:offsets[k+1]] (and of
        the same segments of y): an array of len(offsets) - 1 values of
        acc_dtype; i in map counts from each segment's start. Empty segments
        give the identity (refused for an operator without one).
        Blocking."""
        x, y = self._operands(x, y)
        offsets = _offsets(offsets)
        segments = offsets.size - 1
        out = np.empty(segments, self.acc_dtype)
        if segments == 0:
            return out
        handle, context = self._h, self._context
        data = x if x.size else np.empty(1, x.dtype)
        data2 = None if y is None else (y if y.size else np.empty(1, y.dtype))
        _check(self._lib.clreduce_reduce_segments_custom_host(
            context._h, handle, data.ctypes.data, None if data2 is None else data2.ctypes.data,
            x.size, offsets.ctypes.data, _TYPES[offsets.dtype], segments, out.ctypes.data),
            "clreduce_reduce_segments_custom_host", context._h)
        return out

    def scan(self, x, y=None, kind="inclusive", variant="auto"):
        """The scan of the elements of x (and y) in C order, combined in
        their order: an array of x.size values of acc_dtype; "inclusive":
        element j holds the reduction of elements 0 to j; "exclusive": of
        elements 0 to j - 1 (the identity first). Blocking."""
        x, y = self._operands(x, y)
        kind_code = _lookup("scan_kind", "scan kind", kind)
        variant_code = _lookup("scan_variant", "scan variant", variant)
        handle, context = self._h, self._context
        out = np.empty(x.size, self.acc_dtype)
        if x.size == 0:
            return out
        _check(self._lib.clreduce_scan_custom_host(
            context._h, handle, kind_code, variant_code, x.ctypes.data,
            None if y is None else y.ctypes.data, x.size, out.ctypes.data),
            "clreduce_scan_custom_host", context._h)
        return out

    def scan_rows(self, x, y=None, kind="inclusive"):
        """The scan of every row of the 2-D array x (and of the same rows
        of y), each combined in its order: an array of x.shape values of
        acc_dtype; i in map counts from each row's start. "inclusive":
        element [r, j] holds the reduction of row r's elements 0 to j;
        "exclusive": of elements 0 to j - 1 (the identity first).
        Blocking."""
        x, y, rows, length = self._row_operands(x, y)
        kind_code = _lookup("scan_kind", "scan kind", kind)
        out = np.empty((rows, length), self.acc_dtype)
        if out.size == 0:
            return out
        handle, context = self._h, self._context
        _check(self._lib.clreduce_scan_rows_custom_host(
            context._h, handle, kind_code, x.ctypes.data, None if y is None else y.ctypes.data,
            rows, length, length, length, out.ctypes.data), "clreduce_scan_rows_custom_host",
            context._h)
        return out
