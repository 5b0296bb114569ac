# SPDX-License-Identifier: MIT
"""Driving DPUs from Python (the SDK's dpu.driver module) over OpenPIM's libdpu.

A DpuSet is a set of DPUs from an allocation, one of its ranks, or one of its
DPUs; every operation maps onto the C host API (dpu.h) of the same meaning.

Differences from the UPMEM SDK, all on the side of failing loudly:
  * DPU assembly (asm_source), checkpoint() and restore() raise
    NotImplementedError: OpenPIM runs DPU programs natively, not DPU code.
  * Copying from several DPUs into a single host buffer, a log argument to an
    asynchronous exec, and assigning an attribute that is not a DPU symbol
    raise DpuError (the SDK would overwrite, ignore or store it silently).
  * Offsets and sizes are checked in Python (no wrap-around through ctypes).
  * Methods win over DPU symbols of the same name (read such symbols with copy).
  * DpuVariable accessors return lists of numbers (the SDK: memoryviews).
"""

import io
import os
import struct
import sys
import tempfile
import threading

from . import compiler
from . import ffi
from .elf_symbols import symbol_names
from .errors import DpuError
from .host_buffers import HostBuffer, check_uint

ALLOCATE_ALL = ffi.DPU_ALLOCATE_ALL
_SIZE_MAX = 2**64 - 1
_in_callback = threading.local()  # set while this thread runs a callback of call()


def _check(rc, what):
    if rc != ffi.DPU_OK:
        detail = ffi.last_error()  # what libdpu printed about this call, if anything
        raise DpuError(f"{what}: {ffi.error_string(rc)}" + (f" ({detail})" if detail else ""), rc)


def _unwrap(seq):
    return seq[0] if len(seq) == 1 else seq


class DpuSymbol:
    """A symbol of a DPU program.

    Attributes:
        name (str): the symbol's name
    """

    def __init__(self, name, c_symbol):
        self.name = name
        if isinstance(c_symbol, ffi.dpu_symbol_t):
            self.c_symbol = c_symbol
        else:
            address, size = c_symbol
            self.c_symbol = ffi.dpu_symbol_t(check_uint(address, ffi.UINT32_MAX, "symbol address"),
                                             check_uint(size, ffi.UINT32_MAX, "symbol size"))

    def value(self):
        """The symbol's value (the address of a variable)."""
        return self.c_symbol.address

    def size(self):
        """The symbol's size in bytes."""
        return self.c_symbol.size

    def __repr__(self):
        return f"DpuSymbol({self.name!r}, address=0x{self.value():x}, size={self.size()})"


class DpuProgram:
    """A program loaded on DPUs (what load() returns)."""

    def __init__(self, c_program, image):
        self.c_program = c_program
        self._image = image  # bytes, or the path it was loaded from
        self.symbols = {}

    def get_symbol(self, symbol):
        """The DpuSymbol of that name, or None when the program has none."""
        if not isinstance(symbol, str):
            raise TypeError(f"a symbol name is a str, not {type(symbol).__name__}")
        if symbol not in self.symbols:
            if "\0" in symbol:
                return None
            c_symbol = ffi.dpu_symbol_t()
            if ffi.dpu_get_symbol(self.c_program, symbol.encode(), ffi.byref(c_symbol)) != ffi.DPU_OK:
                return None
            self.symbols[symbol] = DpuSymbol(symbol, c_symbol)
        return self.symbols[symbol]

    def fetch_all_symbols(self):
        """{name: DpuSymbol} of every symbol of the program."""
        image = self._image
        if not isinstance(image, (bytes, bytearray, memoryview)):
            with open(image, "rb") as f:
                image = f.read()
        for name in symbol_names(image):
            self.get_symbol(name)
        return dict(self.symbols)


