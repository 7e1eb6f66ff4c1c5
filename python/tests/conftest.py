"""Fixtures: one clreduce context on the device CLREDUCE_DEVICE names (every
test is skipped where there is none) and a pyopencl queue on it."""

import pytest

import clreduce


@pytest.fixture(scope="session")
def ctx():
    try:
        context = clreduce.Context()
    except clreduce.NoDeviceError as e:
        pytest.skip(str(e))
    yield context
    context.close()


@pytest.fixture(scope="session")
def cl():
    return pytest.importorskip("pyopencl")


@pytest.fixture(scope="session")
def queue(ctx, cl):
    return cl.CommandQueue(ctx.cl_context, ctx.cl_device)
