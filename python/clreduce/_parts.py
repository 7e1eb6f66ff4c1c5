"""One reduction over an array in parts on several devices (clreduce/parts.h)."""

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
    the sums' bits of one device over the whole array. Blocking."""
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


def tile_elements(dtype):
    """The elements of a tile of the reproducible order: every part but the
    last that holds elements must hold a multiple of them for reduce_parts()
    in reproducible contexts to give one device's bits."""
    return _lib.REPRODUCIBLE_TILE_BYTES // np.dtype(dtype).itemsize
