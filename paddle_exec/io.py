"""paddle.io (Paddle 2.x's module path): DataLoader (paddle_exec/static/data_loader.py), whose static-graph form
`DataLoader.from_generator` feeds a program from a Python generator. The map-style Dataset / Sampler classes are
not implemented yet."""
from .static.data_loader import DataLoader

__all__ = ['DataLoader']
