# SPDX-License-Identifier: MIT
"""ctypes binding of OpenPIM's libdpu (the C host API of sdk/include/dpu.h).

Only this module touches C: the rest of the package calls the functions
declared here.  libdpu is found next to the package in an SDK prefix
(<prefix>/lib/python3/dist-packages/dpu -> <prefix>/lib/libdpu.so), else in
$UPMEM_HOME/lib (set by upmem_env.sh), else by the dynamic loader's search
(LD_LIBRARY_PATH)."""

import ctypes
import os
from ctypes import (CFUNCTYPE, POINTER, Structure, Union, byref, c_bool, c_char, c_char_p, c_int,
                    c_size_t, c_uint, c_uint32, c_void_p)

# ---- constants of dpu_types.h / dpu_error.h ---------------------------------------

DPU_ALLOCATE_ALL = 0xFFFFFFFF
DPU_MRAM_HEAP_POINTER_NAME = "__sys_used_mram_end"

DPU_SET_RANKS, DPU_SET_DPU = 0, 1
DPU_ASYNCHRONOUS, DPU_SYNCHRONOUS = 0, 1
DPU_XFER_TO_DPU, DPU_XFER_FROM_DPU = 0, 1
DPU_XFER_DEFAULT, DPU_XFER_NO_RESET, DPU_XFER_ASYNC = 0, 1, 2
DPU_CALLBACK_DEFAULT, DPU_CALLBACK_ASYNC, DPU_CALLBACK_NONBLOCKING, DPU_CALLBACK_SINGLE_CALL = 0, 1, 2, 4

# dpu_error_t, in the order of dpu_error.h (a test checks it against the header)
ERROR_NAMES = (
    "DPU_OK", "DPU_ERR_INTERNAL", "DPU_ERR_SYSTEM", "DPU_ERR_DRIVER", "DPU_ERR_ALLOCATION", "DPU_ERR_INVALID_DPU_SET",
    "DPU_ERR_INVALID_THREAD_ID", "DPU_ERR_INVALID_NOTIFY_ID", "DPU_ERR_INVALID_WRAM_ACCESS",
    "DPU_ERR_INVALID_IRAM_ACCESS", "DPU_ERR_INVALID_MRAM_ACCESS", "DPU_ERR_INVALID_SYMBOL_ACCESS",
    "DPU_ERR_MRAM_BUSY", "DPU_ERR_TRANSFER_ALREADY_SET", "DPU_ERR_DIFFERENT_DPU_PROGRAMS",
    "DPU_ERR_CORRUPTED_MEMORY", "DPU_ERR_DPU_DISABLED", "DPU_ERR_DPU_ALREADY_RUNNING",
    "DPU_ERR_INVALID_MEMORY_TRANSFER", "DPU_ERR_INVALID_LAUNCH_POLICY", "DPU_ERR_DPU_FAULT",
    "DPU_ERR_ELF_INVALID_FILE", "DPU_ERR_ELF_NO_SUCH_FILE", "DPU_ERR_ELF_NO_SUCH_SECTION", "DPU_ERR_TIMEOUT",
    "DPU_ERR_INVALID_PROFILE", "DPU_ERR_UNKNOWN_SYMBOL", "DPU_ERR_LOG_FORMAT", "DPU_ERR_LOG_CONTEXT_MISSING",
    "DPU_ERR_LOG_BUFFER_TOO_SMALL", "DPU_ERR_VPD_INVALID_FILE", "DPU_ERR_VPD_NO_REPAIR", "DPU_ERR_NO_PROGRAM_LOADED",
    "DPU_ERR_INVALID_PARALLEL_MEMORY_TRANSFER", "DPU_ERR_WRAM_FIFO_FULL", "DPU_ERR_SG_TOO_MANY_BLOCKS",
    "DPU_ERR_SG_LENGTH_MISMATCH", "DPU_ERR_SG_NOT_ACTIVATED", "DPU_ERR_SG_NOT_MRAM_SYMBOL", "DPU_ERR_UNSUPPORTED",
)
ERRORS = {name: value for value, name in enumerate(ERROR_NAMES)}
ERRORS["DPU_ERR_ASYNC_JOBS"] = 1 << 31
globals().update(ERRORS)

UINT32_MAX = 0xFFFFFFFF


# ---- types -----------------------------------------------------------------------------

class _RankList(Structure):
    _fields_ = [("nr_ranks", c_uint32), ("ranks", c_void_p)]


class _SetUnion(Union):
    _fields_ = [("list", _RankList), ("dpu", c_void_p)]


class dpu_set_t(Structure):
    """struct dpu_set_t, passed by value as in C."""
    _anonymous_ = ("u",)
    _fields_ = [("kind", c_int), ("u", _SetUnion)]


class dpu_set_iterator_t(Structure):
    _fields_ = [("set", dpu_set_t), ("count", c_uint32), ("rank", c_uint32), ("index", c_uint32)]


class dpu_symbol_t(Structure):
    _fields_ = [("address", c_uint32), ("size", c_uint32)]


class openpim_fault(Structure):
    _fields_ = [("faulted", c_bool), ("tasklet", c_uint32), ("kind", c_char_p), ("message", c_char * 192),
                ("pc", c_uint32), ("line", c_uint32), ("file", c_char * 256), ("function", c_char * 128)]


dpu_error_t = c_uint  # an enum holding 1u << 31
CALLBACK_FN = CFUNCTYPE(dpu_error_t, dpu_set_t, c_uint32, c_void_p)


# ---- the library ----------------------------------------------------------------------

