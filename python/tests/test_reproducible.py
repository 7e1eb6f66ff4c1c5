"""variant="reproducible" and a reproducible context: float32 and float64
sums whose bits are those of the order clreduce.h documents, written here
again with NumPy (whose element-wise additions round as the device's must),
on data whose sums depend on the order."""

import numpy as np
import pytest

import clreduce

LANES, STEPS = 256, 16


def fixed_order_sum(x):
    """The documented order. Zeros stand in for the elements past the end:
    an accumulator that starts at +0.0 never becomes -0.0, so adding +0.0
    changes nothing."""
    vec = 16 // x.dtype.itemsize
    tile = LANES * STEPS * vec
    while True:
        tiles = max(1, -(-x.size // tile))
        padded = np.zeros(tiles * tile, x.dtype)
        padded[: x.size] = x
        steps = padded.reshape(tiles, STEPS, LANES, vec)
        acc = np.zeros((tiles, LANES, vec), x.dtype)
        for k in range(STEPS):
            acc = acc + steps[:, k]
        if vec == 4:
            lanes = (acc[..., 0] + acc[..., 1]) + (acc[..., 2] + acc[..., 3])
        else:
            lanes = acc[..., 0] + acc[..., 1]
        s = LANES // 2
        while s:
            lanes[:, :s] = lanes[:, :s] + lanes[:, s : 2 * s]
            s //= 2
        x = lanes[:, 0].copy()
        if tiles == 1:
            return x[0]


def hillis_steele(a):
    """Inclusive scan along the last axis, lane l taking lane l - s."""
    a = a.copy()
    s = 1
    while s < a.shape[-1]:
        a[..., s:] = a[..., :-s] + a[..., s:]
        s *= 2
    return a


def fixed_order_scan(x, exclusive=False):
    """The reproducible scan's order (cl/scan_fixed_order.cl). np.cumsum
    adds in sequence in the array's dtype."""
    vec = 16 // x.dtype.itemsize
    tile = LANES * STEPS * vec
    tiles = -(-x.size // tile)
    padded = np.zeros(tiles * tile, x.dtype)
    padded[: x.size] = x
    run = np.cumsum(padded.reshape(tiles, LANES, tile // LANES), axis=2, dtype=x.dtype)
    incl = hillis_steele(run[..., -1])
    e = np.concatenate([np.zeros((tiles, 1), x.dtype), incl[:, :-1]], axis=1)
    totals = incl[:, -1]
    chunk = -(-tiles // LANES)
    chunks = np.zeros(LANES * chunk, x.dtype)
    chunks[:tiles] = totals
    chunk_run = np.cumsum(chunks.reshape(LANES, chunk), axis=1, dtype=x.dtype)
    q = hillis_steele(chunk_run[:, -1])
    q = np.concatenate([np.zeros(1, x.dtype), q[:-1]])
    r = np.concatenate([np.zeros((LANES, 1), x.dtype), chunk_run[:, :-1]], axis=1)
    prefixes = (q[:, None] + r).reshape(-1)[:tiles]
    if exclusive:
        run = np.concatenate([np.zeros(run.shape[:2] + (1,), x.dtype), run[..., :-1]], axis=2)
    out = prefixes[:, None, None] + (e[..., None] + run)
    return out.reshape(-1)[: x.size]


def wide(size, dtype, seed):
    rng = np.random.default_rng(seed)
    x = np.ldexp(1 + rng.random(size), rng.integers(-20, 21, size))
    return (x * rng.choice([-1.0, 1.0], size)).astype(dtype)


@pytest.mark.parametrize("size", [1, 31, 257, 4097, 16385, 2**20 + 7])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_bits_of_the_order(ctx, dtype, size):
    x = wide(size, dtype, size)
    got = ctx.reduce(x, "sum", variant="reproducible")
    want = fixed_order_sum(x)
    assert got.dtype == dtype
    assert got.tobytes() == want.tobytes()


def test_other_operators_match_auto(ctx):
    x = np.random.default_rng(5).integers(-1000, 1000, 5000).astype(np.int32)
    for op in ("sum", "min", "max"):
        assert ctx.reduce(x, op, variant="reproducible") == ctx.reduce(x, op)


def test_refused_for_float16(ctx):
    with pytest.raises(clreduce.UnsupportedError):
        ctx.reduce(np.ones(8, np.float16), "sum", variant="reproducible")


@pytest.fixture(scope="module")
def fixed_ctx(ctx):
    context = clreduce.Context(reproducible=True)
    yield context
    context.close()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_reproducible_context_rows_and_segments(fixed_ctx, dtype):
    """Every row and segment has the bits of the order on it alone."""
    matrix = wide((7, 20000), dtype, 3)
    got = fixed_ctx.reduce_rows(matrix, "sum")
    for r in range(matrix.shape[0]):
        assert got[r].tobytes() == fixed_order_sum(matrix[r]).tobytes()
    x = wide(50000, dtype, 4)
    offsets = np.array([0, 0, 3, 64, 65, 1000, 17000, 17001, 50000], np.uint32)
    got = fixed_ctx.reduce_segments(x, offsets, "sum")
    for s in range(offsets.size - 1):
        want = fixed_order_sum(x[offsets[s] : offsets[s + 1]])
        assert got[s].tobytes() == want.tobytes(), s
    assert fixed_ctx.reduce(x, "sum").tobytes() == fixed_order_sum(x).tobytes()


@pytest.mark.parametrize("kind", ["inclusive", "exclusive"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_reproducible_context_scan(fixed_ctx, dtype, kind):
    x = wide(300 * 16384 + 7, dtype, 6)
    got = fixed_ctx.scan(x, "sum", kind=kind)
    want = fixed_order_scan(x, kind == "exclusive")
    assert got.tobytes() == want.tobytes()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_reproducible_context_scan_rows(fixed_ctx, dtype):
    matrix = wide((5, 40000), dtype, 7)
    got = fixed_ctx.scan_rows(matrix, "sum", kind="exclusive")
    for r in range(matrix.shape[0]):
        assert got[r].tobytes() == fixed_order_scan(matrix[r], True).tobytes()


def test_reproducible_context_refuses_what_it_cannot_fix(fixed_ctx):
    x = np.linspace(-1, 1, 1000, dtype=np.float32)
    with pytest.raises(clreduce.UnsupportedError, match="reproducible"):
        fixed_ctx.scan(x, "sum", variant="lookback")
    with pytest.raises(clreduce.UnsupportedError, match="reproducible"):
        fixed_ctx.reduce(x, "sum", variant="grid_stride")
    assert fixed_ctx.reduce(x, "max") == x.max()
    assert fixed_ctx.scan(x, "max")[-1] == x.max()
