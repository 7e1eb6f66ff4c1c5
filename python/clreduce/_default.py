"""The functions of the package on one Context shared by them all,
default_context(), created on first use."""

import threading

# This module is imported at the end of __init__.py, once Context is defined.
from . import Context

_default_lock = threading.Lock()
_default = None


def default_context():
    """One Context() shared by the functions below, created on first use."""
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


def dot(x, y, variant="auto"):
    """Context.dot() on default_context()."""
    return default_context().dot(x, y, variant)


def reduce_multi(array, ops, variant="auto"):
    """Context.reduce_multi() on default_context()."""
    return default_context().reduce_multi(array, ops, variant)


def reduce_rows_multi(matrix, ops):
    """Context.reduce_rows_multi() on default_context()."""
    return default_context().reduce_rows_multi(matrix, ops)


def reduce_rows(matrix, op="sum"):
    """Context.reduce_rows() on default_context()."""
    return default_context().reduce_rows(matrix, op)


def scan_rows(matrix, op="sum", kind="inclusive"):
    """Context.scan_rows() on default_context()."""
    return default_context().scan_rows(matrix, op, kind)


def reduce_segments(array, offsets, op="sum"):
    """Context.reduce_segments() on default_context()."""
    return default_context().reduce_segments(array, offsets, op)


def reduce_segments_multi(array, offsets, ops):
    """Context.reduce_segments_multi() on default_context()."""
    return default_context().reduce_segments_multi(array, offsets, ops)


def dot_rows(x, y):
    """Context.dot_rows() on default_context()."""
    return default_context().dot_rows(x, y)


def dot_segments(x, y, offsets):
    """Context.dot_segments() on default_context()."""
    return default_context().dot_segments(x, y, offsets)


def dot_scan(x, y, kind="inclusive"):
    """Context.dot_scan() on default_context()."""
    return default_context().dot_scan(x, y, kind)
