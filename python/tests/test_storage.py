"""float16 arrays through the built-in sum, min and max (reduce, rows,
segments, scans), read as 2 bytes an element and reduced in float32,
against NumPy references on data whose float32 sums are exact; and the
operators that refuse them."""

import numpy as np
import pytest

import clreduce

SIZES = [1, 31, 33, 255, 257, 4097, 2**20 + 7]


def quarters(size, seed, bound=15):
    """float16 multiples of 1/4 up to bound/4 with some -0.0: their float32
    sums are exact in any order while bound * size < 2^24."""
    rng = np.random.default_rng(seed)
    x = (rng.integers(-bound, bound + 1, size) / 4).astype(np.float16)
    x[rng.integers(0, size, size // 16 + 1)] = -0.0
    return x


def reference(x, op, axis=None):
    wide = x.astype(np.float64)
    return {"sum": np.sum, "min": np.min, "max": np.max}[op](wide, axis=axis)


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("op", ["sum", "min", "max"])
def test_reduce(ctx, op, size):
    x = quarters(size, size)
    got = ctx.reduce(x, op)
    assert got.dtype == np.float32
    assert got == reference(x, op)


def test_signed_zeros_and_nan(ctx):
    zeros = np.where(np.arange(4097) % 3 == 0, np.float16(-0.0), np.float16(0.0))
    assert np.signbit(ctx.reduce(zeros, "min"))
    assert not np.signbit(ctx.reduce(zeros, "max"))
    x = quarters(4097, 7)
    x[1234] = np.nan
    for op in ("sum", "min", "max"):
        assert np.isnan(ctx.reduce(x, op))


@pytest.mark.parametrize("op", ["sum", "min", "max"])
def test_rows_and_segments(ctx, op):
    matrix = quarters(23 * 1031, 3).reshape(23, 1031)
    rows = ctx.reduce_rows(matrix[:, :1025], op)  # padded rows, read in place
    assert rows.dtype == np.float32
    np.testing.assert_array_equal(rows, reference(matrix[:, :1025], op, axis=1))
    x = matrix.reshape(-1)
    offsets = [0, 0, 1, 33, 33, 1057, 5000, x.size]
    segments = ctx.reduce_segments(x, offsets, op)
    for i, (a, b) in enumerate(zip(offsets, offsets[1:])):
        want = reference(x[a:b], op) if b > a else {"sum": 0, "min": np.inf, "max": -np.inf}[op]
        assert segments[i] == want


@pytest.mark.parametrize("kind", ["inclusive", "exclusive"])
@pytest.mark.parametrize("op", ["sum", "max"])
def test_scans(ctx, op, kind):
    x = quarters(4097, 11)
    got = ctx.scan(x, op, kind)
    assert got.dtype == np.float32
    wide = x.astype(np.float64)
    acc = np.cumsum(wide) if op == "sum" else np.maximum.accumulate(wide)
    want = acc if kind == "inclusive" else np.concatenate(([0 if op == "sum" else -np.inf],
                                                          acc[:-1]))
    np.testing.assert_array_equal(got, want)
    rows = ctx.scan_rows(x[:4096].reshape(4, 1024), op, kind)
    assert rows.dtype == np.float32
    for r in range(4):
        np.testing.assert_array_equal(rows[r], ctx.scan(x[r * 1024:(r + 1) * 1024], op, kind))
    with pytest.raises(clreduce.InvalidArgumentError, match="out has dtype float16"):
        ctx.scan(x, op, kind, out=x)  # float32 results: never in place


def test_refused(ctx):
    x = quarters(100, 5)
    assert clreduce.result_dtype("sum", np.float16) == np.float32
    with pytest.raises(clreduce.InvalidArgumentError, match="does not take float16"):
        clreduce.result_dtype("argmax", np.float16)
    for op in ("argmax", "minmax", "mean_var", "sum_squares"):
        with pytest.raises(clreduce.InvalidArgumentError, match="storage type"):
            ctx.reduce(x, op)
    with pytest.raises(clreduce.InvalidArgumentError):
        ctx.reduce_multi(x, ["sum", "max"])
    with pytest.raises(clreduce.InvalidArgumentError):
        ctx.dot(x, x)
