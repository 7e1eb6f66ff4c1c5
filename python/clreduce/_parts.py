"""One reduction over an array in parts on several devices, and its two steps
for parts in other processes (clreduce/parts.h)."""

import ctypes

import numpy as np

from . import _lib, _results

# The package's shared functions; this module is imported at the end of __init__.py,
# once they are defined.
from . import _TYPES, _check, _device_range, _invalid, _lookup


def _part(context, arrays, op, what):
    """A clreduce_part of (context, array) or, for dot, (context, x, y),
    after the arrays' pending events."""
    import pyopencl as cl
    x, y = arrays[0], arrays[1] if len(arrays) > 1 else None
    if (op == "dot") != (y is not None):
        raise _invalid(f"{what}: dot takes (context, x, y), the other operators "
                       f"(context, array)")
    if y is not None and (y.dtype != x.dtype or y.size != x.size):
        raise _invalid(f"{what}: y has {y.size} elements of {y.dtype.name}, x {x.size} of "
                       f"{x.dtype.name}")
    queue = getattr(x, "queue", None)
    if queue is None:
        raise _invalid(f"{what}: the array has no command queue")
    events = list(getattr(x, "events", None) or []) + list(getattr(y, "events", None) or [])
    if events:
        cl.wait_for_events(events)
    mem, offset = _device_range(x, f"{what} array")
    mem2, offset2 = _device_range(y, f"{what} y") if y is not None else (None, 0)
    return _lib.Part(context._h, queue.int_ptr, mem, offset, x.size, mem2, offset2)


def reduce_parts(parts, op="sum", variant="auto"):
    """Reduces pyopencl arrays on several devices as one array, laid end to
    end in order: parts is a sequence of (Context, array) pairs, each array
    on its context's device and queue, all of one dtype (for op "dot",
    (Context, x, y) triples). Every part runs on its device at once; the
    result is reduce()'s for the whole array: min, max, argmin/argmax
    (indices into the whole array), minmax and integer sums as one device
    gives them, floating-point sums the parts' results added in order, and
    in reproducible contexts, with parts of whole tiles (tile_elements()),
    the sums' and dot's bits of one device over the whole array. Blocking."""
    parts = list(parts)
    if not parts:
        raise _invalid("parts is empty")
    dtype = parts[0][1].dtype
    if dtype not in _TYPES:
        raise _invalid(f"parts of {dtype.name}: reduce_parts() takes "
                       f"{', '.join(t.name for t in _TYPES)}")
    structs = (_lib.Part * len(parts))()
    for i, entry in enumerate(parts):
        if len(entry) not in (2, 3) or entry[1].dtype != dtype:
            raise _invalid(f"part {i}: a (Context, array) pair of {dtype.name} arrays, or "
                           f"(Context, x, y) for dot")
        structs[i] = _part(entry[0], entry[1:], op, f"part {i}")
    layout = _results.result_dtype(op, dtype)
    if layout is None:
        raise _invalid(f"{op} of {dtype.name} has no result over parts")
    result = np.zeros(1, layout)
    lib = _lib.library()
    _check(lib.clreduce_reduce_parts(structs, len(parts), _lookup("op", "op", op), _TYPES[dtype],
                                     _lookup("variant", "variant", variant),
                                     result.ctypes.data),
           "clreduce_reduce_parts", parts[0][0]._h)
    return _results.unpack_one(op, result)


def partials(context, array, op="sum", variant="auto", y=None):
    """The partial results of one part (a pyopencl array on context's
    device; for op "dot" x and y), as a NumPy array of
    result_dtype(op, dtype): what a process sends to the others, which pass
    every part's partials, in part order, to combine_partials(). Blocking."""
    part = _part(context, (array,) if y is None else (array, y), op, "the part")
    op_code = _lookup("op", "op", op)
    variant_code = _lookup("variant", "variant", variant)
    if array.dtype not in _TYPES:
        raise _invalid(f"partials() takes {', '.join(t.name for t in _TYPES)}, not "
                       f"{array.dtype.name}")
    layout = _results.result_dtype(op, array.dtype)
    lib = _lib.library()
    out = np.zeros(lib.clreduce_partials_count(context._h, op_code, _TYPES[array.dtype],
                                               array.size), layout)
    _check(lib.clreduce_partials(ctypes.byref(part), op_code, _TYPES[array.dtype],
                                 variant_code, out.ctypes.data), "clreduce_partials", context._h)
    return out


def combine_partials(context, partials, counts, dtype, op="sum", variant="auto"):
    """The result over parts of counts[i] elements of dtype from their
    partials (partials() of each part, concatenated in part order):
    reduce_parts()'s result, the same bits wherever it is combined.
    Blocking."""
    dtype = np.dtype(dtype)
    if dtype not in _TYPES:
        raise _invalid(f"combine_partials() takes {', '.join(t.name for t in _TYPES)}, not "
                       f"{dtype.name}")
    layout = _results.result_dtype(op, dtype)
    partials = np.asarray(partials)

    def fields(t):  # a record's (name, type) pairs, or the type itself
        return [(n, t.fields[n][0]) for n in t.names] if t.names else t

    if layout is None or fields(partials.dtype) != fields(layout):
        raise _invalid(f"partials of {partials.dtype}: {op} of {dtype.name} gives {layout}")
    # the C layout, padding included (np.concatenate packs records)
    partials = np.ascontiguousarray(partials.astype(layout, copy=False))
    counts = np.ascontiguousarray(counts, dtype=np.uintp)
    result = np.zeros(1, layout)
    _check(_lib.library().clreduce_combine_partials(
        context._h, _lookup("op", "op", op), _TYPES[dtype], _lookup("variant", "variant", variant),
        partials.ctypes.data, counts.ctypes.data_as(ctypes.POINTER(ctypes.c_size_t)), counts.size,
        result.ctypes.data), "clreduce_combine_partials", context._h)
    return _results.unpack_one(op, result)


def tile_elements(dtype):
    """The elements of a tile of the reproducible order: every part but the
    last that holds elements must hold a multiple of them for reduce_parts()
    in reproducible contexts to give one device's bits."""
    return _lib.REPRODUCIBLE_TILE_BYTES // np.dtype(dtype).itemsize
