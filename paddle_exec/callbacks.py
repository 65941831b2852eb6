"""paddle.callbacks: the module path of hapi's callbacks (paddle_exec/hapi/callbacks.py)."""
from .hapi.callbacks import Callback, EarlyStopping, LRScheduler, ModelCheckpoint, ProgBarLogger

__all__ = ['Callback', 'ProgBarLogger', 'ModelCheckpoint', 'LRScheduler', 'EarlyStopping']
