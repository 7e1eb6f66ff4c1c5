"""User-defined operators (Operator): reductions and scans of host arrays
against NumPy and Python references, struct and vector accumulators, two
inputs and the element index, an operator that does not commute, and the
errors of a bad description."""

import numpy as np
import pytest

import clreduce

from test_results import FLOAT_TOLERANCE, random_array

SIZES = [1, 31, 33, 255, 257, 4097, 2**20 + 7]
STATS = np.dtype([("lo", "f8"), ("hi", "f8"), ("count", "u4")], align=True)
AFFINE = np.dtype([("a", "u8"), ("c", "u8")], align=True)


@pytest.fixture(scope="module")
def float_sum(ctx):
    with clreduce.Operator("py_fsum", np.float32, "float", "x", "a + b", "0.0f",
                           commutative=True, context=ctx) as op:
        yield op


@pytest.fixture(scope="module")
def stats(ctx):
    try:
        ctx.check_support(np.float64)
    except clreduce.UnsupportedError as e:
        pytest.skip(str(e))
    with clreduce.Operator(
            "py_stats", np.float64, "stats", "(stats){x, x, 1}",
            "(stats){fmin(a.lo, b.lo), fmax(a.hi, b.hi), a.count + b.count}",
            "(stats){INFINITY, -INFINITY, 0}",
            acc_source="typedef struct { double lo, hi; uint count; } stats;",
            acc_dtype=STATS, commutative=True, context=ctx) as op:
        yield op


@pytest.fixture(scope="module")
def affine(ctx):
    """Maps v -> a v + c composed in order (modulo 2^64): associative, not
    commutative."""
    with clreduce.Operator(
            "py_affine", np.uint64, "affine", "(affine){x, y}",
            "(affine){b.a * a.a, b.a * a.c + b.c}", "(affine){1, 0}",
            acc_source="typedef struct { ulong a, c; } affine;", acc_dtype=AFFINE, inputs=2,
            context=ctx) as op:
        yield op


@pytest.mark.parametrize("size", SIZES)
def test_float_sum(float_sum, size):
    x = random_array(np.float32, size, seed=size)
    got = float_sum.reduce(x)
    assert got.dtype == np.float32
    exact = np.sum(x.astype(np.longdouble))
    bound = FLOAT_TOLERANCE[np.dtype(np.float32)] * np.sum(np.abs(x).astype(np.longdouble))
    assert abs(np.longdouble(got) - exact) <= bound


@pytest.mark.parametrize("size", SIZES)
def test_struct_accumulator(stats, size):
    x = random_array(np.float64, size, seed=size + 1)
    got = stats.reduce(x)
    assert got.dtype == STATS
    assert (got["lo"], got["hi"], got["count"]) == (x.min(), x.max(), size)
    empty = stats.reduce(np.empty(0))
    assert (empty["lo"], empty["hi"], empty["count"]) == (np.inf, -np.inf, 0)


def affine_reference(a, c, kind):
    """The scan of the maps (a[i], c[i]) in order, modulo 2^64."""
    mask = 2**64 - 1
    acc = (1, 0)
    out = []
    for ai, ci in zip(a.tolist(), c.tolist()):
        if kind == "exclusive":
            out.append(acc)
        acc = (ai * acc[0] & mask, (ai * acc[1] + ci) & mask)
        if kind == "inclusive":
            out.append(acc)
    return out, acc


@pytest.mark.parametrize("size", [1, 33, 257, 4097])
def test_in_order(affine, size):
    a = random_array(np.uint64, size, seed=size)
    c = random_array(np.uint64, size, seed=size + 7)
    for kind in ("inclusive", "exclusive"):
        want, total = affine_reference(a, c, kind)
        got = affine.scan(a, c, kind)
        assert got.dtype == AFFINE and got.shape == (size,)
        assert [tuple(map(int, e)) for e in got] == want, kind
    assert tuple(map(int, affine.reduce(a, c))) == total


def test_vector_accumulator_two_inputs_and_index(ctx):
    """A long2 of two inputs, with the element's index in map."""
    x = random_array(np.int64, 4097, seed=3)
    y = random_array(np.int64, 4097, seed=4)
    with clreduce.Operator("py_pairs", np.int64, "long2", "(long2)(x * y, (long)i)", "a + b",
                           "(long2)(0)", inputs=2, commutative=True, context=ctx) as op:
        got = op.reduce(x, y)
        assert got.dtype == np.int64 and got.shape == (2,)
        assert got[0] == np.sum(x * y) and got[1] == 4097 * 4096 // 2
        scanned = op.scan(x[:5], y[:5], "exclusive")
        assert scanned.shape == (5, 2)
        assert scanned[:, 1].tolist() == [0, 0, 1, 3, 6]


