"""The results of each operator: the NumPy dtype of the C layout
(clreduce/results.h) a call writes, and the Python value read from it."""

from typing import NamedTuple

import numpy as np

# The operators whose result is one element: of the input's dtype, or for
# sum_abs of a signed integer of its unsigned counterpart (the C library sums
# |x| as unsigned, so that |INT32_MIN| is 2^31 and the sum wraps modulo 2^32).
_ONE_ELEMENT = ("sum", "min", "max", "sum_squares", "sum_abs", "norm2", "dot")
_UNSIGNED = {np.dtype(np.int32): np.dtype(np.uint32), np.dtype(np.int64): np.dtype(np.uint64)}


class ArgResult(NamedTuple):
    """argmin and argmax: the extreme value and its index (int64; -1 where
    there was no element, the value then being min's or max's identity)."""
    value: object
    index: object


class MinMax(NamedTuple):
    """minmax: the minimum and the maximum."""
    min: object
    max: object


class MeanVar(NamedTuple):
    """mean_var: the mean, m2 = the sum of (x - mean)^2, and the count (int64)
    of the elements, as the library computes them (Chan, Golub and LeVeque's
    pairwise update). `var` is the population variance m2 / count, as
    numpy.var gives it; `std` its square root; `sample_var` is
    m2 / (count - 1) (numpy.var(ddof=1)). Where there are too few elements
    for them they are NaN."""
    mean: object
    m2: object
    count: object

    def _m2_over(self, ddof):
        m2 = np.asarray(self.m2)
        divisor = np.asarray(self.count) - ddof
        out = np.full(m2.shape, np.nan, m2.dtype)
        np.divide(m2, divisor, out=out, where=divisor > 0, casting="unsafe")
        return out[()]

    @property
    def var(self):
        return self._m2_over(0)

    @property
    def std(self):
        return np.sqrt(self.var)

    @property
    def sample_var(self):
        return self._m2_over(1)


def result_dtype(op, dtype):
    """The NumPy dtype of one result of op on elements of dtype, laid out as
    the C library writes it; None where the library has no such result
    (norm2 and mean_var of integers)."""
    dtype = np.dtype(dtype)
    if dtype == np.float16:  # a storage type: sum, min and max, in float32
        return np.dtype(np.float32) if op in ("sum", "min", "max") else None
    if op == "sum_abs":
        return _UNSIGNED.get(dtype, dtype)
    if op in _ONE_ELEMENT:
        return None if op == "norm2" and dtype.kind != "f" else dtype
    if op in ("argmin", "argmax"):
        return np.dtype({"names": ["value", "index"], "formats": [dtype, np.uint64],
                         "offsets": [0, 8], "itemsize": 16})
    if op == "minmax":
        return np.dtype([("min", dtype), ("max", dtype)])
    if op == "mean_var" and dtype.kind == "f":
        return np.dtype({"names": ["mean", "m2", "count"],
                         "formats": [dtype, dtype, np.uint64],
                         "offsets": [0, dtype.itemsize, 2 * dtype.itemsize],
                         "itemsize": 16 if dtype.itemsize == 4 else 24})
    return None


def scan_dtype(dtype):
    """The dtype of what a scan of sum, min or max writes for elements of
    dtype: dtype itself, but float32 for float16."""
    dtype = np.dtype(dtype)
    return np.dtype(np.float32) if dtype == np.float16 else dtype


def unpack(op, raw):
    """What the Python functions return for results `raw` (an array of
    result_dtype(op, ...)): raw itself for one element per result, else a
    named tuple of arrays, one per field."""
    if op in _ONE_ELEMENT:
        return raw
    if op in ("argmin", "argmax"):
        # UINT64_MAX, the index of no element, becomes -1
        return ArgResult(raw["value"].copy(), raw["index"].astype(np.int64))
    if op == "minmax":
        return MinMax(raw["min"].copy(), raw["max"].copy())
    return MeanVar(raw["mean"].copy(), raw["m2"].copy(), raw["count"].astype(np.int64))


def unpack_one(op, raw):
    """As unpack(), for one result: NumPy scalars in place of arrays."""
    value = unpack(op, raw)
    if isinstance(value, tuple):
        return type(value)(*(field[0] for field in value))
    return value[0]
