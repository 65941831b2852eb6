"""fluid.io: Paddle 1.8's io namespace, assembled from the modules that own each part: saving and loading
(shared with paddle.static, see static/io.py), the DataLoader (static/data_loader.py), and the reader decorators
with `batch` (reader/decorator.py).

    train_reader = fluid.io.batch(fluid.io.shuffle(reader, buf_size=500), batch_size=32)
    fluid.io.save_persistables(exe, 'ckpt', main_program)
"""
from ..io.dataloader import DataLoader
from ..io.dataloader import fluid_default_collate_fn as default_collate_fn
from ..reader import decorator as _decorator
from ..reader.decorator import *  # noqa: F403  (a re-exporting namespace)
from ..reader.decorator import batch
from ..static import io as _static_io
from ..static.data_loader import PyReader
from ..static.io import *  # noqa: F403

__all__ = (list(_static_io.__all__) + ['DataLoader', 'PyReader', 'batch', 'default_collate_fn']
           + list(_decorator.__all__))
