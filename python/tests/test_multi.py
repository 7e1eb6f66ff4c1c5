"""Several operators in one pass through NumPy arrays: each result the
same as reduce() with that operator alone."""

import numpy as np
import pytest

import clreduce

from test_results import DTYPES, random_array

ONE_INPUT = ["sum", "min", "max", "argmin", "argmax", "minmax", "sum_squares", "sum_abs",
             "norm2", "mean_var"]


def same(a, b):
    """Equal, NaN equal to NaN, field by field for named tuples."""
    if isinstance(a, tuple):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return (np.isnan(a) and np.isnan(b)) if np.issubdtype(np.asarray(a).dtype, np.floating) \
        and np.isnan(a) else a == b


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("size", [1, 33, 4097, 100003])
def test_multi_matches_each_operator(ctx, dtype, size):
    if np.dtype(dtype) == np.float64 and ctx.check_support(dtype) is False:
        pytest.skip("no fp64")
    x = random_array(dtype, size, seed=size + 17)
    ops = [op for op in ONE_INPUT
           if np.dtype(dtype).kind == "f" or op not in ("norm2", "mean_var")]
    for chosen in (ops, ["max", "argmax", "sum", "min"], ["mean_var"] if "mean_var" in ops
                   else ["sum"]):
        got = ctx.reduce_multi(x, chosen)
        assert len(got) == len(chosen)
        for op, value in zip(chosen, got):
            want = ctx.reduce(x, op)
            if np.dtype(dtype).kind == "f" and op == "sum":
                assert abs(float(value) - float(want)) <= 1e-5 * float(np.abs(x).sum()), op
            else:
                assert same(value, want), (op, value, want)


def test_bad_input(ctx):
    x = np.ones(10, np.float32)
    with pytest.raises(clreduce.InvalidArgumentError):
        ctx.reduce_multi(x, [])
    with pytest.raises(clreduce.Error):
        ctx.reduce_multi(x, ["sum", "dot"])
    with pytest.raises(clreduce.Error):
        ctx.reduce_multi(np.ones(10, np.int32), ["sum", "mean_var"])


SUMS = ("sum", "sum_abs", "sum_squares", "norm2", "mean_var")


def check_each(ctx, dtype, chosen, got, alone, scale):
    """got (a _multi call's results for the operators `chosen`) against
    alone(op), each operator's call by itself: bit for bit but for float
    sums, which hold within a bound of scale (each record's sum of |x|)."""
    assert len(got) == len(chosen)
    for op, value in zip(chosen, got):
        want = alone(op)
        if np.dtype(dtype).kind == "f" and op in SUMS:
            for a, b in zip(value if isinstance(value, tuple) else (value,),
                            want if isinstance(want, tuple) else (want,)):
                if np.issubdtype(np.asarray(a).dtype, np.floating):
                    tol = 1e-4 * (np.asarray(scale, np.float64) + 1) ** 2 \
                        if op in ("sum_squares", "mean_var") else \
                        1e-4 * (np.asarray(scale, np.float64) + 1)
                    assert np.all(np.abs(a.astype(np.float64) - b.astype(np.float64))
                                  <= tol), op
                else:
                    assert np.array_equal(a, b), op
        else:
            assert same_rows(value, want), (op, value, want)


def ops_of(dtype):
    return [op for op in ONE_INPUT
            if np.dtype(dtype).kind == "f" or op not in ("norm2", "mean_var")]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(1, 1), (3, 33), (64, 255), (5, 4097), (7, 0)])
def test_rows_multi_matches_each_operator(ctx, dtype, shape):
    if np.dtype(dtype) == np.float64 and ctx.check_support(dtype) is False:
        pytest.skip("no fp64")
    rows, length = shape
    # a slice of wider rows: read in place, at a pitch of length + 3
    wide = random_array(dtype, rows * (length + 3), seed=rows * 31 + length).reshape(
        rows, length + 3)
    x = wide[:, :length]
    scale = np.abs(x).sum(axis=1) if length else 0
    for chosen in (ops_of(dtype), ["argmax", "sum"]):
        check_each(ctx, dtype, chosen, ctx.reduce_rows_multi(x, chosen),
                   lambda op: ctx.reduce_rows(x, op), scale)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("lengths", [[1], [0, 33, 0, 1, 255], [4097, 2, 70000, 0]])
def test_segments_multi_matches_each_operator(ctx, dtype, lengths):
    if np.dtype(dtype) == np.float64 and ctx.check_support(dtype) is False:
        pytest.skip("no fp64")
    offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.uint64)
    x = random_array(dtype, int(offsets[-1]), seed=len(lengths) * 7 + int(offsets[-1]))
    scale = np.array([np.abs(x[offsets[i]:offsets[i + 1]].astype(np.float64)).sum()
                      for i in range(len(lengths))])
    for chosen in (ops_of(dtype), ["min", "argmin", "sum"]):
        check_each(ctx, dtype, chosen, ctx.reduce_segments_multi(x, offsets, chosen),
                   lambda op: ctx.reduce_segments(x, offsets, op), scale)


def same_rows(a, b):
    """Equal arrays, NaN equal to NaN, field by field for named tuples."""
    if isinstance(a, tuple):
        return len(a) == len(b) and all(same_rows(x, y) for x, y in zip(a, b))
    a, b = np.asarray(a), np.asarray(b)
    if np.issubdtype(a.dtype, np.floating):
        return np.array_equal(a, b, equal_nan=True)
    return np.array_equal(a, b)


def test_rows_multi_errors(ctx):
    x = np.ones((4, 8), np.float32)
    with pytest.raises(clreduce.InvalidArgumentError):
        ctx.reduce_rows_multi(x, ["sum", "sum"])
    with pytest.raises(clreduce.InvalidArgumentError):
        ctx.reduce_rows_multi(x, [])
    with pytest.raises(clreduce.UnsupportedError):
        ctx.reduce_rows_multi(np.ones((4, 8), np.int32), ["sum", "norm2"])


def test_segments_multi_errors(ctx):
    x = np.ones(8, np.float32)
    with pytest.raises(clreduce.InvalidArgumentError):
        ctx.reduce_segments_multi(x, [0, 4, 8], ["max", "max"])
    with pytest.raises(clreduce.InvalidArgumentError):
        ctx.reduce_segments_multi(x, [0, 5, 4], ["max"])
    with pytest.raises(clreduce.UnsupportedError):
        ctx.reduce_segments_multi(np.ones(8, np.int32), [0, 8], ["sum", "mean_var"])
