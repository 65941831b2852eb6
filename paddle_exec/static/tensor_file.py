"""Paddle's LoDTensor stream: one variable's value as fluid.io.save_vars writes it (and `__params__` /
`.pdiparams`, which hold several of them back to back).

    uint32   tensor version (0)
    uint64   LoD level count, then per level: uint64 byte size and that many uint64 offsets
    uint32   tensor version (0)
    int32    byte size of the TensorDesc protobuf (framework.proto's VarType.TensorDesc: data type, dims)
    bytes    the TensorDesc
    bytes    the data, C order, native little-endian

`tensor_chunks` gives the pieces to write (the data as a view of the array, not a copy, so a 200 MB parameter is
not held twice). `read_tensor` checks every length against what is left of the buffer and raises
`CorruptFileError` naming the file, the variable, the part being read, and the bytes expected and found.
"""
from __future__ import annotations

import struct

import numpy as np
from google.protobuf.message import DecodeError

from ..framework.dtype import VarType, to_numpy, to_var_type
from . import framework_pb2
from .paddle_proto_writer import tensor_desc
from .safe_pickle import CorruptFileError

__all__ = []   # internal: used by static.io and static.var_files


def tensor_chunks(array: np.ndarray, lod=(), name: str = 'tensor') -> list:
    """The LoDTensor stream of `array` as a list of bytes-like pieces."""
    array = np.ascontiguousarray(array)
    out = [struct.pack('<IQ', 0, len(lod))]
    for level in lod:
        data = np.asarray(level, dtype=np.uint64).tobytes()
        out += [struct.pack('<Q', len(data)), data]
    desc = tensor_desc(name, to_var_type(array.dtype), array.shape).SerializeToString()
    out += [struct.pack('<Ii', 0, len(desc)), desc, memoryview(array.reshape(-1)).cast('B') if array.size else b'']
    return out


def tensor_to_bytes(array: np.ndarray, lod=()) -> bytes:
    """Paddle's SerializeToStream of a LoDTensor."""
    return b''.join(bytes(chunk) for chunk in tensor_chunks(array, lod))


class _Cursor:
    """Reads from `buf` at `pos`, naming the file, the variable and the part when the bytes run out."""

    def __init__(self, buf, pos: int, source: str, name: str | None):
        self.buf, self.pos, self.source, self.name = buf, pos, source, name

    def fail(self, what: str) -> CorruptFileError:
        var = " (variable '%s')" % self.name if self.name else ''
        return CorruptFileError('%s%s is truncated or corrupt: %s' % (self.source, var, what))

    def take(self, size: int, part: str) -> memoryview:
        left = len(self.buf) - self.pos
        if size < 0 or size > left:
            raise self.fail('its %s needs %d bytes at offset %d, %d found' % (part, size, self.pos, max(left, 0)))
        view = memoryview(self.buf)[self.pos:self.pos + size]
        self.pos += size
        return view

    def unpack(self, fmt: str, part: str):
        return struct.unpack(fmt, self.take(struct.calcsize(fmt), part))


def read_tensor(buf, pos: int = 0, source: str = 'the tensor stream',
                name: str | None = None) -> tuple[np.ndarray, list, int]:
    """(array, lod, position after it) of the LoDTensor stream at `pos` of `buf`; `source` (the file) and `name`
    (the variable) name it in errors."""
    cur = _Cursor(buf, pos, source, name)
    (version,) = cur.unpack('<I', 'version')
    if version != 0:
        raise cur.fail('unsupported LoDTensor version %d at offset %d (Paddle writes 0)' % (version, pos))
    (levels,) = cur.unpack('<Q', 'LoD level count')
    lod = []
    for level in range(levels):
        (size,) = cur.unpack('<Q', 'LoD level %d size' % level)
        if size % 8:
            raise cur.fail('LoD level %d has %d bytes, not a whole number of uint64 offsets' % (level, size))
        lod.append(np.frombuffer(cur.take(size, 'LoD level %d' % level), np.uint64).tolist())
    (tensor_version, desc_size) = cur.unpack('<Ii', 'tensor header')
    if tensor_version != 0:
        raise cur.fail('unsupported tensor version %d (Paddle writes 0)' % tensor_version)
    desc = framework_pb2.VarType.TensorDesc()
    try:
        desc.ParseFromString(bytes(cur.take(desc_size, 'TensorDesc')))
    except DecodeError as e:
        raise cur.fail('its TensorDesc does not parse (%s)' % e) from None
    try:
        np_dtype = to_numpy(VarType(desc.data_type))
    except (ValueError, KeyError, TypeError):
        np_dtype = None
    if np_dtype is None or np_dtype.hasobject:
        raise cur.fail('its TensorDesc names data type %d, which is not a plain numeric type' % desc.data_type)
    dims = list(desc.dims)
    if any(d < 0 for d in dims):
        raise cur.fail('its TensorDesc has a negative dimension %s' % dims)
    count = int(np.prod(dims, dtype=np.int64)) if dims else 1
    data = cur.take(count * np_dtype.itemsize, 'data (%s of shape %s)' % (np_dtype.name, dims))
    array = np.frombuffer(data, np_dtype, count).reshape(dims).copy()
    return array, lod, cur.pos


def tensor_from_bytes(buf, pos: int = 0) -> tuple[np.ndarray, list, int]:
    """(array, lod, position after it) of the LoDTensor stream at `pos`."""
    return read_tensor(buf, pos)