def _library_candidates():
    here = os.path.dirname(os.path.abspath(__file__))
    # <prefix>/lib/python3/dist-packages/dpu -> <prefix>/lib
    yield os.path.normpath(os.path.join(here, "..", "..", "..", "libdpu.so"))
    home = os.environ.get("UPMEM_HOME")
    if home:
        yield os.path.join(home, "lib", "libdpu.so")
    yield "libdpu.so"


def _load_library():
    errors = []
    for path in _library_candidates():
        if os.path.sep in path and not os.path.exists(path):
            continue
        try:
            return ctypes.CDLL(path)
        except OSError as e:
            errors.append(f"{path}: {e}")
    raise ImportError("dpu: cannot load OpenPIM's libdpu.so (source <prefix>/upmem_env.sh first)"
                      + ("; " + "; ".join(errors) if errors else ""))


lib = _load_library()
libc = ctypes.CDLL(None)

_set = dpu_set_t
_P = POINTER


def _proto(name, restype, *argtypes):
    f = getattr(lib, name)
    f.restype = restype
    f.argtypes = list(argtypes)
    return f


dpu_alloc = _proto("dpu_alloc", dpu_error_t, c_uint32, c_char_p, _P(_set))
dpu_alloc_ranks = _proto("dpu_alloc_ranks", dpu_error_t, c_uint32, c_char_p, _P(_set))
dpu_free = _proto("dpu_free", dpu_error_t, _set)
dpu_get_nr_ranks = _proto("dpu_get_nr_ranks", dpu_error_t, _set, _P(c_uint32))
dpu_get_nr_dpus = _proto("dpu_get_nr_dpus", dpu_error_t, _set, _P(c_uint32))
dpu_load = _proto("dpu_load", dpu_error_t, _set, c_char_p, _P(c_void_p))
dpu_load_from_memory = _proto("dpu_load_from_memory", dpu_error_t, _set, c_void_p, c_size_t, _P(c_void_p))
dpu_get_symbol = _proto("dpu_get_symbol", dpu_error_t, c_void_p, c_char_p, _P(dpu_symbol_t))
dpu_launch = _proto("dpu_launch", dpu_error_t, _set, c_int)
dpu_sync = _proto("dpu_sync", dpu_error_t, _set)
dpu_callback = _proto("dpu_callback", dpu_error_t, _set, CALLBACK_FN, c_void_p, c_int)
dpu_broadcast_to = _proto("dpu_broadcast_to", dpu_error_t, _set, c_char_p, c_uint32, c_void_p, c_size_t, c_int)
dpu_broadcast_to_symbol = _proto("dpu_broadcast_to_symbol", dpu_error_t, _set, dpu_symbol_t, c_uint32, c_void_p,
                                 c_size_t, c_int)
dpu_prepare_xfer = _proto("dpu_prepare_xfer", dpu_error_t, _set, c_void_p)
dpu_push_xfer = _proto("dpu_push_xfer", dpu_error_t, _set, c_int, c_char_p, c_uint32, c_size_t, c_int)
dpu_push_xfer_symbol = _proto("dpu_push_xfer_symbol", dpu_error_t, _set, c_int, dpu_symbol_t, c_uint32, c_size_t,
                              c_int)
dpu_log_read = _proto("dpu_log_read", dpu_error_t, _set, c_void_p)
dpu_set_iterator_begin = _proto("dpu_set_iterator_begin", dpu_set_iterator_t, _set)
dpu_set_iterator_next = _proto("dpu_set_iterator_next", c_bool, _P(dpu_set_iterator_t), _P(_set))
dpu_set_rank = _proto("dpu_set_rank", _set, _set, c_uint32)
dpu_error_to_string = _proto("dpu_error_to_string", c_void_p, dpu_error_t)
openpim_get_fault = _proto("openpim_get_fault", dpu_error_t, _set, _P(openpim_fault))
openpim_last_error = _proto("openpim_last_error", ctypes.c_char_p)

_open_memstream = libc.open_memstream
_open_memstream.restype = c_void_p
_open_memstream.argtypes = [_P(c_void_p), _P(c_size_t)]
_fclose = libc.fclose
_fclose.restype = c_int
_fclose.argtypes = [c_void_p]
_free = libc.free
_free.restype = None
_free.argtypes = [c_void_p]


# ---- helpers ------------------------------------------------------------------------------

def error_string(code):
    """dpu_error_to_string's text (the C string is heap memory: freed here)."""
    p = dpu_error_to_string(code)
    if not p:
        return f"error {code}"
    try:
        return ctypes.string_at(p).decode("utf-8", "replace")
    finally:
        _free(p)


def last_error():
    """The message libdpu printed about this thread's last failing call ("" if none)."""
    return (openpim_last_error() or b"").decode("utf-8", "replace")


def iterate_dpus(c_set):
    """The DPUs of a set (DPU_FOREACH order), as one-DPU dpu_set_t values."""
    it = dpu_set_iterator_begin(c_set)
    out = []
    while True:
        d = dpu_set_t()
        if not dpu_set_iterator_next(byref(it), byref(d)):
            return out
        out.append(d)


def read_log(c_set):
    """The bytes dpu_log_read writes for one DPU, or (error code, b"")."""
    buf, size = c_void_p(), c_size_t()
    stream = _open_memstream(byref(buf), byref(size))
    if not stream:
        raise MemoryError("open_memstream failed")
    rc = dpu_log_read(c_set, stream)
    _fclose(stream)  # sets buf and size
    try:
        data = ctypes.string_at(buf.value, size.value) if buf.value and size.value else b""
    finally:
        _free(buf.value)
    return rc, data
