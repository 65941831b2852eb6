"""paddle_exec.compat: running unchanged Paddle scripts, and Paddle 1.8's `paddle.compat` helpers.

    python -m paddle_exec.compat script.py args...       # `import paddle` / `paddle.fluid` resolve to paddle_exec

The runner (__main__.py) installs the import alias of alias.py and runs the script as `__main__`. Since
`paddle.compat` then resolves to this package, it also carries what Paddle 1.8's `paddle.compat` module offers
scripts: to_text, to_bytes, round (half away from zero), floor_division, get_exception_message, long_type,
int_type.
"""
from __future__ import annotations

import math

from .alias import PaddleAliasFinder, install_paddle_alias, uninstall_paddle_alias

__all__ = ['long_type', 'to_text', 'to_bytes', 'round', 'floor_division', 'get_exception_message',
           'install_paddle_alias', 'uninstall_paddle_alias', 'PaddleAliasFinder']

int_type = int
long_type = int


def _to_text(obj, encoding):
    if isinstance(obj, bytes):
        return obj.decode(encoding)
    if isinstance(obj, (str, bool, float)) or obj is None:
        return obj
    return str(obj)


def _to_bytes(obj, encoding):
    if isinstance(obj, str):
        return obj.encode(encoding)
    if isinstance(obj, bytes) or obj is None:
        return obj
    return bytes(obj)


def _convert(obj, encoding, inplace, one, maps: bool):
    if obj is None:
        return obj
    if isinstance(obj, list):
        if inplace:
            obj[:] = [one(item, encoding) for item in obj]
            return obj
        return [one(item, encoding) for item in obj]
    if isinstance(obj, set):
        converted = {one(item, encoding) for item in obj}
        if inplace:
            obj.clear()
            obj.update(converted)
            return obj
        return converted
    if maps and isinstance(obj, dict):
        converted = {one(k, encoding): one(v, encoding) for k, v in obj.items()}
        if inplace:
            obj.update(converted)
            return obj
        return converted
    return one(obj, encoding)


def to_text(obj, encoding: str = 'utf-8', inplace: bool = False):
    """bytes (or the items of a list, set or dict) decoded to str; str and other values as they are."""
    return _convert(obj, encoding, inplace, _to_text, maps=True)


def to_bytes(obj, encoding: str = 'utf-8', inplace: bool = False):
    """str (or the items of a list or set) encoded to bytes."""
    return _convert(obj, encoding, inplace, _to_bytes, maps=False)


def round(x, d: int = 0):
    """Python 2's round: halves go away from zero (Python 3 rounds them to even)."""
    p = 10 ** d
    if x > 0.0:
        return float(math.floor((x * p) + math.copysign(0.5, x))) / p
    if x < 0.0:
        return float(math.ceil((x * p) + math.copysign(0.5, x))) / p
    return math.copysign(0.0, x)


def floor_division(x, y):
    return x // y


def get_exception_message(exc) -> str:
    assert exc is not None
    return str(exc)