def test_scan_variants(float_sum):
    x = np.arange(100, dtype=np.float32)
    assert float_sum.scan(x, variant="reduce_then_scan")[-1] == 4950
    with pytest.raises(clreduce.UnsupportedError, match="^clreduce_scan_custom_host: "):
        float_sum.scan(x, variant="lookback")


def test_build_error_names_the_piece(ctx):
    with pytest.raises(clreduce.BuildError, match=r"py_broken\.combine:1:"):
        clreduce.Operator("py_broken", np.float32, "float", "x", "a + no_such_name", "0.0f",
                          context=ctx)


def test_bad_descriptions(ctx):
    invalid = clreduce.InvalidArgumentError
    with pytest.raises(invalid, match="^clreduce_operator_create: .*acc"):
        clreduce.Operator("py_size", np.float32, "float", "x", "a + b", acc_dtype=np.float64,
                          context=ctx)
    with pytest.raises(invalid, match="^clreduce_operator_create: .*name"):
        clreduce.Operator("not a name", np.float32, "float", "x", "a + b", context=ctx)
    with pytest.raises(invalid, match="acc_type 'thing' is not one of OpenCL C's"):
        clreduce.Operator("py_thing", np.float32, "thing", "x", "a + b", context=ctx)
    with pytest.raises(invalid, match="map must be a non-empty string"):
        clreduce.Operator("py_map", np.float32, "float", "", "a + b", context=ctx)
    with pytest.raises(invalid, match="dtype .*int16"):
        clreduce.Operator("py_short", np.int16, "float", "x", "a + b", context=ctx)
    with pytest.raises(invalid, match="inputs must be 1 or 2"):
        clreduce.Operator("py_three", np.float32, "float", "x", "a + b", inputs=3, context=ctx)


def test_bad_calls(ctx, float_sum, affine):
    invalid = clreduce.InvalidArgumentError
    with pytest.raises(invalid, match="x has dtype float64, the operator takes float32"):
        float_sum.reduce(np.zeros(3))
    with pytest.raises(invalid, match="takes 2 input"):
        affine.reduce(np.zeros(3, np.uint64))
    with pytest.raises(invalid, match="y must be left out"):
        float_sum.reduce(np.zeros(3, np.float32), np.zeros(3, np.float32))
    with pytest.raises(invalid, match="y has 2 elements"):
        affine.scan(np.zeros(3, np.uint64), np.zeros(2, np.uint64))
    with clreduce.Operator("py_first", np.int32, "int", "x", "a", context=ctx) as first:
        assert first.reduce(np.array([7, 8, 9], np.int32)) == 7
        with pytest.raises(invalid, match="^clreduce_reduce_custom_host: .*identity"):
            first.reduce(np.empty(0, np.int32))
        with pytest.raises(invalid, match="^clreduce_scan_custom_host: .*identity"):
            first.scan(np.ones(4, np.int32), kind="exclusive")
    with pytest.raises(invalid, match="the operator is closed"):
        first.reduce(np.ones(4, np.int32))


def test_context_close_releases_its_operators(ctx):
    own = clreduce.Context(ctx.cl_context, ctx.cl_device)
    op = clreduce.Operator("py_owned", np.int32, "int", "x", "a + b", "0", context=own)
    assert op.reduce(np.arange(10, dtype=np.int32)) == 45
    own.close()
    with pytest.raises(clreduce.InvalidArgumentError, match="the operator is closed"):
        op.reduce(np.arange(10, dtype=np.int32))
    op.close()  # harmless


@pytest.mark.parametrize("shape", [(1, 1), (5, 33), (40, 257), (3, 0)])
def test_rows_in_order(affine, shape):
    """Every row of a non-commutative operator, combined in its order; i
    counted from each row's start."""
    a = random_array(np.uint64, shape[0] * shape[1], seed=shape[1] + 3).reshape(shape)
    c = random_array(np.uint64, shape[0] * shape[1], seed=shape[1] + 5).reshape(shape)
    got = affine.reduce_rows(a, c)
    assert got.dtype == AFFINE and got.shape == (shape[0],)
    for r in range(shape[0]):
        assert tuple(map(int, got[r])) == affine_reference(a[r], c[r], "inclusive")[1], r


