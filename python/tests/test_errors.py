"""Bad input raises clreduce.Error subclasses whose message says what is
wrong: the package's own checks, and the library's (status and
clreduce_last_error)."""

import numpy as np
import pytest

import clreduce


def invalid(match):
    return pytest.raises(clreduce.InvalidArgumentError, match=match)


@pytest.mark.parametrize("dtype", [np.complex64, np.bool_, np.int8, ">f4", "U3"])
def test_bad_dtype_host(ctx, dtype):
    x = np.zeros(5, dtype)
    with invalid(r"array has dtype .*: clreduce takes native-endian float32, float64, int32"):
        ctx.reduce(x)
    with invalid("array has dtype"):
        ctx.scan(x)


def test_error_attributes(ctx):
    with pytest.raises(clreduce.Error) as info:
        ctx.reduce(np.zeros(5, np.int8))
    assert info.value.status == -1
    assert isinstance(info.value, ValueError)  # InvalidArgumentError is also a ValueError


def test_bad_names(ctx):
    x = np.zeros(5, np.float32)
    with invalid(r"unknown op 'mean': one of sum, min, max, argmin, .*, mean_var$"):
        ctx.reduce(x, "mean")
    with invalid(r"unknown op 'median': one of sum, min, max, argmin, .*, mean_var$"):
        ctx.scan(x, "median")
    with invalid(r"unknown op 'dot': .*: dot takes two arrays \(dot\(\), dot_rows"):
        ctx.scan_rows(x.reshape(1, 5), "dot")
    with invalid(r"unknown op 'dot': .*: dot takes two arrays \(dot\(\), dot_rows"):
        ctx.reduce(x, "dot")
    with invalid(r"unknown op 'dot'"):
        ctx.reduce_rows(x.reshape(1, 5), "dot")
    with invalid(r"unknown variant 'fast': one of auto, interleaved, .*single_pass"):
        ctx.reduce(x, variant="fast")
    with invalid(r"unknown scan kind 'both': one of inclusive, exclusive"):
        ctx.scan(x, kind="both")
    with invalid(r"unknown scan variant 'grid_stride': one of auto, hillis_steele"):
        ctx.scan(x, variant="grid_stride")


def test_host_scan_out_mismatch(ctx):
    x = np.arange(10, dtype=np.int32)
    with invalid("out has 9 elements, the array 10"):
        ctx.scan(x, out=np.empty(9, np.int32))
    with invalid("out has dtype int64, the array int32"):
        ctx.scan(x, out=np.empty(10, np.int64))
    with invalid("out must be C-contiguous and writable"):
        ctx.scan(x, out=np.empty(20, np.int32)[::2])
    with invalid("out overlaps the array without being the same elements"):
        y = np.arange(11, dtype=np.int32)
        ctx.scan(y[1:], out=y[:-1])


def test_device_mismatches(ctx, queue):
    import pyopencl.array as cla
    x = cla.to_device(queue, np.arange(10, dtype=np.float32))
    with invalid("out has 9 elements, the array 10"):
        ctx.enqueue_scan(x, cla.empty(queue, 9, np.float32))
    with invalid("out has dtype float64, the array float32"):
        ctx.enqueue_reduce(x, cla.empty(queue, 1, np.float64))
    with invalid("out_index 1 is outside out"):
        ctx.enqueue_reduce(x, cla.empty(queue, 1, np.float32), out_index=1)
    with invalid("array has dtype <f2"):
        ctx.enqueue_reduce(cla.zeros(queue, 4, np.float16), cla.empty(queue, 1, np.float16))
    with invalid("array is not contiguous"):
        ctx.enqueue_reduce(x[::2], cla.empty(queue, 1, np.float32))
    with invalid("array must be a pyopencl.array.Array, not ndarray"):
        ctx.enqueue_reduce(np.zeros(4, np.float32), cla.empty(queue, 1, np.float32))


def test_library_rejects_overlap(ctx, queue):
    """The library's own checks come back with its message."""
    import pyopencl.array as cla
    x = cla.to_device(queue, np.arange(10, dtype=np.int32))
    with pytest.raises(clreduce.InvalidArgumentError) as info:
        ctx.enqueue_reduce(x[:8], x[4:5])
    assert info.value.status == -1
    assert str(info.value).startswith("clreduce_reduce: invalid argument: result element")
    assert "overlaps the input range" in str(info.value)
    with invalid(r"^clreduce_scan: invalid argument: .*overlap"):
        ctx.enqueue_scan(x[:6], x[2:8])
    assert (x.get() == np.arange(10)).all()  # nothing was written


