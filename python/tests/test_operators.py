"""The operators past sum, min and max (argmin, argmax, minmax, sum_squares,
sum_abs, norm2, mean_var) and dot, against NumPy references: flat
reductions of host and device arrays, rows and segments, every type they
take, ties, NaN and signed zeros, mean 10^6 and spread 1, no element."""

import numpy as np
import pytest

import clreduce

from test_results import DTYPES, FLOAT_TOLERANCE, random_array

OPS = ["argmin", "argmax", "minmax", "sum_squares", "sum_abs", "norm2", "mean_var"]
SIZES = [1, 31, 33, 255, 257, 4097, 2**20 + 7]
UNSIGNED = {np.dtype(np.int32): np.uint32, np.dtype(np.int64): np.uint64}

dtypes = pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
ops = pytest.mark.parametrize("op", OPS)


def takes(op, dtype):
    return op not in ("norm2", "mean_var") or np.dtype(dtype).kind == "f"


def data_for(op, dtype, n, seed):
    """Random data as the C suites draw it: the whole range of integers (sums
    wrap around), floats in [-4, 4), or 3 + [-1, 1) for mean_var."""
    dtype = np.dtype(dtype)
    if dtype.kind != "f" or op in ("argmin", "argmax", "minmax"):
        return random_array(dtype, n, seed)
    u = np.random.default_rng(seed).uniform(-1.0, 1.0, n)
    return (3 + u if op == "mean_var" else 4 * u).astype(dtype)


def reference_arg(x, op):
    """The index argmin / argmax must give: a NaN wins (the first one), -0.0
    orders below +0.0, the smallest index among equal values."""
    if x.dtype.kind == "f":
        nan = np.flatnonzero(np.isnan(x))
        if nan.size:
            return int(nan[0])
    best = x.min() if op == "argmin" else x.max()
    candidates = np.flatnonzero(x == best)
    if x.dtype.kind == "f" and best == 0:  # between -0.0 and +0.0
        signs = np.signbit(x[candidates])
        wanted = signs if op == "argmin" else ~signs
        if wanted.any():
            candidates = candidates[wanted]
    return int(candidates[0])


def check_one_element(op, got, x, y=None):
    """sum, sum_squares, sum_abs, norm2 and dot of x (and y)."""
    if x.dtype.kind != "f":
        if op == "sum_abs":
            wide = UNSIGNED.get(x.dtype, x.dtype)
            assert got.dtype == wide and got == np.sum(np.abs(x).astype(wide), dtype=wide)
        else:
            assert got.dtype == x.dtype
            terms = x if op == "sum" else x * (y if op == "dot" else x)
            assert got == np.sum(terms, dtype=x.dtype)
        return
    assert got.dtype == x.dtype
    wide = x.astype(np.longdouble)
    if op == "sum":
        terms = wide
    elif op == "sum_abs":
        terms = np.abs(wide)
    elif op == "dot":
        terms = wide * y.astype(np.longdouble)
    else:
        terms = wide * wide
    exact = np.sum(terms)
    tolerance = FLOAT_TOLERANCE[x.dtype]
    if op == "norm2":
        exact = np.sqrt(exact)
        assert abs(np.longdouble(got) - exact) <= tolerance * exact, (got, exact)
    else:
        bound = tolerance * np.sum(np.abs(terms))
        assert abs(np.longdouble(got) - exact) <= bound, (got, exact, bound)


def check(op, got, x):
    """Whether got is the result of op on the elements of x."""
    if op in ("argmin", "argmax"):
        assert isinstance(got, clreduce.ArgResult)
        if x.size == 0:
            assert got.index == -1
            return
        want = reference_arg(x, op)
        assert got.index == want, (got, want, x[want])
        assert got.value.dtype == x.dtype
        assert got.value == x[want] or (np.isnan(got.value) and np.isnan(x[want]))
        if x.dtype.kind == "f":
            assert np.signbit(got.value) == np.signbit(x[want])
    elif op == "minmax":
        assert isinstance(got, clreduce.MinMax)
        for field, arg in ((got.min, "argmin"), (got.max, "argmax")):
            assert field.dtype == x.dtype
            if x.size:
                want = x[reference_arg(x, arg)]
                assert field == want or (np.isnan(field) and np.isnan(want)), (field, want)
    elif op == "mean_var":
        check_mean_var(got, x, FLOAT_TOLERANCE[x.dtype])
    else:
        check_one_element(op, got, x)


