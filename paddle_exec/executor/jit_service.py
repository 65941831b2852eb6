"""Compiling segments: the generated file in the user cache folder, numba's on-disk cache, one background thread.

    code = segment_code(source, key, folder)     # one per key in the process
    code.compile(signature)                      # now, in this thread (loads numba's cached machine code if any)
    code.is_cached(signature)                    # whether numba's cache holds it (loading is then cheap)
    SERVICE.request(code, signature)             # later, in the compiler thread
    code.runtime(progress, *inputs)              # the compiled function, once `code.ready` has the signature

The source is written once to `<folder>/seg_<key>.py` (never rewritten, so numba's cache of it stays valid; the key
changes with the text) and imported as a module; numba caches what it compiles next to it (or under
NUMBA_CACHE_DIR), so a second process loads machine code instead of compiling. The folder is the user's cache
folder (config.py: PADDLE_EXEC_CACHE_DIR, else $XDG_CACHE_HOME/paddle_exec, else ~/.cache/paddle_exec), never the
source tree.

Two dispatchers per segment: `compiler` (cache=True) compiles or loads one signature at a time, and `runtime`,
which never compiles (numba's disable_compile): calls with a signature it lacks raise TypeError at once instead
of compiling in the caller's thread. Each compiled signature is handed from the first to the second
(add_overload). A failed compile is remembered per signature: that segment then runs its ops one by one.

The compiler thread is a daemon made at the first request; it takes requests in order, one at a time (numba
compiles under one global lock anyway). At exit (atexit) no compile starts any more and the one running is waited
for: llvmlite calls LLVM through ctypes without the GIL, so a compile left running while the interpreter tears
down would use LLVM objects being freed (an LLVM assertion or a segfault at the end of a script that had finished
its work). Requests made after that are dropped; their segments run their ops one by one, as before a compile.

As PyTensor's numba linker does, everything is numba's own cache; as JAX does, the key is the
computation (op types, attributes) and the signature its dtypes and ranks, never shapes.
"""
from __future__ import annotations

import atexit
import importlib.util
import logging
import os
import queue
import sys
import tempfile
import threading
import time

import numba

from ..kernels.segment import blas
from .codegen import FUNCTION_NAME

__all__ = ['SegmentCode', 'segment_code', 'SERVICE', 'CompileService', 'usable_folder']

log = logging.getLogger('paddle_exec.segments')
_codes: dict = {}
_codes_lock = threading.Lock()


def usable_folder(folder: str) -> str:
    """`folder/segments`, made if missing; a per-user temporary folder when it cannot be written."""
    for base in (folder, os.path.join(tempfile.gettempdir(), 'paddle_exec-%s' % _user())):
        path = os.path.join(base, 'segments')
        try:
            os.makedirs(path, exist_ok=True)
            if os.access(path, os.W_OK):
                return path
        except OSError:
            continue
    raise OSError('no writable folder for compiled segments (tried %s and the temporary folder)' % folder)


def _user() -> str:
    try:
        return str(os.getuid())
    except AttributeError:
        return 'user'


