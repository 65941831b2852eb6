"""Pickles of checkpoints: read without running code, written so that any numpy reads them.

Paddle keeps state dicts as pickles (`.pdparams`, `.pdopt`, `paddle.save`), and `pickle.load` runs whatever a file
names: a crafted checkpoint could call `os.system`. `load_pickle` reads only what Paddle's checkpoints hold:

- dicts, lists, tuples, strings, bytes, numbers, None (pickle opcodes, no code involved),
- `collections.OrderedDict`, `complex`, `bytearray`, `tuple` (paddle.save of a 2.x Tensor pickles
  `tuple((name, array))`), `_codecs.encode` for latin-1 only (how protocol 2 spells `bytes`),
- numpy arrays, scalars and dtypes through numpy's own reconstruct functions (`numpy.core` and numpy 2's
  `numpy._core` spellings), object dtypes excepted,
- `eval` in the one form Paddle 2.x's paddle.save writes for a LoDTensor, `eval('data', {'data': array})`,
  replaced by a function that returns the array and evaluates nothing.

Any other global is refused with `UnsafePickleError`, naming the file and the global; the tree loaded is then
checked once more (only those types, no object arrays). Both happen before anything from the file is used.
A truncated or corrupt pickle raises `CorruptFileError` naming the file, the variable being read (the dict key),
the bytes the stream asked for and the bytes that were there: the diagnosis reruns the file through the pure-Python
unpickler, whose stack shows the key, only once the fast C unpickler has failed.

`dumps_portable` pickles arrays as `numpy.ndarray(shape, dtype, bytearray)`: numpy 2's own pickles name
`numpy._core`, which the numpy 1.x of a Paddle installation cannot import.
"""
from __future__ import annotations

import _compat_pickle
import collections
import io
import pickle
import struct

import numpy as np

__all__ = ['UnsafePickleError', 'CorruptFileError']


class UnsafePickleError(pickle.UnpicklingError):
    """A pickle names a Python global a Paddle checkpoint never holds; nothing from the file was run."""


class _Refusal(UnsafePickleError):
    """Raised by the stand-ins below, before the file is known: `_load` names it."""


class CorruptFileError(ValueError, RuntimeError):
    """A checkpoint file is truncated or damaged: the message names the file, the variable and the bytes. Both a
    ValueError and a RuntimeError (what Paddle's load ops raise, and paddle_exec's earlier checks did)."""


# --- what a checkpoint may name ---------------------------------------------------------------------------------

def _numpy_dtype(*args):
    dtype = np.dtype(*args)
    if dtype.hasobject:
        raise _Refusal('object arrays are refused')
    return dtype


def _numpy_scalar(dtype, *args):
    if not isinstance(dtype, np.dtype) or dtype.hasobject:
        raise _Refusal('numpy scalars of object type are refused')
    return _NUMPY_SCALAR(dtype, *args)


def _latin1_bytes(*args, **kwargs):
    """_codecs.encode(text, 'latin1'), protocol 2's spelling of bytes."""
    if kwargs or len(args) != 2 or args[1] not in ('latin1', 'latin-1') or not isinstance(args[0], str):
        raise _Refusal("it asks for the Python global '_codecs.encode' other than as protocol 2's "
                                "encode(text, 'latin1') (nothing from the file was run)")
    return args[0].encode('latin1')


def _paddle_lod_tensor(*args, **kwargs):
    """Paddle 2.x pickles a LoDTensor as eval('data', {'data': array}): give the array, evaluate nothing."""
    if kwargs or len(args) != 2 or args[0] != 'data' or not isinstance(args[1], dict) or \
            set(args[1]) != {'data'} or not isinstance(args[1]['data'], np.ndarray):
        raise _Refusal("it asks for the Python global 'builtins.eval' other than as Paddle's "
                                "eval('data', {'data': array}) (nothing was evaluated)")
    return args[1]['data']


_NUMPY_RECONSTRUCT = np.ndarray.__reduce__(np.zeros(1))[0]        # numpy's _reconstruct, under any numpy
_NUMPY_SCALAR = np.float32(0).__reduce__()[0]
_NUMPY_FROMBUFFER = np.zeros(1).__reduce_ex__(5)[0]

_ALLOWED = {('collections', 'OrderedDict'): collections.OrderedDict,
            ('builtins', 'complex'): complex,
            ('builtins', 'bytearray'): bytearray,
            ('builtins', 'tuple'): tuple,
            ('builtins', 'eval'): _paddle_lod_tensor,
            ('_codecs', 'encode'): _latin1_bytes,
            ('numpy', 'ndarray'): np.ndarray,
            ('numpy', 'dtype'): _numpy_dtype}
