"""Loading libclreduce and declaring the C functions the package calls."""

import ctypes
import ctypes.util
import os
import threading
from ctypes import POINTER, Structure, c_char_p, c_int, c_size_t, c_uint, c_uint32, c_void_p

# The status codes of clreduce.h ("The values are fixed").
SUCCESS = 0
ERROR_INVALID_ARGUMENT = -1
ERROR_UNSUPPORTED = -2
ERROR_BUILD = -3
ERROR_OPENCL = -4
ERROR_OUT_OF_MEMORY = -5
ERROR_NO_DEVICE = -6

_enum = c_int
_status = c_int
_handle = c_void_p  # clreduce_ctx *, cl_context, cl_device_id, cl_command_queue, cl_mem
_events = POINTER(c_void_p)



class Settings(Structure):
    """clreduce_settings (clreduce.h), field for field."""
    _fields_ = [
        ("subgroup_path", _enum),
        ("work_group_size", c_size_t),
        ("groups_per_compute_unit", c_uint),
        ("loads_per_work_item", c_uint),
        ("vector_width", c_uint),
        ("build_options", c_char_p),
        ("segment_passes", c_uint),
        ("reproducible", c_uint),
    ]


# CLREDUCE_REPRODUCIBLE_TILE_BYTES (clreduce/parts.h).
REPRODUCIBLE_TILE_BYTES = 65536


class Part(Structure):
    """clreduce_part (clreduce/parts.h), field for field."""
    _fields_ = [
        ("ctx", _handle),
        ("queue", _handle),
        ("input", _handle),
        ("offset", c_size_t),
        ("count", c_size_t),
        ("input2", _handle),
        ("offset2", c_size_t),
    ]


class OperatorDesc(Structure):
    """clreduce_operator_desc (clreduce/operator.h)."""
    _fields_ = [
        ("name", c_char_p),
        ("input_type", _enum),
        ("inputs", c_uint),
        ("acc_type", c_char_p),
        ("acc_source", c_char_p),
        ("acc_size", c_size_t),
        ("acc_align", c_size_t),
        ("identity", c_char_p),
        ("map", c_char_p),
        ("combine", c_char_p),
        ("commutative", c_int),
    ]


_PROTOTYPES = {
    "clreduce_create_default": (_status, [POINTER(_handle)]),
    "clreduce_create": (_status, [_handle, _handle, POINTER(_handle)]),
    "clreduce_default_settings": (None, [POINTER(Settings)]),
    "clreduce_create_with_settings": (
        _status, [_handle, _handle, POINTER(Settings), POINTER(_handle)]),
    "clreduce_get_tuning": (_status, [_handle, _enum, POINTER(Settings)]),
    "clreduce_destroy": (None, [_handle]),
    "clreduce_get_cl_context": (_handle, [_handle]),
    "clreduce_get_cl_device": (_handle, [_handle]),
    "clreduce_reduce_host": (
        _status, [_handle, _enum, _enum, _enum, c_void_p, c_size_t, c_void_p]),
    "clreduce_reduce": (
        _status, [_handle, _handle, _enum, _enum, _enum, _handle, c_size_t, c_size_t,
                  _handle, c_size_t, c_uint32, _events, _events]),
    "clreduce_reduce_parts": (
        _status, [POINTER(Part), c_size_t, _enum, _enum, _enum, c_void_p]),
    "clreduce_partials_count": (c_size_t, [_handle, _enum, _enum, c_size_t]),
    "clreduce_partials": (_status, [POINTER(Part), _enum, _enum, _enum, c_void_p]),
    "clreduce_combine_partials": (
        _status, [_handle, _enum, _enum, _enum, c_void_p, POINTER(c_size_t), c_size_t,
                  c_void_p]),
    "clreduce_dot_host": (
        _status, [_handle, _enum, _enum, c_void_p, c_void_p, c_size_t, c_void_p]),
    "clreduce_dot": (
        _status, [_handle, _handle, _enum, _enum, _handle, c_size_t, _handle, c_size_t,
                  c_size_t, _handle, c_size_t, c_uint32, _events, _events]),
    "clreduce_reduce_rows_host": (
        _status, [_handle, _enum, _enum, c_void_p, c_size_t, c_size_t, c_size_t, c_void_p]),
    "clreduce_reduce_segments_host": (
        _status, [_handle, _enum, _enum, c_void_p, c_size_t, c_void_p, _enum, c_size_t,
                  c_void_p]),
    "clreduce_dot_scan_host": (
        _status, [_handle, _enum, _enum, _enum, c_void_p, c_void_p, c_size_t, c_void_p]),
    "clreduce_dot_rows_host": (
        _status, [_handle, _enum, c_void_p, c_void_p, c_size_t, c_size_t, c_size_t, c_void_p]),
    "clreduce_dot_segments_host": (
        _status, [_handle, _enum, c_void_p, c_void_p, c_size_t, c_void_p, _enum, c_size_t,
                  c_void_p]),
    "clreduce_reduce_multi_host": (
        _status, [_handle, c_void_p, c_size_t, _enum, _enum, c_void_p, c_size_t, c_void_p]),
    "clreduce_multi_record": (c_size_t, [c_void_p, c_size_t, _enum, c_void_p]),
    "clreduce_reduce_rows_multi_host": (
        _status, [_handle, c_void_p, c_size_t, _enum, c_void_p, c_size_t, c_size_t, c_size_t,
                  c_void_p]),
    "clreduce_reduce_segments_multi_host": (
        _status, [_handle, c_void_p, c_size_t, _enum, c_void_p, c_size_t, c_void_p, _enum,
                  c_size_t, c_void_p]),
    "clreduce_scan_rows_host": (
        _status, [_handle, _enum, _enum, _enum, c_void_p, c_size_t, c_size_t, c_size_t,
                  c_void_p]),
    "clreduce_scan_host": (
        _status, [_handle, _enum, _enum, _enum, _enum, c_void_p, c_size_t, c_void_p]),
    "clreduce_scan": (
        _status, [_handle, _handle, _enum, _enum, _enum, _enum, _handle, c_size_t, c_size_t,
                  _handle, c_size_t, c_uint32, _events, _events]),
    "clreduce_operator_create": (_status, [_handle, POINTER(OperatorDesc), POINTER(_handle)]),
    "clreduce_operator_release": (None, [_handle]),
    "clreduce_operator_result_size": (c_size_t, [_handle]),
    "clreduce_reduce_custom_host": (
        _status, [_handle, _handle, _enum, c_void_p, c_void_p, c_size_t, c_void_p]),
    "clreduce_reduce_rows_custom_host": (
        _status, [_handle, _handle, c_void_p, c_void_p, c_size_t, c_size_t, c_size_t, c_void_p]),
    "clreduce_reduce_segments_custom_host": (
        _status, [_handle, _handle, c_void_p, c_void_p, c_size_t, c_void_p, _enum, c_size_t,
                  c_void_p]),
    "clreduce_scan_custom_host": (
        _status, [_handle, _handle, _enum, _enum, c_void_p, c_void_p, c_size_t, c_void_p]),
    "clreduce_scan_rows_custom_host": (
        _status, [_handle, _handle, _enum, c_void_p, c_void_p, c_size_t, c_size_t, c_size_t,
                  c_size_t, c_void_p]),
    "clreduce_check_support": (_status, [_handle, _enum, _enum, _enum]),
    "clreduce_check_scan_support": (_status, [_handle, _enum, _enum, _enum]),
    "clreduce_auto_variant": (_enum, [_handle, _enum]),
    "clreduce_auto_scan_variant": (_enum, [_handle, _enum]),
    "clreduce_status_string": (c_char_p, [_status]),
    "clreduce_last_error": (c_char_p, [_handle]),
    "clreduce_op_name": (c_char_p, [_enum]),
    "clreduce_type_name": (c_char_p, [_enum]),
    "clreduce_variant_name": (c_char_p, [_enum]),
    "clreduce_scan_kind_name": (c_char_p, [_enum]),
    "clreduce_scan_variant_name": (c_char_p, [_enum]),
    "clreduce_type_size": (c_size_t, [_enum]),
    "clreduce_version": (c_char_p, []),
}