def check_mean_var(got, x, m2_tolerance):
    """Against a two-pass reference in long double: the mean within the
    float tolerance of max|x|, m2 within m2_tolerance relative."""
    assert isinstance(got, clreduce.MeanVar)
    assert got.mean.dtype == x.dtype and got.m2.dtype == x.dtype and got.count == x.size
    if x.size == 0:
        assert got.mean == 0 and got.m2 == 0 and np.isnan(got.var)
        return
    wide = x.astype(np.longdouble)
    mean = np.mean(wide)
    m2 = np.sum((wide - mean) ** 2)
    assert abs(np.longdouble(got.mean) - mean) <= FLOAT_TOLERANCE[x.dtype] * np.max(np.abs(wide))
    assert abs(np.longdouble(got.m2) - m2) <= m2_tolerance * m2, (got.m2, m2)
    assert got.var.dtype == x.dtype
    assert abs(np.longdouble(got.var) - m2 / x.size) <= m2_tolerance * m2 / x.size
    if x.size > 1:
        assert abs(np.longdouble(got.sample_var) - m2 / (x.size - 1)) <= m2_tolerance * m2


def skip_unsupported(ctx, dtype, op):
    """Skips the test where op does not take dtype, or the device lacks it."""
    if not takes(op, dtype):
        pytest.skip(f"{op} does not take {np.dtype(dtype).name}")
    try:
        ctx.check_support(dtype, op)
    except clreduce.UnsupportedError as e:
        pytest.skip(str(e))


def test_layouts_match_the_library():
    lib = clreduce._lib.library()
    assert list(clreduce._enum_names("op")) == clreduce.ops() + ["dot"]
    for op in OPS + ["sum", "min", "max", "dot"]:
        code = clreduce.ops().index(op) if op != "dot" else 10
        for dtype in DTYPES:
            size = lib.clreduce_result_size(code, clreduce._TYPES[np.dtype(dtype)])
            if takes(op, dtype):
                assert clreduce.result_dtype(op, dtype).itemsize == size, (op, dtype)
            else:
                assert size == 0
                with pytest.raises(clreduce.UnsupportedError, match=f"{op} takes float32"):
                    clreduce.result_dtype(op, dtype)


@pytest.mark.parametrize("size", SIZES)
@dtypes
@ops
def test_reduce_host(ctx, op, dtype, size):
    if not takes(op, dtype):
        with pytest.raises(clreduce.UnsupportedError, match=f"^clreduce_reduce_host: .*{op}"):
            ctx.reduce(np.zeros(size, dtype), op)
        return
    skip_unsupported(ctx, dtype, op)
    x = data_for(op, dtype, size, seed=size + 17)
    check(op, ctx.reduce(x, op), x)


@pytest.mark.parametrize("size", SIZES)
@dtypes
def test_dot_host(ctx, dtype, size):
    skip_unsupported(ctx, dtype, "dot")
    x = data_for("dot", dtype, size, seed=size)
    y = data_for("dot", dtype, size, seed=size + 1)
    got = ctx.dot(x, y)
    check_one_element("dot", got, x, y)
    check_one_element("dot", ctx.dot(x, x), x, x)
    assert clreduce.dot(x.reshape(-1, 1), y) == got  # any shapes of one size


@pytest.mark.parametrize("kind", ["inclusive", "exclusive"])
@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.float64])
@ops
def test_scan(ctx, op, dtype, kind):
    """Every prefix's result, as reduce() gives it, at the first, last and
    some random positions of 4097 elements; out given or not; no element."""
    if not takes(op, dtype):
        with pytest.raises(clreduce.UnsupportedError, match=f"^clreduce_scan_host: .*{op}"):
            ctx.scan(np.zeros(3, dtype), op, kind)
        return
    skip_unsupported(ctx, dtype, op)
    n = 4097
    x = data_for(op, dtype, n, seed=n + 5)
    got = ctx.scan(x, op, kind)
    assert got.dtype == clreduce.result_dtype(op, dtype) and got.shape == (n,)
    out = np.empty(n, got.dtype)
    assert ctx.scan(x, op, kind, out=out) is out
    assert out.tobytes() == got.tobytes()
    rng = np.random.default_rng(n)
    for i in [0, 1, 2, n - 2, n - 1] + list(rng.integers(0, n, 8)):
        prefix = x[:i + 1] if kind == "inclusive" else x[:i]
        check(op, clreduce._results.unpack_one(op, got[i:i + 1]), prefix)
    assert ctx.scan(x[:0], op, kind).shape == (0,)
    if got.itemsize == x.itemsize:  # one element a result: not in place
        with pytest.raises(clreduce.InvalidArgumentError, match="out overlaps the array"):
            ctx.scan(x, op, kind, out=x.view(got.dtype))


