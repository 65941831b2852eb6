"""require_version: Paddle's version check, against the version of Paddle whose surface a module implements
(2.6.2 for paddle.utils, 1.8.5 for fluid), since scripts ask which Paddle API they run on."""
from __future__ import annotations

import re
from typing import Callable

__all__ = ['require_version', 'make_require_version', 'PADDLE_2_VERSION', 'FLUID_VERSION']

PADDLE_2_VERSION = '2.6.2'
FLUID_VERSION = '1.8.5'
_FORMAT = re.compile(r'\d+(\.\d+){0,3}')


def _parts(version: str) -> list[int]:
    parts = [int(p) for p in version.split('.')]
    return parts + [0] * (4 - len(parts))


def make_require_version(installed: str) -> Callable:
    """require_version(min_version, max_version=None) checking against `installed`."""

    def require_version(min_version: str, max_version: str | None = None) -> None:
        """Raises Exception('VersionError: ...') unless min_version <= the Paddle version <= max_version."""
        if not isinstance(min_version, str):
            raise TypeError("The type of 'min_version' in require_version must be str, but received %s."
                            % type(min_version))
        if not isinstance(max_version, (str, type(None))):
            raise TypeError("The type of 'max_version' in require_version must be str or type(None), but "
                            "received %s." % type(max_version))
        for what, value in (('min_version', min_version), ('max_version', max_version)):
            if value is None:
                continue
            match = _FORMAT.match(value)
            if match is None or match.group() != value:
                raise ValueError("The value of '%s' in require_version must be in format '\\d+(\\.\\d+){0,3}', "
                                 "like '1.5.2.0', but received %s" % (what, value))
        have = _parts(installed)
        if have < _parts(min_version) or (max_version is not None and have > _parts(max_version)):
            if max_version is None:
                raise Exception('VersionError: PaddlePaddle version %s or higher is required, but %s installed, '
                                'please upgrade your PaddlePaddle to %s or other higher version.'
                                % (min_version, installed, min_version))
            raise Exception('VersionError: PaddlePaddle version in [%s, %s] required, but %s installed.'
                            % (min_version, max_version, installed))

    return require_version


require_version = make_require_version(PADDLE_2_VERSION)