# Names tried, in order, after CLREDUCE_LIBRARY and ctypes.util.find_library.
_NAMES = ("libclreduce.so.0", "libclreduce.so", "libclreduce.0.dylib", "libclreduce.dylib")


class LibraryNotFoundError(OSError):
    """libclreduce could not be loaded."""


_lock = threading.Lock()
_library = None


def _open():
    path = os.environ.get("CLREDUCE_LIBRARY")
    if path:
        try:
            return ctypes.CDLL(path)
        except OSError as e:
            raise LibraryNotFoundError(f"CLREDUCE_LIBRARY={path!r} cannot be loaded: {e}") from None
    candidates = []
    found = ctypes.util.find_library("clreduce")
    if found:
        candidates.append(found)
    candidates += [n for n in _NAMES if n != found]
    for name in candidates:
        try:
            return ctypes.CDLL(name)
        except OSError:
            pass
    raise LibraryNotFoundError(
        "libclreduce not found (tried " + ", ".join(candidates) + "): install clreduce, "
        "make its directory known to the dynamic loader (ldconfig or LD_LIBRARY_PATH), "
        "or set CLREDUCE_LIBRARY to the library's path")


def library():
    """The loaded libclreduce, with its functions' prototypes declared."""
    global _library
    with _lock:
        if _library is None:
            lib = _open()
            for name, (restype, argtypes) in _PROTOTYPES.items():
                try:
                    function = getattr(lib, name)
                except AttributeError:
                    raise LibraryNotFoundError(
                        f"{lib._name} lacks {name}: not a clreduce library, or too old") from None
                function.restype = restype
                function.argtypes = argtypes
            _library = lib
        return _library


def create_context(lib, cl_context, device, reproducible):
    """Creates a clreduce context on (cl_context, device), integer handles,
    or on the default device where cl_context is None; reproducible: with
    clreduce_settings.reproducible. Returns (status, the C function that
    gave it, the handle)."""
    handle = ctypes.c_void_p()
    default = None
    if cl_context is None:
        status = lib.clreduce_create_default(ctypes.byref(handle))
        if status != SUCCESS or not reproducible:
            return status, "clreduce_create_default", handle
        default, handle = handle, ctypes.c_void_p()  # its device, in a context of these settings
        cl_context = lib.clreduce_get_cl_context(default)
        device = lib.clreduce_get_cl_device(default)
    settings = Settings()
    lib.clreduce_default_settings(ctypes.byref(settings))
    settings.reproducible = 1 if reproducible else 0
    status = lib.clreduce_create_with_settings(cl_context, device, ctypes.byref(settings),
                                               ctypes.byref(handle))
    if default is not None:
        lib.clreduce_destroy(default)  # the new context holds the OpenCL one
    return status, "clreduce_create_with_settings", handle


def text(value):
    """A C string from the library as str ("" for NULL)."""
    return value.decode("utf-8", "replace") if value else ""


def names(name_function):
    """{name: value} for an enumeration, from its name function: values from 0
    up to the first one the function does not know."""
    result = {}
    value = 0
    while True:
        name = name_function(value)
        if not name:
            return result
        result[text(name)] = value
        value += 1