@pytest.mark.parametrize("kind", ["inclusive", "exclusive"])
@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.float64])
@ops
def test_scan_rows(ctx, op, dtype, kind):
    """Every row's prefixes, as reduce() gives them for that row alone (an
    index from the row's start), at the first, last and some random
    positions of rows cut from wider ones; no rows, rows of nothing."""
    if not takes(op, dtype):
        with pytest.raises(clreduce.UnsupportedError,
                           match=f"^clreduce_scan_rows_host: .*{op}"):
            ctx.scan_rows(np.zeros((2, 3), dtype), op, kind)
        return
    skip_unsupported(ctx, dtype, op)
    rows, length = 5, 257
    wide = data_for(op, dtype, rows * (length + 3), seed=length + 7).reshape(rows, length + 3)
    x = wide[:, 1:length + 1]
    got = ctx.scan_rows(x, op, kind)
    assert got.dtype == clreduce.result_dtype(op, dtype) and got.shape == (rows, length)
    rng = np.random.default_rng(length)
    for r in range(rows):
        for i in [0, 1, length - 1] + list(rng.integers(0, length, 4)):
            prefix = x[r, :i + 1] if kind == "inclusive" else x[r, :i]
            check(op, clreduce._results.unpack_one(op, got[r, i:i + 1]), prefix)
    assert ctx.scan_rows(x[:0], op, kind).shape == (0, length)
    assert ctx.scan_rows(x[:, :0], op, kind).shape == (rows, 0)


@dtypes
@ops
def test_no_element(ctx, op, dtype):
    skip_unsupported(ctx, dtype, op)
    x = np.empty(0, dtype)
    got = ctx.reduce(x, op)
    check(op, got, x)
    if op in ("argmin", "argmax", "minmax"):
        big = np.inf if np.dtype(dtype).kind == "f" else np.iinfo(dtype).max
        small = -np.inf if np.dtype(dtype).kind == "f" else np.iinfo(dtype).min
        if op == "minmax":
            assert got == (big, small)
        else:
            assert got.value == (big if op == "argmin" else small)
    elif op != "mean_var":
        assert got == 0
    assert ctx.dot(x, x) == 0


@pytest.mark.parametrize("size", [2, 33, 4097, 2**20 + 7])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_arg_ties_nan_and_signed_zeros(ctx, dtype, size):
    skip_unsupported(ctx, dtype, "argmax")
    rng = np.random.default_rng(size)
    x = rng.integers(-3, 4, size).astype(dtype)  # many ties
    for op in ("argmin", "argmax", "minmax"):
        check(op, ctx.reduce(x, op), x)
    zeros = np.where(rng.random(size) < 0.5, -0.0, 0.0).astype(dtype)
    for op in ("argmin", "argmax", "minmax"):
        check(op, ctx.reduce(zeros, op), zeros)
    late, early = size - 1, size // 3
    x[late] = np.nan
    x[early] = np.nan
    for op in ("argmin", "argmax"):
        got = ctx.reduce(x, op)
        assert np.isnan(got.value) and got.index == min(early, late)
    got = ctx.reduce(x, "minmax")
    assert np.isnan(got.min) and np.isnan(got.max)


@pytest.mark.parametrize("dtype", [np.int32, np.uint32, np.int64, np.uint64])
def test_arg_ties_integers(ctx, dtype):
    x = np.full(4097, 5, dtype)
    assert ctx.reduce(x, "argmin") == (5, 0) and ctx.reduce(x, "argmax") == (5, 0)
    x[[100, 3000]] = np.iinfo(dtype).max
    x[[7, 4000]] = np.iinfo(dtype).min
    assert ctx.reduce(x, "argmax").index == 100 and ctx.reduce(x, "argmin").index == 7


@pytest.mark.parametrize("size", [33, 4097, 2**20 + 7])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_mean_var_far_from_zero(ctx, dtype, size):
    """Data of mean 10^6 and spread 1: m2 keeps the precision of the spread."""
    skip_unsupported(ctx, dtype, "mean_var")
    uniform = 1e6 + np.random.default_rng(size).uniform(-np.sqrt(3), np.sqrt(3), size)
    ramp = 1e6 + 2.0 * np.arange(size) / size - 1.0
    for data in (uniform, ramp):
        x = data.astype(dtype)
        got = ctx.reduce(x, "mean_var")
        check_mean_var(got, x, FLOAT_TOLERANCE[np.dtype(dtype)])
        assert np.isclose(got.var, np.var(x.astype(np.float64)), rtol=1e-4)
        assert np.isclose(got.std, np.std(x.astype(np.float64)), rtol=1e-4)


