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


# --- Paddle 2.x's default float dtype and the numeric limits of dtypes (paddle.finfo / paddle.iinfo) ----------------

_DEFAULT_DTYPE = {'name': 'float32'}


def get_default_dtype() -> str:
    """paddle.get_default_dtype: the float dtype 2.x builders use when none is given ('float32' at start)."""
    return _DEFAULT_DTYPE['name']


def set_default_dtype(d) -> None:
    """paddle.set_default_dtype: float16, float32 or float64 (a string, numpy dtype or VarType)."""
    name = convert_dtype(d) if not isinstance(d, type) else np.dtype(d).name
    if name not in ('float16', 'float32', 'float64', 'bfloat16'):
        raise TypeError('set_default_dtype only supports [float16, float32, float64, bfloat16] , but received %s'
                        % name)
    _DEFAULT_DTYPE['name'] = name


class finfo:  # noqa: N801 - Paddle's name
    """paddle.finfo(dtype): the machine limits of a float dtype (bfloat16's from its 8-bit exponent and 7-bit
    mantissa; the others numpy's)."""

    def __init__(self, dtype):
        name = convert_dtype(dtype)
        if name == 'bfloat16':
            self.bits, self.eps, self.max, self.tiny, self.resolution = 16, 2.0 ** -7, 3.3895313892515355e+38, \
                2.0 ** -126, 0.01
            self.min, self.smallest_normal = -self.max, self.tiny
        elif name in ('float16', 'float32', 'float64', 'complex64', 'complex128'):
            info = np.finfo(np.dtype(name))
            self.bits, self.eps, self.max, self.min = int(info.bits), float(info.eps), float(info.max), float(info.min)
            self.tiny = self.smallest_normal = float(info.tiny)
            self.resolution = float(info.resolution)
        else:
            raise TypeError('finfo takes a float dtype, got %s' % name)
        self.dtype = 'float32' if name == 'complex64' else ('float64' if name == 'complex128' else name)

    def __repr__(self) -> str:
        return ('paddle.finfo(min=%g, max=%g, eps=%g, resolution=%g, smallest_normal=%g, tiny=%g, bits=%d, '
                'dtype=%s)' % (self.min, self.max, self.eps, self.resolution, self.smallest_normal, self.tiny,
                               self.bits, self.dtype))


class iinfo:  # noqa: N801 - Paddle's name
    """paddle.iinfo(dtype): the limits of an integer dtype."""

    def __init__(self, dtype):
        name = convert_dtype(dtype)
        if name not in ('uint8', 'int8', 'int16', 'int32', 'int64'):
            raise TypeError('iinfo takes an integer dtype, got %s' % name)
        info = np.iinfo(np.dtype(name))
        self.bits, self.min, self.max, self.dtype = int(info.bits), int(info.min), int(info.max), name

    def __repr__(self) -> str:
        return 'paddle.iinfo(min=%d, max=%d, bits=%d, dtype=%s)' % (self.min, self.max, self.bits, self.dtype)