class SegmentCode:
    """The generated function of one segment key and what is compiled of it (see the module docstring)."""

    def __init__(self, key: str, source: str, folder: str):
        self.key = key
        self.source = source
        self.folder = folder            # the cache folder asked for (variants of the segment go there too)
        self.path = os.path.join(usable_folder(folder), 'seg_%s.py' % key)
        self.runtime = None
        self._compiler = None
        self.ready: set = set()
        self.failed: dict = {}
        self.pending: set = set()
        self._lock = threading.RLock()

    # --- the generated module ------------------------------------------------------------------------------------
    def _write(self) -> None:
        try:
            with open(self.path, encoding='utf-8') as f:
                if f.read() == self.source:
                    return
        except OSError:
            pass
        tmp = '%s.%d.%d.tmp' % (self.path, os.getpid(), threading.get_ident())
        with open(tmp, 'w', encoding='utf-8') as f:
            f.write(self.source)
        os.replace(tmp, self.path)

    def _dispatchers(self):
        with self._lock:
            if self._compiler is None:
                blas.bind()               # the BLAS symbols must be known before numba compiles or loads
                self._write()
                name = 'paddle_exec_segments.seg_%s' % self.key
                spec = importlib.util.spec_from_file_location(name, self.path)
                module = importlib.util.module_from_spec(spec)
                spec.loader.exec_module(module)
                sys.modules[name] = module
                py_func = getattr(module, FUNCTION_NAME)
                runtime = numba.njit(nogil=True)(py_func)      # compiling is disabled at its first overload
                self._compiler = numba.njit(nogil=True, cache=True)(py_func)
                self.runtime = runtime
            return self._compiler

    # --- compiling -----------------------------------------------------------------------------------------------
    def is_cached(self, signature: tuple) -> bool:
        """Whether numba's on-disk cache holds machine code for `signature` (then `compile` only loads it)."""
        try:
            index = self._dispatchers()._cache._cache_file._load_index()
        except Exception:   # noqa: BLE001 - numba's cache internals: when unreadable, assume a compile
            return False
        return any(isinstance(k, tuple) and k and k[0] == signature for k in index)

    def compile(self, signature: tuple) -> bool:
        """Compiles (or loads) `signature` now, in this thread; True when it is ready."""
        with self._lock:
            if signature in self.ready:
                return True
            if signature in self.failed:
                return False
            try:
                compiler = self._dispatchers()
                compiler.compile(signature)
                self.runtime.add_overload(compiler.overloads[signature])
                self.runtime.disable_compile()
            except Exception as exc:   # noqa: BLE001 - a segment that does not compile runs its ops one by one
                self.failed[signature] = exc
                log.warning('segment %s did not compile for %s (its ops run one by one): %s: %s', self.key,
                            signature, type(exc).__name__, str(exc).split('\n')[0])
                return False
            finally:
                self.pending.discard(signature)
            self.ready.add(signature)
            return True


def segment_code(source: str, key: str, folder: str) -> SegmentCode:
    """The process's SegmentCode of `key` (made once)."""
    code = _codes.get(key)
    if code is None:
        with _codes_lock:
            code = _codes.get(key)
            if code is None:
                code = _codes[key] = SegmentCode(key, source, folder)
    return code


class CompileService:
    """One daemon thread compiling requested (segment, signature) pairs in order."""

    def __init__(self):
        self._queue: queue.SimpleQueue = queue.SimpleQueue()
        self._thread = None
        self._lock = threading.Lock()
        self._compiling = threading.Lock()      # held by the compiler thread while one compile runs
        self._closed = False

    def request(self, code: SegmentCode, signature: tuple) -> None:
        with self._lock:
            if self._closed or signature in code.ready or signature in code.failed or signature in code.pending:
                return
            code.pending.add(signature)
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._loop, name='paddle_exec-segment-compiler',
                                                daemon=True)
                self._thread.start()
        self._queue.put((code, signature))

    def _loop(self) -> None:
        while True:
            code, signature = self._queue.get()
            with self._compiling:
                if self._closed:
                    code.pending.discard(signature)
                else:
                    code.compile(signature)
            code = None

    def close(self, timeout: float = 300.0) -> bool:
        """No compile starts from now on; waits (up to `timeout` seconds) for the running one to end. Called at
        exit (see the module docstring). True when no compile is running."""
        with self._lock:
            self._closed = True
        if not self._compiling.acquire(timeout=timeout):
            return False
        self._compiling.release()
        return True

    def idle(self) -> bool:
        """Nothing queued or compiling (tests and benchmarks wait for this)."""
        return self._queue.empty() and not any(c.pending for c in list(_codes.values()))

    def wait(self, timeout: float = 600.0) -> bool:
        """Blocks until idle (or `timeout` seconds); True when idle."""
        deadline = time.monotonic() + timeout
        while not self.idle():
            if time.monotonic() > deadline:
                return False
            time.sleep(0.01)
        return True


SERVICE = CompileService()
atexit.register(SERVICE.close)
