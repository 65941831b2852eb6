"""paddle.hapi: Paddle 2.x's high-level API in static mode: `Model` (model.py, run by static_adapter.py), the
callbacks (callbacks.py, printed through progressbar.py), `summary` (model_summary.py) and `flops` of a Program
(static_flops.py)."""
from . import callbacks
from .model import Model
from .model_summary import summary
from .static_flops import flops

__all__ = ['Model', 'callbacks', 'flops', 'summary']