def test_library_rejects_foreign_queue(ctx, cl):
    import pyopencl.array as cla
    other_context = cl.Context([ctx.cl_device])
    other = cl.CommandQueue(other_context)
    x = cla.to_device(other, np.arange(10, dtype=np.int32))
    with invalid(r"^clreduce_reduce: invalid argument: .*"):
        ctx.enqueue_reduce(x, cla.empty(other, 1, np.int32))


def test_no_device(monkeypatch):
    monkeypatch.setenv("CLREDUCE_DEVICE", "no such device")
    with pytest.raises(clreduce.NoDeviceError,
                       match='^clreduce_create_default: no OpenCL device found: '
                             '.*"no such device"'):
        clreduce.Context()


def test_closed_context(ctx):
    closed = clreduce.Context(ctx.cl_context, ctx.cl_device)
    closed.close()
    closed.close()  # twice is harmless
    with pytest.raises(clreduce.Error, match="the clreduce context is closed"):
        closed.reduce(np.zeros(3, np.float32))


def test_context_arguments(ctx):
    with invalid("a device needs the cl_context it belongs to"):
        clreduce.Context(device=ctx.cl_device)
    with invalid(r"cl_context must be a pyopencl object \(with .int_ptr\) or an integer handle"):
        clreduce.Context("context")


def test_library_not_found(monkeypatch):
    monkeypatch.setenv("CLREDUCE_LIBRARY", "/nonexistent/libclreduce.so")
    with pytest.raises(clreduce.LibraryNotFoundError,
                       match="CLREDUCE_LIBRARY='/nonexistent/libclreduce.so' cannot be loaded"):
        clreduce._lib._open()


def test_operator_errors(ctx):
    """Operators past max: the library's refusals, and the package's."""
    x = np.arange(10, dtype=np.int32)
    with pytest.raises(clreduce.UnsupportedError,
                       match=r"^clreduce_reduce_host: not supported by this device: .*mean_var"):
        ctx.reduce(x, "mean_var")
    with pytest.raises(clreduce.UnsupportedError, match="^clreduce_reduce_segments_host: .*norm2"):
        ctx.reduce_segments(x, [0, 4, 10], "norm2")
    with pytest.raises(clreduce.UnsupportedError, match=r"^clreduce_reduce_host: .*argmax"):
        ctx.reduce(x.astype(np.float32), "argmax", "interleaved")
    with pytest.raises(clreduce.UnsupportedError,
                       match="norm2 takes float32 and float64, not int32"):
        clreduce.result_dtype("norm2", np.int32)
    with invalid("unknown op 'median'"):
        clreduce.result_dtype("median", np.float32)
    with invalid("x has 10 elements of int32, y 9 of int32: dot"):
        ctx.dot(x, x[:9])
    with invalid("x has 10 elements of int32, y 10 of int64"):
        ctx.dot(x, x.astype(np.int64))
    with invalid("y has dtype"):
        ctx.dot(x, np.zeros(10, np.float16))
    with invalid("segments"):
        ctx.reduce_segments(x, [0, 5, 3, 10], "argmin")


def test_operator_device_errors(ctx, queue):
    import pyopencl.array as cla
    x = cla.to_device(queue, np.arange(10, dtype=np.float32))
    with invalid(r"out has dtype float32, the results "
                 r"\{'names': \['value', 'index'\].*result_dtype"):
        ctx.enqueue_reduce(x, cla.empty(queue, 1, np.float32), "argmax")
    with invalid("out has dtype float64, the array float32"):
        ctx.enqueue_dot(x, x, cla.empty(queue, 1, np.float64))
    with invalid("x has 10 elements of float32, y 9 of float32"):
        ctx.enqueue_dot(x, x[:9], cla.empty(queue, 1, np.float32))
    out = cla.to_device(queue, np.zeros(1, clreduce.result_dtype("minmax", np.float32)))
    with pytest.raises(clreduce.InvalidArgumentError, match="^clreduce_reduce: .*overlap"):
        ctx.enqueue_reduce(x, x[4:6].view(out.dtype), "minmax")
    with pytest.raises(clreduce.InvalidArgumentError, match="^clreduce_dot: .*overlap"):
        ctx.enqueue_dot(x[:5], x[1:6], x[3:4])
    assert (x.get() == np.arange(10)).all()  # nothing was written
