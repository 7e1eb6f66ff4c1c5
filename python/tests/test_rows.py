"""Reductions of rows and segments through NumPy arrays against NumPy
references: every type and operator, padded rows, empty rows and segments,
bad offsets."""

import numpy as np
import pytest

import clreduce

from test_results import DTYPES, FLOAT_TOLERANCE, OPS, identity, random_array


def reference(x, op, axis=None):
    """(expected, tolerance) of op over x along axis; tolerance None where the
    result must be exact."""
    if op == "sum" and x.dtype.kind == "f":
        expected = np.sum(x.astype(np.longdouble), axis=axis)
        return expected, FLOAT_TOLERANCE[x.dtype] * np.sum(np.abs(x).astype(np.longdouble),
                                                             axis=axis)
    if op == "sum":
        return np.sum(x, axis=axis, dtype=x.dtype), None
    return (np.min if op == "min" else np.max)(x, axis=axis), None


def assert_close(got, expected, tolerance, what):
    if tolerance is None:
        np.testing.assert_array_equal(got, np.asarray(expected, got.dtype), err_msg=what)
        return
    bad = ~(np.abs(got.astype(np.longdouble) - np.asarray(expected)) <= tolerance)
    assert not bad.any(), f"{what}: first wrong element {int(np.argmax(bad))}"


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("shape", [(1, 1), (33, 257), (1000, 3)])
def test_rows(ctx, dtype, op, shape):
    if np.dtype(dtype) == np.float64 and ctx.check_support(dtype) is False:
        pytest.skip("no fp64")
    x = random_array(dtype, shape[0] * shape[1], seed=shape[0] * 7919 + shape[1]).reshape(shape)
    expected, tolerance = reference(x, op, axis=1)
    assert_close(ctx.reduce_rows(x, op), expected, tolerance, f"{shape} {op}")


@pytest.mark.parametrize("op", OPS)
def test_padded_rows_are_read_in_place(ctx, op):
    wide = random_array(np.float32, 40 * 100, seed=5).reshape(40, 100)
    view = wide[:, 3:70]  # rows of 67 elements, 100 apart
    expected, tolerance = reference(np.ascontiguousarray(view), op, axis=1)
    assert_close(ctx.reduce_rows(view, op), expected, tolerance, "padded rows")
    columns = wide[:, ::2]  # not unit-stride: copied first
    expected, tolerance = reference(np.ascontiguousarray(columns), op, axis=1)
    assert_close(ctx.reduce_rows(columns, op), expected, tolerance, "strided rows")


@pytest.mark.parametrize("op", OPS)
def test_empty_rows_give_the_identity(ctx, op):
    got = ctx.reduce_rows(np.empty((4, 0), np.int32), op)
    np.testing.assert_array_equal(got, np.full(4, identity(op, np.int32)))
    assert ctx.reduce_rows(np.empty((0, 5), np.float32), op).shape == (0,)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("offsets_dtype", [np.uint32, np.int64])
def test_segments(ctx, dtype, op, offsets_dtype):
    rng = np.random.default_rng(11)
    lengths = rng.choice([0, 0, 1, 2, 31, 33, 255, 1025, 20000], size=60)
    offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(offsets_dtype)
    x = random_array(dtype, int(offsets[-1]), seed=3)
    got = ctx.reduce_segments(x, offsets, op)
    assert got.shape == (60,)
    for i in range(60):
        part = x[int(offsets[i]):int(offsets[i + 1])]
        if part.size == 0:
            expected, tolerance = identity(op, dtype), None
        else:
            expected, tolerance = reference(part, op)
        assert_close(got[i:i + 1], np.asarray([expected]), tolerance, f"segment {i}")


def test_bad_offsets(ctx):
    x = np.arange(10, dtype=np.float32)
    with pytest.raises(clreduce.InvalidArgumentError, match="offsets"):
        ctx.reduce_segments(x, [0, 5, 3, 10])
    with pytest.raises(clreduce.InvalidArgumentError):
        ctx.reduce_segments(x, [0, 11])
    with pytest.raises(clreduce.InvalidArgumentError, match="below 0"):
        ctx.reduce_segments(x, np.array([-1, 3]))
    with pytest.raises(clreduce.InvalidArgumentError, match="integers"):
        ctx.reduce_segments(x, [0.0, 3.0])
    with pytest.raises(clreduce.InvalidArgumentError, match="2 dimensions"):
        ctx.reduce_rows(x)
