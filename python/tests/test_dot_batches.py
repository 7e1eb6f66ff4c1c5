"""Dot products of rows and segments through NumPy arrays against NumPy
references: every type, padded rows, empty rows and segments, bad input."""

import numpy as np
import pytest

import clreduce

from test_operators import data_for, skip_unsupported
from test_results import DTYPES, FLOAT_TOLERANCE


def check(got, x, y, starts, lengths, what):
    """got[i] against the dot product of x and y over [starts[i], + lengths[i])."""
    assert got.dtype == x.dtype and got.shape == (len(starts),), what
    for i, (s, n) in enumerate(zip(starts, lengths)):
        xs, ys = x[s:s + n], y[s:s + n]
        if x.dtype.kind != "f":
            assert got[i] == np.sum(xs * ys, dtype=x.dtype), f"{what}: result {i}"
            continue
        products = xs.astype(np.longdouble) * ys.astype(np.longdouble)
        bound = FLOAT_TOLERANCE[x.dtype] * np.sum(np.abs(products))
        assert abs(np.longdouble(got[i]) - np.sum(products)) <= bound, f"{what}: result {i}"


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(1, 1), (33, 257), (1000, 3), (2, 100003)])
def test_rows(ctx, dtype, shape):
    skip_unsupported(ctx, dtype, "dot")
    rows, length = shape
    x = data_for("dot", dtype, rows * length, seed=rows).reshape(shape)
    y = data_for("dot", dtype, rows * length, seed=length).reshape(shape)
    starts = [r * length for r in range(rows)]
    check(ctx.dot_rows(x, y), x.reshape(-1), y.reshape(-1), starts, [length] * rows, shape)
    check(clreduce.dot_rows(x, x), x.reshape(-1), x.reshape(-1), starts, [length] * rows,
          f"{shape}, y = x")


def test_padded_and_strided_rows(ctx):
    wide_x = data_for("dot", np.float32, 40 * 100, seed=3).reshape(40, 100)
    wide_y = data_for("dot", np.float32, 40 * 100, seed=4).reshape(40, 100)
    for what, (x, y) in {"padded": (wide_x[:, 3:70], wide_y[:, 3:70]),
                         "pitches differ": (wide_x[:, 3:70], wide_y[:, :67].copy()),
                         "strided": (wide_x[:, ::2], wide_y[:, ::2])}.items():
        cx, cy = np.ascontiguousarray(x), np.ascontiguousarray(y)
        n = cx.shape[1]
        check(ctx.dot_rows(x, y), cx.reshape(-1), cy.reshape(-1),
              [r * n for r in range(40)], [n] * 40, what)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64])
def test_segments(ctx, dtype):
    skip_unsupported(ctx, dtype, "dot")
    rng = np.random.default_rng(11)
    lengths = np.concatenate([rng.integers(0, 4, 3000), [0, 70000, 0], rng.integers(0, 900, 90)])
    offsets = np.concatenate([[0], np.cumsum(lengths)])
    x = data_for("dot", dtype, int(offsets[-1]), seed=12)
    y = data_for("dot", dtype, int(offsets[-1]), seed=13)
    for kind in (np.uint32, np.uint64, np.int64):
        check(ctx.dot_segments(x, y, offsets.astype(kind)), x, y, offsets[:-1], lengths,
              np.dtype(kind).name)
    check(clreduce.dot_segments(x, y, [0, x.size]), x, y, [0], [x.size], "one segment")


def test_nothing_to_multiply(ctx):
    np.testing.assert_array_equal(ctx.dot_rows(np.empty((4, 0)), np.empty((4, 0))),
                                  np.zeros(4))
    assert ctx.dot_rows(np.empty((0, 3)), np.empty((0, 3))).shape == (0,)
    got = ctx.dot_segments(np.empty(0, np.int32), np.empty(0, np.int32), [0, 0, 0])
    np.testing.assert_array_equal(got, np.zeros(2, np.int32))


def test_bad_input(ctx):
    x = np.ones((3, 4), np.float32)
    with pytest.raises(clreduce.InvalidArgumentError, match="one shape and dtype"):
        ctx.dot_rows(x, np.ones((3, 5), np.float32))
    with pytest.raises(clreduce.InvalidArgumentError, match="one shape and dtype"):
        ctx.dot_rows(x, x.astype(np.float64))
    with pytest.raises(clreduce.InvalidArgumentError, match="one shape and dtype"):
        ctx.dot_rows(x.reshape(-1), x.reshape(-1))
    with pytest.raises(clreduce.InvalidArgumentError, match="one dtype and size"):
        ctx.dot_segments(np.ones(5), np.ones(4), [0, 4])
    with pytest.raises(clreduce.InvalidArgumentError, match="decrease"):
        ctx.dot_segments(np.ones(5), np.ones(5), [0, 3, 2, 5])
    with pytest.raises(clreduce.InvalidArgumentError, match="past count"):
        ctx.dot_segments(np.ones(5), np.ones(5), [0, 6])
    with pytest.raises(clreduce.InvalidArgumentError):
        ctx.dot_rows(x.astype(np.float16), x.astype(np.float16))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("kind", ["inclusive", "exclusive"])
def test_scan(ctx, dtype, kind):
    skip_unsupported(ctx, dtype, "dot")
    x = data_for("dot", dtype, 4097, seed=21)
    y = data_for("dot", dtype, 4097, seed=22)
    got = ctx.dot_scan(x, y, kind)
    products = x * y  # rounded to the dtype, integers wrapped, as the library's
    exact = np.cumsum(products.astype(np.longdouble) if x.dtype.kind == "f" else products,
                      dtype=None if x.dtype.kind == "f" else x.dtype)
    if kind == "exclusive":
        exact = np.concatenate([np.zeros(1, exact.dtype), exact[:-1]])
    assert got.dtype == x.dtype and got.shape == x.shape
    if x.dtype.kind != "f":
        np.testing.assert_array_equal(got, exact.astype(x.dtype))
    else:
        bound = FLOAT_TOLERANCE[x.dtype] * np.cumsum(np.abs(products).astype(np.longdouble))
        assert (np.abs(got.astype(np.longdouble) - exact) <= bound + 1e-30).all()
    np.testing.assert_array_equal(clreduce.dot_scan(x.reshape(17, -1), y, kind), got)
    with pytest.raises(clreduce.InvalidArgumentError, match="one dtype and size"):
        ctx.dot_scan(x, y[:-1])