for _core in ('numpy.core', 'numpy._core'):
    _ALLOWED[(_core + '.multiarray', '_reconstruct')] = _NUMPY_RECONSTRUCT
    _ALLOWED[(_core + '.multiarray', 'scalar')] = _numpy_scalar
    _ALLOWED[(_core + '.numeric', '_frombuffer')] = _NUMPY_FROMBUFFER
_PLAIN = (str, bytes, bytearray, int, float, complex, bool, type(None), np.dtype)


def _find_class(module: str, name: str, extra: dict, source: str):
    # Python 2 names, as protocol 2 pickles spell them ('__builtin__', 'copy_reg'): pickle's own mapping
    if (module, name) in _compat_pickle.NAME_MAPPING:
        module, name = _compat_pickle.NAME_MAPPING[(module, name)]
    elif module in _compat_pickle.IMPORT_MAPPING:
        module = _compat_pickle.IMPORT_MAPPING[module]
    found = _ALLOWED.get((module, name)) or extra.get((module, name))
    if found is None:
        raise UnsafePickleError("Refusing to load %s: it asks for the Python global '%s.%s', which a Paddle "
                                "checkpoint never holds (only dicts, lists, tuples, strings, numbers and numpy "
                                "arrays are read; nothing from the file was run)" % (source, module, name))
    return found


class _Unpickler(pickle.Unpickler):
    def __init__(self, file, source: str, extra: dict):
        super().__init__(file, encoding='latin1')
        self._source, self._extra = source, extra

    def find_class(self, module, name):
        return _find_class(module, name, self._extra, self._source)


def _check_tree(obj, source: str, extra_types: tuple) -> None:
    """Raises UnsafePickleError unless `obj` holds only the allowed types (a second line behind find_class)."""
    pending = [obj]
    while pending:
        item = pending.pop()
        if isinstance(item, (dict, collections.OrderedDict)):
            pending.extend(item.keys())
            pending.extend(item.values())
        elif type(item) in (list, tuple):
            pending.extend(item)
        elif isinstance(item, (np.ndarray, np.generic)):
            if item.dtype.hasobject:
                raise UnsafePickleError('Refusing to load %s: it holds an object array' % source)
        elif not isinstance(item, _PLAIN + extra_types):
            raise UnsafePickleError('Refusing to load %s: it holds a %s' % (source, type(item).__name__))


def loads(data: bytes, source: str = 'the pickle', extra_globals: dict | None = None):
    """The object pickled in `data`, read under the rules above; `source` names the data in errors."""
    return _load(io.BytesIO(data), data, source, extra_globals or {})


def load_pickle(path: str, extra_globals: dict | None = None):
    """The object pickled in file `path`, read under the rules above."""
    source = "'%s'" % path
    with open(path, 'rb') as f:
        return _load(f, None, source, extra_globals or {}, path)


def _load(file, data, source: str, extra: dict, path: str | None = None):
    try:
        obj = _Unpickler(file, source, extra).load()
    except _Refusal as e:
        raise UnsafePickleError('Refusing to load %s: %s' % (source, e)) from None
    except UnsafePickleError:
        raise
    except (pickle.UnpicklingError, EOFError, ValueError, TypeError, IndexError, KeyError, AttributeError,
            struct.error, OverflowError, MemoryError) as e:
        if data is None:
            with open(path, 'rb') as f:
                data = f.read()
        raise _diagnose(data, source, extra, e) from None
    _check_tree(obj, source, tuple(t for t in extra.values() if isinstance(t, type)))
    return obj


# --- what went wrong in a broken pickle -----------------------------------------------------------------------

class _ShortRead(Exception):
    def __init__(self, offset: int, wanted: int, found: int):
        super().__init__(offset, wanted, found)
        self.offset, self.wanted, self.found = offset, wanted, found


class _CountingReader:
    """A file over `data` that raises _ShortRead when asked for more bytes than remain."""

    def __init__(self, data: bytes):
        self._data, self._pos = data, 0
        self.short_frame = None

    def read(self, n: int = -1) -> bytes:
        start = self._pos
        if n < 0:
            n = len(self._data) - start
        chunk = self._data[start:start + n]
        if len(chunk) < n:
            raise _ShortRead(start, n, len(chunk))
        self._pos += n
        return chunk

    def read_frame(self, n: int) -> bytes:
        """What is left of a frame of `n` bytes; a short frame is noted, and read on as far as it goes."""
        chunk = self._data[self._pos:self._pos + n]
        if len(chunk) < n and self.short_frame is None:
            self.short_frame = _ShortRead(self._pos, n, len(chunk))
        self._pos += len(chunk)
        return chunk

    def readinto(self, buffer) -> int:
        chunk = self.read(len(buffer))
        buffer[:len(chunk)] = chunk
        return len(chunk)

    def readline(self) -> bytes:
        end = self._data.find(b'\n', self._pos)
        if end < 0:
            raise _ShortRead(self._pos, len(self._data) - self._pos + 1, len(self._data) - self._pos)
        line = self._data[self._pos:end + 1]
        self._pos = end + 1
        return line


