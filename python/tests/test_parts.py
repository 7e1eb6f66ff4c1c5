"""reduce_parts(): pyopencl arrays in several contexts (two of the test's
device, and one of another platform's device where there is one) reduced as
one array, against NumPy; reproducible contexts give one device's bits."""

import numpy as np
import pytest

import clreduce


@pytest.fixture(scope="module")
def contexts(ctx, cl):
    """Three (clreduce.Context, pyopencl queue) pairs, plain and reproducible."""
    device = ctx.cl_device
    devices = [device, device]
    other = [d for p in cl.get_platforms() for d in p.get_devices()
             if d.platform.int_ptr != device.platform.int_ptr]
    devices.append(other[0] if other else device)
    made = []
    for d in devices:
        context = cl.Context([d])
        queue = cl.CommandQueue(context, d)
        made.append((clreduce.Context(context, d), clreduce.Context(context, d, reproducible=True),
                     queue))
    yield made
    for plain, repro, _ in made:
        plain.close()
        repro.close()


def split(contexts, x, ends, which=0, y=None):
    import pyopencl.array as cla
    parts, start = [], 0
    for i, end in enumerate(ends):
        entry = contexts[i % len(contexts)]
        part = (entry[which], cla.to_device(entry[2], x[start:end]))
        if y is not None:
            part += (cla.to_device(entry[2], y[start:end]),)
        parts.append(part)
        start = end
    return parts


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.uint64])
@pytest.mark.parametrize("op", ["sum", "min", "max", "argmax", "minmax", "dot"])
def test_against_numpy(contexts, dtype, op):
    rng = np.random.default_rng(7)
    n = 50001
    if np.dtype(dtype).kind == "f":
        x, y = rng.uniform(-2, 2, n).astype(dtype), rng.uniform(-2, 2, n).astype(dtype)
    else:
        x, y = rng.integers(0, 1000, n).astype(dtype), rng.integers(0, 1000, n).astype(dtype)
    x[40000] = x[:40000].max()  # a tie with an earlier part: the earlier index wins
    ends = [0, 12345, 12345, 40001, n]
    got = clreduce.reduce_parts(split(contexts, x, ends, y=y if op == "dot" else None), op)
    if op == "argmax":
        assert got.index == np.argmax(x) and got.value == x.max()
    elif op == "minmax":
        assert (got.min, got.max) == (x.min(), x.max())
    elif op in ("min", "max"):
        assert got == getattr(x, op)()
    else:
        want = np.vdot(x.astype(np.float64), y) if op == "dot" else x.astype(np.float64).sum()
        if np.dtype(dtype).kind == "f":
            bound = (np.abs(x) * (np.abs(y) if op == "dot" else 1)).sum()
            assert abs(float(got) - want) <= (1e-5 if dtype == np.float32 else 1e-12) * bound
        else:
            mod = 2 ** (8 * np.dtype(dtype).itemsize)
            exact = int(np.dot(x.astype(object), y.astype(object))) if op == "dot" \
                else int(x.astype(object).sum())
            assert int(got) % mod == exact % mod


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_reproducible_split(contexts, dtype):
    rng = np.random.default_rng(11)
    tile = clreduce.tile_elements(dtype)
    n = 3 * tile + 777
    x = (rng.uniform(1, 2, n) * 2.0 ** rng.integers(-20, 20, n)).astype(dtype)
    x[rng.random(n) < 0.5] *= -1
    y = rng.uniform(-1, 1, n).astype(dtype)
    one, one_dot = contexts[0][1].reduce(x), contexts[0][1].dot(x, y)
    for ends in ([n], [tile, n], [0, 2 * tile, 2 * tile, n], [tile, 2 * tile, 3 * tile, n]):
        got = clreduce.reduce_parts(split(contexts, x, ends, which=1))
        assert got.tobytes() == one.tobytes(), ends
        got = clreduce.reduce_parts(split(contexts, x, ends, which=1, y=y), "dot")
        assert got.tobytes() == one_dot.tobytes(), f"dot {ends}"
    with pytest.raises(clreduce.UnsupportedError, match="tiles"):
        clreduce.reduce_parts(split(contexts, x, [tile + 1, n], which=1))


def test_bad_parts(contexts):
    x = np.arange(10, dtype=np.float32)
    with pytest.raises(clreduce.InvalidArgumentError):
        clreduce.reduce_parts([])
    with pytest.raises(clreduce.InvalidArgumentError, match="dot"):
        clreduce.reduce_parts(split(contexts, x, [5, 10]), "dot")
    mixed = split(contexts, x, [5, 10])
    mixed[1] = (contexts[1][1],) + mixed[1][1:]
    with pytest.raises(clreduce.InvalidArgumentError, match="reproducible"):
        clreduce.reduce_parts(mixed)


@pytest.mark.parametrize("repro", [0, 1])
@pytest.mark.parametrize("op", ["sum", "argmin", "mean_var"])
def test_two_steps(contexts, repro, op):
    """partials() of each part, combined on another context: reduce_parts()'s bits."""
    if repro and op == "mean_var":
        pytest.skip("a reproducible context refuses mean_var")
    rng = np.random.default_rng(5)
    tile = clreduce.tile_elements(np.float32)
    n = 2 * tile + 99
    x = rng.uniform(-3, 3, n).astype(np.float32)
    ends = [tile, tile, n]
    parts = split(contexts, x, ends, which=repro)
    pieces = [clreduce.partials(context, array, op) for context, array in parts]
    counts = [array.size for _, array in parts]
    got = clreduce.combine_partials(contexts[2][repro], np.concatenate(pieces), counts,
                                    np.float32, op)
    want = clreduce.reduce_parts(parts, op)
    assert np.asarray(got).tobytes() == np.asarray(want).tobytes()
    with pytest.raises(clreduce.InvalidArgumentError):
        clreduce.combine_partials(contexts[0][repro], np.concatenate(pieces), counts,
                                  np.float64, op)
