"""Reductions and scans of random data against NumPy references, through
NumPy arrays (host memory) and pyopencl arrays (device memory)."""

import numpy as np
import pytest

import clreduce

DTYPES = [np.float32, np.float64, np.int32, np.uint32, np.int64, np.uint64]
OPS = ["sum", "min", "max"]
SIZES = [1, 31, 257, 4097, 2**20 + 7]
# Float sums against sum(|x|), as the C suites check (clreduce.h).
FLOAT_TOLERANCE = {np.dtype(np.float32): 1e-5, np.dtype(np.float64): 1e-12}


def random_array(dtype, n, seed):
    rng = np.random.default_rng(seed)
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        return rng.uniform(-1.0, 1.0, n).astype(dtype)
    info = np.iinfo(dtype)  # the whole range: sums wrap around
    return rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True)


def identity(op, dtype):
    dtype = np.dtype(dtype)
    if op == "sum":
        return dtype.type(0)
    if dtype.kind == "f":
        return dtype.type(np.inf if op == "min" else -np.inf)
    info = np.iinfo(dtype)
    return dtype.type(info.max if op == "min" else info.min)


def reference_scan(x, op, kind):
    """(expected, tolerance per element) of a scan of x."""
    if op == "sum" and x.dtype.kind == "f":
        expected = np.cumsum(x.astype(np.longdouble))
        tolerance = FLOAT_TOLERANCE[x.dtype] * np.cumsum(np.abs(x).astype(np.longdouble))
    else:
        ufunc = {"sum": np.add, "min": np.minimum, "max": np.maximum}[op]
        expected = ufunc.accumulate(x, dtype=x.dtype)  # integers wrap around
        tolerance = np.zeros(x.size)
    if kind == "exclusive":
        expected = np.concatenate([[identity(op, x.dtype)], expected[:-1]])
        tolerance = np.concatenate([[0], tolerance[:-1]])
    return expected, tolerance


def check_reduce(result, x, op):
    assert result.dtype == x.dtype
    if op == "sum" and x.dtype.kind == "f":
        exact = np.sum(x.astype(np.longdouble))
        bound = FLOAT_TOLERANCE[x.dtype] * np.sum(np.abs(x).astype(np.longdouble))
        assert abs(np.longdouble(result) - exact) <= bound, (result, exact, bound)
    else:
        if op == "sum":
            expected = np.sum(x, dtype=x.dtype)  # integers wrap around
        else:
            expected = np.min(x) if op == "min" else np.max(x)
        assert result == expected


def check_scan(out, x, op, kind):
    assert out.dtype == x.dtype and out.shape == (x.size,)
    expected, tolerance = reference_scan(x, op, kind)
    if op == "sum" and x.dtype.kind == "f":
        error = np.abs(out.astype(np.longdouble) - expected)
        bad = np.flatnonzero(error > tolerance)
        assert bad.size == 0, f"{bad.size} elements off, first {bad[0]}: {out[bad[0]]} " \
                              f"against {expected[bad[0]]}"
    else:
        bad = np.flatnonzero(out != expected)
        assert bad.size == 0, f"{bad.size} elements differ, first {bad[0]}: {out[bad[0]]} " \
                              f"against {expected[bad[0]]}"


def skip_unsupported(ctx, dtype):
    try:
        ctx.check_support(dtype)
    except clreduce.UnsupportedError as e:
        pytest.skip(str(e))


params = pytest.mark.parametrize("size", SIZES)
dtypes = pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
ops = pytest.mark.parametrize("op", OPS)


@params
@dtypes
@ops
def test_reduce_host(ctx, dtype, op, size):
    skip_unsupported(ctx, dtype)
    x = random_array(dtype, size, seed=size)
    check_reduce(ctx.reduce(x, op), x, op)


@params
@dtypes
@ops
def test_scan_host(ctx, dtype, op, size):
    skip_unsupported(ctx, dtype)
    x = random_array(dtype, size, seed=size + 1)
    for kind in ("inclusive", "exclusive"):
        check_scan(ctx.scan(x, op, kind), x, op, kind)