class _TracingUnpickler(pickle._Unpickler):
    """The pure-Python unpickler, whose stack is visible after a failure. A protocol 4 pickle comes in frames of up
    to 64 KB: a short frame is read on as far as it goes, so that the stack reaches the variable it cut."""

    def __init__(self, file: _CountingReader, source: str, extra: dict):
        super().__init__(file, encoding='latin1')
        self._source, self._extra, self._reader = source, extra, file
        self.dispatch = dict(self.dispatch)
        self.dispatch[pickle.FRAME[0]] = _TracingUnpickler._load_frame

    def _load_frame(self):
        (size,) = struct.unpack('<Q', self.read(8))
        self._unframer.current_frame = io.BytesIO(self._reader.read_frame(size))

    def find_class(self, module, name):
        return _find_class(module, name, self._extra, self._source)

    def key_being_read(self) -> str | None:
        """The innermost dict key whose value was being read when the stream broke off."""
        frames = list(getattr(self, 'metastack', [])) + [getattr(self, 'stack', [])]
        key, below = None, None
        for depth, frame in enumerate(frames):
            last_open = depth < len(frames) - 1        # a MARK came after it: its arguments or state were read
            if isinstance(below, dict):                 # the MARK frame of SETITEMS: key, value, key, ...
                found = _pending_key(frame, last_open)
            else:                                       # SETITEM: dict, key, value on one frame
                dicts = [i for i, item in enumerate(frame) if isinstance(item, dict)]
                found = _pending_key(frame[dicts[-1] + 1:], last_open) if dicts else None
            key = found if found is not None else key
            below = frame[-1] if frame else None
        return key


def _pending_key(items: list, last_open: bool) -> str | None:
    """The key whose value is unfinished in [key, value, ..., key, parts of a value]. A value is finished unless it
    is a class or function (numpy's reconstruct, waiting for its arguments) or the last item while a deeper frame
    is open (an array waiting for its state)."""
    i = 0
    while (i + 1 < len(items) and isinstance(items[i], str) and not callable(items[i + 1])
           and not (last_open and i + 1 == len(items) - 1)):
        i += 2
    return items[i] if i < len(items) and isinstance(items[i], str) else None


def _diagnose(data: bytes, source: str, extra: dict, first: Exception) -> CorruptFileError:
    tracer = _TracingUnpickler(_CountingReader(data), source, extra)
    detail = '%s: %s' % (type(first).__name__, first)
    short = None
    try:
        tracer.load()
    except _ShortRead as e:
        short = e
    except Exception as e:      # noqa: BLE001 - any failure of the second pass is the diagnosis
        detail = '%s: %s' % (type(e).__name__, e)
    else:
        detail = 'the fast reader failed (%s), the careful one did not' % detail
    short = tracer._reader.short_frame or short
    if short is not None:
        detail = 'the pickle stream needs %d bytes at offset %d, %d found' % (short.wanted, short.offset, short.found)
    key = tracer.key_being_read()
    where = " while reading the value of '%s'" % key if key is not None else ''
    return CorruptFileError('%s is truncated or corrupt (%d bytes)%s: %s' % (source, len(data), where, detail))


# --- writing ---------------------------------------------------------------------------------------------------

class _PortablePickler(pickle.Pickler):
    """Pickles arrays as `numpy.ndarray(shape, dtype, bytearray)`: numpy 2 pickles name `numpy._core`, which the
    numpy 1.x of a Paddle installation cannot import."""

    def reducer_override(self, obj):
        if type(obj) is np.ndarray and obj.dtype != object:
            arr = np.ascontiguousarray(obj)
            data = bytearray(memoryview(arr.reshape(-1)).cast('B')) if arr.size else bytearray()
            return np.ndarray, (arr.shape, arr.dtype.str, data)
        return NotImplemented


def dump_portable(obj, file, protocol: int) -> None:
    """Pickles `obj` into the binary `file` (see _PortablePickler)."""
    _PortablePickler(file, protocol=protocol).dump(obj)


def dumps_portable(obj, protocol: int) -> bytes:
    buf = io.BytesIO()
    dump_portable(obj, buf, protocol)
    return buf.getvalue()