class DpuVariable:
    """The value of a DPU symbol read through a DpuSet attribute: one bytes-like
    per DPU.  Each accessor gives a number per element, a list when the symbol
    holds several, and a list per DPU when the set has several DPUs."""

    def __init__(self, contents):
        self.contents = contents

    def data(self):
        return _unwrap(self.contents)

    def _as(self, fmt):
        out = []
        for view in self.contents:
            if view.nbytes % struct.calcsize(fmt):
                raise DpuError(f"a {view.nbytes}-byte symbol is not a whole number of '{fmt}' elements")
            out.append(_unwrap(view.cast("B").cast(fmt).tolist()))
        return _unwrap(out)

    def int8(self): return self._as("b")
    def uint8(self): return self._as("B")
    def int16(self): return self._as("h")
    def uint16(self): return self._as("H")
    def int32(self): return self._as("i")
    def uint32(self): return self._as("I")
    def int64(self): return self._as("q")
    def uint64(self): return self._as("Q")
    def float(self): return self._as("f")
    def double(self): return self._as("d")


class DpuContext:
    """A snapshot of a DPU's state (checkpoint/restore): not available on OpenPIM."""

    def __init__(self, *args, **kwargs):
        raise NotImplementedError("DPU checkpoints are not supported by OpenPIM")

    @staticmethod
    def from_buffer(buf):
        raise NotImplementedError("DPU checkpoints are not supported by OpenPIM")