@params
@dtypes
@ops
def test_reduce_device(ctx, queue, cl, dtype, op, size):
    """From a view at an offset into element out_index of another view: the
    elements around the result stay as they were."""
    import pyopencl.array as cla
    skip_unsupported(ctx, dtype)
    x = random_array(dtype, size, seed=size + 2)
    padded = cla.to_device(queue, np.concatenate([random_array(dtype, 3, seed=0), x,
                                                  random_array(dtype, 2, seed=1)]))
    sentinel = np.arange(4).astype(dtype)
    result = cla.to_device(queue, sentinel)
    event = ctx.enqueue_reduce(padded[3:3 + size], result[1:3], op, out_index=1)
    assert isinstance(event, cl.Event)
    event.wait()
    assert event.command_execution_status == cl.command_execution_status.COMPLETE
    got = result.get()
    check_reduce(got[2], x, op)
    assert np.array_equal(got[[0, 1, 3]], sentinel[[0, 1, 3]])


@params
@dtypes
@ops
def test_scan_device(ctx, queue, cl, dtype, op, size):
    """From a view at an offset into a view at another offset: the elements
    around the output stay as they were."""
    import pyopencl.array as cla
    skip_unsupported(ctx, dtype)
    x = random_array(dtype, size, seed=size + 3)
    x_dev = cla.to_device(queue, np.concatenate([random_array(dtype, 5, seed=0), x]))[5:]
    sentinel = random_array(dtype, 2, seed=0)
    for kind in ("inclusive", "exclusive"):
        out = cla.to_device(queue, np.concatenate([sentinel[:1], np.zeros_like(x), sentinel[1:]]))
        event = ctx.enqueue_scan(x_dev, out[1:1 + size], op, kind)
        got = out.get()  # waits for the event, which out keeps
        assert event.command_execution_status == cl.command_execution_status.COMPLETE
        check_scan(got[1:1 + size], x, op, kind)
        assert got[0] == sentinel[0] and got[-1] == sentinel[1]


def test_scan_in_place(ctx, queue):
    import pyopencl.array as cla
    x = random_array(np.int64, 4097, seed=7)
    host = x.copy()
    assert ctx.scan(host, "sum", "exclusive", out=host) is host
    check_scan(host, x, "sum", "exclusive")
    dev = cla.to_device(queue, x)
    ctx.enqueue_scan(dev, dev, "max").wait()
    check_scan(dev.get(), x, "max", "inclusive")


@pytest.mark.parametrize("variant", ["auto", "interleaved", "sequential", "first_add",
                                     "subgroup_tail", "subgroup", "unrolled", "grid_stride",
                                     "atomic", "single_pass"])
def test_reduce_variants(ctx, queue, variant):
    """Every variant the device runs gives the sum; the others say why not."""
    import pyopencl.array as cla
    assert variant in clreduce.reduce_variants()
    x = random_array(np.float32, 4097, seed=11)
    try:
        ctx.check_support(np.float32, "sum", variant)
    except clreduce.UnsupportedError as e:
        assert str(e).startswith("clreduce_check_support: not supported by this device: ")
        with pytest.raises(clreduce.UnsupportedError, match="clreduce_reduce_host: "):
            ctx.reduce(x, "sum", variant)
        return
    check_reduce(ctx.reduce(x, "sum", variant), x, "sum")
    result = cla.empty(queue, 1, np.float32)
    ctx.enqueue_reduce(cla.to_device(queue, x), result, "sum", variant)
    check_reduce(result.get()[0], x, "sum")


@pytest.mark.parametrize("variant", ["auto", "hillis_steele", "blelloch", "reduce_then_scan",
                                     "lookback"])
