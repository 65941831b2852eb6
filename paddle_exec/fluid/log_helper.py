"""fluid.log_helper (Paddle 1.8's module path): get_logger, a logger with its own stream handler."""
from __future__ import annotations

import logging

__all__ = ['get_logger']


def get_logger(name: str, level, fmt: str | None = None) -> logging.Logger:
    """The logger `name` at `level`, with a StreamHandler (stderr) formatted by `fmt` when given, as 1.8 does."""
    logger = logging.getLogger(name)
    logger.setLevel(level)
    handler = logging.StreamHandler()
    if fmt:
        handler.setFormatter(logging.Formatter(fmt=fmt))
    logger.addHandler(handler)
    return logger
