"""Scans of rows through NumPy arrays against NumPy references: every type,
operator and kind, awkward shapes, padded and strided views."""

import numpy as np
import pytest

from test_results import DTYPES, FLOAT_TOLERANCE, OPS, identity, random_array

KINDS = ["inclusive", "exclusive"]


def reference(x, op, kind):
    """(expected, tolerance) of the scan of every row of x; tolerance None
    where the result must be exact."""
    tolerance = None
    if op == "sum" and x.dtype.kind == "f":
        expected = np.cumsum(x.astype(np.longdouble), axis=1)
        tolerance = FLOAT_TOLERANCE[x.dtype] * np.cumsum(np.abs(x).astype(np.longdouble),
                                                         axis=1)
    elif op == "sum":
        with np.errstate(over="ignore"):
            expected = np.cumsum(x, axis=1, dtype=x.dtype)  # wraps around
    else:
        expected = (np.minimum if op == "min" else np.maximum).accumulate(x, axis=1)
    if kind == "exclusive":
        first = np.full((x.shape[0], 1), identity(op, x.dtype), expected.dtype)
        expected = np.concatenate([first, expected[:, :-1]], axis=1)
        if tolerance is not None:
            tolerance = np.concatenate([np.zeros((x.shape[0], 1), tolerance.dtype),
                                        tolerance[:, :-1]], axis=1)
    return expected, tolerance


def check(got, x, op, kind, what):
    expected, tolerance = reference(np.ascontiguousarray(x), op, kind)
    assert got.shape == x.shape and got.dtype == x.dtype, what
    if tolerance is None:
        np.testing.assert_array_equal(got, expected.astype(x.dtype), err_msg=what)
        return
    bad = ~(np.abs(got.astype(np.longdouble) - expected) <= tolerance)
    first = np.unravel_index(np.argmax(bad), bad.shape)
    assert not bad.any(), f"{what}: first wrong element {first}"


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("shape", [(1, 1), (3, 31), (33, 257), (1000, 3), (2, 4097)])
def test_scan_rows(ctx, dtype, op, kind, shape):
    if np.dtype(dtype) == np.float64 and ctx.check_support(dtype) is False:
        pytest.skip("no fp64")
    x = random_array(dtype, shape[0] * shape[1], seed=shape[0] * 131 + shape[1]).reshape(shape)
    check(ctx.scan_rows(x, op, kind), x, op, kind, f"{shape} {op} {kind}")


@pytest.mark.parametrize("op", OPS)
def test_views_are_scanned_as_their_rows(ctx, op):
    wide = random_array(np.int64, 40 * 100, seed=11).reshape(40, 100)
    check(ctx.scan_rows(wide[:, 3:70], op), wide[:, 3:70], op, "inclusive", "padded rows")
    check(ctx.scan_rows(wide[:, ::3], op, "exclusive"), wide[:, ::3], op, "exclusive",
          "strided rows")
    assert ctx.scan_rows(np.empty((0, 5), np.float32), op).shape == (0, 5)
    assert ctx.scan_rows(np.empty((4, 0), np.float32), op).shape == (4, 0)


def test_bad_input(ctx):
    import clreduce
    with pytest.raises(clreduce.InvalidArgumentError):
        ctx.scan_rows(np.ones(5, np.float32))
    with pytest.raises(clreduce.Error):
        ctx.scan_rows(np.ones((2, 2), np.float32), op="median")
    with pytest.raises(clreduce.UnsupportedError):
        ctx.scan_rows(np.ones((2, 2), np.int32), op="mean_var")
    with pytest.raises(clreduce.Error):
        ctx.scan_rows(np.ones((2, 2), np.float32), kind="sideways")