@pytest.mark.parametrize("shape", [(1, 1), (3, 33), (40, 257)])
def test_scan_rows_in_order(affine, shape):
    """Every row of a non-commutative operator scanned in its order."""
    a = random_array(np.uint64, shape[0] * shape[1], seed=shape[1] + 11).reshape(shape)
    c = random_array(np.uint64, shape[0] * shape[1], seed=shape[1] + 13).reshape(shape)
    for kind in ("inclusive", "exclusive"):
        got = affine.scan_rows(a, c, kind)
        assert got.dtype == AFFINE and got.shape == shape
        for r in range(shape[0]):
            want = affine_reference(a[r], c[r], kind)[0]
            assert [tuple(map(int, e)) for e in got[r]] == want, (kind, r)


def test_scan_rows_refused(float_sum):
    with pytest.raises(clreduce.InvalidArgumentError):
        float_sum.scan_rows(np.ones(10, np.float32))
    with pytest.raises(clreduce.InvalidArgumentError, match="scan kind"):
        float_sum.scan_rows(np.ones((2, 5), np.float32), kind="sideways")


def test_row_calls_refused(affine):
    a = np.ones((3, 4), np.uint64)
    for call in (affine.reduce_rows, affine.scan_rows):
        with pytest.raises(clreduce.InvalidArgumentError, match="2 dimensions"):
            call(np.ones(12, np.uint64), np.ones(12, np.uint64))
        with pytest.raises(clreduce.InvalidArgumentError, match="y has shape"):
            call(a, np.ones((4, 3), np.uint64))
        with pytest.raises(clreduce.InvalidArgumentError, match="2 input"):
            call(a)


def test_segments(stats, float_sum):
    x = random_array(np.float64, 5000, seed=9)
    offsets = [0, 0, 1, 40, 40, 4097, 5000]
    got = stats.reduce_segments(x, offsets)
    assert got.dtype == STATS and got.shape == (6,)
    for k in range(6):
        part = x[offsets[k]:offsets[k + 1]]
        want = (part.min(), part.max()) if part.size else (np.inf, -np.inf)
        assert (got[k]["lo"], got[k]["hi"], got[k]["count"]) == want + (part.size,), k
    sums = float_sum.reduce_segments(np.ones(10, np.float32), np.array([0, 3, 10], np.int64))
    assert sums.tolist() == [3.0, 7.0]
    with pytest.raises(clreduce.InvalidArgumentError):
        float_sum.reduce_segments(np.ones(10, np.float32), [0, 11])
    with pytest.raises(clreduce.InvalidArgumentError):
        float_sum.reduce_rows(np.ones(10, np.float32))


@pytest.mark.parametrize("size", SIZES)
def test_float16_sum(ctx, size):
    """Halves of value k / 4 (|k| <= 15): the float sum is exact."""
    x = (np.random.default_rng(size).integers(-15, 16, size) / 4).astype(np.float16)
    with clreduce.Operator("py_hsum", np.float16, "float", "x", "a + b", "0.0f",
                           commutative=True, context=ctx) as op:
        got = op.reduce(x)
        assert got.dtype == np.float32
        assert got == np.sum(x.astype(np.float64))
        rows = x[:size - size % 7].reshape(-1, 7) if size >= 7 else x.reshape(1, -1)
        np.testing.assert_array_equal(op.reduce_rows(rows), rows.astype(np.float64).sum(axis=1))
        scan = op.scan(x, kind="exclusive")
        want = np.concatenate(([0], np.cumsum(x.astype(np.float64))[:-1]))
        np.testing.assert_array_equal(scan, want)


def test_bfloat16_bits(ctx):
    """Every bfloat16 bit pattern, as uint16, widens to the float of those
    upper bits (an inclusive scan that keeps the last element)."""
    bits = np.arange(65536, dtype=np.uint16)
    with clreduce.Operator("py_blast", "bfloat16", "float", "x", "b", context=ctx) as op:
        got = op.scan(bits)
    want = (bits.astype(np.uint32) << 16).view(np.float32)
    nan = np.isnan(want)
    np.testing.assert_array_equal(got.view(np.uint32)[~nan], want.view(np.uint32)[~nan])
    assert np.isnan(got[nan]).all()


def test_storage_types_refused(ctx):
    with clreduce.Operator("py_hsum2", np.float16, "float", "x", "a + b", "0.0f",
                           context=ctx) as op:
        with pytest.raises(clreduce.InvalidArgumentError):
            op.reduce(np.zeros(4, np.float32))
    with pytest.raises(clreduce.InvalidArgumentError, match="storage type"):
        ctx.reduce(np.zeros(4, np.float16), "argmax")