def test_scan_variants(ctx, queue, variant):
    import pyopencl.array as cla
    assert variant in clreduce.scan_variants()
    x = random_array(np.uint32, 4097, seed=12)
    try:
        ctx.check_scan_support(np.uint32, "sum", variant)
    except clreduce.UnsupportedError:
        with pytest.raises(clreduce.UnsupportedError, match="clreduce_scan_host: "):
            ctx.scan(x, "sum", "inclusive", variant)
        return
    check_scan(ctx.scan(x, "sum", "exclusive", variant), x, "sum", "exclusive")
    out = cla.empty(queue, x.size, np.uint32)
    ctx.enqueue_scan(cla.to_device(queue, x), out, "sum", "inclusive", variant)
    check_scan(out.get(), x, "sum", "inclusive")


def test_auto_variants_are_named(ctx):
    assert ctx.auto_variant(np.float32) in clreduce.reduce_variants()[1:]
    assert ctx.auto_scan_variant(np.float32) in clreduce.scan_variants()[1:]


@dtypes
@ops
def test_empty_gives_identity(ctx, queue, dtype, op):
    import pyopencl.array as cla
    skip_unsupported(ctx, dtype)
    empty = np.empty(0, dtype)
    assert ctx.reduce(empty, op) == identity(op, dtype)
    assert ctx.scan(empty, op).shape == (0,)
    result = cla.to_device(queue, np.ones(1, dtype))
    ctx.enqueue_reduce(cla.empty(queue, 0, dtype), result, op).wait()
    assert result.get()[0] == identity(op, dtype)
    ctx.enqueue_scan(cla.empty(queue, 0, dtype), cla.empty(queue, 0, dtype), op).wait()


def test_min_max_propagate_nan(ctx):
    x = random_array(np.float64, 257, seed=5)
    x[100] = np.nan
    assert np.isnan(ctx.reduce(x, "min")) and np.isnan(ctx.reduce(x, "max"))
    out = ctx.scan(x, "max")
    assert not np.isnan(out[:100]).any() and np.isnan(out[100:]).all()


def test_any_shape_and_layout(ctx):
    """Host arrays of any shape are taken in C order; others are copied."""
    x = random_array(np.int32, 6 * 7, seed=9).reshape(6, 7)
    assert ctx.reduce(x) == np.sum(x, dtype=np.int32)
    check_scan(ctx.scan(x.T, "max"), np.ascontiguousarray(x.T).ravel(), "max", "inclusive")
    check_reduce(ctx.reduce(x[:, ::2], "min"), x[:, ::2].ravel(), "min")
    assert clreduce.reduce([1.5, 2.5]) == 4.0  # a list: float64


def test_context_from_pyopencl(ctx, cl):
    """A context made from pyopencl objects works on their device."""
    import pyopencl.array as cla
    cl_context = cl.Context([ctx.cl_device])
    queue = cl.CommandQueue(cl_context)
    x = random_array(np.uint64, 4097, seed=3)
    for made in (clreduce.Context(cl_context, ctx.cl_device), clreduce.Context(cl_context)):
        with made:
            assert made.cl_context == cl_context and made.cl_device == ctx.cl_device
            check_reduce(made.reduce(x, "max"), x, "max")
            result = cla.empty(queue, 1, np.uint64)
            made.enqueue_reduce(cla.to_device(queue, x), result, "sum").wait()
            check_reduce(result.get()[0], x, "sum")


def test_type_codes_match_the_library():
    """The dtype table agrees with the library's names and sizes."""
    lib = clreduce._lib.library()
    names = {"float32": "float", "float64": "double"}
    for dtype, code in clreduce._TYPES.items():
        assert lib.clreduce_type_size(code) == dtype.itemsize
        assert lib.clreduce_type_name(code).decode() == names.get(dtype.name, dtype.name)
    assert clreduce.ops()[:3] == OPS  # those of scan()
    assert clreduce.scan_kinds() == ["inclusive", "exclusive"]


def test_versions_agree():
    assert clreduce.library_version() == clreduce.__version__
