"""paddle.callbacks: the module path of hapi's callbacks (paddle_exec/hapi/callbacks.py, callbacks_extra.py)."""
from .hapi.callbacks import Callback, EarlyStopping, LRScheduler, ModelCheckpoint, ProgBarLogger
from .hapi.callbacks_extra import ReduceLROnPlateau, VisualDL, WandbCallback

__all__ = ['Callback', 'ProgBarLogger', 'ModelCheckpoint', 'VisualDL', 'LRScheduler', 'EarlyStopping',
           'ReduceLROnPlateau', 'WandbCallback']
