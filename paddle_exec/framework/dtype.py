"""Data types: Paddle's VarType enum and its conversions to numpy.

Paddle exposes a variable's dtype as `core.VarDesc.VarType.FP32` (1.x) and accepts strings ('float32'), numpy
dtypes and VarType members wherever a dtype is asked for. `to_var_type` and `to_numpy` convert between them; the
numeric values are Paddle's, so a serialized ProgramDesc reads back.
"""
from __future__ import annotations

import enum

import numpy as np


class VarType(enum.IntEnum):
    BOOL = 0
    INT16 = 1
    INT32 = 2
    INT64 = 3
    FP16 = 4
    FP32 = 5
    FP64 = 6
    LOD_TENSOR = 7
    SELECTED_ROWS = 8
    FEED_MINIBATCH = 9
    FETCH_LIST = 10
    STEP_SCOPES = 11
    LOD_RANK_TABLE = 12
    LOD_TENSOR_ARRAY = 13
    PLACE_LIST = 14
    READER = 15
    RAW = 17
    TUPLE = 18
    SIZE_T = 19
    UINT8 = 20
    INT8 = 21
    BF16 = 22
    COMPLEX64 = 23
    COMPLEX128 = 24
    STRINGS = 29

    def __repr__(self) -> str:
        return 'VarType.%s' % self.name

    __str__ = __repr__


_NUMPY_OF = {
    VarType.BOOL: np.dtype('bool'),
    VarType.INT16: np.dtype('int16'),
    VarType.INT32: np.dtype('int32'),
    VarType.INT64: np.dtype('int64'),
    VarType.FP16: np.dtype('float16'),
    VarType.FP32: np.dtype('float32'),
    VarType.FP64: np.dtype('float64'),
    VarType.UINT8: np.dtype('uint8'),
    VarType.INT8: np.dtype('int8'),
    VarType.COMPLEX64: np.dtype('complex64'),
    VarType.COMPLEX128: np.dtype('complex128'),
    VarType.STRINGS: np.dtype('object'),
}
_VAR_TYPE_OF = {v: k for k, v in _NUMPY_OF.items()}
_ALIASES = {'float': 'float32', 'double': 'float64', 'int': 'int32', 'long': 'int64', 'string': 'object',
            'str': 'object', 'fp32': 'float32', 'fp64': 'float64', 'fp16': 'float16'}

FLOAT_TYPES = (VarType.FP16, VarType.FP32, VarType.FP64, VarType.BF16)


def to_var_type(dtype) -> VarType:
    """Any dtype spelling (VarType, 'float32', np.float32, np.dtype) -> VarType."""
    if isinstance(dtype, VarType):
        return dtype
    if isinstance(dtype, int) and not isinstance(dtype, bool):
        return VarType(dtype)
    if isinstance(dtype, str):
        dtype = _ALIASES.get(dtype, dtype)
        if dtype == 'bfloat16':
            return VarType.BF16
    try:
        return _VAR_TYPE_OF[np.dtype(dtype)]
    except (TypeError, KeyError):
        raise TypeError('unsupported data type %r' % (dtype,)) from None


def to_numpy(dtype) -> np.dtype:
    """Any dtype spelling -> numpy dtype."""
    vt = to_var_type(dtype)
    if vt not in _NUMPY_OF:
        raise TypeError('data type %r has no numpy equivalent' % (vt,))
    return _NUMPY_OF[vt]


def convert_dtype(dtype) -> str:
    """Paddle's `convert_dtype`: the dtype's name as a string ('float32')."""
    vt = to_var_type(dtype)
    if vt == VarType.BF16:
        return 'bfloat16'
    if vt == VarType.STRINGS:
        return 'string'
    return str(to_numpy(vt))


def is_float(dtype) -> bool:
    return to_var_type(dtype) in FLOAT_TYPES


COMPLEX_TYPES = (VarType.COMPLEX64, VarType.COMPLEX128)
_REAL_OF_COMPLEX = {VarType.COMPLEX64: VarType.FP32, VarType.COMPLEX128: VarType.FP64}
_COMPLEX_OF_REAL = {VarType.FP32: VarType.COMPLEX64, VarType.FP64: VarType.COMPLEX128}


def is_complex(dtype) -> bool:
    return to_var_type(dtype) in COMPLEX_TYPES


def real_dtype(dtype) -> VarType:
    """complex64 -> float32, complex128 -> float64; a real dtype is itself."""
    vt = to_var_type(dtype)
    return _REAL_OF_COMPLEX.get(vt, vt)


def complex_dtype(dtype) -> VarType:
    """float32 -> complex64, float64 -> complex128 (Paddle's rule for fft of real input); complex stays."""
    vt = to_var_type(dtype)
    if vt in COMPLEX_TYPES:
        return vt
    if vt not in _COMPLEX_OF_REAL:
        raise TypeError('data type %s has no complex counterpart (float32 and float64 do)' % convert_dtype(vt))
    return _COMPLEX_OF_REAL[vt]