class DpuSet:
    """A set of DPUs.

    Args:
        nr_dpus (int, optional): DPUs to allocate (ALLOCATE_ALL: all of them)
        nr_ranks (int, optional): ranks to allocate instead (ALLOCATE_ALL: all);
            with neither, every DPU is allocated
        profile (str): the allocation profile, "key=value,..."
        binary (str or bytes, optional): a DPU program to load (path or image)
        c_source (optional): DPU C source(s) to compile and load: a path, a file
            object, or a list of them
        asm_source: DPU assembly; not supported (NotImplementedError)
        log (optional): where exec() writes the DPUs' logs: a file object, or a
            list of them, one per DPU
        async_mode (bool): default mode of copy() and exec()

    Raises:
        DpuError: if the allocation or the load fails
    """

    # ---- construction ---------------------------------------------------------------

    def __init__(self, nr_dpus=None, nr_ranks=None, profile="", binary=None, c_source=None, asm_source=None,
                 log=None, async_mode=False):
        self._init_common(None, log, async_mode)
        object.__setattr__(self, "_freed", True)  # until allocated
        object.__setattr__(self, "_pending", [])  # host buffers of asynchronous transfers
        object.__setattr__(self, "_callbacks", [])  # (C thunk, exceptions) of asynchronous callbacks
        if nr_dpus is not None and nr_ranks is not None:
            raise DpuError("cannot specify nr_dpus and nr_ranks")
        if profile is None:
            profile = ""
        if not isinstance(profile, str):
            raise TypeError(f"profile must be a str, not {type(profile).__name__}")
        if "\0" in profile:
            raise DpuError("profile contains a NUL character")
        c_set = ffi.dpu_set_t()
        if nr_ranks is None:
            count = check_uint(ALLOCATE_ALL if nr_dpus is None else nr_dpus, ALLOCATE_ALL, "nr_dpus")
            _check(ffi.dpu_alloc(count, profile.encode(), ffi.byref(c_set)), f"dpu_alloc({count}, {profile!r})")
        else:
            count = check_uint(nr_ranks, ALLOCATE_ALL, "nr_ranks")
            _check(ffi.dpu_alloc_ranks(count, profile.encode(), ffi.byref(c_set)),
                   f"dpu_alloc_ranks({count}, {profile!r})")
        object.__setattr__(self, "_c_set", c_set)
        object.__setattr__(self, "_freed", False)
        try:
            self._build_tree()
            if isinstance(log, list):
                if len(log) != len(self._dpus):
                    raise DpuError(f"log list has {len(log)} entries for {len(self._dpus)} DPUs")
                for dpu, stream in zip(self._dpus, log):
                    object.__setattr__(dpu, "_log", stream)
            if binary is not None or c_source is not None or asm_source is not None:
                self.load(binary, c_source, asm_source)
        except BaseException:
            ffi.dpu_free(c_set)
            object.__setattr__(self, "_freed", True)
            raise

    def _init_common(self, top, log, async_mode):
        for name, value in (("_top", top), ("_dpus", []), ("_ranks", []), ("_rank", None), ("_program", None),
                            ("_log", None if isinstance(log, list) else log), ("_async_mode", bool(async_mode))):
            object.__setattr__(self, name, value)

    @classmethod
    def _child(cls, top, c_set):
        s = object.__new__(cls)
        s._init_common(top, top._log, top._async_mode)
        object.__setattr__(s, "_c_set", c_set)
        return s

    def _build_tree(self):
        """The rank sets and DPU sets of a fresh allocation, in DPU_FOREACH order."""
        nr_ranks = ffi.c_uint32()
        _check(ffi.dpu_get_nr_ranks(self._c_set, ffi.byref(nr_ranks)), "dpu_get_nr_ranks")
        for r in range(nr_ranks.value):
            rank = DpuSet._child(self, ffi.dpu_set_rank(self._c_set, r))
            self._ranks.append(rank)
            rank._ranks.append(rank)
            for c_dpu in ffi.iterate_dpus(rank._c_set):
                dpu = DpuSet._child(self, c_dpu)
                object.__setattr__(dpu, "_rank", rank)
                dpu._ranks.append(rank)
                dpu._dpus.append(dpu)
                rank._dpus.append(dpu)
                self._dpus.append(dpu)
        nr_dpus = ffi.c_uint32()
        _check(ffi.dpu_get_nr_dpus(self._c_set, ffi.byref(nr_dpus)), "dpu_get_nr_dpus")
        if nr_dpus.value != len(self._dpus):
            raise DpuError(f"libdpu counts {nr_dpus.value} DPUs but iterates over {len(self._dpus)}")

    # ---- the set ----------------------------------------------------------------------

    def _root(self):
        return self if self._top is None else self._top

    def _live(self):
        if self._root()._freed:
            raise DpuError("this DPU set was freed")
        return self._c_set

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc_value, exc_traceback):
        if self._top is None and not self._freed:
            self.free()

    def __del__(self):
        # a forgotten top-level set gives its DPUs back (children keep it alive)
        try:
            if self.__dict__.get("_top", 1) is None and not self.__dict__.get("_freed", True):
                self.free()
        except Exception:
            pass

    def __iter__(self):
        return iter(self.dpus())

    def __len__(self):
        return len(self._dpus)

    def __repr__(self):
        kind = "DPU" if self._rank is not None else ("rank" if self._top is not None else "set")
        return f"<DpuSet {kind}: {len(self._dpus)} DPUs, {len(self._ranks)} ranks>"

    def dpus(self):
        """The DPUs of the set, each a one-DPU DpuSet, in DPU_FOREACH order."""
        return list(self._dpus)

    def ranks(self):
        """The ranks of the set, each a DpuSet."""
        return list(self._ranks)

    def free(self):
        """Gives the DPUs back; only for a set made by DpuSet(...)."""
        if self._top is not None:
            raise DpuError("only a set made by DpuSet(...) can be freed, not one of its ranks or DPUs")
        if self._freed:
            raise DpuError("this DPU set was already freed")
        _check(ffi.dpu_free(self._c_set), "dpu_free")
        object.__setattr__(self, "_freed", True)
        self._pending.clear()
        self._callbacks.clear()

    # ---- programs ------------------------------------------------------------------------

    def load(self, binary=None, c_source=None, asm_source=None):
        """Loads a program on every DPU of the set: a binary (path, or the image
        as bytes) or C source(s) compiled with dpu.compiler.DEFAULT_DPU_COMPILER.

        Returns the DpuProgram.  Raises DpuError if it cannot be loaded."""
        if asm_source is not None:
            raise NotImplementedError("DPU assembly cannot run on OpenPIM (it runs DPU programs compiled from C)")
        if (binary is None) == (c_source is None):
            raise DpuError("one and only one source or binary program must be defined")
        c_set = self._live()
        if c_source is None and not isinstance(binary, (str, os.PathLike)):
            image = HostBuffer(binary, False, "binary")  # checked before anything is loaded
        with tempfile.TemporaryDirectory(prefix="dpu-python-") as tmp:
            c_program = ffi.c_void_p()
            if c_source is not None or isinstance(binary, (str, os.PathLike)):
                path = self._compile(c_source, tmp) if c_source is not None else self._path(binary)
                what = "dpu_load" if c_source is not None else f"dpu_load({path!r})"
                rc = ffi.dpu_load(c_set, os.fsencode(path), ffi.byref(c_program))
                if rc == ffi.DPU_OK and c_source is not None:
                    with open(path, "rb") as f:
                        path = f.read()  # the temporary file goes away
                program = DpuProgram(c_program, path)
            else:
                what = f"dpu_load_from_memory ({image.nbytes} bytes)"
                rc = ffi.dpu_load_from_memory(c_set, image.address, image.nbytes, ffi.byref(c_program))
                program = DpuProgram(c_program, bytes(image.c))
        # after a failed load the DPUs' programs are unknown: no symbol attributes
        for dpu in self._dpus:
            object.__setattr__(dpu, "_program", program if rc == ffi.DPU_OK else None)
        _check(rc, what)
        return program

    @staticmethod
    def _path(binary):
        path = os.fspath(binary)
        if not isinstance(path, str):
            path = os.fsdecode(path)
        if "\0" in path:
            raise DpuError("binary path contains a NUL character")
        return path

    @staticmethod
    def _compile(c_source, tmp):
        sources = []
        for i, src in enumerate(c_source if isinstance(c_source, list) else [c_source]):
            if isinstance(src, (str, os.PathLike)):
                sources.append(os.fspath(src))
            elif callable(getattr(src, "read", None)):
                name = os.path.join(tmp, f"src{i}.c")
                text = src.read()
                with open(name, "wb" if isinstance(text, bytes) else "w") as f:
                    f.write(text)
                sources.append(name)
            else:
                raise TypeError(f"c_source: expected a path or a file object, got {type(src).__name__}")
        image = os.path.join(tmp, "main.dpu")
        try:
            compiler.DEFAULT_DPU_COMPILER.compile(sources, output=image, opt_lvl=compiler.O2)
        except (OSError, compiler.subprocess.CalledProcessError) as e:
            detail = getattr(e, "stderr", None) or str(e)
            raise DpuError(f"cannot compile the DPU program: {detail.strip()}") from e
        return image

    def _common_program(self):
        programs = {id(d._program): d._program for d in self._dpus}
        return programs.popitem()[1] if len(programs) == 1 else None

    def _symbol(self, name):
        program = self._common_program()
        return program.get_symbol(name) if program is not None else None

    # ---- symbols as attributes ---------------------------------------------------------

    def __getattr__(self, name):
        # only for names that are not attributes: methods win over DPU symbols
        if not name.startswith("_") and "_dpus" in self.__dict__:
            symbol = self._symbol(name)
            if symbol is not None:
                size = symbol.size()
                contents = [memoryview(bytearray(size)) for _ in self._dpus]
                # by name: libdpu resolves it in the program the DPUs really have
                self.copy(contents, name, async_mode=False)
                return DpuVariable(contents)
        raise AttributeError(f"DpuSet has no attribute {name!r}, and the program loaded on the set has no "
                             f"symbol of that name")

    def __setattr__(self, name, value):
        if name.startswith("_") or hasattr(type(self), name):
            raise AttributeError(f"cannot set DpuSet attribute {name!r}")
        if self._symbol(name) is None:
            raise DpuError(f"no DPU symbol {name!r} in the program loaded on this set (load one program on every "
                           f"DPU of the set first)")
        self.copy(name, value)

    # ---- transfers ------------------------------------------------------------------------

    def _xfer_flags(self, async_mode):
        return ffi.DPU_XFER_ASYNC if (self._async_mode if async_mode is None else async_mode) else ffi.DPU_XFER_DEFAULT

    def copy(self, dst, src, size=None, offset=0, async_mode=None):
        """Copies between the host and the DPUs.

        The DPU side (dst or src) is a symbol name (str) or a DpuSymbol; the host
        side is one bytes-like buffer or a list of them (None to skip a DPU), one
        per DPU in DPU_FOREACH order.  One buffer to the DPUs is a broadcast; from
        the DPUs, one buffer needs a one-DPU set.  size: bytes to move (default:
        the buffers' size, which must then be equal); offset: bytes into the symbol.

        Raises DpuError for invalid arguments, unknown symbols or accesses
        outside the symbol; TypeError for arguments of the wrong type."""
        to_dpu = isinstance(dst, (str, DpuSymbol))
        from_dpu = isinstance(src, (str, DpuSymbol))
        if to_dpu == from_dpu:
            raise DpuError("copy() moves data between the host and the DPUs: exactly one of dst and src must be a "
                           "DPU symbol (str or DpuSymbol)")
        host, device = (src, dst) if to_dpu else (dst, src)
        c_set = self._live()
        offset = check_uint(offset, ffi.UINT32_MAX, "offset")
        if size is not None:
            size = check_uint(size, _SIZE_MAX, "size")
        where = device if isinstance(device, str) else device.name
        if isinstance(device, str):
            if "\0" in device:
                raise DpuError("symbol name contains a NUL character")
            by_name, c_device = True, device.encode()
        else:
            by_name, c_device = False, device.c_symbol
        what = f"{'copy to' if to_dpu else 'copy from'} symbol {where!r} at offset {offset}"
        flags = self._xfer_flags(async_mode)

        multiple = isinstance(host, (list, tuple))
        if multiple and len(host) == 1 and len(self._dpus) == 1:
            multiple, host = False, host[0]
            if host is None:
                return
        if multiple:
            buffers = self._host_buffers(host, not to_dpu)
            sizes = {b.nbytes for b in buffers if b is not None}
            if not sizes:
                return
            if size is None:
                if len(sizes) != 1:
                    raise DpuError(f"{what}: the host buffers differ in size ({sorted(sizes)}); give size=")
                size = sizes.pop()
            elif min(sizes) < size:
                raise DpuError(f"{what}: a host buffer of {min(sizes)} bytes is too small for {size} bytes")
            direction = ffi.DPU_XFER_TO_DPU if to_dpu else ffi.DPU_XFER_FROM_DPU
            # no buffer of an earlier failed push may linger on a DPU
            _check(ffi.dpu_prepare_xfer(c_set, None), "dpu_prepare_xfer")
            try:
                for dpu, b in zip(self._dpus, buffers):
                    if b is not None:
                        _check(ffi.dpu_prepare_xfer(dpu._c_set, b.address), "dpu_prepare_xfer")
                if by_name:
                    rc = ffi.dpu_push_xfer(c_set, direction, c_device, offset, size, flags)
                else:
                    rc = ffi.dpu_push_xfer_symbol(c_set, direction, c_device, offset, size, flags)
                _check(rc, what)
            except BaseException:
                ffi.dpu_prepare_xfer(c_set, None)
                raise
            self._keep(flags, buffers)
            return

        if host is None:
            raise TypeError(f"{what}: no host buffer (None)")
        if not to_dpu and len(self._dpus) != 1:
            raise DpuError(f"{what}: {len(self._dpus)} DPUs cannot be read into one host buffer; give a list of "
                           f"{len(self._dpus)} buffers")
        b = HostBuffer(host, not to_dpu, "host buffer")
        if size is None:
            size = b.nbytes
        elif b.nbytes < size:
            raise DpuError(f"{what}: the host buffer of {b.nbytes} bytes is too small for {size} bytes")
        if to_dpu:
            if by_name:
                rc = ffi.dpu_broadcast_to(c_set, c_device, offset, b.address, size, flags)
            else:
                rc = ffi.dpu_broadcast_to_symbol(c_set, c_device, offset, b.address, size, flags)
            _check(rc, what)
        else:
            _check(ffi.dpu_prepare_xfer(c_set, b.address), "dpu_prepare_xfer")
            try:
                if by_name:
                    rc = ffi.dpu_push_xfer(c_set, ffi.DPU_XFER_FROM_DPU, c_device, offset, size, flags)
                else:
                    rc = ffi.dpu_push_xfer_symbol(c_set, ffi.DPU_XFER_FROM_DPU, c_device, offset, size, flags)
                _check(rc, what)
            except BaseException:
                ffi.dpu_prepare_xfer(c_set, None)
                raise
        self._keep(flags, [b])

    def _host_buffers(self, host, writable):
        if len(host) != len(self._dpus):
            raise DpuError(f"{len(host)} host buffers for a set of {len(self._dpus)} DPUs")
        return [None if h is None else HostBuffer(h, writable, f"host buffer {i}") for i, h in enumerate(host)]

    def _keep(self, flags, buffers):
        # an asynchronous transfer's host memory must live until sync()
        if flags & ffi.DPU_XFER_ASYNC:
            self._root()._pending.extend(b for b in buffers if b is not None)

    # ---- execution ---------------------------------------------------------------------

    def exec(self, log=None, async_mode=None):
        """Runs the loaded program on every DPU of the set.

        log: where to write the DPUs' logs afterwards (a file object, a list of
        them one per DPU, or {dpu: file object}); default: the constructor's.
        Raises DpuError if the launch fails or a DPU faults."""
        c_set = self._live()
        if self._async_mode if async_mode is None else async_mode:
            if log is not None:
                raise DpuError("an asynchronous exec() cannot print logs: call sync(), then log()")
            _check(ffi.dpu_launch(c_set, ffi.DPU_ASYNCHRONOUS), "dpu_launch(DPU_ASYNCHRONOUS)")
            return
        rc = ffi.dpu_launch(c_set, ffi.DPU_SYNCHRONOUS)
        if rc != ffi.DPU_OK:
            raise DpuError(f"dpu_launch: {ffi.error_string(rc)}{self._faults()}", rc)
        self._logfn(log, None)

    def _faults(self):
        """What the faulted DPUs of the set say (openpim_get_fault), as text."""
        lines = []
        info = ffi.openpim_fault()
        for i, dpu in enumerate(self._dpus):
            if ffi.openpim_get_fault(dpu._c_set, ffi.byref(info)) == ffi.DPU_OK and info.faulted:
                lines.append(f"DPU {i}: {info.message.decode('utf-8', 'replace')}")
        shown = lines[:4] + ([f"... and {len(lines) - 4} more DPUs"] if len(lines) > 4 else [])
        return "".join(f"\n  {line}" for line in shown)

    def log(self, stream=None):
        """Writes the DPUs' logs (their printf output of the last launch) to
        stream (default: the constructor's log, else sys.stdout)."""
        self._live()
        self._logfn(stream, sys.stdout)

    def _logfn(self, log, default):
        streams = {dpu: dpu._log if dpu._log is not None else default for dpu in self._dpus}
        if isinstance(log, list):
            if len(log) != len(self._dpus):
                raise DpuError(f"log list has {len(log)} entries for {len(self._dpus)} DPUs")
            streams.update({dpu: s for dpu, s in zip(self._dpus, log) if s is not None})
        elif isinstance(log, dict):
            for dpu, s in log.items():
                if dpu not in streams:
                    raise DpuError("log dictionary names a DPU that is not in this set")
                streams[dpu] = s
        elif log is not None:
            streams = dict.fromkeys(self._dpus, log)
        for dpu, stream in streams.items():
            if stream is None:
                continue
            if not callable(getattr(stream, "write", None)):
                raise DpuError("stream argument is not an object with a 'write' method")
            rc, data = ffi.read_log(dpu._c_set)
            _check(rc, "dpu_log_read")
            _write(stream, data)

    def sync(self):
        """Waits for the set's asynchronous operations; raises DpuError if one failed."""
        c_set = self._live()
        rc = ffi.dpu_sync(c_set)
        root = self._root()
        errors = [raised[i] for _, raised in root._callbacks for i in sorted(raised)]
        if self._top is None and not getattr(_in_callback, "active", False):
            # everything asynchronous has finished: its memory and thunks can go
            # (not from inside a callback, whose own thunk is still running)
            self._pending.clear()
            self._callbacks.clear()
        if rc != ffi.DPU_OK:
            if errors:  # an asynchronous callback raised it
                raise errors[0]
            raise DpuError(f"dpu_sync: {ffi.error_string(rc)}{self._faults()}", rc)

    def call(self, fn, arg, async_mode=None, is_blocking=True, single_call=False):
        """Calls fn(dpu_set, index, arg) once per rank of the set (index: the
        rank's position in the set), or once with the whole set with
        single_call, after the set's pending work.  An exception raised by fn is
        raised again here, or by sync() for an asynchronous call (async_mode:
        fn runs later, on another thread; is_blocking=False lets the ranks'
        later work start while it runs)."""
        if not callable(fn):
            raise TypeError(f"fn must be callable, not {type(fn).__name__}")
        c_set = self._live()
        flags = ffi.DPU_CALLBACK_DEFAULT
        if self._async_mode if async_mode is None else async_mode:
            flags |= ffi.DPU_CALLBACK_ASYNC
        if not is_blocking:
            flags |= ffi.DPU_CALLBACK_NONBLOCKING
        if single_call:
            flags |= ffi.DPU_CALLBACK_SINGLE_CALL
        raised = {}  # rank index -> exception: reported in call order, then rank order

        def trampoline(_c_set, index, _args):
            outer = getattr(_in_callback, "active", False)
            _in_callback.active = True
            try:
                target = self if (single_call or self._rank is not None) else self._ranks[index]
                fn(target, index, arg)
                return ffi.DPU_OK
            except BaseException as e:  # never unwind through C
                raised[index] = e
                return ffi.DPU_ERR_INTERNAL
            finally:
                _in_callback.active = outer

        c_fn = ffi.CALLBACK_FN(trampoline)
        if flags & ffi.DPU_CALLBACK_ASYNC:
            # it runs later, on a thread of libdpu: the C thunk must outlive this call
            self._root()._callbacks.append((c_fn, raised))
        rc = ffi.dpu_callback(c_set, c_fn, None, flags)
        if raised and not flags & ffi.DPU_CALLBACK_ASYNC:
            raise raised[min(raised)]
        _check(rc, "dpu_callback")

    def checkpoint(self, iram=True, mram=True, wram=True):
        raise NotImplementedError("DPU checkpoints are not supported by OpenPIM")

    def restore(self, context, iram=True, mram=True, wram=True):
        raise NotImplementedError("DPU checkpoints are not supported by OpenPIM")


def _write(stream, data):
    """Writes log bytes to a text stream (decoded) or a binary one."""
    if isinstance(stream, (io.RawIOBase, io.BufferedIOBase)):
        stream.write(data)
        return
    try:
        stream.write(data.decode("utf-8", "replace"))
    except TypeError:
        stream.write(data)