def check_each(op, got, parts):
    """Results of rows or segments (arrays) against each part alone."""
    fields = got if isinstance(got, tuple) else (got,)
    for field in fields:
        assert field.shape == (len(parts),)
    for i, part in enumerate(parts):
        one = type(got)(*(f[i] for f in got)) if isinstance(got, tuple) else got[i]
        check(op, one, part)


@pytest.mark.parametrize("shape", [(1, 1), (33, 257), (1000, 3), (4, 0)])
@dtypes
@ops
def test_rows(ctx, op, dtype, shape):
    if not takes(op, dtype):
        with pytest.raises(clreduce.UnsupportedError, match="^clreduce_reduce_rows_host: "):
            ctx.reduce_rows(np.zeros(shape, dtype), op)
        return
    skip_unsupported(ctx, dtype, op)
    x = data_for(op, dtype, shape[0] * shape[1], seed=shape[0] + 3 * shape[1]).reshape(shape)
    if op in ("argmin", "argmax", "minmax") and shape[1] > 2:
        x[::2, shape[1] // 2:] = x[::2, :1]  # ties with the rows' first element
    check_each(op, ctx.reduce_rows(x, op), list(x))


@ops
def test_padded_rows(ctx, op):
    wide = data_for(op, np.float64, 40 * 100, seed=8).reshape(40, 100)
    if op in ("argmin", "argmax", "minmax"):
        wide[3, 50] = np.nan
    view = wide[:, 3:70]  # read in place
    check_each(op, ctx.reduce_rows(view, op), list(view))
    got = ctx.reduce_rows(wide[:0], op)
    assert all(field.shape == (0,) for field in (got if isinstance(got, tuple) else (got,)))


@dtypes
@ops
def test_segments(ctx, op, dtype):
    skip_unsupported(ctx, dtype, op)
    rng = np.random.default_rng(21)
    lengths = rng.choice([0, 0, 1, 2, 31, 33, 255, 1025, 20000], size=60)
    offsets = np.concatenate([[0], np.cumsum(lengths)])
    x = data_for(op, dtype, int(offsets[-1]), seed=4)
    got = ctx.reduce_segments(x, offsets, op)
    check_each(op, got, [x[offsets[i]:offsets[i + 1]] for i in range(60)])


@pytest.mark.parametrize("op", OPS + ["sum"])
@pytest.mark.parametrize("dtype", [np.float32, np.int64])
def test_reduce_device(ctx, queue, op, dtype):
    """Into result out_index of a structured out array: the results around
    it stay as they were."""
    import pyopencl.array as cla
    if not takes(op, dtype):
        return
    x = data_for(op, dtype, 4097, seed=30)
    layout = clreduce.result_dtype(op, dtype)
    sentinel = np.arange(4 * layout.itemsize, dtype=np.uint8)
    out = cla.to_device(queue, sentinel.view(layout))
    x_dev = cla.to_device(queue, np.concatenate([x[:3], x]))[3:]
    ctx.enqueue_reduce(x_dev, out, op, out_index=2).wait()
    got = out.get()
    around = np.r_[0:2 * layout.itemsize, 3 * layout.itemsize:4 * layout.itemsize]
    assert np.array_equal(got.view(np.uint8)[around], sentinel[around])
    check(op, clreduce._results.unpack_one(op, got[2:3]), x)


@pytest.mark.parametrize("kind", ["inclusive", "exclusive"])
def test_scan_device(ctx, queue, kind):
    """argmax and mean_var into pyopencl arrays of records, the input at an
    offset: the records scan() gives on the host."""
    import pyopencl.array as cla
    for op, dtype in (("argmax", np.float32), ("mean_var", np.float64), ("minmax", np.int64)):
        skip_unsupported(ctx, dtype, op)
        x = data_for(op, dtype, 3001, seed=31)
        x_dev = cla.to_device(queue, np.concatenate([x[:5], x]))[5:]
        out = cla.empty(queue, x.size, clreduce.result_dtype(op, dtype))
        ctx.enqueue_scan(x_dev, out, op, kind).wait()
        assert out.get().tobytes() == ctx.scan(x, op, kind).tobytes()
        with pytest.raises(clreduce.InvalidArgumentError, match="out has dtype"):
            ctx.enqueue_scan(x_dev, cla.empty(queue, x.size, dtype), op, kind)


def test_dot_device(ctx, queue):
    import pyopencl.array as cla
    x = data_for("dot", np.float64, 257, seed=1)
    y = data_for("dot", np.float64, 257, seed=2)
    out = cla.to_device(queue, np.full(3, 7.0))
    ctx.enqueue_dot(cla.to_device(queue, x), cla.to_device(queue, y), out, out_index=1).wait()
    got = out.get()
    assert got[0] == 7.0 and got[2] == 7.0
    check_one_element("dot", got[1], x, y)
