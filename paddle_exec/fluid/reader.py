"""fluid.reader (Paddle 1.8's module path): DataLoader (paddle.io's, paddle_exec/io/dataloader.py, with
from_generator), PyReader (paddle_exec/static/data_loader.py), and 1.8's
default_collate_fn (paddle_exec/io/dataloader.py)."""
from ..io.dataloader import DataLoader
from ..io.dataloader import fluid_default_collate_fn as default_collate_fn
from ..static.data_loader import PyReader

__all__ = ['DataLoader', 'PyReader', 'default_collate_fn']
