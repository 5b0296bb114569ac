# SPDX-License-Identifier: MIT
"""Host-side buffers of transfers: any C-contiguous object with the buffer
protocol (bytes, bytearray, memoryview, array.array, numpy arrays, ...),
checked before anything reaches libdpu."""

import ctypes
import operator

from .errors import DpuError


class HostBuffer:
    """The memory of one host buffer, pinned while this object lives.

    A writable buffer is used in place (a bytearray cannot be resized
    meanwhile); a read-only one (bytes) is copied, so it can only be a source."""

    __slots__ = ("nbytes", "c", "address")

    def __init__(self, obj, writable, what):
        if isinstance(obj, str):
            raise TypeError(f"{what}: a str is not a buffer (encode it to bytes)")
        try:
            view = memoryview(obj)
        except TypeError:
            raise TypeError(f"{what}: expected a bytes-like object (bytes, bytearray, memoryview, array.array, "
                            f"numpy array), got {type(obj).__name__}") from None
        with view:
            if not view.c_contiguous:
                raise DpuError(f"{what}: the buffer is not C-contiguous (copy it, e.g. numpy.ascontiguousarray)")
            if view.readonly and writable:
                raise TypeError(f"{what}: the buffer is read-only ({type(obj).__name__}); data from the DPUs "
                                f"needs a writable buffer such as a bytearray")
            self.nbytes = view.nbytes
            array_type = ctypes.c_ubyte * self.nbytes
            self.c = array_type.from_buffer_copy(view) if view.readonly else array_type.from_buffer(view)
        self.address = ctypes.addressof(self.c)


def check_uint(value, limit, what):
    """An integer argument in [0, limit], refused rather than wrapped."""
    if isinstance(value, bool):
        raise TypeError(f"{what} must be an integer, not bool")
    try:
        value = operator.index(value)
    except TypeError:
        raise TypeError(f"{what} must be an integer, not {type(value).__name__}") from None
    if value < 0 or value > limit:
        raise DpuError(f"{what} {value} is out of range (0 to {limit})")
    return value
