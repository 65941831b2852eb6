"""Paddle's global flags: `paddle.set_flags` / `get_flags`, `fluid.set_flags` / `get_flags`, and the `FLAGS_*`
environment variables.

    paddle.set_flags({'FLAGS_check_nan_inf': True})
    paddle.get_flags(['FLAGS_check_nan_inf'])       # {'FLAGS_check_nan_inf': True}
    FLAGS_check_nan_inf=1 python train.py           # the same, from the environment

Every flag real Paddle 1.8.5 or 2.6.2 defines is known (flag_table.py, with Paddle's defaults), and each API takes
the names its Paddle takes: `paddle.set_flags` / `get_flags` 2.6.2's public flags, `fluid.set_flags` / `get_flags`
1.8.5's (fluid_set_flags / fluid_get_flags here). A value is converted to the flag's type (as gflags does: "1",
"true" and True for a bool); any other name, and a flag private to that version, raises Paddle's ValueError ("Flag
FLAGS_x cannot set its value through this function."). Values start from the environment (config.py, the one
reader of os.environ) the first time flags are used; both APIs share them.

What the flags do here (EFFECTIVE):
    FLAGS_check_nan_inf        after every op, a NaN or Inf in a float output raises RuntimeError naming the op,
                               the output variable and the first bad index (instrument.py)
    FLAGS_check_nan_inf_level  accepted; every level checks and raises as level 0 does
    FLAGS_paddle_num_threads   the BLAS threads while a run is in progress (default 1, as Paddle's InitDevices
                               sets its math library; policies/base.py `math_threads`)
Every other flag is accepted and kept, with no effect on this CPU executor (memory allocators, GPU, MKL-DNN, the
parameter server, PIR, ...): docs/flags.md lists them. The values live with the instruments (instrument.py): the
one process-wide state, as Paddle's flags are.
"""
from __future__ import annotations

import threading

from .config import read_environment
from .flag_table import FLAGS_1_8, ONLY_1_8, PADDLE_FLAGS, PRIVATE_1_8, PRIVATE_2_6
from .instrument import INSTRUMENTS
from .policies.base import MATH_THREADS

__all__ = ['set_flags', 'get_flags', 'fluid_set_flags', 'fluid_get_flags', 'load_flags', 'EFFECTIVE_FLAGS',
           'FLAGS_1_8', 'FLUID_API_FLAGS', 'PADDLE_API_FLAGS']

# the flags each API takes: 2.6.2's public ones (paddle.*), 1.8.5's public ones (fluid.*)
PADDLE_API_FLAGS = frozenset(PADDLE_FLAGS) - ONLY_1_8 - PRIVATE_2_6
FLUID_API_FLAGS = FLAGS_1_8 - PRIVATE_1_8

EFFECTIVE_FLAGS = {'check_nan_inf': 'raise on the first NaN or Inf an op writes',
                   'check_nan_inf_level': 'accepted; every level checks as level 0',
                   'paddle_num_threads': 'the BLAS threads while a run is in progress'}

_lock = threading.Lock()
_values: dict = {}                  # flag name without FLAGS_ -> value; filled from the environment on first use


def _convert(name: str, value, default):
    if isinstance(default, bool):
        if isinstance(value, str):
            text = value.strip().lower()
            if text in ('1', 'true', 'yes', 'on'):
                return True
            if text in ('0', 'false', 'no', 'off', ''):
                return False
            raise ValueError('Flag FLAGS_%s is a bool; %r is not one (use true/false or 1/0)' % (name, value))
        return bool(value)
    try:
        if isinstance(default, int):
            return int(value)
        if isinstance(default, float):
            return float(value)
    except (TypeError, ValueError):
        raise ValueError('Flag FLAGS_%s is a %s; %r is not one' % (name, type(default).__name__, value)) from None
    return str(value)


def load_flags() -> dict:
    """The flag values, read from the environment the first time (the runner calls this when it is made, so that
    FLAGS_check_nan_inf=1 works without set_flags)."""
    return _loaded()


def _loaded() -> dict:
    if not _values:
        with _lock:
            if not _values:
                env = read_environment()
                values = dict(PADDLE_FLAGS)
                for name, default in PADDLE_FLAGS.items():
                    raw = env.get('FLAGS_' + name)
                    if raw is not None:
                        values[name] = _convert(name, raw, default)
                _values.update(values)
                _apply(values)
    return _values


def _apply(values: dict) -> None:
    """The flags that act, handed to what reads them during a run."""
    INSTRUMENTS.check_nan_inf = bool(values['check_nan_inf'])
    MATH_THREADS.n = max(1, int(values['paddle_num_threads']))      # Paddle's SetNumThreads: below 1 means 1


def _known(name, verb: str, allowed: frozenset) -> str:
    if not isinstance(name, str):
        raise TypeError('Flag names must be str, got %s' % type(name).__name__)
    short = name[6:] if name.startswith('FLAGS_') else None
    if short is None or short not in allowed:
        raise ValueError('Flag %s cannot %s its value through this function.' % (name, verb))
    return short


def _set(flags: dict, allowed: frozenset) -> None:
    if not isinstance(flags, dict):
        raise TypeError('flags in set_flags should be a dict')
    values = _loaded()
    converted = {}
    for name, value in flags.items():
        short = _known(name, 'set', allowed)
        converted[short] = _convert(short, value, PADDLE_FLAGS[short])
    with _lock:
        values.update(converted)
        _apply(values)


def _get(flags, allowed: frozenset) -> dict:
    if isinstance(flags, str):
        flags = [flags]
    if not isinstance(flags, (list, tuple)):
        raise TypeError('Flags in get_flags should be a list, tuple or string.')
    values = _loaded()
    return {name: values[_known(name, 'get', allowed)] for name in flags}


def set_flags(flags: dict) -> None:
    """paddle.set_flags: {'FLAGS_name': value} for 2.6.2's public flags; other names raise ValueError."""
    _set(flags, PADDLE_API_FLAGS)


def get_flags(flags) -> dict:
    """paddle.get_flags: {'FLAGS_name': value} for a flag name or a list or tuple of them."""
    return _get(flags, PADDLE_API_FLAGS)


def fluid_set_flags(flags: dict) -> None:
    """fluid.set_flags (1.8): as set_flags, for 1.8.5's public flags."""
    _set(flags, FLUID_API_FLAGS)


def fluid_get_flags(flags) -> dict:
    """fluid.get_flags (1.8): as get_flags, for 1.8.5's public flags."""
    return _get(flags, FLUID_API_FLAGS)
