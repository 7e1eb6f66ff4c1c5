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
