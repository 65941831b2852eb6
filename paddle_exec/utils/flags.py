"""paddle.utils' flags: Paddle's global flags, read and set through get_flags / set_flags. They are the executor's
(executor/flags.py, every flag Paddle 1.8.5 and 2.6.2 define, FLAGS_check_nan_inf among them); this module maps
them to the paths scripts import them from."""
from __future__ import annotations

from ..executor.flag_table import PADDLE_FLAGS
from ..executor.flags import get_flags, set_flags

__all__ = ['get_flags', 'set_flags', 'public_flags']


def public_flags() -> list[str]:
    """The names get_flags / set_flags accept."""
    return ['FLAGS_' + name for name in PADDLE_FLAGS]
